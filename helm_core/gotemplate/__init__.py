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

from helm_core.support import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from helm_core.gotemplate.environment import Environment, TemplateSet, current_set
    from helm_core.gotemplate.parser import ParseError
    from helm_core.gotemplate.runtime import ExecError

__all__ = ["Environment", "ExecError", "ParseError", "TemplateSet", "current_set"]

#: Where each public name lives. They are imported on first use (PEP 562): a submodule such
#: as ``budget`` is then had without the whole engine, and the parser (with the lexer) waits
#: for a text that the disk memo has no tree of.
_HOMES = {"Environment": "environment", "TemplateSet": "environment", "current_set": "environment",
          "ExecError": "runtime", "ParseError": "parser"}


__getattr__ = lazy.exports(__name__, _HOMES, globals())
