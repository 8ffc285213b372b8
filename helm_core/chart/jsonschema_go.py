"""jsonschema with Go's regular expressions, as Helm's santhosh-tekuri/jsonschema uses them.

Helm 3.22 validates values with santhosh-tekuri/jsonschema/v6, whose default regexp engine is
Go's ``regexp``: ``pattern`` and ``patternProperties`` are Go patterns, searched (not anchored),
and format ``"regex"`` means "``regexp.Compile`` accepts it". jsonschema (which words our
messages) searches with Python's ``re``: another dialect (``[\\w-\\.]`` refused) and a
backtracking engine (``^(a+)+$`` hangs). So:

* the ``re`` that jsonschema's keyword modules search with is replaced by :data:`GO_RE`,
  whose ``search`` is :mod:`helm_core.golib.goregexp` (those modules use nothing else of ``re``);
* :func:`format_checker` is a validator's format checker whose "regex" is Go's.
"""
from __future__ import annotations

import functools
import types

# goregexp is imported where a pattern is compiled: a first run whose schema has no pattern and
# whose values pass never imports it (start-up time, bench/deferred.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _search(pattern: str, string: str) -> bool | None:
    """``re.search`` as jsonschema calls it, with Go's syntax and semantics (truthy or None)."""
    from helm_core.golib import goregexp

    return True if goregexp.compile(pattern).match_string(string) else None


#: Stands for the ``re`` module in jsonschema's keyword modules.
GO_RE = types.SimpleNamespace(search=_search)
#: The jsonschema modules whose ``re.search`` applies schema patterns to instances.
_KEYWORD_MODULES = ("jsonschema._keywords", "jsonschema._legacy_keywords", "jsonschema._utils")


@functools.cache
def install() -> None:
    """Make jsonschema apply ``pattern``, ``patternProperties`` (and with them
    ``additionalProperties`` / ``unevaluatedProperties``) with Go's regexps, once per process."""
    import importlib

    for name in _KEYWORD_MODULES:
        module = importlib.import_module(name)
        if not hasattr(getattr(module, "re", None), "search") or set(vars(GO_RE)) != {"search"}:
            raise RuntimeError(f"{name} does not search with re as expected")
        setattr(module, "re", GO_RE)  # a module attribute mypy cannot see


def _is_go_regex(instance: Any) -> bool:
    from helm_core.golib import goregexp

    if isinstance(instance, str):
        goregexp.compile(instance)  # GoSyntaxError: "not a 'regex'", with Go's reason as cause
    return True


def format_checker(cls: Any) -> Any:
    """``cls.FORMAT_CHECKER`` with format "regex" checked by Go's ``regexp.Compile``."""
    import jsonschema

    from helm_core.golib import goregexp

    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = dict(cls.FORMAT_CHECKER.checkers)
    checker.checkers["regex"] = (_is_go_regex, goregexp.GoSyntaxError)
    return checker
