"""Go ``regexp/syntax`` on top of RE2 C++: what Go accepts, what it refuses, in Go's words.

Go's regexp was ported from RE2, so the two parse the same language with a few differences,
each handled here (``tests/goregexp/test_syntax.py`` checks every one against Go's answers):

* ``\\C`` (any byte) is RE2's alone: Go refuses it as an invalid escape;
* ``\\p{name}``: since Go 1.25 names are looked up case-insensitively, ignoring ``_ -`` and
  spaces, with aliases (``\\p{Letter}``), ``Any``, ``Assigned``, ``ASCII`` and ``LC``; multi-word
  scripts (``Old_Italic``) are unreachable in Go; and Go's ``C`` includes ``Cn``, which RE2
  lacks. Names are resolved against Go's own table (:mod:`unicode_names`) and given to RE2 as
  its names or as code point ranges;
* ``(?<=x)`` / ``(?<!x)`` are "invalid named capture" in Go, "invalid perl operator" in RE2;
* more than 1000 nested capture groups: Go's "expression nests too deeply";
* RE2's error texts ("missing ]", "bad repetition operator"...) become Go's, with the same
  argument, as ``error parsing regexp: <code>: `<arg>```.

Patterns and subjects are handed to RE2 as UTF-8 bytes (Python strings from invalid UTF-8
keep their bytes as surrogate escapes), so offsets are Go's byte offsets.
"""
from __future__ import annotations

import functools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Go's maxHeight: deeper nesting is "expression nests too deeply".
MAX_NESTING = 1000
#: Unicode's last code point.
MAX_RUNE = 0x10FFFF

# RE2 C++'s error texts -> Go's ErrorCode texts (the argument after ": " is the same in both).
_RE2_TO_GO = {
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "no argument for repetition operator": "missing argument to repetition operator",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "invalid named capture group": "invalid named capture",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
}
_POSIX_SUFFIX = ":]"


class GoSyntaxError(ValueError):
    """A pattern Go's ``regexp.Compile`` refuses; ``str()`` is Go's ``*syntax.Error`` text."""

    def __init__(self, code: str, arg: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{arg}`")
        self.code = code
        self.arg = arg


def canonical(name: str) -> str:
    """Go's ``canonicalName``: ASCII letters, first upper and the rest lower; ``_ -`` and spaces dropped."""
    out: list[str] = []
    for c in name:
        if c in "_- ":
            continue
        if not out:
            out.append(c.upper() if "a" <= c <= "z" else c)
        else:
            out.append(c.lower() if "A" <= c <= "Z" else c)
    return "".join(out)


def _class_body(ranges: list[tuple[int, int]]) -> str:
    return "".join(f"\\x{{{lo:X}}}" if lo == hi else f"\\x{{{lo:X}}}-\\x{{{hi:X}}}" for lo, hi in ranges)


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in sorted(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = max(nxt, hi + 1)
    if nxt <= MAX_RUNE:
        out.append((nxt, MAX_RUNE))
    return out


@functools.cache
def _unicode_names() -> Any:
    """Go's table of class names: imported at the first ``\\p``, which few patterns have."""
    from helm_core.golib.goregexp import unicode_names

    return unicode_names


def _ranges(table: str) -> list[tuple[int, int]]:
    if table == "Ascii":
        return [(0, 0x7F)]
    if table == "Assigned":
        return _complement(_unicode_names().RANGES["Cn"])
    return list(_unicode_names().RANGES[table])


def unicode_class(name: str, negate: bool, in_class: bool) -> str | None:
    """RE2 text for Go's ``\\p{name}`` (``\\P`` when ``negate``), or None when Go knows no such name."""
    if name.startswith("^"):
        negate, name = not negate, name[1:]
    table = _unicode_names().NAMES.get(canonical(name))
    if table is None:
        return None
    if table == "Any" or table not in _unicode_names().RANGES and table not in ("Ascii", "Assigned"):
        return f"\\{'P' if negate else 'p'}{{{table}}}"
    ranges = _ranges(table)
    if in_class:
        return _class_body(_complement(ranges) if negate else ranges)
    return ("[^" if negate else "[") + _class_body(ranges) + "]"


class Translation:
    """A Go pattern read the way Go's parser reads it: the RE2 text, the capture names, and
    the first error Go reports that RE2 would not (with its position)."""

    def __init__(self, expr: str) -> None:
        self.expr = expr
        self.out: list[str] = []
        #: Go's SubexpNames: "" for the whole match and unnamed groups.
        self.names: list[str] = [""]
        self.go_only: tuple[int, GoSyntaxError] | None = None
        self._named_opens: list[int] = []
        self._scan()
        self.re2 = "".join(self.out)

    def _refuse(self, pos: int, code: str, arg: str) -> None:
        if self.go_only is None:
            self.go_only = (pos, GoSyntaxError(code, arg))

    def _scan(self) -> None:
        expr, n = self.expr, len(self.expr)
        i, depth = 0, 0
        opened: list[bool] = []  # per open "(": is it a capture (only those nest in Go's tree)
        while i < n:
            c = expr[i]
            if c == "\\":
                i = self._escape(i, in_class=False)
                continue
            if c == "[":
                i = self._char_class(i)
                continue
            if c == "(":
                capture = self._group_name(i) if expr.startswith("(?", i) else True
                if capture and not expr.startswith("(?", i):
                    self.names.append("")
                opened.append(capture)
                depth += capture
                if depth + 1 > MAX_NESTING:
                    self._refuse(i, "expression nests too deeply", expr)
            elif c == ")" and opened:
                depth -= opened.pop()
            self.out.append(c)
            i += 1

    def _group_name(self, i: int) -> bool:
        """Record a ``(?P<name>`` / ``(?<name>`` capture's name; False for other ``(?`` groups."""
        expr = self.expr
        begin = 4 if expr.startswith("(?P<", i) else 3 if expr.startswith("(?<", i) else 0
        if not begin:
            return False
        self._named_opens.append(i)
        end = expr.find(">", i)
        if end >= 0:
            self.names.append(expr[i + begin:end])
        return True

    def _escape(self, i: int, *, in_class: bool) -> int:
        expr = self.expr
        nxt = expr[i + 1:i + 2]
        if nxt == "Q" and not in_class:
            end = expr.find("\\E", i + 2)
            stop = len(expr) if end < 0 else end + 2
            self.out.append(expr[i:stop])
            return stop
        if nxt == "C":
            self._refuse(i, "invalid escape sequence", "\\C")
        if nxt in ("p", "P"):
            return self._unicode(i, in_class=in_class)
        self.out.append(expr[i:i + 2])
        return i + 2

    def _unicode(self, i: int, *, in_class: bool) -> int:
        expr = self.expr
        if expr.startswith("{", i + 2):
            end = expr.find("}", i)
            if end < 0:
                self.out.append(expr[i:])  # RE2 refuses it with Go's argument
                return len(expr)
            seq, name = expr[i:end + 1], expr[i + 3:end]
        else:
            seq = expr[i:i + 3]
            name = seq[2:]
        text = unicode_class(name, expr[i + 1] == "P", in_class) if name else None
        if text is None:
            if name:
                self._refuse(i, "invalid character class range", seq)
            self.out.append(seq)
        else:
            self.out.append(text)
        return i + len(seq)

    def _char_class(self, i: int) -> int:
        expr, n = self.expr, len(self.expr)
        start = i
        i += 1
        if expr.startswith("^", i):
            i += 1
        self.out.append(expr[start:i])
        first = True
        while i < n and (expr[i] != "]" or first):
            first = False
            if expr.startswith("[:", i) and n - i > 2:
                end = expr.find(_POSIX_SUFFIX, i + 2)
                if end >= 0:
                    self.out.append(expr[i:end + 2])
                    i = end + 2
                    continue
            if expr[i] == "\\":
                i = self._escape(i, in_class=True)
            else:
                self.out.append(expr[i])
                i += 1
        if i < n:
            self.out.append("]")
            i += 1
        return i

    def go_error(self, re2_message: str) -> GoSyntaxError:
        """Go's error for a pattern RE2 refused with ``re2_message``."""
        if re2_message.startswith("trailing \\"):
            error = GoSyntaxError("trailing backslash at end of expression", "")
        elif re2_message.startswith("pattern too large"):
            error = GoSyntaxError("expression too large", self.expr)
        else:
            text, _, arg = re2_message.partition(": ")
            error = GoSyntaxError(_RE2_TO_GO.get(text, text), arg)
            if text == "invalid perl operator" and arg.startswith("(?<"):
                error = self._lookbehind_error()
            elif text == "invalid UTF-8":  # Go's argument: the rest of the pattern from the bad byte
                bad = next((i for i, ch in enumerate(self.expr) if "\udc80" <= ch <= "\udcff"), 0)
                error = GoSyntaxError(error.code, self.expr[bad:])
        if self.go_only is not None:
            pos, go_only = self.go_only
            found = self.expr.find(error.arg) if error.arg and error.arg != self.expr else len(self.expr)
            if found < 0 or pos < found:
                return go_only
        return error

    def _lookbehind_error(self) -> GoSyntaxError:
        """Go reads ``(?<`` as a named capture: the text up to ``>`` (or the rest) is its argument."""
        for pos in self._named_opens:
            rest = self.expr[pos:]
            end = rest.find(">")
            if end < 0:
                return GoSyntaxError("invalid named capture", rest)
            name = rest[3:end] if rest.startswith("(?<") else rest[4:end]
            if not name or not all(ch == "_" or ch.isalnum() and ch.isascii() for ch in name):
                return GoSyntaxError("invalid named capture", rest[:end + 1])
        return GoSyntaxError("invalid or unsupported Perl syntax", "(?<")
