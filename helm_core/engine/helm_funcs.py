"""Helm's additions to the template function map (Helm v3.22 ``pkg/engine/funcs.go``, ``engine.go``).

On top of Sprig, Helm removes ``env``/``expandenv``, blanks ``getHostByName`` (no DNS), and adds
``toYaml``/``fromYaml``/``toJson``/``fromJson``/``toToml``/``fromToml`` (errors folded into the
result as Helm does: ``""``, a map with ``"Error"``, or a one-element list), plus the
render-bound ``include``, ``tpl``, ``required``, ``fail`` and ``lookup``.

``required`` and ``fail`` wrap their message in ``HELM_ERR_START ... HELM_ERR_END`` so the
renderer can print ``execution error at (file:line:col): message`` exactly as Helm does.
"""
from __future__ import annotations

import datetime
import math
from collections.abc import Callable

from helm_core.engine import purity
from helm_core.golib import gojson, gotypes, goyaml
from helm_core.golib.gotypes import FuncError, signature
from helm_core.gotemplate import budget, environment, gofmt, runtime
from helm_core.support.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

WARN_START = "HELM_ERR_START"
WARN_END = "HELM_ERR_END"
#: Helm's recursionMaxNums: how deep one named template may include itself.
MAX_INCLUDE_DEPTH = 1000
#: How deep ``include`` and ``tpl`` calls may nest, whatever the names. Helm bounds only each
#: name (above), so a ring of n names nests n*1001 deep, every level wrapping the error text
#: of the one below: helm's time and memory grow with the square of the depth, and a ring of
#: a few hundred names crashes it. Up to this depth (a ring of 9 names) we give helm's exact
#: answer; deeper, our own error.
MAX_NESTED_CALLS = 10_000
#: The name of Helm's root template, seen in tpl and include errors.
ROOT_TEMPLATE_NAME = "gotpl"
#: Functions Helm deletes from Sprig's map.
REMOVED_FUNCS = ("env", "expandenv")

#: ``lookup(apiVersion, kind, namespace, name) -> map``; raise FuncError for an API error.
LookupFunc: TypeAlias = "Callable[[str, str, str, str], dict[str, Any]]"


def warn_wrap(message: str) -> str:
    return WARN_START + message + WARN_END


# ---------------------------------------------------------------------------
# Encoders (errors swallowed the way Helm's wrappers do)


@signature("interface {}")
def to_yaml(value: Any) -> str:
    """``toYaml``: sigs.k8s.io/yaml Marshal, trailing newline trimmed; ``""`` on error."""
    budget.check_text(value, what="YAML")
    try:
        return goyaml.dump(value).removesuffix("\n")
    except (ValueError, RecursionError):
        return ""


@signature("interface {}")
def to_yaml_pretty(value: Any) -> str:
    """``toYamlPretty``: yaml.v3 with 2-space indent: Go values as they are (no JSON step),
    sequences indented under their key, long lines never folded."""
    budget.check_text(value, what="YAML")
    try:
        return goyaml.dump_pretty(value).removesuffix("\n")
    except (ValueError, RecursionError):
        return ""


@signature("string")
def from_yaml(text: str) -> dict[str, Any]:
    """``fromYaml``: a map; on error ``{"Error": message}``."""
    try:
        value = goyaml.decode(text)
    except ValueError as exc:
        return {"Error": str(exc)}
    if value is None:
        return {}
    if not isinstance(value, dict):
        return {"Error": "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                         f"{gojson.json_kind(value)} into Go value of type map[string]interface {{}}"}
    return value


@signature("string")
def from_yaml_array(text: str) -> list[Any]:
    """``fromYamlArray``: a list; on error a one-element list holding the message."""
    try:
        value = goyaml.decode(text)
    except ValueError as exc:
        return [str(exc)]
    if value is None:
        return []
    if not isinstance(value, list):
        return ["error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                f"{gojson.json_kind(value)} into Go value of type []interface {{}}"]
    return value


@signature("interface {}")
def to_json(value: Any) -> str:
    """``toJson``: encoding/json Marshal; ``""`` on error."""
    budget.check_text(value, what="JSON")
    try:
        return gojson.dumps(value)
    except (ValueError, RecursionError):
        return ""


@signature("string")
def from_json(text: str) -> dict[str, Any]:
    """``fromJson``: a map; on error ``{"Error": message}``."""
    try:
        value = _json_first_typed(text, dict, "map[string]interface {}")
    except gojson.JSONError as exc:
        return {"Error": str(exc)}
    return {} if value is None else value


@signature("string")
def from_json_array(text: str) -> list[Any]:
    """``fromJsonArray``: a list; on error a one-element list holding the message."""
    try:
        value = _json_first_typed(text, list, "[]interface {}")
    except gojson.JSONError as exc:
        return [str(exc)]
    return [] if value is None else value


def _json_first_typed(text: str, want: type, go_type: str) -> Any:
    """Go checks syntax of the whole text first, then the type of the top value."""
    try:
        value = gojson.loads(text)
    except gojson.JSONError as exc:
        if str(exc).startswith("json: cannot unmarshal number"):
            raise gojson.JSONError(f"json: cannot unmarshal number into Go value of type {go_type}") from None
        raise
    if value is not None and not isinstance(value, want):
        raise gojson.JSONError(f"json: cannot unmarshal {gojson.json_kind(value)} into Go value of type {go_type}")
    return value


# ---------------------------------------------------------------------------
# TOML (BurntSushi/toml v1.6 encoder output)

_TOML_INDENT = "  "
_TOML_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x20)}
_TOML_ESCAPES.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x7F: "\\u007f",
                      ord('"'): '\\"', ord("\\"): "\\\\"})


class _TomlError(Exception):
    pass


def _toml_quote(s: str) -> str:
    return '"' + s.translate(_TOML_ESCAPES) + '"'


def _toml_key(piece: str) -> str:
    if piece == "":
        return '""'
    if all(c.isascii() and (c.isalnum() or c in "_-") for c in piece):
        return piece
    return _toml_quote(piece)


def _toml_is_table(value: Any) -> bool:
    if isinstance(value, dict):
        return True
    if isinstance(value, (list, tuple)) and value:
        if any(v is None for v in value):
            raise _TomlError("toml: cannot encode array with nil element")
        return all(isinstance(v, dict) for v in value)
    return False


class _TomlEncoder:
    def __init__(self) -> None:
        self.out: list[str] = []
        #: Characters of the table headers written: each repeats its whole path, so 30000 maps
        #: nested in each other write 900 million characters (minutes in one call).
        self.headers = 0

    def newline(self) -> None:
        if self.out:
            self.out.append("\n")

    def element(self, value: Any) -> None:
        out = self.out
        if isinstance(value, bool):
            out.append("true" if value else "false")
        elif isinstance(value, str):
            out.append(_toml_quote(value))
        elif isinstance(value, int):
            out.append(str(value))
        elif isinstance(value, float):
            if math.isnan(value):
                out.append("-nan" if math.copysign(1, value) < 0 else "nan")
            elif math.isinf(value):
                out.append("-inf" if value < 0 else "inf")
            else:
                text = gojson.format_float(value, "g")
                out.append(text if ("e" in text or "." in text) else text + ".0")
        elif isinstance(value, datetime.datetime):
            from helm_core.golib import gotime  # (Go's time formatting, for values that hold a time)

            out.append(gotime.format_time(value, gotime.RFC3339_NANO))
        elif isinstance(value, (bytes, bytearray)):
            self.element(list(bytes(value)))
        elif isinstance(value, (list, tuple)):
            out.append("[")
            for i, item in enumerate(value):
                if item is None:
                    raise _TomlError("toml: cannot encode array with nil element")
                self.element(item)
                if i != len(value) - 1:
                    out.append(", ")
            out.append("]")
        elif isinstance(value, dict):
            self.map(value, [], inline=True)
        else:
            raise _TomlError(f"toml: unsupported type: {gotypes.go_type_name(value)}")

    def key_value(self, key: list[str], value: Any, inline: bool) -> None:
        if not key:
            self.element(value)
            return
        self.out.append(_TOML_INDENT * (len(key) - 1) + _toml_key(key[-1]) + " = ")
        self.element(value)
        if not inline:
            self.newline()

    def encode(self, key: list[str], value: Any, dotted: str = "") -> None:
        """``value`` at ``key``; ``dotted`` is the key's quoted parts joined (each quoted once)."""
        if value is None:
            return
        if isinstance(value, dict):
            self.table(key, value, dotted)
        elif isinstance(value, (list, tuple)) and _toml_is_table(value):
            self.array_of_tables(key, value, dotted)
        else:
            self.key_value(key, value, False)

    def table(self, key: list[str], value: dict[str, Any], dotted: str) -> None:
        if len(key) == 1:
            self.newline()
        if key:
            self.header(_TOML_INDENT * (len(key) - 1) + "[" + dotted + "]")
        self.map(value, key, inline=False, dotted=dotted)

    def array_of_tables(self, key: list[str], value: list[Any] | tuple[Any, ...], dotted: str) -> None:
        if not key:
            raise _TomlError("toml: top-level values must be Go maps or structs")
        for item in value:
            self.newline()
            self.header(_TOML_INDENT * (len(key) - 1) + "[[" + dotted + "]]")
            self.map(item, key, inline=False, dotted=dotted)

    def header(self, text: str) -> None:
        self.headers += len(text)
        budget.check_size(self.headers, what="the TOML of a value")
        self.out.append(text)
        self.newline()

    def map(self, value: dict[str, Any], key: list[str], *, inline: bool, dotted: str = "") -> None:
        direct = sorted(k for k, v in value.items() if not _toml_is_table(v))
        sub = sorted(k for k, v in value.items() if _toml_is_table(v))
        if inline:
            self.out.append("{")
        for keys, trail in ((direct, bool(sub)), (sub, False)):
            for i, k in enumerate(keys):
                item = value[k]
                if item is None:
                    continue
                if inline:
                    self.key_value([k], item, True)
                    if trail or i != len(keys) - 1:
                        self.out.append(", ")
                else:
                    quoted = _toml_key(k)
                    self.encode(key + [k], item, f"{dotted}.{quoted}" if dotted else quoted)
        if inline:
            self.out.append("}")


@signature("interface {}")
def to_toml(value: Any) -> str:
    """``toToml``: BurntSushi/toml's encoding; the error text itself on failure."""
    budget.check_text(value, what="TOML")
    enc = _TomlEncoder()
    try:
        enc.encode([], value)
    except _TomlError as exc:
        return str(exc)
    return "".join(enc.out)


def _toml_to_go(value: Any) -> Any:
    """BurntSushi's decoded types: dates and datetimes are ``time.Time`` (local ones in UTC)."""
    if isinstance(value, dict):
        return {k: _toml_to_go(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_toml_to_go(v) for v in value]
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day, tzinfo=datetime.UTC)
    if isinstance(value, datetime.time):  # Go's zero date (year 0) cannot be represented
        return value.isoformat()
    return value


@signature("string")
def from_toml(text: str) -> dict[str, Any]:
    """``fromToml``: a map (ints stay int64, as BurntSushi decodes); ``{"Error": ...}`` on error."""
    import tomllib  # only charts calling fromToml pay for it

    try:
        decoded: dict[str, Any] = _toml_to_go(tomllib.loads(text))
        return decoded
    except tomllib.TOMLDecodeError as exc:
        return {"Error": f"toml: {exc}"}


@signature("string")
def get_host_by_name(name: str) -> str:
    """DNS lookups are off in ``helm template``/install by default: always ``""``."""
    return ""


STATIC_FUNCS: dict[str, Callable[..., Any]] = {
    "toYaml": to_yaml,
    "toYamlPretty": to_yaml_pretty,
    "fromYaml": from_yaml,
    "fromYamlArray": from_yaml_array,
    "toJson": to_json,
    "fromJson": from_json,
    "fromJsonArray": from_json_array,
    "toToml": to_toml,
    "fromToml": from_toml,
    "getHostByName": get_host_by_name,
}


# ---------------------------------------------------------------------------
# Render-bound functions


def _empty_lookup(api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any]:
    return {}


@record
class RenderState:
    """What include/tpl share during one render: the top template set (the engine's
    ``current_set()`` wins while executing, so a tpl's clone is seen by its includes),
    per-name include depth, and the engine's options."""

    tset: Any
    lint_mode: bool = False
    #: Where lint mode reports a ``required``/``fail`` it let pass (helm logs them).
    lint_log: Callable[[str], None] | None = None
    lookup: LookupFunc = _empty_lookup
    included: dict[str, int] = field(default_factory=dict)
    #: include and tpl calls in progress, all names together (bounded by MAX_NESTED_CALLS).
    nesting: int = 0
    #: Errors of the engine that mean "template execution failed" (re-raised as FuncError text).
    exec_errors: tuple[type[BaseException], ...] = ()


def bound_funcs(state: RenderState) -> dict[str, Callable[..., Any]]:
    """include, tpl, required, fail and lookup, closed over one render's state."""

    current_set = environment.current_set

    def nested(call: str, name: str | None, tset: Any, template: str, data: Any,
               body: environment.ParsedBody | None = None) -> str:
        """``tset.execute(template, data, body=body)`` one include/tpl level deeper; its template
        errors become ``FuncError``.

        ``call`` and ``name`` word the nesting error (quoted only then: includes are many)."""
        if state.nesting >= MAX_NESTED_CALLS:
            where = call if name is None else f"{call} {_go_quote(name)}"
            raise runtime.NestingTooDeep(f"include and tpl calls nested more than {MAX_NESTED_CALLS} deep"
                                         f" (at {where})")
        state.nesting += 1
        try:
            return tset.execute(template, data, body=body)  # type: ignore[no-any-return]
        except runtime.PASS_THROUGH:
            raise
        except state.exec_errors as exc:
            failure = str(exc)
        finally:
            state.nesting -= 1
        raise FuncError(failure)  # outside the handler: keeps no chain of wrapped errors

    @signature("string", "interface {}")
    def include(name: str, data: Any) -> str:
        included = state.included
        count = included.get(name, 0)
        if count > MAX_INCLUDE_DEPTH:
            raise FuncError(f"rendering template has a nested reference name: {name}: unable to execute template")
        included[name] = count + 1
        try:
            # The set executing wins (a tpl's clone is seen by the includes of its text).
            return nested("include", name, current_set() or state.tset, name, data)
        finally:
            included[name] -= 1

    @signature("string", "interface {}")
    def tpl(text: str, data: Any) -> str:
        clone = (current_set() or state.tset).clone()
        try:
            body = clone.parse(ROOT_TEMPLATE_NAME, text)
        except state.exec_errors as exc:
            raise FuncError(f"cannot parse template {_go_quote(text)}: {exc}") from None
        try:
            # The body just parsed runs, not the set's "gotpl": an empty (blank or comments
            # only) text does not replace an enclosing tpl's text there, yet prints itself.
            out = nested("tpl", None, clone, ROOT_TEMPLATE_NAME, data, body)
        except FuncError as exc:
            failure = f"error during tpl function execution for {_go_quote(text)}: {exc}"
        else:
            return out.replace("<no value>", "")
        raise FuncError(failure)

    @signature("string", "interface {}")
    def required(warn: str, value: Any) -> Any:
        if value is None or value == "" and isinstance(value, str):
            if state.lint_mode:
                if state.lint_log is not None:  # Go's log prefix: helm's two log.Printf calls
                    where = "engine.go:206" if value is None else "engine.go:214"
                    state.lint_log(f"{where}: [INFO] Missing required value: {warn}")
                return ""
            raise FuncError(warn_wrap(warn))
        return value

    @signature("string")
    def fail(message: str) -> str:
        if state.lint_mode:
            if state.lint_log is not None:
                state.lint_log(f"engine.go:227: [INFO] Fail: {message}")
            return ""
        raise FuncError(warn_wrap(message))

    @signature("string", "string", "string", "string")
    def lookup(api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any]:
        if state.lookup is not _empty_lookup:  # helm template's empty answers are pure
            purity.count_call()
        return state.lookup(api_version, kind, namespace, name)

    return {"include": include, "tpl": tpl, "required": required, "fail": fail, "lookup": lookup}


def _go_quote(text: str) -> str:
    """Go's ``%q`` of a string (strconv.Quote)."""
    return gofmt.sprintf("%q", text)


def helm_func_map(sprig_funcs: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """Sprig's map with Helm's removals and static additions (bound ones come per render)."""
    funcs = {k: v for k, v in sprig_funcs.items() if k not in REMOVED_FUNCS}
    funcs.update(STATIC_FUNCS)
    return funcs
