"""Checking a values schema against its metaschema: jsonschema's verdict, much faster.

``cls.check_schema(schema)`` walks the metaschema with jsonschema's general machinery: every
subschema it visits builds a new validator object and every ``$ref`` / ``$dynamicRef`` is
resolved again through ``referencing`` (URL joins, dynamic scope). For Draft 2020-12, whose
metaschema is seven vocabulary documents tied together by ``$dynamicRef: "#meta"``, that is
about 0.3-0.5 s for bitnami's redis schema.

A metaschema never changes, so all of that can be decided once per process: :func:`check_schema`
compiles the metaschema into plain closures, with every reference resolved statically by the
same ``referencing`` calls jsonschema makes at run time (the dynamic scope is tracked while
compiling, so ``$dynamicRef`` lands where jsonschema's would), and each leaf keyword (``type``,
``enum``, ``pattern``, ``format``...) checked by jsonschema's own keyword function. The closures
answer only "valid or not". When they say "not valid" — or when the metaschema uses anything
this module does not know — the exact path, ``cls.check_schema``, runs and raises its error,
so the messages users see are jsonschema's own, word for word.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

#: Keyword functions that only look at the instance (they never descend into subschemas), by
#: name in jsonschema._keywords / _legacy_keywords: they are called as they are.
_LEAF_FUNCTIONS = frozenset({
    "type", "enum", "const", "format", "pattern", "required", "uniqueItems", "multipleOf",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minimum_draft3_draft4",
    "maximum_draft3_draft4", "minItems", "maxItems", "minLength", "maxLength",
    "minProperties", "maxProperties", "dependentRequired",
})
_KEYWORD_MODULES = frozenset({"jsonschema._keywords", "jsonschema._legacy_keywords"})


class _Unsupported(Exception):
    """The metaschema uses something this compiler does not model: use the exact path."""


def check_schema(cls: Any, schema: Any) -> None:
    """Raise what ``cls.check_schema(schema)`` raises (``jsonschema.SchemaError``), or nothing."""
    check = compiled_check(cls)
    if check is not None:
        try:
            if check(schema):
                return
        except RecursionError:  # a very deep schema: let the exact path decide
            pass
    cls.check_schema(schema)


@functools.cache
def compiled_check(cls: Any) -> Check | None:
    """The verdict function of ``cls``'s metaschema, or ``None`` when it cannot be compiled."""
    try:
        return _Compiler(cls).root()
    except _Unsupported:
        return None


def _true(instance: Any) -> bool:
    return True


def _false(instance: Any) -> bool:
    return False


class _Compiler:
    """Mirrors jsonschema's ``iter_errors`` / ``descend`` / ``_validate_reference`` statically.

    A node is compiled under the same (applicability class, keyword class, resolver) that
    jsonschema would validate it with. Compiled nodes are shared by a key that decides every
    later resolution — the node, both classes, the resolver's base URI and the URIs of its
    dynamic scope in order of first entry (``$dynamicRef`` resolves to the outermost resource
    of that scope with the anchor) — so the recursion through ``#meta`` closes into a cycle.
    """

    def __init__(self, cls: Any) -> None:
        import jsonschema.validators
        import jsonschema_specifications
        import referencing
        import referencing.jsonschema

        self._referencing = referencing
        self._validator_for = jsonschema.validators.validator_for
        meta_cls = jsonschema.validators.validator_for(cls.META_SCHEMA, default=cls)
        self._format_checker = meta_cls.FORMAT_CHECKER
        self._meta_cls = meta_cls
        self._registry = jsonschema_specifications.REGISTRY
        self._done: dict[tuple[Any, ...], list[Check]] = {}
        self._leaf_validators: dict[Any, Any] = {}

    def root(self) -> Check:
        cls = self._meta_cls
        schema = cls.META_SCHEMA
        resolver = self._registry.resolver_with_root(self._specification(cls).create_resource(schema))
        return self._node(schema, cls, cls, resolver)

    # -- jsonschema's moves ---------------------------------------------------------------

    def _specification(self, cls: Any) -> Any:
        spec = self._referencing.jsonschema.specification_with
        return spec(dialect_id=cls.ID_OF(cls.META_SCHEMA) or "urn:unknown-dialect",
                    default=self._referencing.Specification.OPAQUE)

    def _descend(self, schema: Any, cls: Any, resolver: Any) -> Check:
        """``validator.descend(instance, schema)`` from a validator of class ``cls``."""
        if schema is True:
            return _true
        if schema is False:
            return _false
        if not isinstance(schema, dict):
            raise _Unsupported(f"subschema {schema!r}")
        inner = resolver.in_subresource(self._specification(cls).create_resource(schema))
        return self._node(schema, cls, self._validator_for(schema, default=cls), inner)

    def _reference(self, ref: Any, cls: Any, resolver: Any) -> Check:
        """``validator._validate_reference(ref, instance)``: resolved now, once."""
        try:
            resolved = resolver.lookup(ref)
        except self._referencing.exceptions.Unresolvable as exc:
            raise _Unsupported(f"unresolvable {ref!r}") from exc
        contents = resolved.contents
        if contents is True:
            return _true
        if contents is False:
            return _false
        if not isinstance(contents, dict):
            raise _Unsupported(f"reference {ref!r} to {contents!r}")
        return self._node(contents, cls, self._validator_for(contents, default=cls), resolved.resolver)

    def _key(self, schema: dict[str, Any], app_cls: Any, cls: Any, resolver: Any) -> tuple[Any, ...]:
        base = getattr(resolver, "_base_uri", None)
        if not isinstance(base, str):
            raise _Unsupported("resolver without a base URI")
        scope: list[str] = []
        for uri, _ in reversed(list(resolver.dynamic_scope())):
            if uri not in scope:
                scope.append(uri)
        return id(schema), app_cls, cls, base, tuple(scope)

    def _node(self, schema: dict[str, Any], app_cls: Any, cls: Any, resolver: Any) -> Check:
        """All keywords of one subschema: ``app_cls`` picks them (``$ref`` siblings), ``cls`` runs them."""
        key = self._key(schema, app_cls, cls, resolver)
        cell = self._done.get(key)
        if cell is not None:  # already compiled, or being compiled higher up (a cycle)
            return cell[0] if cell else (lambda instance: cell[0](instance))
        cell = []
        self._done[key] = cell
        checks = [check for k, v in app_cls._APPLICABLE_VALIDATORS(schema) if k in cls.VALIDATORS
                  if (check := self._keyword(k, v, schema, cls, resolver)) is not _true]
        if not checks:
            fn: Check = _true
        elif len(checks) == 1:
            fn = checks[0]
        else:
            def fn(instance: Any, checks: tuple[Check, ...] = tuple(checks)) -> bool:
                for check in checks:
                    if not check(instance):
                        return False
                return True
        cell.append(fn)
        return fn

    # -- keywords ----------------------------------------------------------------------------

    def _keyword(self, keyword: str, value: Any, schema: dict[str, Any], cls: Any, resolver: Any) -> Check:
        function = cls.VALIDATORS[keyword]
        name = getattr(function, "__name__", "")
        if getattr(function, "__module__", "") not in _KEYWORD_MODULES:
            raise _Unsupported(f"keyword {keyword!r} implemented by {function!r}")
        if name in _LEAF_FUNCTIONS:
            return self._leaf(function, value, schema, cls)
        if name == "dependencies_draft4_draft6_draft7" and isinstance(value, dict) and all(
                isinstance(v, list) for v in value.values()):
            return self._leaf(function, value, schema, cls)  # only the "required" form: no subschema
        if name in ("ref", "dynamicRef"):
            return self._reference(value, cls, resolver)
        if name in ("allOf", "anyOf") and isinstance(value, list):
            subs = tuple(self._descend(s, cls, resolver) for s in value)
            if name == "allOf":
                return lambda instance: all(sub(instance) for sub in subs)
            return lambda instance: any(sub(instance) for sub in subs)
        if name == "properties" and isinstance(value, dict):
            return self._properties(value, cls, resolver)
        if name == "patternProperties" and isinstance(value, dict):
            return self._pattern_properties(value, cls, resolver)
        if name == "additionalProperties":
            return self._additional_properties(value, schema, cls, resolver)
        if name == "propertyNames":
            sub = self._descend(value, cls, resolver)
            return lambda instance: not isinstance(instance, dict) or all(sub(k) for k in instance)
        if name in ("items", "items_draft6_draft7_draft201909") and value is True:
            return _true  # every item is allowed (the same in both drafts' functions)
        if name in ("items", "items_draft6_draft7_draft201909", "items_draft3_draft4") and isinstance(
                value, dict) and "prefixItems" not in schema:
            sub = self._descend(value, cls, resolver)
            return lambda instance: not isinstance(instance, list) or all(sub(v) for v in instance)
        raise _Unsupported(f"keyword {keyword!r} ({name}) with {value!r}")

    def _leaf(self, function: Any, value: Any, schema: dict[str, Any], cls: Any) -> Check:
        validator = self._leaf_validators.get(cls)
        if validator is None:
            # One validator per class stands for all of them: leaf keywords only use its type
            # checker and the format checker, which check_schema carries down unchanged.
            validator = cls(schema={}, format_checker=self._format_checker)
            self._leaf_validators[cls] = validator

        def leaf(instance: Any) -> bool:
            for _ in function(validator, value, instance, schema) or ():
                return False
            return True
        return leaf

    def _properties(self, properties: dict[str, Any], cls: Any, resolver: Any) -> Check:
        subs = tuple((name, self._descend(s, cls, resolver)) for name, s in properties.items())
        subs = tuple((name, sub) for name, sub in subs if sub is not _true)

        def check(instance: Any) -> bool:
            if not isinstance(instance, dict):
                return True
            for name, sub in subs:
                if name in instance and not sub(instance[name]):
                    return False
            return True
        return check

    def _pattern_properties(self, patterns: dict[str, Any], cls: Any, resolver: Any) -> Check:
        subs = tuple((pattern, self._descend(s, cls, resolver)) for pattern, s in patterns.items())

        def check(instance: Any) -> bool:
            if not isinstance(instance, dict):
                return True
            return all(sub(v) for pattern, sub in subs for k, v in instance.items() if re.search(pattern, k))
        return check

    def _additional_properties(self, value: Any, schema: dict[str, Any], cls: Any, resolver: Any) -> Check:
        # Which properties are "additional" is decided as jsonschema's find_additional_properties
        # does: not named in properties, and not matched by the patterns joined with "|".
        known = schema.get("properties", {})
        patterns = "|".join(schema.get("patternProperties", {}))
        if isinstance(value, dict):
            sub = self._descend(value, cls, resolver)
        elif value is False:
            sub = _false
        elif value is True:
            return _true
        else:
            raise _Unsupported(f"additionalProperties {value!r}")

        def check(instance: Any) -> bool:
            if not isinstance(instance, dict):
                return True
            for name, item in instance.items():
                if name in known or (patterns and re.search(patterns, name)):
                    continue
                if not sub(item):
                    return False
            return True
        return check
