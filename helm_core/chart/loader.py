"""Loading charts from directories, archives and in-memory file lists (Helm's ``loader``).

Every source ends in :func:`load_files`, which sorts files into the chart model the
way Helm's ``LoadFiles`` does: Chart.yaml first, then values, schema, lock,
templates, subcharts under ``charts/`` (folders or archives; names starting with
``_`` or ``.`` are skipped) and everything else as ``.Files``.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from helm_core.chart import archive, chartfile, folder, model
from helm_core.errors import ArchiveError, ChartError, ValuesError
from helm_core.golib import gostrconv, goyaml
from helm_core.support import cachekeys, memo
from helm_core.support.records import replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_UTF8_BOM = b"\xef\xbb\xbf"
SCHEMA_FILES = ("values.schema.json", "values.schema.yaml")
#: The files :func:`load_files` reads itself, not kept as they are with ``.Files``.
_SPECIAL_FILES = frozenset({"Chart.yaml", "values.yaml", *SCHEMA_FILES, "Chart.lock", "requirements.yaml",
                            "requirements.lock"})


def load(path: str | os.PathLike[str], *, limits: archive.Limits = archive.Limits()) -> model.Chart:
    """Load a chart from a directory or a ``.tgz`` file."""
    # os.path, not pathlib: pathlib imports urllib and ipaddress, start-up time of every CLI run
    if not os.path.exists(path):
        raise ChartError(f"path {gostrconv.quote(str(path))} not found")
    if os.path.isdir(path):
        return load_dir(path, limits=limits)
    with open(path, "rb") as archive_file:
        data = archive_file.read()
    _ensure_archive(str(path), data)
    return load_archive(data, source=str(path), limits=limits)


_GZIP_MAGIC = b"\x1f\x8b\x08"
#: Go's http.DetectContentType for the types a mistaken chart file plausibly is.
_SNIFFED = ((b"PK\x03\x04", "application/zip"), (b"%PDF-", "application/pdf"),
            (b"\x89PNG\r\n\x1a\n", "image/png"), (b"BZh", "application/x-bzip2"))
_BINARY_BYTES = frozenset(range(0x09)) | {0x0B} | frozenset(range(0x0E, 0x1B)) | frozenset(range(0x1C, 0x20))


def _ensure_archive(name: str, data: bytes) -> None:
    """Helm's ``ensureArchive``: a chart file must be gzip, said in helm's words. Helm sniffs a
    512-byte buffer, zero-padded, so a short file reads as binary."""
    if data.startswith(_GZIP_MAGIC):
        return
    if name.endswith((".yml", ".yaml")):
        raise ArchiveError(f"file '{name}' seems to be a YAML file, but expected a gzipped archive")
    head = data[:512].ljust(512, b"\0")
    content_type = next((kind for magic, kind in _SNIFFED if head.startswith(magic)), None)
    if content_type is None:
        binary = any(byte in _BINARY_BYTES for byte in head)
        content_type = "application/octet-stream" if binary else "text/plain; charset=utf-8"
    raise ArchiveError(f"file '{name}' does not appear to be a gzipped archive; got '{content_type}'")


def load_archive(data: bytes, *, source: str = "<archive>",
                 limits: archive.Limits = archive.Limits()) -> model.Chart:
    """Load a packaged chart from bytes (nothing is written to disk)."""
    files = archive.read_archive(data, source=source, limits=limits)
    return load_files(files, source=source, limits=limits)


def load_archive_metadata(data: bytes, *, source: str = "<archive>",
                          limits: archive.Limits = archive.Limits()) -> model.Metadata:
    """A packaged chart's Chart.yaml, read and checked as :func:`load_archive` reads it, and
    nothing else decoded (values, schemas, subcharts): how a process that runs no chart code
    (the controller; its render workers load the chart) names a chart."""
    by_name = dict(archive.read_archive(data, source=source, limits=limits))
    return _metadata(by_name, source.rstrip("/"))


def _metadata(by_name: Mapping[str, bytes], where: str) -> model.Metadata:
    if "Chart.yaml" not in by_name:
        raise ChartError("Chart.yaml file is missing")
    return chartfile.parse_chart_yaml(by_name["Chart.yaml"], source=f"{where}/Chart.yaml")


def load_dir(root: str | os.PathLike[str], *, limits: archive.Limits = archive.Limits()) -> model.Chart:
    """Load an unpacked chart, honouring ``.helmignore`` (see :mod:`helm_core.chart.folder`)."""
    return load_files(folder.read_files(root, limits=limits), source=os.fspath(root), limits=limits)


def load_files(files: Iterable[tuple[str, bytes]], *, source: str = "<chart>",
               limits: archive.Limits = archive.Limits()) -> model.Chart:
    """Build a chart (and its subcharts) from ``(path, bytes)`` pairs relative to its root."""
    # An archive may hold a name twice; Helm's maps of templates and files keep the last.
    by_name = dict(files)
    files = list(by_name.items())
    where = source.rstrip("/")
    metadata = _metadata(by_name, where)
    chart = model.Chart(metadata=metadata)
    subchart_files: dict[str, list[tuple[str, bytes]]] = {}

    # A chart has hundreds of files, nearly all templates or plain files: those are told first.
    for name, data in files:
        if name.startswith("templates/"):
            chart.templates.append(model.File(name, data))
            continue
        if name not in _SPECIAL_FILES and not name.startswith("charts/"):
            chart.files.append(model.File(name, data))
            continue
        if name == "Chart.yaml":
            continue
        if name == "values.yaml":
            chart.raw_values = data
            chart.values = goyaml.load_values(data, context="cannot load values.yaml")
        elif name in SCHEMA_FILES:
            if chart.schema is None or name == "values.schema.json":
                chart.schema_file = name
                chart.schema, problem = read_schema(name, data, where)
                chart.raw_schema = data if name == "values.schema.json" else b""
                if problem is not None:
                    chart.schema_error = problem
        elif name == "Chart.lock":
            chart.lock = chartfile.parse_lock(data, source=f"{where}/{name}")
        elif name == "requirements.yaml":
            deps = chartfile.parse_requirements(data, source=f"{where}/{name}")
            if metadata.api_version == model.API_VERSION_V1:
                metadata.dependencies = deps
                chart.files.append(model.File(name=name, data=data))
        elif name == "requirements.lock":
            if metadata.api_version == model.API_VERSION_V1:
                chart.lock = chartfile.parse_lock(data, source=f"{where}/{name}")
                chart.files.append(model.File(name=name, data=data))
        elif name not in _SPECIAL_FILES:  # under charts/
            if name.endswith(".prov"):
                chart.files.append(model.File(name, data))
                continue
            rest = name[len("charts/"):]
            sub = rest.split("/", 1)[0]
            subchart_files.setdefault(sub, []).append((rest, data))

    if metadata.dependencies:
        chartfile.validate_metadata(metadata, source=f"{where}/Chart.yaml")

    # Archives in charts/ unpack within what is left of the chart's own budget.
    unpacked = limits.unpacked_before + sum(len(data) for _, data in files)
    for sub in sorted(subchart_files):
        if sub[:1] in ("_", "."):
            continue
        entries = subchart_files[sub]
        sub_source = f"{where}/charts/{sub}"
        try:
            if sub.endswith(".tgz"):
                if len(entries) != 1 or entries[0][0] != sub:
                    raise ArchiveError(f"{sub_source}: expected a single archive file")
                subchart = load_archive(entries[0][1], source=sub_source,
                                        limits=replace(limits, unpacked_before=unpacked))
                unpacked += _unpacked_bytes(subchart)
            else:
                inner = [(n.split("/", 1)[1], d) for n, d in entries if "/" in n]
                if not inner:
                    continue
                subchart = load_files(inner, source=sub_source, limits=limits)
        except (ChartError, ValuesError) as exc:
            raise type(exc)(f"error unpacking subchart {sub} in {metadata.name}: {exc}") from None
        chart.add_dependency(subchart)
    return chart


def _unpacked_bytes(chart: model.Chart) -> int:
    """The bytes of a chart's files and its subcharts' (what its archives unpacked)."""
    own = sum(len(f.data) for f in (*chart.templates, *chart.files)) + len(chart.raw_values) + len(chart.raw_schema)
    return own + sum(_unpacked_bytes(sub) for sub in chart.dependencies)


#: Schemas read in this process, by file name and content: a warm load would otherwise
#: parse each values.schema.json twice (its syntax in Go's words, then the document).
_RECENT_SCHEMAS = memo.RecentPickles(max_bytes=16 * 1024 * 1024)


def read_schema(name: str, data: bytes, where: str) -> tuple[dict[str, Any] | None, str | None]:
    """(the schema, None), or (None, Go's message) for a values.schema.json that is not JSON.
    Raises ValuesError for a document that is not a schema (not kept: raised each time)."""
    def read() -> tuple[dict[str, Any] | None, str | None]:
        if name == "values.schema.json":
            if problem := _json_schema_problem(data):
                return None, problem
            if not data.lstrip(b" \t\r\n").startswith(b"{"):
                return _not_an_object(data)
        return _load_schema(data, f"{where}/{name}"), None

    return _RECENT_SCHEMAS.get_or_compute(f"{name}\0{cachekeys.content_key(data)}", read)


def _yaml_document(text: str) -> Any:
    import yaml  # a YAML schema is rare: PyYAML (costly to import, bench/deferred.py) is loaded for it only

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from None


def _json_schema_problem(data: bytes) -> str | None:
    """Go's message for a values.schema.json that is not JSON, else None: helm's validator reads it
    with a json.Decoder (no value at all: "EOF"; a truncated one: "unexpected EOF") and words
    anything after the first value itself."""
    from helm_core.golib import gojson

    if not data.strip(b" \t\r\n"):
        return "EOF"
    problem = gojson.syntax_error(data)
    if problem is not None and problem.endswith(" after top-level value"):
        return "invalid character after top-level value"
    return "unexpected EOF" if problem == "unexpected end of JSON input" else problem


def _not_an_object(data: bytes) -> tuple[None, str | None]:
    """A values.schema.json that is JSON but not an object, as helm's validator takes it: ``true``
    lets every value pass (no schema), ``false`` fails every one, anything else is refused by the
    metaschema (its explanation, as for any invalid schema)."""
    import json

    from helm_core.chart import schema

    document = json.loads(data)
    if document is True:
        return None, None
    if document is False:
        return None, "- at '': false schema"  # a values report's line, helm's words
    return None, "\n".join(schema.invalid_schema(document, "a schema must be a boolean or an object"))


def _load_schema(data: bytes, source: str) -> dict[str, Any]:
    import json  # only charts with a schema need it

    try:
        text = data.decode("utf-8")
        schema = json.loads(text) if source.endswith(".json") else _yaml_document(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValuesError(f"{source}: invalid schema: {exc}") from None
    except RecursionError:  # a caller on a small stack (the CLI's holds Go's 10000 levels)
        raise ValuesError(f"{source}: invalid schema: nested deeper than this thread's stack allows") from None
    if not isinstance(schema, dict):
        raise ValuesError(f"{source}: a schema must be an object")
    return schema
