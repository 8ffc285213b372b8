"""YAML written the way Helm writes it: ``toYaml`` (sigs.k8s.io/yaml) and ``toYamlPretty`` (yaml.v3).

``toYaml`` is ``json.Marshal`` followed by yaml.v2 ``Unmarshal`` + ``Marshal``. Rules kept:

* the JSON step: integral float64 below 1e21 that fits int64/uint64 becomes an int again
  (``1000000.0`` → ``1000000``, 1.2345678901234567e19 → ``12345678901234567000``), other
  floats print with strconv's ``%g`` (``1e+20``, ``1e-07``, ``1.5000005e+06``); ``[]byte`` is
  base64; a raw NEL in a JSON string is folded by yaml.v2 into a space;
* keys sorted by yaml.v2's ``keyList`` (letters after other characters, digit runs as numbers);
* a string is double-quoted when it would read back as another type (yaml.v2's resolver,
  timestamps, base-60 floats), literal (``|``, ``|-``, ``|+``) when it has a newline, else plain,
  with libyaml's fallbacks (single quotes for ``a: b``, ``- x``...);
* 2-space indent, sequences not indented under their key, lines folded after column 80;
* yaml.v2 quirks kept: a BOM-led string has every character escaped (its ``is_bom`` only looks at
  the first byte); no ``...`` after open-ended blocks; no indent before the closing quote after a
  final U+2028/U+2029.

The emitter is libyaml's (PyYAML's CEmitter), the C code yaml.v2 was ported from.
"""
from __future__ import annotations

import functools
import math
import re
from typing import Any

import yaml

from helm_core import gojson, goyaml

_BASE60_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
try:
    _Dumper = yaml.CDumper  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Dumper = yaml.Dumper  # type: ignore[misc]
#: yaml.v2's emitter settings: 2-space indent, lines folded past 80 columns, UTF-8 kept.
EMIT_INDENT = 2
EMIT_WIDTH = 80


def _after_json(value: Any, depth: int = 0) -> Any:
    """What yaml.v2 decodes from ``json.Marshal(value)``: integral float64 below 1e21 that
    fits int64/uint64 is an int again, []byte is base64 text, structs are their JSON form."""
    if depth > goyaml.MAX_DEPTH:
        raise gojson.JSONError("json: exceeded max depth")
    if isinstance(value, str):
        return _reread_json_string(value) if "\x85" in value else value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise gojson.JSONError(f"json: unsupported value: {gojson.format_float(value)}")
        if value.is_integer() and abs(value) < gojson.JSON_FLOAT_EXP_HIGH:
            as_int = int(gojson.format_float(value, "f"))  # JSON's shortest digits, zero-padded
            if goyaml.INT64_MIN <= as_int <= goyaml.UINT64_MAX:
                return as_int
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            key = str(key)
            if "\x85" in key:  # a multi-line flow key: yaml.v2 rejects the JSON it got
                raise gojson.JSONError("yaml: line 1: did not find expected ',' or '}'")
            out[key] = _after_json(item, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_after_json(v, depth + 1) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return gojson.loads(gojson.dumps(bytes(value)))
    converted = gojson.to_go_json(value)
    if converted is value:
        return gojson.loads(gojson.dumps(value))  # raises Go's error for unsupported types
    return _after_json(converted, depth + 1)


def _reread_json_string(value: str) -> str:
    """Go's JSON leaves NEL (U+0085) raw; yaml.v2 then reads it as a line break inside a
    double-quoted scalar and folds it (to a space, with surrounding spaces trimmed)."""
    return str(goyaml.decode(gojson.quote_string(value)))


def _key_less(a: str, b: str) -> bool:
    """yaml.v2's ``keyList.Less`` for two string keys: letters before others, digit runs
    compared as numbers."""
    ar, br = a, b
    for i in range(min(len(ar), len(br))):
        if ar[i] == br[i]:
            continue
        al, bl = ar[i].isalpha(), br[i].isalpha()
        if al and bl:
            return ar[i] < br[i]
        if al or bl:
            return bl
        an = bn = 0
        if ar[i] == "0" or br[i] == "0":
            j = i - 1
            while j >= 0 and ar[j].isdigit():
                if ar[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(ar) and ar[ai].isdigit():
            an = an * 10 + int(ar[ai])
            ai += 1
        bi = i
        while bi < len(br) and br[bi].isdigit():
            bn = bn * 10 + int(br[bi])
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ar[i] < br[i]
    return len(ar) < len(br)


class _LetterLastTable(dict):  # type: ignore[type-arg]
    """``str.translate`` table: every character becomes a marker (non-letters first) and itself."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        self[code] = value = ("\x01" if ch.isalpha() else "\x00") + ch
        return value


_LETTER_LAST = _LetterLastTable()
_DIGIT = re.compile(r"\d")


def _sorted_keys(keys: list[str]) -> list[str]:
    """Keys in yaml.v2's order. Without digits the order is a plain key (letters after other
    characters, else code point); digit runs need the full comparison."""
    if not any(_DIGIT.search(k) for k in keys):
        return sorted(keys, key=lambda k: k.translate(_LETTER_LAST))
    return sorted(keys, key=functools.cmp_to_key(
        lambda a, b: -1 if _key_less(a, b) else (1 if _key_less(b, a) else 0)))


def _string_style(s: str) -> str | None:
    """yaml.v2's ``stringv``: quote what would read back as another type; literal for
    multi-line text; else plain (the emitter may still fall back to quotes)."""
    if "\n" in s:
        return "|"
    if goyaml.resolve(s)[0] != goyaml.TAG_STR or _BASE60_FLOAT.match(s):
        return '"'
    return None


def _scalar(value: str, style: str | None = None) -> yaml.ScalarEvent:
    return yaml.ScalarEvent(None, None, (True, True), value, style=style)


_V2_ESCAPES = {0x00: "0", 0x07: "a", 0x08: "b", 0x09: "t", 0x0A: "n", 0x0B: "v", 0x0C: "f", 0x0D: "r",
               0x1B: "e", 0x22: '"', 0x5C: "\\", 0x85: "N", 0xA0: "_", 0x2028: "L", 0x2029: "P"}
#: libyaml writes a longer (or multi-line) mapping key as a complex "? " key.
SIMPLE_KEY_MAX = 128
_BREAKS = re.compile("[\n\r\x85\u2028\u2029]")
#: Appended to strings ending in U+2028/U+2029, removed (with the indent before it) after emitting.
_END_MARK = "\ue001"
_END_MARK_RE = re.compile(" *" + _END_MARK + "(?=['\"])")
#: Placeholder for a BOM-led string, swapped for yaml.v2's text after emitting.
_BOM_TOKEN = "\ue000hcbom{}\ue000"


def _escape_all(s: str) -> str:
    """yaml.v2's double-quoted text for a string starting with a BOM: its ``is_bom`` looks at
    the first character only, so every character is escaped (and nothing is folded)."""
    out = []
    for ch in s:
        code = ord(ch)
        if code in _V2_ESCAPES:
            out.append("\\" + _V2_ESCAPES[code])
        elif code <= 0xFF:
            out.append(f"\\x{code:02X}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    return '"' + "".join(out) + '"'


def _events(value: Any, out: list[yaml.Event], boms: list[str] | None = None) -> None:
    """Events for a value already in yaml.v2's decoded types (see :func:`_after_json`).

    Strings led by a BOM become placeholders listed in ``boms`` (see :func:`_escape_all`).
    """
    if isinstance(value, str) and boms is not None and value.startswith("\ufeff"):
        # The placeholder is as wide as the final text (so lines fold at the same places) and,
        # as a key, simple or complex ("? ") exactly when the original is.
        token = _BOM_TOKEN.format(len(boms))
        width = len(_escape_all(value))
        if _BREAKS.search(value) or len(value.encode("utf-8", "surrogatepass")) > SIMPLE_KEY_MAX:
            width = max(width, SIMPLE_KEY_MAX + 1)
        elif width > SIMPLE_KEY_MAX:
            width = SIMPLE_KEY_MAX
        token += "x" * max(0, width - len(token))
        boms.append(value)
        boms.append(token)
        out.append(_scalar(token))
    elif value is None:
        out.append(_scalar("null"))
    elif value is True:
        out.append(_scalar("true"))
    elif value is False:
        out.append(_scalar("false"))
    elif isinstance(value, str):
        style = _string_style(value)
        if style is None and boms is not None and value[-1:] in ("\u2028", "\u2029") and _END_MARK not in value:
            # libyaml 0.2.5 indents before the closing quote after a final line break; yaml.v2
            # does not. A mark after the break makes both write the indent; dump() removes it.
            value += _END_MARK
        out.append(_scalar(value, style))
    elif isinstance(value, int):
        out.append(_scalar(str(value)))
    elif isinstance(value, float):
        text = gojson.format_float(value, "g")
        out.append(_scalar({"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)))
    elif isinstance(value, dict):
        out.append(yaml.MappingStartEvent(None, None, True, flow_style=False))
        for key in _sorted_keys(list(value)):
            _events(key, out, boms)
            _events(value[key], out, boms)
        out.append(yaml.MappingEndEvent())
    else:
        out.append(yaml.SequenceStartEvent(None, None, True, flow_style=False))
        for item in value:
            _events(item, out, boms)
        out.append(yaml.SequenceEndEvent())


def dump(value: Any) -> str:
    """``sigs.k8s.io/yaml.Marshal`` text, ending with a newline (``toYaml`` trims it)."""
    events: list[yaml.Event] = [yaml.StreamStartEvent(), yaml.DocumentStartEvent(explicit=False)]
    boms: list[str] = []
    _events(_after_json(value), events, boms)
    events += [yaml.DocumentEndEvent(explicit=False), yaml.StreamEndEvent()]
    text = yaml.emit(events, Dumper=_Dumper, indent=EMIT_INDENT, width=EMIT_WIDTH,
                     allow_unicode=True)
    # libyaml 0.2.5 closes an open-ended document (after a `|+` block) with "..."; yaml.v2 does not.
    if text.endswith("...\n") and text[-5:-4] in ("\n", "\u2028", "\u2029"):
        text = text[:-4]
    for original, token in zip(boms[::2], boms[1::2]):
        text = text.replace(token, _escape_all(original), 1)
    if _END_MARK in text:
        text = _END_MARK_RE.sub("", text)
    return text


class _V3Emitter(yaml.Dumper):  # type: ignore[misc]
    """The pure-Python libyaml port, with yaml.v3's sequence indentation inside mappings."""

    def expect_block_sequence(self) -> None:
        self.increase_indent(flow=False, indentless=False)
        self.state = self.expect_first_block_sequence_item


#: yaml.v3 does not fold long lines.
V3_WIDTH = 2**31 - 1


def _v3_plain(value: Any, depth: int = 0) -> Any:
    """Go values as yaml.v3 marshals them directly: numbers keep their Go type."""
    if depth > goyaml.MAX_DEPTH:
        raise gojson.JSONError("yaml: exceeded max depth")
    if isinstance(value, dict):
        return {str(k): _v3_plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_v3_plain(v, depth + 1) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return _after_json(value, depth)


def dump_pretty(value: Any) -> str:
    """Helm's ``toYamlPretty`` text (yaml.v3 Encoder, indent 2), ending with a newline."""
    events: list[yaml.Event] = [yaml.StreamStartEvent(), yaml.DocumentStartEvent(explicit=False)]
    _events(_v3_plain(value), events)
    events += [yaml.DocumentEndEvent(explicit=False), yaml.StreamEndEvent()]
    text = yaml.emit(events, Dumper=_V3Emitter, indent=EMIT_INDENT, width=V3_WIDTH, allow_unicode=True)
    if text.endswith("\n...\n"):
        text = text[:-4]
    return text
