"""Go's text/template language in Python: lexer, parser, closure compiler and runtime.

Public API (see :mod:`helm_core.gotemplate.environment`)::

    from helm_core.gotemplate import Environment
    env = Environment(funcs)
    tset = env.new_set()
    tset.parse("a.yaml", "{{ .x }}")
    tset.execute("a.yaml", {"x": 1})

Errors: :class:`ParseError` and :class:`ExecError` (both ``helm_core.errors.TemplateError``)
print exactly as Go's. Printing rules live in :mod:`helm_core.gotemplate.gofmt`; the
value model and function signatures in :mod:`helm_core.golib.gotypes`.
"""
from typing import TYPE_CHECKING, Any

from helm_core.gotemplate.environment import Environment, TemplateSet, current_set
from helm_core.gotemplate.runtime import ExecError

if TYPE_CHECKING:
    from helm_core.gotemplate.parser import ParseError

__all__ = ["Environment", "ExecError", "ParseError", "TemplateSet", "current_set"]


def __getattr__(name: str) -> Any:
    """``ParseError`` is the parser's: the parser (and the lexer) are imported when first
    needed, and a run whose parse trees all come from the disk memo never needs them."""
    if name == "ParseError":
        from helm_core.gotemplate.parser import ParseError
        return ParseError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
