"""Go's ``time`` package pieces the date functions need: reference-time layouts
(``2006-01-02 15:04:05``) for formatting and parsing, zones.

Why: chart authors write Go layouts, so ``date "2006-01-02"`` must print exactly
what Go prints. Rules: layouts are tokenised as Go's ``nextStdChunk`` does;
parse errors carry Go's text (``parsing time "x" as "2006": cannot parse "x" as
"2006"``); zones come from the tz database, ``Local`` from /etc/localtime.
"""
from __future__ import annotations

import datetime
import functools
import re

from helm_core.golib.gotypes import FuncError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import zoneinfo
    from collections.abc import Callable

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_NANO = "2006-01-02T15:04:05.999999999Z07:00"
#: Go's default ``time.Time`` print layout (``%v`` / String()).
TIME_STRING_LAYOUT = "2006-01-02 15:04:05.999999999 -0700 MST"
#: Where Go reads the ``Local`` zone when TZ is unset.
LOCALTIME_PATH = "/etc/localtime"

NS_PER_US = 1_000
NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000
NS_PER_MIN = 60 * NS_PER_S
NS_PER_HOUR = 60 * NS_PER_MIN

_LONG_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December"]
_LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
_STD0X = ["zeromonth", "zeroday", "zerohour12", "zerominute", "zerosecond", "year"]
_TZ_STD = {"-070000": "numsecstz", "-07:00:00": "numcolonsecstz", "-0700": "numtz", "-07:00": "numcolontz",
           "-07": "numshorttz", "Z070000": "isosecstz", "Z07:00:00": "isocolonsecstz", "Z0700": "isotz",
           "Z07:00": "isocolontz", "Z07": "isoshorttz"}


class FixedZone(datetime.tzinfo):
    """Go's ``time.FixedZone(name, offset)``; ``name`` may be empty (printed as -0700)."""

    def __init__(self, name: str, offset_seconds: int) -> None:
        self.name = name
        self.offset = datetime.timedelta(seconds=offset_seconds)

    def utcoffset(self, dt: datetime.datetime | None) -> datetime.timedelta:
        return self.offset

    def dst(self, dt: datetime.datetime | None) -> datetime.timedelta:
        return datetime.timedelta(0)

    def tzname(self, dt: datetime.datetime | None) -> str:
        return self.name

    def __reduce__(self) -> tuple[type[FixedZone], tuple[str, int]]:
        return FixedZone, (self.name, int(self.offset.total_seconds()))


UTC = FixedZone("UTC", 0)


@functools.lru_cache(maxsize=1)
def local_zone() -> datetime.tzinfo:
    """Go's ``time.Local`` (its ``initLocal``): ``$TZ`` when set ("" and "UTC" are UTC; a zone
    name, or a file when it starts with "/", after an optional ":"), else /etc/localtime; UTC
    when the zone cannot be loaded."""
    import os
    import zoneinfo  # here: the zone database machinery is only needed for named zones

    wanted = os.environ.get("TZ")
    try:
        if wanted is None:
            return zone_file(LOCALTIME_PATH, "Local")
        wanted = wanted.removeprefix(":")
        if wanted.startswith("/"):
            return zone_file(wanted, wanted)
        if wanted not in ("", "UTC"):
            return zoneinfo.ZoneInfo(wanted)
    except (OSError, ValueError, zoneinfo.ZoneInfoNotFoundError):
        pass
    return UTC


def zone_file(path: str, key: str) -> datetime.tzinfo:
    """The zone of a tz database file (``/etc/localtime``, ``TZ=/path``), named ``key``. It
    pickles and deep-copies as that file read again (zoneinfo's own zones from files refuse to):
    a release's times are stamped in the local zone."""
    with open(path, "rb") as f:
        zone = _file_zone_class().from_file(f, key=key)
    zone.path = path  # type: ignore[attr-defined]
    return zone


@functools.lru_cache(maxsize=1)
def _file_zone_class() -> type[zoneinfo.ZoneInfo]:
    import zoneinfo

    class FileZone(zoneinfo.ZoneInfo):
        path = ""

        def __reduce__(self) -> tuple[Callable[[str, str], datetime.tzinfo], tuple[str, str]]:
            return zone_file, (self.path, str(self))

    return FileZone


def load_location(name: str) -> datetime.tzinfo | None:
    """``time.LoadLocation``: "" and "UTC" are UTC, "Local" the local zone; None when unknown."""
    if name in ("", "UTC"):
        return UTC
    if name == "Local":
        return local_zone()
    import zoneinfo

    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None


def _next_chunk(layout: str) -> tuple[str, str, str, str]:
    """Go's ``nextStdChunk``: (prefix, std token kind, std text, suffix); kind "" at the end."""
    n = len(layout)
    for i, c in enumerate(layout):
        rest = layout[i:]
        if c == "J" and rest.startswith("Jan"):
            if rest.startswith("January"):
                return layout[:i], "longmonth", "January", layout[i + 7:]
            if not rest[3:4].islower() or not rest[3:4].isascii():
                return layout[:i], "month", "Jan", layout[i + 3:]
        elif c == "M":
            if rest.startswith("Mon"):
                if rest.startswith("Monday"):
                    return layout[:i], "longweekday", "Monday", layout[i + 6:]
                if not ("a" <= rest[3:4] <= "z"):
                    return layout[:i], "weekday", "Mon", layout[i + 3:]
            if rest.startswith("MST"):
                return layout[:i], "tz", "MST", layout[i + 3:]
        elif c == "0":
            if i + 1 < n and "1" <= layout[i + 1] <= "6":
                return layout[:i], _STD0X[int(layout[i + 1]) - 1], layout[i:i + 2], layout[i + 2:]
            if rest.startswith("002"):
                return layout[:i], "zeroyearday", "002", layout[i + 3:]
        elif c == "1":
            if rest.startswith("15"):
                return layout[:i], "hour", "15", layout[i + 2:]
            return layout[:i], "nummonth", "1", layout[i + 1:]
        elif c == "2":
            if rest.startswith("2006"):
                return layout[:i], "longyear", "2006", layout[i + 4:]
            return layout[:i], "day", "2", layout[i + 1:]
        elif c == "_":
            if rest.startswith("_2"):
                if rest.startswith("_2006"):
                    return layout[:i + 1], "longyear", "2006", layout[i + 5:]
                return layout[:i], "underday", "_2", layout[i + 2:]
            if rest.startswith("__2"):
                return layout[:i], "underyearday", "__2", layout[i + 3:]
        elif c in "345":
            kind = {"3": "hour12", "4": "minute", "5": "second"}[c]
            return layout[:i], kind, c, layout[i + 1:]
        elif c == "P" and rest.startswith("PM"):
            return layout[:i], "PM", "PM", layout[i + 2:]
        elif c == "p" and rest.startswith("pm"):
            return layout[:i], "pm", "pm", layout[i + 2:]
        elif c in "-Z":
            for text in ("070000", "07:00:00", "0700", "07:00", "07"):
                if rest.startswith(c + text):
                    return layout[:i], _TZ_STD[c + text], c + text, layout[i + 1 + len(text):]
        elif c in ".," and i + 1 < n and layout[i + 1] in "09":
            ch = layout[i + 1]
            j = i + 1
            while j < n and layout[j] == ch:
                j += 1
            if not (j < n and layout[j].isdigit() and layout[j].isascii()):
                return layout[:i], "frac" + ch + c + str(j - i - 1), layout[i:j], layout[j:]
    return layout, "", "", ""


def _offset_seconds(t: datetime.datetime) -> int:
    off = t.utcoffset()
    return int(off.total_seconds()) if off is not None else 0


def format_time(t: datetime.datetime, layout: str) -> str:
    """``t.Format(layout)``."""
    out: list[str] = []
    while layout:
        prefix, std, text, layout = _next_chunk(layout)
        out.append(prefix)
        if not std:
            break
        out.append(_format_std(t, std))
    return "".join(out)


def _format_std(t: datetime.datetime, std: str) -> str:
    year = t.year
    if std == "year":
        return f"{year % 100:02d}"
    if std == "longyear":
        return f"{year:04d}" if year >= 0 else f"-{-year:04d}"
    if std == "month":
        return _LONG_MONTHS[t.month - 1][:3]
    if std == "longmonth":
        return _LONG_MONTHS[t.month - 1]
    if std == "nummonth":
        return str(t.month)
    if std == "zeromonth":
        return f"{t.month:02d}"
    weekday = (t.weekday() + 1) % 7
    if std == "weekday":
        return _LONG_DAYS[weekday][:3]
    if std == "longweekday":
        return _LONG_DAYS[weekday]
    if std == "day":
        return str(t.day)
    if std == "underday":
        return f"{t.day:2d}"
    if std == "zeroday":
        return f"{t.day:02d}"
    yday = t.timetuple().tm_yday
    if std == "underyearday":
        return f"{yday:3d}"
    if std == "zeroyearday":
        return f"{yday:03d}"
    if std == "hour":
        return f"{t.hour:02d}"
    hr12 = t.hour % 12 or 12
    if std == "hour12":
        return str(hr12)
    if std == "zerohour12":
        return f"{hr12:02d}"
    if std == "minute":
        return str(t.minute)
    if std == "zerominute":
        return f"{t.minute:02d}"
    if std == "second":
        return str(t.second)
    if std == "zerosecond":
        return f"{t.second:02d}"
    if std == "PM":
        return "PM" if t.hour >= 12 else "AM"
    if std == "pm":
        return "pm" if t.hour >= 12 else "am"
    if std.startswith("frac"):
        return _format_frac(t, std)
    offset = _offset_seconds(t)
    if std == "tz":
        name = t.tzname() or ""
        if name:
            return name
        zone = offset // 60 if offset >= 0 else -((-offset) // 60)
        sign = "-" if zone < 0 else "+"
        zone = abs(zone)
        return f"{sign}{zone // 60:02d}{zone % 60:02d}"
    if std.startswith("iso") and offset == 0:
        return "Z"
    sign = "-" if offset < 0 else "+"
    absoff = abs(offset)
    zone = absoff // 60
    res = f"{sign}{zone // 60:02d}"
    if "colon" in std:
        res += ":"
    if "short" not in std:
        res += f"{zone % 60:02d}"
    if "secs" in std:
        if "colon" in std:
            res += ":"
        res += f"{absoff % 60:02d}"
    return res


def json_time(t: datetime.datetime | None) -> str:
    """A time as helm's JSON holds it (its ``pkg/time``, over Go's ``Time.MarshalJSON``): RFC 3339
    with nanoseconds, in the time's own offset; "" for none (helm's zero time)."""
    return format_time(t, RFC3339_NANO) if t is not None else ""


def parse_json_time(text: str) -> datetime.datetime | None:
    """A time of helm's JSON (:func:`parse_rfc3339`); None for helm's zero time ("", or Go's
    ``0001-01-01T00:00:00Z``)."""
    if not text or text.startswith("0001-01-01"):
        return None
    return parse_rfc3339(text)


def nanoseconds_of(t: datetime.datetime) -> int:
    """The nanosecond field (Python keeps microseconds; extra digits come from ``go_nanos``)."""
    extra = getattr(t, "go_nanos", None)
    return extra if isinstance(extra, int) else t.microsecond * 1000


def _format_frac(t: datetime.datetime, std: str) -> str:
    kind, sep_char, digits = std[4], std[5], int(std[6:])
    ns = f"{nanoseconds_of(t):09d}"
    frac = ns[:digits] if digits <= 9 else ns
    if kind == "9":
        frac = frac.rstrip("0")
        if not frac:
            return ""
    return sep_char + frac


def go_quote(s: str) -> str:
    """``time``'s private quote: non-ASCII and control bytes as ``\\xNN``."""
    out = ['"']
    for ch in s:
        if ord(ch) >= 0x80 or ch < " ":
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogateescape"))
        else:
            if ch in '"\\':
                out.append("\\")
            out.append(ch)
    out.append('"')
    return "".join(out)


def _parse_error(layout: str, value: str, layout_elem: str, value_elem: str, message: str = "") -> FuncError:
    if message:
        return FuncError(f"parsing time {go_quote(value)}{message}")
    return FuncError(f"parsing time {go_quote(value)} as {go_quote(layout)}: cannot parse "
                     f"{go_quote(value_elem)} as {go_quote(layout_elem)}")


class _Bad(Exception):
    pass


def _getnum(s: str, fixed: bool) -> tuple[int, str]:
    if not s[:1].isdigit() or not s[:1].isascii():
        raise _Bad
    if not (s[1:2].isdigit() and s[1:2].isascii()):
        if fixed:
            raise _Bad
        return int(s[0]), s[1:]
    return int(s[:2]), s[2:]


def _skip(value: str, prefix: str) -> str:
    while prefix:
        if prefix[0] == " ":
            if value and value[0] != " ":
                raise _Bad
            prefix = prefix.lstrip(" ")
            value = value.lstrip(" ")
            continue
        if not value or value[0] != prefix[0]:
            raise _Bad
        prefix, value = prefix[1:], value[1:]
    return value


def _lookup(names: list[str], value: str) -> tuple[int, str]:
    for i, name in enumerate(names):
        if len(value) >= len(name) and value[:len(name)].lower() == name.lower():
            return i, value[len(name):]
    raise _Bad


def _parse_nanos(value: str, nbytes: int) -> int:
    if value[:1] not in (".", ","):
        raise _Bad
    if nbytes > 10:
        value, nbytes = value[:10], 10
    digits = value[1:nbytes]
    if not digits.isdigit() or not digits.isascii():
        raise _Bad
    return int(digits.ljust(9, "0"))  # the fraction in nanoseconds (at most 9 digits)


def parse_time(layout: str, value: str, default_zone: datetime.tzinfo) -> datetime.datetime:
    """``time.ParseInLocation(layout, value, zone)`` with Go's errors; keeps Go nanoseconds."""
    alayout, avalue = layout, value
    year, month, day, yday = 0, -1, -1, -1
    hour = minute = sec = nsec = 0
    zone: datetime.tzinfo | None = None
    zone_offset: int | None = None
    zone_name = ""
    am = pm = False
    while True:
        prefix, std, stdstr, suffix = _next_chunk(layout)
        try:
            value = _skip(value, prefix)
        except _Bad:
            raise _parse_error(alayout, avalue, prefix, value) from None
        if not std:
            if value:
                raise _parse_error(alayout, avalue, "", value, ": extra text: " + go_quote(value))
            break
        layout = suffix
        hold = value
        range_err = ""
        try:
            if std == "year":
                if len(value) < 2 or not value[:2].isdigit() or not value[:2].isascii():  # not "２０"
                    raise _Bad
                year = int(value[:2])
                value = value[2:]
                year += 1900 if year >= 69 else 2000
            elif std == "longyear":
                if len(value) < 4 or not value[:4].isdigit() or not value[:4].isascii():
                    raise _Bad
                year, value = int(value[:4]), value[4:]
            elif std in ("month", "longmonth"):
                names = [m[:3] for m in _LONG_MONTHS] if std == "month" else _LONG_MONTHS
                month, value = _lookup(names, value)
                month += 1
            elif std in ("nummonth", "zeromonth"):
                month, value = _getnum(value, std == "zeromonth")
                if not 1 <= month <= 12:
                    range_err = "month"
            elif std in ("weekday", "longweekday"):
                names = [d[:3] for d in _LONG_DAYS] if std == "weekday" else _LONG_DAYS
                _, value = _lookup(names, value)
            elif std in ("day", "underday", "zeroday"):
                if std == "underday" and value[:1] == " ":
                    value = value[1:]
                day, value = _getnum(value, std == "zeroday")
            elif std in ("underyearday", "zeroyearday"):
                for _ in range(2):
                    if std == "underyearday" and value[:1] == " ":
                        value = value[1:]
                m = re.match(r"[0-9]{1,3}", value)
                if not m or std == "zeroyearday" and len(m.group()) != 3:
                    raise _Bad
                yday, value = int(m.group()), value[m.end():]
            elif std == "hour":
                hour, value = _getnum(value, False)
                if not 0 <= hour < 24:
                    range_err = "hour"
            elif std in ("hour12", "zerohour12"):
                hour, value = _getnum(value, std == "zerohour12")
                if not 0 <= hour <= 12:
                    range_err = "hour"
            elif std in ("minute", "zerominute"):
                minute, value = _getnum(value, std == "zerominute")
                if not 0 <= minute < 60:
                    range_err = "minute"
            elif std in ("second", "zerosecond"):
                sec, value = _getnum(value, std == "zerosecond")
                if not 0 <= sec < 60:
                    range_err = "second"
                elif len(value) >= 2 and value[0] in ".," and value[1].isdigit():
                    nxt = _next_chunk(layout)[1]
                    if not nxt.startswith("frac"):
                        m = re.match(r"[.,][0-9]+", value)
                        assert m
                        nsec = _parse_nanos(value, m.end())
                        value = value[m.end():]
            elif std in ("PM", "pm"):
                if len(value) < 2:
                    raise _Bad
                p, value = value[:2], value[2:]
                if p == std or p == ("PM" if std == "PM" else "pm"):
                    pm = True
                elif p == ("AM" if std == "PM" else "am"):
                    am = True
                else:
                    raise _Bad
            elif std.startswith(("iso", "num")):
                if std.startswith("iso") and value[:1] == "Z":
                    value = value[1:]
                    zone = UTC
                else:
                    zone_offset, value, range_err = _parse_offset(std, value)
            elif std == "tz":
                if value.startswith("UTC"):
                    zone, value = UTC, value[3:]
                else:
                    n = _parse_zone_name(value)
                    zone_name, value = value[:n], value[n:]
            elif std.startswith("frac0"):
                ndigit = 1 + int(std[6:])
                if len(value) < ndigit:
                    raise _Bad
                nsec = _parse_nanos(value, ndigit)
                value = value[ndigit:]
            elif std.startswith("frac9"):
                if len(value) >= 2 and value[0] in ".," and "0" <= value[1] <= "9":
                    m = re.match(r"[.,][0-9]+", value)
                    assert m
                    nsec = _parse_nanos(value, m.end())
                    value = value[m.end():]
        except _Bad:
            raise _parse_error(alayout, avalue, stdstr, hold) from None
        if range_err:
            raise _parse_error(alayout, avalue, stdstr, value, f": {range_err} out of range")
    if pm and hour < 12:
        hour += 12
    elif am and hour == 12:
        hour = 0
    if yday >= 0:
        try:
            d = datetime.date(year, 1, 1) + datetime.timedelta(days=yday - 1)
        except (OverflowError, ValueError):
            raise _parse_error(alayout, avalue, "", value, ": day-of-year out of range") from None
        if yday < 1 or d.year != year:
            raise _parse_error(alayout, avalue, "", value, ": day-of-year out of range")
        if month >= 0 and month != d.month:
            raise _parse_error(alayout, avalue, "", value, ": day-of-year does not match month")
        if day >= 0 and day != d.day:
            raise _parse_error(alayout, avalue, "", value, ": day-of-year does not match day")
        month, day = d.month, d.day
    else:
        month = 1 if month < 0 else month
        day = 1 if day < 0 else day
    try:
        naive = datetime.datetime(year, month, day, hour, minute, sec, nsec // 1000)
    except ValueError:
        raise _parse_error(alayout, avalue, "", value, ": day out of range") from None
    if zone is not None:
        result = naive.replace(tzinfo=zone)
    elif zone_offset is not None:
        utc = naive - datetime.timedelta(seconds=zone_offset)
        local = utc.replace(tzinfo=datetime.UTC).astimezone(local_zone())
        if _offset_seconds(local) == zone_offset:
            result = local
        else:
            result = utc.replace(tzinfo=datetime.UTC).astimezone(FixedZone(zone_name, zone_offset))
    elif zone_name:
        local = naive.replace(tzinfo=local_zone())
        if local.tzname() == zone_name:
            result = local
        else:
            # Go keeps the wall clock as UTC and only labels it (GMT+3 gets a +3h offset).
            offset = int(zone_name[3:]) * 3600 if zone_name.startswith("GMT") and len(zone_name) > 3 else 0
            result = naive.replace(tzinfo=datetime.UTC).astimezone(FixedZone(zone_name, offset))
    else:
        result = naive.replace(tzinfo=default_zone)
    return with_nanos(result, nsec)


def _parse_zone_name(value: str) -> int:
    """Go's ``parseTimeZone``: the length of a zone abbreviation at the start of ``value``."""
    if len(value) < 3:
        raise _Bad
    if value[:4] in ("ChST", "MeST"):
        return 4
    if value.startswith("GMT"):
        m = re.match(r"[+-]([0-9]+)", value[3:])
        if m and int(m.group(1)) <= 23:
            return 3 + m.end()
        return 3
    if value[0] in "+-":
        m = re.match(r"[+-]([0-9]+)", value)
        if m and int(m.group(1)) <= 23:
            return m.end()
        raise _Bad
    upper = re.match(r"[A-Z]{0,6}", value)
    n = len(upper.group()) if upper else 0
    if n == 5 and value[4] == "T" or n == 4 and (value[3] == "T" or value[:4] == "WITA") or n == 3:
        return n
    raise _Bad


class GoTime(datetime.datetime):
    """A ``datetime`` that remembers Go's nanoseconds beyond Python's microseconds."""

    go_nanos: int

    def __reduce_ex__(self, protocol: object) -> tuple[Callable[[datetime.datetime, int], datetime.datetime],
                                                       tuple[datetime.datetime, int]]:
        # datetime's own pickles (and copies) keep the class, not the nanoseconds
        plain = datetime.datetime(self.year, self.month, self.day, self.hour, self.minute, self.second,
                                  self.microsecond, self.tzinfo, fold=self.fold)
        return with_nanos, (plain, self.go_nanos)


def with_nanos(t: datetime.datetime, nsec: int) -> datetime.datetime:
    """``t`` carrying ``nsec`` as its nanosecond field (only kept when it has sub-µs digits)."""
    if nsec % 1000 == 0:
        return t
    g = GoTime(t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond, t.tzinfo, fold=t.fold)
    g.go_nanos = nsec
    return g


def _parse_offset(std: str, value: str) -> tuple[int, str, str]:
    colon = "colon" in std
    if "short" in std:
        need, parts = 3, (value[1:3], "00", "00")
    elif "secs" in std and colon:
        need = 9
        if len(value) >= 9 and (value[3] != ":" or value[6] != ":"):
            raise _Bad
        parts = (value[1:3], value[4:6], value[7:9])
    elif "secs" in std:
        need, parts = 7, (value[1:3], value[3:5], value[5:7])
    elif colon:
        need = 6
        if len(value) >= 6 and value[3] != ":":
            raise _Bad
        parts = (value[1:3], value[4:6], "00")
    else:
        need, parts = 5, (value[1:3], value[3:5], "00")
    if len(value) < need:
        raise _Bad
    hr, _ = _getnum(parts[0], True)
    mm, _ = _getnum(parts[1], True)
    ss, _ = _getnum(parts[2], True)
    range_err = ""
    if hr > 24:
        range_err = "time zone offset hour"
    if mm > 60:
        range_err = "time zone offset minute"
    if ss > 60:
        range_err = "time zone offset second"
    offset = (hr * 60 + mm) * 60 + ss
    if value[0] == "-":
        offset = -offset
    elif value[0] != "+":
        raise _Bad
    return offset, value[need:], range_err


def parse_rfc3339(text: str) -> datetime.datetime:
    """A ``time.Time`` as Go's JSON holds it (RFC 3339, nanoseconds kept), in the zone Go's
    ``UnmarshalJSON`` gives it: UTC for "Z"; the ``Local`` zone when its offset at that instant
    is the given one (so its abbreviation prints, ``CET``), else a zone named by nothing (printed
    as its offset, ``+0100``). ``ValueError`` for other text."""
    parsed = datetime.datetime.fromisoformat(text)  # Python 3.11 reads a fraction of any length
    offset = parsed.utcoffset()
    if offset is None:
        raise ValueError(f"no time zone in {text!r}")
    stamp = parsed if text.endswith(("Z", "z")) else _in_local_or_fixed(parsed, int(offset.total_seconds()))
    dot = text.find(".", 19)
    if dot < 0:
        return stamp
    end = dot + 1
    while end < len(text) and text[end].isdigit():
        end += 1
    return with_nanos(stamp, int(text[dot + 1:end][:9].ljust(9, "0")))


def _in_local_or_fixed(t: datetime.datetime, offset: int) -> datetime.datetime:
    local = t.astimezone(local_zone())
    return local if _offset_seconds(local) == offset else t.astimezone(FixedZone("", offset))


def now() -> datetime.datetime:
    """``time.Now()``: in the local zone, to the nanosecond (as helm stamps its releases)."""
    import time

    seconds, nanos = divmod(time.time_ns(), NS_PER_S)
    stamp = datetime.datetime.fromtimestamp(seconds, tz=local_zone()).replace(microsecond=nanos // NS_PER_US)
    return with_nanos(stamp, nanos)

