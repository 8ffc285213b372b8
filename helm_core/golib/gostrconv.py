"""Go's ``strconv`` and ``time`` text forms used by :mod:`gofmt`: floats, quoting, durations, times.

Floats use Python's shortest round-trip digits, which are the digits Go's ``strconv``
picks for precision -1; fixed precisions use Python's correctly rounded formatting,
which agrees with Go's. Quoting follows ``strconv.Quote`` (``\\x``, ``\\u``, ``\\U`` escapes).
"""
from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime

#: strconv's 'g' with the shortest digits switches to the exponent form at 10**6.
_SHORTEST_EPREC = 6


def format_float(value: float, verb: str = "g", prec: int = -1) -> str:
    """``strconv.FormatFloat(value, verb, prec, 64)`` for verbs e, E, f, F, g, G.

    ``prec == -1`` means the shortest digits that read back exactly (Go's default for %v).
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if verb == "b":
        return _binary_float(value)
    if verb in "xX":
        text = _hex_float(value, prec)
        return text.upper() if verb == "X" else text
    upper = verb in "EG"
    v = verb.lower()
    if prec >= 0:
        text = format(value, f".{prec}{v}")
        if value == 0 and math.copysign(1.0, value) < 0 and not text.startswith("-"):
            text = "-" + text
        return text.upper() if upper else text
    neg = math.copysign(1.0, value) < 0
    digits, dp = _shortest_digits(abs(value))
    if v == "e":
        body = _fmt_e(digits, dp, len(digits) - 1)
    elif v == "f":
        body = _fmt_f(digits, dp, max(len(digits) - dp, 0))
    else:
        exp = dp - 1
        if exp < -4 or exp >= _SHORTEST_EPREC:
            body = _fmt_e(digits, dp, len(digits) - 1)
        else:
            body = _fmt_f(digits, dp, max(len(digits) - dp, 0))
    if upper:
        body = body.upper()
    return ("-" if neg else "") + body


def format_float32(value: float) -> str:
    """``strconv.FormatFloat(value, 'g', -1, 32)``: the shortest digits that read back as the
    same float32 (how sigs.k8s.io/yaml turns YAML floats into map keys and string fields)."""
    if math.isnan(value) or math.isinf(value):
        return format_float(value)
    import struct  # by the functions that pack floats: struct is start-up time of every run otherwise

    f32 = struct.unpack("f", struct.pack("f", value))[0]
    if math.isinf(f32):
        return format_float(f32)
    for precision in range(9):
        text = f"{f32:.{precision}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == f32:
            return format_float(float(text))
    return format_float(f32)  # pragma: no cover - 9 digits always read back


def format_duration(ns: int) -> str:
    """``time.Duration.String()``: ``1h2m3.5s``, ``1.5ms``, ``0s``."""
    if ns == 0:
        return "0s"
    neg = ns < 0
    u = -ns if neg else ns
    if u < 1_000_000_000:
        if u < 1_000:
            text = f"{u}ns"
        elif u < 1_000_000:
            text = _frac(u, 3) + "µs"
        else:
            text = _frac(u, 6) + "ms"
    else:
        secs, frac_ns = divmod(u, 1_000_000_000)
        frac = f"{frac_ns:09d}".rstrip("0")
        text = f"{secs % 60}" + (f".{frac}" if frac else "") + "s"
        mins = secs // 60
        if mins:
            text = f"{mins % 60}m" + text
            hours = mins // 60
            if hours:
                text = f"{hours}h" + text
    return ("-" if neg else "") + text


def format_time(t: datetime.datetime) -> str:
    """``time.Time.String()``: ``2006-01-02 15:04:05.999999999 -0700 MST``."""
    import datetime  # here: release names and chart paths are checked with this module, not times

    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.UTC)
    offset = t.utcoffset() or datetime.timedelta(0)
    total = int(offset.total_seconds())
    sign = "-" if total < 0 else "+"
    hh, mm = divmod(abs(total) // 60, 60)
    off = f"{sign}{hh:02d}{mm:02d}"
    name = t.tzname() or ""
    if name in ("", "UTC+00:00") or name.startswith("UTC") and len(name) > 3:
        name = "UTC" if total == 0 else off
    frac = f".{t.microsecond:06d}".rstrip("0") if t.microsecond else ""
    return f"{t:%Y-%m-%d %H:%M:%S}{frac} {off} {name}"


def quote(s: str, *, ascii_only: bool = False) -> str:
    """``strconv.Quote`` (``QuoteToASCII`` with ``ascii_only``)."""
    if s.isascii():
        if s.isprintable() and '"' not in s and "\\" not in s:
            return f'"{s}"'  # printable ASCII (most names and values) is kept as it is
        return '"' + s.translate(_ASCII_QUOTED) + '"'  # ASCII with escapes (config files)
    out = ['"']
    for ch in s:
        out.append(_quote_rune(ch, '"', ascii_only))
    out.append('"')
    return "".join(out)


#: How ``quote`` writes each ASCII character (a ``str.translate`` table).
_ASCII_QUOTED: dict[int, str] = {}


def _shortest_digits(x: float) -> tuple[str, int]:
    """Shortest decimal digits of a non-negative float and the decimal point position.

    The value is ``0.<digits> * 10**dp`` (Go's ``decimalSlice`` convention). Python's ``repr``
    and Go's ``strconv`` both pick the shortest digits that read back, so they are taken from
    ``repr`` (plain string work: several times faster than going through ``decimal``).
    """
    if x == 0:
        return "0", 1
    mant, _, exp_text = repr(x).partition("e")
    int_part, _, frac_part = mant.partition(".")
    all_digits = int_part + frac_part
    stripped = all_digits.lstrip("0")
    leading_zeros = len(all_digits) - len(stripped)
    return stripped.rstrip("0"), len(int_part) - leading_zeros + (int(exp_text) if exp_text else 0)


def _binary_float(value: float) -> str:
    """strconv's 'b' format: decimal mantissa, 'p', binary exponent (``4503599627370496p-52``)."""
    import struct  # by the functions that pack floats (see format_float32)

    bits = struct.unpack(">Q", struct.pack(">d", value))[0]
    exp = (bits >> 52) & 0x7FF
    mant = bits & ((1 << 52) - 1)
    if exp == 0:
        exp = 1
    else:
        mant |= 1 << 52
    exp -= 1075
    sign = "-" if bits >> 63 else ""
    return f"{sign}{mant}p{'+' if exp >= 0 else '-'}{abs(exp)}"


def _hex_float(value: float, prec: int) -> str:
    """strconv's 'x' format: ``0x1.8p+00``; ``prec`` hex digits, or shortest when -1."""
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    x = abs(value)
    mant, exp = 0, 0
    if x:
        m, e = math.frexp(x)
        mant, exp = int(m * (1 << 53)), e - 1
    if 0 <= prec < 13 and mant:
        shift = 52 - 4 * prec
        q, r = divmod(mant, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        mant = q << shift
        if mant >> 53:
            mant >>= 1
            exp += 1
    digits = f"{mant & ((1 << 52) - 1):013x}"
    digits = digits.rstrip("0") if prec < 0 else digits[:prec].ljust(prec, "0")
    lead = mant >> 52
    esign = "-" if exp < 0 else "+"
    return f"{sign}0x{lead}" + (f".{digits}" if digits else "") + f"p{esign}{abs(exp):02d}"


def _fmt_e(digits: str, dp: int, prec: int) -> str:
    first = digits[0]
    rest = digits[1 : prec + 1].ljust(prec, "0")
    exp = 0 if digits == "0" else dp - 1
    sign = "-" if exp < 0 else "+"
    return first + ("." + rest if prec > 0 else "") + f"e{sign}{abs(exp):02d}"


def _fmt_f(digits: str, dp: int, prec: int) -> str:
    if dp > 0:
        int_part = digits[:dp].ljust(dp, "0")
        frac = digits[dp:]
    else:
        int_part = "0"
        frac = "0" * (-dp) + digits
    frac = frac[:prec].ljust(prec, "0")
    return int_part + ("." + frac if prec > 0 else "")


def _frac(v: int, prec: int) -> str:
    whole, rem = divmod(v, 10**prec)
    frac = f"{rem:0{prec}d}".rstrip("0")
    return f"{whole}" + (f".{frac}" if frac else "")


# ---------------------------------------------------------------------------
# Quoting


def underscore_ok(s: str) -> bool:
    """Go's ``underscoreOK``: each '_' sits between digits (or after a base prefix)."""
    saw = "^"
    i = 0
    if s[:1] in ("+", "-") and s:
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1] in "bBoOxX":
        i, saw, hexa = 2, "0", s[1] in "xX"
    while i < len(s):
        c = s[i]
        if "0" <= c <= "9" or (hexa and c.lower() in "abcdef"):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        else:
            if saw == "_":
                return False
            saw = "!"
        i += 1
    return saw != "_"


def is_print(ch: str) -> bool:
    if ch == " ":
        return True
    return ch.isprintable() and not ch.isspace()


def _quote_rune(ch: str, q: str, ascii_only: bool) -> str:
    if ch == q or ch == "\\":
        return "\\" + ch
    code = ord(ch)
    if ascii_only and code >= 0x80:
        pass
    elif is_print(ch):
        return ch
    specials = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
    if ch in specials:
        return specials[ch]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:
        # A byte of invalid UTF-8 carried as a surrogate escape (binary .Files): Go prints \xNN.
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return "\\ufffd"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


_ASCII_QUOTED.update({code: _quote_rune(chr(code), '"', False) for code in range(128)})


def quote_char(code: int, ascii_only: bool) -> str:
    if code < 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        code = 0xFFFD
    return "'" + _quote_rune(chr(code), "'", ascii_only) + "'"


def can_backquote(s: str) -> bool:
    for ch in s:
        if ch == "`" or ch == "\ufeff":
            return False
        if ch != "\t" and (ord(ch) < 0x20 or ord(ch) == 0x7F):
            return False
    return True
