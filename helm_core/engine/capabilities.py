"""``.Capabilities``, ``.Chart`` and ``.Release`` as templates see them in Helm v3.22.

Why: charts branch on these (``semverCompare ">=1.19" .Capabilities.KubeVersion.Version``,
``.Capabilities.APIVersions.Has "policy/v1"``), so defaults must be Helm's own:

* KubeVersion ``v1.37.0`` (what the reference helm, built with Kubernetes 1.37, reports);
* APIVersions: ``chartutil.DefaultVersionSet``, group/versions only (so
  ``Has "apps/v1/Deployment"`` is false unless given, as with ``--api-versions``);
* HelmVersion ``v3.22.0`` with empty commit and tree state.

``.Chart`` is Helm's ``struct{ chart.Metadata; IsRoot bool }`` with Go field names.
"""
from __future__ import annotations

from collections.abc import Iterable

from helm_core.chart import model
from helm_core.golib import gojson, gotypes
from helm_core.support import patterns
from helm_core.support.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

DEFAULT_KUBE_VERSION = "v1.37.0"
HELM_VERSION = "v3.22.0"
HELM_GO_VERSION = "go1.26.8"

#: chartutil.DefaultVersionSet of Helm v3.22.0 (scheme.Scheme's prioritized group versions).
DEFAULT_API_VERSIONS: tuple[str, ...] = (
    "v1", "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1", "internal.apiserver.k8s.io/v1alpha1", "apps/v1",
    "apps/v1beta1", "apps/v1beta2", "authentication.k8s.io/v1", "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1", "authorization.k8s.io/v1", "authorization.k8s.io/v1beta1",
    "autoscaling/v1", "autoscaling/v2", "batch/v1", "batch/v1beta1", "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1", "certificates.k8s.io/v1alpha1", "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1", "coordination.k8s.io/v1", "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1", "events.k8s.io/v1", "events.k8s.io/v1beta1", "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta3",
    "lifecycle.k8s.io/v1alpha1", "networking.k8s.io/v1", "networking.k8s.io/v1beta1", "node.k8s.io/v1",
    "node.k8s.io/v1alpha1", "node.k8s.io/v1beta1", "policy/v1", "policy/v1beta1",
    "rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1", "resource.k8s.io/v1", "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1", "resource.k8s.io/v1alpha3", "scheduling.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1", "storage.k8s.io/v1beta1", "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1", "storagemigration.k8s.io/v1", "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1", "apiextensions.k8s.io/v1",
)

#: k8s ``ParseGeneric``'s syntax, compiled on first use (helm_core.support.patterns): the
#: usual ``v1.37.0`` is read by :func:`_generic_parts` without it.
_GENERIC_VERSION = patterns.on_first_use(r"^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)\s*$")


def _generic_parts(text: str) -> tuple[list[str], str] | None:
    """``_GENERIC_VERSION``'s dotted numbers and the rest of ``text``, None when it does not
    match; dotted ASCII digits (after an optional ``v``) are split without the pattern."""
    parts = (text[1:] if text.startswith("v") else text).split(".")
    if all(part.isascii() and part.isdigit() for part in parts):
        return parts, ""
    m = _GENERIC_VERSION().match(text)
    return (m.group(1).split("."), m.group(2)) if m else None


def _go_str(items: Iterable[Any]) -> str:
    return "[" + " ".join(str(i) for i in items) + "]"


class KubeVersion(gotypes.GoObject):
    """``chartutil.KubeVersion``: ``Version`` (``v1.37.0``), ``Major``, ``Minor``."""

    go_type: ClassVar[str] = "chartutil.KubeVersion"
    go_members: ClassVar[frozenset[str]] = frozenset({"Version", "Major", "Minor", "String", "GitVersion"})

    def __init__(self, version: str, major: str, minor: str) -> None:
        self.Version = version
        self.Major = major
        self.Minor = minor

    @classmethod
    def parse(cls, text: str) -> KubeVersion:
        """``chartutil.ParseKubeVersion`` (k8s ``ParseGeneric``: ``1.30``, ``v1.30.2``)."""
        found = _generic_parts(text)
        parts, rest = found if found else ([], "")
        if not found or len(parts) < 2 or (rest and rest[0] not in "-+"):
            raise ValueError(f'could not parse "{text}" as version')
        nums = [int(p) for p in parts] + [0] * (3 - len(parts))
        return cls("v" + ".".join(str(n) for n in nums[:3]) + rest, str(nums[0]), str(nums[1]))

    @gotypes.signature()
    def String(self) -> str:  # noqa: N802 - Go method name
        return self.Version

    @gotypes.signature()
    def GitVersion(self) -> str:  # noqa: N802 - Go method name
        return self.Version

    def go_json_value(self) -> dict[str, Any]:
        return gojson.Struct(Version=self.Version, Major=self.Major, Minor=self.Minor)


    def __str__(self) -> str:
        return self.Version


class VersionSet(list, gotypes.GoObject):  # type: ignore[type-arg]
    """``chartutil.VersionSet``: a ``[]string`` (ranged, indexed, searched by Sprig's ``has``)
    with a ``Has`` method."""

    go_type: ClassVar[str] = "chartutil.VersionSet"
    go_members: ClassVar[frozenset[str]] = frozenset({"Has"})

    def __init__(self, versions: Iterable[str]) -> None:
        super().__init__(versions)
        self._set = frozenset(self)

    @gotypes.signature("string")
    def Has(self, api_version: str) -> bool:  # noqa: N802 - Go method name
        return api_version in self._set

    def go_json_value(self) -> list[str]:
        return list(self)

    def __str__(self) -> str:
        return _go_str(self)

    def __hash__(self) -> int:  # type: ignore[override]  # identity: lists are unhashable
        return id(self)


class HelmVersion(gotypes.GoObject):
    """``version.BuildInfo``: Version, GitCommit, GitTreeState, GoVersion."""

    go_type: ClassVar[str] = "version.BuildInfo"
    go_members: ClassVar[frozenset[str]] = frozenset({"Version", "GitCommit", "GitTreeState", "GoVersion"})

    def __init__(self, version: str = HELM_VERSION, git_commit: str = "", git_tree_state: str = "",
                 go_version: str = HELM_GO_VERSION) -> None:
        self.Version = version
        self.GitCommit = git_commit
        self.GitTreeState = git_tree_state
        self.GoVersion = go_version

    def go_json_value(self) -> dict[str, Any]:
        pairs = (("version", self.Version), ("git_commit", self.GitCommit),
                 ("git_tree_state", self.GitTreeState), ("go_version", self.GoVersion))
        return gojson.Struct((k, v) for k, v in pairs if v)


    def __str__(self) -> str:
        return "{" + " ".join((self.Version, self.GitCommit, self.GitTreeState, self.GoVersion)) + "}"


class Capabilities(gotypes.GoObject):
    """``*chartutil.Capabilities``."""

    go_type: ClassVar[str] = "*chartutil.Capabilities"
    go_members: ClassVar[frozenset[str]] = frozenset({"KubeVersion", "APIVersions", "HelmVersion"})

    def __init__(self, kube_version: KubeVersion, api_versions: VersionSet, helm_version: HelmVersion) -> None:
        self.KubeVersion = kube_version
        self.APIVersions = api_versions
        self.HelmVersion = helm_version

    def go_json_value(self) -> dict[str, Any]:
        return gojson.Struct(
            KubeVersion=self.KubeVersion.go_json_value(),
            APIVersions=self.APIVersions.go_json_value(),
            HelmVersion=self.HelmVersion.go_json_value(),
        )


    def __str__(self) -> str:
        kv = self.KubeVersion
        return f"&{{{{{kv.Version} {kv.Major} {kv.Minor}}} {self.APIVersions} {self.HelmVersion}}}"


def make_capabilities(*, kube_version: str = DEFAULT_KUBE_VERSION,
                      extra_api_versions: Iterable[str] = ()) -> Capabilities:
    """Helm's capabilities for ``helm template`` (``--kube-version``, ``--api-versions``)."""
    versions = list(DEFAULT_API_VERSIONS) + [v for v in extra_api_versions]
    return Capabilities(KubeVersion.parse(kube_version), VersionSet(versions), HelmVersion())


# ---------------------------------------------------------------------------
# .Chart

class _GoStruct(gotypes.GoObject):
    """A plain Go struct: ``fields`` in Go order with (Go name, json name) and values."""

    json_fields: ClassVar[tuple[tuple[str, str], ...]] = ()

    def go_json_value(self) -> dict[str, Any]:
        out = gojson.Struct()
        for go_name, json_name in self.json_fields:
            value = getattr(self, go_name)
            if isinstance(value, gotypes.GoObject) and hasattr(value, "go_json_value"):
                value = value.go_json_value()
            elif isinstance(value, list):
                value = [v.go_json_value() if hasattr(v, "go_json_value") else v for v in value]
            if json_name.endswith(",omitempty"):
                if value in ("", False, None, [], {}, 0):
                    continue
                json_name = json_name[: -len(",omitempty")]
            out[json_name] = value
        return out


    def __str__(self) -> str:
        return "{" + " ".join(_go_value_str(getattr(self, n)) for n, _ in self.json_fields) + "}"


def _go_value_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return _go_str(_go_value_str(v) for v in value)
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{value[k]}" for k in sorted(value)) + "]"
    if isinstance(value, _GoStruct):
        return "0x" + format(id(value), "x")  # Go prints pointers inside structs as addresses
    return str(value)


class ChartMaintainer(_GoStruct):
    go_type: ClassVar[str] = "*chart.Maintainer"
    go_members: ClassVar[frozenset[str]] = frozenset({"Name", "Email", "URL"})
    json_fields = (("Name", "name,omitempty"), ("Email", "email,omitempty"), ("URL", "url,omitempty"))

    def __init__(self, m: model.Maintainer) -> None:
        self.Name, self.Email, self.URL = m.name, m.email, m.url


class ChartDependency(_GoStruct):
    go_type: ClassVar[str] = "*chart.Dependency"
    go_members: ClassVar[frozenset[str]] = frozenset(
        {"Name", "Version", "Repository", "Condition", "Tags", "Enabled", "ImportValues", "Alias"}
    )
    json_fields = (
        ("Name", "name"), ("Version", "version,omitempty"), ("Repository", "repository"),
        ("Condition", "condition,omitempty"), ("Tags", "tags,omitempty"), ("Enabled", "enabled,omitempty"),
        ("ImportValues", "import-values,omitempty"), ("Alias", "alias,omitempty"),
    )

    def __init__(self, d: model.Dependency) -> None:
        self.Name, self.Version, self.Repository = d.name, d.version, d.repository
        self.Condition, self.Tags, self.Enabled, self.Alias = d.condition, list(d.tags), d.enabled, d.alias
        self.ImportValues = [iv.raw if iv.raw is not None else {"child": iv.child, "parent": iv.parent}
                             for iv in d.import_values]


class ChartInfo(_GoStruct):
    """``.Chart``: ``struct { chart.Metadata; IsRoot bool }`` (Go field names)."""

    go_type: ClassVar[str] = "struct { chart.Metadata; IsRoot bool }"
    json_fields = (
        ("Name", "name,omitempty"), ("Home", "home,omitempty"), ("Sources", "sources,omitempty"),
        ("Version", "version,omitempty"), ("Description", "description,omitempty"),
        ("Keywords", "keywords,omitempty"), ("Maintainers", "maintainers,omitempty"),
        ("Icon", "icon,omitempty"), ("APIVersion", "apiVersion,omitempty"),
        ("Condition", "condition,omitempty"), ("Tags", "tags,omitempty"),
        ("AppVersion", "appVersion,omitempty"), ("Deprecated", "deprecated,omitempty"),
        ("Annotations", "annotations,omitempty"), ("KubeVersion", "kubeVersion,omitempty"),
        ("Dependencies", "dependencies,omitempty"), ("Type", "type,omitempty"),
    )
    go_members: ClassVar[frozenset[str]] = frozenset(n for n, _ in json_fields) | {"IsRoot"}

    def __init__(self, md: model.Metadata, *, is_root: bool) -> None:
        self.Name, self.Home, self.Sources = md.name, md.home, list(md.sources)
        self.Version, self.Description, self.Keywords = md.version, md.description, list(md.keywords)
        self.Maintainers = [ChartMaintainer(m) for m in md.maintainers]
        self.Icon, self.APIVersion, self.Condition, self.Tags = md.icon, md.api_version, md.condition, md.tags
        self.AppVersion, self.Deprecated = md.app_version, md.deprecated
        self.Annotations = dict(md.annotations)
        self.KubeVersion = md.kube_version
        self.Dependencies = [ChartDependency(d) for d in md.dependencies]
        self.Type = md.type
        self.IsRoot = is_root

    def go_json_value(self) -> dict[str, Any]:
        out = self.metadata_json()
        out["IsRoot"] = self.IsRoot
        return out

    def metadata_json(self) -> dict[str, Any]:
        """The embedded ``chart.Metadata`` alone, as encoding/json writes it."""
        return super().go_json_value()


    def __str__(self) -> str:
        return "{" + super().__str__() + f" {_go_value_str(self.IsRoot)}" + "}"


@record(frozen=True)
class ReleaseInfo:
    """``.Release`` for ``helm template``/install: a plain map in templates."""

    name: str = "release-name"
    namespace: str = "default"
    revision: int = 1
    is_upgrade: bool = False
    is_install: bool = True
    service: str = "Helm"
    extra: dict[str, Any] = field(default_factory=dict)

    def as_map(self) -> dict[str, Any]:
        out = {
            "Name": self.name, "Namespace": self.namespace, "Revision": self.revision,
            "IsUpgrade": self.is_upgrade, "IsInstall": self.is_install, "Service": self.service,
        }
        out.update(self.extra)
        return out
