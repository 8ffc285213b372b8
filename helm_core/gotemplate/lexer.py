"""Lexer for Go's text/template: a loop-driven state machine (Go's ``parse/lex.go``).

Each ``lex_*`` state method consumes input and returns the next state; :func:`lex` runs
the states in a loop and returns every item at once (no goroutine, nothing to drain);
the parser reads them as plain tuples (:func:`lex_raw`), :func:`lex` as :class:`Item`.
Inside an action one loop dispatches on the next character, with regular-expression fast
paths for runs of spaces, names and quoted text. An error becomes one final ``ERROR``
item, so the parser meets it exactly where Go's does.

That exact state machine is the fallback of a faster one (:meth:`_Lexer.lex_fast`, on
unless ``fast=False``): one regular expression tokenises the common case, text and
actions of ordinary tokens, and any action holding anything else (a comment, an error, an
unusual number or character) is handed to the exact states whole. Both give the same
items; tests/gotemplate/test_lexer_fast_path.py compares them.

Rules kept from Go: trim markers are ``{{- `` and `` -}}`` (the space is required) and
trim all ASCII space next to the action; comments ``{{/* */}}`` must touch their
delimiters; ``break``/``continue`` are keywords unless a function has that name;
positions are character offsets into the template text, lines are 1-based.
"""
from __future__ import annotations

import re
from collections import namedtuple

from helm_core.golib import gostrconv
from helm_core.support import patterns

# Names for type checkers only: importing typing is start-up time the CLI's render path
# otherwise does without (bench/deferred.py). Type checkers take this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, Final, NamedTuple, Optional, TypeAlias

LEFT_DELIM = "{{"
RIGHT_DELIM = "}}"
LEFT_COMMENT = "/*"
RIGHT_COMMENT = "*/"
TRIM_MARKER = "-"
SPACE_CHARS = " \t\r\n"


class ItemType:
    """Kinds of lexical items; keywords sort after ``KEYWORD`` as in Go.

    Members are singletons compared (and hashed) by identity, each with a ``name`` and a
    ``value`` as an Enum's members have. A plain class: building an ``enum.Enum`` of these
    members was ~0.9 ms of every process that lexes (bench/startup.py's figure for the lexer).
    """

    __slots__ = ("name", "value")

    # The members, in Go's order (values 1, 2, ...: set below from these annotations).
    ERROR: ClassVar[ItemType]
    BOOL: ClassVar[ItemType]
    CHAR: ClassVar[ItemType]
    CHAR_CONSTANT: ClassVar[ItemType]
    COMMENT: ClassVar[ItemType]
    COMPLEX: ClassVar[ItemType]
    ASSIGN: ClassVar[ItemType]
    DECLARE: ClassVar[ItemType]
    EOF: ClassVar[ItemType]
    FIELD: ClassVar[ItemType]
    IDENTIFIER: ClassVar[ItemType]
    LEFT_DELIM: ClassVar[ItemType]
    LEFT_PAREN: ClassVar[ItemType]
    NUMBER: ClassVar[ItemType]
    PIPE: ClassVar[ItemType]
    RAW_STRING: ClassVar[ItemType]
    RIGHT_DELIM: ClassVar[ItemType]
    RIGHT_PAREN: ClassVar[ItemType]
    SPACE: ClassVar[ItemType]
    STRING: ClassVar[ItemType]
    TEXT: ClassVar[ItemType]
    VARIABLE: ClassVar[ItemType]
    KEYWORD: ClassVar[ItemType]
    BLOCK: ClassVar[ItemType]
    BREAK: ClassVar[ItemType]
    CONTINUE: ClassVar[ItemType]
    DOT: ClassVar[ItemType]
    DEFINE: ClassVar[ItemType]
    ELSE: ClassVar[ItemType]
    END: ClassVar[ItemType]
    IF: ClassVar[ItemType]
    NIL: ClassVar[ItemType]
    RANGE: ClassVar[ItemType]
    TEMPLATE: ClassVar[ItemType]
    WITH: ClassVar[ItemType]

    def __init__(self, name: str, value: int) -> None:
        self.name = name
        self.value = value

    def __repr__(self) -> str:
        return f"<ItemType.{self.name}: {self.value}>"

    def __reduce__(self) -> tuple[Any, ...]:
        return getattr, (ItemType, self.name)  # by name, as an Enum member pickles

    @property
    def is_keyword(self) -> bool:
        return self.value > ItemType.KEYWORD.value


for _value, _name in enumerate(ItemType.__annotations__, start=1):
    setattr(ItemType, _name, ItemType(_name, _value))


KEYWORDS = {
    ".": ItemType.DOT,
    "block": ItemType.BLOCK,
    "break": ItemType.BREAK,
    "continue": ItemType.CONTINUE,
    "define": ItemType.DEFINE,
    "else": ItemType.ELSE,
    "end": ItemType.END,
    "if": ItemType.IF,
    "range": ItemType.RANGE,
    "nil": ItemType.NIL,
    "template": ItemType.TEMPLATE,
    "with": ItemType.WITH,
}


#: One token as the lexer makes it and the parser reads it: (kind, offset in the text,
#: literal text, starting line). A plain tuple: building a NamedTuple instance costs about
#: twice as much, once per token; :func:`lex` gives them as :class:`Item` for readers.
RawItem: TypeAlias = "tuple[ItemType, int, str, int]"
# A RawItem's fields by position (Final: type checkers then know each field's type).
TYP: Final = 0
POS: Final = 1
VAL: Final = 2
LINE: Final = 3


def item_str(item: RawItem) -> str:
    """Go's ``item.String()``, used in "unexpected X in Y" parse errors."""
    typ, _, val, _ = item
    if typ is ItemType.EOF:
        return "EOF"
    if typ is ItemType.ERROR:
        return val
    if typ.is_keyword:
        return f"<{val}>"
    if len(val) > 10:
        return gostrconv.quote(val[:10]) + "..."
    return gostrconv.quote(val)


if TYPE_CHECKING:
    class _Token(NamedTuple):
        typ: ItemType
        pos: int
        val: str
        line: int
else:  # the same tuple, without typing.NamedTuple's class machinery
    _Token = namedtuple("Item", ("typ", "pos", "val", "line"))


class Item(_Token):
    """One token with named fields: its kind, offset in the text, literal text and starting line."""

    __slots__ = ()

    def __str__(self) -> str:
        return item_str(self)


def is_alnum(ch: str) -> bool:
    """Go's ``isAlphaNumeric``: underscore, a Unicode letter or a Unicode digit."""
    return ch == "_" or ch.isalpha() or ch.isdigit()


_State: TypeAlias = "Optional[Callable[[], object]]"

# Fast paths; each stops where Go's rune-by-rune loop would have to look closer.
# Compiled on first use: a run whose parse trees come from the disk memo never lexes.
_SPACES = patterns.on_first_use(r"[ \t\r\n]+")
_ASCII_ALNUM = patterns.on_first_use(r"[A-Za-z0-9_]*")
_QUOTED_BODY = patterns.on_first_use(r'(?:[^"\\\n]|\\[^\n])*')
_CHAR_BODY = patterns.on_first_use(r"(?:[^'\\\n]|\\[^\n])*")
#: A comment's left delimiter (the fast loop stops its token scan there).
_COMMENT_OPEN = patterns.on_first_use(r"\{\{(?:-[ \t\r\n])?/\*")


class _Lexer:
    def __init__(
        self, text: str, break_ok: bool, continue_ok: bool, emit_comments: bool, fast: bool = True,
        compact: bool = False,
    ) -> None:
        self.text = text
        self.end = len(text)
        self.pos = 0
        self.start = 0
        self.paren_depth = 0
        self.items: list[RawItem] = []
        self.break_ok = break_ok
        self.continue_ok = continue_ok
        self.emit_comments = emit_comments
        #: Where lexing goes after text or an action: the fast loop, or the exact states only.
        self.text_state: _State = self.lex_fast if fast else self.lex_text
        #: Whether the fast loop leaves out spaces and gives a field chain as one item (see lex_raw).
        self.compact = compact
        #: Types of the whole tokens the fast loop only appends (see _plain_types).
        self.plain = _plain_types(break_ok, continue_ok)
        #: How far the fast loop's token scan may reach: past the last ``}}`` no action ends.
        self.scan_end = text.rfind(RIGHT_DELIM) + 2
        #: Whether the fast loop last stopped at a token it does not know (see lex_fast).
        self.stopped_short = False
        #: Where the next comment's ``{{`` is, at or after the fast loop's position (the text's
        #: length: none); found again only when passed (a search per entry would rescan the
        #: rest each time).
        self.comment_at = -1
        #: A position and its line: line_at counts newlines on from there (lexing moves forward).
        self.line_mark = (0, 1)

    # -- primitives -------------------------------------------------------
    def line_at(self, pos: int) -> int:
        """1 + the newlines before ``pos``."""
        mark, line = self.line_mark
        if pos < mark:
            mark, line = 0, 1
        line += self.text.count("\n", mark, pos)
        self.line_mark = (pos, line)
        return line

    def next(self) -> str:
        """The next character, or "" at the end (moving past it, so backup() undoes it)."""
        pos = self.pos
        self.pos = pos + 1
        return self.text[pos] if pos < self.end else ""

    def backup(self) -> None:
        self.pos -= 1

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < self.end else ""

    def emit(self, typ: ItemType) -> None:
        start = self.start
        # tuple.__new__ skips NamedTuple's Python-level __new__: emit runs once per token.
        self.items.append((typ, start, self.text[start : self.pos], self.line_at(start)))
        self.start = self.pos

    def ignore(self) -> None:
        self.start = self.pos

    def accept(self, valid: str) -> bool:
        ch = self.next()
        if ch != "" and ch in valid:
            return True
        self.backup()
        return False

    def accept_run(self, valid: str) -> None:
        text, pos, end = self.text, self.pos, self.end
        while pos < end and text[pos] in valid:
            pos += 1
        self.pos = pos

    def error(self, msg: str) -> None:
        """End lexing with an ERROR item (the caller then returns None)."""
        self.items.append((ItemType.ERROR, self.start, msg, self.line_at(self.start)))

    def at_right_delim(self) -> tuple[bool, bool]:
        t, p = self.text, self.pos
        if _has_right_trim(t, p) and t.startswith(RIGHT_DELIM, p + 2):
            return True, True
        if t.startswith(RIGHT_DELIM, p):
            return True, False
        return False, False

    def at_terminator(self) -> bool:
        ch = self.peek()
        if ch in _TERMINATORS:
            return True
        return self.text.startswith(RIGHT_DELIM, self.pos)

    def scan_alnum(self) -> str:
        """Consume Go's alphanumeric run; returns the first character that is not one."""
        text = self.text
        while True:
            self.pos = _match_end(_ASCII_ALNUM(), text, self.pos)
            ch = text[self.pos] if self.pos < self.end else ""
            if ch and ord(ch) >= 0x80 and is_alnum(ch):
                self.pos += 1
                continue
            return ch

    # -- states -------------------------------------------------------------
    def run(self) -> list[RawItem]:
        state: _State = self.text_state
        while state is not None:
            state = state()  # type: ignore[assignment]
        return self.items

    def lex_text(self) -> _State:
        t = self.text
        x = t.find(LEFT_DELIM, self.pos)
        if x >= 0:
            if x > self.pos:
                self.pos = x
                trim = 0
                if _has_left_trim(t, x + len(LEFT_DELIM)):
                    seg = t[self.start : self.pos]
                    trim = len(seg) - len(seg.rstrip(SPACE_CHARS))
                self.pos -= trim
                if self.pos > self.start:
                    self.emit(ItemType.TEXT)
                self.pos += trim
                self.ignore()
            return self.lex_left_delim
        self.pos = len(t)
        if self.pos > self.start:
            self.emit(ItemType.TEXT)
        self.emit(ItemType.EOF)
        return None

    def lex_left_delim(self) -> _State:
        self.pos += len(LEFT_DELIM)
        trim = _has_left_trim(self.text, self.pos)
        after = 2 if trim else 0
        if self.text.startswith(LEFT_COMMENT, self.pos + after):
            self.pos += after
            self.ignore()
            return self.lex_comment
        self.emit(ItemType.LEFT_DELIM)
        self.pos += after
        self.ignore()
        self.paren_depth = 0
        return self.lex_inside_action

    def lex_comment(self) -> _State:
        self.pos += len(LEFT_COMMENT)
        x = self.text.find(RIGHT_COMMENT, self.pos)
        if x < 0:
            self.error("unclosed comment")
            return None
        self.pos = x + len(RIGHT_COMMENT)
        delim, trim = self.at_right_delim()
        if not delim:
            self.error("comment ends before closing delimiter")
            return None
        item = (ItemType.COMMENT, self.start, self.text[self.start : self.pos], self.line_at(self.start))
        if trim:
            self.pos += 2
        self.pos += len(RIGHT_DELIM)
        if trim:
            self.pos += _left_trim_length(self.text, self.pos)
        self.ignore()
        if self.emit_comments:
            self.items.append(item)
        return self.text_state

    def lex_right_delim(self) -> _State:
        _, trim = self.at_right_delim()
        if trim:
            self.pos += 2
            self.ignore()
        self.pos += len(RIGHT_DELIM)
        self.emit(ItemType.RIGHT_DELIM)
        if trim:
            self.pos += _left_trim_length(self.text, self.pos)
            self.ignore()
        return self.text_state

    def lex_inside_action(self) -> _State:
        text = self.text
        while True:
            pos = self.pos
            if text.startswith(RIGHT_DELIM, pos) or (
                    _has_right_trim(text, pos) and text.startswith(RIGHT_DELIM, pos + 2)):
                if self.paren_depth == 0:
                    return self.lex_right_delim
                self.error("unclosed left paren")
                return None
            if pos >= self.end:
                self.error("unclosed action")
                return None
            ch = text[pos]
            self.pos = pos + 1
            if ch in SPACE_CHARS:
                self.pos = pos
                state = self.lex_space()
                if state is not None:
                    return state
                continue
            if ch == ".":
                if self.pos < self.end and not "0" <= text[self.pos] <= "9":
                    if self._field_or_variable(ItemType.FIELD) is None:
                        return None
                    continue
                self.pos = pos
                if self.lex_number() is None:
                    return None
                continue
            if is_alnum(ch) and not "0" <= ch <= "9":
                self.pos = pos
                if self.lex_identifier() is None:
                    return None
                continue
            if ch == "$":
                if self.lex_variable() is None:
                    return None
                continue
            if ch in "+-" or "0" <= ch <= "9":
                self.pos = pos
                if self.lex_number() is None:
                    return None
                continue
            if ch == "=":
                self.emit(ItemType.ASSIGN)
            elif ch == ":":
                if self.next() != "=":
                    self.error("expected :=")
                    return None
                self.emit(ItemType.DECLARE)
            elif ch == "|":
                self.emit(ItemType.PIPE)
            elif ch == '"':
                if self.lex_quote() is None:
                    return None
            elif ch == "`":
                if self.lex_raw_quote() is None:
                    return None
            elif ch == "'":
                if self.lex_char() is None:
                    return None
            elif ch == "(":
                self.paren_depth += 1
                self.emit(ItemType.LEFT_PAREN)
            elif ch == ")":
                self.paren_depth -= 1
                if self.paren_depth < 0:
                    self.error("unexpected right paren")
                    return None
                self.emit(ItemType.RIGHT_PAREN)
            elif ord(ch) < 0x80 and ch.isprintable():
                self.emit(ItemType.CHAR)
            else:
                self.error(f"unrecognized character in action: {_sharp_u(ch)}")
                return None

    def lex_fast(self) -> _State:
        """Text and actions made only of common tokens, in one loop (the fast path).

        One regex run covers an action's tokens, its ``}}``, the text after it and the
        next ``{{`` (see :data:`_STREAM_TOKEN`), so a template of common actions is lexed
        by a few regex calls and one loop over their matches. An action is committed at
        its ``}}`` when its parens balance; anything else (a comment, an error, an unusual
        token) drops the items of the unfinished action and the exact states lex it, from
        the text before it on. They come back here after it.

        The tokens are findall's, up to the first ``""`` (where no token matches). Past it
        findall goes on to the end of its window, work thrown away, so the window ends just
        past the next comment's opening (the usual stop) or at the last ``}}``. The window
        may end anywhere without changing the items, only where the exact states take over:
        a token it cuts short is never committed (no ``}}`` follows it inside the window).
        After a stop at an unknown token (more may come, each scanning on to the window's
        end), the run of tokens is measured first and bounds the window (the regex then
        passes over the tokens twice, as it always did before).
        """
        text, items = self.text, self.items
        commit = self.pos  # items before ``mark`` cover text[:commit] and are final
        x = text.find(LEFT_DELIM, commit)
        trimmed = _has_left_trim(text, x + 2)
        if x < 0 or text.startswith(LEFT_COMMENT, x + (4 if trimmed else 2)):
            return self.lex_text
        mark = len(items)
        append = items.append
        plain = self.plain
        commit_line = self.line_at(commit)
        pos, line = self.text_and_open(commit, x, trimmed, commit_line)
        depth = 0
        compact = self.compact
        stream = _STREAM[compact]()
        if self.comment_at < pos:
            found = _COMMENT_OPEN().search(text, pos)
            self.comment_at = found.start() if found else len(text)
        window = stop = min(self.comment_at + 6, self.scan_end)
        if self.stopped_short:
            run = _STREAM_RUN[compact]().match(text, pos)
            assert run is not None  # a run of zero tokens matches anywhere
            stop = run.end()
            # The run's tokens are findall's first matches, if findall sees far enough: a
            # truncated "-}}" would let a space run take the space the run left before it
            # (ending one past ``stop``), so the window reaches 4 characters past ``stop``.
            window = stop + 4
        self.stopped_short = True  # unless it stops at a comment or the last action, below
        for val in stream.findall(text, pos, window):
            if pos >= stop:
                break  # the end of the window next
            known = plain.get(val)
            if known is not None:  # the commonest case: a name, a keyword, a string met before...
                typ, lexeme, newlines, size = known
                append((typ, pos, lexeme, line))
                pos += size
                line += newlines
                continue
            if not val:
                break  # an unknown token next
            first = _FIRST_CHAR.get(val[0])
            if first is _SPACE or first is _RIGHT_DELIM:
                typ = first
            else:
                # A lexeme the compact stream gave with the spaces after it is known by its own
                # text (keywords and operators among them), else by its first character.
                lexeme = val.rstrip(SPACE_CHARS)
                known = plain.get(lexeme)
                if known is not None:
                    typ = known[0]
                else:
                    assert first is not None  # (a token no first character tells is a fixed one)
                    typ = first
            if typ is _SPACE:
                if "-" not in val:
                    if not compact:
                        append((typ, pos, val, line))
                    pos += len(val)
                    if "\n" in val:
                        line += val.count("\n")
                    continue
                typ = _RIGHT_DELIM  # a space and "-}}" (then maybe text and the next "{{")
            if typ is _RIGHT_DELIM:
                if depth:
                    break  # the exact states say "unclosed left paren"
                if val[0] == "}":
                    append((typ, pos, RIGHT_DELIM, line))
                    after = commit = pos + 2
                else:  # trimmed: the space and "-" belong to no item; spaces after go too
                    line += val[0] == "\n"
                    append((typ, pos + 2, RIGHT_DELIM, line))
                    after = pos + 4
                    commit = _match_end(_SPACES(), text, after)
                mark = len(items)
                end = pos + len(val)
                line += text.count("\n", pos + 2, commit)
                commit_line = line
                if end == after:
                    # No "{{" for this loop (a comment next, or none): the exact states lex the rest.
                    self.stopped_short = False
                    break
                # (The close token ends with "{{" or a trim marker: "{{- /*" cannot be one,
                # as a "-" starts no common token and the exact states take that action.)
                trimmed = val[-1] != "{"
                pos, line = self.text_and_open(commit, end - 4 if trimmed else end - 2, trimmed, line)
                continue
            if typ is _LEFT_PAREN:
                depth += 1
            elif typ is _RIGHT_PAREN:
                if depth == 0:
                    break  # the exact states say "unexpected right paren"
                depth -= 1
            newlines = val.count("\n", 0 if typ is _RAW_STRING else len(lexeme))
            if typ is not _LEFT_PAREN and typ is not _RIGHT_PAREN and len(plain) < _PLAIN_TYPES_KEPT:
                plain[val] = (typ, lexeme, newlines, len(val))  # all from its text: appended at once next time
            append((typ, pos, lexeme, line))
            pos += len(val)
            line += newlines
        del items[mark:]
        self.pos = self.start = commit
        # The line there is known: line_at (the next entry's, the exact states') need not count
        # the newlines of everything this loop lexed again.
        self.line_mark = (commit, commit_line)
        return self.lex_text

    def text_and_open(self, start: int, x: int, trimmed: bool, line: int) -> tuple[int, int]:
        """Emit the text from ``start`` (on ``line``) to the ``{{`` at ``x``, and that ``{{``.

        ``trimmed``: the ``{{`` is ``{{- ``, and the text loses its trailing spaces. Returns
        where the action's inside starts and its line.
        """
        text = self.text
        append = self.items.append
        seg = text[start:x].rstrip(SPACE_CHARS) if trimmed else text[start:x]
        if seg:
            append((_TEXT, start, seg, line))
        line += text.count("\n", start, x)
        append((_LEFT_DELIM, x, LEFT_DELIM, line))
        if trimmed:
            return x + 4, line + (text[x + 3] == "\n")
        return x + 2, line

    # The helpers below return a truthy value to continue inside the action, None on error
    # (lex_space instead returns the next state when it reached a trimmed right delimiter).

    def lex_space(self) -> _State:
        """Spaces inside an action; a single space before ``-}}`` belongs to the delimiter."""
        start = self.pos
        self.pos = _match_end(_SPACES(), self.text, start)
        t, p = self.text, self.pos
        if _has_right_trim(t, p - 1) and t.startswith(RIGHT_DELIM, p + 1):
            self.pos -= 1
            if p - start == 1:
                return self.lex_right_delim
        self.emit(ItemType.SPACE)
        return None

    def lex_identifier(self) -> Optional[bool]:
        ch = self.scan_alnum()
        word = self.text[self.start : self.pos]
        if not self.at_terminator():
            self.error(f"bad character {_sharp_u(ch)}")
            return None
        typ = KEYWORDS.get(word)
        if typ is not None and typ.is_keyword:
            if (typ is ItemType.BREAK and not self.break_ok) or (typ is ItemType.CONTINUE and not self.continue_ok):
                self.emit(ItemType.IDENTIFIER)
            else:
                self.emit(typ)
        elif word in ("true", "false"):
            self.emit(ItemType.BOOL)
        else:
            self.emit(ItemType.IDENTIFIER)
        return True

    def lex_variable(self) -> Optional[bool]:
        if self.at_terminator():
            self.emit(ItemType.VARIABLE)
            return True
        return self._field_or_variable(ItemType.VARIABLE)

    def _field_or_variable(self, typ: ItemType) -> Optional[bool]:
        if self.at_terminator():
            self.emit(ItemType.VARIABLE if typ is ItemType.VARIABLE else ItemType.DOT)
            return True
        ch = self.scan_alnum()
        if not self.at_terminator():
            self.error(f"bad character {_sharp_u(ch)}")
            return None
        self.emit(typ)
        return True

    def lex_char(self) -> Optional[bool]:
        self.pos = _match_end(_CHAR_BODY(), self.text, self.pos)
        if self.peek() != "'":
            self.error("unterminated character constant")
            return None
        self.pos += 1
        self.emit(ItemType.CHAR_CONSTANT)
        return True

    def lex_number(self) -> Optional[bool]:
        if not self.scan_number():
            self.error(f"bad number syntax: {gostrconv.quote(self.text[self.start:self.pos])}")
            return None
        if self.peek() in ("+", "-") and self.peek() != "":
            if not self.scan_number() or self.text[self.pos - 1] != "i":
                self.error(f"bad number syntax: {gostrconv.quote(self.text[self.start:self.pos])}")
                return None
            self.emit(ItemType.COMPLEX)
            return True
        self.emit(ItemType.NUMBER)
        return True

    def scan_number(self) -> bool:
        self.accept("+-")
        digits = "0123456789_"
        if self.accept("0"):
            if self.accept("xX"):
                digits = "0123456789abcdefABCDEF_"
            elif self.accept("oO"):
                digits = "01234567_"
            elif self.accept("bB"):
                digits = "01_"
        self.accept_run(digits)
        if self.accept("."):
            self.accept_run(digits)
        if len(digits) == 11 and self.accept("eE"):
            self.accept("+-")
            self.accept_run("0123456789_")
        if len(digits) == 23 and self.accept("pP"):
            self.accept("+-")
            self.accept_run("0123456789_")
        self.accept("i")
        if is_alnum(self.peek()):
            self.next()
            return False
        return True

    def lex_quote(self) -> Optional[bool]:
        self.pos = _match_end(_QUOTED_BODY(), self.text, self.pos)
        if self.peek() != '"':
            self.error("unterminated quoted string")
            return None
        self.pos += 1
        self.emit(ItemType.STRING)
        return True

    def lex_raw_quote(self) -> Optional[bool]:
        x = self.text.find("`", self.pos)
        if x < 0:
            self.error("unterminated raw quoted string")
            return None
        self.pos = x + 1
        self.emit(ItemType.RAW_STRING)
        return True


def _match_end(rx: re.Pattern[str], text: str, pos: int) -> int:
    m = rx.match(text, pos)
    return m.end() if m else pos


# The fast path: one alternative per common token. Names, fields and numbers must end
# where Go's lexer ends them (a terminator follows), else nothing matches and the exact
# loop reports the error. A space run never takes the single space of a ``-}}`` (the
# backtracking lookahead leaves it for the delimiter). The terminator may be a lone "}" (one
# character class instead of a class or "}}": the lexeme is cheaper to match): no token starts
# with "}" but a right delimiter, so the loop stops there and the exact states take the action.
_TERM = r"(?=[ \t\r\n.,|:)(}])"
_FIELD_TOKEN = r"\.[A-Za-z_][A-Za-z0-9_]*+"
#: A field chain (``.a.b.c``) as one token: the compact stream's field (see lex_raw).
_FIELDS_TOKEN = rf"{_FIELD_TOKEN}(?:{_FIELD_TOKEN})*+"
_SPACE_TOKEN = r"[ \t\r\n]+(?!-\}\})"
_LEXEME_TOKEN = (
    r"{field}" + _TERM  # field (a chain of them in the compact stream)
    + r"|[A-Za-z_][A-Za-z0-9_]*+" + _TERM  # identifier, keyword or bool
    + r'|"[^"\\\n]*+(?:\\[^\n][^"\\\n]*+)*+"'  # quoted string
    r"|\$[A-Za-z0-9_]*+" + _TERM  # variable
    + r"|[|(),=]|:="  # pipe, parens, comma, assign, declare
    r"|\." + _TERM  # dot
    + r"|[0-9]++(?=[ \t\r\n,|:)(]|\}\})"  # decimal number (no '.', '_', exponent or suffix)
    r"|`[^`]*+`"  # raw string
    r"|'[^'\\\n]*+(?:\\[^\n][^'\\\n]*+)*+'"  # character constant
)
# Between actions: a right delimiter, then (if there is one and no comment follows it)
# the text up to the next left delimiter and that delimiter with its trim marker.
_CLOSE_TOKEN = r"(?:\}\}|[ \t\r\n]-\}\})(?:[^{]*+(?:\{(?!\{)[^{]*+)*+\{\{(?:-[ \t\r\n])?(?!/\*))?+"
_STREAM_TOKEN = f"{_SPACE_TOKEN}|{_LEXEME_TOKEN}|{_CLOSE_TOKEN}"
#: The compact stream's: a lexeme takes the spaces after it (not the one a ``-}}`` needs; the
#: group is possessive, as nothing follows it in the token: the engine keeps no state to go back).
_COMPACT_STREAM_TOKEN = f"(?:{_LEXEME_TOKEN})(?:{_SPACE_TOKEN})?+|{_SPACE_TOKEN}|{_CLOSE_TOKEN}"


def _stream_token(compact: bool) -> str:
    if compact:
        return _COMPACT_STREAM_TOKEN.replace("{field}", _FIELDS_TOKEN, 1)
    return _STREAM_TOKEN.replace("{field}", _FIELD_TOKEN, 1)


#: Per ``compact``: (one stream token or, where none matches, "", a run of tokens), compiled on
#: first use: a run whose trees all come from the disk memo never lexes, and compiling these is
#: start-up time (``bench/deferred.py``; prebuilt, see ``support/patterns.py``). ``compact``: a
#: field chain is one token, with the spaces after it as every lexeme. The run is needed only
#: after a stop at an unknown token (see lex_fast).
_STREAM = {compact: patterns.on_first_use(f"{_stream_token(compact)}|") for compact in (False, True)}
_STREAM_RUN = {compact: patterns.on_first_use(f"(?:{_stream_token(compact)})*+") for compact in (False, True)}


_TEXT, _SPACE, _RAW_STRING = ItemType.TEXT, ItemType.SPACE, ItemType.RAW_STRING
_FIELD, _IDENTIFIER = ItemType.FIELD, ItemType.IDENTIFIER
_LEFT_DELIM, _RIGHT_DELIM = ItemType.LEFT_DELIM, ItemType.RIGHT_DELIM
_LEFT_PAREN, _RIGHT_PAREN = ItemType.LEFT_PAREN, ItemType.RIGHT_PAREN

#: A stream token's type from its first character, when its whole text is not in the plain types.
_FIRST_CHAR = {
    **dict.fromkeys(SPACE_CHARS, ItemType.SPACE),
    **dict.fromkeys("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", ItemType.IDENTIFIER),
    **dict.fromkeys("0123456789", ItemType.NUMBER),
    ".": ItemType.FIELD, '"': ItemType.STRING, "$": ItemType.VARIABLE, "`": ItemType.RAW_STRING,
    "'": ItemType.CHAR_CONSTANT, "}": ItemType.RIGHT_DELIM, "(": ItemType.LEFT_PAREN,
    ")": ItemType.RIGHT_PAREN,
}


def _fixed(break_ok: bool, continue_ok: bool) -> dict[str, ItemType]:
    """Whole tokens with one type: keywords (as lex_identifier decides), bools, ``.``, operators
    (parens, spaces and right delimiters are told by their first character: not plain)."""
    fixed = dict(KEYWORDS)
    fixed.update({"true": ItemType.BOOL, "false": ItemType.BOOL, "|": ItemType.PIPE,
                  ",": ItemType.CHAR, "=": ItemType.ASSIGN, ":=": ItemType.DECLARE})
    if not break_ok:
        del fixed["break"]
    if not continue_ok:
        del fixed["continue"]
    return fixed


_FIXED = {(b, c): _fixed(b, c) for b in (False, True) for c in (False, True)}
#: Per keyword setting, the fixed tokens and the names, strings, numbers, variables and character
#: constants the fast loop met, by their text (whatever the template): a chart's templates repeat
#: most of their tokens, across files too. A long-lived process keeps up to this many.
_PLAIN: dict[tuple[bool, bool], dict[str, tuple[ItemType, str, int, int]]] = {}
_PLAIN_TYPES_KEPT = 50_000


def _plain_types(break_ok: bool, continue_ok: bool) -> dict[str, tuple[ItemType, str, int, int]]:
    """The tokens the fast loop only appends, each with its type, its text without the spaces
    after it, their newlines and the token's length (a ``len`` call less per token): shared by
    every lexer."""
    plain = _PLAIN.get((break_ok, continue_ok))
    if plain is None:
        fixed = _FIXED[break_ok, continue_ok]
        plain = _PLAIN[break_ok, continue_ok] = {text: (typ, text, 0, len(text)) for text, typ in fixed.items()}
    return plain

_TERMINATORS = frozenset(" \t\r\n.,|:)(") | {""}


def _has_left_trim(t: str, p: int) -> bool:
    return len(t) >= p + 2 and t[p] == TRIM_MARKER and t[p + 1] in SPACE_CHARS


def _has_right_trim(t: str, p: int) -> bool:
    return p >= 0 and len(t) >= p + 2 and t[p] in SPACE_CHARS and t[p + 1] == TRIM_MARKER


def _left_trim_length(t: str, p: int) -> int:
    return _match_end(_SPACES(), t, p) - p


def _sharp_u(ch: str) -> str:
    """Go's ``%#U``: ``U+0041 'A'``."""
    if ch == "":
        return "U+FFFFFFFFFFFFFFFF"
    code = ord(ch)
    text = f"U+{code:04X}"
    if ch.isprintable():
        text += f" '{ch}'"
    return text


def lex(
    text: str, *, break_ok: bool = True, continue_ok: bool = True, emit_comments: bool = False,
    fast: bool | None = None,
) -> list[Item]:
    """Every item of ``text``, ending with ``EOF`` or one ``ERROR`` item.

    ``fast=False`` lexes with the exact state machine alone (the fast path must give the
    same items; tests and bench/parse.py compare them); None means :data:`FAST_PATH`.
    """
    raw = lex_raw(text, break_ok=break_ok, continue_ok=continue_ok, emit_comments=emit_comments,
                  fast=fast)
    return list(map(Item._make, raw))


def lex_raw(
    text: str, *, break_ok: bool = True, continue_ok: bool = True, emit_comments: bool = False,
    fast: bool | None = None, compact: bool = False,
) -> list[RawItem]:
    """:func:`lex`'s items as plain tuples (what the parser reads: cheaper to build).

    ``compact`` (the parser's first try): where the fast path lexes, spaces inside actions
    give no item and a field chain (``.a.b.c``) is one ``FIELD`` item; the parser tells a
    space by the gap between two items (:func:`compacted` says what these items must be).
    """
    fast = FAST_PATH if fast is None else fast
    return _Lexer(text, break_ok, continue_ok, emit_comments, fast, compact).run()


def compacted(items: list[RawItem]) -> list[RawItem]:
    """``items`` without spaces inside actions and with each run of adjacent fields as one
    item: the compact stream's form. Where the exact states lex an action, the compact stream
    holds their items as they are, so tests compare ``compacted`` of both streams."""
    out: list[RawItem] = []
    for item in items:
        typ = item[TYP]
        if typ is _SPACE:
            continue
        if typ is _FIELD and out:
            last = out[-1]
            if last[TYP] is _FIELD and last[POS] + len(last[VAL]) == item[POS]:
                out[-1] = (_FIELD, last[POS], last[VAL] + item[VAL], last[LINE])
                continue
        out.append(item)
    return out


#: Default for :func:`lex`: whether the regex fast path runs (False forces the exact path).
FAST_PATH = True
