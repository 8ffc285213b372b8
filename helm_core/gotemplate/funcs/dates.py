"""Dates: ``now``, ``date``, ``dateInZone``/``date_in_zone``, ``htmlDate``, ``htmlDateInZone``,
``dateModify``/``date_modify``, ``mustDateModify``/``must_date_modify``, ``toDate``,
``mustToDate``, ``unixEpoch``, ``ago``, ``duration``, ``durationRound``.

Why: layouts are Go reference-time layouts (see :mod:`gotime`). Rules from
Sprig: a date argument may be a time or Unix seconds (int); anything else means
"now"; an unknown zone falls back to UTC; ``toDate`` returns Go's zero time on
error. ``duration`` and ``durationRound`` take a number only as a Go int64
(:class:`Int64`: Sprig math results, ``int64``); a plain Go ``int`` (a literal,
``len``) is ignored as Sprig's type switch ignores it.
"""
from __future__ import annotations

import datetime
import re

from helm_core.golib import gotime
from helm_core.golib.gotypes import Duration, FuncError, Int64, signature
from helm_core.gotemplate import gofmt
from helm_core.gotemplate.funcs import conversion

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HTML_DATE_LAYOUT = "2006-01-02"
#: Go's zero ``time.Time``: January 1, year 1, 00:00:00 UTC.
ZERO_TIME = datetime.datetime(1, 1, 1, tzinfo=gotime.UTC)
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)

_YEAR_NS = gotime.NS_PER_HOUR * 24 * 365
_MONTH_NS = gotime.NS_PER_HOUR * 24 * 30
_DAY_NS = gotime.NS_PER_HOUR * 24


_UNITS = {"ns": 1, "us": gotime.NS_PER_US, "\u00b5s": gotime.NS_PER_US, "\u03bcs": gotime.NS_PER_US,
          "ms": gotime.NS_PER_MS,
          "s": gotime.NS_PER_S, "m": gotime.NS_PER_MIN, "h": gotime.NS_PER_HOUR}
_DURATION_MAX = (1 << 63) - 1


def parse_duration(s: str) -> Duration:
    """``time.ParseDuration`` with Go's error texts."""
    orig = s
    neg = False
    if s[:1] in "+-" and s:
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return Duration(0)
    if not s:
        raise FuncError(f"time: invalid duration {gotime.go_quote(orig)}")
    total = 0
    while s:
        m = re.match(r"([0-9]*)(?:\.([0-9]*))?", s)
        assert m
        whole, frac = m.group(1), m.group(2)
        if not whole and not frac:
            raise FuncError(f"time: invalid duration {gotime.go_quote(orig)}")
        s = s[m.end():]
        u = re.match(r"[^0-9.]*", s)
        assert u
        unit = u.group()
        if not unit:
            raise FuncError(f"time: missing unit in duration {gotime.go_quote(orig)}")
        if unit not in _UNITS:
            raise FuncError(f"time: unknown unit {gotime.go_quote(unit)} in duration {gotime.go_quote(orig)}")
        s = s[u.end():]
        scale = _UNITS[unit]
        v = int(whole or "0") * scale
        if frac:
            f = int(frac[:18]) if frac[:18] else 0
            v += f * scale // 10 ** len(frac[:18])
        total += v
        if total > _DURATION_MAX + (1 if neg else 0):
            raise FuncError(f"time: invalid duration {gotime.go_quote(orig)}")
    return Duration(-total if neg else total)


def format_duration(d: Duration | int) -> str:
    """``time.Duration.String``: ``1h2m3.5s``, ``1.5ms``, ``0s`` (gofmt's rule)."""
    return gofmt.format_duration(d.nanoseconds if isinstance(d, Duration) else d)


def _as_time(v: Any) -> datetime.datetime:
    if isinstance(v, datetime.datetime):
        return v if v.tzinfo is not None else v.replace(tzinfo=gotime.UTC)
    if isinstance(v, int) and not isinstance(v, bool):
        return _EPOCH + datetime.timedelta(seconds=v)
    return gotime.now()


def _in_zone(t: datetime.datetime, zone: str) -> datetime.datetime:
    loc = gotime.load_location(zone) or gotime.UTC
    converted = t.astimezone(loc)
    nanos = gotime.nanoseconds_of(t)
    return gotime.with_nanos(converted, nanos)


@signature()
def now() -> datetime.datetime:
    """``now``: the current local time."""
    return gotime.now()


@signature("string", "interface {}", "string")
def date_in_zone(layout: str, date: Any, zone: str) -> str:
    """``dateInZone LAYOUT DATE ZONE``."""
    return gotime.format_time(_in_zone(_as_time(date), zone), layout)


@signature("string", "interface {}")
def date(layout: str, d: Any) -> str:
    """``date LAYOUT DATE`` in the local zone."""
    return gotime.format_time(_in_zone(_as_time(d), "Local"), layout)


@signature("interface {}")
def html_date(d: Any) -> str:
    """``htmlDate``: ``2006-01-02`` in the local zone."""
    return gotime.format_time(_in_zone(_as_time(d), "Local"), HTML_DATE_LAYOUT)


@signature("interface {}", "string")
def html_date_in_zone(d: Any, zone: str) -> str:
    """``htmlDateInZone``."""
    return gotime.format_time(_in_zone(_as_time(d), zone), HTML_DATE_LAYOUT)


def _add(t: datetime.datetime, d: Duration) -> datetime.datetime:
    total = gotime.nanoseconds_of(t) + d.nanoseconds
    seconds, nanos = divmod(total, gotime.NS_PER_S)
    base = t.replace(microsecond=0) if not isinstance(t, gotime.GoTime) else datetime.datetime(
        t.year, t.month, t.day, t.hour, t.minute, t.second, 0, t.tzinfo)
    shifted = (base.astimezone(datetime.UTC) + datetime.timedelta(seconds=seconds)).astimezone(t.tzinfo)
    return gotime.with_nanos(shifted.replace(microsecond=nanos // 1000), nanos)


@signature("string", "time.Time")
def must_date_modify(spec: str, t: datetime.datetime) -> datetime.datetime:
    """``mustDateModify DURATION TIME``."""
    return _add(t, parse_duration(spec))


@signature("string", "time.Time")
def date_modify(spec: str, t: datetime.datetime) -> datetime.datetime:
    """``dateModify``: the time unchanged when the duration is invalid."""
    try:
        return must_date_modify(spec, t)
    except FuncError:
        return t


@signature("string", "string")
def must_to_date(layout: str, value: str) -> datetime.datetime:
    """``mustToDate LAYOUT STRING`` (in the local zone unless the text names one)."""
    return gotime.parse_time(layout, value, gotime.local_zone())


@signature("string", "string")
def to_date(layout: str, value: str) -> datetime.datetime:
    """``toDate``: Go's zero time when the text does not parse."""
    try:
        return must_to_date(layout, value)
    except FuncError:
        return ZERO_TIME


def _unix(t: datetime.datetime) -> int:
    delta = t - _EPOCH
    return delta.days * 86400 + delta.seconds


@signature("time.Time")
def unix_epoch(t: datetime.datetime) -> str:
    """``unixEpoch``: seconds since 1970 as text."""
    return str(_unix(t))


def _since_ns(t: datetime.datetime) -> int:
    current = gotime.now()
    delta = current - t
    return (delta.days * 86400 + delta.seconds) * gotime.NS_PER_S + delta.microseconds * 1000


def _round_seconds(ns: int) -> int:
    """``Duration.Round(time.Second)``: halves away from zero."""
    q, r = divmod(abs(ns), gotime.NS_PER_S)
    if r * 2 >= gotime.NS_PER_S:
        q += 1
    return (q if ns >= 0 else -q) * gotime.NS_PER_S


@signature("interface {}")
def ago(d: Any) -> str:
    """``ago``: time since DATE, rounded to seconds."""
    return format_duration(_round_seconds(_since_ns(_as_time(d))))


@signature("interface {}")
def duration(sec: Any) -> str:
    """``duration SECONDS``: seconds (int64 or numeric string) as a Go duration; anything else is 0s."""
    n = 0
    if isinstance(sec, str):
        try:
            n = conversion.parse_int(sec, 10)
        except conversion.ParseError as e:
            n = e.clamped
    elif isinstance(sec, Int64):
        n = sec
    total = (n * gotime.NS_PER_S + (1 << 63)) % (1 << 64) - (1 << 63)
    return format_duration(total)


@signature("interface {}")
def duration_round(d: Any) -> str:
    """``durationRound``: the largest whole unit (y, mo, d, h, m, s) of a duration."""
    ns = 0
    if isinstance(d, str):
        try:
            ns = parse_duration(d).nanoseconds
        except FuncError:
            ns = 0
    elif isinstance(d, Duration):
        ns = d.nanoseconds
    elif isinstance(d, Int64):
        ns = d
    elif isinstance(d, datetime.datetime):
        ns = _since_ns(d)
    u = abs(ns)
    for size, suffix in ((_YEAR_NS, "y"), (_MONTH_NS, "mo"), (_DAY_NS, "d"), (gotime.NS_PER_HOUR, "h"),
                         (gotime.NS_PER_MIN, "m"), (gotime.NS_PER_S, "s")):
        if u > size:
            return f"{u // size}{suffix}"
    return "0s"


FUNCS = {
    "ago": ago,
    "date": date,
    "date_in_zone": date_in_zone,
    "date_modify": date_modify,
    "dateInZone": date_in_zone,
    "dateModify": date_modify,
    "duration": duration,
    "durationRound": duration_round,
    "htmlDate": html_date,
    "htmlDateInZone": html_date_in_zone,
    "must_date_modify": must_date_modify,
    "mustDateModify": must_date_modify,
    "mustToDate": must_to_date,
    "now": now,
    "toDate": to_date,
    "unixEpoch": unix_epoch,
}
