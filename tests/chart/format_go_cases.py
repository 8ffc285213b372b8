"""The strings Go answered in ``format_go_answers.json``, and how to ask Go again.

``python -m tests.chart.format_go_cases`` (needs ``go`` and, in its module cache,
santhosh-tekuri/jsonschema v6.0.3 and golang.org/x/text v0.34.0: helm's own) asks, for each case:
v6's verdict on a string of a format (its error text, as helm prints it), Go's ``net/url.Parse``
and ``net/netip.ParseAddr``; and rewrites ``format_go_answers.json`` with the questions and the
answers. The tests compare helm_core.chart.schema_formats, golib.gourl and golib.gonetip with it.

The strings are the helm comparison's cases (tests/test_schema_formats_helm.py) and, from a fixed
seed, their mutations and random strings over each format's characters.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import tempfile
from pathlib import Path

ANSWERS = Path(__file__).with_name("format_go_answers.json")

#: The characters each format's random strings are made of (its syntax, and a few others).
ALPHABETS = {
    "ipv4": "0123456789.+-x ", "ipv6": "0123456789abcdefABCDEF:.%gz ", "hostname": "ab-.0_é",
    "email": 'ab.@"\\[]:IPv6-0123é ', "date": "0123456789-x", "time": "0123456789:.+-Zz",
    "date-time": "0123456789-:TtZz.+", "duration": "PYMWDTHS0123.é", "period": "P1DT0Z-:/2",
    "json-pointer": "/~01a", "relative-json-pointer": "0123#/~a", "uuid": "0123456789abcdefgA-",
    "uri": "ahtp:/[]%2501@?#.-{}é \\^", "uri-reference": "a:/[]%2@?#.\\", "uri-template": "ahtp:/{}%7BD?#",
    "semver": "0123.-+aZ_é",
}
#: Control characters (not in the helm comparison: YAML values refuse some).
CONTROL_CASES = [("time", "12:00:00\u0000"), ("email", "a\u0000@x.com"), ("hostname", "a\u007f"),
                 ("uri", "http://x/\u007f"), ("uri", "http://x\u0001/"), ("semver", "1.2.3+\u0001"),
                 ("json-pointer", "/\u0000~1")]
#: URLs at the edges of Go's url.Parse (userinfo, ports, IP literals and zones, escapes, schemes).
URL_CASES = [
    'http://ü@x/', 'http://u:p@x/', 'http://u%zz@x/', 'http://u:%zz@x/', 'http://x:80:90', 'https://[::1]:80:90',
    'http://[::1]]/', 'http://[[::1]/', 'http://x/?#', 'a?b:c', '//x:y@z', 'mailto:%zz', ':', 'http:', 'http://',
    'http:///a', '///a', 'http://x%', 'http://[::1%25%2]/', 'http://[fe80::1%25en0%20x]/',
    'http://[fe80::1%25en0%0A]/', 'http://[fe80::1%25%41]/', 'http://x/%2F?a#b%', 'HTTP://X/', 'h+t-t.p://x',
    '1http://x', 'http://a@b@c/', 'http://[v1.x]/', 'http://[::ffff:1.2.3.4]/', 'http://[1.2.3.4]:80/',
    'foo://a:b:c/', 'http://a:b:1/', 'http://:80/', 'http://x:/', 'ws://a:1:2', 'http://x/a b', 'http://x/é?é#é',
    '?a=b#c%zz', '#', 'http://x#', '*', '**', 'http://%30/', 'http://x%C3%A9y/', 'http://[::1%25eth0]:x/', 'a:b',
    './a:b', '/a:b',
]
ADDRESS_CASES = ["", "%", "1.2.3.4%x", "::1%", "::%eth0", "0:0:0:0:0:0:0:0", "::ffff:1.2.3.4%z", "1:2:3:4:5:6:7:8%z",
                 "00000::", "::1.2.3.4.5", "1.2.3.04", "1.2.3.256", "fe80::1%%", "[::1]", "1::2:3:4:5:6:7:8", "::1:"]
PER_FORMAT = 80
URLS = ADDRESSES = 300


def queries() -> list[dict[str, str]]:
    """Every question asked of Go."""
    from tests.test_schema_formats_helm import FORMAT_CASES

    draw = random.Random(20260126)
    seeds: dict[str, list[str]] = {}
    for name, value in FORMAT_CASES:
        seeds.setdefault(name, []).append(value)

    def generated(name: str) -> str:
        alphabet = ALPHABETS[name]
        if draw.random() < 0.5:
            chars = list(draw.choice(seeds[name]))
            for _ in range(draw.randint(1, 3)):
                at = draw.randint(0, len(chars))
                move = draw.random()
                if move < 0.4 or not chars:
                    chars.insert(at, draw.choice(alphabet))
                elif move < 0.7:
                    chars.pop(min(at, len(chars) - 1))
                else:
                    chars[min(at, len(chars) - 1)] = draw.choice(alphabet)
            return "".join(chars)
        return "".join(draw.choice(alphabet) for _ in range(draw.randint(0, 30)))

    asked = [{"Op": "format", "F": name, "S": value} for name, value in FORMAT_CASES + CONTROL_CASES]
    asked += [{"Op": "format", "F": name, "S": generated(name)} for name in ALPHABETS for _ in range(PER_FORMAT)]
    asked += [{"Op": "url", "S": url} for url in URL_CASES]
    asked += [{"Op": "url", "S": generated(draw.choice(["uri", "uri-reference", "uri-template"]))} for _ in range(URLS)]
    asked += [{"Op": "addr", "S": address} for address in ADDRESS_CASES]
    asked += [{"Op": "addr", "S": generated("ipv6")} for _ in range(ADDRESSES)]
    return asked


_PROGRAM = r"""
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	schemas := map[string]*jsonschema.Schema{}
	for in.Scan() {
		var q struct{ Op, F, S string }
		if err := json.Unmarshal(in.Bytes(), &q); err != nil {
			panic(err)
		}
		switch q.Op {
		case "format":
			schema := schemas[q.F]
			if schema == nil {
				doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(
					fmt.Sprintf(`{"$schema": "http://json-schema.org/draft-07/schema#", "format": %q}`, q.F)))
				c := jsonschema.NewCompiler()
				c.AddResource("file:///s.json", doc)
				schema = c.MustCompile("file:///s.json")
				schemas[q.F] = schema
			}
			if err := schema.Validate(q.S); err != nil {
				text := err.Error()
				out.Encode(map[string]any{"err": text[strings.Index(text, "\n")+1:]})
			} else {
				out.Encode(map[string]any{"ok": true})
			}
		case "url":
			u, err := url.Parse(q.S)
			if err != nil {
				out.Encode(map[string]any{"err": err.Error()})
			} else {
				out.Encode(map[string]any{"ok": map[string]string{"scheme": u.Scheme, "opaque": u.Opaque,
					"host": u.Host, "hostname": u.Hostname(), "path": u.Path, "raw_path": u.RawPath,
					"raw_query": u.RawQuery, "fragment": u.Fragment}})
			}
		case "addr":
			a, err := netip.ParseAddr(q.S)
			if err != nil {
				out.Encode(map[string]any{"err": err.Error()})
			} else {
				out.Encode(map[string]any{"ok": map[string]any{"is4": a.Is4(), "zone": a.Zone()}})
			}
		}
	}
}
"""

_GO_MOD = """module formatanswers

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/text v0.34.0
)
"""


def main() -> None:
    asked = queries()
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOSUMDB": "off"}  # the module cache only
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "main.go").write_text(_PROGRAM)
        Path(folder, "go.mod").write_text(_GO_MOD)
        stdin = "".join(json.dumps(q) + "\n" for q in asked)
        version = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True, check=True).stdout.strip()
        answers = subprocess.run(["go", "run", "."], cwd=folder, input=stdin, capture_output=True, text=True,
                                 check=True, env=env).stdout.splitlines()
    assert len(answers) == len(asked)
    # One [question, answer] pair a line: {"ok": result} or {"err": Go's error text}.
    lines = ",\n".join(json.dumps([q, json.loads(a)], ensure_ascii=False) for q, a in zip(asked, answers, strict=True))
    ANSWERS.write_text(f'{{"go": "{version}", "pairs": [\n{lines}\n]}}\n')


if __name__ == "__main__":
    main()
