"""The ``template`` action: render a chart locally, as ``helm template`` does.

Steps (the lifecycle of the seeds, client-side only): load → chart-loaded →
values → pre-render → render → post-render → split and sort → post-template.
Nothing touches a cluster; ``lookup`` returns empty maps.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from helm_core import manifests as mf
from helm_core.chart import ignore, model, prepare
from helm_core.engine import capabilities as caps_mod, render as render_mod
from helm_core.errors import HelmError

NOTES_SUFFIX = "NOTES.txt"
DEFAULT_RELEASE_NAME = "release-name"


@dataclass(frozen=True)
class TemplateOptions:
    """What ``helm-core template`` can be asked."""

    release_name: str = DEFAULT_RELEASE_NAME
    namespace: str = "default"
    #: ``--kube-version``: the Kubernetes version templates see (``.Capabilities.KubeVersion``).
    kube_version: str | None = None
    #: ``--api-versions``: extra API versions for ``.Capabilities.APIVersions``.
    api_versions: tuple[str, ...] = ()
    include_crds: bool = False
    skip_tests: bool = False
    no_hooks: bool = False
    #: ``--show-only``: template paths (``templates/x.yaml``, globs allowed) to print.
    show_only: tuple[str, ...] = ()
    #: ``--strict`` / lint: a missing value is an error instead of ``<no value>``.
    strict: bool = False
    is_upgrade: bool = False


@dataclass
class TemplateResult:
    chart: model.Chart
    values: dict[str, Any]
    manifests: list[mf.Manifest]
    hooks: list[mf.Hook]
    crds: list[tuple[str, model.File]] = field(default_factory=list)
    notes: str = ""
    info: list[str] = field(default_factory=list)


def run(chart: model.Chart, user_values: dict[str, Any], options: TemplateOptions = TemplateOptions()) -> TemplateResult:
    """Render ``chart`` with ``user_values`` into sorted manifests and hooks."""
    prepared = prepare.prepare_chart(chart, user_values)
    capabilities = caps_mod.make_capabilities(
        kube_version=options.kube_version or caps_mod.DEFAULT_KUBE_VERSION,
        extra_api_versions=options.api_versions,
    )
    release = caps_mod.ReleaseInfo(
        name=options.release_name,
        namespace=options.namespace,
        revision=1,
        is_install=not options.is_upgrade,
        is_upgrade=options.is_upgrade,
    )
    files = render_mod.render(
        prepared.chart,
        prepared.values,
        options=render_mod.RenderOptions(release=release, capabilities=capabilities, strict=options.strict),
    )
    notes = _take_notes(files, prepared.chart.name)
    documents = mf.parse_documents(files)
    ordered = mf.sort_manifests(documents)
    return TemplateResult(
        chart=prepared.chart,
        values=prepared.values,
        manifests=ordered.manifests,
        hooks=ordered.hooks,
        crds=model.all_crd_files(prepared.chart),
        notes=notes,
        info=ordered.skipped,
    )


def _take_notes(files: dict[str, str], top: str) -> str:
    """Remove every NOTES.txt from ``files``; return the top chart's (subcharts' are not shown)."""
    notes = ""
    for name in [n for n in files if n.endswith(NOTES_SUFFIX)]:
        text = files.pop(name)
        if name == f"{top}/templates/{NOTES_SUFFIX}":
            notes = text
    return notes


def _is_test_hook(hook: mf.Hook) -> bool:
    return "test" in hook.events


def output_text(result: TemplateResult, options: TemplateOptions) -> str:
    """The text ``helm template`` prints: CRDs (if asked), resources, then hooks."""
    parts: list[tuple[str, str]] = []
    if options.include_crds:
        for chart_path, crd in result.crds:
            parts.append((f"{chart_path}/{crd.name}", crd.data.decode("utf-8", "replace")))
    parts.extend((m.source, m.content) for m in result.manifests)
    if not options.no_hooks:
        parts.extend(
            (h.manifest.source, h.manifest.content)
            for h in result.hooks
            if not (options.skip_tests and _is_test_hook(h))
        )
    if options.show_only:
        parts = _filter_show_only(parts, result.chart.name, options.show_only)
    return "".join(f"---\n# Source: {source}\n{content}\n" for source, content in parts)


def _filter_show_only(parts: list[tuple[str, str]], chart_name: str,
                      wanted: tuple[str, ...]) -> list[tuple[str, str]]:
    kept: list[tuple[str, str]] = []
    for pattern in wanted:
        pattern = pattern.replace("\\", "/")
        found = False
        for source, content in parts:
            relative = source[len(chart_name) + 1:] if source.startswith(chart_name + "/") else source
            if ignore.go_match(pattern, relative) or ignore.go_match(pattern, source):
                kept.append((source, content))
                found = True
        if not found:
            raise HelmError(f"could not find template {pattern} in chart")
    return kept
