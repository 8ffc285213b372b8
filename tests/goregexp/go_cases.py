"""The cases Go's regexp answered in ``go_answers.json`` (in the order of :func:`queries`), and how to ask Go again.

``python -m tests.goregexp.go_cases`` (needs ``go``) runs every case through Go's own
``regexp`` package and rewrites ``go_answers.json``; the tests compare helm_core.golib.goregexp with it.
"""
from __future__ import annotations

import itertools
import json
import subprocess
import tempfile
from pathlib import Path

ANSWERS = Path(__file__).with_name("go_answers.json")

#: Backtracking engines take exponential time on these; RE2 and Go do not.
CATASTROPHIC = [r"^(a+)+$", r"(a|aa)*c", r"(x+x+)+y", r"^(\w+\s?)*$", r"(a*)*b", r"((a+)*)+$"]
PATTERNS = CATASTROPHIC + [
    r"[\w-\.]+", r"a*", r"x*", r"a|b", "", r"\b", r"\B", r"(?i)k", r"(?m)^a$", r"^a$", r"$", r"^",
    r"(?U)a+", r"a+?", r"\Q.*\E", r"(?P<user>\w+)@(?<dom>\w+)", r"(a)|(b)", r"[[:alpha:]]+",
    r"\pL+", r"\p{Greek}+", r"\p{letter}+", r"\PC+", r"[\P{Cn}]+", r"[^\pC]+", r"\p{Lc}", r"\p{ASCII}+",
    r"(?s).", r".", r"a{2,3}", r"\x{263a}", r"[a-c-e]+", r"\d+|\s+", r"(é|e)+", r"(?i)straße",
    r"\z", r"\A\w", r"(a*)+", r"(a|ab)(c|bcd)(d*)", r"(?i)s+", r"(?i)[k-l]+", r"(?i)\p{Lu}+", r"(?i)Σ+",
    r"[^\x00-\x{10FFFF}]", r"\Q\\E", r"(?i:A)(?-i:a)", r"[\d\-z]+", r"x*?", r"(?:)", r"(|a)+", r"(a|)+",
]
SUBJECTS = ["", "banana", "a" * 41 + "b", "a" * 41, "ab-c.d e_f", "K\u212ak", "a\nb\na\n",
            "héllo wörld ☺", "α-β γδ", "x" * 30, "abcd", "user@host, me@there", "aaac", "Straße STRASSE",
            "ſsSkK\u212a σςΣ", "\\E-9z"]
TEMPLATES = ["[$0]", "<$1>", "${1}W", "$1W", "$user/${dom}", "$$", "$01", "$10", "$", "${", "${x",
             "$9", "$dom$", "$${1}"]
INVALID = [
    "a**", "a*?*", "a++", "a{2}{3}", "*", "+a", "{2}", "a|*", "x{1001}", "x{2,1}", "(a{100}){100}",
    "((a{10}){10}){11}", "(", "(a", "a)", ")", "(a))", "[a", "[z-a]", r"[a-\d]", "[[:foo:]]", r"\C", r"[\C]",
    r"a\C(", r"\Z", r"\1", r"\8", r"\x{110000}", r"\x{zz}", r"\xZ", r"[\Q]\E]", r"\p{Foo}", r"\p{",
    r"\p{Old_Italic}", r"\p{Garay}", "(?z)a", "(?i", "(?", "(?P<>a)", "(?P<n!>a)", "(?P=n)", "(?=a)",
    "(?!a)", "(?<=a)", "(?<!a)", "(?<!a)>", "(?#c)", "(?-)", "(?i-)", "(?:a", "a\\", "[]", "[^]",
    r"\e", r"\cA", r"\N{DIGIT}", "(" * 1001 + ")" * 1001, "(" * 1000 + ")" * 1000, "(" * 999 + ")" * 999,
    r"\pL{1000}", "[[.a.]]",
]


def queries() -> list[dict[str, object]]:
    """Every question asked of Go, in order."""
    out: list[dict[str, object]] = [{"Op": "compile", "Re": p} for p in INVALID]
    for pattern, subject in itertools.product(PATTERNS, SUBJECTS):
        out.append({"Op": "match", "Re": pattern, "S": subject})
        out.append({"Op": "find", "Re": pattern, "S": subject})
        out.extend({"Op": "findall", "Re": pattern, "S": subject, "N": n} for n in (-1, 1, 2))
        out.extend({"Op": "split", "Re": pattern, "S": subject, "N": n} for n in (-1, 0, 2))
        out.append({"Op": "literal", "Re": pattern, "S": subject, "Repl": "<$1>"})
    for pattern, subject, template in itertools.product(PATTERNS[6:22], SUBJECTS[1:9], TEMPLATES):
        out.append({"Op": "replace", "Re": pattern, "S": subject, "Repl": template})
    out.append({"Op": "quote", "S": r"a.b*c{1}[x]|(y)?^$\ +"})
    return out


_PROGRAM = r"""
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for in.Scan() {
		var q struct {
			Op, Re, S, Repl string
			N               int
		}
		if err := json.Unmarshal(in.Bytes(), &q); err != nil {
			panic(err)
		}
		if q.Op == "quote" {
			out.Encode(map[string]any{"ok": regexp.QuoteMeta(q.S)})
			continue
		}
		r, err := regexp.Compile(q.Re)
		if err != nil {
			out.Encode(map[string]any{"err": err.Error()})
			continue
		}
		var res any
		switch q.Op {
		case "compile":
			res = "ok"
		case "match":
			res = r.MatchString(q.S)
		case "find":
			res = r.FindString(q.S)
		case "findall":
			res = r.FindAllString(q.S, q.N)
		case "replace":
			res = r.ReplaceAllString(q.S, q.Repl)
		case "literal":
			res = r.ReplaceAllLiteralString(q.S, q.Repl)
		case "split":
			res = r.Split(q.S, q.N)
		}
		out.Encode(map[string]any{"ok": res})
	}
}
"""


def main() -> None:
    asked = queries()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "main.go").write_text(_PROGRAM)
        Path(folder, "go.mod").write_text("module goanswers\ngo 1.22\n")
        stdin = "".join(json.dumps(q) + "\n" for q in asked)
        version = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True, check=True).stdout.strip()
        answers = subprocess.run(["go", "run", "."], cwd=folder, input=stdin, capture_output=True,
                                 text=True, check=True).stdout.splitlines()
    # One answer per line, in the order of queries(): {"ok": result} or {"err": Go's error text}.
    lines = ",\n".join(json.dumps(json.loads(a), ensure_ascii=False) for a in answers)
    assert len(answers) == len(asked)
    ANSWERS.write_text(f'{{"go": "{version}", "answers": [\n{lines}\n]}}\n')


if __name__ == "__main__":
    main()
