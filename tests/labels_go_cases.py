"""The label selectors apimachinery answered in ``labels_go_answers.json`` (in the order of
:func:`selectors`), and how to ask it again.

``python -m tests.labels_go_cases`` (needs ``go`` and k8s.io/apimachinery in the module cache,
as helm 3.22's sources bring it) runs every selector through ``labels.Parse`` and, when it
parses, ``Matches`` against :data:`LABELS`, and rewrites ``labels_go_answers.json``; the tests
compare helm_core.golib.labels with it.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import tempfile
from pathlib import Path

ANSWERS = Path(__file__).with_name("labels_go_answers.json")
APIMACHINERY = "v0.37.2"
LABELS = {"a": "b", "k": "5", "in": "in", "x.y/z": "1", "A_b": "-1"}
_ATOMS = ["a", "b", "in", "notin", "=", "==", "!=", "!", "(", ")", ",", ">", "<", " ", "1", "-1", "x.y/z", "A_b",
          "-a", "a/", "/a", "a/b/c", "Ab.c/d", "é", "99999999999999999999", "\t", ""]
_WRITTEN = ["", " ", "a", "!a", "a=b", "a==b", "a!=b", "a in (b,c)", "a notin (b)", "a>1", "a<-3", "a in ()",
            "a in (,)", "a in (b,,c)", "a in (,b)", "a in (b,)", "a b", "a=1,=b", "shard in shard1", "A B=c",
            "a=b c", "k>a", "k>1", "Ab/c=d", "a==(", "app in web", "app=we b", "a=b=c", "!a=b", "a,", ",a",
            "a in (b,,c", "a notin", "a=", "-a", "a/b/c", "a" * 64, "a=" + "b" * 64, "a=-b", "k>-a", "k>+5", "k>",
            "a in (-b,-c)", "in=in", "notin in (in)", "a in (b c)", "a===b", "a=!b", "!!a", "a,,b", "a in ((b)",
            "a)", "(a", "a=b,!c,d in (e)", "x" * 254 + "/a", "é=1", "a=é", "a in (b", "a in b)", "a=(b)", "a>1.5",
            "team=a,tier!=web", "app.kubernetes.io/name in (web, api)", " a = b , c "]


def selectors() -> list[str]:
    """Every selector asked of apimachinery, in order: written ones, then seeded random ones."""
    draw = random.Random(3)
    return _WRITTEN + ["".join(draw.choice(_ATOMS) for _ in range(draw.randint(1, 7))) for _ in range(500)]


_PROGRAM = r"""
package main

import (
	"encoding/json"
	"os"

	"k8s.io/apimachinery/pkg/labels"
)

func main() {
	var asked struct {
		Selectors []string
		Labels    map[string]string
	}
	if err := json.NewDecoder(os.Stdin).Decode(&asked); err != nil {
		panic(err)
	}
	out := []map[string]any{}
	for _, s := range asked.Selectors {
		selector, err := labels.Parse(s)
		if err != nil {
			out = append(out, map[string]any{"err": err.Error()})
		} else {
			out = append(out, map[string]any{"matches": selector.Matches(labels.Set(asked.Labels))})
		}
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetEscapeHTML(false)
	encoder.Encode(out)
}
"""


def main() -> None:
    asked = selectors()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "main.go").write_text(_PROGRAM)
        Path(folder, "go.mod").write_text(
            f"module labelanswers\n\ngo 1.24\n\nrequire k8s.io/apimachinery {APIMACHINERY}\n")
        env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOSUMDB": "off", "GOTOOLCHAIN": "local"}
        asking = json.dumps({"Selectors": asked, "Labels": LABELS})
        answers = json.loads(subprocess.run(["go", "run", "."], cwd=folder, env=env, capture_output=True,
                                            text=True, check=True, input=asking).stdout)
    # one answer per line, in the order of selectors(): {"matches": bool} or {"err": its words}
    lines = ",\n".join(json.dumps(answer, ensure_ascii=False) for answer in answers)
    ANSWERS.write_text(f'{{"apimachinery": "{APIMACHINERY}", "answers": [\n{lines}\n]}}\n')


if __name__ == "__main__":
    main()
