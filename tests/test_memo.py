"""The disk memo: content-keyed entries, misses on any change, and what uses it (parse
trees, schema passes, the CLI)."""
from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from helm_core import cli
from helm_core.chart import schema
from helm_core.cli import rendered
from helm_core.engine import render
from helm_core.golib import goyaml, versions
from helm_core.gotemplate import callsite, environment, nodes, parser
from helm_core.gotemplate.funcs import sprig
from helm_core.support import memo
from tests.chartkit import chart_yaml, write_chart


@pytest.fixture
def disk(tmp_path: Path):
    installed = memo.DiskMemo(tmp_path / "memo")
    memo.use(installed)
    yield installed
    memo.use(None)


def test_put_then_get_and_missing_entries(tmp_path: Path) -> None:
    m = memo.DiskMemo(tmp_path)
    assert m.get("k", "a") is None
    m.put("k", "a", b"data")
    assert m.get("k", "a") == b"data"
    assert (tmp_path / "k").stat().st_mode & 0o777 == 0o700
    big = os.urandom(3 << 20)  # more than one write() may take
    m.put("k", "big", big)
    assert m.get("k", "big") == big
    assert not [p for p in (tmp_path / "k").iterdir() if p.name.startswith(".tmp-")]


def test_unwritable_root_loses_only_the_memo(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    m = memo.DiskMemo(blocker / "memo")
    m.put("k", "a", b"data")  # no error: memoising is best effort
    assert m.get("k", "a") is None


def test_prune_keeps_the_newest_entries_within_the_bound(tmp_path: Path) -> None:
    m = memo.DiskMemo(tmp_path, max_bytes=250)
    for i in range(5):
        m.put("k", f"e{i}", b"x" * 100)
        os.utime(tmp_path / "k" / f"e{i}", (1000 + i, 1000 + i))
    (tmp_path / "k" / ".tmp-1-0").write_bytes(b"x" * 100)  # being written by another process
    m.prune()
    assert sorted(p.name for p in (tmp_path / "k").iterdir()) == [".tmp-1-0", "e3", "e4"]


def test_prune_does_not_import_pathlib(tmp_path: Path) -> None:
    """A run draws a prune one time in PRUNE_EVERY: pathlib's import would be part of that run."""
    script = ("import sys; from helm_core.support import memo; m = memo.DiskMemo(sys.argv[1], max_bytes=150); "
              "[m.put('k', f'e{i}', b'x' * 100) for i in range(3)]; m.prune(); "
              "print('pathlib' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False" and len(list((tmp_path / "k").iterdir())) == 1



def test_deferred_writes_are_read_back_before_they_are_written(tmp_path: Path) -> None:
    m = memo.DiskMemo(tmp_path, defer_writes=True)
    m.put("k", "a", b"data")
    assert m.get("k", "a") == b"data" and not (tmp_path / "k").exists()
    m.write_pending()
    assert (tmp_path / "k" / "a").read_bytes() == b"data"
    m.put("k", "b", b"more")  # still deferred after a write
    assert not (tmp_path / "k" / "b").exists()



def test_a_deferred_job_that_fails_loses_only_its_entries(tmp_path: Path) -> None:
    m = memo.DiskMemo(tmp_path, defer_writes=True)
    m.put("k", "a", b"data")
    m.defer(lambda: 1 / 0)
    m.defer(lambda: m.put("k", "b", b"more"))
    assert not (tmp_path / "k").exists()  # jobs wait for write_pending
    m.write_pending()
    assert sorted(p.name for p in (tmp_path / "k").iterdir()) == ["a", "b"]

def _written(folder: Path, count: int) -> list[str]:
    """The entries in ``folder`` once ``count`` are there (a detached child writes them; a
    ``.tmp-`` file is one still being written, renamed to its entry once whole)."""
    deadline = time.monotonic() + 60
    while True:
        names = sorted(p.name for p in folder.iterdir() if not p.name.startswith(".tmp-")) if folder.is_dir() else []
        if len(names) >= count or time.monotonic() > deadline:
            return names
        time.sleep(0.02)


def test_detached_writes_come_from_a_child_that_starts_once_the_caller_exited(tmp_path: Path) -> None:
    """(A deadline's thread waiting meanwhile does not keep the writes in the caller.)"""
    script = ("import os, sys; from helm_core.support import memo, oneshot; "
              "m = memo.DiskMemo(sys.argv[1], defer_writes=True); "
              "[m.put('k', f'e{i}', b'x') for i in range(memo.DETACH_FROM_ENTRIES)]; "
              "cancel = oneshot.call_after(60, print); "
              "m.write_pending_detached(); print('after', sorted(os.listdir(sys.argv[1])))")
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True)
    assert run.stdout == "after []\n"  # nothing written yet, and the child prints nothing
    assert _written(tmp_path / "k", memo.DETACH_FROM_ENTRIES) == [f"e{i}" for i in range(memo.DETACH_FROM_ENTRIES)]


def test_a_few_pending_entries_are_written_by_the_caller(tmp_path: Path) -> None:
    m = memo.DiskMemo(tmp_path, defer_writes=True)
    m.put("k", "a", b"data")
    m.write_pending_detached()
    assert (tmp_path / "k" / "a").read_bytes() == b"data"



def test_with_another_thread_alive_pending_entries_are_written_by_the_caller(tmp_path: Path) -> None:
    """A fork copies only the calling thread: a lock another one holds would stay held."""
    m = memo.DiskMemo(tmp_path, defer_writes=True)
    for i in range(memo.DETACH_FROM_ENTRIES):
        m.put("k", f"e{i}", b"x")
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        m.write_pending_detached()
        assert len(list((tmp_path / "k").iterdir())) == memo.DETACH_FROM_ENTRIES
    finally:
        release.set()
        other.join()

def test_the_console_script_prints_before_its_memo_is_written(tmp_path: Path) -> None:
    """A pipe's reader sees the whole output and its end; the memo's entries follow (the trees
    pickled by the child that writes them), and a second run prints the kept output."""
    chart = Path(__file__).resolve().parents[1] / "examples" / "charts" / "hello"
    env = dict(os.environ, HELM_CORE_CACHE=str(tmp_path / "cache"))
    command = [sys.executable, "-m", "helm_core", "template", str(chart)]
    first = subprocess.run(command, capture_output=True, text=True, env=env, check=True, timeout=60)
    assert _written(tmp_path / "cache" / "memo" / rendered.OUTPUT_MEMO, 1)
    assert _written(tmp_path / "cache" / "memo" / environment.TREES_MEMO, 1)  # pickled by the child
    second = subprocess.run(command, capture_output=True, text=True, env=env, check=True, timeout=60)
    assert first.stdout == second.stdout and "kind: ConfigMap" in first.stdout

def _env(disk: memo.DiskMemo | None) -> environment.Environment:
    return environment.Environment(sprig.SPRIG_FUNCS, memo=disk)


def _first_run(disk: memo.DiskMemo, name: str, text: str, *runs: dict) -> None:
    """Parse ``text`` as a first process would, run it with each of ``runs``, save the trees."""
    env = _env(disk)
    tset = env.new_set()
    tset.parse(name, text)
    for data in runs:
        with contextlib.suppress(Exception):
            tset.execute(name, data)
    env.save_parsed()


TEXT = '{{ define "x" }}X={{ .a | upper }}{{ end }}{{ template "x" . }}-{{ len .b }}'


def test_parse_trees_outlive_the_environment(disk: memo.DiskMemo, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(disk)
    first = env.new_set()
    first.parse("t.yaml", TEXT)
    assert first.execute("t.yaml", {"a": "q", "b": [1, 2]}) == "X=Q-2"
    assert not (disk.root / environment.TREES_MEMO).exists()  # saved once rendered
    env.save_parsed()
    calls = []
    real_parse = parser.parse
    monkeypatch.setattr(parser, "parse", lambda *a, **k: calls.append(a) or real_parse(*a, **k))
    second = _env(disk).new_set()  # a new process would start like this
    second.parse("t.yaml", TEXT)
    assert calls == []  # loaded, not parsed
    assert second.tree("x") is not None and second.tree("x").compiled is None
    assert second.execute("t.yaml", {"a": "r", "b": []}) == "X=R-0"
    third = _env(disk).new_set()
    third.parse("t.yaml", TEXT + " ")  # another text: parsed again
    assert len(calls) == 1


def test_the_same_text_under_another_name_loads_and_names_its_own_file(
        disk: memo.DiskMemo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A library chart's file under a second chart (`redis/charts/common/...` after
    `postgresql/charts/common/...`) is not parsed again; its trees and errors name it."""
    name = "redis/charts/common/templates/t.yaml"
    _first_run(disk, "postgresql/charts/common/templates/t.yaml", TEXT, {"a": "q", "b": [1]})
    calls = []
    real_parse = parser.parse
    monkeypatch.setattr(parser, "parse", lambda *a, **k: calls.append(a) or real_parse(*a, **k))
    tset = _env(disk).new_set()
    tset.parse(name, TEXT)
    assert calls == []
    assert sorted(tset.names()) == [name, "x"]
    own, define = tset.tree(name), tset.tree("x")
    assert own is not None and define is not None
    assert (own.name, own.parse_name, define.name, define.parse_name) == (name, name, "x", name)
    with pytest.raises(Exception) as remembered:
        tset.execute(name, {"a": "q"})
    fresh = _env(None).new_set()
    fresh.parse(name, TEXT)
    with pytest.raises(Exception) as parsed:
        fresh.execute(name, {"a": "q"})
    assert str(remembered.value) == str(parsed.value) and f"{name}:1:" in str(parsed.value)


def test_a_folder_s_files_are_one_entry_that_two_versions_of_a_library_share(
        disk: memo.DiskMemo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first run creates one file per folder, not per template; two charts with different
    versions of one library chart each add theirs to its entry and then both find theirs."""
    def run(chart: str, lib_text: str) -> None:
        env = _env(disk)
        tset = env.new_set()
        for name, text in ((f"{chart}/charts/common/templates/_a.tpl", LIBRARY),
                           (f"{chart}/charts/common/templates/_b.tpl", lib_text),
                           (f"{chart}/templates/t.yaml", TEXT), (f"{chart}/templates/u.yaml", TEXT + "u")):
            tset.parse(name, text)
        tset.execute(f"{chart}/templates/t.yaml", {"a": "q", "b": [1]})
        env.save_parsed()

    run("one", "{{ define \"v\" }}1{{ end }}")
    entries = list((disk.root / environment.TREES_MEMO).iterdir())
    assert len(entries) == 2  # common/templates and one/templates
    run("two", "{{ define \"v\" }}2{{ end }}")
    calls = []
    real_parse = parser.parse
    monkeypatch.setattr(parser, "parse", lambda *a, **k: calls.append(a) or real_parse(*a, **k))
    run("one", "{{ define \"v\" }}1{{ end }}")
    run("two", "{{ define \"v\" }}2{{ end }}")
    assert calls == []
    assert len(list((disk.root / environment.TREES_MEMO).iterdir())) == 3


def test_a_text_in_no_folder_has_an_entry_of_its_own(disk: memo.DiskMemo) -> None:
    """tpl's texts may be made of values that change from run to run: each new text adds an
    entry and rewrites none (rewriting an existing file can wait for the disk)."""
    for run in range(3):
        _first_run(disk, "gotpl", f"{{{{ .a }}}}-{run}", {"a": run})
        _first_run(disk, "gotpl", "{{ .a }}", {"a": run})
    entries = {p.name: p.stat().st_mtime_ns for p in (disk.root / environment.TREES_MEMO).iterdir()}
    assert len(entries) == 4
    _first_run(disk, "gotpl", "{{ .a }}", {"a": 0})
    assert {p.name: p.stat().st_mtime_ns for p in (disk.root / environment.TREES_MEMO).iterdir()} == entries
    # A text without actions (tpl of a generated password) is built again rather than kept.
    for run in range(2):
        _first_run(disk, "gotpl", f"password-{run}", {})
        _first_run(disk, "templates/plain.yaml", f"kind: A{run}", {})
    assert {p.name: p.stat().st_mtime_ns for p in (disk.root / environment.TREES_MEMO).iterdir()} == entries


LIBRARY = ('{{ define "used" }}U{{ end }}{{ define "unused" }}{{ .x.y.z }}{{ end }}'
           '{{ define "blank" }}{{ end }}')


def test_remembered_trees_load_only_when_a_set_needs_them(disk: memo.DiskMemo) -> None:
    _first_run(disk, "lib.tpl", LIBRARY)  # no define ran: each is parsed again when needed
    tset = _env(disk).new_set()
    tset.parse("own.tpl", '{{ define "blank" }}B{{ end }}{{ template "used" }}{{ template "blank" }}')
    tset.parse("lib.tpl", LIBRARY)  # from the memo: its empty "blank" must not replace ours
    stored = tset._trees
    assert all(isinstance(stored[n], environment.StoredTree) for n in ("used", "unused", "lib.tpl"))
    assert tset.execute("own.tpl", {}) == "UB"
    assert isinstance(stored["used"], nodes.Tree)  # loaded on first use
    assert isinstance(stored["unused"], environment.StoredTree)  # never run, never unpickled
    unused = tset.tree("unused")
    fresh = _env(None).new_set()
    fresh.parse("lib.tpl", LIBRARY)
    same = fresh.tree("unused")
    assert unused is not None and same is not None and unused.text == LIBRARY
    assert str(unused.root) == str(same.root) and unused.location(unused.root.pos) == same.location(same.root.pos)


BRANCHES = ('{{ if .on }}ON{{ range .items }}[{{ . }}]{{ end }}{{ else }}OFF{{ .x.y }}{{ end }}'
            '{{ with .w }}W{{ .z.q }}{{ else with .v }}V{{ end }}')


def test_remembered_branches_load_when_they_first_run(disk: memo.DiskMemo) -> None:
    _first_run(disk, "b.yaml", BRANCHES, {"on": True, "items": [1], "w": 1},
               {"on": False, "x": {"y": 1}, "v": 1})  # every body ran once: every body is stored
    fresh = _env(None).new_set()
    fresh.parse("b.yaml", BRANCHES)
    tset = _env(disk).new_set()
    tset.parse("b.yaml", BRANCHES)
    tree = tset.tree("b.yaml")
    assert tree is not None
    if_node, with_node = tree.root.nodes
    assert if_node._list_blob and if_node._else_blob and if_node.has_else  # nothing loaded yet
    assert tset.execute("b.yaml", {"on": True, "items": [1, 2], "v": 0}) == "ON[1][2]"
    assert if_node._list_blob is None and if_node._else_blob  # only the branch that ran
    assert with_node._list_blob and with_node._else_blob is None  # `else with` ran, its body did not
    with pytest.raises(Exception) as remembered:
        tset.execute("b.yaml", {"on": False, "x": None})
    with pytest.raises(Exception) as parsed:
        fresh.execute("b.yaml", {"on": False, "x": None})
    assert str(remembered.value) == str(parsed.value) and "b.yaml:1:" in str(parsed.value)
    assert str(tree.root) == str(fresh.tree("b.yaml").root)  # reprints load every body


def test_bodies_that_did_not_run_are_parsed_again_when_they_first_run(
        disk: memo.DiskMemo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first run stores only the trees and branch bodies it ran; a later run that enters
    another body parses the text again (once), with the same output and errors."""
    text = LIBRARY + BRANCHES
    _first_run(disk, "b.yaml", text, {"on": True, "items": [1, 2]})
    calls = []
    real_parse = parser.parse
    monkeypatch.setattr(parser, "parse", lambda *a, **k: calls.append(a) or real_parse(*a, **k))
    second = _env(disk)
    tset = second.new_set()
    tset.parse("b.yaml", text)
    tree = tset.tree("b.yaml")
    assert tree is not None
    if_node, with_node = tree.root.nodes[-2:]
    assert if_node._list_blob and if_node._else_blob == nodes.NOT_STORED
    assert with_node._list_blob == nodes.NOT_STORED and with_node._else_blob  # `else with` ran (not its body)
    assert tset.execute("b.yaml", {"on": True, "items": [3]}) == "ON[3]"
    assert calls == []  # what ran in the first run is loaded
    fresh = _env(None).new_set()
    fresh.parse("b.yaml", text)
    for data in ({"on": False, "x": {"y": "Q"}, "w": {"z": {"q": 1}}}, {"on": False, "x": {"y": 2}, "v": 1}):
        assert tset.execute("b.yaml", data) == fresh.execute("b.yaml", data)
    with pytest.raises(Exception) as remembered:
        tset.execute("b.yaml", {"on": False, "x": None})
    with pytest.raises(Exception) as parsed:
        fresh.execute("b.yaml", {"on": False, "x": None})
    assert str(remembered.value) == str(parsed.value) and "b.yaml:1:" in str(parsed.value)
    unused = tset.tree("unused")  # a define that never ran
    assert unused is not None and str(unused.root) == str(fresh.tree("unused").root)
    assert len(calls) == 2  # the text was parsed again once, by the fresh set and by ours
    assert str(tree.root) == str(fresh.tree("b.yaml").root)
    second.save_parsed()  # what ran now is stored now: a third run parses nothing
    third = _env(disk).new_set()
    third.parse("b.yaml", text)
    for data in ({"on": False, "x": {"y": "Q"}, "w": {"z": {"q": 1}}}, {"on": True, "items": [3]}):
        assert third.execute("b.yaml", data) == fresh.execute("b.yaml", data)
    assert len(calls) == 2
    assert str(third.tree("b.yaml").root) == str(fresh.tree("b.yaml").root)  # reprints read every body


EVERY_NODE = ('{{/* c */}}{{ $x := 1 }}{{ $x = 0x1F }}{{ $y := (index .m "k").f.g }}{{ 1.5e3 }} {{ 2i }} '
              "{{ 'a' }} {{ `raw` }} {{ \"q\\n\" }} {{ true }} {{ print nil }} {{ . | len }} {{ $.m.k.f }} "
              '{{ range $i, $e := .l }}{{ if eq $e 2 }}{{ continue }}{{ end }}{{ if eq $e 3 }}{{ break }}{{ end }}'
              '{{ $i }}{{ else }}none{{ end }}{{ with .w }}{{ . }}{{ else with .m }}{{ .k }}{{ end }}'
              '{{ block "b" . }}B{{ .w }}{{ end }}{{ template "b" .m }}{{ define "d" }}D{{ end }}')


def test_every_kind_of_node_reads_back_as_it_was_parsed(disk: memo.DiskMemo) -> None:
    from tests.gotemplate.test_lexer_fast_path import shape
    runs = ({"m": {"k": {"f": {"g": 1}}}, "l": [1, 2, 3], "w": 0}, {"m": {"k": {"f": {"g": 1}}}, "l": [], "w": 1})
    _first_run(disk, "e.yaml", EVERY_NODE, *runs)
    tset = _env(disk).new_set()
    tset.parse("e.yaml", EVERY_NODE)
    fresh = _env(None).new_set()
    fresh.parse("e.yaml", EVERY_NODE)
    for data in runs:
        assert tset.execute("e.yaml", data) == fresh.execute("e.yaml", data)
    for name in ("e.yaml", "b", "d"):
        loaded, parsed = tset.tree(name), fresh.tree(name)
        assert loaded is not None and parsed is not None
        assert str(loaded.root) == str(parsed.root)  # reads (loads or parses again) every body
        assert shape(loaded.root) == shape(parsed.root)


def test_parse_errors_are_not_remembered(disk: memo.DiskMemo) -> None:
    for _ in range(2):
        with pytest.raises(parser.ParseError, match='function "nope" not defined'):
            _env(disk).new_set().parse("bad.yaml", "{{ nope }}")


def test_a_damaged_entry_is_a_miss(disk: memo.DiskMemo) -> None:
    _first_run(disk, "t.yaml", TEXT, {"a": "q", "b": [1]})
    for entry in (disk.root / environment.TREES_MEMO).iterdir():
        entry.write_bytes(b"not a pickle")
    tset = _env(disk).new_set()
    tset.parse("t.yaml", TEXT)
    assert tset.execute("t.yaml", {"a": "z", "b": [0]}) == "X=Z-1"


BIG_YAML = "".join(f"key{i}:\n  port: {i}\n  enabled: yes\n  name: '{i:x}'\n" for i in range(200))


def test_yaml_decodes_are_remembered_errors_are_not(
        disk: memo.DiskMemo, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = goyaml.decode(BIG_YAML)
    assert expected["key10"] == {"port": 10.0, "enabled": True, "name": "a"}
    calls = []
    real = goyaml.decode_uncached
    monkeypatch.setattr(goyaml, "decode_uncached", lambda text: calls.append(text) or real(text))
    again = goyaml.decode(BIG_YAML)
    assert again == expected and again is not expected and calls == []  # loaded, not decoded
    again["key10"]["port"] = 0.0  # a caller's change does not reach the memo
    assert goyaml.decode(BIG_YAML)["key10"]["port"] == 10.0
    bad = BIG_YAML + "key0: [unclosed\n"
    for _ in range(2):
        with pytest.raises(ValueError):
            goyaml.decode(bad)
    assert len(calls) == 2 and len(list((disk.root / goyaml.DECODE_MEMO).iterdir())) == 1


def test_to_yaml_texts_are_remembered_by_value(disk: memo.DiskMemo, monkeypatch: pytest.MonkeyPatch) -> None:
    def value(last: object) -> dict[str, object]:
        return {"b": [1, 2.5, last], "a": {"x": None}, "labels": {f"app.kubernetes.io/k{i}": "v" for i in range(6)}}

    first = goyaml.dump(value("yes"))
    calls = []
    real = goyaml._emit
    monkeypatch.setattr(goyaml, "_emit", lambda plain: calls.append(plain) or real(plain))
    assert goyaml.dump(value("yes")) == first  # read back
    assert goyaml.dump(value(True)) != first  # another value
    assert [c["b"] for c in calls] == [[1, 2.5, True]]
    with pytest.raises(Exception, match="unsupported value: NaN"):
        goyaml.dump({"a": float("nan")})  # refused before the memo is asked
    # A small value goyaml_emit writes is written again each time: no entry is read or written.
    assert goyaml.dump({"small": [1, "x"]}) == "small:\n- 1\n- x\n"
    assert len(calls) == 1 and len(os.listdir(os.path.join(disk.root_text, goyaml.DUMP_MEMO))) == 2


def test_a_second_cli_run_of_a_chart_does_not_import_pyyaml(tmp_path: Path) -> None:
    """Chart.yaml, values, toYaml texts and rendered documents all come from the memo (a label
    with non-ASCII text needs PyYAML's emitter the first time)."""
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"),
        "values.yaml": "labels:\n  tier: web\n  note: caf\u00e9\nports: [80, 443]\n",
        "templates/cm.yaml": "kind: ConfigMap\nmetadata:\n  labels: {{- toYaml .Values.labels | nindent 4 }}\n"
                             "data:\n  ports: {{ .Values.ports | toJson | quote }}\n"
                             "  parsed: {{ fromYaml \"x: 1\" | toYaml | quote }}\n"})
    runs, written = _render_twice_to_folders(
        chart, tmp_path, "print('pyyaml' if 'yaml' in sys.modules else 'no pyyaml', file=sys.stderr)")
    assert written[0] == written[1] and "tier: web" in written[0]
    assert [r.stderr.strip().splitlines()[-1] for r in runs] == ["pyyaml", "no pyyaml"]


def _render_twice_to_folders(chart: Path, tmp_path: Path, report: str, written: str = "c/templates/cm.yaml",
                             ) -> tuple[list[subprocess.CompletedProcess[str]], list[str]]:
    """Two ``helm-core template --output-dir`` processes sharing a cache root, the first run's
    kept output taken away before the second (which renders again, from the memo's trees),
    each running the Python statement ``report`` afterwards; their processes and the texts of
    the ``written`` file."""
    script = ("import sys; from helm_core import cli; "
              "code = cli.main(['template', 'x', sys.argv[1], '--output-dir', sys.argv[2]]); "
              f"{report}; sys.exit(code)")
    env = dict(os.environ, HELM_CORE_CACHE=str(tmp_path / "cache"))
    runs = []
    for i in range(2):
        shutil.rmtree(tmp_path / "cache" / "memo" / rendered.OUTPUT_MEMO, ignore_errors=True)
        runs.append(subprocess.run([sys.executable, "-c", script, str(chart), str(tmp_path / f"out{i}")],
                                   capture_output=True, text=True, env=env, check=False))
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    return runs, [(tmp_path / f"out{i}" / written).read_text() for i in range(2)]


#: Modules an ``--output-dir`` render of the example chart has no use for, whose import was a
#: visible part of a run (bench/deferred.py): hashlib loads OpenSSL (cache keys use _blake2),
#: secrets brings hmac (random strings use random.SystemRandom), pathlib brings urllib and
#: ipaddress (os.path serves), the utf-8-sig codec (Chart.yaml's BOM is dropped by hand), json (only
#: for values schemas), PyYAML and the ctypes its reader loads (the chart's YAML is in goyaml_block's
#: subset, its toYaml values in goyaml_emit's), copy and weakref (records copy themselves), base64 and
#: struct (binascii encodes; floats are packed by the two functions that need it), importlib and
#: importlib.util (support/lazy imports by name, memo asks sys.meta_path's finders).
NOT_IMPORTED_BY_A_RENDER = ["hashlib", "_hashlib", "secrets", "hmac", "pathlib", "urllib.parse", "ipaddress",
                            "encodings.utf_8_sig", "json", "yaml", "ctypes", "copy", "weakref", "base64", "struct",
                            "importlib", "importlib.util"]


def test_an_output_dir_render_imports_none_of_the_modules_it_does_not_need(tmp_path: Path) -> None:
    """The first run (nothing in the memo) and the second (a render from the memo's trees),
    neither of which imports typing either (annotations' names are imported for type checkers only)."""
    chart = Path(__file__).resolve().parents[1] / "examples" / "charts" / "hello"
    runs, written = _render_twice_to_folders(chart, tmp_path, (
        f"print([m for m in {NOT_IMPORTED_BY_A_RENDER!r} if m in sys.modules], "
        "'typing' if 'typing' in sys.modules else 'no typing', file=sys.stderr)"),
        written="hello/templates/configmap.yaml")
    assert written[0] == written[1] and "kind: ConfigMap" in written[0]
    reports = [r.stderr.strip().splitlines()[-1] for r in runs]
    assert reports == ["[] no typing", "[] no typing"]



def test_a_render_with_a_values_schema_does_not_import_typing(tmp_path: Path) -> None:
    """The schema check (its verdict and JSON pointers) on both runs: typing's import is ~1 ms."""
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"), "values.yaml": "replicas: 2\n",
        "values.schema.json": '{"type": "object", "properties": {"replicas": {"type": "integer"}}}',
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n  replicas: {{ .Values.replicas | quote }}\n"})
    runs, written = _render_twice_to_folders(
        chart, tmp_path, "print('typing' if 'typing' in sys.modules else 'no typing', file=sys.stderr)")
    assert written[0] == written[1] and 'replicas: "2"' in written[0]
    assert [r.stderr.strip().splitlines()[-1] for r in runs] == ["no typing", "no typing"]

#: Patterns compiled on first use (helm_core.support.patterns) that neither run of the example
#: chart to a folder needs (plain versions, ASCII text, no escapes, flow sequences or
#: fractional numbers): as module-level compiles they were a visible part of a run.
PATTERNS_A_RENDER_DOES_NOT_COMPILE = (
    "goyaml_rules._DOT_FLOAT", "goyaml_rules.SURROGATE", "goyaml_block._FLOW_PLAIN", "goregexp._ESCAPED_BYTE",
    "capabilities._GENERIC_VERSION")


def test_an_output_dir_render_compiles_none_of_the_patterns_it_does_not_need(tmp_path: Path) -> None:
    chart = Path(__file__).resolve().parents[1] / "examples" / "charts" / "hello"
    runs, written = _render_twice_to_folders(chart, tmp_path, (
        "from helm_core.golib import goyaml_rules, goyaml_block, goregexp; "
        "from helm_core.chart import chartfile; from helm_core.engine import capabilities; "
        f"print([p for p in {PATTERNS_A_RENDER_DOES_NOT_COMPILE!r} if eval(p).cache_info().currsize], "
        "file=sys.stderr)"), written="hello/templates/configmap.yaml")
    assert written[0] == written[1] and "kind: ConfigMap" in written[0]
    assert [r.stderr.strip().splitlines()[-1] for r in runs] == ["[]", "[]"]


#: Patterns a run of a chart with only plain versions and ranges (``v1.2.3``, ``>= 1.19.0-0``,
#: ``1.x``), ASCII JSON and YAML texts without colons compiles in neither of two runs: they are
#: told by string methods first (a first run compiled ~8 ms of them, bench/compiles.py).
PATTERNS_A_PLAIN_CHART_DOES_NOT_COMPILE = (
    "versions._valid_constraint_re", "versions._constraint_re", "versions._find_constraint_re",
    "versions._range_re", "gojson._surrogate_patterns", "goyaml_emit._BASE60_FLOAT")
#: Modules a render whose trees all come from the memo has no use for: the parser, its lexer and
#: literals (tpl of a text without ``{{`` needs no parse).
NOT_IMPORTED_BY_A_RENDER_FROM_THE_MEMO = ["helm_core.gotemplate.parser", "helm_core.gotemplate.lexer",
                                          "helm_core.gotemplate.literals"]
#: Modules neither run needs when no template calls a regex or casing function, no file is globbed,
#: the schema has no pattern, no post-renderer runs and toYaml's values are common ones: goregexp
#: (and RE2), unicodedata, the patch engine, libyaml's emitter (goyaml_write); nor pickle.py in
#: any run (support/pickling takes the C module's functions).
NOT_IMPORTED_BY_A_PLAIN_RENDER = ["helm_core.golib.goregexp", "re2", "unicodedata", "helm_core.engine.patch",
                                  "helm_core.golib.goyaml_write", "pickle"]


def test_plain_charts_compile_no_version_pattern_import_no_regexp_and_render_again_without_parser(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c", version="v1.2.3", kubeVersion="'>= 1.19.0-0'")
                      + "dependencies:\n- name: sub\n  version: 1.x\n",
        "charts/sub/Chart.yaml": chart_yaml("sub", version="1.4.0"),
        "values.yaml": "plain: generated-text\nobj: {a: [1, \"b\"]}\nlabels: {tier: web}\n",
        "values.schema.json": '{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}',
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n  t: {{ tpl .Values.plain . }}\n"
                             "  j: {{ .Values.obj | toJson | quote }}\n"
                             "  y: {{ toYaml .Values.labels | quote }}\n",
        "templates/hook.yaml": "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: pre-install\n"
                               "    helm.sh/hook-weight: ' 5 '\n"})
    runs, written = _render_twice_to_folders(chart, tmp_path, (
        "from helm_core.golib import gojson, goyaml_emit, versions; from helm_core.chart import chartfile; "
        f"print([p for p in {PATTERNS_A_PLAIN_CHART_DOES_NOT_COMPILE!r} if eval(p).cache_info().currsize], "
        f"[m for m in {NOT_IMPORTED_BY_A_PLAIN_RENDER!r} if m in sys.modules], "
        f"[m for m in {NOT_IMPORTED_BY_A_RENDER_FROM_THE_MEMO!r} if m in sys.modules], file=sys.stderr)"))
    assert written[0] == written[1] and 't: generated-text' in written[0] and 'y: "tier: web"' in written[0]
    reports = [r.stderr.strip().splitlines()[-1] for r in runs]
    assert reports[0].startswith("[] [] [") and reports[0] != "[] [] []"  # the first run parses its templates
    assert reports[1] == "[] [] []"


def test_a_render_imports_what_its_chart_and_flags_use(tmp_path: Path) -> None:
    # Without --set flags, dependencies or calls of them, no
    # --set parser, no version ranges, no Sprig module but the ones its templates call and no
    # Go time formatting (for values that hold a time).
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"), "values.yaml": "name: web\n",
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n  n: {{ .Values.name | quote }}\n"
                             "{{- if .Values.off }}\n  h: {{ sha256sum .Values.name }}\n{{- end }}\n"})
    unused = ["helm_core.chart.strvals", "helm_core.golib.versions", "helm_core.action.values_options",
              "helm_core.gotemplate.funcs.crypto", "helm_core.gotemplate.funcs.dates", "helm_core.golib.gotime"]
    runs = _cli_runs(chart, tmp_path / "cache", "--output-dir", str(tmp_path / "out"), runs=2,
                     report=f"print([m for m in {unused!r} if m in sys.modules], file=sys.stderr)")
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert [r.stderr.splitlines()[-1] for r in runs] == ["[]", "[]"]
    assert (tmp_path / "out" / "c" / "templates" / "cm.yaml").read_text().endswith('n: "web"\n')
    # --set brings its parsers, sha256sum the digests only (not the key and certificate functions).
    runs = _cli_runs(chart, tmp_path / "cache", "--output-dir", str(tmp_path / "out"), "--set", "off=1", runs=1,
                     report=f"print([m for m in {unused!r} if m in sys.modules], file=sys.stderr)")
    assert runs[0].stderr.splitlines()[-1] == str([unused[0], unused[2]])
    assert "h: " in (tmp_path / "out" / "c" / "templates" / "cm.yaml").read_text()


def test_regex_results_are_remembered_so_a_render_from_the_memo_imports_no_regexp(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"), "values.yaml": "tag: 1.2.3-r4\n",
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n"
                             "  n: {{ regexReplaceAll \"(-?[^a-z\\\\d\\\\-])+-?\" (upper .Release.Name) \"-\" | quote }}\n"
                             "  l: {{ regexReplaceAllLiteral \"[0-9]\" .Values.tag \"$1\" }}\n"
                             "  f: {{ regexFind \"-r\\\\d+$|sha256:\" .Values.tag }}\n"
                             "  m: {{ regexMatch \"^[0-9.]+$\" .Values.tag }} {{ regexMatch \"(\" .Values.tag }}\n"})
    runs, written = _render_twice_to_folders(chart, tmp_path, (
        "print('helm_core.golib.goregexp' in sys.modules, file=sys.stderr)"))
    assert written[0] == written[1]
    assert 'n: "-"\n' in written[0] and "l: $1.$1.$1-r$1\n" in written[0] and "f: -r4\n" in written[0]
    assert "m: false false\n" in written[0]
    assert [r.stderr.strip().splitlines()[-1] for r in runs] == ["True", "False"]


def test_the_console_script_imports_argparse_without_gettext(tmp_path: Path) -> None:
    """Its import is ~1 ms of every run; argparse's messages are still worded (in helm's words)."""
    chart = Path(__file__).resolve().parents[1] / "examples" / "charts" / "hello"
    script = ("import sys; from helm_core import __main__ as entry; entry._argparse_without_gettext(); "
              "from helm_core import cli; cli._english_argparse(); "
              "code = cli.main(['template', 'x', sys.argv[1], '--bogus']); "
              "print('gettext' in sys.modules, file=sys.stderr); sys.exit(code)")
    run = _script_run(script, chart, tmp_path)
    assert (run.returncode, run.stderr.splitlines()) == (1, ["Error: unknown flag: --bogus", "False"])


def _script_run(script: str, chart: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``python -c script CHART``, with a cache root of its own."""
    return subprocess.run([sys.executable, "-c", script, str(chart)], capture_output=True, text=True, check=False,
                          env=dict(os.environ, HELM_CORE_CACHE=str(tmp_path / "cache")))


def test_the_console_script_renders_with_datetime_from_its_c_module(tmp_path: Path) -> None:
    """datetime.py defines each class in Python before taking the C module's (~6 million
    instructions); the console script takes the C module itself, with the same objects: dates
    render, and values pickled with dates (the memo's) read back."""
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"),
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n"
                             "  d: {{ toDate \"2006-01-02\" \"2024-02-29\" | date \"Jan 2\" }}\n"
                             "  n: {{ now | date \"2006\" | atoi | le 2024 }}\n"})
    script = ("import sys, _datetime, pickle; from helm_core.__main__ import run; "
              "sys.argv[1:1] = ['template', 'x']; import helm_core.cli as cli; main = cli.main; "
              "cli.run = lambda: (main(), print(sys.modules['datetime'] is _datetime, "
              "pickle.loads(pickle.dumps(_datetime.datetime(2024, 2, 29))).day, file=sys.stderr)); run()")
    done = _script_run(script, chart, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "d: Feb 29\n  n: true\n" in done.stdout and done.stderr.splitlines()[-1] == "True 29"


def test_a_second_cli_run_loads_only_what_a_render_from_the_memo_needs(tmp_path: Path) -> None:
    """No schema checks, no range pattern, no logging: their results are all in the memo
    (the second run renders again: :func:`_render_twice_to_folders`)."""
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c") + "kubeVersion: '>=1.19.0-0'\n",
        "values.yaml": "port: 80\n",
        "values.schema.json": '{"type": "object", "properties": {"port": {"type": "integer"}}}',
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n  port: {{ .Values.port | quote }}\n"})
    unwanted = ["helm_core.chart.verdict", "helm_core.chart.metaschema", "logging", "yaml"]
    runs, written = _render_twice_to_folders(chart, tmp_path, (
        f"loaded = [m for m in {unwanted!r} if m in sys.modules]; from helm_core.golib import versions; "
        "print(loaded, versions._valid_constraint_re.cache_info().currsize, file=sys.stderr)"))
    assert written[0] == written[1] and 'port: "80"' in written[0]
    assert runs[0].stderr.strip().splitlines()[-1] != "[] 0"  # the first run computes them
    assert runs[1].stderr.strip().splitlines()[-1] == "[] 0"


def test_version_ranges_are_remembered_errors_are_not(disk: memo.DiskMemo,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = versions.Constraints._parse
    monkeypatch.setattr(versions.Constraints, "_parse",
                        classmethod(lambda cls, *a: calls.append(a) or real(*a)))
    first = versions.Constraints.parse(">=1.19.0-0 <3 || ~2.x")
    again = versions.Constraints.parse(">=1.19.0-0 <3 || ~2.x")
    assert str(again) == str(first) and again.check(versions.Version.parse("2.1.0"))
    assert versions.Constraints.parse(">=1.19.0-0 <3 || ~2.x", include_prerelease=True).include_prerelease
    for _ in range(2):
        with pytest.raises(versions.VersionError, match="improper constraint"):
            versions.Constraints.parse(">>1")
    assert calls == [(">=1.19.0-0 <3 || ~2.x", False), (">=1.19.0-0 <3 || ~2.x", True), (">>1", False),
                     (">>1", False)]
    # Plain terms are told by string methods, cheaper than an entry: none is read or written.
    entries = sorted(os.listdir(os.path.join(disk.root_text, versions.CONSTRAINTS_MEMO)))
    assert versions.Constraints.parse(">=1.19.0-0 || ~2.x").check(versions.Version.parse("2.1.0"))
    assert sorted(os.listdir(os.path.join(disk.root_text, versions.CONSTRAINTS_MEMO))) == entries
    assert len(calls) == 4


SCHEMA = {"type": "object", "properties": {"port": {"type": "integer"}}}


def test_schema_pass_is_remembered_failures_are_not(disk: memo.DiskMemo,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    fast, exact = [], []
    real_fast, real_exact = schema._passes, schema._violations
    monkeypatch.setattr(schema, "_passes", lambda *a, **k: fast.append(a) or real_fast(*a, **k))
    monkeypatch.setattr(schema, "_violations", lambda *a, **k: exact.append(a) or real_exact(*a, **k))
    assert schema.violations(SCHEMA, {"port": 80}, source="c/values.schema.json") == []
    assert schema.violations(SCHEMA, {"port": 80}, source="c/values.schema.json") == []
    assert (len(fast), len(exact)) == (1, 0)  # the compiled check passed it, then the memo did
    # Another value (even one equal in Python: 80.0 == 80) is checked again; a failure is
    # worded by jsonschema each time.
    assert schema.violations(SCHEMA, {"port": 80.5}, source="c/values.schema.json") != []
    assert schema.violations(SCHEMA, {"port": 80.5}, source="c/values.schema.json") != []
    assert schema.violations(SCHEMA, {"port": 80.0}, source="c/values.schema.json") == []
    assert (len(fast), len(exact)) == (4, 2)


def test_without_a_memo_nothing_is_written(tmp_path: Path) -> None:
    memo.use(None)
    assert schema.violations(SCHEMA, {"port": 80}, source="c/values.schema.json") == []
    tset = environment.Environment(sprig.SPRIG_FUNCS).new_set()
    tset.parse("t.yaml", TEXT)
    assert not any(tmp_path.iterdir())


def test_the_cli_keeps_its_memo_under_the_cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    chart = Path(__file__).resolve().parents[1] / "examples" / "charts" / "hello"
    monkeypatch.setenv("HELM_CORE_CACHE", str(tmp_path))
    monkeypatch.setattr(render, "_CACHE", type(render._CACHE)())  # as in a new process
    assert cli.main(["template", "x", str(chart)]) == 0
    first = capsys.readouterr().out
    assert any((tmp_path / "memo" / environment.TREES_MEMO).iterdir())
    assert memo.active() is None  # installed for the command only
    assert cli.main(["template", "x", str(chart)]) == 0
    assert capsys.readouterr().out == first


def test_a_valid_schema_is_checked_against_its_metaschema_once(disk: memo.DiskMemo,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import jsonschema

    from helm_core.chart import metaschema

    compiled, exact = [], []
    real_valid, real_check = metaschema.valid, jsonschema.Draft202012Validator.check_schema
    monkeypatch.setattr(metaschema, "valid", lambda s, *a, **k: compiled.append(s) or real_valid(s, *a, **k))
    monkeypatch.setattr(jsonschema.Draft202012Validator, "check_schema",
                        classmethod(lambda cls, s, **k: exact.append(s) or real_check(s, **k)))

    def new_process() -> None:
        schema._fast.cache_clear()
        schema._compiled.cache_clear()

    own = dict(SCHEMA, title="checked once")
    for port in (1, 2):
        new_process()
        assert schema.violations(own, {"port": port}, source="c/values.schema.json") == []
    new_process()
    assert schema.violations(own, {"port": "x"}, source="c/values.schema.json") != []
    assert (len(compiled), len(exact)) == (1, 0)
    # An invalid schema is never remembered: the compiled check finds it (in the fast path,
    # then again before jsonschema's check words the error), every time.
    bad = {"type": "object", "properties": {"port": {"type": 12}}}
    for _ in range(2):
        new_process()
        found = schema.violations(bad, {"port": 1}, source="c/values.schema.json")
        assert found[0].startswith('"file:///values.schema.json#" is not valid against metaschema: ')
    assert (len(compiled), len(exact)) == (5, 2)


def test_package_folder_finds_installed_code_or_none() -> None:
    folder = memo.package_folder("yaml")
    assert folder is not None and os.path.isfile(os.path.join(folder, "__init__.py"))
    assert memo.package_folder("no_such_package_here") is None


@pytest.mark.parametrize("name", ["yaml", "jsonschema", "jsonschema_specifications", "re2", "json", "os",
                                  "helm_core", "no_such_package_here"])
def test_package_folder_is_where_importlib_finds_the_package(name: str) -> None:
    """Asked of sys.meta_path's finders without importlib.util, as importlib.util.find_spec asks them
    (a module already imported: its own spec; a plain module is no package: None)."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    expected = None if spec is None or not spec.submodule_search_locations else str(
        next(iter(spec.submodule_search_locations)))
    assert memo.package_folder(name) == expected


#: What a ``template`` process prints last by default: whether the template engine was loaded.
ENGINE_OR_MEMO = "print('engine' if 'helm_core.engine.render' in sys.modules else 'memo', file=sys.stderr)"


def _cli_runs(chart: Path, cache: Path, *extra: str, runs: int = 2, report: str = ENGINE_OR_MEMO,
              ) -> list[subprocess.CompletedProcess[str]]:
    """``helm-core template`` processes, each running the Python statement ``report`` afterwards."""
    script = ("import sys; from helm_core import cli; code = cli.main(['template', 'x', *sys.argv[1:]]); "
              f"{report}; sys.exit(code)")
    env = dict(os.environ, HELM_CORE_CACHE=str(cache))
    return [subprocess.run([sys.executable, "-c", script, str(chart), *extra], capture_output=True, text=True,
                           env=env, check=False) for _ in range(runs)]


def test_a_pure_render_is_printed_again_from_the_memo(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"), "values.yaml": "port: 80\n",
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n  port: {{ .Values.port | quote }}\n"
                             "  ns: {{ .Release.Namespace }}\n",
        "templates/hook.yaml": "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: no-such-hook\n"})
    first, second = _cli_runs(chart, tmp_path / "cache")
    assert (first.returncode, second.returncode) == (0, 0), first.stderr
    assert second.stdout == first.stdout and 'port: "80"' in first.stdout
    assert first.stderr.splitlines()[-1] == "engine" and second.stderr.splitlines()[-1] == "memo"
    assert "skipping unknown hook" in first.stderr
    assert second.stderr == first.stderr.replace("engine", "memo")  # the same info lines
    # Anything that decides the output is part of the key: a file, the values, a flag.
    (chart / "values.yaml").write_text("port: 81\n")
    changed = _cli_runs(chart, tmp_path / "cache", runs=1)[0]
    assert 'port: "81"' in changed.stdout and changed.stderr.splitlines()[-1] == "engine"
    values = tmp_path / "v.yaml"
    values.write_text("port: 82\n")
    by_file = _cli_runs(chart, tmp_path / "cache", "-f", str(values))
    assert [r.stdout.count('port: "82"') for r in by_file] == [1, 1]
    assert [r.stderr.splitlines()[-1] for r in by_file] == ["engine", "memo"]
    values.write_text("port: 83\n")
    assert 'port: "83"' in _cli_runs(chart, tmp_path / "cache", "-f", str(values), runs=1)[0].stdout
    assert "ns: other" in _cli_runs(chart, tmp_path / "cache", "-n", "other", runs=1)[0].stdout
    assert 'port: "84"' in _cli_runs(chart, tmp_path / "cache", "--set", "port=84", runs=1)[0].stdout


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _wrote(run: subprocess.CompletedProcess[str], folder: Path) -> str:
    return run.stdout.replace(str(folder), "OUT")


#: A resource and a hook in one file, and a file of a hook alone.
HOOKED_CHART = {
    "Chart.yaml": chart_yaml("c"), "values.yaml": "port: 80\n",
    "templates/cm.yaml": "kind: ConfigMap\ndata:\n  port: {{ .Values.port | quote }}\n---\n"
                         "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: pre-install\n",
    "templates/hook.yaml": "kind: Pod\nmetadata:\n  annotations:\n    helm.sh/hook: post-install\n"}


def test_an_output_dir_run_is_written_again_from_the_memo(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "src", HOOKED_CHART)
    cache, out, other = tmp_path / "cache", tmp_path / "out", tmp_path / "other"
    first, second = _cli_runs(chart, cache, "--output-dir", str(out))
    assert (first.returncode, second.returncode) == (0, 0), first.stderr
    assert [r.stderr.splitlines()[-1] for r in (first, second)] == ["engine", "memo"]
    assert second.stdout == first.stdout and f"wrote {out}/c/templates/hook.yaml\n" in first.stdout
    # The second run's hook was appended to the file the first run left (helm's rule); its
    # resource started its file again, and the hook after it was appended to that.
    files = _files(out)
    assert files["c/templates/hook.yaml"] == 2 * b"---\n# Source: c/templates/hook.yaml\nkind: Pod\nmetadata:\n" \
                                                 b"  annotations:\n    helm.sh/hook: post-install\n"
    assert [files["c/templates/cm.yaml"].count(kind) for kind in (b"kind: ConfigMap", b"kind: Job")] == [1, 1]
    # Another folder, --release-name: the same entry, written where the line says.
    moved = _cli_runs(chart, cache, "--output-dir", str(other), "--release-name", runs=1)[0]
    assert moved.stderr.splitlines()[-1] == "memo"
    assert _wrote(moved, other / "x") == _wrote(first, out) and set(_files(other)) == {f"x/{f}" for f in files}
    # One entry for printed and written runs: the text printed is the documents written.
    printed = _cli_runs(chart, cache, runs=1)[0]
    assert printed.stderr.splitlines()[-1] == "memo"
    documents = b"".join(_files(other / "x").values()).decode()
    assert sorted(printed.stdout.split("---\n")) == sorted(documents.split("---\n"))
    # A changed file or value is a new output.
    (chart / "values.yaml").write_text("port: 81\n")
    changed = _cli_runs(chart, cache, "--output-dir", str(out), runs=1)[0]
    assert changed.stderr.splitlines()[-1] == "engine" and b'port: "81"' in _files(out)["c/templates/cm.yaml"]
    by_flag = _cli_runs(chart, cache, "--output-dir", str(out), "--set", "port=82", runs=2)
    assert [r.stderr.splitlines()[-1] for r in by_flag] == ["engine", "memo"]
    assert b'port: "82"' in _files(out)["c/templates/cm.yaml"]
    (chart / "templates" / "hook.yaml").write_text("kind: Pod\nmetadata:\n  annotations:\n    helm.sh/hook: test\n")
    again = _cli_runs(chart, cache, "--output-dir", str(other), runs=1)[0]
    assert again.stderr.splitlines()[-1] == "engine" and b"hook: test" in _files(other)["c/templates/hook.yaml"]


def test_an_output_dir_run_from_the_memo_writes_what_an_output_of_hooks_alone_holds(tmp_path: Path) -> None:
    # The printed text of hooks alone starts with a newline (helm's empty release manifest);
    # the files do not.
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"),
        "templates/hook.yaml": "kind: Pod\nmetadata:\n  annotations:\n    helm.sh/hook: post-install\n"})
    printed = _cli_runs(chart, tmp_path / "cache", runs=1)[0]
    assert printed.stdout.startswith("\n---") and printed.stderr.splitlines()[-1] == "engine"
    written = _cli_runs(chart, tmp_path / "cache", "--output-dir", str(tmp_path / "out"), runs=1)[0]
    assert written.stderr.splitlines()[-1] == "memo"
    assert _files(tmp_path / "out") == {"c/templates/hook.yaml": printed.stdout[1:].encode()}


def test_output_dir_runs_with_random_values_keep_and_take_parts(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"), "values.yaml": "port: 80\n",
        "templates/config.yaml": "kind: ConfigMap\ndata:\n  port: {{ .Values.port | quote }}\n",
        "templates/secret.yaml": "kind: Secret\ndata:\n  p: {{ randAlphaNum 12 | b64enc }}\n",
        "templates/tls.yaml": "{{- $ca := genCA \"ca\" 1 }}kind: Secret\ndata:\n  ca: {{ $ca.Cert | b64enc }}\n"})
    cache = tmp_path / "cache"
    runs = [_cli_runs(chart, cache, "--output-dir", str(tmp_path / f"out{i}"), runs=1, report=(
        "from helm_core.gotemplate.funcs import keypool; print(keypool.made_ahead(), "
        "'helm_core.chart.loader' in sys.modules, file=sys.stderr)"))[0] for i in range(3)]
    assert [r.returncode for r in runs] == [0, 0, 0], runs[0].stderr
    # The second run made its key ahead and took the ConfigMap's text; the third the prepared chart too.
    assert [r.stderr.splitlines()[-1] for r in runs] == ["0 True", "1 True", "1 False"]
    written = [_files(tmp_path / f"out{i}") for i in range(3)]
    assert len({w["c/templates/config.yaml"] for w in written}) == 1
    assert len({w["c/templates/secret.yaml"] for w in written}) == 3
    assert (cache / "memo" / rendered.PARTS_MEMO).exists() and not (cache / "memo" / rendered.OUTPUT_MEMO).exists()


def test_output_dir_runs_that_fail_are_not_kept(tmp_path: Path) -> None:
    # --show-only with an output folder fails once the files are written (as helm does).
    chart = write_chart(tmp_path / "src", {"Chart.yaml": chart_yaml("c"), "templates/cm.yaml": "kind: ConfigMap\n"})
    runs = _cli_runs(chart, tmp_path / "cache", "--output-dir", str(tmp_path / "out"), "-s", "templates/cm.yaml")
    assert [r.returncode for r in runs] == [1, 1]
    assert [r.stderr.splitlines()[-2:] for r in runs] == [
        ["Error: could not find template templates/cm.yaml in chart", "engine"]] * 2
    assert runs[1].stdout == runs[0].stdout == f"wrote {tmp_path}/out/c/templates/cm.yaml\n"


#: Modules a run printed from the memo has no use for: Go's quoting (for refused names and
#: chart files only) and the float packing it imports, the ASCII codec (the render limits read
#: /proc/self/status as bytes).
NOT_IMPORTED_FROM_THE_MEMO = ["helm_core.engine.render", "helm_core.golib.gostrconv", "struct", "hashlib",
                              "encodings.ascii"]


def test_a_run_printed_from_the_memo_imports_none_of_the_modules_it_does_not_need(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"),
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n  sum: {{ sha256sum \"a\" | trunc 8 }}\n"})
    runs = _cli_runs(chart, tmp_path / "cache", report=(
        f"print([m for m in {NOT_IMPORTED_FROM_THE_MEMO!r} if m in sys.modules], file=sys.stderr)"))
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout == runs[1].stdout and "sum: ca978112" in runs[0].stdout
    assert runs[0].stderr.splitlines()[-1] != "[]"  # the first run renders
    assert runs[1].stderr.splitlines()[-1] == "[]"


def test_renders_calling_impure_functions_are_never_kept_whole(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"),
        "templates/s.yaml": "kind: Secret\ndata:\n  p: {{ randAlphaNum 12 | b64enc }}\n",
        "templates/t.yaml": "kind: ConfigMap\ndata:\n  t: {{ tpl .Values.t . | quote }}\n",
        "values.yaml": "t: 'fixed'\n"})
    runs = _cli_runs(chart, tmp_path / "cache")
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout != runs[1].stdout  # a new password each time, as helm prints
    assert [r.stderr.splitlines()[-1] for r in runs] == ["engine", "engine"]
    # An impure call through tpl counts too.
    (chart / "templates" / "s.yaml").unlink()
    (chart / "values.yaml").write_text("t: '{{ now | date \"2006\" }}'\n")
    assert [r.stderr.splitlines()[-1] for r in _cli_runs(chart, tmp_path / "cache")] == ["engine", "engine"]


def test_a_render_with_random_values_renders_again_only_what_drew_them(tmp_path: Path) -> None:
    # Helm renders config.yaml before secret.yaml (reverse order of names at one depth).
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"), "values.yaml": "port: 80\n",
        "templates/config.yaml": "kind: ConfigMap\ndata:\n  port: {{ .Values.port | quote }}\n",
        "templates/secret.yaml": "kind: Secret\ndata:\n  p: {{ randAlphaNum 12 | b64enc }}\n"})
    cache = tmp_path / "cache"
    first = _cli_runs(chart, cache, runs=1)[0]
    assert first.returncode == 0, first.stderr
    entries = list((cache / "memo" / rendered.PARTS_MEMO).iterdir())
    assert len(entries) == 1 and b"kind: ConfigMap" in entries[0].read_bytes()
    assert b"kind: Secret" not in entries[0].read_bytes()
    # The next run takes the ConfigMap's text from the entry (changed here to show it) and
    # draws a new password.
    entries[0].write_bytes(entries[0].read_bytes().replace(b'port: "80"', b'port: "kp"'))  # same length
    second = _cli_runs(chart, cache, runs=1)[0]
    assert 'port: "kp"' in second.stdout and "kind: Secret" in second.stdout
    assert second.stdout.split("kind: Secret")[1] != first.stdout.split("kind: Secret")[1]


def test_a_repeated_render_writes_no_entry_for_what_it_drew_at_random(tmp_path: Path) -> None:
    """redis's checksum of its Secret: `fromYaml` of a text with a new password in each run. The
    run that repeats an identical render stores no decode of it, nor a `toYaml` of what it drew."""
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"), "values.yaml": "port: 80\n",
        "templates/config.yaml": "kind: ConfigMap\ndata:\n  port: {{ .Values.port | quote }}\n",
        "templates/secret.yaml": "kind: Secret\ndata:\n  p: {{ randAlphaNum 12 | b64enc }}\n",
        "templates/sts.yaml": (
            "kind: StatefulSet\nsum: {{ include (print $.Template.BasePath \"/secret.yaml\") . | fromYaml"
            " | toYaml | sha256sum }}\ncm: {{ include (print $.Template.BasePath \"/config.yaml\") ."
            " | fromYaml | toYaml | sha256sum }}\nbig: {{ dict \"k\" (randAlphaNum 9000) | toYaml | len }}\n")})
    cache = tmp_path / "cache"
    decoded, dumped = cache / "memo" / goyaml.DECODE_MEMO, cache / "memo" / goyaml.DUMP_MEMO
    counts = []
    for _ in range(4):
        run = _cli_runs(chart, cache, runs=1)[0]
        assert run.returncode == 0 and "big: 9003" in run.stdout, run.stderr
        counts.append((len(list(decoded.iterdir())), len(list(dumped.iterdir()))))
    assert counts[1] == counts[2] == counts[3]  # the first run's entries, and no more
    assert counts[0][0] >= 2 and counts[0][1] >= 1


def test_outputs_rendered_again_after_a_random_draw_are_read_back_not_decoded(tmp_path: Path) -> None:
    """redis's Services: rendered again in every run (after the template that draws the password
    into the values) but the same text every time, their documents come from the memo."""
    chart = write_chart(tmp_path / "src", {  # z-gen.yaml renders first (reverse order of names)
        "Chart.yaml": chart_yaml("c"),
        "templates/z-gen.yaml": "{{- $_ := set .Values \"p\" (randAlphaNum 8) -}}\n",
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n  a: b\n"})
    runs = _cli_runs(chart, tmp_path / "cache", runs=3, report=(
        "print('helm_core.golib.goyaml_block' in sys.modules, file=sys.stderr)"))
    assert [r.returncode for r in runs] == [0, 0, 0], runs[0].stderr
    assert all("kind: ConfigMap" in r.stdout for r in runs)
    assert [r.stderr.splitlines()[-1] for r in runs] == ["True", "False", "False"]


def test_a_render_that_keeps_no_output_still_tells_the_next_one_it_repeats(tmp_path: Path) -> None:
    """The first template draws into the values: no output is kept, but an (empty) entry says an
    identical render ran, so the next runs write no decode of the Secret they draw again."""
    chart = write_chart(tmp_path / "src", {  # z-gen.yaml renders first (reverse order of names)
        "Chart.yaml": chart_yaml("c"),
        "templates/z-gen.yaml": "{{- $_ := set .Values \"p\" (randAlphaNum 8) -}}\n",
        "templates/secret.yaml": "kind: Secret\ndata:\n  p: {{ .Values.p | b64enc }}\n"})
    cache = tmp_path / "cache"
    counts = []
    for _ in range(3):
        run = _cli_runs(chart, cache, runs=1)[0]
        assert run.returncode == 0 and "kind: Secret" in run.stdout, run.stderr
        counts.append(len(list((cache / "memo" / goyaml.DECODE_MEMO).iterdir())))
    assert counts[0] == counts[1] == counts[2] >= 1
    entry = next((cache / "memo" / rendered.PARTS_MEMO).iterdir())
    kept = rendered.recall_parts(memo.DiskMemo(cache / "memo"), entry.name)
    assert kept.found and kept.outputs == {} and kept.rsa_keys == {}
    assert not rendered.recall_parts(memo.DiskMemo(cache / "memo"), "0" * 64).found


def test_a_render_that_made_keys_has_them_generated_ahead_the_next_time(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"),
        "templates/svc.yaml": "kind: Service\n",
        "templates/tls.yaml": "{{- $ca := genCA \"ca\" 1 }}kind: Secret\ndata:\n  ca: {{ $ca.Cert | b64enc }}\n"})
    cache = tmp_path / "cache"
    runs = _cli_runs(chart, cache, runs=3, report=(
        "from helm_core.gotemplate.funcs import keypool; print(keypool.made_ahead(), file=sys.stderr)"))
    assert [r.returncode for r in runs] == [0, 0, 0], runs[0].stderr
    assert [r.stderr.splitlines()[-1] for r in runs] == ["0", "1", "1"]
    assert len({r.stdout for r in runs}) == 3 and all("kind: Service" in r.stdout for r in runs)
    entry = next((cache / "memo" / rendered.PARTS_MEMO).iterdir())
    assert rendered.recall_parts(memo.DiskMemo(cache / "memo"), entry.name).rsa_keys == {2048: 1}


def test_runs_that_take_kept_parts_take_the_prepared_chart_and_values_too(tmp_path: Path) -> None:
    # The first run keeps the ConfigMap's text, the second the prepared chart and values; the
    # third neither loads the chart nor checks its values against the schema (whose JSON syntax
    # check and validation are what import json).
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c") + "dependencies:\n- name: sub\n  version: 1.0.0\n  condition: sub.enabled\n",
        "charts/sub/Chart.yaml": chart_yaml("sub", version="1.0.0"),
        "charts/sub/templates/off.yaml": "kind: Off\n",
        "values.yaml": "port: 80\nsub: {enabled: false}\n",
        "values.schema.json": '{"type": "object", "properties": {"port": {"type": "integer"}}}',
        "templates/config.yaml": "kind: ConfigMap\ndata:\n  port: {{ .Values.port | quote }}\n",
        "templates/secret.yaml": "kind: Secret\ndata:\n  p: {{ randAlphaNum 12 | b64enc }}\n"})
    cache = tmp_path / "cache"
    runs = _cli_runs(chart, cache, "--set", "port=81", runs=4, report="print('json' in sys.modules, file=sys.stderr)")
    assert [r.returncode for r in runs] == [0, 0, 0, 0], runs[0].stderr
    assert [r.stderr.splitlines()[-1] for r in runs] == ["True", "True", "False", "False"]
    assert len({r.stdout for r in runs}) == 4
    for run in runs:
        assert run.stdout.split("kind: Secret")[0] == runs[0].stdout.split("kind: Secret")[0]
        assert 'port: "81"' in run.stdout and "kind: Off" not in run.stdout
    assert len(list((cache / "memo" / rendered.SOURCES_MEMO).iterdir())) == 1
    # The kept ConfigMap's decode went to the memo (with values.yaml's), and the Secret's of the
    # first run only (a new text each run: the runs that repeat it write none).
    decoded = [pickle.loads(p.read_bytes()) for p in (cache / "memo" / goyaml.DECODE_MEMO).iterdir()]
    assert sorted(d.get("kind", "values") for d in decoded) == ["ConfigMap", "Secret", "values"]
    # The kept output's documents come from the entry too (changed here to show it).
    entry = next((cache / "memo" / rendered.SOURCES_MEMO).iterdir())
    sources = rendered.recall_sources(memo.DiskMemo(cache / "memo"), entry.name)
    assert sources is not None and list(sources.documents) == ["c/templates/config.yaml"]
    sources.documents["c/templates/config.yaml"][1][0].content = "kind: ConfigMap # as decoded before"
    rendered.keep_sources(memo.DiskMemo(cache / "memo"), entry.name, sources)
    again = _cli_runs(chart, cache, "--set", "port=81", runs=1)[0]
    assert "kind: ConfigMap # as decoded before" in again.stdout and "kind: Secret" in again.stdout
    # Other values are another entry: prepared (and checked) again.
    refused = _cli_runs(chart, cache, "--set", "port=eighty", runs=1)[0]
    assert refused.returncode == 1 and "port" in refused.stderr


def test_kept_sources_leave_out_what_only_preparing_reads(tmp_path: Path) -> None:
    # The charts' default values and decoded schemas were read by preparing (the coalesced,
    # checked values are kept): unpickling them again was half of reading such an entry back.
    from helm_core.chart import loader, prepare

    chart = loader.load(str(write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c") + "dependencies:\n- name: sub\n  version: 1.0.0\n",
        "charts/sub/Chart.yaml": chart_yaml("sub", version="1.0.0"),
        "charts/sub/values.yaml": "size: 2\n",
        "charts/sub/values.schema.json": '{"type": "object"}',
        "values.yaml": "port: 80\n",
        "values.schema.json": '{"type": "object", "properties": {"port": {"type": "integer"}}}',
        "templates/config.yaml": "kind: ConfigMap\n"})))
    prepared = prepare.prepare_chart(chart, {"port": 81})
    disk = memo.DiskMemo(tmp_path / "memo")
    rendered.keep_sources(disk, "k", rendered.KeptSources(prepared, {}, ["said"]))
    kept = rendered.recall_sources(disk, "k")
    assert kept is not None and kept.said == ["said"]
    assert kept.prepared.values == prepared.values and prepared.values["port"] == 81
    for got, was in ((kept.prepared.chart, prepared.chart),
                     (kept.prepared.chart.dependencies[0], prepared.chart.dependencies[0])):
        assert (got.values, got.schema) == ({}, None)
        assert was.values and was.schema is not None  # the caller's charts are left as they were
        assert (got.raw_values, got.raw_schema, got.templates, got.files) == \
            (was.raw_values, was.raw_schema, was.templates, was.files)
    assert kept.prepared.chart.dependencies[0].parent is kept.prepared.chart


def test_outputs_that_read_values_another_template_set_are_rendered_again(tmp_path: Path) -> None:
    # Helm renders svc.yaml, secret.yaml, app.yaml (reverse order of names at one depth).
    # secret.yaml stores its password in .Values, and app.yaml prints it: only svc.yaml may be
    # kept.
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"), "values.yaml": "password: ''\n",
        "templates/svc.yaml": "kind: Service\nspec:\n  before: {{ .Values.password | quote }}\n",
        "templates/secret.yaml": "{{- $_ := set .Values \"password\" (randAlphaNum 12) }}"
                                 "kind: Secret\ndata:\n  p: {{ .Values.password }}\n",
        "templates/app.yaml": "kind: Deployment\nspec:\n  p: {{ .Values.password }}\n"})
    runs = _cli_runs(chart, tmp_path / "cache", runs=3)
    assert [r.returncode for r in runs] == [0, 0, 0], runs[0].stderr
    for run in runs:
        secret = run.stdout.split("kind: Secret\ndata:\n  p: ")[1].split("\n")[0]
        app = run.stdout.split("kind: Deployment\nspec:\n  p: ")[1].split("\n")[0]
        assert len(secret) == 12 and app == secret  # the Deployment sees this run's password
        assert 'before: ""' in run.stdout
    assert len({r.stdout for r in runs}) == 3
    entry = next((tmp_path / "cache" / "memo" / rendered.PARTS_MEMO).iterdir())
    assert b"kind: Service" in entry.read_bytes() and b"kind: Deployment" not in entry.read_bytes()
    # Were app.yaml's text kept anyway, the password set before its turn makes the render
    # start again without the kept texts.
    parts = rendered.recall_parts(memo.DiskMemo(tmp_path / "cache" / "memo"), entry.name)
    parts.outputs["c/templates/app.yaml"] = "kind: Deployment\nspec:\n  p: STALE\n"
    rendered.keep_parts(memo.DiskMemo(tmp_path / "cache" / "memo"), entry.name, parts)
    again = _cli_runs(chart, tmp_path / "cache", runs=1)[0]
    assert "STALE" not in again.stdout and again.stdout.count(
        again.stdout.split("kind: Secret\ndata:\n  p: ")[1].split("\n")[0]) == 2


#: A chart whose dependency condition is not a boolean: Helm warns (a log line) each time.
CONDITION_WARNING = "dependencies.go:64: Warning: Condition path 'sub.enabled' for chart sub returned non-bool value"


def _warning_chart(root: Path, **templates: str) -> Path:
    return write_chart(root, {
        "Chart.yaml": chart_yaml("c") + "dependencies:\n- name: sub\n  version: 0.1.0\n  condition: sub.enabled\n",
        "values.yaml": "sub:\n  enabled: 'yes'\n", "charts/sub/Chart.yaml": chart_yaml("sub"),
        "charts/sub/templates/s.yaml": "kind: Sub\n", **{f"templates/{n}": t for n, t in templates.items()}})


def test_runs_printed_from_the_memo_say_the_warnings_of_the_run_that_kept_it(tmp_path: Path) -> None:
    # A pure chart: the second run prints the kept output.
    pure = _warning_chart(tmp_path / "pure", **{"cm.yaml": "kind: ConfigMap\n"})
    runs = _cli_runs(pure, tmp_path / "cache")
    assert [r.stderr.splitlines() for r in runs] == [[CONDITION_WARNING, "engine"], [CONDITION_WARNING, "memo"]]
    assert runs[0].stdout == runs[1].stdout and "kind: Sub" in runs[0].stdout
    # A chart drawing random values: the third run takes the chart and values the second prepared.
    drawing = _warning_chart(tmp_path / "drawing", **{"cm.yaml": "kind: ConfigMap\n",
                                                      "secret.yaml": "kind: Secret\np: {{ randAlphaNum 8 }}\n"})
    runs = _cli_runs(drawing, tmp_path / "cache", runs=3,
                     report="print('helm_core.chart.dependencies' in sys.modules, file=sys.stderr)")
    assert [r.stderr.splitlines() for r in runs] == [[CONDITION_WARNING, "True"]] * 2 + [[CONDITION_WARNING, "False"]]



def test_the_output_key_covers_code_chart_values_and_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from helm_core.cli import rendered

    args = argparse.Namespace(args=["x", "c"], namespace="default", strict=False, parser=object())
    chart = rendered.ChartInput("c", files=[("Chart.yaml", b"name: c"), ("templates/a.yaml", b"a")])
    first = rendered.key(args, "x", chart, None)
    assert first is not None and rendered.key(args, "x", chart, None) == first
    assert rendered.key(argparse.Namespace(**{**vars(args), "parser": object()}), "x", chart, None) == first
    other_file = rendered.ChartInput("c", files=[("Chart.yaml", b"name: c"), ("templates/a.yaml", b"b")])
    assert rendered.key(args, "x", other_file, None) != first
    assert rendered.key(argparse.Namespace(**{**vars(args), "strict": True}), "x", chart, None) != first
    assert rendered.key(args, "y", chart, None) != first
    assert rendered.key(args, "x", chart, {"a": 1}) != rendered.key(args, "x", chart, {"a": 1.0})
    # Where an --output-dir run writes is not what it writes: the printed run's entry serves it.
    assert rendered.key(argparse.Namespace(**{**vars(args), "output_dir": "o", "release_name": True}),
                        "x", chart, None) == first
    monkeypatch.setattr(rendered, "_IDENTITY", [])
    monkeypatch.setattr(rendered, "_code_files", lambda: ["helm_core/x.py\0" "1\0" "2"])
    assert rendered.key(args, "x", chart, None) != first  # other code
    monkeypatch.setattr(rendered, "_IDENTITY", [])
    monkeypatch.setattr(rendered, "_code_files", lambda: (_ for _ in ()).throw(OSError("zip")))
    assert rendered.key(args, "x", chart, None) is None


def test_a_kept_output_gives_its_documents_to_an_output_dir_run(disk: memo.DiskMemo) -> None:
    from helm_core.action import template as template_action

    parts = [template_action.OutputPart("manifest", "c/templates/caf\u00e9.yaml", "kind: A"),
             template_action.OutputPart("hook", "c/templates/h h.yaml", "kind: H\nx: \udcff")]
    text = "".join(template_action.document(p.source, p.content) for p in parts)
    rendered.keep(disk, "k", rendered.Printed(text, ["info"], ["said"]), parts)
    printed = rendered.recall(disk, "k")
    assert printed is not None and (printed.text, printed.info, printed.said, printed.documents) == (
        text, ["info"], ["said"], None)
    written = rendered.recall(disk, "k", documents=True)
    assert written is not None and (written.text, written.info, written.said) == ("", ["info"], ["said"])
    assert written.documents == [(p.kind, p.source, template_action.document(p.source, p.content).encode(
        "utf-8", "surrogateescape")) for p in parts]
    # Hooks alone: the printed text starts with a newline the files do not have.
    rendered.keep(disk, "hooks", rendered.Printed("\n" + template_action.document(parts[1].source, parts[1].content),
                                                  []), parts[1:])
    hooks = rendered.recall(disk, "hooks", documents=True)
    assert hooks is not None and hooks.documents == written.documents[1:]
    # A --show-only run's text has no index: no documents (a miss), its text printed still.
    rendered.keep(disk, "shown", rendered.Printed(text, []))
    assert rendered.recall(disk, "shown", documents=True) is None and rendered.recall(disk, "shown") is not None
    # An index that does not tell the text is a damaged entry: a miss.
    rendered.keep(disk, "bad", rendered.Printed(text + "more", []), parts)
    assert rendered.recall(disk, "bad", documents=True) is None


def _counted_digests(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The bytes each digest made with ``cachekeys`` starts from, from now on."""
    from helm_core.support import cachekeys

    digested: list[bytes] = []
    real = cachekeys.hasher
    monkeypatch.setattr(cachekeys, "hasher", lambda data=b"": digested.append(bytes(data)) or real(data))
    return digested


def test_a_file_is_digested_once_for_its_digest_is_kept_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle as stdlib_pickle

    from helm_core.chart import model

    digested = _counted_digests(monkeypatch)
    file = model.File(name="templates/a.yaml", data=b"kind: A\n")
    first = file.digest()
    assert file.digest() == first and digested == [b"kind: A\n"]
    assert stdlib_pickle.loads(stdlib_pickle.dumps(file)).digest() == first and len(digested) == 1
    file.data = b"kind: B\n"  # other bytes, another digest
    assert file.digest() != first and digested[-1] == b"kind: B\n"
    assert file == model.File(name="templates/a.yaml", data=b"kind: B\n")  # not a field


def test_the_output_key_and_the_trees_keys_read_each_chart_file_once(
        tmp_path: Path, disk: memo.DiskMemo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The output memo's key digests every chart file; the chart loaded from those bytes gives
    its templates those digests, and its parse trees are keyed by them: no template is read
    twice. A template changed is a new output key and new trees."""
    import argparse

    chart_dir = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"), "values.yaml": "a: 1\n",
        "templates/cm.yaml": "kind: ConfigMap\nv: {{ .Values.a }}\n",
        "charts/sub/Chart.yaml": chart_yaml("sub"), "charts/sub/templates/s.yaml": "kind: Sub\n"})
    args = argparse.Namespace(args=["x", str(chart_dir)], namespace="default")

    def rendered_text() -> tuple[str, str | None]:
        chart_input = rendered.read_chart(str(chart_dir), None)
        key = rendered.key(args, "x", chart_input, None)
        digested.clear()
        chart = chart_input.load()
        out = render.render(chart, {"a": 1.0})
        assert [d for d in digested if d.startswith(b"kind:")] == []  # no template digested again
        assert len(model.all_template_files(chart)) == 2
        return out["c/templates/cm.yaml"], key

    from helm_core.chart import model

    digested = _counted_digests(monkeypatch)
    first, first_key = rendered_text()
    assert first == "kind: ConfigMap\nv: 1\n"
    (chart_dir / "templates" / "cm.yaml").write_text("kind: ConfigMap\nw: {{ .Values.a }}\n")
    render._CACHE.clear()  # a new process
    second, second_key = rendered_text()
    assert second == "kind: ConfigMap\nw: 1\n" and second_key != first_key
    # Any other file read is in the key too: a subchart's template (by its digest), values.yaml.
    (chart_dir / "charts" / "sub" / "templates" / "s.yaml").write_text("kind: Sub2\n")
    third_key = rendered.key(args, "x", rendered.read_chart(str(chart_dir), None), None)
    (chart_dir / "values.yaml").write_text("a: 2\n")
    fourth_key = rendered.key(args, "x", rendered.read_chart(str(chart_dir), None), None)
    assert len({first_key, second_key, third_key, fourth_key}) == 4


def test_trees_of_a_file_s_bytes_are_not_those_of_a_text_that_encodes_to_them(disk: memo.DiskMemo) -> None:
    """A file that is not UTF-8 is decoded with surrogate escapes; a text (tpl's) holding
    encoded surrogates may have those very bytes as its UTF-8: the trees' keys tell them apart."""
    from helm_core.support import cachekeys

    raw = b'{{ "x" }}\xed\xb2\x80'
    file_text = raw.decode("utf-8", "surrogateescape")
    other_text = '{{ "x" }}\udc80'
    assert other_text.encode("utf-8", "surrogatepass") == raw and other_text != file_text
    _first_run(disk, "c/templates/t.yaml", other_text, {})
    tset = _env(disk).new_set()
    tset.parse("c/templates/t.yaml", file_text, source_digest=cachekeys.hexdigest(raw))
    assert tset.execute("c/templates/t.yaml", {}) == file_text.replace('{{ "x" }}', "x")


def test_recent_pickles_count_an_entry_computed_by_two_threads_once() -> None:
    import threading

    recent = memo.RecentPickles(max_bytes=1 << 20)
    start = threading.Barrier(4)

    def compute() -> dict[str, str]:
        start.wait()  # all four miss, then all four store
        return {"k": "v" * 100}

    threads = [threading.Thread(target=recent.get_or_compute, args=("key", compute)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert recent._bytes == sum(len(blob) for blob in recent._entries.values())
    assert recent.get_or_compute("key", dict) == {"k": "v" * 100}


def test_call_site_code_is_compiled_once_then_read_from_the_memo(disk: memo.DiskMemo,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []

    def counting_compile(source: str, filename: str, mode: str) -> Any:
        compiled.append(filename)
        return compile(source, filename, mode)

    def new_process() -> None:  # the library is read from the memo again
        monkeypatch.setattr(callsite, "_LIBRARY", callsite._Library())

    monkeypatch.setattr(callsite, "compile", counting_compile, raising=False)
    new_process()
    shape = (("c", "v", "k2"), True)  # more words than premade shapes have
    other = (("c", "v", "k2"), False)
    codes = [callsite._maker_code(shape) for _ in range(2)]
    assert compiled == ["<template call site: c,v,k2 | piped>"] and codes[0] == codes[1]
    assert codes[0] is not None and codes[0].co_name == "make"  # the code of the maker itself
    callsite._maker_code(other)
    callsite.save_compiled()
    # every shape in one entry: a first run creates one file, not one per shape
    entries = list((disk.root / callsite.CODE_MEMO).iterdir())
    assert len(entries) == 1 and len(compiled) == 2
    new_process()
    assert callsite._maker_code(shape) == codes[0] and len(compiled) == 2
    # a warming site asks only for what is there
    assert callsite._maker_code(shape, compile_new=False) == codes[0]
    assert callsite._maker_code((("g", "g", "g"), False), compile_new=False) is None
    assert len(compiled) == 2
    # A damaged entry is compiled again (and replaced).
    entries[0].write_bytes(b"\x00damaged")
    new_process()
    callsite._maker_code(shape)
    callsite._maker_code(other)
    assert len(compiled) == 4
    callsite.save_compiled()
    new_process()
    callsite._maker_code(other)
    assert len(compiled) == 4


def test_hash_and_random_functions_import_neither_hashlib_nor_random(tmp_path: Path) -> None:
    """Checksum annotations and generated passwords are in most charts: their digests come from
    CPython's builtin hash modules (helm_core.support.hashes) and their draws from os.urandom."""
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"),
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n  sums: {{ sha256sum \"a\" }} {{ sha1sum \"a\" }}"
                             " {{ sha512sum \"a\" | trunc 8 }}\n"
                             "  drawn: {{ randAlphaNum 1 | len }} {{ randInt 0 1 }} {{ shuffle \"aa\" }}"
                             " {{ randBytes 3 | len }}\n"})
    unwanted = [*NOT_IMPORTED_BY_A_RENDER, "random"]
    runs, written = _render_twice_to_folders(chart, tmp_path, (
        f"print([m for m in {unwanted!r} if m in sys.modules], file=sys.stderr)"))
    assert written[0] == written[1]
    assert ("sums: ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb "
            "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8 1f40fc92\n  drawn: 1 0 aa 4\n") in written[0]
    assert [r.stderr.strip().splitlines()[-1] for r in runs] == ["[]", "[]"]


def test_pickling_is_the_c_module_of_this_python() -> None:
    """support/pickling names pickle's highest protocol itself (to skip pickle.py): it must be
    this Python's, and its functions the ones pickle.py re-exports."""
    import pickle

    from helm_core.support import pickling

    assert pickling.HIGHEST_PROTOCOL == pickle.HIGHEST_PROTOCOL
    assert (pickling.dumps, pickling.loads, pickling.Pickler) == (pickle.dumps, pickle.loads, pickle.Pickler)


def test_memo_pickles_find_each_name_they_use_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A memo run loads hundreds of tree pickles naming the same node classes: the second
    finds them in the process's table, not by an import."""
    import collections

    from helm_core.support import pickling

    found: dict[tuple[str, str], Any] = {}
    monkeypatch.setattr(pickling, "_FOUND", found)
    blob = pickling.dumps(collections.OrderedDict(a=1), protocol=pickling.HIGHEST_PROTOCOL)
    first = pickling.loads_naming_known(blob)
    assert type(first) is collections.OrderedDict and first == {"a": 1}
    assert found == {("collections", "OrderedDict"): collections.OrderedDict}
    found["collections", "OrderedDict"] = dict  # what the table says is what the pickle gets
    assert type(pickling.loads_naming_known(blob)) is dict
