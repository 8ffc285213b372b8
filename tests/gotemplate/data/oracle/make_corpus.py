"""Regenerate ../go_corpus.json from the Go oracle (main.go in this folder).

    cd tests/gotemplate/data/oracle && go build -o /tmp/gooracle . && python make_corpus.py /tmp/gooracle

Random templates and format strings are built from the language's pieces with fixed seeds;
Go answers every one. Not run by the test suite (it needs Go).
"""
from __future__ import annotations

import json
import pathlib
import random
import subprocess
import sys
from typing import Any

PARSE_PIECES = [
    "{{", "}}", "{{- ", " -}}", "{{-", "-}}", "{{/*", "*/}}", " ", "  ", "\n", "\t", ".a", ".b", ".", "$", "$x",
    "$y", ":=", "=", "|", "(", ")", "1", "-2", "+3", "1.5", "0x1F", "1e3", "08", "1i", "'a'", "'\\n'", '"s"',
    '"\\t"', "`r`", "if", "else", "end", "range", "with", "define", "template", "block", "break", "continue",
    "nil", "true", "false", "printf", "len", "upper", "foo", ",", "é", "x", "#", '"a', "`", "'", "{{ end }}",
    "{{ else }}", "{{ if . }}", "{{ range . }}", '{{ define "a" }}', "text ", ".a.b", "$x.y", "(.a).b", "-",
]
FIELDS = [".a", ".n", ".f", ".z", ".t", ".e", ".l", ".m", ".m.k", ".m.s.q", ".m.nil", ".missing", ".m.missing.x",
          ".em", ".el", ".a.x", ".O", ".O.Name", "$", "$.m", "$x", "$x.k", "."]
LITERALS = ["1", "0", "-1", "1.5", "1e3", "0x10", "'a'", '"s"', '""', "true", "false", "nil"]
FUNCS = ["len", "index", "slice", "not", "and", "or", "eq", "ne", "lt", "le", "gt", "ge", "print", "printf",
         "println", "html", "js", "urlquery", "upper", "trunc", "list", "dict", "addf", "join"]
VALUES: list[Any] = [0, 7, -13, 255, 65, 0x1F600, 3.0, -2.5, 0.1, 1e-9, 123456789.125, 1e300, "", "x", "héllo\n",
                     'a"b', True, None, [1, "x"], {"k": 2.5}, b"ab"]


def operand(rng: random.Random, depth: int) -> str:
    r = rng.random()
    if r < 0.45:
        return rng.choice(FIELDS)
    if r < 0.75 or depth >= 2:
        return rng.choice(LITERALS)
    return "(" + pipeline(rng, depth + 1) + ")"


def command(rng: random.Random, depth: int) -> str:
    if rng.random() < 0.6:
        name = rng.choice(FUNCS)
        args = "".join(" " + operand(rng, depth) for _ in range(rng.randint(0, 3)))
        if name == "printf":
            return "printf " + rng.choice(['"%v"', '"%d %s"', '"%q"', '"%5.1f"']) + args
        return name + args
    return operand(rng, depth)


def pipeline(rng: random.Random, depth: int = 0) -> str:
    text = command(rng, depth)
    for _ in range(rng.randint(0, 2) if depth == 0 else rng.randint(0, 1)):
        text += " | " + rng.choice(FUNCS) + "".join(" " + operand(rng, depth) for _ in range(rng.randint(0, 1)))
    return text


def block(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if depth < 2 and r < 0.2:
            seq = rng.choice([".l", ".m", "3", ".el", "$x", ".m.s.q", ".missing"])
            parts.append(f"{{{{ range $i, $v := {seq} }}}}{block(rng, depth + 1)}{{{{ else }}}}E{{{{ end }}}}")
        elif depth < 2 and r < 0.3:
            parts.append(f"{{{{ if {pipeline(rng)} }}}}{block(rng, depth + 1)}{{{{ else if {pipeline(rng)} }}}}B{{{{ end }}}}")
        elif depth < 2 and r < 0.4:
            parts.append(f"{{{{ with $w := {pipeline(rng)} }}}}{block(rng, depth + 1)}{{{{ $w }}}}{{{{ end }}}}")
        elif r < 0.5 and depth:
            parts.append(rng.choice(["{{ break }}", "{{ continue }}", "{{ if $v }}{{ break }}{{ end }}", "{{ $x = $v }}"]))
        elif r < 0.6:
            parts.append('{{ template "d" ' + rng.choice([".", "$x", ".m", ""]) + " }}")
        else:
            parts.append("{{ " + pipeline(rng) + " }}")
    return "".join(parts)


def tagged(v: Any) -> Any:
    if v is None:
        return {"n": 0}
    if isinstance(v, bool):
        return {"b": v}
    if isinstance(v, int):
        return {"i": v}
    if isinstance(v, float):
        return {"f": v}
    if isinstance(v, str):
        return {"s": v}
    if isinstance(v, bytes):
        return {"y": v.decode()}
    if isinstance(v, list):
        return {"l": [tagged(x) for x in v]}
    return {"m": {k: tagged(x) for k, x in v.items()}}


def format_string(rng: random.Random) -> str:
    fmt = ""
    for _ in range(rng.randint(1, 3)):
        fmt += rng.choice(["", "a", " "]) + "%" + "".join(rng.sample("#0+- ", rng.randint(0, 2)))
        if rng.random() < 0.4:
            fmt += str(rng.randint(0, 12))
        if rng.random() < 0.1:
            fmt += "*"
        if rng.random() < 0.4:
            fmt += "." + str(rng.randint(0, 8))
        if rng.random() < 0.05:
            fmt += "[" + str(rng.randint(0, 3)) + "]"
        fmt += rng.choice("vdsqxXobcteEfFgGUT%")
    return fmt


def ask(oracle: str, lines: list[list[Any]]) -> list[str]:
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    out = subprocess.run([oracle], input=text, capture_output=True, text=True, check=True).stdout
    return [json.loads(x) for x in out.splitlines()]


def main(oracle: str) -> None:
    rng = random.Random(101)
    parse_cases = ["".join(rng.choice(PARSE_PIECES) for _ in range(rng.randint(1, 12))) for _ in range(400)]
    rng = random.Random(202)
    exec_cases = [
        ('{{ define "d" }}<{{ .k }}{{ $ }}>{{ end }}{{ $x := .m }}{{ $y := 0 }}' + block(rng),
         rng.choice(["default", "zero", "error"]))
        for _ in range(450)
    ]
    rng = random.Random(303)
    fmt_cases = [[format_string(rng)] + [rng.choice(VALUES) for _ in range(rng.randint(0, 3))] for _ in range(500)]
    corpus: dict[str, Any] = {"note": "Random inputs with Go's answers; regenerate with oracle/make_corpus.py."}
    corpus["parse"] = [[c, r] for c, r in zip(parse_cases, ask(oracle, [["parse", c] for c in parse_cases]))]
    answers = ask(oracle, [["exec", t, mk] for t, mk in exec_cases])
    # Leave out answers that depend on Go-only panics inside the helper functions.
    corpus["exec"] = [[t, mk, r] for (t, mk), r in zip(exec_cases, answers)
                      if "runtime error" not in r and "interface conversion" not in r][:400]
    answers = ask(oracle, [["printf", c[0]] + [tagged(a) for a in c[1:]] for c in fmt_cases])
    corpus["sprintf"] = [[c[0], [tagged(a) for a in c[1:]], r] for c, r in zip(fmt_cases, answers)]
    path = pathlib.Path(__file__).resolve().parent.parent / "go_corpus.json"
    path.write_text(json.dumps(corpus, ensure_ascii=False, indent=0) + "\n")
    print({k: len(v) for k, v in corpus.items() if isinstance(v, list)})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/gooracle")
