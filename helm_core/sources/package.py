"""``helm-core package DIR``: a deterministic chart archive.

Rules:
- Files are the ones the loader sees (``.helmignore`` honoured), under ``<name>/`` as Helm
  writes them, in sorted order, mode 0644, owner 0, no user/group names.
- Every timestamp (tar entries and the gzip header) is ``mtime`` (default 0): the same
  directory always packages to the same bytes, so the digest is stable across machines.
- The archive is loaded back through the safe loader before it is returned.
- ``chart_metadata`` gives Chart.yaml as Helm marshals ``chart.Metadata`` to JSON (its field
  order, empty fields left out): the OCI config blob and the repository index use it.
- ``--version``/``--app-version`` (``package(..., version=, app_version=)``) set Chart.yaml's
  version and appVersion in the archive, as helm's ``package`` does: the version must parse as
  Masterminds' lenient semver (its error words, e.g. ``invalid semantic version``), and the
  archive's Chart.yaml is then written as helm writes every Chart.yaml it packages (its metadata
  marshalled: keys sorted, empty fields left out, text fields sanitized, a v1 chart's
  dependencies left to requirements.yaml). Without them Chart.yaml is copied verbatim.
- ``expand`` is the way back (helm's ``chartutil.Expand``, ``pull --untar``): the archive's
  files, read safely, written under ``<folder>/<chart name>``.
"""
from __future__ import annotations

import gzip
import io
import os
import tarfile
from pathlib import Path
from typing import Any

import yaml

from helm_core.chart import archive, chartfile, folder, loader, model
from helm_core.errors import ChartError
from helm_core.golib import goyaml, versions

FILE_MODE = 0o644
DIR_MODE = 0o755
_METADATA_FIELDS = ("name", "home", "sources", "version", "description", "keywords", "maintainers",
                    "icon", "apiVersion", "condition", "tags", "appVersion", "deprecated",
                    "annotations", "kubeVersion", "dependencies", "type")
_DEPENDENCY_FIELDS = ("name", "version", "repository", "condition", "tags", "enabled",
                      "import-values", "alias")


def chart_files(root: Path) -> list[tuple[str, bytes]]:
    """The files of a chart directory as the loader reads them (``.helmignore`` applied)."""
    return folder.read_files(root)


def archive_bytes(name: str, files: list[tuple[str, bytes]], *, mtime: int = 0) -> bytes:
    """A gzip tarball of ``files`` under ``name/`` with fixed metadata."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel, data in sorted(files):
            info = tarfile.TarInfo(f"{name}/{rel}")
            info.size = len(data)
            info.mode = FILE_MODE
            info.mtime = mtime
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=mtime) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def package(root: str | os.PathLike[str], *, mtime: int = 0, version: str = "",
            app_version: str = "") -> tuple[str, bytes]:
    """Package a chart directory; return (``<name>-<version>.tgz``, archive bytes).
    ``version``/``app_version``, when given, replace Chart.yaml's (module rules)."""
    path = Path(root)
    chart = loader.load_dir(path)
    files = chart_files(path)
    if version:
        versions.Version.parse(version)  # helm's validateVersion: Masterminds' words on failure
    if version or app_version:
        files = [(name, _with_versions(body, chart.metadata.api_version, version, app_version)
                  if name == "Chart.yaml" else body) for name, body in files]
    data = archive_bytes(chart.metadata.name, files, mtime=mtime)
    packaged = loader.load_archive(data, source=str(path)).metadata
    return f"{packaged.name}-{packaged.version}.tgz", data


_SANITIZED_FIELDS = ("name", "description", "home", "icon", "condition", "tags", "appVersion", "kubeVersion")


def _with_versions(chart_yaml: bytes, api_version: str, version: str, app_version: str) -> bytes:
    """Chart.yaml with ``version``/``app_version`` set where non-empty, written as helm's
    ``chartutil.Save`` writes it (module rules; the ``helm.sh/v3`` form keeps its layout and
    takes them in ``metadata.labels``)."""
    overrides = {key: value for key, value in (("version", version), ("appVersion", app_version)) if value}
    if api_version == model.API_VERSION_HELM_V3:
        doc = goyaml.load(chart_yaml, source="Chart.yaml")
        doc.setdefault("metadata", {}).setdefault("labels", {}).update(overrides)
        return goyaml.dump(doc).encode()
    fields = chart_metadata({**chartfile.metadata_fields(chart_yaml), **overrides})
    for key in _SANITIZED_FIELDS:
        if key in fields:
            fields[key] = chartfile.sanitize(fields[key])
    for key in ("sources", "keywords"):
        if key in fields:
            fields[key] = [chartfile.sanitize(str(item)) for item in fields[key]]
    for maintainer in fields.get("maintainers", []):
        maintainer.update({key: chartfile.sanitize(value) for key, value in maintainer.items()})
    if fields["apiVersion"] == model.API_VERSION_V1:
        fields.pop("dependencies", None)
    return goyaml.dump(fields).encode()


def expand(data: bytes, folder_path: str, *, source: str) -> str:
    """Write the chart archive ``data`` out under ``folder_path/<its chart name>`` (helm's
    ``Expand``: files verbatim, mode 0644, folders made as needed); returns that folder. The
    archive's paths were checked by the safe reader; the name is refused where it would not be
    one folder inside ``folder_path``."""
    files = archive.read_archive(data, source=source)
    name = str(next((_chart_name(body, source) for path, body in files if path == "Chart.yaml"), "") or "")
    if not name:
        raise ChartError("chart name not specified")
    if name in (".", ".."):
        raise ChartError(f'chart name "{name}" is not allowed')
    if "/" in name:
        raise ChartError(f'chart name "{name}" must not contain path separators')
    chart_dir = os.path.join(os.path.normpath(folder_path), name)
    for path, body in files:
        target = os.path.join(chart_dir, path)
        os.makedirs(os.path.dirname(target), mode=DIR_MODE, exist_ok=True)
        with open(target, "wb") as out:
            out.write(body)
        os.chmod(target, FILE_MODE)
    return chart_dir


def _chart_name(chart_yaml: bytes, source: str) -> Any:
    doc = yaml.safe_load(chart_yaml)
    if not isinstance(doc, dict):
        raise ChartError(f"{source}: cannot load Chart.yaml: not a mapping")
    return doc.get("name")


def raw_chart_yaml(data: bytes, *, source: str) -> dict[str, Any]:
    """Chart.yaml of a packaged chart as a plain mapping (the archive is read safely)."""
    for name, content in archive.read_archive(data, source=source):
        if name == "Chart.yaml":
            doc = yaml.safe_load(content)
            if not isinstance(doc, dict):
                raise ChartError(f"{source}: Chart.yaml is not a mapping")
            return doc
    raise ChartError(f"{source}: Chart.yaml file is missing")


def _dependency(dep: dict[str, Any]) -> dict[str, Any]:
    """One dependency as ``chart.Dependency`` marshals: name and repository always present."""
    out = {key: dep[key] for key in _DEPENDENCY_FIELDS if dep.get(key) not in (None, "", [], {}, False)}
    out.setdefault("name", "")
    out.setdefault("repository", "")
    return {key: out[key] for key in _DEPENDENCY_FIELDS if key in out}


def chart_metadata(doc: dict[str, Any]) -> dict[str, Any]:
    """Chart.yaml fields in ``chart.Metadata`` JSON order, empty ones omitted, numbers in string
    fields (``version: 1.0``) written as strings as Go's typed struct reads them."""
    out: dict[str, Any] = {}
    for key in _METADATA_FIELDS:
        value = doc.get(key)
        if key == "dependencies" and value:
            value = [_dependency(d) for d in value if isinstance(d, dict)]
        elif key == "maintainers" and value:
            value = [{k: m[k] for k in ("name", "email", "url") if m.get(k)} for m in value if isinstance(m, dict)]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if value not in (None, "", [], {}, False):
            out[key] = value
    out.setdefault("apiVersion", "v1")
    return out
