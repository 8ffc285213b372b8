"""jsonschema with Go's regular expressions, as Helm's santhosh-tekuri/jsonschema uses them.

Helm 3.22 validates values with santhosh-tekuri/jsonschema/v6, whose default regexp engine is
Go's ``regexp``: ``pattern`` and ``patternProperties`` are Go patterns, searched (not anchored),
and format ``"regex"`` means "``regexp.Compile`` accepts it". jsonschema (which words our
messages) searches with Python's ``re``: another dialect (``[\\w-\\.]`` refused) and a
backtracking engine (``^(a+)+$`` hangs). So:

* the ``re`` that jsonschema's keyword modules search with is replaced by :data:`GO_RE`,
  whose ``search`` is :mod:`helm_core.golib.goregexp` (those modules use nothing else of ``re``);
* :func:`v6_format_checker` asserts v6's formats (:mod:`helm_core.chart.schema_formats`), as v6
  asserts them on values in drafts before 2019-09 and on schemas against their metaschema.

v6 also decides ``multipleOf`` otherwise: values are validated by :func:`values_validator`'s
classes, whose ``multipleOf`` reads the numbers' decimal text (``0.3`` is a multiple of ``0.1``).
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


def _multiple_of(validator: Any, step: Any, instance: Any, schema: Any) -> Any:
    """jsonschema's ``multipleOf`` keyword with v6's answer."""
    from jsonschema.exceptions import ValidationError

    from helm_core.chart import verdict

    if validator.is_type(instance, "number") and not verdict.multiple_of(instance, step):
        yield ValidationError(f"{instance!r} is not a multiple of {step}")


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Any:
    """jsonschema's ``uniqueItems`` with v6's answer, each item keyed once: jsonschema compares
    maps pair by pair (30000 of them: minutes)."""
    from jsonschema.exceptions import ValidationError

    from helm_core.chart import schema_errors

    if unique and validator.is_type(instance, "array") and schema_errors.first_equal_pair(instance) is not None:
        yield ValidationError(f"{instance!r} has non-unique elements")


@functools.cache
def values_validator(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) with v6's ``multipleOf`` and ``uniqueItems``."""
    import jsonschema.validators

    return jsonschema.validators.extend(cls, {"multipleOf": _multiple_of, "uniqueItems": _unique_items})


class FormatFailure(ValueError):
    """A string that is not of its format: the text is v6's reason."""


def _v6_format(name: str) -> Any:
    from helm_core.chart import schema_formats

    def check(instance: Any) -> bool:
        why = schema_formats.reason(name, instance) if isinstance(instance, str) else None
        if why is not None:
            raise FormatFailure(why)
        return True
    return check


@functools.cache
def v6_format_checker() -> Any:
    """A format checker that asserts v6's formats: on values in drafts before 2019-09, and on a
    schema against its metaschema."""
    import jsonschema

    from helm_core.chart import schema_formats

    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = {name: (_v6_format(name), FormatFailure) for name in schema_formats.NAMES}
    return checker
