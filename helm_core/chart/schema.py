"""Validating final values against ``values.schema.json`` / ``values.schema.yaml``.

Like Helm's ``ValidateAgainstSchema``: the chart's schema checks the chart's final
values, each enabled subchart's schema checks ``values[<subchart name>]``, and every
violation of every chart is reported at once, each with the path of the value that
failed. Schemas may not fetch anything over the network (``$ref`` to http(s) URLs
is refused): rendering must not depend on a third-party server being up.

Values are first checked by closures compiled from the schema (:mod:`helm_core.chart.verdict`,
the metaschema check in :mod:`helm_core.chart.metaschema`) that answer exactly as jsonschema
would, without importing it: a first run whose values pass costs ~5-25 ms of CPU instead of
~0.07-0.55 s (``bench/schema.py``). jsonschema runs only when they find a violation or cannot
decide. Failures are worded as helm words them: its validator's (santhosh-tekuri/jsonschema v6)
error tree, rebuilt by :mod:`helm_core.chart.schema_tree` and printed by
:mod:`helm_core.chart.schema_errors` (``bench/schema_failures.py`` times that walk).

With a memo installed (:mod:`helm_core.support.memo`, the CLI's), a pass — these values meet this
schema — is remembered by a digest of both and of the validating code, so the next process
checks nothing again. Failures are never remembered: they are computed and reported anew.
"""
from __future__ import annotations

import functools
import os

from helm_core.chart import model
from helm_core.errors import SchemaError
from helm_core.gotemplate import budget
from helm_core.support import cachekeys, memo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from helm_core.chart import verdict

# The compiled checks (verdict, metaschema) and json are imported when a chart has a schema:
# most have none.

HEADER = "values don't meet the specifications of the schema(s) in the following chart(s):"
#: Compiled checks and validators kept per process (a controller validates the same schemas
#: again and again): compiling and checking a schema against its metaschema costs far more
#: than validating values.
VALIDATOR_CACHE_SIZE = 128


def no_remote(uri: str) -> Any:
    import referencing.exceptions

    # referencing's attrs classes (its own `frozen` wrapper) are beyond mypy's attrs plugin.
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


PASS_MEMO = "schema-pass"
#: Schemas found valid against their metaschema: changed values skip that check.
VALID_SCHEMA_MEMO = "schema-valid"


@functools.cache
def _code_digest() -> str:
    """This module's code, the compiled checks' (and every metaschema file the installed
    jsonschema-specifications ships: they are compiled from some of them) and the installed
    jsonschema's validating code. Found by path: importing the checks costs a run that finds
    its verdict in the memo more than the rest of the check."""
    # os.path, not pathlib: pathlib imports urllib and ipaddress, start-up time of every CLI run
    here = os.path.dirname(__file__)
    regexp = os.path.join(os.path.dirname(here), "golib", "goregexp")
    specs = memo.package_folder("jsonschema_specifications")
    metaschema_files = sorted(os.path.join(folder, name) for folder, _, names in os.walk(os.path.join(specs, "schemas"))
                              for name in names) if specs else []
    package = memo.package_folder("jsonschema") or here
    jsonschema_code = [os.path.join(package, name) for name in (
        "validators.py", "_keywords.py", "_legacy_keywords.py", "_utils.py", "_types.py", "_format.py")]
    ours = [os.path.join(here, name) for name in ("metaschema.py", "verdict.py", "jsonschema_go.py", "schema_refs.py",
                                                  "schema_formats.py", "schema_errors.py")]
    ours += [os.path.join(regexp, name) for name in ("__init__.py", "syntax.py")]
    golib = os.path.dirname(regexp)
    ours += [os.path.join(golib, name) for name in ("gourl.py", "gonetip.py", "gotime.py")]
    return memo.code_digest(__file__, *ours, *metaschema_files, *jsonschema_code)


def _valid_key(digest: str) -> str:
    return cachekeys.hasher(f"{_code_digest()}\0{digest}".encode()).hexdigest()


def _known_valid(digest: str) -> bool:
    disk = memo.active()
    return disk is not None and disk.get(VALID_SCHEMA_MEMO, _valid_key(digest)) is not None


def _remember_valid(digest: str) -> None:
    disk = memo.active()
    if disk is not None:
        disk.put(VALID_SCHEMA_MEMO, _valid_key(digest), b"")


@functools.lru_cache(maxsize=VALIDATOR_CACHE_SIZE)
def _fast(digest: str, text: str) -> verdict.Check | None:
    """The schema's values check without jsonschema, or None when it cannot be had that way
    (an invalid schema, a keyword not modelled): then jsonschema decides, every time."""
    import json  # only charts with a schema: most have none

    from helm_core.chart import metaschema, verdict

    schema = json.loads(text)
    try:
        metaschema.dialect(schema)  # Undecided for a $schema that is not a string
        draft = metaschema.V6_DIALECTS[metaschema.v6_draft(schema)]
        if not _known_valid(digest):
            # A JSON text's values are plain, but for the NaN and Infinity that json reads.
            plain = "NaN" not in text and "Infinity" not in text
            if not metaschema.valid(schema, draft, plain=plain):
                return None
            _remember_valid(digest)
        formats = None
        if '"format"' in text and metaschema.v6_draft(schema) < 2019:
            from helm_core.chart import schema_formats  # asserted by v6 in these drafts only

            formats = schema_formats.check
        return verdict.Compiler(draft, {"": schema}, formats=formats).compile("")
    except (verdict.Undecided, RecursionError):
        return None


@functools.lru_cache(maxsize=VALIDATOR_CACHE_SIZE)
def _compiled(digest: str, text: str) -> Any:
    import json  # only charts with a schema: most have none

    # Imported here: most charts have no schema, and jsonschema is costly to import (bench/schema.py).
    import jsonschema
    import referencing

    from helm_core.chart import jsonschema_go

    jsonschema_go.install()  # patterns are Go's, as in Helm's validator
    schema = json.loads(text)
    if isinstance(schema, dict) and not isinstance(schema.get("$schema", ""), str):
        # validator_for would fail on it with an AttributeError from deep inside urllib.
        raise jsonschema.SchemaError(f"$schema must be a string, not {json.dumps(schema['$schema'])}")
    from helm_core.chart import metaschema

    # The draft helm's validator picks (https names too), where validator_for knows http only.
    draft = metaschema.v6_draft(schema)
    cls = {4: jsonschema.Draft4Validator, 6: jsonschema.Draft6Validator, 7: jsonschema.Draft7Validator,
           2019: jsonschema.Draft201909Validator, 2020: jsonschema.Draft202012Validator}[draft]
    if not _known_valid(digest):
        metaschema.check_schema(cls, schema)
        _remember_valid(digest)
    from helm_core.chart import schema_formats

    # Values are checked as v6 checks them: its multipleOf, and its formats in older drafts.
    formats = jsonschema_go.v6_format_checker() if schema_formats.asserted(draft) else None
    registry = referencing.Registry(retrieve=no_remote)  # type: ignore[call-arg]
    return jsonschema_go.values_validator(cls)(schema, registry=registry, format_checker=formats)


def _pass_key(digest: str, values: dict[str, Any]) -> str:
    """The key of a pass of ``values`` against the schema whose sorted JSON text has ``digest``
    (the text's digest stands for it: hashing the text again took as long as the rest)."""
    key = cachekeys.hasher(f"{_code_digest()}\0{digest}\0".encode())
    key.update(_fingerprint(values))
    return key.hexdigest()


def _fingerprint(data: Any) -> bytes:
    """Bytes that only equal data (the same content, same key order) give: a memo key.

    marshal writes the values of a warm prepare three times faster than a sorted JSON text; a
    different key order only misses. What marshal refuses (a caller's own types, nesting past
    its depth) is written as JSON, repr for what JSON cannot hold, typed so no two differ.
    """
    marshalled = cachekeys.marshalled(data)
    if marshalled is not None:
        return b"marshal\0" + marshalled
    import json
    text = json.dumps(data, sort_keys=True, default=lambda v: f"{type(v).__qualname__}:{v!r}")
    return b"json\0" + text.encode("utf-8", "surrogatepass")


#: Schemas' sorted JSON texts and their digests, by the fingerprint of the schema they print
#: (the fingerprint itself, not a digest of it: a dict hashes and compares it exactly, several
#: times faster than a digest of redis's 150 KB schema; the text kept with it is as large).
_SCHEMA_TEXTS: dict[bytes, tuple[str, str]] = {}


def _schema_text(schema: dict[str, Any]) -> tuple[str, str]:
    """The schema as sorted JSON (what the checks are compiled from) and the text's digest."""
    import json  # only charts with a schema: most have none

    fingerprint = _fingerprint(schema)
    found = _SCHEMA_TEXTS.get(fingerprint)
    if found is None:
        text = json.dumps(schema, sort_keys=True)
        found = (text, cachekeys.hasher(text.encode()).hexdigest())
        if len(_SCHEMA_TEXTS) >= VALIDATOR_CACHE_SIZE:
            _SCHEMA_TEXTS.clear()
        _SCHEMA_TEXTS[fingerprint] = found
    return found


def violations(schema: dict[str, Any], values: dict[str, Any], *, source: str, raw: bytes = b"") -> list[str]:
    """Every violation of one schema as helm prints it: ``- at '/a/b': message`` lines, causes
    indented under what they explain; or the lines of a schema that cannot be used.

    Values are first checked by compiled closures (:mod:`helm_core.chart.verdict`) that answer
    as jsonschema would, without importing it; jsonschema itself runs only when they find a
    violation or cannot decide, and v6's tree is walked only for the wording. ``raw``: the
    schema file's bytes, when there is one (its numbers are quoted as written).
    """
    try:
        return _checked(schema, values, source, raw)
    except RecursionError:
        # Cycles Helm names are found first (refcycle); what is left is a cycle it cannot
        # follow (remote or $id references) or nesting deeper than this thread's stack.
        raise SchemaError(f"{source}: cannot validate: the schema recursed deeper than the stack allows "
                          "(a $ref cycle, or schema and values nested too deeply)") from None


def _checked(schema: dict[str, Any], values: dict[str, Any], source: str, raw: bytes) -> list[str]:
    text, digest = _schema_text(schema)
    disk = memo.active()
    key = _pass_key(digest, values)
    if key in _RECENT_PASSES or disk is not None and disk.get(PASS_MEMO, key) is not None:
        return []
    if '"$id"' in text or '"id"' in text:
        # helm reads every id as a URL first: one it cannot parse fails whatever the values.
        unparsable = _unparsable_id(digest, schema, text)
        if unparsable is not None:
            return [unparsable]
    if '"$ref"' in text:
        from helm_core.chart import refcycle

        # helm compiles every reference before it checks a value: one that leads nowhere fails
        # whatever the values (its compile error, printed without a values report's newline).
        unresolved = _unresolved_ref(digest, schema, text)
        if unresolved is not None:
            return [unresolved]

        # Before any check: both would recurse on a cycle until the stack is spent.
        cycle = refcycle.find(schema, values)
        if cycle is not None:
            # A cycle always fails; the walk words it where v6 meets it, with the other failures.
            from helm_core.chart import schema_errors, schema_tree

            found = schema_errors.lines(schema_tree.Walker(schema, no_remote).failures(values))
            where = schema_errors.quote(schema_errors.pointer(tuple(map(str, cycle.path))))
            return found or [f"- at {where}: {cycle.message}"]
    found = [] if _passes(digest, text, values) else _violations(digest, text, values, source=source, raw=raw)
    if not found and '"dependencies"' in text:
        found = _dependencies_beyond_draft_7(schema, values)
    if not found:
        _remember_pass(key)
        if disk is not None:
            disk.put(PASS_MEMO, key, b"")
    return found


#: Schemas whose local references were checked in this process (a controller validates the same
#: schemas again and again): helm's error for one leading nowhere, or None.
_REFS_CHECKED: dict[str, str | None] = {}


def _unresolved_ref(digest: str, schema: dict[str, Any], text: str) -> str | None:
    """Once per schema: in this process, and not at all for one remembered valid (it was found
    valid after this check)."""
    if digest not in _REFS_CHECKED:
        from helm_core.chart import refcycle, schema_refs

        if len(_REFS_CHECKED) >= VALIDATOR_CACHE_SIZE:
            _REFS_CHECKED.clear()
        found = None if _known_valid(digest) else schema_refs.unresolved(schema, refcycle.SCHEMA_URL, text)
        _REFS_CHECKED[digest] = found
    return _REFS_CHECKED[digest]


#: Schemas whose ids were read in this process: helm's error for one that is no URL, or None.
_IDS_CHECKED: dict[str, str | None] = {}


def _unparsable_id(digest: str, schema: dict[str, Any], text: str) -> str | None:
    """Once per schema, as :func:`_unresolved_ref`."""
    if digest not in _IDS_CHECKED:
        from helm_core.chart import metaschema, refcycle, schema_refs

        if len(_IDS_CHECKED) >= VALIDATOR_CACHE_SIZE:
            _IDS_CHECKED.clear()
        found = None if _known_valid(digest) else schema_refs.unparsable_id(
            schema, refcycle.SCHEMA_URL, metaschema.v6_draft(schema), text)
        _IDS_CHECKED[digest] = found
    return _IDS_CHECKED[digest]


#: Schema and values pairs that passed in this process (a controller renders the same request
#: again at every interval), oldest first out.
_RECENT_PASSES: dict[str, None] = {}
_RECENT_PASSES_MAX = 4096


def _remember_pass(key: str) -> None:
    _RECENT_PASSES[key] = None
    if len(_RECENT_PASSES) > _RECENT_PASSES_MAX:
        del _RECENT_PASSES[next(iter(_RECENT_PASSES))]


def _passes(digest: str, text: str, values: dict[str, Any]) -> bool:
    """True when the values surely pass; False when jsonschema must look (a failure, or not known)."""
    check = _fast(digest, text)
    if check is None:
        return False
    from helm_core.chart import verdict

    try:
        verdict.plain(values)
        return check(values)
    except (verdict.Undecided, RecursionError):
        return False


def _violations(digest: str, text: str, values: dict[str, Any], *, source: str, raw: bytes = b"") -> list[str]:
    import json

    import jsonschema
    import referencing.exceptions

    from helm_core.golib import goregexp

    try:
        validator = _compiled(digest, text)
        errors = list(validator.iter_errors(values))
        if not errors:
            return []
        return _worded(_as_written(raw) or json.loads(text), values, errors)
    # A schema that cannot be used is reported under the chart's name with the violations, as
    # helm reports it (its first line is the same); the reason is ours (helm-core fetches no
    # remote references, where helm tries the network).
    except jsonschema.SchemaError as exc:
        return invalid_schema(json.loads(text), f"{source}: invalid schema: {exc.message}")
    except (referencing.exceptions.Unresolvable, referencing.exceptions.NoSuchResource) as exc:
        return [f"{source}: cannot resolve schema reference: {exc}"]
    except goregexp.GoSyntaxError as exc:  # a pattern no metaschema checks (draft 4's patternProperties keys)
        return [f"{source}: invalid schema: {exc}"]


def _as_written(raw: bytes) -> Any:
    """The schema with its fractional numbers as :class:`~helm_core.chart.schema_errors.JsonNumber`
    (their text kept for the wording), or None without the file's bytes."""
    if not raw:
        return None
    import json

    from helm_core.chart import schema_errors

    return json.loads(raw, parse_float=schema_errors.JsonNumber)


def _dependencies_beyond_draft_7(schema: dict[str, Any], values: dict[str, Any]) -> list[str]:
    """helm's validator applies draft 7's ``dependencies`` in later drafts too, where jsonschema
    ignores it: values that passed jsonschema are walked as v6 walks them (such schemas only)."""
    from helm_core.chart import metaschema, schema_errors, schema_tree

    if metaschema.v6_draft(schema) < 2019:
        return []  # jsonschema applied it
    return schema_errors.lines(schema_tree.Walker(schema, no_remote).failures(values))


def _worded(schema: Any, values: dict[str, Any], errors: list[Any]) -> list[str]:
    """The failures as helm words them (v6's error tree, :mod:`helm_core.chart.schema_tree`).

    jsonschema decided the values fail; the tree is walked for the wording. Should the walk find
    nothing where jsonschema failed (a keyword whose meaning we model differently from v6), the
    values still fail: jsonschema's own messages are reported rather than a silent pass.
    """
    from helm_core.chart import schema_errors, schema_tree

    found = schema_errors.lines(schema_tree.Walker(schema, no_remote).failures(values))
    if found:
        return found
    ordered = sorted(errors, key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [f"- at {schema_errors.quote(schema_errors.pointer(tuple(map(str, e.absolute_path))))}: {e.message}"
            for e in ordered]


def invalid_schema(schema: Any, reason: str) -> list[str]:
    """A schema its metaschema refuses, explained as helm explains it (v6's tree of the schema
    against the metaschema, under one line naming both); ``reason`` (ours) when the walk finds
    nothing to say (a format other than "regex", the one v6 asserts that we model)."""
    from helm_core.chart import schema_errors, schema_tree
    from helm_core.golib import gostrconv

    metaschema, failures = schema_tree.metaschema_failures(schema)
    if not failures:
        return [reason]
    head = (f"{gostrconv.quote(schema_tree.ROOT_URI + '#')} is not valid against metaschema: "
            f"jsonschema validation failed with {schema_errors.quote(metaschema)}")
    return [head, *schema_errors.lines(failures)]


def validate(chart: model.Chart, values: dict[str, Any]) -> None:
    """Validate ``values`` (final, coalesced) against the chart's and enabled subcharts' schemas."""
    report: list[str] = []
    _collect(chart, values, report)
    if report:
        text = "".join(report)
        raise SchemaError(HEADER + "\n" + text,
                          violations=[line for line in text.split("\n") if line.startswith("- ")])


def single_schema_error(found: list[str]) -> str:
    """What helm's ``ValidateAgainstSingleSchema`` returns for one schema's ``violations``:
    violations end with a newline (its validation error adds one); a schema that cannot be used
    does not (its error is given as it is)."""
    return "\n".join(found) + ("\n" if found[0].startswith("- ") else "")


def _block(name: str, found: list[str]) -> str:
    """One chart's part of the report, as helm writes it (after an unusable schema, the next
    chart's name follows on the same line, as in helm)."""
    return f"{name}:\n" + single_schema_error(found)


def _collect(chart: model.Chart, values: dict[str, Any], report: list[str]) -> None:
    if chart.schema_error:
        report.append(_block(chart.name, [chart.schema_error]))
    if chart.schema is not None:
        budget.working_on(f"chart {chart.name}: {chart.schema_file}")
        found = violations(chart.schema, values, source=f"{chart.chart_path()}/{chart.schema_file}",
                           raw=chart.raw_schema)
        if found:
            report.append(_block(chart.name, found))
    for sub in chart.dependencies:
        raw = values.get(sub.name)
        if raw is None:
            continue
        if not isinstance(raw, dict):
            from helm_core.chart import schema_errors

            report.append(f"{sub.name}:\n{schema_errors.subchart_type_error(raw)}\n")
            continue
        _collect(sub, raw, report)
