"""``helm-core lint``: helm's lint rules and report (``pkg/lint``), for chart folders and archives.

Rules, in helm's order, each message ``[SEVERITY] path: text`` as helm prints it:
- Chart.yaml: a file, parsable; name (and no path in it), apiVersion v1/v2, version and
  appVersion written as strings, version a SemVer, maintainers named (valid email/url),
  source and icon URLs, ``icon is recommended`` (INFO), no ``type``/``dependencies`` in v1.
- values.yaml: present (INFO when not), parsable, and with the user's values over it valid against
  values.schema.json (helm's values rule, which ``--skip-schema-validation`` leaves on).
- templates/: the chart loads and renders (release ``test-release``; a chart with Lua runs the
  lint action's events around the render, and a failing handler is this rule's ERROR); per template: an allowed
  extension, no ``crd-install`` hook (WARNING), no ``.Release.Time``; per rendered YAML file:
  no indented first line (WARNING); then document by document (``---`` lines, each decoded
  into helm's ``K8sYamlStruct``; the first that fails is an ERROR and ends the lint of the
  templates), per object: a name as Kubernetes wants it (WARNING), an API type not deprecated
  at ``--kube-version`` or helm's default release (WARNING, :mod:`helm_core.cli.deprecations`),
  a selector for workloads (``matchLabels``/``matchExpressions`` somewhere in the file), no
  ``helm.sh/resource-policy`` on a List's items.
- dependencies: every declared dependency present in charts/, every chart in charts/ declared.
``--with-subcharts`` adds every chart folder and archive under the given charts' ``charts/``.
A chart fails when it has an ERROR; the summary is helm's (``Error: N chart(s) linted, M
chart(s) failed`` when any failed).
"""
from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from helm_core.chart import gostruct
from helm_core.errors import HelmError, SchemaError, ValuesError
from helm_core.golib import gostrconv
from helm_core.support.records import record

INFO, WARNING, ERROR = "INFO", "WARNING", "ERROR"
RELEASE_NAME = "test-release"
_EXTENSIONS = (".yaml", ".yml", ".tpl", ".txt", ".j2")
"""helm's, and ``.j2`` for helm-core's Jinja2 templates (``x.yaml.j2`` is checked as YAML)."""
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_REQUEST_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/]+")


@record(frozen=True)
class Message:
    severity: str
    path: str
    text: str

    def __str__(self) -> str:
        return f"[{self.severity}] {self.path}: {self.text}"


class _Linter:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    def rule(self, severity: str, path: str, problem: str | None) -> bool:
        if problem:
            self.messages.append(Message(severity, path, problem))
        return not problem

    def failed(self, strict: bool = False) -> bool:
        """An error fails a chart; with ``--strict`` a warning too (helm's lowest tolerance)."""
        failing = (ERROR, WARNING) if strict else (ERROR,)
        return any(m.severity in failing for m in self.messages)


def _go_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "float64"  # through JSON, as helm reads Chart.yaml
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return "<nil>" if value is None else type(value).__name__


def _chartfile(linter: _Linter, files: dict[str, bytes]) -> dict[str, Any] | None:
    import yaml

    from helm_core.chart import chartfile
    from helm_core.golib import versions

    name = "Chart.yaml"
    try:
        fields = chartfile.metadata_fields(files[name])
    except (HelmError, ValueError) as exc:
        linter.rule(ERROR, name, f"unable to parse YAML\n\t{exc}")
        return None
    try:
        raw = yaml.safe_load(files[name]) or {}
    except yaml.YAMLError:
        raw = {}
    chart_name = str(fields.get("name") or "")
    linter.rule(ERROR, name, "name is required" if not chart_name else
                (f'chart name "{chart_name}" is invalid' if os.path.basename(chart_name) != chart_name else None))
    api = str(fields.get("apiVersion") or "")
    linter.rule(ERROR, name, 'apiVersion is required. The value must be either "v1" or "v2"' if not api else
                (f"apiVersion '{api}' is not valid. The value must be either \"v1\" or \"v2\""
                 if api not in ("v1", "v2") else None))
    for key in ("version", "appVersion"):
        value = raw.get(key) if isinstance(raw, dict) else None
        if value is not None and not isinstance(value, str):
            linter.rule(ERROR, name, f"{key} should be of type string but it's of type {_go_type(value)}")
    version = str(fields.get("version") or "")
    problem = None
    if not version:
        problem = "version is required"
    else:
        try:
            versions.Version.parse(version)
        except versions.VersionError:
            problem = f"version '{version}' is not a valid SemVer"
    linter.rule(ERROR, name, problem)
    for maintainer in fields.get("maintainers") or []:
        if maintainer is None:
            linter.rule(ERROR, name, "a maintainer entry is empty")
            break
        who, email, url = (str(maintainer.get(k) or "") for k in ("name", "email", "url"))
        problem = ("each maintainer requires a name" if not who else
                   f"invalid email '{email}' for maintainer '{who}'" if email and not _EMAIL.match(email) else
                   f"invalid url '{url}' for maintainer '{who}'" if url and not _REQUEST_URL.match(url) else None)
        if not linter.rule(ERROR, name, problem):
            break
    for source in fields.get("sources") or []:
        if not source or not _REQUEST_URL.match(str(source)):
            linter.rule(ERROR, name, f"invalid source URL '{source}'")
            break
    icon = str(fields.get("icon") or "")
    linter.rule(INFO, name, "icon is recommended" if not icon else None)
    linter.rule(ERROR, name, f"invalid icon URL '{icon}'" if icon and not _REQUEST_URL.match(icon) else None)
    if api == "v1" and fields.get("type"):
        linter.rule(ERROR, name, "chart type is not valid in apiVersion 'v1'. It is valid in apiVersion 'v2'")
    if api == "v1" and fields.get("dependencies"):
        linter.rule(ERROR, name, "dependencies are not valid in the Chart file with apiVersion 'v1'. "
                                 "They are valid in apiVersion 'v2'")
    return fields


def _name_problem(kind: str, name: str) -> str | None:
    """k8s ``ValidateNameFunc`` for the kind (helm's ``validateMetadataNameFunc``), one message."""
    kind = kind.lower()
    if kind in ("certificatesigningrequest",):
        return None
    if kind in ("role", "clusterrole", "rolebinding", "clusterrolebinding"):
        if name in (".", ".."):
            return f"may not be '{name}'"
        for bad in ("/", "%"):
            if bad in name:
                return f"may not contain '{bad}'"
        return None
    if kind == "service":
        if len(name) > 63:
            return "must be no more than 63 characters"
        if not _DNS1035_LABEL.match(name):
            return ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
                    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
        return None
    if kind == "namespace":
        if len(name) > 63:
            return "must be no more than 63 characters"
        if "." in name:
            return "must not contain dots"
        if not _DNS1123_LABEL.match(name):
            return ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
                    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
        return None
    if len(name) > 253:
        return "must be no more than 253 characters"
    if not _DNS1123_SUBDOMAIN.match(name):
        return ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
                "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
                "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    return None


def _templates(linter: _Linter, chart_dir: Path | None, files: dict[str, bytes], render: Callable[[], Any],
               kube_version: tuple[int, int]) -> None:
    from helm_core.cli import deprecations

    if chart_dir is not None and (chart_dir / "templates").exists() and not (chart_dir / "templates").is_dir():
        linter.rule(WARNING, "templates/", "not a directory")
        return
    try:
        rendered_chart = render()
    except HelmError as exc:
        # helm prints a schema report as it is, its closing newline included
        linter.rule(ERROR, "templates/", str(exc) if isinstance(exc, SchemaError) else str(exc).strip("\n"))
        return
    if rendered_chart is None:  # helm lints no further when dependencies cannot be processed
        return
    chart, rendered = rendered_chart
    for template in chart.templates:
        path = template.name
        ext = os.path.splitext(path)[1]
        yaml_ext = os.path.splitext(path.removesuffix(".j2"))[1] if ext == ".j2" else ext
        linter.rule(ERROR, path, None if ext in _EXTENSIONS else
                    f"file extension '{ext}' not valid. Valid extensions are .yaml, .yml, .tpl, or .txt")
        data = template.data.decode("utf-8", "replace")
        linter.rule(WARNING, path, "manifest is a crd-install hook. This hook is no longer supported in v3 and all "
                                   "CRDs should also exist the crds/ directory at the top level of the chart"
                    if re.search(r"helm\.sh/hook[\"']?\s*:\s*[\"']?crd-install", data) else None)
        linter.rule(ERROR, path, ".Release.Time has been removed in v3, please replace with the `now` function "
                                 "in your templates" if re.search(r"\.Release\.Time", data) else None)
        if yaml_ext != ".yaml":
            continue
        content = rendered.get(f"{chart.metadata.name}/{path}", "")
        if not content.strip():
            continue
        first = next((line for line in content.splitlines() if line.strip()), "")
        linter.rule(WARNING, path, f'document starts with an illegal indent: "{first}", which may cause parsing '
                                   "problems" if first.startswith((" ", "\t")) else None)
        for obj in _objects(content):
            if isinstance(obj, str):  # helm lints no further once a document does not decode
                linter.rule(ERROR, path, f"unable to parse YAML: {obj}")
                return
            if obj is None:
                continue
            kind, name = obj.get("Kind", ""), obj.get("Metadata", {}).get("Name", "")
            problem = _name_problem(kind, name)
            quoted = gostrconv.quote(name)  # Go's %q
            linter.rule(WARNING, path, f"object name does not conform to Kubernetes naming requirements: {quoted}: "
                                       f"metadata.name: Invalid value: {quoted}: {problem}" if problem else None)
            linter.rule(WARNING, path, deprecations.warning(obj.get("apiVersion", ""), kind, kube_version))
            # helm looks for the selector's words anywhere in the file, not in this object
            linter.rule(ERROR, path, f"a {kind} must contain matchLabels or matchExpressions, and {quoted} does not"
                        if kind in _SELECTOR_KINDS and not ("matchLabels" in content or "matchExpressions" in content)
                        else None)
            if kind == "List":
                linter.rule(ERROR, path, _list_annotations_problem(content))


#: Kinds helm's ``validateMatchSelector`` wants a selector of.
_SELECTOR_KINDS = ("Deployment", "ReplicaSet", "DaemonSet", "StatefulSet")
#: The struct helm's ``validateListAnnotations`` decodes a List's file into (anonymous in Go).
_LIST_ITEMS = gostruct.GoStruct("struct { Items []struct { Metadata struct { Annotations map[string]string } } }", {
    "Items": gostruct.StructList(gostruct.GoStruct("struct { Metadata struct { Annotations map[string]string } }", {
        "Metadata": gostruct.GoStruct("struct { Annotations map[string]string }",
                                      {"Annotations": gostruct.STRING_MAP})}))})


def _list_annotations_problem(content: str) -> str | None:
    """helm's ``validateListAnnotations``: the file's first document (whichever document the
    List is) read as a list of items, none of which may carry helm's resource policy."""
    try:
        items = (_unmarshal(content, _LIST_ITEMS) or {}).get("Items") or []
    except ValueError as exc:
        return f"unable to parse YAML: {exc}"
    if any("helm.sh/resource-policy" in item.get("Metadata", {}).get("Annotations", {}) for item in items):
        return "Annotation 'helm.sh/resource-policy' within List objects are ignored"
    return None


#: helm's ``rules.K8sYamlStruct``: the fields lint reads of every rendered document.
_K8S_YAML_STRUCT = gostruct.GoStruct("rules.K8sYamlStruct", {
    "apiVersion": gostruct.STRING, "Kind": gostruct.STRING,
    "Metadata": gostruct.GoStruct("rules.k8sYamlMetadata", {"Namespace": gostruct.STRING, "Name": gostruct.STRING}),
})


def _objects(content: str) -> Iterator[dict[str, Any] | str | None]:
    """The documents of a rendered file as helm's lint decodes them one by one (k8s's
    ``YAMLOrJSONDecoder``, each into ``K8sYamlStruct``): the struct's fields by name, None for an
    empty document, and Go's error text for the first one that fails, which ends the stream.
    A stream starting with ``{`` (which Go first tries as JSON) is read as YAML too: the same
    objects, only a malformed one's message may differ."""
    from helm_core.golib import yamlreader

    documents = yamlreader.documents(content)
    while True:
        try:
            document = next(documents, None)
            if document is None:
                return
            obj = _unmarshal(document, _K8S_YAML_STRUCT)
        except ValueError as exc:  # YAML syntax, a separator line with text after it, a mistyped field
            yield str(exc)
            return
        yield obj


def _unmarshal(text: str, target: gostruct.GoStruct) -> dict[str, Any] | None:
    """``sigs.k8s.io/yaml.Unmarshal`` of ``text``'s first document into ``target``: its fields by
    name, None for a null document; :class:`ValueError` with Go's message."""
    from helm_core.golib import goyaml

    doc = goyaml.decode_uncached(text, json_step=False)
    if doc is None:
        return None
    try:
        return gostruct.unmarshal(doc, target)
    except (gostruct.MarshalError, gostruct.UnmarshalError) as exc:
        raise ValueError(gostruct.error_text(exc)) from None


def _dependencies(linter: _Linter, chart_dir: str, load: Callable[[], Any]) -> None:
    """helm's ``rules.Dependencies`` (messages at the chart's absolute path)."""
    try:
        chart = load()
    except HelmError as exc:
        linter.rule(ERROR, "", f"unable to load chart\n\t{exc}")
        return
    declared = list(chart.metadata.dependencies)
    present = [c.metadata.name for c in chart.dependencies]
    names = {d.name for d in declared}
    extra = [n for n in present if n not in names]
    linter.rule(ERROR, chart_dir, f"chart metadata is missing these dependencies: {','.join(extra)}" if extra else None)
    seen: dict[str, int] = {}
    for d in declared:
        seen[d.alias or d.name] = seen.get(d.alias or d.name, 0) + 1
    shadowing = [n for n, count in seen.items() if count > 1]
    linter.rule(ERROR, chart_dir,
                f"multiple dependencies with name or alias: {','.join(shadowing)}" if shadowing else None)
    missing = [d.name for d in declared if d.name not in present]
    linter.rule(WARNING, chart_dir,
                f"chart directory is missing these dependencies: {','.join(missing)}" if missing else None)


def _read_in(chart_dir: Path, name: str) -> bytes | None:
    """A chart folder's file, None when there is none; what cannot be read is Go's read error."""
    try:
        return (chart_dir / name).read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ValuesError(f"read {chart_dir.absolute() / name}: is a directory") from None


def _values(linter: _Linter, chart_dir: str, read: Callable[[str], bytes | None],
            overrides: dict[str, Any] | None) -> None:
    """helm's ``rules.ValuesWithOverrides``: values.yaml exists (INFO), parses, and with the
    user's values over it (coalesced as tables: the top chart only, subcharts' values are not
    looked into) meets values.schema.json, when that file is not empty."""
    from helm_core.chart import loader, schema
    from helm_core.chart import values as values_mod
    from helm_core.golib import goyaml

    try:
        data = read("values.yaml")
        if data is None:
            linter.rule(INFO, "values.yaml", "file does not exist")
            return
        values = goyaml.load_values(data, context="unable to parse YAML")
    except ValuesError as exc:
        linter.rule(ERROR, "values.yaml", str(exc) if str(exc).startswith("unable to parse YAML")
                    else f"unable to parse YAML: {exc}")
        return
    # coalesced before the schema is read, as helm does: its warnings are logged without a schema
    merged = values_mod.coalesce_tables(values_mod.coalesce_tables({}, overrides or {}), values)
    schema_data = read("values.schema.json")
    if not schema_data:
        return
    try:
        document, problem = loader.read_schema("values.schema.json", schema_data, chart_dir)
    except ValuesError as exc:
        problem, document = str(exc), None
    if document is None:
        linter.rule(ERROR, "values.yaml", problem)
        return
    found = schema.violations(document, merged, source=f"{chart_dir}/values.schema.json")
    linter.rule(ERROR, "values.yaml", schema.single_schema_error(found) if found else None)


def subchart_paths(path: str) -> list[str]:
    """What ``helm lint --with-subcharts`` adds for ``path``: under ``<path>/charts``, walked in
    Go's ``filepath.Walk`` order (names sorted, symbolic links not followed), the folder of
    every ``Chart.yaml`` and every path ending in ``.tgz`` or ``.tar.gz``."""
    from helm_core.golib import gofilepath

    found: list[str] = []

    def walk(at: str, is_dir: bool) -> None:
        name = os.path.basename(at)
        if name == "Chart.yaml":
            found.append(gofilepath.dir(at))
        elif at.endswith((".tgz", ".tar.gz")):
            found.append(at)
        if not is_dir:
            return
        try:
            names = sorted(os.listdir(at), key=os.fsencode)
        except OSError:
            return
        for child in names:
            joined = gofilepath.join(at, child)
            try:
                walk(joined, stat.S_ISDIR(os.lstat(joined).st_mode))
            except OSError:
                continue

    root = gofilepath.join(path, "charts")
    try:
        walk(root, stat.S_ISDIR(os.lstat(root).st_mode))
    except OSError:
        pass
    return found


def lint(path: str, render: Callable[[Any], Any], *, kube_version: tuple[int, int],
         strict: bool = False, overrides: dict[str, Any] | None = None) -> tuple[list[Message], bool, str]:
    """Lint the chart at ``path``: (messages, failed, a guard error helm prints as ``Error ...``).

    ``render(chart)`` renders a loaded chart as ``template`` would (values, namespace, Lua);
    ``kube_version`` (major, minor) is the release deprecated APIs are judged at; ``overrides``
    are the user's values (``-f``/``--set``), which the values rule checks with values.yaml."""
    from helm_core.chart import archive, loader

    p = Path(path)
    chart_dir = p if p.is_dir() else None
    if chart_dir is not None:
        if not (chart_dir / "Chart.yaml").exists():
            return [], True, (f"unable to check Chart.yaml file in chart: stat {chart_dir / 'Chart.yaml'}: "
                              "no such file or directory")
        files = {"Chart.yaml": (chart_dir / "Chart.yaml").read_bytes()}
    else:
        try:
            entries = archive.read_archive(p.read_bytes(), source=path)
        except (OSError, HelmError) as exc:
            return [], True, f"unable to open tarball: {exc}"
        files = dict(entries)
        if "Chart.yaml" not in files:
            return [], True, "unable to check Chart.yaml file in chart: Chart.yaml: no such file or directory"
    linter = _Linter()
    fields = _chartfile(linter, files)
    if fields is None:
        return linter.messages, True, ""
    if chart_dir is not None:
        _values(linter, str(chart_dir.absolute()), lambda name: _read_in(chart_dir, name), overrides)
    else:
        _values(linter, os.path.abspath(path), files.get, overrides)
    loaded: list[Any] = []

    def load_and_render() -> Any:
        chart = loader.load(path)
        loaded.append(chart)
        return render(chart)

    _templates(linter, chart_dir, files, load_and_render, kube_version)
    _dependencies(linter, os.path.abspath(path), lambda: loaded[0] if loaded else loader.load(path))
    return linter.messages, linter.failed(strict), ""
