"""Go's ``fmt`` printing of template values: ``%v``, ``Sprint``, ``Sprintln``, ``Sprintf``.

Templates print every value the way Go's ``fmt.Fprint`` does, and Sprig's ``toString``,
``cat`` and ``printf`` lean on the same rules, so this module is the single place they live.

Rules kept from Go (``fmt/print.go``, ``fmt/format.go``, ``strconv/ftoa.go``):

* ``float64`` prints with ``strconv`` 'g' and the shortest digits that read back; the
  exponent form is used when the decimal exponent is < -4 or >= 21 for JSON but >= 6 here
  (``1e+06``, ``100000``, ``1.5e-05``); ``-0``, ``NaN``, ``+Inf``, ``-Inf``.
* maps print ``map[k:v ...]`` with sorted keys; slices ``[a b]``; nil ``<nil>``.
* ``Sprint`` puts a space between two operands when neither is a string.
* ``Sprintf`` reports problems inline rather than failing: ``%!d(string=x)``,
  ``%!d(MISSING)``, ``%!(EXTRA int=1)``, ``%!(NOVERB)``, ``%!(BADWIDTH)``,
  ``%!(BADPREC)``, ``%!v(BADINDEX)``.
* a verb applies element-wise inside slices and maps (``%d`` of ``[1 2]`` is ``[1 2]``).
* a :class:`~helm_core.golib.gotypes.GoObject` prints through its ``String()`` method
  for %v %s %q %x %X; otherwise, if it lists its struct fields in ``go_fields``, as Go
  prints a struct (``&{n 1}``, ``%+v`` ``&{Name:n Age:1}``); else as ``str()``.
"""
from __future__ import annotations

import datetime
import functools

from helm_core.golib import gostrconv, gotypes
from helm_core.golib.gostrconv import (  # re-exported: part of this module's API
    format_duration,
    format_float,
    format_time,
    quote,
)
from helm_core.gotemplate import budget

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MAX_WIDTH",
    "format_duration",
    "format_float",
    "format_pointee",
    "format_time",
    "format_value",
    "quote",
    "sprint",
    "sprintf",
    "sprintln",
]

#: Go's ``fmt`` refuses widths and precisions larger than this (``tooLarge``).
MAX_WIDTH = 1_000_000

_NIL = "<nil>"
_HEX_LOWER = "0123456789abcdef"
_HEX_UPPER = "0123456789ABCDEF"


# ---------------------------------------------------------------------------
# Public API


def format_value(value: Any) -> str:
    """The text of ``fmt.Sprint(value)``: Go's ``%v`` of one value."""
    if isinstance(value, str):
        return value
    if value is None:
        return _NIL
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value, "g", -1)
    budget.check_text(value, what="text")
    p = _Printer()
    p.print_arg(value, "v")
    return "".join(p.buf)


def format_pointee(value: Any) -> str:
    """``%v`` of what a pointer points to (Go's ``indirect``): a struct prints without ``&``
    and without its pointer-receiver ``String()``; anything else prints as :func:`format_value`."""
    fields = getattr(value, "go_fields", None)
    if isinstance(value, gotypes.GoObject) and fields is not None and value.go_type.startswith("*"):
        p = _Printer()
        p._print_struct(value, fields, "v", 1)
        return "".join(p.buf)
    return format_value(value)


def sprint(*args: Any) -> str:
    """``fmt.Sprint``: operands in %v, a space between two operands when neither is a string."""
    out: list[str] = []
    prev_string = False
    for i, arg in enumerate(args):
        is_string = isinstance(arg, str)
        if i > 0 and not is_string and not prev_string:
            out.append(" ")
        out.append(format_value(arg))
        prev_string = is_string
    return "".join(out)


def sprintln(*args: Any) -> str:
    """``fmt.Sprintln``: operands in %v, always separated by a space, then a newline."""
    return " ".join(format_value(a) for a in args) + "\n"


def sprintf(fmt: str, *args: Any) -> str:
    """``fmt.Sprintf`` over the template value model (see the module rules)."""
    pieces = _plain_verbs(fmt) if len(fmt) <= _PLAIN_MAX_CHARS else None
    if pieces is not None and len(pieces) == 2 * len(args) + 1:
        text = _print_plain(pieces, args)
        if text is not None:
            return text
    for arg in args:
        budget.check_text(arg, what="text")
    p = _Printer()
    p.do_printf(fmt, list(args))
    return "".join(p.buf)


#: Longest format whose parse is remembered (formats are short; the cache must stay small).
_PLAIN_MAX_CHARS = 256


@functools.lru_cache(maxsize=1024)
def _plain_verbs(fmt: str) -> tuple[str, ...] | None:
    """``fmt`` as text, verb, text, ... when every verb is a bare ``%s``, ``%v``, ``%d`` or
    ``%q`` (``%%`` is text): most formats templates use. None for any other (the printer's)."""
    pieces: list[str] = []
    text: list[str] = []
    i, end = 0, len(fmt)
    while i < end:
        j = fmt.find("%", i)
        if j < 0:
            text.append(fmt[i:])
            break
        text.append(fmt[i:j])
        verb = fmt[j + 1: j + 2]
        if verb == "%":
            text.append("%")
        elif verb and verb in "svdq":
            pieces += ("".join(text), verb)
            text = []
        else:
            return None
        i = j + 2
    pieces.append("".join(text))
    return tuple(pieces)


def _print_plain(pieces: tuple[str, ...], args: tuple[Any, ...]) -> str | None:
    """A plain format (see :func:`_plain_verbs`) with one argument per verb, when each is a
    string (``%s``, ``%v``, ``%q``) or an int (``%d``, ``%v``); None for anything else."""
    out = [pieces[0]]
    for k, arg in enumerate(args):
        verb = pieces[2 * k + 1]
        cls = arg.__class__
        if cls is str and verb != "d":
            out.append(quote(arg) if verb == "q" else arg)
        elif cls is int and verb in "dv":
            out.append(str(arg))
        else:
            return None
        out.append(pieces[2 * k + 2])
    return "".join(out)


# ---------------------------------------------------------------------------
# The printer: one Sprintf call's state, as Go's ``pp`` plus ``fmt``.


class _Printer:
    def __init__(self) -> None:
        self.buf: list[str] = []
        #: ids of the maps and lists being printed past gotypes.CYCLE_CHECK_DEPTH.
        self.deep: set[int] = set()
        self.clear_flags()

    def clear_flags(self) -> None:
        self.plus = self.minus = self.sharp = self.space = self.zero = False
        self.plus_v = self.sharp_v = False
        self.wid: int | None = None
        self.prec: int | None = None

    # -- padding ----------------------------------------------------------
    def pad(self, s: str) -> None:
        if not self.wid:
            self.buf.append(s)
            return
        n = self.wid - len(s)
        if n <= 0:
            self.buf.append(s)
        elif self.minus:
            self.buf.append(s + " " * n)
        else:
            self.buf.append(("0" if self.zero else " ") * n + s)

    # -- scalars ----------------------------------------------------------
    def fmt_bool(self, v: bool, verb: str, arg: Any) -> None:
        if verb in "tv":
            self.pad("true" if v else "false")
        else:
            self.bad_verb(verb, arg)

    def fmt_integer(self, v: int, verb: str, arg: Any) -> None:
        if verb in "vd":
            self._integer(v, 10, verb, _HEX_LOWER)
        elif verb == "b":
            self._integer(v, 2, verb, _HEX_LOWER)
        elif verb in "oO":
            self._integer(v, 8, verb, _HEX_LOWER)
        elif verb == "x":
            self._integer(v, 16, verb, _HEX_LOWER)
        elif verb == "X":
            self._integer(v, 16, verb, _HEX_UPPER)
        elif verb == "c":
            self.pad(chr(v) if 0 <= v <= 0x10FFFF and not 0xD800 <= v <= 0xDFFF else "\ufffd")
        elif verb == "q":
            self.pad(gostrconv.quote_char(v, self.plus))
        elif verb == "U":
            code = v if v >= 0 else v & 0xFFFFFFFFFFFFFFFF
            width = self.prec if self.prec is not None and self.prec > 4 else 4
            text = f"U+{code:0{width}X}"
            if self.sharp and 0 <= v <= 0x10FFFF and gostrconv.is_print(chr(v)):
                text += f" '{chr(v)}'"
            self._pad_no_zero(text)
        else:
            self.bad_verb(verb, arg)

    def _pad_no_zero(self, text: str) -> None:
        old = self.zero
        self.zero = False
        self.pad(text)
        self.zero = old

    def _integer(self, v: int, base: int, verb: str, digits: str) -> None:
        negative = v < 0
        u = -v if negative else v
        prec = 0
        if self.prec is not None:
            prec = self.prec
            if prec == 0 and v == 0:
                self._pad_no_zero("")
                return
        elif self.zero and not self.minus and self.wid:
            prec = self.wid
            if negative or self.plus or self.space:
                prec -= 1
        out = ""
        while u >= base:
            u, r = divmod(u, base)
            out = digits[r] + out
        out = digits[u] + out
        out = out.rjust(prec, "0") if prec > len(out) else out
        if self.sharp:
            if base == 2:
                out = "0b" + out
            elif base == 8 and not out.startswith("0"):
                out = "0" + out
            elif base == 16:
                out = ("0X" if digits is _HEX_UPPER else "0x") + out
        if verb == "O":
            out = "0o" + out
        if negative:
            out = "-" + out
        elif self.plus:
            out = "+" + out
        elif self.space:
            out = " " + out
        self._pad_no_zero(out)

    def fmt_float(self, v: float, verb: str, arg: Any) -> None:
        if verb == "v":
            self._float(v, "g", -1)
        elif verb in "gG":
            self._float(v, verb, -1)
        elif verb in "eEf":
            self._float(v, verb, 6)
        elif verb in "bxX":
            self._float(v, verb, -1)
        elif verb == "F":
            self._float(v, "f", 6)
        else:
            self.bad_verb(verb, arg)

    def fmt_complex(self, v: complex, verb: str) -> None:
        """Go's ``fmtComplex``: ``(real+imag i)``, each part formatted as a float with the
        verb, width and precision, the imaginary one always signed."""
        if verb not in "vbgGxXfFeE":
            self.bad_verb(verb, v)
            return
        plus = self.plus
        self.buf.append("(")
        self.fmt_float(v.real, verb, v)
        self.plus = True
        self.fmt_float(v.imag, verb, v)
        self.buf.append("i)")
        self.plus = plus

    def _float(self, v: float, verb: str, prec: int) -> None:
        if self.prec is not None:
            prec = self.prec
        num = format_float(v, verb, prec)
        if num[0] not in "+-":
            num = "+" + num
        if self.space and num[0] == "+" and not self.plus:
            num = " " + num[1:]
        if num[1] in "IN":
            if num[1] == "N" and not self.space and not self.plus:
                num = num[1:]
            self._pad_no_zero(num)
            return
        if self.sharp and verb != "b":
            num = self._sharp_float(num, verb, prec)
        if self.plus or num[0] != "+":
            if self.zero and not self.minus and self.wid and self.wid > len(num):
                self.buf.append(num[0] + "0" * (self.wid - len(num)) + num[1:])
                return
            self.pad(num)
            return
        self.pad(num[1:])

    @staticmethod
    def _sharp_float(num: str, verb: str, prec: int) -> str:
        digits = 0
        if verb in "vgGx":
            digits = 6 if prec == -1 else prec
        tail = ""
        body = num
        for i in range(1, len(num)):
            if num[i] in "pP" or (num[i] in "eE" and verb not in "xX"):
                body, tail = num[:i], num[i:]
                break
        has_point = "." in body
        seen_nonzero = False
        for ch in body[1:]:
            if ch == ".":
                continue
            if ch != "0":
                seen_nonzero = True
            if seen_nonzero:
                digits -= 1
        if not has_point:
            if len(body) == 2 and body[1] == "0":
                digits -= 1
            body += "."
        if digits > 0:
            body += "0" * digits
        return body + tail

    def fmt_string(self, s: str, verb: str, arg: Any) -> None:
        if verb == "v":
            if self.sharp_v:
                self._fmt_q(s)
            else:
                self._fmt_s(s)
        elif verb == "s":
            self._fmt_s(s)
        elif verb in "xX":
            self._fmt_hex(s.encode("utf-8"), verb)
        elif verb == "q":
            self._fmt_q(s)
        else:
            self.bad_verb(verb, arg)

    def _fmt_s(self, s: str) -> None:
        if self.prec is not None:
            s = s[: self.prec]
        self.pad(s)

    def _fmt_q(self, s: str) -> None:
        if self.prec is not None:
            s = s[: self.prec]
        if self.sharp and gostrconv.can_backquote(s):
            self.pad("`" + s + "`")
        else:
            self.pad(quote(s, ascii_only=self.plus))

    def _fmt_hex(self, b: bytes, verb: str) -> None:
        digits = _HEX_UPPER if verb == "X" else _HEX_LOWER
        if self.prec is not None:
            b = b[: self.prec]
        if not b:
            self.pad("")
            return
        prefix = ("0X" if verb == "X" else "0x") if self.sharp else ""
        parts = []
        for i, byte in enumerate(b):
            piece = digits[byte >> 4] + digits[byte & 15]
            if self.space:
                parts.append((" " if i else "") + prefix + piece)
            else:
                parts.append((prefix if i == 0 else "") + piece)
        self.pad("".join(parts))

    def fmt_bytes(self, b: bytes, verb: str, arg: Any, depth: int) -> None:
        if verb in "vd":
            if self.sharp_v:
                self.buf.append("[]byte{")
                old_sharp, self.sharp = self.sharp, True
                for i, x in enumerate(b):
                    if i:
                        self.buf.append(", ")
                    self._integer(x, 16, "v", _HEX_LOWER)
                self.sharp = old_sharp
                self.buf.append("}")
                return
            self.buf.append("[")
            for i, x in enumerate(b):
                if i:
                    self.buf.append(" ")
                self._integer(x, 10, verb, _HEX_LOWER)
            self.buf.append("]")
        elif verb == "s":
            self._fmt_s(b.decode("utf-8", "replace"))
        elif verb in "xX":
            self._fmt_hex(b, verb)
        elif verb == "q":
            self._fmt_q(b.decode("utf-8", "replace"))
        else:
            self.buf.append("[")
            for i, x in enumerate(b):
                if i:
                    self.buf.append(" ")
                if verb in "bcoOqU":
                    self.fmt_integer(x, verb, x)
                else:
                    self.bad_verb(verb, x, type_name="uint8")
            self.buf.append("]")

    # -- errors -------------------------------------------------------------
    def bad_verb(self, verb: str, arg: Any, type_name: str = "") -> None:
        self.buf.append("%!" + verb + "(")
        if arg is None:
            self.buf.append(_NIL)
        else:
            self.buf.append((type_name or gotypes.go_type_name(arg)) + "=")
            self.print_arg(arg, "v")
        self.buf.append(")")

    # -- dispatch -------------------------------------------------------------
    def print_arg(self, arg: Any, verb: str, depth: int = 0) -> None:
        if arg is None:
            if depth > 0:
                self.buf.append(_NIL)
            elif verb in "Tv":
                self.pad(_NIL)
            else:
                self.bad_verb(verb, arg)
            return
        if verb == "T":
            self._fmt_s(gotypes.go_type_name(arg))
            return
        if isinstance(arg, bool):
            self.fmt_bool(arg, verb, arg)
        elif isinstance(arg, int):
            self.fmt_integer(arg, verb, arg)
        elif isinstance(arg, float):
            self.fmt_float(arg, verb, arg)
        elif isinstance(arg, complex):
            self.fmt_complex(arg, verb)
        elif isinstance(arg, str):
            self.fmt_string(arg, verb, arg)
        elif isinstance(arg, (bytes, bytearray)):
            self.fmt_bytes(bytes(arg), verb, arg, depth)
        elif isinstance(arg, gotypes.Duration):
            if verb in "vsxXq":
                self.fmt_string(format_duration(arg.nanoseconds), verb, arg)
            else:
                self.fmt_integer(arg.nanoseconds, verb, arg)
        elif isinstance(arg, datetime.datetime):
            if verb in "vsxXq":
                self.fmt_string(format_time(arg), verb, arg)
            else:
                self.bad_verb(verb, arg)
        else:
            self.print_value(arg, verb, depth)

    def print_value(self, value: Any, verb: str, depth: int) -> None:
        if depth >= gotypes.CYCLE_CHECK_DEPTH and isinstance(value, (dict, list, tuple)):
            self._print_deep(value, verb, depth)
        else:
            self._print_value(value, verb, depth)

    def _print_deep(self, value: dict[Any, Any] | list[Any] | tuple[Any, ...], verb: str, depth: int) -> None:
        """A map or list set inside itself (``set $d "a" $d``) would print for ever (Go's fmt
        dies of a stack overflow): refused, naming it, when met again deep inside itself."""
        gotypes.enter_once(value, self.deep, "print")
        self._print_value(value, verb, depth)
        self.deep.discard(id(value))

    def _print_value(self, value: Any, verb: str, depth: int) -> None:
        if isinstance(value, dict):
            if self.sharp_v:
                self.buf.append(gotypes.go_type_name(value) + "{")
                for i, k in enumerate(sorted(value, key=_sort_key)):
                    if i:
                        self.buf.append(", ")
                    self._print_sharp_elem(k, verb, depth)
                    self.buf.append(":")
                    self._print_sharp_elem(value[k], verb, depth)
                self.buf.append("}")
                return
            self.buf.append("map[")
            for i, k in enumerate(sorted(value, key=_sort_key)):
                if i:
                    self.buf.append(" ")
                self.print_arg(k, verb, depth + 1)
                self.buf.append(":")
                self.print_arg(value[k], verb, depth + 1)
            self.buf.append("]")
        elif isinstance(value, (list, tuple)):
            if self.sharp_v:
                self.buf.append(gotypes.go_type_name(value) + "{")
                for i, item in enumerate(value):
                    if i:
                        self.buf.append(", ")
                    self._print_sharp_elem(item, verb, depth)
                self.buf.append("}")
                return
            self.buf.append("[")
            for i, item in enumerate(value):
                if i:
                    self.buf.append(" ")
                self.print_arg(item, verb, depth + 1)
            self.buf.append("]")
        elif isinstance(value, gotypes.GoObject):
            stringer = getattr(value, "String", None)
            fields = getattr(value, "go_fields", None)
            if callable(stringer) and verb in "vsxXq" and not self.sharp_v:
                self.fmt_string(str(stringer()), verb, value)
            elif fields is not None:
                self._print_struct(value, fields, verb, depth)
            elif verb in "vs":
                self.pad(str(value))
            else:
                self.bad_verb(verb, value)
        else:
            text = str(value)
            if verb in "vs":
                self.pad(text)
            else:
                self.bad_verb(verb, value)

    def _print_struct(self, value: Any, fields: Any, verb: str, depth: int) -> None:
        """A struct (or pointer to one) listing ``go_fields``: ``&{a b}``, ``%+v`` ``&{A:a B:b}``."""
        go_type = value.go_type
        pointer = go_type.startswith("*")
        if self.sharp_v:
            self.buf.append(("&" if pointer else "") + go_type.lstrip("*") + "{")
            for i, name in enumerate(fields):
                if i:
                    self.buf.append(", ")
                self.buf.append(name + ":")
                self._print_sharp_elem(getattr(value, name), verb, depth)
            self.buf.append("}")
            return
        self.buf.append(("&" if pointer and depth == 0 else "") + "{")
        for i, name in enumerate(fields):
            if i:
                self.buf.append(" ")
            if self.plus_v:
                self.buf.append(name + ":")
            self.print_arg(getattr(value, name), verb, depth + 1)
        self.buf.append("}")

    def _print_sharp_elem(self, item: Any, verb: str, depth: int) -> None:
        if item is None:
            self.buf.append("interface {}(nil)")
        else:
            self.print_arg(item, verb, depth + 1)

    # -- Printf --------------------------------------------------------------
    def do_printf(self, fmt: str, args: list[Any]) -> None:
        end = len(fmt)
        arg_num = 0
        reordered = False
        i = 0
        while i < end:
            good_arg_num = True
            j = fmt.find("%", i)
            if j < 0:
                self.buf.append(fmt[i:])
                break
            if j > i:
                self.buf.append(fmt[i:j])
            i = j + 1
            self.clear_flags()
            while i < end and fmt[i] in "#0+- ":
                c = fmt[i]
                if c == "#":
                    self.sharp = True
                elif c == "0":
                    self.zero = True
                elif c == "+":
                    self.plus = True
                elif c == "-":
                    self.minus = True
                else:
                    self.space = True
                i += 1
            if self.minus:
                self.zero = False
            reordered = reordered or fmt.startswith("[", i)
            arg_num, i, after_index, ok = _arg_number(arg_num, fmt, i, len(args))
            good_arg_num = good_arg_num and ok
            if i < end and fmt[i] == "*":
                i += 1
                self.wid, arg_num = _int_from_arg(args, arg_num)
                if self.wid is None:
                    self.buf.append("%!(BADWIDTH)")
                elif self.wid < 0:
                    self.wid = -self.wid
                    self.minus = True
                    self.zero = False
                after_index = False
            else:
                self.wid, i = _parse_num(fmt, i, end)
                if after_index and self.wid is not None:
                    good_arg_num = False
            if i + 1 < end and fmt[i] == ".":
                i += 1
                if after_index:
                    good_arg_num = False
                reordered = reordered or fmt.startswith("[", i)
                arg_num, i, after_index, ok = _arg_number(arg_num, fmt, i, len(args))
                good_arg_num = good_arg_num and ok
                if i < end and fmt[i] == "*":
                    i += 1
                    self.prec, arg_num = _int_from_arg(args, arg_num)
                    if self.prec is not None and self.prec < 0:
                        self.prec = None
                        self.buf.append("%!(BADPREC)")
                    elif self.prec is None:
                        self.buf.append("%!(BADPREC)")
                    after_index = False
                else:
                    self.prec, i = _parse_num(fmt, i, end)
                    if self.prec is None:
                        self.prec = 0
            if not after_index:
                reordered = reordered or fmt.startswith("[", i)
                arg_num, i, after_index, ok = _arg_number(arg_num, fmt, i, len(args))
                good_arg_num = good_arg_num and ok
            if i >= end:
                self.buf.append("%!(NOVERB)")
                break
            verb = fmt[i]
            i += 1
            if verb == "%":
                self.buf.append("%")
            elif not good_arg_num:
                self.buf.append(f"%!{verb}(BADINDEX)")
            elif arg_num >= len(args):
                self.buf.append(f"%!{verb}(MISSING)")
            else:
                if verb == "v":
                    self.sharp_v, self.sharp = self.sharp, False
                    self.plus_v, self.plus = self.plus, False
                self.print_arg(args[arg_num], verb)
                arg_num += 1
        if not reordered and arg_num < len(args):
            self.clear_flags()
            self.buf.append("%!(EXTRA ")
            for k, arg in enumerate(args[arg_num:]):
                if k:
                    self.buf.append(", ")
                if arg is None:
                    self.buf.append(_NIL)
                else:
                    self.buf.append(gotypes.go_type_name(arg) + "=")
                    self.print_arg(arg, "v")
            self.buf.append(")")


def _sort_key(k: Any) -> tuple[int, Any]:
    """Go's fmtsort order for map keys: numbers numerically, strings bytewise."""
    if isinstance(k, bool):
        return (0, int(k))
    if isinstance(k, (int, float)):
        return (1, k)
    if isinstance(k, str):
        return (2, k.encode("utf-8"))
    return (3, str(k))


def _parse_num(s: str, i: int, end: int) -> tuple[int | None, int]:
    start = i
    num = 0
    while i < end and "0" <= s[i] <= "9":
        if num > MAX_WIDTH:
            return None, end
        num = num * 10 + ord(s[i]) - 48
        i += 1
    return (num if i > start else None), i


def _arg_number(arg_num: int, fmt: str, i: int, num_args: int) -> tuple[int, int, bool, bool]:
    """Parse an explicit ``[n]`` index as Go's ``argNumber``.

    Returns (arg_num, i, found, ok); any ``[`` marks the call as reordered (no EXTRA check).
    """
    if i >= len(fmt) or fmt[i] != "[":
        return arg_num, i, False, True
    rest = fmt[i:]
    if len(rest) < 3:
        return arg_num, i + 1, False, False
    for j in range(1, len(rest)):
        if rest[j] == "]":
            width, k = _parse_num(rest, 1, j)
            if width is None or k != j:
                return arg_num, i + j + 1, False, False
            index = width - 1
            if 0 <= index < num_args:
                return index, i + j + 1, True, True
            return arg_num, i + j + 1, True, False
    return arg_num, i + 1, False, False


def _int_from_arg(args: list[Any], arg_num: int) -> tuple[int | None, int]:
    if arg_num < len(args):
        arg = args[arg_num]
        if isinstance(arg, int) and not isinstance(arg, bool) and -MAX_WIDTH <= arg <= MAX_WIDTH:
            return arg, arg_num + 1
        return None, arg_num + 1
    return None, arg_num
