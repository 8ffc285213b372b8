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
from helm_core.gotemplate.environment import Environment, TemplateSet, current_set
from helm_core.gotemplate.parser import ParseError
from helm_core.gotemplate.runtime import ExecError

__all__ = ["Environment", "ExecError", "ParseError", "TemplateSet", "current_set"]
