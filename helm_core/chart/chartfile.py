"""Chart.yaml, requirements.yaml and lock files: parsing and validation.

Three spellings of the same metadata map to one :class:`~helm_core.chart.model.Metadata`:

* ``apiVersion: v2`` (Helm 3 as shipped) and ``v1`` (Helm 2; dependencies in
  ``requirements.yaml``; a missing apiVersion means v1, as Helm reads it); any other
  apiVersion loads as Helm loads it (only ``helm lint`` refuses it);
* the proposal's ``apiVersion: helm.sh/v3, kind: Chart`` form, where name lives in
  ``metadata.name``, version and appVersion in ``metadata.labels`` and the rest in ``data``.

Fields are read as Helm reads them (:mod:`helm_core.chart.gostruct`): ``appVersion: 1.0``
unquoted is the number 1 and reads ``"1"``, ``version: 1.10`` reads ``"1.1"``; texts are
sanitised as Helm's ``Validate`` does (whitespace becomes a space, unprintable characters
go). Errors are Helm's own lines (``cannot load Chart.yaml: ...``, ``validation: ...``).
"""
from __future__ import annotations

import functools
import posixpath

from helm_core.chart import gostruct, model
from helm_core.errors import ChartFileError
from helm_core.golib import gostrconv, gounicode, goyaml, goyaml_rules
from helm_core.gotemplate import gofmt
from helm_core.support import cachekeys, memo, patterns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ALIAS_RE = patterns.on_first_use(r"^[a-zA-Z0-9_-]+$")
_KNOWN_TYPES = ("", model.TYPE_APPLICATION, model.TYPE_LIBRARY)
#: Chart.yaml (and requirements/lock) documents in the disk memo, as read before typing.
TEXT_YAML_MEMO = "chartfile-yaml"


def _is_plain_release(version: str) -> bool:
    """``MAJOR.MINOR.PATCH`` in ASCII digits without leading zeros, after an optional ``v``
    (``v1.16.1``, as many charts write it): a version Masterminds' ``NewVersion`` accepts,
    told with string methods before parsing it."""
    parts = version.removeprefix("v").split(".")
    return len(parts) == 3 and all(p.isascii() and p.isdigit() and (p == "0" or p[0] != "0") for p in parts)


def is_valid_version(version: str) -> bool:
    """True for versions Helm accepts in Chart.yaml: Masterminds' lenient ``NewVersion`` (so
    ``01.2.3`` and ``v1.2`` pass, ``1.2.3-01`` does not)."""
    if _is_plain_release(version):
        return True
    from helm_core.golib import versions
    try:
        versions.Version.parse(version)
    except ValueError:
        return False
    return True


#: Chart.yaml (and lock) documents and metadata read in this process, by content digest (the
#: source names the file only in errors, and errors are not kept).
_RECENT = memo.RecentPickles(max_bytes=4 * 1024 * 1024)


def _read_yaml(data: bytes, source: str) -> Any:
    disk = memo.active()
    if disk is None:  # in this process: a chart loaded again has the same Chart.yaml
        key = "yaml\0" + cachekeys.hasher(data).hexdigest()
        return _RECENT.get_or_compute(key, lambda: _parse_yaml_text(data, source))
    key = cachekeys.hasher(_code_digest().encode() + b"\0" + data).hexdigest()
    return disk.pickled(TEXT_YAML_MEMO, key, lambda: _parse_yaml_text(data, source))


@functools.cache
def _code_digest() -> str:
    return memo.code_digest(__file__) + goyaml.code_digest()


def _parse_yaml_text(data: bytes, source: str) -> Any:
    try:
        # A leading BOM dropped as the utf-8-sig codec does, without importing that codec.
        return goyaml.decode_uncached(data.removeprefix(b"\xef\xbb\xbf").decode("utf-8"), json_step=False)
    except UnicodeDecodeError:
        raise ChartFileError(f"{_load_prefix(source)}error converting YAML to JSON: yaml: "
                             f"{goyaml_rules.utf8_problem(data)}") from None
    except ValueError as exc:
        raise ChartFileError(f"{_load_prefix(source)}{exc}") from None


def _load_prefix(source: str) -> str:
    """Helm's wrapping of a file's load error: ``cannot load Chart.yaml: ``."""
    return f"cannot load {posixpath.basename(source)}: "


def _decode(doc: Any, source: str, target: gostruct.GoStruct) -> dict[str, Any]:
    """The file's fields (``doc``, as read) as Helm's Go struct holds them, or Helm's error line."""
    try:
        return gostruct.unmarshal(doc, target)
    except (gostruct.MarshalError, gostruct.UnmarshalError) as exc:
        raise ChartFileError(f"{_load_prefix(source)}{gostruct.error_text(exc)}") from None


def sanitize(text: str) -> str:
    """Helm's ``sanitizeString``: every space character becomes ``" "``, unprintable ones go."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(" " if gounicode.is_space(ch) else ch for ch in text
                   if ch.isprintable() or gounicode.is_space(ch))


def _text(fields: dict[str, Any], name: str) -> str:
    return sanitize(fields.get(name, ""))


def _texts(fields: dict[str, Any], name: str) -> list[str]:
    return [sanitize(item) for item in fields.get(name, [])]


def parse_dependencies(fields: dict[str, Any]) -> list[model.Dependency]:
    deps = []
    for dep in fields.get("dependencies", []):
        if dep is None:
            raise ChartFileError("validation: dependencies must not contain empty or null nodes")
        name = _text(dep, "name")
        alias = dep.get("alias", "")
        if alias and not _ALIAS_RE().match(alias):
            raise ChartFileError(
                f"validation: dependency {gostrconv.quote(name)} has disallowed characters in the alias")
        deps.append(
            model.Dependency(
                name=name,
                version=_text(dep, "version"),
                repository=_text(dep, "repository"),
                condition=_text(dep, "condition"),
                tags=_texts(dep, "tags"),
                enabled=True,
                import_values=_parse_import_values(dep.get("import-values", [])),
                alias=alias,
            )
        )
    return deps


def _parse_import_values(raw: list[Any]) -> list[model.ImportValue]:
    """Helm's reading of ``import-values``: a string is ``exports.<it>`` into the parent's top;
    a map's ``child`` and ``parent`` are printed with ``%v`` (a missing one reads ``<nil>`` and
    imports nothing); entries of any other type are skipped."""
    out = []
    for item in raw:
        if isinstance(item, str):
            out.append(model.ImportValue(child=f"exports.{item}", parent=".", raw=item))
        elif isinstance(item, dict):
            out.append(model.ImportValue(child=gofmt.format_value(item.get("child")),
                                         parent=gofmt.format_value(item.get("parent")), raw=dict(item)))
    return out


def _parse_maintainers(fields: dict[str, Any]) -> list[model.Maintainer]:
    out = []
    for m in fields.get("maintainers", []):
        if m is None:
            raise ChartFileError("validation: maintainers must not contain empty or null nodes")
        out.append(model.Maintainer(name=_text(m, "name"), email=_text(m, "email"), url=_text(m, "url")))
    return out


def metadata_fields(data: bytes, *, source: str = "Chart.yaml") -> dict[str, Any]:
    """Chart.yaml decoded into ``chart.Metadata``'s fields by their JSON names, as Go holds
    them (``helm show chart`` marshals these back)."""
    return _decode(_read_yaml(data, source), source, gostruct.METADATA)


def parse_chart_yaml(data: bytes, *, source: str = "Chart.yaml") -> model.Metadata:
    """Parse and validate Chart.yaml content in any of the three forms.

    Kept in this process by the content's digest (each caller gets its own copy): a warm load
    of a chart and its subcharts would otherwise type every Chart.yaml into Go's struct again.
    """
    key = "metadata\0" + cachekeys.hasher(data).hexdigest()
    return _RECENT.get_or_compute(key, lambda: _parse_chart_yaml(data, source))


def _parse_chart_yaml(data: bytes, source: str) -> model.Metadata:
    doc = _read_yaml(data, source)
    if isinstance(doc, dict) and doc.get("apiVersion") == model.API_VERSION_HELM_V3:
        metadata = _parse_helm_v3(doc, source)
    else:
        fields = _decode(doc, source, gostruct.METADATA)
        metadata = _metadata_from(fields, api_version=fields.get("apiVersion") or model.API_VERSION_V1,
                                  name=_text(fields, "name"), version=fields.get("version", ""),
                                  app_version=_text(fields, "appVersion"))
    validate_metadata(metadata, source=source)
    return metadata


_HELM_V3_CHART = gostruct.GoStruct("helm.sh/v3.Chart", {
    "kind": gostruct.STRING,
    "metadata": gostruct.GoStruct("helm.sh/v3.ObjectMeta", {"name": gostruct.STRING, "labels": gostruct.STRING_MAP}),
    "data": gostruct.METADATA,
})


def _parse_helm_v3(doc: Any, source: str) -> model.Metadata:
    top = _decode(doc, source, _HELM_V3_CHART)
    kind = top.get("kind", "")
    if kind != "Chart":
        raise ChartFileError(f"{source}: field 'kind': must be Chart for apiVersion {model.API_VERSION_HELM_V3}, "
                             f"not {kind!r}")
    meta = top.get("metadata", {})
    labels = meta.get("labels", {})
    return _metadata_from(top.get("data", {}), api_version=model.API_VERSION_HELM_V3,
                          name=sanitize(meta.get("name", "")), version=labels.get("version", ""),
                          app_version=sanitize(labels.get("appVersion", "")))


def _metadata_from(fields: dict[str, Any], *, api_version: str, name: str, version: str,
                   app_version: str) -> model.Metadata:
    return model.Metadata(
        api_version=api_version,
        name=name,
        version=version,
        kube_version=_text(fields, "kubeVersion"),
        description=_text(fields, "description"),
        type=fields.get("type", ""),  # "" when absent, as Helm keeps it (.Chart.Type, toJson .Chart)
        keywords=_texts(fields, "keywords"),
        home=_text(fields, "home"),
        sources=_texts(fields, "sources"),
        dependencies=parse_dependencies(fields),
        maintainers=_parse_maintainers(fields),
        icon=_text(fields, "icon"),
        app_version=app_version,
        deprecated=fields.get("deprecated", False),
        annotations=fields.get("annotations", {}),
        condition=_text(fields, "condition"),
        tags=_text(fields, "tags"),
    )


def validate_metadata(metadata: model.Metadata, *, source: str) -> None:
    """Helm's ``Metadata.Validate`` rules and messages, in its order."""
    quote = gostrconv.quote
    if not metadata.name:
        raise ChartFileError("validation: chart.metadata.name is required")
    if metadata.name in (".", ".."):
        raise ChartFileError(f"validation: chart.metadata.name {quote(metadata.name)} is not allowed")
    if "/" in metadata.name:  # Go's name != filepath.Base(name)
        raise ChartFileError(f"validation: chart.metadata.name {quote(metadata.name)} is invalid")
    if not metadata.version:
        raise ChartFileError("validation: chart.metadata.version is required")
    if not is_valid_version(metadata.version):
        raise ChartFileError(f"validation: chart.metadata.version {quote(metadata.version)} is invalid")
    if metadata.type not in _KNOWN_TYPES:
        raise ChartFileError("validation: chart.metadata.type must be application or library")
    seen: set[str] = set()
    for dep in metadata.dependencies:
        key = dep.effective_name
        if key in seen:
            raise ChartFileError(f"validation: more than one dependency with name or alias {quote(key)}")
        seen.add(key)


def parse_requirements(data: bytes, *, source: str = "requirements.yaml") -> list[model.Dependency]:
    """Dependencies of a v1 chart, from requirements.yaml (read into Helm's Metadata, as Helm does)."""
    return parse_dependencies(_decode(_read_yaml(data, source), source, gostruct.METADATA))


def parse_lock(data: bytes, *, source: str) -> model.Lock:
    """Chart.lock or requirements.lock."""
    fields = _decode(_read_yaml(data, source), source, gostruct.LOCK)
    return model.Lock(
        generated=fields.get("generated", ""),
        digest=fields.get("digest", ""),
        dependencies=parse_dependencies(fields),
    )
