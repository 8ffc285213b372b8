"""Our render against the real `helm template`, object by object, on the shared real charts.

For every chart in ../shared/charts (and our fixture charts in tests/conformance/charts),
render with its default values, with values/<chart>.yaml and with every
values/<chart>.<variant>.yaml (helm flags for a variant in values/<chart>.<variant>.args:
``--kube-version``, ``--api-versions``, ``--namespace``, one per line). Helm runs live (nothing
of its output is committed); both outputs are parsed into objects keyed by
Source + kind/namespace/name and compared. When helm fails, we must fail with its message.

Random output (randAlphaNum passwords, genCA/genPrivateKey PEM, their checksums) cannot be
equal run to run. Helm is run twice: only leaves that differ between the two helm runs are
random, and there ours is accepted when it has the same shape (same length alphanumerics,
PEM blocks, base64 of those); the case is then reported as "random-equivalent", not "exact".
"""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import pytest
import yaml

from helm_core.golib import goyaml

from helm_core.engine import manifests

from helm_core.support import memo
from helm_core.chart import loader, prepare
from helm_core.engine import capabilities, render
from helm_core.errors import HelmError
from tests.chartkit import SHARED_CHARTS
from tests.conformance import objects, results
from tests.engine import helmbin

CHARTS_DIR = SHARED_CHARTS
#: Our own fixture charts (always present): they exercise rules the real charts rarely reach.
LOCAL_CHARTS_DIR = Path(__file__).parent / "charts"
VALUES_DIR = Path(__file__).parent / "values"
#: Lines of diff shown per differing object.
MAX_DIFF_LINES = 60
#: Differing objects shown per failure.
MAX_OBJECTS_SHOWN = 5



def _chart_dirs() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in (CHARTS_DIR, LOCAL_CHARTS_DIR):
        if root.is_dir():
            found.update({d.name: d for d in root.iterdir() if (d / "Chart.yaml").is_file()})
    return found


CHART_DIRS = _chart_dirs()


def _cases() -> list[tuple[str, str]]:
    cases = []
    for name in sorted(CHART_DIRS):
        cases += [(name, "default"), (name, "custom")]
        variants = sorted(p.name[len(name) + 1:-len(".yaml")] for p in VALUES_DIR.glob(f"{name}.*.yaml"))
        cases += [(name, v) for v in variants if "." not in v]
    return cases


def _helm_flags(chart_name: str, which: str) -> tuple[list[str], render.RenderOptions]:
    """Extra helm flags of a variant and the same settings as our render options."""
    path = VALUES_DIR / f"{chart_name}.{which}.args"
    if not path.is_file():
        return [], render.RenderOptions()
    flags = [line.split(None, 1) for line in path.read_text().splitlines() if line.strip()]
    kube_version, api_versions, namespace = capabilities.DEFAULT_KUBE_VERSION, [], "default"
    for flag, value in flags:
        if flag == "--kube-version":
            kube_version = value
        elif flag == "--api-versions":
            api_versions.append(value)
        elif flag == "--namespace":
            namespace = value
        else:
            raise AssertionError(f"{path}: unsupported flag {flag}")
    options = render.RenderOptions(
        release=capabilities.ReleaseInfo(namespace=namespace),
        capabilities=capabilities.make_capabilities(kube_version=kube_version, extra_api_versions=api_versions),
    )
    return [part for pair in flags for part in pair], options


def _values_file(chart_name: str, which: str) -> Path:
    suffix = "" if which == "custom" else f".{which}"
    return VALUES_DIR / f"{chart_name}{suffix}.yaml"


CASES = _cases()


def _our_documents(rendered: dict[str, str], top_chart: str) -> dict[tuple, Any]:
    found: dict[tuple, Any] = {}
    for path in sorted(rendered):
        content = rendered[path]
        if path.endswith("NOTES.txt") or path.rsplit("/", 1)[-1].startswith("_") or not content.strip():
            continue
        for doc in manifests.split_documents(content):
            objects.add(found, path, goyaml.decode(doc))
    return found


def _compare(ours: Any, theirs: Any, again: Any, tolerated: list[int]) -> bool:
    """Equal, or differing only where helm's own second run differs (``again``)."""
    return objects.first_difference(ours, theirs, again, tolerated=tolerated) is None


def _dump(obj: Any) -> list[str]:
    return yaml.safe_dump(obj, sort_keys=True, default_flow_style=False, width=120).splitlines()


def _report(ours: dict[tuple, Any], theirs: dict[tuple, Any], again: dict[tuple, Any]) -> tuple[str, list[str]]:
    problems: list[str] = []
    tolerated: list[int] = []
    for key in sorted(set(theirs) - set(ours), key=str):
        problems.append(f"missing from ours: {key}")
    for key in sorted(set(ours) - set(theirs), key=str):
        problems.append(f"extra in ours: {key}")
    for key in sorted(set(ours) & set(theirs), key=str):
        if not _compare(ours[key], theirs[key], again.get(key), tolerated):
            diff = list(difflib.unified_diff(_dump(theirs[key]), _dump(ours[key]), "helm", "ours", lineterm=""))
            problems.append(f"differs: {key}\n" + "\n".join(diff[:MAX_DIFF_LINES]))
    outcome = "mismatch" if problems else ("random-equivalent" if tolerated else "exact")
    return outcome, problems


def test_shared_charts_are_present():
    if not CHARTS_DIR.is_dir():
        pytest.skip(f"{CHARTS_DIR} not present: conformance runs on local fixture charts only")
    assert any((d / "Chart.yaml").is_file() for d in CHARTS_DIR.iterdir())


@pytest.mark.conformance
@pytest.mark.parametrize(("chart_name", "which"), CASES, ids=[f"{c}-{w}" for c, w in CASES])
def test_render_matches_helm_template(chart_name, which, tmp_path, monkeypatch):
    helmbin.require_helm()
    chart_dir = CHART_DIRS[chart_name]
    args: list[str] = []
    user_values: dict[str, Any] = {}
    if which != "default":
        values_file = _values_file(chart_name, which)
        assert values_file.is_file(), f"write {values_file} to exercise non-default values"
        args = ["-f", str(values_file)]
        user_values = goyaml.load_values(values_file.read_bytes(), context=f"failed to parse {values_file}")
    flags, options = _helm_flags(chart_name, which)
    args += flags
    code, out, err = helmbin.helm_template_result(chart_dir, *args)
    results.OUTCOMES[(chart_name, which)] = "error"
    if code != 0:
        expected = err.split("\n", 1)[0].removeprefix("Error: ")
        with pytest.raises(HelmError) as info:
            prepared = prepare.prepare_chart(loader.load(chart_dir), user_values)
            render.render(prepared.chart, prepared.values, options=options)
        assert str(info.value) == expected
        results.OUTCOMES[(chart_name, which)] = "exact (error)"
        return
    theirs = objects.template_documents(out)
    again = objects.template_documents(helmbin.helm_template(chart_dir, *args))
    prepared = prepare.prepare_chart(loader.load(chart_dir), user_values)
    ours = _our_documents(render.render(prepared.chart, prepared.values, options=options), prepared.chart.name)
    outcome, problems = _report(ours, theirs, again)
    results.OUTCOMES[(chart_name, which)] = outcome
    shown = "\n\n".join(problems[:MAX_OBJECTS_SHOWN])
    assert not problems, f"{len(problems)} object(s) differ from helm template:\n{shown}"
    # As `helm-core template` runs after a run with the chart's defaults left its disk memo
    # (trees, branch bodies, YAML documents), then once more.
    for run in _renders_through_memo(chart_dir, user_values, options, tmp_path, monkeypatch):
        _, problems = _report(_our_documents(run, prepared.chart.name), theirs, again)
        shown = "\n\n".join(problems[:MAX_OBJECTS_SHOWN])
        assert not problems, f"with the disk memo, {len(problems)} object(s) differ from helm template:\n{shown}"


def _renders_through_memo(chart_dir: Path, user_values: dict[str, Any], options: render.RenderOptions,
                          root: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, str]]:
    """Three renders, each as a new process would do it, sharing one disk memo: the chart's
    defaults, then ``user_values`` twice; the last two are returned."""
    monkeypatch.setattr(memo, "_ACTIVE", memo.DiskMemo(root / "memo"))
    rendered = []
    for values in ({}, user_values, user_values):
        monkeypatch.setattr(render, "_CACHE", type(render._CACHE)())
        prepared = prepare.prepare_chart(loader.load(chart_dir), values)
        rendered.append(render.render(prepared.chart, prepared.values, options=options))
    return rendered[1:]
