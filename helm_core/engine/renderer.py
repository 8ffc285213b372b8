"""The seam where a release action hands chart code to something that runs it.

Three steps of an install or upgrade run what a chart brings: loading its archive (YAML,
gzip), preparing its values (coalescing, ``values.schema.json`` with its patterns) and
rendering its templates. An action asks a :class:`Renderer` for them, so the caller decides
where they run:

- :data:`LOCAL` runs them in this process (the CLI, tests);
- :class:`helm_core.isolation.IsolatedRenderer` runs them in a worker process under a
  :class:`~helm_core.support.limits.RenderLimits` budget (the controller: no chart can hang or crash
  the process that serves every namespace).

Everything in between (chart Lua, the cluster, storage) stays with the action.
"""
from __future__ import annotations

from collections.abc import Mapping

from helm_core.chart import model, prepare
from helm_core.engine import manifests as mf
from helm_core.engine import render as render_mod
from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from helm_core.chart.values_files import ValuesFiles

NOTES_SUFFIX = "NOTES.txt"


@record(frozen=True)
class RenderedDocuments:
    """What the templates of a chart produced: documents (sorted by path) and the top
    chart's NOTES.txt (subcharts' notes are not shown, as in Helm)."""

    documents: list[mf.Manifest]
    notes: str = ""


if TYPE_CHECKING:  # a protocol for type checkers: nothing asks for it at run time
    class Renderer(Protocol):
        """Runs the chart-supplied steps of an action."""

        def load_archive(self, data: bytes, *, source: str,
                         values_files: ValuesFiles | None = None) -> model.Chart:
            """A packaged chart (``.tgz`` bytes) loaded into the chart model, with the merge of
            ``values_files`` it carries as its default values (Flux's ``valuesFiles``)."""

        def prepare(self, chart: model.Chart, user_values: Mapping[str, Any], *,
                    validate_schema: bool = True) -> prepare.Prepared:
            """Dependencies resolved, values coalesced and checked against every schema (unless
            ``validate_schema`` is false: helm's ``--skip-schema-validation``)."""

        def render(self, chart: model.Chart, values: Mapping[str, Any],
                   options: render_mod.RenderOptions) -> RenderedDocuments:
            """The chart's templates rendered with the final ``values``."""


def render_documents(chart: model.Chart, values: Mapping[str, Any],
                     options: render_mod.RenderOptions) -> RenderedDocuments:
    """Templates → documents, NOTES.txt kept apart (the work every renderer does)."""
    return documents_of(chart, render_mod.render(chart, dict(values), options=options), options)


def documents_of(chart: model.Chart, files: dict[str, str], options: render_mod.RenderOptions) -> RenderedDocuments:
    """Rendered ``files`` (``<chart>/templates/x.yaml`` → text; the NOTES.txt are taken out of
    it) as documents."""
    notes = take_notes(files, chart.name, subcharts=options.subchart_notes)
    ledger = options.ledger
    if ledger is None:
        return RenderedDocuments(mf.parse_documents(files), notes)
    documents = mf.parse_documents(files, known=ledger.known_documents)
    for name, text in files.items():
        ledger.documents[name] = (text, [])
    for document in documents:
        ledger.documents[document.source][1].append(document)
    return RenderedDocuments(documents, notes)


def take_notes(files: dict[str, str], top: str, *, subcharts: bool = False) -> str:
    """Remove every NOTES.txt from ``files``; return the top chart's, or with ``subcharts``
    every chart's joined by a newline (helm joins them in its map's random order; here the
    chart's own first, then the subcharts' in path order)."""
    own = f"{top}/templates/{NOTES_SUFFIX}"
    notes = ""
    for name in sorted((n for n in files if n.endswith(NOTES_SUFFIX)), key=lambda n: (n != own, n)):
        text = files.pop(name)
        if subcharts or name == own:
            notes += ("\n" if notes else "") + text  # helm's separator follows a non-empty text only
    return notes


class LocalRenderer:
    """Every step in this process, on the caller's thread."""

    def load_archive(self, data: bytes, *, source: str,
                     values_files: ValuesFiles | None = None) -> model.Chart:
        from helm_core.chart import loader  # a render from the CLI's memo loads no chart
        from helm_core.chart.values_files import with_values_files

        return with_values_files(loader.load_archive(data, source=source), values_files)

    def prepare(self, chart: model.Chart, user_values: Mapping[str, Any], *,
                validate_schema: bool = True) -> prepare.Prepared:
        return prepare.prepare_chart(chart, dict(user_values), validate_schema=validate_schema)

    def render(self, chart: model.Chart, values: Mapping[str, Any],
               options: render_mod.RenderOptions) -> RenderedDocuments:
        return render_documents(chart, values, options)


LOCAL: Renderer = LocalRenderer()


class FilesKept(LocalRenderer):
    """In this process, keeping the rendered files whole and the chart they came from (what
    a pre-render handler made of it): lint reads each file's text, not its documents."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.chart: model.Chart | None = None

    def render(self, chart: model.Chart, values: Mapping[str, Any],
               options: render_mod.RenderOptions) -> RenderedDocuments:
        files = render_mod.render(chart, dict(values), options=options)
        self.files, self.chart = dict(files), chart
        return documents_of(chart, files, options)
