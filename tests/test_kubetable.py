"""kubectl's printing of server Tables (helm_core/cli/kubetable.py), as ``helm status
--show-resources`` prints them. Against the real API server and helm: e2e/test_release_cli_helm_habits.py."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from helm_core.cli import kubetable

_GO_TABWRITER = r"""
package main

import (
	"bytes"
	"encoding/json"
	"os"
	"text/tabwriter"
)

func main() {
	var cases [][]string
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	out := []string{}
	for _, lines := range cases {
		var buf bytes.Buffer
		w := tabwriter.NewWriter(&buf, 6, 4, 3, ' ', 0) // kubectl's GetNewTabWriter
		for _, line := range lines {
			w.Write([]byte(line + "\n"))
		}
		w.Flush()
		out = append(out, buf.String())
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
"""


def _cases() -> list[list[str]]:
    draw = random.Random(7)
    words = ["", "a", "web", "NAME", "kube-system", "10.96.0.1", "<none>", "☺☺", "a-very-long-cell-value"]
    cases = [["NAME\tDATA\tAGE", "web\t1\t5s"], ["a\tbb", "ccc\td\te", "f"], ["only"], [""], ["\t\t"],
             ["x\t", "\ty"]]
    for _ in range(300):
        cases.append(["\t".join(draw.choice(words) for _ in range(draw.randint(1, 5)))
                      for _ in range(draw.randint(1, 5))])
    return cases


def test_alignment_is_gos_tabwriter(tmp_path: Path) -> None:
    go = shutil.which("go")
    if go is None:
        pytest.skip("go is not installed: Go's text/tabwriter is the reference")
    (tmp_path / "main.go").write_text(_GO_TABWRITER)
    (tmp_path / "go.mod").write_text("module tabwriter\n\ngo 1.21\n")
    cases = _cases()
    done = subprocess.run([go, "run", "."], input=json.dumps(cases), capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, env={**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"})
    assert done.returncode == 0, done.stderr
    for lines, expected in zip(cases, json.loads(done.stdout), strict=True):
        assert kubetable.align(lines) == expected, lines


def _table(names: list[str], rows: list[list[object]], *, priorities: list[int] | None = None) -> dict:
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
            "columnDefinitions": [{"name": n, "type": "string", "format": "", "description": "",
                                   "priority": (priorities or [0] * len(names))[i]} for i, n in enumerate(names)],
            "rows": [{"cells": cells} for cells in rows]}


def test_a_table_prints_its_header_and_rows_aligned_on_their_own() -> None:
    printer = kubetable.TablePrinter()
    assert printer.print(_table(["Name", "Data", "Age"], [["web", 1, "5s"], ["a-longer-name", 12, "1m"]])) == (
        "NAME            DATA   AGE\nweb             1      5s\na-longer-name   12     1m\n")


def test_the_header_is_left_out_under_the_same_columns_printed_before() -> None:
    printer = kubetable.TablePrinter()
    columns = ["Name", "Data", "Age"]
    assert printer.print(_table(columns, [["a", 1, "5s"]])).startswith("NAME")
    assert printer.print(_table(columns, [["b", 2, "6s"]])) == "b     2     6s\n"  # aligned on its own
    assert printer.print(_table(["Name", "Age"], [["c", "1s"]])) == "NAME   AGE\nc      1s\n"


def test_a_table_without_rows_prints_nothing_and_does_not_count_as_headers_printed() -> None:
    printer = kubetable.TablePrinter()
    assert printer.print(_table(["Name"], [])) == ""
    assert printer.print(_table(["Name"], [["a"]])) == "NAME\na\n"


def test_wide_columns_are_left_out_and_cells_as_kubectl_writes_them() -> None:
    table = _table(["Name", "IP", "Ready", "Note"], [["p", "10.0.0.1", True, "line1\nline2"],
                                                   ["q", None, None, "esc\x1b[31m"]],
                   priorities=[0, 1, 0, 0])
    assert kubetable.TablePrinter().print(table) == (
        "NAME   READY   NOTE\np      true    line1...\nq              esc^[[31m\n")


def test_resources_text_is_helms_groups() -> None:
    groups = {"v1/ConfigMap": [_table(["Name", "Data"], [["a", 1]]), _table(["Name", "Data"], [["bb", 2]])],
              "v1/Pod(related)": [_table(["Name", "Ready"], [])]}
    assert kubetable.resources_text(groups) == (
        "==> v1/ConfigMap\nNAME   DATA\na      1\nbb    2\n\n==> v1/Pod(related)\n\n")
