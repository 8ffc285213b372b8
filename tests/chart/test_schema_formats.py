"""v6's format checkers (schema_formats) and the Go parses under them (golib.gourl, golib.gonetip),
compared with Go's own answers (``format_go_answers.json``, written by ``format_go_cases.py``)."""
from __future__ import annotations

import json
import re

import pytest

from helm_core.chart import schema_formats
from helm_core.golib import gonetip, gourl
from tests.chart.format_go_cases import ANSWERS

PAIRS = json.loads(ANSWERS.read_text(encoding="utf-8"))["pairs"]


def _as_go_json(value: object) -> object:
    """Go's JSON writes invalid UTF-8 (kept here as surrogate escapes) as U+FFFD."""
    if isinstance(value, str):
        return re.sub("[\udc80-\udcff]", "\ufffd", value)
    if isinstance(value, dict):
        return {k: _as_go_json(v) for k, v in value.items()}
    return value


def _ours(question: dict[str, str]) -> dict[str, object]:
    text = question["S"]
    if question["Op"] == "format":
        why = schema_formats.reason(question["F"], text)
        if why is None:
            return {"ok": True}
        return {"err": "- at '': " + schema_formats.message(question["F"], text, why)}
    if question["Op"] == "url":
        try:
            url = gourl.parse(text)
        except gourl.URLError as exc:
            return {"err": str(exc)}
        return {"ok": {"scheme": url.scheme, "opaque": url.opaque, "host": url.host, "hostname": url.hostname(),
                       "path": url.path, "raw_path": url.raw_path, "raw_query": url.raw_query,
                       "fragment": url.fragment}}
    try:
        address = gonetip.parse_addr(text)
    except gonetip.AddrError as exc:
        return {"err": str(exc)}
    return {"ok": {"is4": address.is4, "zone": address.zone}}


@pytest.mark.parametrize("op", ["format", "url", "addr"])
def test_answers_are_gos(op):
    asked = [(q, a) for q, a in PAIRS if q["Op"] == op]
    assert len(asked) > 250
    wrong = [(q, a, ours) for q, a in asked if (ours := _as_go_json(_ours(q))) != a]
    assert not wrong, wrong[:5]


def test_every_format_is_asked_valid_and_invalid():
    answered: dict[str, set[bool]] = {}
    for question, answer in PAIRS:
        if question["Op"] == "format":
            answered.setdefault(question["F"], set()).add("ok" in answer)
    known = set(schema_formats.NAMES) - {"iri", "iri-reference", "regex"}  # the URI forms; Go's regexp has its own
    assert all(answered.get(name) == {True, False} for name in known), answered


@pytest.mark.parametrize(("draft", "asserted"), [(4, True), (6, True), (7, True), (2019, False), (2020, False)])
def test_formats_are_asserted_before_2019_09(draft, asserted):
    assert schema_formats.asserted(draft) is asserted


def test_unknown_formats_check_nothing():
    assert schema_formats.reason("int32", "x") is None
    assert schema_formats.check("int32")("x") is True
    assert schema_formats.check("ipv4")("x") is False


def test_strings_are_go_bytes():
    """Lengths count UTF-8 bytes as Go's len does: 32 two-byte letters are a 64-byte label."""
    assert schema_formats.reason("hostname", "é" * 31 + "a") == "invalid character 'é'"
    assert schema_formats.reason("hostname", "é" * 32) == "label must be 1 to 63 characters long"
    assert schema_formats.reason("uuid", "é" * 4 + "-0000-0000-0000-000000000000") == "non-hex character 'é'"
    short = schema_formats.reason("uuid", "é" * 3 + "-0000-0000-0000-000000000000")
    assert short == "element 1 must be 8 characters long"


def test_a_timestamp_of_year_zero_is_a_date():
    """Go's calendar has a year 0 (a leap year); gotime's datetimes have none."""
    assert schema_formats.reason("date", "0000-02-29") is None
    assert schema_formats.reason("date", "0000-02-30") == 'parsing time "0000-02-30": day out of range'
