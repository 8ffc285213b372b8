"""YAML read and written the way Helm does it (``sigs.k8s.io/yaml`` on top of yaml.v2).

Reading (:func:`load`, Helm's values files and ``fromYaml``): yaml.v2 decodes with its
YAML 1.1 rules, the result is converted to JSON and decoded into ``interface{}``. So:

* every number is a ``float`` (Go float64), whatever its YAML spelling;
* ``y``/``n``/``yes``/``no``/``on``/``off`` (yaml.v2's spellings) are booleans;
* timestamps stay strings (yaml.v2 keeps them as strings when decoding to ``interface{}``);
* ``1e3`` is a number (yaml.v2's float pattern needs no dot), ``0x1F``, ``0o17``, ``017``,
  ``0b101`` are integers (``strconv.ParseInt`` base 0); ``1e400`` overflows and stays a string;
* mapping keys become strings: ints in decimal, floats with float32 precision
  (``1.2345679e+08``), booleans ``true``/``false``; a null key is an error;
* merge keys ``<<`` set their keys in place (an earlier explicit key is overwritten, a
  later one wins; in a list of maps the first map wins);
* an alias is a copy of its anchor's value; an anchor defined again names the later value for
  the aliases after it; an anchor's value containing an alias to itself (a merge too) is
  ``anchor 'x' value contains itself``, an expansion past yaml.v2's ratio ``excessive aliasing``;
* only the first document of a stream counts (``yaml.Unmarshal``).

A document is read by :mod:`helm_core.golib.goyaml_block` when it is in that reader's block
subset (most manifests, values and Chart.yaml files; PyYAML is then not imported), else by
:mod:`helm_core.golib.goyaml_read` (libyaml); both hand their nodes to
:mod:`helm_core.golib.goyaml_convert`, and a text the first takes reads the same with the second.

Writing (:func:`dump`, Helm's ``toYaml``) is ``json.Marshal`` then yaml.v2 ``Marshal``:
see :mod:`helm_core.golib.goyaml_write`; common values are written by
:mod:`helm_core.golib.goyaml_emit` (the same text, without importing PyYAML).
"""
from __future__ import annotations

import functools
import math
import os

from helm_core.errors import ValuesError
from helm_core.golib import gojson, gostrconv
from helm_core.golib.goyaml_rules import INT64_MIN, MAX_DEPTH, SURROGATE, UINT64_MAX, has_surrogates
from helm_core.support import cachekeys, memo, pickling

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def decode(data: bytes | str) -> Any:
    """``sigs.k8s.io/yaml.Unmarshal`` into ``interface{}`` of the first document.

    Raises :class:`ValueError` with Go's message (``error converting YAML to JSON: ...``).
    Goes through the active disk memo, if any.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    disk = memo.active()
    if disk is None:  # the text itself is the key (see cachekeys.content_key)
        return _RECENT.get_or_compute(text, lambda: decode_uncached(text))
    key = cachekeys.hasher(f"{code_digest()}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
    return disk.pickled(DECODE_MEMO, key, lambda: decode_uncached(text))


#: Documents decoded in this process (values files of charts loaded again, ``fromYaml`` texts of
#: renders again), by their text: even ``{}`` decodes ten times slower than its unpickle.
_RECENT = memo.RecentPickles(max_bytes=32 * 1024 * 1024)


def decode_uncached(text: str, *, json_step: bool = True) -> Any:
    """The first document of ``text`` decoded now, without the memo: by the block reader when
    the text is in its subset (exactly the same result, without importing PyYAML), else by
    PyYAML's libyaml. Without ``json_step``, as yaml.v2 types it before sigs.k8s.io/yaml's JSON
    round trip (what Helm's typed structs such as ``chart.Metadata`` are read from)."""
    from helm_core.golib import goyaml_block
    value = goyaml_block.decode(text, json_step=json_step)
    if value is not goyaml_block.DECLINED:
        return value
    from helm_core.golib import goyaml_read
    return goyaml_read.decode(text) if json_step else goyaml_read.decode_unconverted(text)


def decode_all(data: bytes | str) -> list[Any]:
    """Every document of a stream, each decoded as :func:`decode` does (for multi-doc tools)."""
    from helm_core.golib import goyaml_read
    return goyaml_read.decode_all(data)


#: Decoded documents in the disk memo. Even a small manifest reads back faster than it decodes
#: (bench/parse.py).
DECODE_MEMO = "goyaml-decode"


@functools.cache
def code_digest() -> str:
    """Our YAML code (this module, rules, readers, converter, writers, Go's JSON and number
    formatting) and PyYAML's."""
    here = os.path.dirname(__file__)  # not pathlib: it imports urllib and ipaddress (start-up time)
    parts = ("rules", "read", "block", "convert", "write", "emit")
    return memo.code_digest(__file__, *(os.path.join(here, f"goyaml_{part}.py") for part in parts),
                            gojson.__file__, gostrconv.__file__) + pyyaml_digest()


@functools.cache
def pyyaml_digest() -> str:
    """PyYAML's version and whether its libyaml binding is there, found without importing it
    (part of the memo key of whatever PyYAML parses or writes)."""
    folder = memo.package_folder("yaml")
    if folder is None:  # pragma: no cover - PyYAML is a dependency
        return "no-pyyaml"
    bindings = sorted(name for name in os.listdir(folder) if name.startswith("_yaml."))
    return memo.code_digest(os.path.join(folder, "__init__.py")) + str(bindings)


def load(data: bytes | str, *, source: str = "<input>") -> Any:
    """Decode the first YAML document of ``data`` with Helm's typing (see :func:`decode`).

    Raises :class:`ValueError` naming ``source`` and Go's message on bad input.
    """
    try:
        return decode(data)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def load_values(data: bytes | str, *, context: str) -> dict[str, Any]:
    """Values from a YAML file, as Helm unmarshals it into a map (empty or null → {}).

    Raises :class:`ValuesError` ``"<context>: <Go's message>"``; ``context`` is Helm's wrapping
    (``cannot load values.yaml``, ``failed to parse <file>``).
    """
    try:
        loaded = decode(data)
    except ValueError as exc:
        raise ValuesError(f"{context}: {exc}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ValuesError(f"{context}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                          f"{gojson.json_kind(loaded)} into Go value of type map[string]interface {{}}")
    return loaded


def dump(value: Any) -> str:
    """``sigs.k8s.io/yaml.Marshal``: the YAML text Helm's ``toYaml`` starts from.

    Ends with a newline as Marshal's does (``toYaml`` trims it); raises
    :class:`helm_core.golib.gojson.JSONError` when JSON cannot represent the value.
    See :mod:`helm_core.golib.goyaml_write` for the rules. The text of a value met before (in
    this process, or in the disk memo when one is active) is read back instead of emitted (and
    PyYAML is not imported for it).
    """
    disk = memo.active()
    if disk is None:  # in this process: renders again print the same values
        digest = _value_digest(value)
        text = _DUMPED.get(digest)
        if text is None:
            text = _DUMPED.keep(digest, _emit(json_step(value)))
        return text
    plain = json_step(value)
    pickled = pickling.dumps(plain, protocol=pickling.HIGHEST_PROTOCOL)
    if len(pickled) < SMALL_DUMP_BYTES:
        from helm_core.golib import goyaml_emit

        fast = goyaml_emit.emit(plain)
        if fast is not None:
            return fast
    key = cachekeys.hasher(code_digest().encode() + pickled)
    return disk.pickled(DUMP_MEMO, key.hexdigest(), lambda: _emit(plain))


class _Texts(dict[str, str]):
    """Texts by key, for this process: at most ``max_chars`` in all (past it, it starts again).

    Texts need no copy per caller (str is immutable): a warm render's toYaml reads its text
    back with one dict lookup, not an unpickle under a lock."""

    def __init__(self, max_chars: int) -> None:
        super().__init__()
        self.max_chars = max_chars
        self.chars = 0

    def keep(self, key: str, text: str) -> str:
        if len(text) <= self.max_chars // 8:
            if self.chars + len(text) > self.max_chars:  # (threads may race here: it only counts)
                self.clear()
                self.chars = 0
            self[key] = text
            self.chars += len(text)
        return text


#: toYaml texts of this process (no disk memo), by :func:`_value_digest`.
_DUMPED = _Texts(max_chars=16 * 1024 * 1024)

def _value_digest(value: Any) -> str:
    """A digest that only values of the same content give (a key of the text they print).

    marshal writes exact builtin types only (dict, list, str, float, int, bool, None...): for
    those its bytes are the value itself, and a warm render's values are keyed without their
    JSON step (most of a read back's cost). Anything else (Go types, nesting past marshal's
    depth) is keyed by its JSON step, pickled.
    """
    marshalled = cachekeys.marshalled(value)
    if marshalled is not None:
        data = b"marshal\0" + marshalled
    else:
        data = b"pickle\0" + pickling.dumps(json_step(value), protocol=pickling.HIGHEST_PROTOCOL)
    return cachekeys.hasher(data).hexdigest()


#: Texts of ``toYaml`` in the disk memo, keyed by the value after its JSON step.
DUMP_MEMO = "goyaml-dump"
#: A value pickled shorter than this that goyaml_emit writes is written again each run: its text
#: comes faster than an entry is read back (digest, open, read, unpickle: ~13 us), and a first
#: run saves the entry's file (~100 us to create; prometheus has ~20 such toYaml values).
#: bench/dumps.py measures both sides.
SMALL_DUMP_BYTES = 128


def _emit(plain: Any) -> str:
    """``sigs.k8s.io/yaml.Marshal`` text of a value after its JSON step, ending with a newline
    (``toYaml`` trims it). Common values are written without PyYAML by goyaml_emit (the same
    text); libyaml's emitter (goyaml_write, imported only then: its import is ~1 ms of every run
    that calls toYaml) writes the rest."""
    from helm_core.golib import goyaml_emit

    fast = goyaml_emit.emit(plain)
    if fast is not None:
        return fast
    from helm_core.golib import goyaml_write

    return goyaml_write.emit_libyaml(plain)


def json_step(value: Any, depth: int = 0) -> Any:
    """What yaml.v2 decodes from ``json.Marshal(value)``: integral float64 below 1e21 that
    fits int64/uint64 is an int again, []byte is base64 text, structs are their JSON form."""
    if depth > MAX_DEPTH:
        raise gojson.JSONError("json: exceeded max depth")
    if isinstance(value, str):
        if has_surrogates(value):  # invalid UTF-8 bytes: json.Marshal writes U+FFFD for each
            value = SURROGATE().sub("\ufffd", value)
        return _reread_json_string(value) if "\x85" in value else value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise gojson.JSONError(f"json: unsupported value: {gojson.format_float(value)}")
        if value.is_integer() and abs(value) < gojson.JSON_FLOAT_EXP_HIGH:
            as_int = int(gojson.format_float(value, "f"))  # JSON's shortest digits, zero-padded
            if INT64_MIN <= as_int <= UINT64_MAX:
                return as_int
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            key = str(key)
            if has_surrogates(key):
                key = SURROGATE().sub("\ufffd", key)
            if "\x85" in key:  # a multi-line flow key: yaml.v2 rejects the JSON it got
                raise gojson.JSONError("yaml: line 1: did not find expected ',' or '}'")
            out[key] = json_step(item, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [json_step(v, depth + 1) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return gojson.loads(gojson.dumps(bytes(value)))
    converted = gojson.to_go_json(value)
    if converted is value:
        return gojson.loads(gojson.dumps(value))  # raises Go's error for unsupported types
    return json_step(converted, depth + 1)


def _reread_json_string(value: str) -> str:
    """Go's JSON leaves NEL (U+0085) raw; yaml.v2 then reads it as a line break inside a
    double-quoted scalar and folds it (to a space, with surrounding spaces trimmed)."""
    return str(decode(gojson.quote_string(value)))


def dump_pretty(value: Any) -> str:
    """Helm's ``toYamlPretty`` text (yaml.v3 Encoder, indent 2), ending with a newline."""
    from helm_core.golib import goyaml_write
    return goyaml_write.dump_pretty(value, json_step)
