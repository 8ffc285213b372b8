"""A fast reader for the block YAML that manifests, values.yaml and Chart.yaml files are made of.

Importing PyYAML costs about 50 ms (bench/deferred.py), more than a whole render of a cached
chart: a run that meets one document not in the disk memo (a Secret with a random password)
would pay it. This reader composes the common subset itself, line by line, and hands its nodes
to the one converter (:mod:`helm_core.golib.goyaml_convert`), so a document it takes decodes to
exactly what :mod:`helm_core.golib.goyaml_read` (libyaml) gives. Anything outside the subset,
including every text libyaml would refuse, is declined (:data:`DECLINED`) and read by PyYAML.

The subset (libyaml's scanner, ``src/scanner.c``, is the reference for each rule):

* the first document: comments, blank lines, a ``---`` before it, a ``---`` or ``...`` line
  after it (nothing after the marker on its line but a comment; what follows is not read,
  as libyaml does not read it for the first document);
* block mappings of plain or one-line quoted keys at one column, block sequences, ``- key:``
  compact mappings and ``- -`` compact sequences, a sequence at its key's column;
* values (on the key's or the '-''s line, or alone on the next, deeper one): plain scalars,
  continued on deeper lines (``: `` inside is libyaml's error: declined), one-line quoted
  scalars (every escape of libyaml), ``{}``, ``[]``, one-line flow sequences of quoted
  scalars and simple plain words, literal and folded block scalars (chomping and
  indentation indicators);
* anchors (``&name``, libyaml's name characters, then a space or the end of the line) on such
  a value, on its key's or '-''s line: before an inline value, or alone before the value on
  the rows below (null when there is none); aliases (``*name``) as a whole value there or as
  an item of a one-line flow sequence (merge keys: ``<<: *a``, ``<<: [*a, *b]``). An alias is
  the anchored node itself, as PyYAML's composer gives it, so the converter expands it and
  bounds its expansion as for the PyYAML path;
* not: tabs, carriage returns, control and special characters, anchors on keys or documents,
  anchors and aliases on a row of their own, an alias to an anchor not yet read or being read
  (undefined, or a self reference; an anchor defined again names the later node), tags,
  directives, ``?`` keys, multi-line quoted scalars, other flow collections, keys past 1000
  characters, nesting past :data:`MAX_NESTING`, a scalar document (``{}`` and ``[...]`` are
  taken), continuation lines that start with an indicator.
"""
from __future__ import annotations

from helm_core.golib import goyaml_convert
from helm_core.golib.goyaml_convert import MAPPING, SCALAR, SEQUENCE
from helm_core.golib.goyaml_rules import TAG_MAP, TAG_PLAIN, TAG_SEQ, TAG_STR
from helm_core.support import patterns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final


class Declined:
    """The answer for a text outside the subset: read it with the full reader."""

    def __repr__(self) -> str:
        return "DECLINED"


DECLINED: Final = Declined()

#: Collections nested deeper than this are left to the full reader (yaml.v2's limits, 10000,
#: are the converter's; this bound only keeps this reader's recursion short).
MAX_NESTING = 100
#: libyaml forgets a simple key more than 1024 characters before its ':' (then refuses it).
MAX_KEY_SPAN = 1000

#: Characters other than printable ASCII and '\n' (a small class: one with libyaml's whole
#: printable set takes ~10 ms to compile, more than most documents take to read).
_NOT_PRINTABLE_ASCII = patterns.compiled("[^\n -~]")
#: Characters that cannot start a plain scalar ('-' can when a non-blank follows).
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
#: The characters of an anchor or alias name.
_NAME_CHARACTERS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-")
_QUOTE_OR_ESCAPE = patterns.compiled(r'["\\]')
# The patterns for rarer forms (escapes, flow sequences, block scalars) are compiled on first
# use (helm_core.support.patterns): many documents have none.
_HEX = {width: patterns.on_first_use(f"[0-9A-Fa-f]{{{width}}}") for width in (2, 4, 8)}
_ESCAPE_WIDTH = {"x": 2, "u": 4, "U": 8}
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
#: A plain scalar inside a one-line flow sequence: no ':' or '#' at all (their flow rules
#: changed between libyaml versions), no flow indicators, spaces only inside.
_FLOW_PLAIN = patterns.on_first_use(
    r"""(?:[^ \-?:,\[\]{}#&*!|>'"%@`]|-[^ ,\[\]{}#:])[^ ,\[\]{}#:]*(?: +[^ ,\[\]{}#:]+)*""")
#: The usual key (letters, digits, '_./-') and its ':': the general scan below gives the same.
_WORD_KEY = patterns.compiled(r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,999}(?=:(?: |$))")
#: The usual entry: such a key, then a plain value without ':' or '#' that starts with no
#: indicator (the general path below reads it the same way).
_USUAL_ENTRY = patterns.compiled(r"([A-Za-z0-9_][A-Za-z0-9_./-]{0,999}): +([^- ?:,\[\]{}#&*!|>'\"%@`][^#:]*)$")
#: The usual sequence item: '-', spaces, then a plain value as in :data:`_USUAL_ENTRY` (not a
#: key, comment, nested item or indicator: the general path below reads it the same way).
_USUAL_ITEM = patterns.compiled(r"- +([^- ?:,\[\]{}#&*!|>'\"%@`][^#:]*)$")
_BLOCK_HEADER = patterns.on_first_use(r"([+-]?)([1-9]?)([+-]?)")


class _NotMine(Exception):
    """Raised anywhere in the reader when the text leaves the subset."""


class _Scalar:
    """A quoted or block scalar, or an anchored plain one; any other plain scalar is its text
    (a ``str``: the converter's plain node, without an object to build for each)."""

    __slots__ = ("tag", "value")
    id = SCALAR
    flow_style = None
    start_mark = None

    def __init__(self, tag: str, value: str) -> None:
        self.tag = tag
        self.value = value


class _Mark:
    __slots__ = ("line",)

    def __init__(self, line: int) -> None:
        self.line = line


class _Collection:
    __slots__ = ("id", "tag", "value", "flow_style", "line")

    def __init__(self, kind: str, value: list[Any], line: int, *, flow: bool = False) -> None:
        self.id = kind
        self.tag = TAG_SEQ if kind == SEQUENCE else TAG_MAP
        self.value = value
        self.flow_style = flow
        self.line = line

    @property
    def start_mark(self) -> _Mark:
        return _Mark(self.line)


def decode(text: str, *, json_step: bool = True) -> Any:
    """The first document of ``text`` as :func:`helm_core.golib.goyaml_read.decode` (or, without
    ``json_step``, ``decode_unconverted``) gives it, or :data:`DECLINED` when ``text`` is not
    in the subset. Raises the converter's :class:`ValueError` (a null key, NaN) as that does."""
    try:
        reader = _Reader(text)
        root = reader.document()
    except _NotMine:
        return DECLINED
    with goyaml_convert.go_errors():  # the alias accounting only when a node is met twice
        return goyaml_convert.convert(root, json_step=json_step, anchors=reader.aliased)


def _decline() -> _NotMine:
    return _NotMine()


def _readable(char: str) -> bool:
    """A character of libyaml's printable set that is not a line break (NEL, LS, PS, CR), a
    tab (its indentation rules are not modelled) or the BOM (skipped at any line start)."""
    code = ord(char)
    return (0xA0 <= code <= 0xD7FF and code not in (0x2028, 0x2029) or 0xE000 <= code <= 0xFFFD and code != 0xFEFF
            or 0x10000 <= code <= 0x10FFFF)


def _is_entry_dash(line: str, col: int) -> bool:
    """A block sequence entry at ``col``: '-' then a space or the end of the line."""
    return line.startswith("-", col) and (len(line) == col + 1 or line[col + 1] == " ")


def _name_end(line: str, pos: int) -> int:
    """Where the anchor or alias name starting at ``pos`` ends (libyaml's ``IS_ALPHA``)."""
    end = len(line)
    while pos < end and line[pos] in _NAME_CHARACTERS:
        pos += 1
    return pos


def _skip_spaces(line: str, pos: int) -> int:
    end = len(line)
    while pos < end and line[pos] == " ":
        pos += 1
    return pos


def _check_line_ends(line: str, pos: int) -> None:
    """Only spaces, then the end of the line or a comment after at least one space."""
    rest = _skip_spaces(line, pos)
    if rest != len(line) and not (line[rest] == "#" and rest > pos):
        raise _decline()


def _quoted(line: str, pos: int) -> tuple[int, str]:
    """The one-line quoted scalar at ``pos``: where it ends and its text."""
    if line[pos] == "'":
        parts = []
        start = pos + 1
        while True:
            close = line.find("'", start)
            if close < 0:
                raise _decline()  # continues on the next line
            parts.append(line[start:close])
            if not line.startswith("'", close + 1):
                return close + 1, "".join(parts)
            parts.append("'")
            start = close + 2
    parts = []
    start = pos + 1
    while True:
        found = _QUOTE_OR_ESCAPE.search(line, start)
        if found is None:
            raise _decline()  # continues on the next line
        stop = found.start()
        parts.append(line[start:stop])
        if line[stop] == '"':
            return stop + 1, "".join(parts)
        if stop + 1 == len(line):
            raise _decline()  # an escaped line break
        escape = line[stop + 1]
        simple = _ESCAPES.get(escape)
        if simple is not None:
            parts.append(simple)
            start = stop + 2
            continue
        width = _ESCAPE_WIDTH.get(escape)
        if width is None or not _HEX[width]().match(line, stop + 2):
            raise _decline()  # libyaml's "found unknown escape character" or bad hex digits
        code = int(line[stop + 2:stop + 2 + width], 16)
        if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            raise _decline()  # "found invalid Unicode character escape code"
        parts.append(chr(code))
        start = stop + 2 + width


class _Reader:
    """Composes the first document from the rows (lines with content) of the text."""

    def __init__(self, text: str) -> None:
        if _NOT_PRINTABLE_ASCII.search(text) and not all(map(_readable, set(_NOT_PRINTABLE_ASCII.findall(text)))):
            raise _decline()
        self.lines = text.split("\n")
        #: The anchored nodes read so far, by name (the latest definition): an alias is one of
        #: them (the same object); an alias to an anchor not yet read is declined.
        self.anchors: dict[str, Any] = {}
        #: The names of the anchored values being read (an alias to one is declined).
        self.being_read: list[str] = []
        #: Whether an alias was read (a node is then met twice by the converter).
        self.aliased = False
        #: The current row (a line with content, found on the way: block scalar lines are not
        #: looked at twice) and its indentation, -1 at a document marker or past the last row.
        self.number = 0
        self.indent = -1
        self.seek(0)

    def seek(self, number: int) -> None:
        """Make the first row at or after line ``number`` the current one."""
        lines = self.lines
        end = len(lines)
        while number < end:
            line = lines[number]
            body = line.lstrip(" ")
            if body and body[0] != "#":
                indent = len(line) - len(body)
                if not indent and body.startswith(("---", "...")) and body[3:4] in ("", " "):
                    indent = -1
                self.number = number
                self.indent = indent
                return
            number += 1
        self.number = end
        self.indent = -1

    def line(self) -> str:
        return self.lines[self.number]

    def document(self) -> Any:
        if self.number == len(self.lines):
            return None  # no document at all: comments and blank lines only
        if self.indent == -1:
            marker = self.line()
            if not marker.startswith("---"):
                raise _decline()
            _check_line_ends(marker, 3)
            self.seek(self.number + 1)
            if self.indent == -1:
                self._check_document_end()
                return ""  # an empty document: null
        col = self.indent
        line = self.line()
        root = self.inline(line, col, -1) if line[col] in "[{" else self.block_node(line, col, 1)
        if self.indent != -1:
            raise _decline()  # a row less indented than the root: libyaml's error
        self._check_document_end()
        return root

    def _check_document_end(self) -> None:
        if self.number < len(self.lines):
            _check_line_ends(self.line(), 3)

    def block_node(self, line: str, col: int, depth: int, parent: int = -1) -> Any:
        """The node whose first row starts at ``col`` of ``line``: a block sequence, a block
        mapping, or (below a key or '-' of the collection at ``parent``) a scalar."""
        if _is_entry_dash(line, col):
            return self.sequence(line, col, depth)
        if parent < 0 or self.key(line, col) is not None:
            return self.mapping(line, col, depth)
        return self.inline(line, col, parent)

    def mapping(self, line: str, col: int, depth: int) -> _Collection:
        if depth > MAX_NESTING:
            raise _decline()
        pairs: list[tuple[str | _Scalar, Any]] = []
        node = _Collection(MAPPING, pairs, self.number)
        while True:
            usual = _USUAL_ENTRY.match(line, col)
            if usual is not None:  # what key() and plain() make of it, found at once
                key_text, text = usual.groups()
                pairs.append((key_text, self.continued(text.rstrip(" "), col)))
            else:
                entry = self.key(line, col)
                if entry is None:
                    raise _decline()  # a row of the mapping that is not a key: libyaml's error
                key, after = entry
                pairs.append((key, self.mapping_value(line, after, col, depth)))
            indent = self.indent
            if indent != col:
                if indent > col:
                    raise _decline()  # a deeper row after a value: a multi-line scalar or an error
                return node
            line = self.line()

    def key(self, line: str, col: int) -> tuple[str | _Scalar, int] | None:
        """The key of the mapping entry at ``col`` and where its ':' ends, or None."""
        word = _WORD_KEY.match(line, col)
        if word is not None:
            return word.group(), word.end() + 1
        first = line[col]
        if first in "'\"":
            end, text = _quoted(line, col)
            colon = _skip_spaces(line, end)
            if not (line.startswith(":", colon) and (colon + 1 == len(line) or line[colon + 1] == " ")):
                return None
            if colon - col > MAX_KEY_SPAN:
                raise _decline()
            return _Scalar(TAG_STR, text), colon + 1
        if first in _INDICATORS and not (first == "-" and line[col + 1:col + 2] not in ("", " ")):
            return None
        colon = line.find(":", col)
        while colon >= 0 and colon + 1 < len(line) and line[colon + 1] != " ":
            colon = line.find(":", colon + 1)
        if colon < 0 or line.find(" #", col, colon) >= 0:
            return None
        if colon - col > MAX_KEY_SPAN:
            raise _decline()
        return line[col:colon].rstrip(" "), colon + 1

    def mapping_value(self, line: str, pos: int, col: int, depth: int) -> Any:
        """The value after a key's ':' (``pos``) in the mapping at ``col``."""
        start = _skip_spaces(line, pos)
        if start < len(line) and line[start] != "#":
            if line[start] in "*&":
                return self.alias_or_anchored(line, start, col, depth, True)
            return self.inline(line, start, col)
        self.seek(self.number + 1)
        return self.below(col, depth, True)

    def below(self, col: int, depth: int, after_key: bool) -> Any:
        """The value of an entry of the collection at ``col`` whose line ended after its ':' or
        '-' (the current row is the next one): the deeper node, a sequence at a key's column
        (``after_key``), else null."""
        indent = self.indent
        if indent > col:
            return self.block_node(self.line(), indent, depth + 1, col)
        if after_key and indent == col and _is_entry_dash(self.line(), col):
            return self.sequence(self.line(), col, depth + 1)  # a sequence at its key's column
        return ""

    def alias_or_anchored(self, line: str, pos: int, col: int, depth: int, after_key: bool) -> Any:
        """The value at ``pos`` (a '*' or '&'), on the line of its key or '-' in the collection
        at ``col``: an alias, or an anchored value."""
        if line[pos] == "&":
            return self.anchored(line, pos, col, depth, after_key)
        node, end = self.alias(line, pos)
        _check_line_ends(line, end)
        self.seek(self.number + 1)
        return node

    def anchored(self, line: str, pos: int, col: int, depth: int, after_key: bool) -> Any:
        """The value whose anchor ('&name') is at ``pos``: inline after it (no second property:
        ``inline`` declines '&', '*' and '!'), or, alone at the end of the line, the value below.

        yaml.v2 names a collection by its anchor before reading its children, and an anchor
        defined again names the later node: while the value is read, an alias to its name is
        declined (a self reference; or, conservatively, to a definition inside it), and a
        definition inside it stays the one later aliases name."""
        end = _name_end(line, pos + 1)
        name = line[pos + 1:end]
        if not name:
            raise _decline()
        start = _skip_spaces(line, end)
        earlier = self.anchors.get(name)
        self.being_read.append(name)
        if start < len(line) and line[start] != "#":
            if start == end:
                raise _decline()  # libyaml's "did not find expected alphabetic or numeric character"
            node = self.inline(line, start, col)
        else:
            _check_line_ends(line, end)
            number = self.number
            self.seek(self.number + 1)
            node = self.below(col, depth, after_key)
            if isinstance(node, _Collection):
                node.line = number  # an anchored collection starts at its anchor (libyaml's mark)
        if isinstance(node, str):  # an alias is the anchored node itself: a node of its own, not
            node = _Scalar(TAG_PLAIN, node)  # a text that equal texts elsewhere may share
        self.being_read.pop()
        if self.anchors.get(name) is earlier:  # not defined again inside
            self.anchors[name] = node
        return node

    def alias(self, line: str, pos: int) -> tuple[Any, int]:
        """The node of the alias ('*name') at ``pos`` and where its name ends."""
        end = _name_end(line, pos + 1)
        name = line[pos + 1:end]
        node = self.anchors.get(name)
        if node is None or name in self.being_read:
            raise _decline()  # no name, an undefined anchor, or one being read (a self reference)
        self.aliased = True
        return node, end

    def sequence(self, line: str, col: int, depth: int) -> _Collection:
        if depth > MAX_NESTING:
            raise _decline()
        items: list[Any] = []
        node = _Collection(SEQUENCE, items, self.number)
        while True:
            usual = _USUAL_ITEM.match(line, col)
            if usual is not None:  # what inline() makes of it, found at once
                items.append(self.continued(usual.group(1).rstrip(" "), col))
            else:
                items.append(self.item(line, col, depth))
            indent = self.indent
            if indent != col:
                if indent > col:
                    raise _decline()
                return node
            line = self.line()
            if not _is_entry_dash(line, col):
                return node  # the key after a sequence at its key's column (else the caller declines)

    def item(self, line: str, col: int, depth: int) -> Any:
        """The node of the sequence entry whose '-' is at ``col`` of the current row."""
        start = _skip_spaces(line, col + 1)
        if start == len(line) or line[start] == "#":
            self.seek(self.number + 1)
            return self.below(col, depth, False)
        if _is_entry_dash(line, start):
            return self.sequence(line, start, depth + 1)
        if self.key(line, start) is not None:
            return self.mapping(line, start, depth + 1)
        if line[start] in "*&":
            return self.alias_or_anchored(line, start, col, depth, False)
        return self.inline(line, start, col)

    def inline(self, line: str, pos: int, col: int) -> Any:
        """The scalar or flow collection at ``pos`` of the current row, in the block
        collection at ``col``; moves past its rows."""
        first = line[pos]
        if first in "'\"":
            end, text = _quoted(line, pos)
            _check_line_ends(line, end)
            self.seek(self.number + 1)
            return _Scalar(TAG_STR, text)
        if first in "|>":
            return self.block_scalar(line, pos, col)
        if first == "[":
            node = self.flow_sequence(line, pos)
            self.seek(self.number + 1)
            return node
        if first == "{":
            close = _skip_spaces(line, pos + 1)
            if not line.startswith("}", close):
                raise _decline()
            _check_line_ends(line, close + 1)
            node = _Collection(MAPPING, [], self.number, flow=True)
            self.seek(self.number + 1)
            return node
        if first in _INDICATORS and not (first == "-" and line[pos + 1:pos + 2] not in ("", " ")):
            raise _decline()  # anchors, aliases, tags, reserved characters, '- ' and '? ' here
        return self.plain(line, pos, col)

    def plain(self, line: str, pos: int, col: int) -> str:
        """The text of the plain scalar at ``pos`` of the current row, with the deeper rows
        that continue it (libyaml's ``scan_plain_scalar`` in a block collection at ``col``)."""
        comment = line.find(" #", pos)
        text = line[pos:comment if comment >= 0 else len(line)].rstrip(" ")
        if ": " in text or text.endswith(":"):
            raise _decline()  # "mapping values are not allowed in this context"
        if comment >= 0:  # a comment ends it
            self.seek(self.number + 1)
            return text
        return self.continued(text, col)

    def continued(self, text: str, col: int) -> str:
        """``text``, a plain scalar ending the current row, and the deeper rows that continue
        it (folded: one space, or the empty lines between); moves past them."""
        lines = self.lines
        previous = self.number
        self.seek(self.number + 1)
        while self.indent > col:
            number = self.number
            gap = lines[previous + 1:number]
            if any(between.strip(" ") for between in gap):
                break  # a comment line ends the scalar (the deeper row is then the caller's to refuse)
            body = lines[number].lstrip(" ")
            if body[0] in _INDICATORS:
                raise _decline()
            comment = body.find(" #")
            piece = body[:comment if comment >= 0 else len(body)].rstrip(" ")
            if ": " in piece or piece.endswith(":"):
                raise _decline()
            text += ("\n" * len(gap) if gap else " ") + piece
            previous = number
            self.seek(self.number + 1)
            if comment >= 0:
                break
        return text

    def flow_sequence(self, line: str, pos: int) -> _Collection:
        items: list[Any] = []
        node = _Collection(SEQUENCE, items, self.number, flow=True)
        at = _skip_spaces(line, pos + 1)
        if not line.startswith("]", at):
            while True:
                if line.startswith(("'", '"'), at):
                    at, text = _quoted(line, at)
                    items.append(_Scalar(TAG_STR, text))
                elif line.startswith("*", at):  # as in a merge key's value: [*a, *b]
                    aliased, at = self.alias(line, at)
                    items.append(aliased)
                else:
                    plain = _FLOW_PLAIN().match(line, at)
                    if plain is None:
                        raise _decline()
                    items.append(plain.group())
                    at = plain.end()
                at = _skip_spaces(line, at)
                if line.startswith(",", at):
                    at = _skip_spaces(line, at + 1)
                    if line.startswith("]", at) or at == len(line):
                        raise _decline()  # a trailing comma, or the sequence goes on below
                    continue
                if line.startswith("]", at):
                    break
                raise _decline()
        _check_line_ends(line, at + 1)
        return node

    def block_scalar(self, line: str, pos: int, col: int) -> _Scalar:
        """A literal or folded scalar whose header is at ``pos``, in the collection at ``col``
        (libyaml's ``scan_block_scalar`` and ``scan_block_scalar_breaks``)."""
        header = _BLOCK_HEADER().match(line, pos + 1)
        assert header is not None  # every group may be empty
        before, digit, after = header.groups()
        if before and after:
            raise _decline()
        _check_line_ends(line, header.end())
        literal = line[pos] == "|"
        chomping = before or after
        lines = self.lines
        last = len(lines) - 1
        number = self.number + 1
        indent = col + int(digit) if digit else 0
        breaks = 0
        max_indent = 0
        column = 0
        content = False  # at a line with text beyond its indentation (else at the end)
        while number <= last:  # the leading empty lines
            text = lines[number]
            column = len(text) - len(text.lstrip(" "))
            if indent:
                column = min(column, indent)
            max_indent = max(max_indent, column)
            content = column < len(text)
            if content or number == last:
                break
            breaks += 1
            number += 1
        if not indent:
            indent = max(max_indent, col + 1)
            if content and col < column < indent:
                raise _decline()  # deeper empty lines before the text: libyaml ends the scalar early
        end = number  # the body: lines up to the first one less indented with text
        if content and column == indent:
            pad = " " * indent
            while end <= last and (lines[end].startswith(pad) or not lines[end].strip(" ")):
                end += 1
        stop = end  # past the last line with text beyond the indentation
        while stop > number and len(lines[stop - 1]) <= indent:
            stop -= 1
        if stop == number:  # no text: only kept breaks
            text = "\n" * breaks if chomping == "+" else ""
        else:
            text = "\n" * breaks + (self.literal(lines[number:stop], indent) if literal
                                    else self.folded(lines[number:stop], indent))
            if chomping != "-" and stop <= last:
                text += "\n"  # the break of the last line with text
            if chomping == "+":
                text += "\n" * (min(end, last) - stop)  # the empty lines after it (not a last one without break)
        self.seek(end)
        return _Scalar(TAG_STR, text)

    @staticmethod
    def literal(body: list[str], indent: int) -> str:
        return "\n".join([line[indent:] for line in body])

    @staticmethod
    def folded(body: list[str], indent: int) -> str:
        """Lines joined by a space, or by the empty lines between them; kept apart around
        lines that start with a space (libyaml's folding)."""
        parts: list[str] = []
        empty = 0
        previous_blank: bool | None = None
        for line in body:
            if len(line) <= indent:
                empty += 1
                continue
            piece = line[indent:]
            blank = piece[0] == " "
            if previous_blank is not None:
                if previous_blank or blank:
                    parts.append("\n" * (empty + 1))
                else:
                    parts.append("\n" * empty if empty else " ")
            parts.append(piece)
            previous_blank = blank
            empty = 0
        return "".join(parts)
