"""Go's ``regexp`` package, in linear time: RE2 C++ (``google-re2``) with Go's syntax and Go's rules.

Why: every pattern a chart supplies (Sprig's regex functions, values-schema ``pattern``...)
must answer as Go answers and never backtrack: ``^(a+)+$`` takes exponential time in Python's
``re`` and microseconds here. RE2 is the engine Go's regexp was ported from: same
leftmost-first semantics, same syntax up to the differences :mod:`.syntax` handles.

What Go's methods add on top of a search, reproduced here on UTF-8 byte offsets as Go works:
``FindAll``'s ``n`` and its rule that an empty match right after a match is dropped,
``ReplaceAll``'s loop (no replacement for an empty match abutting the previous one) and
``Expand``'s ``$1`` / ``${name}`` / ``$$``, and ``Split``'s ``n``.

Known differences left (none seen in charts): characters assigned after Unicode 15.0 (Go 1.26's
tables) fall in RE2's newer ``\\p`` classes (but C, Cn, LC and Assigned are Go's ranges);
"expression nests too deeply" counts nested capture groups where Go measures its parse tree;
and a huge Unicode class (``\\pL{1000}``) compiles far slower than in Go (``bench/regex.py``).
"""
from __future__ import annotations

import functools
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable

from helm_core.golib import goutf8
from helm_core.golib.goregexp.syntax import GoSyntaxError, Translation
from helm_core.support import patterns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["GoSyntaxError", "Regexp", "compile", "quote_meta", "valid"]

#: Compiled patterns kept per process (charts reuse a handful of patterns).
CACHE_SIZE = 512
#: RE2's memory budget per pattern: Go accepts programs up to ~3M instructions
#: (``\pL{1000}`` is 1.2M), RE2's default 8 MiB refuses them.
MAX_MEM = 64 << 20
#: Called every PROGRESS_EVERY matches of one search through a text (``FindAll``, ``ReplaceAll``):
#: a text of millions of matches is one template function call, out of the runtime's checks, so
#: the template runtime installs its budget's tick here (:mod:`helm_core.gotemplate.funcs.regex`).
PROGRESS_EVERY = 4096


def _no_progress() -> None:
    pass


progress: Callable[[], None] = _no_progress

Spans = tuple[tuple[int, int], ...]


@functools.cache
def _re2() -> tuple[Any, Any]:
    """(the re2 module, RE2 options): imported at the first pattern, as most runs compile none
    (importing the extension costs several ms of every start-up)."""
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would print every refused pattern on stderr
    options.max_mem = MAX_MEM
    return re2, options


#: An invalid UTF-8 byte, as Python's surrogateescape keeps it in a str (compiled on first use,
#: helm_core.support.patterns: ASCII subjects, nearly all, never need it).
_ESCAPED_BYTE = patterns.on_first_use("([\udc80-\udcff])")
_REPLACEMENT = "\ufffd".encode()


def encode(text: str) -> bytes:
    """A Go string's bytes: invalid UTF-8 kept as Python's surrogate escapes."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate no Go string can hold: Go's U+FFFD
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" and not "\udc80" <= c <= "\udcff" else c
                       for c in text).encode("utf-8", "surrogateescape")


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


class _Subject:
    """A Go string as RE2 searches it. Go reads each invalid UTF-8 byte as U+FFFD (one byte
    wide); RE2 would not match it at all. So RE2 searches ``text``, where each such byte is
    U+FFFD, and :meth:`piece` cuts the original bytes by offsets in ``text``."""

    __slots__ = ("data", "text", "_origin")

    def __init__(self, s: str) -> None:
        self.data = encode(s)
        self._origin: list[int] | None = None
        if s.isascii() or _ESCAPED_BYTE().search(s) is None:
            self.text = self.data
            return
        text, origin, at = bytearray(), [], 0
        for i, piece in enumerate(_ESCAPED_BYTE().split(s)):  # text, escaped byte, text, ...
            if i % 2:
                text += _REPLACEMENT
                origin.extend([at] * len(_REPLACEMENT))
                at += 1
            else:
                raw = encode(piece)
                text += raw
                origin.extend(range(at, at + len(raw)))
                at += len(raw)
        origin.append(at)
        self.text = bytes(text)
        self._origin = origin

    def origin(self, offset: int) -> int:
        """The offset in the original bytes of an offset in ``text`` (at a rune boundary)."""
        return offset if self._origin is None else self._origin[offset]

    def piece(self, start: int, stop: int) -> bytes:
        return self.data[self.origin(start):self.origin(stop)]


def _rune_width(data: bytes, pos: int) -> int:
    """``utf8.DecodeRune``'s width at ``pos``: 0 at the end, 1 for an invalid byte."""
    return goutf8.decode_rune(data, pos)[1]


def _inside_rune(data: bytes, pos: int) -> bool:
    """Whether ``pos`` falls between the bytes of one (valid) UTF-8 sequence."""
    if pos >= len(data) or data[pos] & 0xC0 != 0x80:
        return False
    for lead in range(pos - 1, max(pos - 4, -1), -1):
        if data[lead] & 0xC0 != 0x80:
            return lead + _rune_width(data, lead) > pos
    return False


class Regexp:
    """A compiled Go pattern (``*regexp.Regexp``)."""

    def __init__(self, expr: str) -> None:
        translation = Translation(expr)
        re2, options = _re2()
        try:
            self._re = re2.compile(encode(translation.re2), options)
        except re2.error as exc:
            raw = exc.args[0] if exc.args else b""
            message = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else str(raw)
            raise translation.go_error(message) from None
        if translation.go_only is not None:
            raise translation.go_only[1]
        self.expr = expr
        #: Go's SubexpNames.
        self.names = translation.names
        self._groups = range(self._re.groups + 1)
        #: RE2's instruction count (what the pattern costs in memory).
        self.program_size: int = self._re.programsize

    def __repr__(self) -> str:
        return f"goregexp.compile({self.expr!r})"

    # -- searches on bytes (Go's doExecute) ------------------------------------------------

    def _execute(self, data: bytes, pos: int, groups: bool) -> Spans | None:
        """The leftmost-first match at or after ``pos`` (Go's ``doExecute``)."""
        while True:
            m = self._re.search(data, pos)
            if m is None:
                return None
            start, stop = m.span()
            # RE2 steps bytes: its \B also holds between the bytes of one character, where
            # Go (stepping runes) never looks. Such a match is not Go's: look again further on.
            if not (_inside_rune(data, start) or _inside_rune(data, stop)):
                return tuple(m.span(g) for g in self._groups) if groups else ((start, stop),)
            pos = start + 1

    def _all(self, data: bytes, n: int, groups: bool = False) -> list[Spans]:
        """Go's ``allMatches``: no empty match right after the previous match; at most n (n < 0: all)."""
        out: list[Spans] = []
        end = len(data)
        pos, prev_end = 0, -1
        while (n < 0 or len(out) < n) and pos <= end:
            spans = self._execute(data, pos, groups)
            if spans is None:
                break
            start, stop = spans[0]
            accept = True
            if stop == pos:
                if start == prev_end:
                    accept = False
                width = _rune_width(data, pos)
                pos = pos + width if width else end + 1
            else:
                pos = stop
            prev_end = stop
            if accept:
                out.append(spans)
                if not len(out) % PROGRESS_EVERY:
                    progress()
        return out

    # -- Go's string methods ---------------------------------------------------------------

    def match_string(self, s: str) -> bool:
        """``MatchString``."""
        return self._execute(_Subject(s).text, 0, False) is not None

    def find_string(self, s: str) -> str:
        """``FindString``: the leftmost match, "" when none."""
        subject = _Subject(s)
        spans = self._execute(subject.text, 0, False)
        return decode(subject.piece(*spans[0])) if spans else ""

    def find_all_string(self, s: str, n: int) -> list[str]:
        """``FindAllString``."""
        subject = _Subject(s)
        return [decode(subject.piece(*spans[0])) for spans in self._all(subject.text, n)]

    def find_all_string_index(self, s: str, n: int) -> list[tuple[int, int]]:
        """``FindAllStringIndex`` (byte offsets, as Go's)."""
        subject = _Subject(s)
        return [(subject.origin(a), subject.origin(b)) for (a, b), *_ in self._all(subject.text, n)]

    def _replace_all(self, subject: _Subject, groups: bool, repl: Callable[[Spans], bytes]) -> str:
        """Go's ``replaceAll`` loop."""
        src = subject.text
        out: list[bytes] = []
        last_end = search_pos = 0
        end = len(src)
        found = 0
        while search_pos <= end:
            spans = self._execute(src, search_pos, groups)
            if spans is None:
                break
            found += 1
            if not found % PROGRESS_EVERY:
                progress()
            start, stop = spans[0]
            out.append(subject.piece(last_end, start))
            # No replacement for an empty match right after another match.
            if stop > last_end or start == 0:
                out.append(repl(spans))
            last_end = stop
            width = _rune_width(src, search_pos)
            if search_pos + width > stop:
                search_pos += width
            elif search_pos + 1 > stop:
                search_pos += 1  # at the end of the input, where the width is 0
            else:
                search_pos = stop
        out.append(subject.piece(last_end, end))
        return decode(b"".join(out))

    def replace_all_string(self, src: str, repl: str) -> str:
        """``ReplaceAllString``: ``repl`` expanded as ``Expand`` does."""
        subject, template = _Subject(src), encode(repl)
        if b"$" not in template:
            return self._replace_all(subject, False, lambda _spans: template)
        return self._replace_all(subject, True, lambda spans: self._expand(template, subject, spans))

    def replace_all_literal_string(self, src: str, repl: str) -> str:
        """``ReplaceAllLiteralString``."""
        template = encode(repl)
        return self._replace_all(_Subject(src), False, lambda _spans: template)

    def _expand(self, template: bytes, subject: _Subject, spans: Spans) -> bytes:
        """Go's ``Regexp.expand``: ``$n``, ``${n}``, ``$name``, ``${name}``, ``$$``; unknown names expand to ""."""
        out: list[bytes] = []
        while template:
            before, dollar, after = template.partition(b"$")
            if not dollar:
                break
            out.append(before)
            template = after
            if template.startswith(b"$"):
                out.append(b"$")
                template = template[1:]
                continue
            parsed = _extract(template)
            if parsed is None:
                out.append(b"$")  # malformed: the $ is text
                continue
            name, num, template = parsed
            if num >= 0:
                if num < len(spans) and spans[num][0] >= 0:
                    out.append(subject.piece(*spans[num]))
            else:
                for i, group in enumerate(self.names):
                    if group == name and i < len(spans) and spans[i][0] >= 0:
                        out.append(subject.piece(*spans[i]))
                        break
        out.append(template)
        return b"".join(out)

    def split(self, s: str, n: int) -> list[str]:
        """``Split``: at most n pieces (n < 0: all); n == 0 gives none."""
        if n == 0:
            return []
        if self.expr and not s:
            return [""]
        subject = _Subject(s)
        pieces: list[str] = []
        beg = end = 0
        for (start, stop), *_ in self._all(subject.text, n):
            if n > 0 and len(pieces) == n - 1:
                break
            end = start
            if stop != 0:
                pieces.append(decode(subject.piece(beg, end)))
            beg = stop
        if end != len(subject.text):
            pieces.append(decode(subject.piece(beg, len(subject.text))))
        return pieces


def _extract(template: bytes) -> tuple[str, int, bytes] | None:
    """Go's ``extract``: (name, number or -1, rest) after a ``$``, or None when malformed."""
    text = decode(template)
    brace = text.startswith("{")
    body = text[1:] if brace else text
    i = 0
    while i < len(body) and (body[i] == "_" or body[i].isalpha() or _is_go_digit(body[i])):
        i += 1
    if i == 0:
        return None
    name = body[:i]
    if brace:
        if i >= len(body) or body[i] != "}":
            return None
        i += 1
    num = -1 if not name.isascii() or not name.isdigit() or len(name) > 1 and name[0] == "0" else int(name)
    if num >= 10 ** 8:
        num = -1
    return name, num, encode(body[i:])


def _is_go_digit(ch: str) -> bool:
    """``unicode.IsDigit``: category Nd."""
    return unicodedata.category(ch) == "Nd"


class _Cache:
    """Compiled patterns by text, least recently used first out. Programs over
    LARGE_PROGRAM instructions (``\\pL{1000}`` is 1.2 million, tens of MB) get only a few
    places: a chart making many of them must not keep them all alive."""

    def __init__(self, size: int, large: int) -> None:
        self._sizes = {False: size, True: large}
        self._entries: dict[bool, OrderedDict[str, Regexp]] = {False: OrderedDict(), True: OrderedDict()}
        self._lock = threading.Lock()

    def get(self, expr: str) -> Regexp | None:
        with self._lock:
            for entries in self._entries.values():
                found = entries.get(expr)
                if found is not None:
                    entries.move_to_end(expr)
                    return found
        return None

    def put(self, rx: Regexp) -> None:
        large = rx.program_size > LARGE_PROGRAM
        with self._lock:
            entries = self._entries[large]
            entries[rx.expr] = rx
            if len(entries) > self._sizes[large]:
                entries.popitem(last=False)


#: Instructions above which a compiled program counts as large for the cache.
LARGE_PROGRAM = 20_000
#: How many large programs are kept.
LARGE_CACHE_SIZE = 2
_CACHE = _Cache(CACHE_SIZE, LARGE_CACHE_SIZE)


def compile(expr: str) -> Regexp:  # noqa: A001 - Go's name, as regexp.Compile
    """``regexp.Compile``: raises GoSyntaxError with Go's text."""
    rx = _CACHE.get(expr)
    if rx is None:
        rx = Regexp(expr)
        _CACHE.put(rx)
    return rx


def valid(expr: str) -> bool:
    """Whether Go's ``regexp.Compile`` accepts ``expr``."""
    try:
        compile(expr)
    except GoSyntaxError:
        return False
    return True


_SPECIAL = frozenset("\\.+*?()|[]{}^$")


def quote_meta(s: str) -> str:
    """``regexp.QuoteMeta``: a backslash before each of ``\\.+*?()|[]{}^$``."""
    return "".join("\\" + ch if ch in _SPECIAL else ch for ch in s)
