"""Chart.yaml, requirements.yaml and lock files: parsing and validation.

Three spellings of the same metadata map to one :class:`~helm_core.chart.model.Metadata`:

* ``apiVersion: v2`` (Helm 3 as shipped) and ``v1`` (Helm 2; dependencies in
  ``requirements.yaml``; a missing apiVersion means v1, as Helm reads it);
* the proposal's ``apiVersion: helm.sh/v3, kind: Chart`` form, where name lives in
  ``metadata.name``, version and appVersion in ``metadata.labels`` and the rest in ``data``.

Every error names the file and the field. Scalars are read as written (``appVersion:
3.10`` stays ``"3.10"``), which is what chart authors mean.
"""
from __future__ import annotations

import functools
import hashlib
import re
from typing import Any

from helm_core import goyaml, memo
from helm_core.chart import model
from helm_core.errors import ChartFileError

#: Masterminds semver's (lenient) version syntax, which Helm uses to validate ``version``.
_SEMVER_RE = re.compile(
    r"^v?(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?(\.(0|[1-9][0-9]*))?"
    r"(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$"
)
_ALIAS_RE = re.compile(r"^[a-zA-Z0-9_-]+$")
_KNOWN_TYPES = ("", model.TYPE_APPLICATION, model.TYPE_LIBRARY)
#: Chart.yaml (and requirements/lock) documents in the disk memo, as read before typing.
TEXT_YAML_MEMO = "chartfile-yaml"


def is_valid_version(version: str) -> bool:
    """True for versions Helm accepts in Chart.yaml (Masterminds ``NewVersion``)."""
    match = _SEMVER_RE.match(version)
    if not match:
        return False
    prerelease = match.group(7)
    if prerelease:
        # SemVer 2: numeric pre-release identifiers must not have leading zeros.
        for ident in prerelease.split("."):
            if ident.isdigit() and len(ident) > 1 and ident.startswith("0"):
                return False
    return True


def _read_yaml(data: bytes, source: str) -> Any:
    disk = memo.active()
    if disk is None:
        return _parse_yaml_text(data, source)
    key = hashlib.sha256(_code_digest().encode() + b"\0" + data).hexdigest()
    return disk.pickled(TEXT_YAML_MEMO, key, lambda: _parse_yaml_text(data, source))


@functools.cache
def _code_digest() -> str:
    return memo.code_digest(__file__) + goyaml.pyyaml_digest()


def _parse_yaml_text(data: bytes, source: str) -> Any:
    import yaml  # only when the document is not in the memo (PyYAML's import is ~15 ms)

    try:
        # BaseLoader keeps every scalar as its text (libyaml's when available); fields are typed below.
        loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
        doc = yaml.load(data.decode("utf-8-sig"), Loader=loader)  # noqa: S506
        if b"*" in data:
            _refuse_alias_bomb(data, source)
        return doc
    except UnicodeDecodeError:
        raise ChartFileError(f"{source}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise ChartFileError(f"{where}: invalid YAML: {problem}") from None


def _refuse_alias_bomb(data: bytes, source: str) -> None:
    """BaseLoader shares an aliased node where Helm's YAML-to-JSON step copies it: refuse,
    in Helm's words, the documents whose aliases would blow up there."""
    from helm_core import goyaml_read

    try:
        goyaml_read.decode(data.decode("utf-8-sig"))
    except ValueError as exc:
        if "excessive aliasing" in str(exc):
            name = source.rsplit("/", 1)[-1]
            raise ChartFileError(f"cannot load {name}: {exc}") from None


class _Fields:
    """Typed access to a mapping read by BaseLoader, with errors naming file and field."""

    def __init__(self, doc: Any, source: str, prefix: str = "") -> None:
        if doc is None:
            doc = {}
        if not isinstance(doc, dict):
            where = f"field '{prefix.rstrip('.')}':" if prefix else "top level"
            raise ChartFileError(f"{source}: {where} must be a map")
        self.doc = doc
        self.source = source
        self.prefix = prefix

    def _err(self, field: str, message: str) -> ChartFileError:
        return ChartFileError(f"{self.source}: field '{self.prefix}{field}': {message}")

    def str(self, field: str) -> str:
        value = self.doc.get(field)
        if value is None:
            return ""
        if isinstance(value, (dict, list)):
            raise self._err(field, f"must be a string, not a {'map' if isinstance(value, dict) else 'list'}")
        return value if value != "~" and value != "null" else ""

    def bool(self, field: str) -> bool:
        value = self.str(field)
        if value in ("", "false", "False", "FALSE"):
            return False
        if value in ("true", "True", "TRUE"):
            return True
        raise self._err(field, f"must be true or false, not {value!r}")

    def str_list(self, field: str) -> list[str]:
        value = self.doc.get(field)
        if value is None or value == "":
            return []
        if not isinstance(value, list) or any(isinstance(v, (dict, list)) for v in value):
            raise self._err(field, "must be a list of strings")
        return [v for v in value]

    def str_map(self, field: str) -> dict[str, str]:
        value = self.doc.get(field)
        if value is None or value == "":
            return {}
        if not isinstance(value, dict) or any(isinstance(v, (dict, list)) for v in value.values()):
            raise self._err(field, "must be a map of strings")
        return {str(k): v for k, v in value.items()}

    def map_list(self, field: str) -> list["_Fields"]:
        value = self.doc.get(field)
        if value is None or value == "":
            return []
        if not isinstance(value, list):
            raise self._err(field, "must be a list")
        out = []
        for i, item in enumerate(value):
            if item is None or item in ("", "null", "~", "Null", "NULL"):
                raise self._err(f"{field}[{i}]", "must not be empty or null")
            out.append(_Fields(item, self.source, f"{self.prefix}{field}[{i}]."))
        return out


def parse_dependencies(fields: _Fields, field: str = "dependencies") -> list[model.Dependency]:
    deps = []
    for dep in fields.map_list(field):
        name = dep.str("name")
        if not name:
            raise dep._err("name", "is required")
        alias = dep.str("alias")
        if alias and not _ALIAS_RE.match(alias):
            raise dep._err("alias", f"dependency {name!r} has disallowed characters in the alias")
        deps.append(
            model.Dependency(
                name=name,
                version=dep.str("version"),
                repository=dep.str("repository"),
                condition=dep.str("condition"),
                tags=dep.str_list("tags"),
                enabled=True,
                import_values=_parse_import_values(dep, name),
                alias=alias,
            )
        )
    return deps


def _parse_import_values(dep: _Fields, name: str) -> list[model.ImportValue]:
    raw = dep.doc.get("import-values")
    if raw is None or raw == "":
        return []
    if not isinstance(raw, list):
        raise dep._err("import-values", "must be a list")
    out = []
    for i, item in enumerate(raw):
        if isinstance(item, str):
            out.append(model.ImportValue(child=f"exports.{item}", parent=".", raw=item))
        elif isinstance(item, dict) and isinstance(item.get("child"), str) and isinstance(item.get("parent"), str):
            out.append(model.ImportValue(child=item["child"], parent=item["parent"], raw=dict(item)))
        else:
            raise dep._err(
                f"import-values[{i}]",
                "must be a string or a map with 'child' and 'parent' strings",
            )
    return out


def _parse_maintainers(fields: _Fields) -> list[model.Maintainer]:
    out = []
    for m in fields.map_list("maintainers"):
        out.append(model.Maintainer(name=m.str("name"), email=m.str("email"), url=m.str("url")))
    return out


def parse_chart_yaml(data: bytes, *, source: str = "Chart.yaml") -> model.Metadata:
    """Parse and validate Chart.yaml content in any of the three forms."""
    doc = _read_yaml(data, source)
    top = _Fields(doc, source)
    api_version = top.str("apiVersion") or model.API_VERSION_V1
    if api_version == model.API_VERSION_HELM_V3:
        metadata = _parse_helm_v3(top)
    else:
        metadata = _metadata_from(top, api_version=api_version, name=top.str("name"),
                                  version=top.str("version"), app_version=top.str("appVersion"))
    validate_metadata(metadata, source=source)
    return metadata


def _parse_helm_v3(top: _Fields) -> model.Metadata:
    kind = top.str("kind")
    if kind != "Chart":
        raise top._err("kind", f"must be Chart for apiVersion {model.API_VERSION_HELM_V3}, not {kind!r}")
    meta = _Fields(top.doc.get("metadata"), top.source, "metadata.")
    labels = _Fields(meta.doc.get("labels"), top.source, "metadata.labels.")
    data = _Fields(top.doc.get("data"), top.source, "data.")
    return _metadata_from(data, api_version=model.API_VERSION_HELM_V3, name=meta.str("name"),
                          version=labels.str("version"), app_version=labels.str("appVersion"))


def _metadata_from(fields: _Fields, *, api_version: str, name: str, version: str,
                   app_version: str) -> model.Metadata:
    return model.Metadata(
        api_version=api_version,
        name=name,
        version=version,
        kube_version=fields.str("kubeVersion"),
        description=fields.str("description"),
        type=fields.str("type"),  # "" when absent, as Helm keeps it (.Chart.Type, toJson .Chart)
        keywords=fields.str_list("keywords"),
        home=fields.str("home"),
        sources=fields.str_list("sources"),
        dependencies=parse_dependencies(fields),
        maintainers=_parse_maintainers(fields),
        icon=fields.str("icon"),
        app_version=app_version,
        deprecated=fields.bool("deprecated"),
        annotations=fields.str_map("annotations"),
        condition=fields.str("condition"),
        tags=fields.str("tags"),
    )


def _field_names(metadata: model.Metadata) -> dict[str, str]:
    if metadata.api_version == model.API_VERSION_HELM_V3:
        return {"name": "metadata.name", "version": "metadata.labels.version", "type": "data.type",
                "dependencies": "data.dependencies"}
    return {"name": "name", "version": "version", "type": "type", "dependencies": "dependencies"}


def validate_metadata(metadata: model.Metadata, *, source: str) -> None:
    """Helm's ``Metadata.Validate`` rules, with errors naming file and field."""
    names = _field_names(metadata)

    def fail(field: str, message: str) -> ChartFileError:
        return ChartFileError(f"{source}: field '{names.get(field, field)}': {message}")

    if metadata.api_version not in model.KNOWN_API_VERSIONS:
        raise ChartFileError(
            f"{source}: field 'apiVersion': unknown apiVersion {metadata.api_version!r} "
            f"(known: {', '.join(model.KNOWN_API_VERSIONS)})"
        )
    if not metadata.name:
        raise fail("name", "is required")
    if metadata.name in (".", "..") or "/" in metadata.name or "\\" in metadata.name:
        raise fail("name", f"{metadata.name!r} is not a valid chart name")
    if not metadata.version:
        raise fail("version", "is required")
    if not is_valid_version(metadata.version):
        raise fail("version", f"{metadata.version!r} is not a valid SemVer 2 version")
    if metadata.type not in _KNOWN_TYPES:
        raise fail("type", f"must be application or library, not {metadata.type!r}")
    seen: set[str] = set()
    for dep in metadata.dependencies:
        key = dep.effective_name
        if key in seen:
            raise fail("dependencies", f"more than one dependency with name or alias {key!r}")
        seen.add(key)


def parse_requirements(data: bytes, *, source: str = "requirements.yaml") -> list[model.Dependency]:
    """Dependencies of a v1 chart, from requirements.yaml."""
    return parse_dependencies(_Fields(_read_yaml(data, source), source))


def parse_lock(data: bytes, *, source: str) -> model.Lock:
    """Chart.lock or requirements.lock."""
    fields = _Fields(_read_yaml(data, source), source)
    return model.Lock(
        generated=fields.str("generated"),
        digest=fields.str("digest"),
        dependencies=parse_dependencies(fields),
    )
