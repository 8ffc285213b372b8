"""Go RE2 pattern syntax translated to Python ``re`` syntax: :func:`translate`.

Why: Sprig's regex functions take Go patterns; Python's engine has the same
leftmost-first semantics but a different dialect. Rules applied:

* ``\\d \\w \\s \\b \\B`` are ASCII-only as in Go; ``\\z`` is ``\\Z``; ``$`` is the end of
  text unless ``m`` is set; ``\\Q...\\E`` quotes; ``\\x{HHHH}``; ``\\pL``/``\\p{Lu}``/``\\PN``
  general categories; ``[[:alpha:]]`` POSIX classes; ``(?<name>)`` and duplicate
  group names (later duplicates become plain groups, Go resolves names leftmost);
* flags: ``(?flags)`` at the start is global, later ones scope to the rest of
  their group; ``U`` (ungreedy) swaps greedy and lazy quantifiers;
* ``{,n}`` is literal text as in Go; Go's errors are raised for what RE2 rejects
  and Python accepts: lookarounds, backreferences, possessive/nested repetition,
  repeat counts over 1000.

Not supported: script classes (``\\p{Greek}``), which raise ``re.error``.
"""
from __future__ import annotations

import functools
import re
import unicodedata

#: RE2's maximum repeat count.
MAX_REPEAT = 1000

_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
          "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
          "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_",
          "xdigit": "0-9A-Fa-f"}
_PERL = {"d": "0-9", "w": "0-9A-Za-z_", "s": "\\t\\n\\f\\r "}
_WORD = "[0-9A-Za-z_]"
_WORD_BOUNDARY = f"(?:(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD}))"
_NOT_WORD_BOUNDARY = f"(?:(?<={_WORD})(?={_WORD})|(?<!{_WORD})(?!{_WORD}))"
_FLAGS = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")
_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")


class GoSyntaxError(ValueError):
    """A pattern RE2 rejects; ``message`` is Go's text after ``error parsing regexp: ``."""


def _escape_code(code: int) -> str:
    return f"\\U{code:08x}" if code > 0xFFFF else f"\\u{code:04x}"


@functools.lru_cache(maxsize=64)
def category_ranges(name: str) -> str:
    """A character-class body for Unicode general category ``name`` (``L``, ``Lu``, ``Nd``...)."""
    if not name or not name.isalpha() or len(name) > 2 or not name[0].isupper():
        raise re.error("invalid character class range", name, 0)
    ranges: list[tuple[int, int]] = []
    for code in range(0x110000):
        if unicodedata.category(chr(code)).startswith(name):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    if not ranges:
        raise re.error("invalid character class range", name, 0)
    return "".join(_escape_code(a) if a == b else f"{_escape_code(a)}-{_escape_code(b)}" for a, b in ranges)


class _Translator:
    def __init__(self, expr: str) -> None:
        self.expr = expr
        self.out: list[str] = []
        self.i = 0
        self.in_class = False
        self.ungreedy = False
        self.multiline = False
        self.scopes: list[str] = []
        self.stack: list[tuple[bool, bool, list[str]]] = []
        self.names: set[str] = set()

    def run(self) -> str:
        expr = self.expr
        while self.i < len(expr):
            c = expr[self.i]
            if c == "\\" and self.i + 1 < len(expr):
                self.escape()
            elif self.in_class:
                self.class_char(c)
            elif c == "[":
                self.open_class()
            elif c == "(":
                self.group()
            elif c == ")":
                self.out.append(")" * (len(self.scopes) + 1))
                if self.stack:
                    self.ungreedy, self.multiline, self.scopes = self.stack.pop()
                self.i += 1
            elif c == "|" and self.scopes:
                # Go's mid-group flags cover every later alternative: close and reopen the scopes.
                self.out.append(")" * len(self.scopes) + "|" + "".join(f"(?{t}:" for t in self.scopes))
                self.i += 1
            elif c in "*+?":
                self.i += 1
                self.quantifier(c)
            elif c == "{":
                self.brace()
            elif c == "$":
                self.out.append("$" if self.multiline else "\\Z")
                self.i += 1
            else:
                self.out.append(c)
                self.i += 1
        self.out.append(")" * len(self.scopes))
        return "".join(self.out)

    def quantifier(self, text: str) -> None:
        """Emit a repetition operator with Go's nesting rule and the ``U`` flag."""
        expr = self.expr
        lazy = expr.startswith("?", self.i)
        if lazy:
            self.i += 1
        nxt = expr[self.i:self.i + 1]
        if nxt in ("*", "+", "?") or nxt == "{" and _REPEAT.match(expr, self.i):
            raise GoSyntaxError(f"invalid nested repetition operator: `{text}{'?' if lazy else ''}{nxt}`")
        self.out.append(text + ("?" if lazy != self.ungreedy else ""))

    def brace(self) -> None:
        m = _REPEAT.match(self.expr, self.i)
        if not m:
            self.out.append("\\{")
            self.i += 1
            return
        low, high = int(m.group(1)), m.group(3)
        if low > MAX_REPEAT or high and (int(high) > MAX_REPEAT or int(high) < low):
            raise GoSyntaxError(f"invalid repeat count: `{m.group(0)}`")
        self.i = m.end()
        self.quantifier(m.group(0))

    def group(self) -> None:
        expr, i = self.expr, self.i
        if expr.startswith(("(?=", "(?!"), i):
            raise GoSyntaxError(f"invalid or unsupported Perl syntax: `{expr[i:i + 3]}`")
        if expr.startswith(("(?<=", "(?<!"), i):
            end = expr.find(")", i)
            raise GoSyntaxError(f"invalid named capture: `{expr[i:end + 1] if end > 0 else expr[i:]}`")
        named = re.match(r"\(\?P?<([A-Za-z0-9_]+)>", expr[i:])
        flags = _FLAGS.match(expr, i)
        if named:
            self._push()
            name = named.group(1)
            self.out.append("(" if name in self.names else f"(?P<{name}>")
            self.names.add(name)
            self.i += named.end()
        elif flags:
            self.flags(flags)
        else:
            self._push()
            self.out.append("(")
            self.i += 1

    def _push(self) -> None:
        self.stack.append((self.ungreedy, self.multiline, self.scopes))
        self.scopes = []

    def flags(self, m: re.Match[str]) -> None:
        on, off, term = m.group(1), m.group(2) or "", m.group(3)
        ungreedy = (self.ungreedy or "U" in on) and "U" not in off
        multiline = (self.multiline or "m" in on) and "m" not in off
        py_on = "".join(f for f in on if f in "ims")
        py_off = "".join(f for f in off if f in "ims")
        text = py_on + ("-" + py_off if py_off else "")
        self.i = m.end()
        if term == ":":
            self._push()
            self.out.append(f"(?{text}:" if text else "(?:")
        elif m.start() == 0 and not py_off:
            if py_on:
                self.out.append(f"(?{py_on})")
        elif text:
            self.out.append(f"(?{text}:")
            self.scopes.append(text)
        self.ungreedy, self.multiline = ungreedy, multiline

    def open_class(self) -> None:
        expr = self.expr
        self.in_class = True
        self.out.append("[")
        self.i += 1
        if expr.startswith("^", self.i):
            self.out.append("^")
            self.i += 1
        if expr.startswith("]", self.i):
            self.out.append("\\]")
            self.i += 1

    def class_char(self, c: str) -> None:
        expr, i = self.expr, self.i
        if expr.startswith("[:", i):
            end = expr.find(":]", i + 2)
            name = expr[i + 2:end] if end > 0 else ""
            if name in _POSIX:
                self.out.append(_POSIX[name])
                self.i = end + 2
                return
        if c == "[":
            self.out.append("\\[")
        else:
            if c == "]":
                self.in_class = False
            self.out.append(c)
        self.i += 1

    def escape(self) -> None:
        expr, i = self.expr, self.i
        nxt = expr[i + 1]
        self.i += 2
        if nxt == "z":
            self.out.append("\\Z")
        elif nxt in "pP":
            if expr.startswith("{", i + 2):
                end = expr.find("}", i + 3)
                if end < 0:
                    raise GoSyntaxError(f"invalid character class range: `{expr[i:]}`")
                name, self.i = expr[i + 3:end], end + 1
            else:
                name, self.i = expr[i + 2:i + 3], i + 3
            body = category_ranges(name)
            negate = nxt == "P"
            self.out.append(body if self.in_class and not negate else ("[^" if negate else "[") + body + "]")
        elif nxt == "Q":
            end = expr.find("\\E", i + 2)
            self.out.append(re.escape(expr[i + 2:] if end < 0 else expr[i + 2:end]))
            self.i = len(expr) if end < 0 else end + 2
        elif nxt == "x" and expr.startswith("{", i + 2):
            end = expr.find("}", i + 3)
            if end < 0:
                raise GoSyntaxError(f"invalid escape sequence: `{expr[i:]}`")
            self.out.append(_escape_code(int(expr[i + 3:end], 16)))
            self.i = end + 1
        elif nxt.isdigit() and nxt != "0" or nxt == "Z":
            raise GoSyntaxError(f"invalid escape sequence: `\\{nxt}`")
        elif nxt.lower() in _PERL:
            body = _PERL[nxt.lower()]
            if self.in_class:
                self.out.append(body if nxt.islower() else "\\" + nxt)
            else:
                self.out.append(("[" if nxt.islower() else "[^") + body + "]")
        elif nxt in "bB" and not self.in_class:
            self.out.append(_WORD_BOUNDARY if nxt == "b" else _NOT_WORD_BOUNDARY)
        else:
            self.out.append("\\" + nxt)


def translate(expr: str) -> str:
    """The Python ``re`` pattern for Go pattern ``expr``; raises GoSyntaxError or re.error."""
    return _Translator(expr).run()
