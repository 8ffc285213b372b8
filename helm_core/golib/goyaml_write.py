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

``toYamlPretty`` is yaml.v3's Encoder with indent 2 on the Go values themselves (no JSON step):
sequences indented under their key, no line folding, yaml.v3's scalar analysis (a tab only rules
out plain and single-quoted styles; NEL, BOM and characters outside the BMP force double quotes)
and its key order (a letter sorts first after equal digits). PyYAML's Python emitter is used
with those two parts replaced.
"""
from __future__ import annotations

import base64
import functools

from helm_core.golib import goyaml_rules as rules
from helm_core.golib.goyaml_emit import EMIT_INDENT, EMIT_WIDTH, SIMPLE_KEY_MAX, scalar_text, sorted_keys, string_style
from helm_core.support import patterns

#: PyYAML (35-50 ms to import in a fresh process) is imported inside the functions that need it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import yaml


@functools.cache
def _dumper() -> Any:
    """libyaml's emitter (the C code yaml.v2 was ported from) when PyYAML has it."""
    import yaml
    return getattr(yaml, "CDumper", yaml.Dumper)


def _scalar(value: str, style: str | None = None) -> yaml.ScalarEvent:
    import yaml
    return yaml.ScalarEvent(None, None, (True, True), value, style=style)


_V2_ESCAPES = {0x00: "0", 0x07: "a", 0x08: "b", 0x09: "t", 0x0A: "n", 0x0B: "v", 0x0C: "f", 0x0D: "r",
               0x1B: "e", 0x22: '"', 0x5C: "\\", 0x85: "N", 0xA0: "_", 0x2028: "L", 0x2029: "P"}
_BREAKS = patterns.on_first_use("[\n\r\x85\u2028\u2029]")
#: Appended to strings ending in U+2028/U+2029, removed (with the indent before it) after emitting.
_END_MARK = "\ue001"
_END_MARK_RE = patterns.on_first_use(" *" + _END_MARK + "(?=['\"])")
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


def _events(value: Any, out: list[yaml.Event], boms: list[str] | None = None, v3: bool = False) -> None:
    """Events for a value already in yaml.v2's decoded types (see :func:`helm_core.golib.goyaml.json_step`).

    Strings led by a BOM become placeholders listed in ``boms`` (see :func:`_escape_all`).
    """
    import yaml
    if isinstance(value, str) and boms is not None and value.startswith("\ufeff"):
        # The placeholder is as wide as the final text (so lines fold at the same places) and,
        # as a key, simple or complex ("? ") exactly when the original is.
        token = _BOM_TOKEN.format(len(boms))
        width = len(_escape_all(value))
        if _BREAKS().search(value) or len(value.encode("utf-8", "surrogatepass")) > SIMPLE_KEY_MAX:
            width = max(width, SIMPLE_KEY_MAX + 1)
        elif width >= SIMPLE_KEY_MAX:
            width = SIMPLE_KEY_MAX - 1  # PyYAML's emitter wants simple keys shorter than libyaml's limit
        token += "x" * max(0, width - len(token))
        boms.append(value)
        boms.append(token)
        out.append(_scalar(token))
    elif isinstance(value, _Binary):
        out.append(yaml.ScalarEvent(None, rules.TAG_BINARY, (False, False), str(value),
                                    style="|" if "\n" in value else None))
    elif isinstance(value, str):
        style = string_style(value)
        if style is None and boms is not None and value[-1:] in ("\u2028", "\u2029") and _END_MARK not in value:
            # libyaml 0.2.5 indents before the closing quote after a final line break; yaml.v2
            # does not. A mark after the break makes both write the indent; dump() removes it.
            value += _END_MARK
        out.append(_scalar(value, style))
    elif value is None or isinstance(value, (bool, int, float)):
        out.append(_scalar(scalar_text(value)))
    elif isinstance(value, dict):
        out.append(yaml.MappingStartEvent(None, None, True, flow_style=False))
        for key in sorted_keys(list(value), v3):
            _events(key, out, boms, v3)
            _events(value[key], out, boms, v3)
        out.append(yaml.MappingEndEvent())
    else:
        out.append(yaml.SequenceStartEvent(None, None, True, flow_style=False))
        for item in value:
            _events(item, out, boms, v3)
        out.append(yaml.SequenceEndEvent())


def _finish(text: str, boms: list[str]) -> str:
    """Undo libyaml-0.2.5-only output and put yaml.v2's text for BOM-led strings back."""
    # libyaml 0.2.5 closes an open-ended document (after a `|+` block) with "..."; yaml.v2 does not.
    if text.endswith("...\n") and text[-5:-4] in ("\n", "\u2028", "\u2029"):
        text = text[:-4]
    for original, token in zip(boms[::2], boms[1::2], strict=False):
        text = text.replace(token, _escape_all(original), 1)
    if _END_MARK in text:
        text = _END_MARK_RE().sub("", text)
    return text


def emit_libyaml(plain: Any) -> str:
    """``sigs.k8s.io/yaml.Marshal`` text of a value after its JSON step (:func:`goyaml.json_step`),
    ending with a newline, by libyaml's emitter, for every value (``goyaml._emit`` asks
    :func:`helm_core.golib.goyaml_emit.emit` first: the same text for common values)."""
    import yaml
    events: list[yaml.Event] = [yaml.StreamStartEvent(), yaml.DocumentStartEvent(explicit=False)]
    boms: list[str] = []
    _events(plain, events, boms)
    events += [yaml.DocumentEndEvent(explicit=False), yaml.StreamEndEvent()]
    text = yaml.emit(events, Dumper=_dumper(), indent=EMIT_INDENT, width=EMIT_WIDTH,
                     allow_unicode=True)
    return _finish(str(text), boms)


_V3_BREAKS = "\r\n\x85\u2028\u2029"
_V3_FIRST_BOTH = set("#,[]{}&*!|>'\"%@`")
_V3_LATER_FLOW = set(",?[]{}")


def _v3_printable(ch: str) -> bool:
    o = ord(ch)
    return (o == 0x0A or 0x20 <= o <= 0x7E or 0xA0 <= o <= 0xD7FF
            or (0xE000 <= o <= 0xFFFD and o != 0xFEFF))


def _v3_analysis(value: str) -> yaml.emitter.ScalarAnalysis:
    """yaml.v3's ``yaml_emitter_analyze_scalar``: tabs only forbid plain and single-quoted
    styles; non-printable characters (NEL, BOM, outside the BMP) force double quotes."""
    import yaml
    if not value:
        return yaml.emitter.ScalarAnalysis(scalar=value, empty=True, multiline=False, allow_flow_plain=False,
                                           allow_block_plain=True, allow_single_quoted=True,
                                           allow_double_quoted=True, allow_block=False)
    block_ind = flow_ind = value.startswith(("---", "..."))
    line_breaks = special = tabs = False
    leading_space = leading_break = trailing_space = trailing_break = False
    break_space = space_break = previous_space = previous_break = False
    preceded_by_ws = True
    last = len(value) - 1
    for i, ch in enumerate(value):
        followed_by_ws = i == last or value[i + 1] in " \t"
        if i == 0:
            if ch in _V3_FIRST_BOTH:
                flow_ind = block_ind = True
            elif ch in "?:":
                flow_ind = True
                block_ind = block_ind or followed_by_ws
            elif ch == "-" and followed_by_ws:
                flow_ind = block_ind = True
        elif ch in _V3_LATER_FLOW:
            flow_ind = True
        elif ch == ":":
            flow_ind = True
            block_ind = block_ind or followed_by_ws
        elif ch == "#" and preceded_by_ws:
            flow_ind = block_ind = True
        if ch == "\t":
            tabs = True
        elif not _v3_printable(ch):
            special = True
        if ch == " ":
            leading_space = leading_space or i == 0
            trailing_space = trailing_space or i == last
            break_space = break_space or previous_break
            previous_space, previous_break = True, False
        elif ch in _V3_BREAKS:
            line_breaks = True
            leading_break = leading_break or i == 0
            trailing_break = trailing_break or i == last
            space_break = space_break or previous_space
            previous_space, previous_break = False, True
        else:
            previous_space = previous_break = False
        preceded_by_ws = ch in " \t" or ch in _V3_BREAKS
    flow_plain = block_plain = single = block = True
    if leading_space or leading_break or trailing_space or trailing_break:
        flow_plain = block_plain = False
    if trailing_space:
        block = False
    if break_space:
        flow_plain = block_plain = single = False
    if space_break or tabs or special:
        flow_plain = block_plain = single = False
    if space_break or special:
        block = False
    if line_breaks:
        flow_plain = block_plain = False
    if flow_ind:
        flow_plain = False
    if block_ind:
        block_plain = False
    return yaml.emitter.ScalarAnalysis(scalar=value, empty=False, multiline=line_breaks,
                                       allow_flow_plain=flow_plain, allow_block_plain=block_plain,
                                       allow_single_quoted=single, allow_double_quoted=True, allow_block=block)


@functools.cache
def _v3_emitter() -> Any:
    """The pure-Python libyaml port, with yaml.v3's scalar analysis and its sequence
    indentation inside mappings (a class made when first needed: it derives from PyYAML's)."""
    import yaml

    class _V3Emitter(yaml.Dumper):
        def expect_block_sequence(self) -> None:
            self.increase_indent(flow=False, indentless=False)
            self.state = self.expect_first_block_sequence_item

        def analyze_scalar(self, scalar: str) -> yaml.emitter.ScalarAnalysis:
            return _v3_analysis(scalar)

        def choose_scalar_style(self) -> str:
            # libyaml writes a tagged scalar plain when it can (PyYAML only untagged ones)
            event = self.event
            if isinstance(event, yaml.ScalarEvent) and event.tag == rules.TAG_BINARY and not event.style:
                if self.analysis is None:
                    self.analysis = self.analyze_scalar(event.value)
                if self.analysis.allow_block_plain and not self.flow_level:
                    return ""
            style: str = super().choose_scalar_style()
            return style

    return _V3Emitter


#: yaml.v3 does not fold long lines.
V3_WIDTH = 2**31 - 1


class _Binary(str):
    """yaml.v3's form of a string that is not valid UTF-8: ``!!binary`` base64 text."""


#: yaml.v2/v3 ``encodeBase64`` line length.
BASE64_LINE = 70


def _binary(value: str) -> _Binary:
    encoded = base64.b64encode(value.encode("utf-8", "surrogateescape")).decode("ascii")
    if len(encoded) // BASE64_LINE + 1 == 1:
        return _Binary(encoded)
    return _Binary("".join(encoded[i:i + BASE64_LINE] + "\n" for i in range(0, len(encoded), BASE64_LINE)))


def _v3_plain(value: Any, json_step: Callable[[Any], Any]) -> Any:
    """Go values as yaml.v3 marshals them directly: numbers keep their Go type; invalid
    UTF-8 text becomes ``!!binary``. yaml.v3's encoder has no depth limit (there is no JSON
    step here): ``toYamlPretty`` writes 10001 levels where ``toYaml`` gives up. Other values
    (Go objects) go through ``json_step`` (:func:`helm_core.golib.goyaml.json_step`, passed in by
    the facade so this module never imports it back)."""
    if isinstance(value, dict):
        return {_v3_plain(str(k), json_step): _v3_plain(v, json_step) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_v3_plain(v, json_step) for v in value]
    if isinstance(value, str) and rules.has_surrogates(value):
        return _binary(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json_step(value)


def dump_pretty(value: Any, json_step: Callable[[Any], Any]) -> str:
    """Helm's ``toYamlPretty`` text (yaml.v3 Encoder, indent 2), ending with a newline."""
    import yaml
    events: list[yaml.Event] = [yaml.StreamStartEvent(), yaml.DocumentStartEvent(explicit=False)]
    boms: list[str] = []
    _events(_v3_plain(value, json_step), events, boms, v3=True)
    events += [yaml.DocumentEndEvent(explicit=False), yaml.StreamEndEvent()]
    text = yaml.emit(events, Dumper=_v3_emitter(), indent=EMIT_INDENT, width=V3_WIDTH, allow_unicode=True)
    return _finish(str(text), boms)
