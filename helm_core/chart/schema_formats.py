"""``format`` as helm's validator asserts it: santhosh-tekuri/jsonschema v6's format checkers.

v6 asserts ``format`` in schemas of drafts before 2019-09 (draft 4, 6, 7); later drafts take it
as an annotation. Each known format checks strings only (any other value passes); an unknown
format checks nothing. A failure is worded ``'<value>' is not valid <format>: <reason>``, the
reason being v6's (or the Go library's it calls: ``strconv.Atoi``, ``netip.ParseAddr``,
``time.Parse``, ``url.Parse``, ``regexp.Compile``).

Go strings are bytes: lengths, positions and slices are of the UTF-8 bytes, as in v6 (a Python
string stands for a Go one with invalid UTF-8 kept as surrogate escapes, as elsewhere).
"""
from __future__ import annotations

from helm_core.chart import schema_errors
from helm_core.golib import gostrconv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from helm_core.golib.gourl import URL


class _Invalid(Exception):
    """A checker's reason, raised from where it is found."""


def _go(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _runes(raw: bytes) -> str:
    """What ranging over a Go string yields: invalid bytes as U+FFFD."""
    return raw.decode("utf-8", "replace")


def _q(ch: str) -> str:
    """Go's ``%q`` of a rune."""
    return gostrconv.quote_char(ord(ch), False)


def _atoi(raw: bytes) -> int:
    """``strconv.Atoi`` on a 64-bit platform: an optional sign and decimal digits."""
    given = raw
    negative = raw[:1] == b"-"
    if raw[:1] in (b"-", b"+"):
        raw = raw[1:]
    if raw and all(0x30 <= b <= 0x39 for b in raw):
        value = int(raw)
        if -(1 << 63) <= (-value if negative else value) < (1 << 63):
            return -value if negative else value
        problem = "value out of range"
    else:
        problem = "invalid syntax"
        # ParseUint stops at the first problem: an overflow before a bad digit is a range error.
        digits = 0
        for byte in raw:
            if not 0x30 <= byte <= 0x39:
                break
            digits = digits * 10 + byte - 0x30
            if digits >= 1 << 64:
                problem = "value out of range"
                break
    raise _Invalid(f"strconv.Atoi: parsing {gostrconv.quote(_text(given))}: {problem}")


def _digits(raw: bytes) -> int:
    """How many ASCII digits ``raw`` starts with."""
    count = 0
    for byte in raw:
        if not 0x30 <= byte <= 0x39:
            break
        count += 1
    return count


# -- the checkers: each raises _Invalid with v6's reason ---------------------------------------

def _json_pointer(raw: bytes) -> None:
    if not raw:
        return
    if raw[:1] != b"/":
        raise _Invalid("not starting with /")
    for token in raw.split(b"/")[1:]:
        # Every rune but "/" (split on) and "~" is allowed; "~" escapes 0 or 1.
        escape = False
        for byte in token:
            if escape:
                escape = False
                if byte not in b"01":
                    raise _Invalid("~ must be followed by 0 or 1")
            elif byte == 0x7E:
                escape = True
        if escape:
            raise _Invalid("~ must be followed by 0 or 1")


def _relative_json_pointer(raw: bytes) -> None:
    count = _digits(raw)
    if count == 0:
        raise _Invalid("must start with non-negative integer")
    if count > 1 and raw[:1] == b"0":
        raise _Invalid("starts with zero")
    rest = raw[count:]
    if rest != b"#":
        _json_pointer(rest)


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _uuid(raw: bytes) -> None:
    sizes = (8, 4, 4, 4, 12)
    groups = raw.split(b"-")
    if len(groups) != len(sizes):
        raise _Invalid(f"must have {len(sizes)} elements")
    for number, (group, size) in enumerate(zip(groups, sizes, strict=True), 1):
        if len(group) != size:
            raise _Invalid(f"element {number} must be {size} characters long")
        for ch in _runes(group):
            if ch not in _HEX_DIGITS:
                raise _Invalid(f"non-hex character {_q(ch)}")


def _duration(raw: bytes) -> None:
    if raw[:1] != b"P":
        raise _Invalid("must start with P")
    raw = raw[1:]
    if not raw:
        raise _Invalid("nothing after P")
    if raw.endswith(b"W"):
        weeks = raw[:-1]
        if not weeks:
            raise _Invalid("no number in week")
        if _digits(weeks) != len(weeks):
            raise _Invalid("invalid week")
        return
    all_units = (b"YMD", b"HMS")
    for i, part in enumerate(raw.split(b"T")):
        if i != 0 and not part:
            raise _Invalid("no time elements")
        if i >= len(all_units):
            raise _Invalid("more than one T")
        units = all_units[i]
        while part:
            count = _digits(part)
            if count == 0:
                raise _Invalid("missing number")
            part = part[count:]
            if not part:
                raise _Invalid("missing unit")
            unit = part[0]  # a byte, printed by %q as the rune of that value
            j = units.find(unit)
            if j == -1:
                if unit in all_units[i]:
                    raise _Invalid(f"unit {_q(chr(unit))} out of order")
                raise _Invalid(f"invalid unit {_q(chr(unit))}")
            units = units[j + 1:]
            part = part[1:]


def _ipv4(raw: bytes) -> None:
    groups = raw.split(b".")
    if len(groups) != 4:
        raise _Invalid("expected four decimals")
    for group in groups:
        if len(group) > 1 and group[:1] == b"0":
            raise _Invalid("leading zeros")
        if not 0 <= _atoi(group) <= 255:
            raise _Invalid("decimal must be between 0 and 255")


def _ipv6(raw: bytes) -> None:
    from helm_core.golib import gonetip

    if b":" not in raw:
        raise _Invalid("missing colon")
    try:
        address = gonetip.parse_addr(_text(raw))
    except gonetip.AddrError as exc:
        raise _Invalid(str(exc)) from None
    if address.zone:
        raise _Invalid("zone id is not a part of ipv6 address")


_HOSTNAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def _hostname(raw: bytes) -> None:
    raw = raw.removesuffix(b".")
    if len(raw) > 253:
        raise _Invalid("more than 253 characters long")
    for label in raw.split(b"."):
        if not 1 <= len(label) <= 63:
            raise _Invalid("label must be 1 to 63 characters long")
        if label.startswith(b"-"):
            raise _Invalid("label starts with hyphen")
        if label.endswith(b"-"):
            raise _Invalid("label ends with hyphen")
        for ch in _runes(label):
            if ch not in _HOSTNAME_CHARACTERS:
                raise _Invalid(f"invalid character {_q(ch)}")


_LOCAL_CHARACTERS = _HOSTNAME_CHARACTERS | frozenset(".!#$%&'*+-/=?^_`{|}~")


def _email(raw: bytes) -> None:
    if len(raw) > 254:
        raise _Invalid("more than 255 characters long")  # sic: v6's words
    at = raw.rfind(b"@")
    if at == -1:
        raise _Invalid("missing @")
    local, domain = raw[:at], raw[at + 1:]
    if len(local) > 64:
        raise _Invalid("local part more than 64 characters long")
    if len(local) > 1 and local.startswith(b'"') and local.endswith(b'"'):
        if b"\\" in local[1:-1] or b'"' in local[1:-1]:
            raise _Invalid("backslash and quote are not allowed within quoted local part")
    else:
        if local.startswith(b"."):
            raise _Invalid("starts with dot")
        if local.endswith(b"."):
            raise _Invalid("ends with dot")
        if b".." in local:
            raise _Invalid("consecutive dots")
        for ch in _runes(local):
            if ch not in _LOCAL_CHARACTERS:
                raise _Invalid(f"invalid character {_q(ch)}")
    if domain.startswith(b"[") and domain.endswith(b"]"):
        literal = domain[1:-1]
        if literal.startswith(b"IPv6:"):
            _nested("invalid ipv6 address", _ipv6, literal[5:])
        else:
            _nested("invalid ipv4 address", _ipv4, literal)
        return
    _nested("invalid domain", _hostname, domain)


def _nested(context: str, check: Callable[[bytes], None], raw: bytes) -> None:
    """A part checked as another format: its reason after ``context: ``."""
    try:
        check(raw)
    except _Invalid as exc:
        raise _Invalid(f"{context}: {exc}") from None


def _date(raw: bytes) -> None:
    import datetime

    from helm_core.golib import gotime
    from helm_core.golib.gotypes import FuncError

    text = _text(raw)
    try:
        gotime.parse_time("2006-01-02", text, datetime.UTC)
    except FuncError as exc:
        # gotime's times are Python datetimes, which have no year 0 (Go's has, a leap year as
        # 2000 is): its days are those of 2000's months.
        if not (text.startswith("0000-") and str(exc).endswith(": day out of range")) \
                or reason("date", "2000" + text[4:]) is not None:
            raise _Invalid(str(exc)) from None


def _time(raw: bytes) -> None:
    # NOTE, as in v6: Go's time package knows no leap seconds; they are checked here.
    if len(raw) < 9:
        raise _Invalid("less than 9 characters long")
    if raw[2:3] != b":" or raw[5:6] != b":":
        raise _Invalid("missing colon in correct place")
    hour, minute, second = _clock_fields(raw[:8].split(b":", 2), "hour/min/sec")
    if hour > 23 or minute > 59 or second > 60:
        raise _Invalid("hour/min/sec out of range")
    rest = raw[8:]
    if rest.startswith(b"."):
        count = _digits(rest[1:])
        if count == 0:
            raise _Invalid("no digits in second fraction")
        rest = rest[1 + count:]
    if rest not in (b"z", b"Z"):
        if len(rest) != 6:
            raise _Invalid("offset must be 6 characters long")
        if rest[:1] == b"+":
            sign = -1
        elif rest[:1] == b"-":
            sign = 1
        else:
            raise _Invalid("offset must begin with plus/minus")
        rest = rest[1:]
        if rest[2:3] != b":":
            raise _Invalid("missing colon in offset in correct place")
        zone_hour, zone_minute = _clock_fields(rest.split(b":", 1), "hour/min in offset")
        if zone_hour > 23 or zone_minute > 59:
            raise _Invalid("hour/min in offset out of range")
        minutes = hour * 60 + minute + sign * (zone_hour * 60 + zone_minute)
        if minutes < 0:
            minutes += 24 * 60
        hour, minute = divmod(minutes, 60)
    if second >= 60 and (hour != 23 or minute != 59):
        raise _Invalid("invalid leap second")


def _clock_fields(tokens: list[bytes], what: str) -> list[int]:
    """The numbers of a time's or an offset's fields (``what`` names them in v6's errors)."""
    fields = []
    for token in tokens:
        try:
            number = _atoi(token)
        except _Invalid:
            raise _Invalid(f"invalid {what}") from None
        if number < 0:
            raise _Invalid(f"non-positive {what}")
        fields.append(number)
    return fields


def _date_time(raw: bytes) -> None:
    if len(raw) < 20:
        raise _Invalid("less than 20 characters long")
    if raw[10] not in b"tT":
        raise _Invalid("11th character must be t or T")
    _nested("invalid date element", _date, raw[:10])
    _nested("invalid time element", _time, raw[11:])


def _period(raw: bytes) -> None:
    slash = raw.find(b"/")
    if slash == -1:
        raise _Invalid("missing slash")
    start, end = raw[:slash], raw[slash + 1:]
    if start.startswith(b"P"):
        _nested("invalid start duration", _duration, start)
        _nested("invalid end date-time", _date_time, end)
    else:
        _nested("invalid start date-time", _date_time, start)
        if end.startswith(b"P"):
            _nested("invalid end duration", _duration, end)
        else:
            _nested("invalid end date-time", _date_time, end)


def _url(raw: bytes) -> URL:
    """v6's ``parseURL``: Go's ``url.Parse``, and an IPv6 host checked (Go does not)."""
    from helm_core.golib import gourl

    try:
        url = gourl.parse(_text(raw))
    except gourl.URLError as exc:
        raise _Invalid(str(exc)) from None
    name = url.hostname()
    if ":" in name:
        if "[" not in url.host or "]" not in url.host:
            raise _Invalid("ipv6 address not enclosed in brackets")
        _nested("invalid ipv6 address", _ipv6, _go(name))
    return url


def _uri(raw: bytes) -> None:
    url = _url(raw)
    if not url.is_abs():
        raise _Invalid("relative url")


def _uri_reference(raw: bytes) -> None:
    if b"\\" in raw:
        raise _Invalid("contains \\")
    _url(raw)


def _uri_template(raw: bytes) -> None:
    from helm_core.golib import gourl

    url = _url(raw)
    for token in url.raw_path.split("/"):
        try:
            decoded = gourl.path_unescape(token)
        except ValueError as exc:
            raise _Invalid(f"percent decode failed: {exc}") from None
        want_open = True
        for ch in decoded:
            if ch not in "{}":
                continue
            if (ch == "{") != want_open:
                raise _Invalid("nested curly braces")
            want_open = not want_open
        if not want_open:
            raise _Invalid("no matching closing brace")


_IDENTIFIER = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")


def _semver(raw: bytes) -> None:
    plus = raw.find(b"+")
    if plus != -1:
        build = raw[plus + 1:]
        if not build:
            raise _Invalid("build is empty")
        for identifier in build.split(b"."):
            if not identifier:
                raise _Invalid("build identifier is empty")
            for ch in _runes(identifier):
                if not ("0" <= ch <= "9" or ch in _IDENTIFIER):
                    raise _Invalid(f"invalid character {_q(ch)} in build identifier")
        raw = raw[:plus]
    dash = raw.find(b"-")
    if dash != -1:
        for identifier in raw[dash + 1:].split(b"."):
            if not identifier:
                raise _Invalid("pre-release identifier is empty")
            numeric = True
            for ch in _runes(identifier):
                if ch in _IDENTIFIER:
                    numeric = False
                elif not "0" <= ch <= "9":
                    raise _Invalid(f"invalid character {_q(ch)} in pre-release identifier")
            if numeric and len(identifier) > 1 and identifier[:1] == b"0":
                raise _Invalid("pre-release numeric identifier starts with zero")
        raw = raw[:dash]
    versions = raw.split(b".")
    if len(versions) != 3:
        raise _Invalid("versionCore must have 3 numbers separated by dot")
    for name, version in zip(("major", "minor", "patch"), versions, strict=True):
        if not version:
            raise _Invalid(f"{name} is empty")
        if len(version) > 1 and version[:1] == b"0":
            raise _Invalid(f"{name} starts with zero")
        if _digits(version) != len(version):
            raise _Invalid(f"{name} contains non-digit")


def _regex(raw: bytes) -> None:
    from helm_core.golib import goregexp

    try:
        goregexp.compile(_text(raw))
    except goregexp.GoSyntaxError as exc:
        raise _Invalid(str(exc)) from None


#: v6's formats by name ("iri" and "iri-reference" are checked as their URI forms).
_CHECKERS: dict[str, Callable[[bytes], None]] = {
    "json-pointer": _json_pointer, "relative-json-pointer": _relative_json_pointer, "uuid": _uuid,
    "duration": _duration, "period": _period, "ipv4": _ipv4, "ipv6": _ipv6, "hostname": _hostname,
    "email": _email, "date": _date, "time": _time, "date-time": _date_time, "uri": _uri, "iri": _uri,
    "uri-reference": _uri_reference, "iri-reference": _uri_reference, "uri-template": _uri_template,
    "semver": _semver, "regex": _regex,
}


#: The formats v6 knows.
NAMES = tuple(_CHECKERS)


def asserted(draft: int) -> bool:
    """Whether v6 asserts ``format`` in a schema of this draft (4, 6, 7, 2019, 2020)."""
    return draft < 2019


def reason(name: str, value: str) -> str | None:
    """Why ``value`` is not of format ``name`` (v6's words), or None when it is, or when the
    format is unknown."""
    check = _CHECKERS.get(name)
    if check is None:
        return None
    try:
        check(_go(value))
    except _Invalid as exc:
        return str(exc)
    return None


def message(name: str, value: str, why: str) -> str:
    """v6's failure: ``'<value>' is not valid <format>: <reason>``."""
    return f"{schema_errors.quote(value)} is not valid {name}: {why}"


def check(name: str) -> Callable[[str], bool]:
    """The verdict's check of format ``name`` (given strings only); a format v6 does not know
    checks nothing."""
    if name not in _CHECKERS:
        return lambda value: True
    return lambda value: reason(name, value) is None
