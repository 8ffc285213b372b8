"""Go's ``time.Local`` (``$TZ``) and its JSON reading of times (``gotime.local_zone``,
``gotime.parse_rfc3339``), as helm reads the times of a release record another helm wrote in
another zone, and the layouts helm prints them with (``cli/release.py``, ``gotime.json_time``), against
Go's own answers (``gotime_local_go_answers.json``: the program and what it printed under each
``TZ``)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helm_core.cli import release as cli_release
from helm_core.golib import gotime

GO: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "gotime_local_go_answers.json").read_text())["answers"]


@pytest.mark.parametrize("go", GO, ids=[f"{go['tz'] or 'empty'}-{go['text']}" for go in GO])
def test_a_records_time_reads_and_prints_as_go_reads_and_prints_it(local_tz, go: dict[str, Any]) -> None:  # noqa: ANN001
    local_tz(go["tz"])
    parsed = gotime.parse_rfc3339(go["text"])
    assert cli_release.go_time(parsed) == go["string"]  # helm list's UPDATED
    assert cli_release.ansic(parsed) == go["ansic"]  # LAST DEPLOYED, history's UPDATED, TEST SUITE
    assert cli_release.rfc3339(parsed) == go["rfc3339"]  # get metadata's DEPLOYED_AT
    assert gotime.json_time(parsed) == go["json"] == go["text"]  # -o json|yaml; the record written back
    assert gotime.format_time(parsed, "2006-01-02 15:04:05Z0700 MST") == go["layout"]  # list --time-format


def test_the_local_zone_is_tzs_as_in_go(local_tz) -> None:  # noqa: ANN001
    winter = gotime.parse_rfc3339("2026-01-02T03:04:05Z")
    for tz, offset, name in (("Asia/Kolkata", 19800, "IST"), (":Europe/Berlin", 3600, "CET"),
                             ("", 0, "UTC"), ("UTC", 0, "UTC"), ("Nowhere/Zone", 0, "UTC"),
                             ("/no/such/file", 0, "UTC")):
        local_tz(tz)
        local = winter.astimezone(gotime.local_zone())
        assert (local.utcoffset().total_seconds(), local.tzname()) == (offset, name), tz


def test_no_time_is_helms_zero_time_in_json() -> None:
    """helm's ``pkg/time`` marshals its zero time as "" (``-o json``'s ``deleted`` of a live
    release, a hook's ``last_run`` that never ran), not Go's ``0001-01-01T00:00:00Z``."""
    assert gotime.json_time(None) == ""


def test_now_is_gos_time_now_in_the_local_zone_to_the_nanosecond(local_tz, monkeypatch) -> None:  # noqa: ANN001
    """``time.Now()``, as helm stamps a release's times: the local zone, nanoseconds."""
    import time

    local_tz("Asia/Kolkata")
    monkeypatch.setattr(time, "time_ns", lambda: 1_795_000_000_123_456_789)
    stamp = gotime.now()
    assert gotime.json_time(stamp) == "2026-11-18T16:36:40.123456789+05:30"
    assert cli_release.go_time(stamp) == "2026-11-18 16:36:40.123456789 +0530 IST"
    assert gotime.parse_json_time(gotime.json_time(stamp)) == stamp


def test_helms_zero_time_reads_as_none() -> None:
    assert gotime.parse_json_time("") is None
    assert gotime.parse_json_time("0001-01-01T00:00:00Z") is None


@pytest.mark.parametrize("tz", [None, "", "Asia/Kolkata", "/usr/share/zoneinfo/Asia/Kolkata"])
def test_a_stamp_in_the_local_zone_pickles_and_copies_whole(local_tz, monkeypatch, tz) -> None:  # noqa: ANN001
    """A release's times are stamped in the local zone, to the nanosecond: a copy or a pickle of
    one is the same time in the same zone, nanoseconds kept (zoneinfo refuses to pickle a zone
    read from a file, as ``/etc/localtime`` is when ``TZ`` is unset)."""
    import copy
    import pickle
    import time

    if tz is None:
        local_tz("")
        monkeypatch.delenv("TZ")
        monkeypatch.setattr(gotime, "LOCALTIME_PATH", "/usr/share/zoneinfo/Asia/Kolkata")
    else:
        local_tz(tz)
    monkeypatch.setattr(time, "time_ns", lambda: 1_795_000_000_123_456_789)
    stamp = gotime.now()
    assert gotime.json_time(stamp) == ("2026-11-18T11:06:40.123456789Z" if tz == "" else
                                       "2026-11-18T16:36:40.123456789+05:30")
    for again in (pickle.loads(pickle.dumps(stamp)), copy.deepcopy(stamp), copy.copy(stamp)):
        assert again == stamp
        assert cli_release.go_time(again) == cli_release.go_time(stamp)
        assert gotime.json_time(again) == gotime.json_time(stamp)
