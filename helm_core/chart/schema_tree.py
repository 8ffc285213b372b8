"""v6's error tree for values that fail a schema, built by walking the schema in v6's order.

santhosh-tekuri/jsonschema v6 (Helm 3.22's validator) checks a subschema in this order: a false
schema; ``type`` (a mismatch ends the subschema); ``const``, ``enum``, ``format`` (each ends it
too); ``$ref`` (in drafts before 2019-09 nothing after it); then the keywords of the value's kind
(object, array, string, number); ``$dynamicRef``; ``not``, ``allOf``, ``anyOf``, ``oneOf``,
``if``; and ``unevaluated*``. One failure is reported as itself, several under a "validation failed" group.
This module rebuilds that tree; :mod:`helm_core.chart.schema_errors` words and prints it.

Where v6 only wants to know whether a subschema passes (``not``, ``if``, ``oneOf`` after a match)
it stops early, and ``anyOf`` stops at a match; the walk stops there too, because what it
descends into decides what v6 prints for ``propertyNames`` (see :class:`_Locations`).

References are resolved by ``referencing`` (which python-jsonschema, that decided the values
fail, resolved them with): the walk runs only on failures, after jsonschema is loaded. A
``$dynamicRef`` to a ``$dynamicAnchor`` goes to the outermost resource of the dynamic scope
with that anchor, as in v6. A schema met again for the same value is v6's reference cycle.

``format`` is asserted as v6 asserts it (:mod:`helm_core.chart.schema_formats`): on values in
drafts before 2019-09, and on schemas against their metaschema (:func:`metaschema_failures`,
how helm explains an invalid schema), after ``enum`` and ending the subschema as ``type`` does.
"""
from __future__ import annotations

from helm_core.chart import metaschema
from helm_core.chart import schema_errors as words
from helm_core.chart.refcycle import SCHEMA_URL
from helm_core.chart.schema_errors import Failure
from helm_core.chart.verdict import multiple_of, resolve
from helm_core.golib import gostrconv
from helm_core.support import jsonpointers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from helm_core.chart.schema_errors import Path

#: The URI helm gives the chart's schema (relative references resolve against it).
ROOT_URI = SCHEMA_URL


class _Outcome:
    """A subschema's result: its failure (or None) and what it evaluated of the value
    (property names and item indexes, for ``unevaluatedProperties``/``unevaluatedItems``)."""

    __slots__ = ("failure", "props", "items")

    def __init__(self, failure: Failure | None, props: set[str], items: set[int]) -> None:
        self.failure = failure
        self.props = props
        self.items = items


class _Locations:
    """v6's instance locations as Go slices sharing one backing array, for the one failure
    that keeps its location without copying it: ``invalid propertyName``.

    v6 makes the root's location with room for 8 names and each descent appends one; an
    append within that room writes into the array every shallower location shares. A
    ``propertyNames`` failure keeps its slice, so helm prints, for each depth, the name of the
    last value the walk descended into at that depth: the last item of an array, and for
    objects whichever key Go's random map order visited last (the walk's sorted order is one
    of them). An append beyond the room copies into an array twice as large, shared from then
    on by that subtree alone."""

    __slots__ = ("array", "kept")

    def __init__(self) -> None:
        self.array: list[str] = [""] * 8
        self.kept: list[tuple[Failure, list[str], int]] = []

    def descend(self, depth: int, name: str) -> None:
        """Append ``name`` to the location of length ``depth`` that lives in ``self.array``;
        the array the child's location lives in becomes ``self.array`` (the caller restores it)."""
        array = self.array
        if depth < len(array):
            array[depth] = name
        else:
            self.array = array[:depth] + [name] + [""] * (len(array) * 2 - depth - 1)

    def keep(self, failure: Failure, depth: int) -> None:
        self.kept.append((failure, self.array, depth))

    def settle(self) -> None:
        """Give each kept failure the location its slice reads once the walk is over."""
        for failure, array, depth in self.kept:
            failure.path = tuple(array[:depth])
        self.kept.clear()


class _Scope:
    """A subschema entered by the walk: what v6's scope knows, for reference cycles (the node,
    its location, the keyword path from its parent, the value's count) and for resolving
    references under it (the resolver and base URI)."""

    __slots__ = ("node", "location", "segment", "ref", "vid", "depth", "parent", "resolver", "base")

    def __init__(self, node: Any, location: str, segment: str, ref: str, vid: int, depth: int,
                 parent: _Scope | None, resolver: Any, base: str) -> None:
        self.node = node
        self.location = location
        self.segment = segment
        self.ref = ref
        self.vid = vid
        self.depth = depth
        self.parent = parent
        self.resolver = resolver
        self.base = base

    def keyword_location(self) -> str:
        """The keywords walked from the root to here (a reference's keyword, not its target)."""
        parts: list[str] = []
        scope: _Scope | None = self
        while scope is not None and scope.parent is not None:
            parts.append("/" + jsonpointers.escape(scope.ref) if scope.ref else scope.segment)
            scope = scope.parent
        return "".join(reversed(parts))

    def cycle(self) -> str | None:
        """v6's reference cycle message when this node was entered before for the same value."""
        scope = self.parent
        while scope is not None and scope.vid == self.vid:
            if scope.node is self.node:
                return (f"both {self.keyword_location()} and {scope.keyword_location()} resolve to "
                        f"{gostrconv.quote(self.location)} causing reference cycle")
            scope = scope.parent
        return None


class Walker:
    """Walks one schema (any draft v6 knows) over failing values."""

    def __init__(self, schema: Any, retrieve: Callable[[str], Any], *, uri: str = ROOT_URI,
                 registry: Any = None, formats: bool = False) -> None:
        """``retrieve`` answers references to other documents (schema.py refuses them all);
        ``registry`` holds ``schema`` at ``uri`` already (the metaschemas); ``formats``: assert
        ``format`` whatever the draft (v6 does when it checks a schema against its metaschema;
        values are checked against formats in drafts before 2019-09 only)."""
        import referencing
        import referencing.jsonschema

        from helm_core.chart import schema_formats

        self.draft = metaschema.v6_draft(schema)
        self.formats = formats or schema_formats.asserted(self.draft)
        dialect = schema.get("$schema") if isinstance(schema, dict) else None
        self.spec = referencing.jsonschema.specification_with(
            dialect if isinstance(dialect, str) else "", default=referencing.jsonschema.DRAFT202012)
        if registry is None:
            registry = referencing.Registry(retrieve=retrieve)  # type: ignore[call-arg]
            registry = registry.with_resource(uri, self.spec.create_resource(schema))
        self.root = schema
        self.uri = uri
        self.resolver = registry.resolver(uri)
        self._dynamic_anchors: dict[tuple[str, str], Any] = {}
        self._targets: dict[tuple[str, str], tuple[Any, str, str]] = {}
        self._locations = _Locations()
        # v6's boolResult: only pass or fail is wanted, so the walk may stop at a failure
        self._quick = False
        # the subschemas applied to the current value must say what they evaluated
        # (an unevaluated* keyword is in play): v6's ``!uneval.isEmpty()``, ignoring what is evaluated already
        self._needs_evaluated = False

    def failures(self, values: Any) -> list[Failure]:
        """The top failures as helm prints them (a top group's members, else the one failure)."""
        top = _Scope(self.root, self.uri + "#", "", "", 0, 0, None, self.resolver, self.uri)
        failure = self._visit(self.root, values, (), top).failure
        self._locations.settle()
        if failure is None:
            return []
        return failure.causes if failure.group else [failure]

    # -- one subschema ------------------------------------------------------------------------

    def _check(self, schema: Any, value: Any, path: Path, at: _Scope, segment: str) -> _Outcome:
        """``schema`` (found at ``segment`` under the scope ``at``) applied to ``value``."""
        # v6 counts a descent into the value (a property, an item) as a new value: a schema
        # met again for the same value, and only then, is a reference cycle.
        if len(path) == at.depth:
            scope = _Scope(schema, at.location + segment, segment, "", at.vid, len(path), at, at.resolver, at.base)
            return self._visit(schema, value, path, scope)
        scope = _Scope(schema, at.location + segment, segment, "", at.vid + 1, len(path), at, at.resolver, at.base)
        locations, needs = self._locations, self._needs_evaluated
        array = locations.array
        locations.descend(len(path) - 1, path[-1])
        self._needs_evaluated = False
        try:
            return self._visit(schema, value, path, scope)
        finally:
            locations.array, self._needs_evaluated = array, needs

    def _visit(self, schema: Any, value: Any, path: Path, at: _Scope) -> _Outcome:
        """``schema`` applied to ``value`` in the scope ``at`` made for it."""
        if schema is False:
            return _Outcome(Failure(path, "false schema"), set(), set())
        if not isinstance(schema, dict):  # true (what is no schema at all was refused before)
            return _Outcome(None, set(), set())
        cycle = at.cycle()
        if cycle is not None:
            return _Outcome(Failure(path, cycle), set(), set())
        id_keyword = "id" if self.draft < 6 else "$id"
        if isinstance(schema.get(id_keyword), str) and at.parent is not None:
            at.resolver = at.resolver.in_subresource(self.spec.create_resource(schema))
            at.base = resolve(at.base, schema[id_keyword])[0]
        stop = self._stopping(schema, value, path)
        if stop is not None:
            return _Outcome(stop, set(), set())
        errors: list[Failure] = []
        props: set[str] = set()
        items: set[int] = set()
        needs = self._needs_evaluated
        self._needs_evaluated = needs or ("unevaluatedProperties" in schema and isinstance(value, dict)) \
            or ("unevaluatedItems" in schema and isinstance(value, list))
        try:
            self._applied(schema, value, path, at, errors, props, items)
        finally:
            self._needs_evaluated = needs
        return _Outcome(_combined(errors, path), props, items)

    def _applied(self, schema: dict[str, Any], value: Any, path: Path, at: _Scope,
                 errors: list[Failure], props: set[str], items: set[int]) -> None:
        """The keywords after the stopping ones, in v6's order, into ``errors``."""
        if "$ref" in schema:
            self._merge(self._reference(schema["$ref"], "$ref", value, path, at), errors, props, items)
            if self.draft < 2019:  # every other keyword beside $ref is ignored
                return
        self._kind_keywords(schema, value, path, at, errors, props, items)
        if self._quick and errors:
            return
        if self.draft >= 2019:
            for keyword in ("$dynamicRef", "$recursiveRef"):
                if isinstance(schema.get(keyword), str):
                    self._merge(self._reference(schema[keyword], keyword, value, path, at),
                                errors, props, items)
        self._conditions(schema, value, path, at, errors, props, items)
        if self.draft >= 2019:
            self._unevaluated(schema, value, path, at, errors, props, items)

    def _stopping(self, schema: dict[str, Any], value: Any, path: Path) -> Failure | None:
        """``type``, ``const``, ``enum`` and an asserted ``format``: the first that fails ends the subschema."""
        if "$ref" in schema and self.draft < 2019:
            # Only the keywords v6 still reads beside a $ref in old drafts (const, draft 6+).
            return self._const(schema, value, path) if self.draft >= 6 else None
        wanted = schema.get("type")
        names = [wanted] if isinstance(wanted, str) else wanted if isinstance(wanted, list) else []
        known = [n for n in words.TYPE_ORDER if n in names]
        if known:
            got = words.type_of(value)
            if got not in known and not (got == "number" and "integer" in known and words.is_integer(value)):
                return Failure(path, f"got {got}, want {' or '.join(known)}")
        if self.draft >= 6:
            const = self._const(schema, value, path)
            if const is not None:
                return const
        options = schema.get("enum")
        if isinstance(options, list):
            kinds = {words.type_of(o) for o in options}
            if words.type_of(value) not in kinds or not any(words.equal(value, o) for o in options):
                return Failure(path, words.enum_message(options))
        name = schema.get("format")
        if self.formats and isinstance(name, str) and isinstance(value, str):
            from helm_core.chart import schema_formats

            why = schema_formats.reason(name, value)
            if why is not None:
                return Failure(path, schema_formats.message(name, value, why))
        return None

    @staticmethod
    def _const(schema: dict[str, Any], value: Any, path: Path) -> Failure | None:
        if "const" in schema and not words.equal(value, schema["const"]):
            return Failure(path, words.const_message(schema["const"]))
        return None

    def _reference(self, ref: Any, keyword: str, value: Any, path: Path, at: _Scope) -> _Outcome:
        if not isinstance(ref, str):
            return _Outcome(None, set(), set())
        # Looked up once per base and reference: charts' schemas point at the same few $defs
        # from hundreds of places, and a lookup walks the pointer through referencing each time.
        key = (at.base, ref)
        found = self._targets.get(key)
        if found is None:
            found = self._targets[key] = (at.resolver.lookup(ref), *resolve(at.base, ref))
        target, uri, fragment = found
        if keyword == "$dynamicRef":
            target, uri = self._dynamic_target(target, uri, fragment, at)
        scope = _Scope(target.contents, f"{uri}#{fragment}", "", keyword, at.vid, len(path), at,
                       target.resolver, uri)
        outcome = self._visit(target.contents, value, path, scope)
        failure = outcome.failure
        if failure is not None:
            causes = failure.causes if failure.group else [failure]
            outcome.failure = Failure(path, "validation failed", causes, reference=True)
        return outcome

    def _dynamic_target(self, target: Any, uri: str, anchor: str, at: _Scope) -> tuple[Any, str]:
        """A ``$dynamicRef`` to a ``$dynamicAnchor`` resolves to the outermost resource of the
        dynamic scope that has that anchor (the metaschemas' ``#meta``: the whole dialect)."""
        contents = target.contents
        if not anchor or anchor.startswith("/") or not isinstance(contents, dict) \
                or contents.get("$dynamicAnchor") != anchor:
            return target, uri
        scope: _Scope | None = at
        while scope is not None:
            found = self._dynamic_anchor(scope.base, anchor)
            if found is not None:
                target, uri = found, scope.base
            scope = scope.parent
        return target, uri

    def _dynamic_anchor(self, base: str, anchor: str) -> Any:
        key = (base, anchor)
        if key not in self._dynamic_anchors:
            import referencing.exceptions

            try:
                found = self.resolver.lookup(f"{base}#{anchor}")
                named = isinstance(found.contents, dict) and found.contents.get("$dynamicAnchor") == anchor
                self._dynamic_anchors[key] = found if named else None
            except referencing.exceptions.Unresolvable:
                self._dynamic_anchors[key] = None
        return self._dynamic_anchors[key]

    @staticmethod
    def _merge(outcome: _Outcome, errors: list[Failure], props: set[str], items: set[int]) -> None:
        """A subschema applied to the same value: its failure joins ours, or (passing) what it
        evaluated counts as evaluated here too."""
        if outcome.failure is not None:
            errors.append(outcome.failure)
        else:
            props |= outcome.props
            items |= outcome.items

    def _fails(self, schema: Any, value: Any, path: Path, at: _Scope, segment: str) -> bool:
        """Whether ``schema`` fails, walked as v6 walks what it wants only a verdict of."""
        quick, self._quick = self._quick, True
        try:
            return self._check(schema, value, path, at, segment).failure is not None
        finally:
            self._quick = quick

    # -- keywords of the value's kind ---------------------------------------------------------

    def _kind_keywords(self, schema: dict[str, Any], value: Any, path: Path, at: _Scope,
                       errors: list[Failure], props: set[str], items: set[int]) -> None:
        kind = words.type_of(value)
        if kind == "object":
            self._object(schema, value, path, at, errors, props)
        elif kind == "array":
            self._array(schema, value, path, at, errors, items)
        elif kind == "string":
            _string(schema, value, path, errors)
        elif kind == "number":
            self._number(schema, value, path, errors)

    def _object(self, schema: dict[str, Any], obj: dict[str, Any], path: Path, at: _Scope,
                errors: list[Failure], props: set[str]) -> None:
        _count_bounds(schema, "minProperties", "maxProperties", len(obj), path, errors)
        missing = _missing(obj, schema.get("required"))
        if missing:
            errors.append(Failure(path, words.required_message(missing)))
        if self._quick and errors:
            return
        dependencies = schema.get("dependencies")  # read by v6 in every draft
        for name, dependency in (dependencies.items() if isinstance(dependencies, dict) else ()):
            if name in obj:
                if isinstance(dependency, list):
                    lacking = _missing(obj, dependency)
                    if lacking:
                        errors.append(Failure(path, words.dependency_message(name, lacking)))
                else:
                    outcome = self._check(dependency, obj, path, at, "/dependencies/" + jsonpointers.escape(name))
                    self._merge(outcome, errors, props, set())
        self._properties(schema, obj, path, at, errors, props)
        if self.draft == 4:
            return
        if "propertyNames" in schema:
            for name in sorted(obj):
                # v6 validates each name on its own, as a value at the root of a new walk
                names = _Scope(schema["propertyNames"], at.location + "/propertyNames", "", "", 0, 0, None,
                               at.resolver, at.base)
                failure = self._visit(schema["propertyNames"], name, (), names).failure
                if failure is not None:
                    causes = failure.causes if failure.group else [failure]
                    kept = Failure(path, f"invalid propertyName {words.quote(name)}", causes)
                    self._locations.keep(kept, len(path))
                    errors.append(kept)
        if self.draft < 2019:
            return
        dependent = schema.get("dependentSchemas")
        for name, sub in (dependent.items() if isinstance(dependent, dict) else ()):
            if name in obj:
                segment = "/dependentSchemas/" + jsonpointers.escape(name)
                self._merge(self._check(sub, obj, path, at, segment), errors, props, set())
        required = schema.get("dependentRequired")
        for name, needed in (required.items() if isinstance(required, dict) else ()):
            if name in obj:
                lacking = _missing(obj, needed)
                if lacking:
                    errors.append(Failure(path, words.dependency_message(name, lacking)))

    def _properties(self, schema: dict[str, Any], obj: dict[str, Any], path: Path, at: _Scope,
                    errors: list[Failure], props: set[str]) -> None:
        from helm_core.golib import goregexp

        named: dict[str, Any] = _of_type(schema.get("properties"), dict)
        patterns: dict[str, Any] = _of_type(schema.get("patternProperties"), dict)
        additional = schema.get("additionalProperties")
        refused: list[str] = []
        for name in sorted(obj):  # Go visits a map in random order: sorted is one of them
            if self._quick and errors:
                break
            evaluated = False
            if name in named:
                evaluated = True
                segment = f"/properties/{jsonpointers.escape(name)}"
                self._add(self._check(named[name], obj[name], (*path, name), at, segment), errors)
            for pattern, sub in patterns.items():
                if goregexp.compile(pattern).match_string(name):
                    evaluated = True
                    segment = f"/patternProperties/{jsonpointers.escape(pattern)}"
                    self._add(self._check(sub, obj[name], (*path, name), at, segment), errors)
            if not evaluated and additional is not None:
                evaluated = True
                if additional is False:
                    refused.append(name)
                elif additional is not True:
                    self._add(self._check(additional, obj[name], (*path, name), at, "/additionalProperties"), errors)
            if evaluated:
                props.add(name)
        if refused:
            errors.append(Failure(path, f"additional properties {words.joined(refused)} not allowed"))

    @staticmethod
    def _add(outcome: _Outcome, errors: list[Failure]) -> None:
        if outcome.failure is not None:
            errors.append(outcome.failure)

    def _array(self, schema: dict[str, Any], arr: list[Any], path: Path, at: _Scope,
               errors: list[Failure], items: set[int]) -> None:
        count = len(arr)
        _count_bounds(schema, "minItems", "maxItems", count, path, errors)
        if schema.get("uniqueItems") is True and count > 1:
            pair = words.first_equal_pair(arr)
            if pair is not None:
                where = f"{words.printed_int(pair[0])} and {words.printed_int(pair[1])}"
                errors.append(Failure(path, f"items at {where} are equal"))
        if self.draft < 2020:
            self._old_items(schema, arr, path, at, errors, items)
        else:
            prefix: list[Any] = _of_type(schema.get("prefixItems"), list)
            evaluated = min(len(prefix), count)
            for i in range(evaluated):
                self._add(self._check(prefix[i], arr[i], (*path, str(i)), at, f"/prefixItems/{i}"), errors)
            items.update(range(evaluated))
            if "items" in schema:
                for i in range(evaluated, count):
                    self._add(self._check(schema["items"], arr[i], (*path, str(i)), at, "/items"), errors)
                items.update(range(count))
        if "contains" in schema and self.draft >= 6:
            self._contains(schema, arr, path, at, errors, items)

    def _old_items(self, schema: dict[str, Any], arr: list[Any], path: Path, at: _Scope,
                   errors: list[Failure], items: set[int]) -> None:
        """``items`` (one schema or a list) and ``additionalItems`` before 2020-12."""
        given = schema.get("items")
        evaluated = 0
        if isinstance(given, list):
            evaluated = min(len(given), len(arr))
            for i in range(evaluated):
                self._add(self._check(given[i], arr[i], (*path, str(i)), at, f"/items/{i}"), errors)
        elif given is not None:
            for i, item in enumerate(arr):
                self._add(self._check(given, item, (*path, str(i)), at, "/items"), errors)
            evaluated = len(arr)
        additional = schema.get("additionalItems") if isinstance(given, list) else None
        if additional is False and evaluated != len(arr):
            extra = words.printed_int(len(arr) - evaluated)
            errors.append(Failure(path, f"last {extra} additionalItem(s) not allowed"))
        elif additional is not None and additional is not True and additional is not False:
            for i in range(evaluated, len(arr)):
                self._add(self._check(additional, arr[i], (*path, str(i)), at, "/additionalItems"), errors)
        items.update(range(len(arr) if additional is not None or not isinstance(given, list) and given is not None
                           else evaluated))

    def _contains(self, schema: dict[str, Any], arr: list[Any], path: Path, at: _Scope,
                  errors: list[Failure], items: set[int]) -> None:
        failures: list[Failure] = []
        matched: list[int] = []
        for i, item in enumerate(arr):
            failure = self._check(schema["contains"], item, (*path, str(i)), at, "/contains").failure
            if failure is None:
                matched.append(i)
            else:
                failures.append(failure)
        if self.draft >= 2020:
            items.update(matched)
        low = _int(schema.get("minContains")) if self.draft >= 2019 else None
        high = _int(schema.get("maxContains")) if self.draft >= 2019 else None
        if low is not None:
            if len(matched) < low:
                errors.append(Failure(path, words.min_contains_message(low, matched), failures))
        elif not matched:
            errors.append(Failure(path, "no items match contains schema", failures))
        if high is not None and len(matched) > high:
            errors.append(Failure(path, words.max_contains_message(high, matched)))

    def _number(self, schema: dict[str, Any], value: Any, path: Path, errors: list[Failure]) -> None:
        number = words.rational(value)
        bounds = _bounds(schema, self.draft)
        for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            bound = bounds.get(keyword)
            if bound is None:
                continue
            limit = words.rational(bound)
            # inclusive bounds fail beyond the bound, exclusive ones at it too
            beyond = number < limit if keyword.endswith("inimum") else number > limit
            if beyond or keyword.startswith("exclusive") and number == limit:
                errors.append(Failure(path, f"{keyword}: got {words.printed_float(float(value))}, "
                                            f"want {words.printed_float(float(bound))}"))
        step: Any = schema.get("multipleOf")
        if _is_number(step) and step > 0 and not multiple_of(value, step):
            errors.append(Failure(path, f"multipleOf: got {words.printed_float(float(value))}, "
                                        f"want {words.printed_float(float(step))}"))

    # -- in-place applicators ------------------------------------------------------------------

    def _conditions(self, schema: dict[str, Any], value: Any, path: Path, at: _Scope,
                    errors: list[Failure], props: set[str], items: set[int]) -> None:
        if "not" in schema and not self._fails(schema["not"], value, path, at, "/not"):
            errors.append(Failure(path, "'not' failed"))
        members = schema.get("allOf")
        if isinstance(members, list) and members:
            outcomes = []
            for i, sub in enumerate(members):
                outcomes.append(self._check(sub, value, path, at, f"/allOf/{i}"))
                if self._quick and outcomes[-1].failure is not None:
                    break
            failed = [o.failure for o in outcomes if o.failure is not None]
            if failed:
                errors.append(Failure(path, "'allOf' failed", failed))
            else:
                for outcome in outcomes:
                    self._merge(outcome, errors, props, items)
        members = schema.get("anyOf")
        if isinstance(members, list) and members:
            outcomes = []
            for i, sub in enumerate(members):
                outcomes.append(self._check(sub, value, path, at, f"/anyOf/{i}"))
                if outcomes[-1].failure is None and not self._needs_evaluated:
                    break  # v6 looks no further once nothing is left to evaluate
            failed = [o.failure for o in outcomes if o.failure is not None]
            if len(failed) == len(outcomes):
                errors.append(Failure(path, "'anyOf' failed", failed))
            for outcome in outcomes:
                if outcome.failure is None:
                    self._merge(outcome, errors, props, items)
        members = schema.get("oneOf")
        if isinstance(members, list) and members:
            self._one_of(members, value, path, at, errors, props, items)
        if "if" in schema:
            branch = "else" if self._fails(schema["if"], value, path, at, "/if") else "then"
            if branch == "then":
                self._merge(self._check(schema["if"], value, path, at, "/if"), errors, props, items)
            if branch in schema:
                self._merge(self._check(schema[branch], value, path, at, "/" + branch), errors, props, items)

    def _one_of(self, members: list[Any], value: Any, path: Path, at: _Scope,
                errors: list[Failure], props: set[str], items: set[int]) -> None:
        failed: list[Failure] = []
        matched = -1
        for i, sub in enumerate(members):
            segment = f"/oneOf/{i}"
            if matched != -1:  # after a match v6 only looks for a second one
                if not self._fails(sub, value, path, at, segment):
                    errors.append(Failure(path, f"'oneOf' failed, subschemas {matched}, {i} matched"))
                    return
                continue
            outcome = self._check(sub, value, path, at, segment)
            if outcome.failure is not None:
                failed.append(outcome.failure)
            else:
                matched = i
                self._merge(outcome, errors, props, items)
        if matched == -1:
            errors.append(Failure(path, "'oneOf' failed, none matched", failed))

    def _unevaluated(self, schema: dict[str, Any], value: Any, path: Path, at: _Scope,
                     errors: list[Failure], props: set[str], items: set[int]) -> None:
        if isinstance(value, dict) and "unevaluatedProperties" in schema:
            for name in sorted(set(value) - props):
                outcome = self._check(schema["unevaluatedProperties"], value[name], (*path, name), at,
                                      "/unevaluatedProperties")
                self._add(outcome, errors)
            props.update(value)
        if isinstance(value, list) and "unevaluatedItems" in schema:
            for i in range(len(value)):
                if i not in items:
                    outcome = self._check(schema["unevaluatedItems"], value[i], (*path, str(i)), at,
                                          "/unevaluatedItems")
                    self._add(outcome, errors)
            items.update(range(len(value)))


#: The metaschema v6 checks a schema of each draft against.
_METASCHEMAS = {4: "http://json-schema.org/draft-04/schema", 6: "http://json-schema.org/draft-06/schema",
                7: "http://json-schema.org/draft-07/schema", 2019: "https://json-schema.org/draft/2019-09/schema",
                2020: "https://json-schema.org/draft/2020-12/schema"}


def metaschema_failures(schema: Any) -> tuple[str, list[Failure]]:
    """(the metaschema's location, the schema's failures against it): how v6 explains a schema
    it refuses. The metaschemas are jsonschema-specifications' (the drafts' published documents,
    as v6 ships them but for draft 7's ``enum``, where v6 also wants items, unique)."""
    import jsonschema_specifications  # type: ignore[import-untyped]

    uri = _METASCHEMAS[metaschema.v6_draft(schema)]
    registry: Any = jsonschema_specifications.REGISTRY
    walker = Walker(registry.contents(uri), _no_documents, uri=uri, registry=registry, formats=True)
    return uri + "#", walker.failures(schema)


def _no_documents(uri: str) -> Any:
    raise LookupError(uri)


# -- helpers -----------------------------------------------------------------------------------

def _combined(errors: list[Failure], path: Path) -> Failure | None:
    if not errors:
        return None
    if len(errors) == 1:
        return errors[0]
    return Failure(path, "validation failed", errors, group=True)


def _count_bounds(schema: dict[str, Any], least: str, most: str, count: int, path: Path,
                  errors: list[Failure]) -> None:
    """A count (properties, items, characters) against the schema's ``least``/``most`` keywords,
    each failure worded as v6 words it."""
    for keyword in (least, most):
        bound = _int(schema.get(keyword))
        if bound is not None and (count < bound if keyword == least else count > bound):
            errors.append(Failure(path, f"{keyword}: got {words.printed_int(count)}, "
                                        f"want {words.printed_int(bound)}"))


def _string(schema: dict[str, Any], text: str, path: Path, errors: list[Failure]) -> None:
    _count_bounds(schema, "minLength", "maxLength", len(text), path, errors)
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        from helm_core.golib import goregexp

        if not goregexp.compile(pattern).match_string(text):
            errors.append(Failure(path, f"{words.quote(text)} does not match pattern {words.quote(pattern)}"))


def _bounds(schema: dict[str, Any], draft: int) -> dict[str, Any]:
    """The four bounds, draft 4's boolean exclusive flags turned into exclusive bounds as v6 does."""
    found = {k: schema.get(k) for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")}
    if draft == 4:
        for side in ("minimum", "maximum"):
            exclusive = "exclusive" + side.capitalize()
            found[exclusive] = found[side] if found[exclusive] is True else None
            if found[exclusive] is not None:
                found[side] = None
    return {k: v for k, v in found.items() if _is_number(v)}


def _of_type(value: Any, kind: type) -> Any:
    """``value`` when it is a ``kind`` (a dict, a list), else an empty one."""
    return value if isinstance(value, kind) else kind()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _int(value: Any) -> int | None:
    return int(value) if _is_number(value) else None


def _missing(obj: dict[str, Any], names: Any) -> list[str]:
    return [n for n in names if isinstance(n, str) and n not in obj] if isinstance(names, list) else []



