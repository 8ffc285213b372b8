"""values.schema.json ``format`` and ``multipleOf`` as helm 3.22 checks them: through helm and helm-core.

helm's validator (santhosh-tekuri/jsonschema v6) asserts ``format`` in drafts 4, 6 and 7 (an
annotation in 2019-09 and 2020-12) and decides ``multipleOf`` on the numbers' decimal text. One
chart holds every case below as a property of its own: helm prints the failing ones, each as
``- at '/pNNN': '<value>' is not valid <format>: <reason>``; helm-core must print the same tree.
The checkers are also compared case by case with helm's lines (a failure names its case).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helm_core.chart import schema, schema_formats
from tests.test_cli_helm import Both
from tests.test_schema_errors_helm import _chart, _same_report

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
_LABEL = "a" * 63

#: (format, value): valid and invalid strings of every format v6 knows, and two it does not.
FORMAT_CASES = [
    ('ipv4', '1.2.3.4'), ('ipv4', '255.255.255.255'), ('ipv4', '256.1.1.1'), ('ipv4', '01.2.3.4'),
    ('ipv4', '1.2.3'), ('ipv4', '1.2.3.4.5'), ('ipv4', '+1.2.3.4'), ('ipv4', '-1.2.3.4'), ('ipv4', '-0.2.3.4'),
    ('ipv4', '1..3.4'), ('ipv4', '1.2.3.x'), ('ipv4', '99999999999999999999.1.1.1'), ('ipv4', '0x1.1.1.1'),
    ('ipv4', '1.2.3.٣'),
    ('ipv6', '::1'), ('ipv6', '::'), ('ipv6', 'fe80::1%eth0'), ('ipv6', '1.2.3.4'), ('ipv6', '::ffff:1.2.3.4'),
    ('ipv6', '1:2:3:4:5:6:7:8:9'), ('ipv6', '1::2::3'), ('ipv6', '12345::'), ('ipv6', '1:2:3:4:5:6:7:8'),
    ('ipv6', '1:2:3:4:5:6:7::'), ('ipv6', '1:2'), ('ipv6', '::1%'), ('ipv6', ':1'), ('ipv6', '1:'),
    ('ipv6', '1:2:3:4:5:6:1.2.3.4'), ('ipv6', '1:2:3:4:5:1.2.3.4'), ('ipv6', '::1.2.3'), ('ipv6', '::01.2.3.4'),
    ('ipv6', '1.2.3.4:5'), ('ipv6', 'g::1'), ('ipv6', '::1 '), ('ipv6', '1:2:3:4:5:6:7:1.2.3.4'),
    ('ipv6', '::ffff:1.2.3.4.5'),
    ('hostname', 'example.com'), ('hostname', 'example.com.'), ('hostname', 'a..b'), ('hostname', '-a.com'),
    ('hostname', 'a-.com'), ('hostname', _LABEL + ".com"),
    ('hostname', _LABEL + "a.com"),
    ('hostname', ".".join([_LABEL] * 4)),
    ('hostname', ".".join([_LABEL] * 3) + "." + "a" * 61), ('hostname', ".".join([_LABEL] * 3) + "." + "a" * 61 + "."),
    ('hostname', ".".join([_LABEL] * 3) + "." + "a" * 62), ('hostname', "a" * 64 + "."),
    ('hostname', 'a_b.com'), ('hostname', 'héllo.com'), ('hostname', ''), ('hostname', '.'),
    ('hostname', 'a.b..'), ('hostname', 'xn--nxasmq6b.com'), ('hostname', '1.2.3.4'),
    ('email', 'joe@example.com'), ('email', '"joe bloggs"@example.com'), ('email', '"jo\\e"@example.com'),
    ('email', '"'), ('email', 'joe@[127.0.0.1]'), ('email', 'joe@[IPv6:::1]'), ('email', 'joe@[IPv6:1.2.3.4]'),
    ('email', 'joe@[300.0.0.1]'), ('email', 'joe@[]'), ('email', 'joe'), ('email', '.joe@x.com'),
    ('email', 'joe.@x.com'), ('email', 'j..oe@x.com'), ('email', 'jö@x.com'), ('email', 'joe@-x.com'),
    ('email', "a" * 65 + "@x.com"),
    ('email', "a@" + "b" * 260),
    ('email', 'joe@'), ('email', 'a@b@c.com'), ('email', 'joe@x.com.'), ('email', 'joe@[IPv6:fe80::1%eth0]'),
    ('email', 'j(o)e@x.com'), ('email', '"a@b"@x.com'), ('email', '""@x.com'), ('email', '"a b"@[IPv6:::1]'),
    ('email', '"a\\"b"@x.com'), ('email', 'x@[IPv6:::1%25eth0]'), ('email', 'x@[::1]'), ('email', 'x@[1.2.3.4'),
    ('email', "!#$%&'*+-/=?^_`{|}~@x.com"), ('email', "a" * 64 + "@" + ".".join([_LABEL] * 3) + "." + "a" * 60),
    ('email', "a" * 64 + "@" + ".".join([_LABEL] * 3) + "." + "a" * 61),
    ('date', '2020-02-29'), ('date', '2021-02-29'), ('date', '2021-13-01'), ('date', '2021-1-01'),
    ('date', '2021-01-01x'), ('date', '20210101'), ('date', 'x'), ('date', '2021-04-31'), ('date', '0000-01-01'),
    ('date', '2021-01-00'),
    ('time', '12:00:00Z'), ('time', '23:59:60Z'), ('time', '12:00:60Z'), ('time', '23:59:60+00:00'),
    ('time', '00:59:60+01:00'), ('time', '15:59:60-08:00'), ('time', '12:00:00'), ('time', '12:00:00.5z'),
    ('time', '12:00:00.Z'), ('time', '12:00:00+0100'), ('time', '24:00:00Z'), ('time', '12:60:00Z'),
    ('time', '12:00:61Z'), ('time', '1:00:00Z'), ('time', '12:00:00+24:00'), ('time', '12:00:00*01:00'),
    ('time', '12:00:00+01-00'), ('time', '+1:00:00Z'), ('time', '-1:00:00Z'), ('time', 'ab:00:00Z'),
    ('time', '12:00:00+-1:00'), ('time', '12:00:00+01:60'), ('time', '12:00:00.123456789+05:30'),
    ('time', '12:0:000Z'),
    ('date-time', '2020-01-01T00:00:00Z'), ('date-time', '2020-01-01t00:00:00z'),
    ('date-time', '2020-01-01 00:00:00Z'), ('date-time', '2016-12-31T23:59:60Z'),
    ('date-time', '2016-12-31T15:59:60-08:00'), ('date-time', '2016-12-31T22:59:60Z'),
    ('date-time', '2020-01-01T00:00:00'), ('date-time', '2020-02-30T00:00:00Z'),
    ('date-time', '2020-01-01T25:00:00Z'), ('date-time', '2020-01-01T00:00:00.123+01:00'), ('date-time', 'x'),
    ('date-time', '2020-01-0éT00:00:00Z'),
    ('duration', 'P1Y'), ('duration', 'P1W'), ('duration', 'PT1H'), ('duration', 'P1Y2M3DT4H5M6S'),
    ('duration', 'P'), ('duration', 'PT'), ('duration', 'P1D2Y'), ('duration', 'P1X'), ('duration', '1Y'),
    ('duration', 'P1'), ('duration', 'PW'), ('duration', 'P1DW'), ('duration', 'P1DT'), ('duration', 'P1DT1H2T'),
    ('duration', 'PT1D'), ('duration', 'P1é'), ('duration', 'P1Y1Y'), ('duration', 'P1.5Y'),
    ('period', '2020-01-01T00:00:00Z/P1D'), ('period', 'P1D/2020-01-01T00:00:00Z'),
    ('period', '2020-01-01T00:00:00Z/2021-01-01T00:00:00Z'), ('period', 'x'), ('period', 'P1D/P1D'),
    ('period', 'P/2020-01-01T00:00:00Z'), ('period', 'x/P1D'), ('period', '2020-01-01T00:00:00Z/PX'),
    ('json-pointer', ''), ('json-pointer', '/a/b'), ('json-pointer', 'a'), ('json-pointer', '/a~'),
    ('json-pointer', '/a~2'), ('json-pointer', '/~0~1'), ('json-pointer', '/é~'),
    ('relative-json-pointer', '0'), ('relative-json-pointer', '1#'), ('relative-json-pointer', '01'),
    ('relative-json-pointer', '#'), ('relative-json-pointer', '2/a'), ('relative-json-pointer', '2a'),
    ('relative-json-pointer', '0~'),
    ('uuid', '123e4567-e89b-12d3-a456-426614174000'), ('uuid', '123e4567e89b12d3a456426614174000'),
    ('uuid', '123e4567-e89b-12d3-a456-42661417400'), ('uuid', '123e4567-e89b-12d3-a456-42661417400g'),
    ('uuid', '123e4567-e89b-12d3-a456-42661417400é'), ('uuid', '123E4567-E89B-12D3-A456-426614174000'),
    ('uri', 'http://example.com/a?b#c'), ('uri', 'a/b'), ('uri', 'http://[::1]:80/'), ('uri', 'http://[::1'),
    ('uri', 'http://::1/'), ('uri', 'http://a:b/'), ('uri', 'http://a:1:2/'), ('uri', 'foo://a:1:2/'),
    ('uri', 'foo://[1.2.3.4]/'), ('uri', 'http://[fe80::1%25eth0]/'), ('uri', 'http://a b/'),
    ('uri', 'http://a%20b/'), ('uri', 'http://a%zz/'), ('uri', '%zz'), ('uri', 'mailto:joe@x.com'), ('uri', ':x'),
    ('uri', 'http://x/%zz'), ('uri', 'http://x/#%zz'), ('uri', 'http://u@x/'), ('uri', 'http://u^@x/'),
    ('uri', 'http://x\x01/'), ('uri', 'http://x/é'), ('uri', 'http://é/'), ('uri', 'http://x/a\\b'),
    ('uri', 'http://[::1]x/'), ('uri', 'http://x[::1]/'), ('uri', 'urn:isbn:123'), ('uri', 'http://[::1%25]/'),
    ('uri', 'http://[fe80::1%25%0a]/'), ('uri', 'http://x:80'), ('uri', '*'), ('uri', 'http://%41/'),
    ('iri', 'http://é.com/ü'), ('iri', 'é'),
    ('uri-reference', 'a/b'), ('uri-reference', 'a\\b'), ('uri-reference', 'a:b/c'), ('uri-reference', '//x/y'),
    ('uri-reference', ''), ('uri-reference', '#frag'), ('uri-reference', '1a:b'),
    ('iri-reference', 'ü/ö'),
    ('uri-reference', '?q'),
    ('uri-template', 'http://x/{a}'), ('uri-template', 'http://x/{{a}}'), ('uri-template', 'http://x/{a'),
    ('uri-template', 'http://x/a}'), ('uri-template', 'http://x/{a}/{b}'), ('uri-template', '/{a}{b}'),
    ('uri-template', 'http://x/%7Ba%7D'), ('uri-template', 'http://x/%7B%7Ba'), ('uri-template', '{a}'),
    ('uri-template', 'http://x/{a}?{b'),
    ('semver', '1.2.3'), ('semver', '1.2.3-alpha.1+build.5'), ('semver', '1.2'), ('semver', '01.2.3'),
    ('semver', '1.2.3-01'), ('semver', '1.2.3-'), ('semver', '1.2.3+'), ('semver', '1.2.3+a..b'),
    ('semver', '1.2.3-a_b'), ('semver', '1.2.x'), ('semver', '.2.3'), ('semver', 'v1.2.3'), ('semver', '1.2.3+é'),
    ('semver', '1.2.3-0a'), ('semver', '1.2.3-a-'),
    ('regex', '^a+$'), ('regex', 'a('), ('regex', '(?<n>a)'), ('regex', '\\p{Greek}'), ('regex', 'a{2,1}'),
    ('regex', '[z-a]'), ('regex', '\\8'),
    ('time', '12:00:00é'), ('time', 'é2:00:00Z'), ('date-time', '2020-01-01é00:00:00Z'), ('date', '２０２０-01-01'),
    ('semver', '1.é.3'), ('uri-template', 'http://x/{é}'), ('uri', 'http://[::1%25é]/'), ('uri', 'http://x%C3%A9/'),
    ('unknown-format', 'whatever'),
    ('int32', 'x'),
    ('date', '0000-02-29'), ('date', '0000-02-30'),
    ('date-time', '0000-02-29T00:00:00Z'),
]


@pytest.fixture
def both(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Both:
    from tests.engine import helmbin

    helmbin.require_helm()
    return Both(tmp_path, capsys, monkeypatch)


def _format_chart(root: Path, draft: str | None) -> Path:
    properties = {f"p{i:03d}": {"format": name} for i, (name, _) in enumerate(FORMAT_CASES)}
    doc: dict[str, object] = {"properties": properties}
    if draft is not None:
        doc["$schema"] = draft
    values = "\n".join(f"p{i:03d}: {json.dumps(value, ensure_ascii=False)}"
                       for i, (_, value) in enumerate(FORMAT_CASES))
    return _chart(root, "c", doc, values)


@pytest.mark.parametrize("draft", [D4, D6, D7])
def test_formats_fail_as_in_helm(both, draft):
    """Every case through both programs: the same failures, worded the same."""
    report = _same_report(both, "template", str(_format_chart(both.tmp, draft)))
    helm_lines = dict(re.findall(r"(?m)^- at '/(p\d+)': (.*)$", report))
    for i, (name, value) in enumerate(FORMAT_CASES):
        why = schema_formats.reason(name, value)
        ours = None if why is None else schema_formats.message(name, value, why)
        assert ours == helm_lines.get(f"p{i:03d}"), (name, value)
    assert len(helm_lines) > len(FORMAT_CASES) // 2  # the corpus fails more often than not


@pytest.mark.parametrize("draft", [None, "https://json-schema.org/draft/2020-12/schema",
                                   "https://json-schema.org/draft/2019-09/schema"])
def test_formats_are_annotations_in_later_drafts_as_in_helm(both, draft):
    chart = _format_chart(both.tmp, draft)
    assert both.same("template", str(chart))[0] == 0


@pytest.mark.parametrize(
    ("schema_doc", "values"),
    [
        pytest.param({"$schema": D7, "properties": {"a": {"format": "email", "type": "string"}}}, "a: x", id="alone"),
        pytest.param({"$schema": D7, "properties": {"a": {"format": "ipv4", "enum": ["x"]}}}, "a: zz", id="after-enum"),
        pytest.param({"$schema": D7, "properties": {"a": {"format": "ipv4", "minLength": 50}}}, "a: zz",
                     id="ends-subschema"),
        pytest.param({"$schema": D7, "properties": {"a": {"format": "ipv4", "$ref": "#/definitions/s"}},
                      "definitions": {"s": {"minLength": 9}}}, "a: zz", id="beside-ref-ignored"),
        pytest.param({"$schema": D7, "properties": {"a": {"anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}}},
                     "a: zz", id="in-anyOf"),
        pytest.param({"$schema": D7, "properties": {"a": {"format": "date"}, "b": {"format": "date"}}},
                     'a: "2020-13-01"\nb: 5', id="not-a-string-passes"),
        pytest.param({"$schema": D7, "properties": {"a": {"format": "date"}, "b": {"format": "date-time"}}},
                     "a: 2020-02-30\nb: 2020-01-01", id="yaml-timestamps"),
        pytest.param({"$schema": D4, "properties": {"a": {"items": {"format": "hostname"}}}},
                     "a: [ok, -bad, also_bad]", id="items"),
    ],
)
def test_format_failures_in_context_as_in_helm(both, schema_doc, values):
    _same_report(both, "template", str(_chart(both.tmp, "c", schema_doc, values)))


def test_a_passing_format_passes_as_in_helm(both):
    doc = {"$schema": D7, "properties": {"a": {"format": "email"}, "b": {"format": "date-time"}}}
    chart = _chart(both.tmp, "c", doc, 'a: "x@y.z"\nb: "2016-12-31T23:59:60Z"')
    assert both.same("template", str(chart))[0] == 0


MULTIPLE_CASES = [
    # (divisor as written in the schema, value as written in values.yaml)
    ("0.1", "0.3"), ("0.1", "0.7"), ("0.1", "1.1"), ("0.01", "0.29"), ("0.01", "1.15"), ("0.3", "0.9"),
    ("0.1", "0.25"), ("0.01", "0.123"), ("0.5", "2.5"), ("0.5", "2.25"), ("3", "9"), ("3", "10"), ("2", "1e3"),
    ("0.1", "1e-1"), ("1e-3", "0.002"), ("0.0001", "12345.6789"), ("1.5", "4.5"), ("1.5", "4"), ("0.2", "-0.6"),
    ("0.1", "1e20"), ("7", "49.0"), ("0.1", "9007199254740993"), ("0.25", "0.75"), ("0.3", "1"),
]


@pytest.mark.parametrize("draft", [D7, None])
def test_multiple_of_decimals_as_in_helm(both, draft):
    properties = {f"m{i:02d}": {"multipleOf": 0} for i in range(len(MULTIPLE_CASES))}
    text = json.dumps({"properties": properties, **({"$schema": draft} if draft else {})})
    for i, (divisor, _) in enumerate(MULTIPLE_CASES):  # the divisors as written
        text = text.replace(f'"m{i:02d}": {{"multipleOf": 0}}', f'"m{i:02d}": {{"multipleOf": {divisor}}}')
    values = "\n".join(f"m{i:02d}: {value}" for i, (_, value) in enumerate(MULTIPLE_CASES))
    report = _same_report(both, "template", str(_chart(both.tmp, "c", text, values)))
    failing = set(re.findall(r"(?m)^- at '/(m\d+)'", report))
    assert "m00" not in failing and "m06" in failing  # 0.3 is a multiple of 0.1, 0.25 is not


def test_decimal_multiples_pass_as_in_helm(both):
    """Values that only floats would refuse: helm passes them, and so must the fast check."""
    text = '{"properties": {"a": {"multipleOf": 0.1}, "b": {"multipleOf": 0.01}, "c": {"multipleOf": 0.3}}}'
    chart = _chart(both.tmp, "c", text, "a: 0.3\nb: 0.29\nc: 0.9")
    assert both.same("template", str(chart))[0] == 0
    assert schema.violations(json.loads(text), {"a": 0.3, "b": 0.29, "c": 0.9}, source="c") == []


def test_multiple_of_set_from_the_command_line_as_in_helm(both):
    """--set gives int64 and float64 values (not YAML's float64 for every number)."""
    text = '{"properties": {"a": {"multipleOf": 0.1}, "b": {"multipleOf": 3}, "c": {"multipleOf": 0.1}}}'
    chart = _chart(both.tmp, "c", text, "")
    _same_report(both, "template", str(chart), "--set", "a=0.35,b=10,c=0.3")


def test_lint_reports_format_failures_as_helm(both):
    doc = {"$schema": D7, "properties": {"a": {"format": "email"}, "b": {"format": "ipv6"}}}
    chart = _chart(both.tmp, "c", doc, 'a: "x"\nb: "::1"')  # one failure at a time: Go's map order
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\nicon: https://example.com/i.png\n")
    (chart / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    both.same("lint", str(chart))
    both.same("lint", str(chart), "--set", "a=x@y.z,b=fe80::1%eth0")
