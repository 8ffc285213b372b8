"""The in-memory chart model: one shape for every Chart.yaml form Helm knows.

A chart loaded from a directory or an archive becomes a :class:`Chart`. Files are
kept as bytes with '/'-separated paths relative to the chart root, exactly as
Helm's ``chart.File`` does, so the template engine and Lua see the same file set
whatever the source.

Values inside the model follow the Go typing Helm gives them (see
:mod:`helm_core.chart.goyaml`): numbers read from YAML files are ``float``
(Go float64); integers from ``--set`` are ``int`` (Go int64).
"""
from __future__ import annotations

from helm_core.support.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

API_VERSION_V1 = "v1"
API_VERSION_V2 = "v2"
#: The proposal's Kubernetes-style form: ``apiVersion: helm.sh/v3, kind: Chart``.
API_VERSION_HELM_V3 = "helm.sh/v3"
KNOWN_API_VERSIONS = (API_VERSION_V1, API_VERSION_V2, API_VERSION_HELM_V3)

TYPE_APPLICATION = "application"
TYPE_LIBRARY = "library"


@record
class File:
    """A file of a chart: ``name`` is the path from the chart root with '/' separators."""

    name: str
    data: bytes

    def __init__(self, name: str, data: bytes) -> None:
        # Written out, not the record's general __init__ (which takes any arguments): a warm
        # load makes a File per chart file, ~3x cheaper this way (230 of them for ingress-nginx).
        self.name = name
        self.data = data

    def digest(self) -> str:
        """:func:`cachekeys.hexdigest` of ``data``, computed once for these bytes: the key of the
        file's parse trees in the disk memo. Kept with the file (and in its pickle: a prepared
        chart the CLI's memo keeps brings its templates' digests, so a run that takes it reads
        no template again), with the bytes it is the digest of (another ``data`` is digested)."""
        known = self.__dict__.get("_digest")
        if known is not None and known[0] is self.data:
            digest: str = known[1]
            return digest
        from helm_core.support import cachekeys

        digest = cachekeys.hexdigest(self.data)
        if type(self.data) is bytes:  # (a bytearray may change in place)
            self.__dict__["_digest"] = (self.data, digest)
        return digest

    def know_digest(self, digest: str) -> None:
        """Take ``digest`` as :meth:`digest`'s for the current ``data`` (the caller digested
        these very bytes: the CLI's output key digests every file of the chart)."""
        if type(self.data) is bytes:
            self.__dict__["_digest"] = (self.data, digest)


@record
class Maintainer:
    name: str = ""
    email: str = ""
    url: str = ""


@record
class ImportValue:
    """One ``import-values`` entry: the exports form has ``child == "exports.<name>"``
    and ``parent == "."``, as Helm normalises it; the child/parent form keeps both paths."""

    child: str
    parent: str
    #: The raw entry as written (a string or a {child, parent} map), for error messages.
    raw: Any = None


@record
class Dependency:
    """A dependency declared in Chart.yaml (v2/helm.sh/v3) or requirements.yaml (v1)."""

    name: str
    version: str = ""
    repository: str = ""
    condition: str = ""
    tags: list[str] = field(default_factory=list)
    enabled: bool = True
    import_values: list[ImportValue] = field(default_factory=list)
    alias: str = ""

    @property
    def effective_name(self) -> str:
        """The name the subchart is known by in the parent's values: alias or name."""
        return self.alias or self.name


@record
class Metadata:
    """Chart.yaml's content, with Helm's field meaning (``chart.Metadata``)."""

    api_version: str
    name: str
    version: str
    kube_version: str = ""
    description: str = ""
    type: str = TYPE_APPLICATION
    keywords: list[str] = field(default_factory=list)
    home: str = ""
    sources: list[str] = field(default_factory=list)
    dependencies: list[Dependency] = field(default_factory=list)
    maintainers: list[Maintainer] = field(default_factory=list)
    icon: str = ""
    app_version: str = ""
    deprecated: bool = False
    annotations: dict[str, str] = field(default_factory=dict)
    condition: str = ""
    tags: str = ""

    @property
    def is_library(self) -> bool:
        return self.type == TYPE_LIBRARY


@record
class Lock:
    """Chart.lock (v2) or requirements.lock (v1)."""

    generated: str = ""
    digest: str = ""
    dependencies: list[Dependency] = field(default_factory=list)


@record
class Chart:
    """A loaded chart and, recursively, its subcharts.

    ``templates`` holds ``templates/**`` files; ``files`` every other file that is
    not Chart.yaml, values.yaml, the schema or a subchart (this is what ``.Files``
    exposes; ``crds/`` and ``ext/`` files are here too, as in Helm).
    """

    metadata: Metadata
    values: dict[str, Any] = field(default_factory=dict)
    #: The raw values.yaml bytes, for ``show values`` (comments kept).
    raw_values: bytes = b""
    #: The schema parsed to a JSON-compatible object (from .json or .yaml), or None.
    schema: dict[str, Any] | None = None
    #: Name of the file the schema came from (``values.schema.json`` / ``.yaml``).
    schema_file: str = ""
    #: The values.schema.json bytes: failures quote the schema's numbers as written (helm's
    #: validator keeps JSON numbers as their text), where the parsed schema holds floats.
    raw_schema: bytes = b""
    #: Why values.schema.json could not be read (Go's JSON error), reported when values are
    #: validated, as Helm reports it, rather than when the chart is loaded.
    schema_error: str = ""
    templates: list[File] = field(default_factory=list)
    files: list[File] = field(default_factory=list)
    lock: Lock | None = None
    dependencies: list[Chart] = field(default_factory=list)
    parent: Chart | None = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.metadata.name

    def is_root(self) -> bool:
        return self.parent is None

    def chart_path(self) -> str:
        """Helm's ``ChartFullPath``: ``parent/charts/child`` for subcharts."""
        if self.parent is None:
            return self.name
        return f"{self.parent.chart_path()}/charts/{self.name}"

    def crd_files(self) -> list[File]:
        """The ``crds/`` files of this chart only (Helm's ``CRDObjects`` walks subcharts too;
        see :func:`all_crd_files`)."""
        return [f for f in self.files if f.name.startswith("crds/")]

    def add_dependency(self, sub: Chart) -> None:
        sub.parent = self
        self.dependencies.append(sub)


def all_crd_files(chart: Chart) -> list[tuple[str, File]]:
    """Every CRD file of a chart and its subcharts, as ``(chart_path, file)``, parent first."""
    found = [(chart.chart_path(), f) for f in chart.crd_files()]
    for sub in chart.dependencies:
        found.extend(all_crd_files(sub))
    return found


def all_template_files(chart: Chart) -> list[tuple[str, File]]:
    """Every ``templates/`` file of a chart and its subcharts, parent first, as
    ``(template name, file)`` with Helm's names (``parent/charts/sub/templates/x.yaml``)."""
    prefix = chart.chart_path()
    found = [(f"{prefix}/{f.name}", f) for f in chart.templates]
    for sub in chart.dependencies:
        found.extend(all_template_files(sub))
    return found
