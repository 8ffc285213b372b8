"""Go reference-time layouts, parsing errors and durations (expected texts from Go)."""
from __future__ import annotations

import datetime

import pytest

from helm_core.gotemplate.funcs import dates

from helm_core.golib import gotime
from helm_core.golib.gotypes import Duration, FuncError, Int64

T_1700000000 = 1700000000  # 2023-11-14 22:13:20 UTC, a Tuesday


def test_every_layout_token_formats_like_go() -> None:
    layout = "2006-01-02T15:04:05Z07:00 .000 .999 ,000 pm __2 002 Jan January Mon Monday 06 1 2 3 4 5 _2"
    assert dates.date_in_zone(layout, T_1700000000, "UTC") == (
        "2023-11-14T22:13:20Z .000  ,000 pm 318 318 Nov November Tue Tuesday 23 11 14 10 13 20 14")


def test_zones_offsets_and_nanoseconds() -> None:
    t = dates.to_date("2006-01-02 15:04:05.999999999", "2024-03-05 01:02:03.123456789")
    assert dates.date_in_zone("15:04:05.999999999 -0700 -07 -07:00:00 MST", t, "America/New_York") == (
        "20:02:03.123456789 -0500 -05 -05:00:00 EST")
    assert dates.date_in_zone("15:04 MST", 0, "Asia/Tokyo") == "09:00 JST"


def test_unknown_zone_falls_back_to_utc() -> None:
    assert dates.date_in_zone("15:04 MST", 0, "Bad/Zone") == "00:00 UTC"


def test_date_argument_may_be_unix_seconds_or_time() -> None:
    t = datetime.datetime(2024, 3, 5, 10, 0, tzinfo=datetime.timezone.utc)
    assert dates.html_date_in_zone(86400, "UTC") == "1970-01-02"
    assert dates.html_date_in_zone(t, "UTC") == "2024-03-05"
    assert len(dates.date("2006", "not a date")) == 4


PARSE = [
    ("named_zone_unknown_offset_zero", "2006-01-02 MST", "2024-03-05 EST", "2024-03-05 00:00:00 +0000 EST"),
    ("month_name_case_insensitive_pm", "Jan 2 2006 3:04pm", "feb 29 2024 1:05am", "2024-02-29 01:05:00 +0000 UTC"),
    ("year_day", "2006 002", "2024 060", "2024-02-29 00:00:00 +0000 UTC"),
    ("fraction_after_seconds", "2006-01-02 15:04:05", "2024-03-05 01:02:03.5", "2024-03-05 01:02:03.5 +0000 UTC"),
    ("numeric_offset", "2006-01-02T15:04:05Z07:00", "2024-03-05T10:00:00+02:00", "2024-03-05 10:00:00 +0200 +0200"),
    ("utc_z", "2006-01-02T15:04:05Z07:00", "2024-03-05T10:00:00Z", "2024-03-05 10:00:00 +0000 UTC"),
]


@pytest.mark.parametrize(("layout", "value", "printed"), [c[1:] for c in PARSE], ids=[c[0] for c in PARSE])
def test_to_date_parses_go_layouts(layout: str, value: str, printed: str) -> None:
    t = dates.to_date(layout, value)
    assert gotime.format_time(t, gotime.TIME_STRING_LAYOUT) == printed


def test_to_date_failure_is_go_zero_time() -> None:
    assert dates.to_date("2006-01-02", "bad") == datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc)


PARSE_ERRORS = [
    ("element", "2006-01-02", "2024-1-05", 'parsing time "2024-1-05" as "2006-01-02": cannot parse "1-05" as "01"'),
    ("hour_range", "2006-01-02 15:04", "2024-01-05 25:00", 'parsing time "2024-01-05 25:00": hour out of range'),
    ("month_name", "Jan", "Foo", 'parsing time "Foo" as "Jan": cannot parse "Foo" as "Jan"'),
    ("day_range", "2006-01-02", "2024-02-30", 'parsing time "2024-02-30": day out of range'),
    ("extra_text_quoted_bytes", "2006", "2024é", 'parsing time "2024\\xc3\\xa9": extra text: "\\xc3\\xa9"'),
    ("prefix_mismatch", "2006-01", "2024/01", 'parsing time "2024/01" as "2006-01": cannot parse "/01" as "-"'),
]


@pytest.mark.parametrize(("layout", "value", "message"), [c[1:] for c in PARSE_ERRORS], ids=[c[0] for c in PARSE_ERRORS])
def test_must_to_date_errors(layout: str, value: str, message: str) -> None:
    with pytest.raises(FuncError) as err:
        dates.must_to_date(layout, value)
    assert str(err.value) == message


DURATIONS = [
    ("hours_minutes", "1.5h", 5_400_000_000_000),
    ("negative_compound", "-1m30s", -90_000_000_000),
    ("micro_sign", "1µs", 1000),
    ("zero", "0", 0),
    ("fraction_ns", "1.000000001s", 1_000_000_001),
]


@pytest.mark.parametrize(("text", "ns"), [c[1:] for c in DURATIONS], ids=[c[0] for c in DURATIONS])
def test_parse_duration(text: str, ns: int) -> None:
    assert dates.parse_duration(text) == Duration(ns)


DURATION_ERRORS = [
    ("missing_unit", "1", 'time: missing unit in duration "1"'),
    ("unknown_unit", "1x", 'time: unknown unit "x" in duration "1x"'),
    ("empty", "", 'time: invalid duration ""'),
    ("sign_only", "-", 'time: invalid duration "-"'),
    ("dot_only", ".s", 'time: invalid duration ".s"'),
    ("overflow", "9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in DURATION_ERRORS], ids=[c[0] for c in DURATION_ERRORS])
def test_must_date_modify_reports_duration_errors(text: str, message: str) -> None:
    with pytest.raises(FuncError) as err:
        dates.must_date_modify(text, datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc))
    assert str(err.value) == message


def test_date_modify_adds_durations_and_ignores_bad_ones() -> None:
    t = datetime.datetime(2024, 1, 1, tzinfo=gotime.UTC)
    assert dates.date_modify("-1m30s", t) == datetime.datetime(2023, 12, 31, 23, 58, 30, tzinfo=gotime.UTC)
    assert dates.date_modify("bad", t) is t
    assert dates.unix_epoch(dates.date_modify("1h", t)) == "1704070800"


DURATION_TEXT = [
    ("string_seconds", dates.duration, "95", "1m35s"),
    ("int64_seconds", dates.duration, Int64(3), "3s"),
    ("plain_int_ignored_like_go", dates.duration, 95, "0s"),
    ("float_ignored", dates.duration, 3.0, "0s"),
    ("round_hours", dates.duration_round, "2h5m", "2h"),
    ("round_negative", dates.duration_round, "-3s", "3s"),
    ("round_exact_unit_is_lower", dates.duration_round, "1s", "0s"),
    ("round_days", dates.duration_round, Int64(86401 * 10**9), "1d"),
    ("round_plain_int_ignored", dates.duration_round, 86401 * 10**9, "0s"),
    ("round_years", dates.duration_round, "9000h", "1y"),
    ("round_bad_string", dates.duration_round, "bad", "0s"),
]


@pytest.mark.parametrize(("fn", "arg", "expected"), [c[1:] for c in DURATION_TEXT], ids=[c[0] for c in DURATION_TEXT])
def test_duration_text(fn, arg, expected: str) -> None:
    assert fn(arg) == expected


def test_ago_and_now() -> None:
    assert dates.ago(dates.now()) == "0s"
    assert dates.ago(datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=2)) == "2m0s"
    assert dates.now().tzinfo is not None


def test_gmt_offset_zone_names_label_the_utc_wall_clock() -> None:
    t = dates.must_to_date("2006-01-02 MST", "2024-03-05 GMT+3")
    assert (dates.unix_epoch(t), gotime.format_time(t, "15:04 MST -0700")) == ("1709596800", "03:00 GMT+3 +0300")
