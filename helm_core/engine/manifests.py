"""From rendered template files to ordered Kubernetes documents (Helm's ``releaseutil``).

Rendered files are split into YAML documents exactly as Helm 3 splits them, each
document keeps the template it came from (``# Source: <chart>/templates/<file>``), its
head (kind, name, annotations) is read as Helm reads it into ``releaseutil.SimpleHead``
(:func:`simple_head`: case-insensitive keys, numbers as text, Go's refusals),
documents annotated ``helm.sh/hook`` become hooks, and the rest is sorted by kind in
Helm's install order: unknown kinds after known ones, alphabetically among
themselves; the sort is stable, so documents of one kind keep file order (files
sorted by path, documents in file order). Uninstall uses the reverse order.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from helm_core.chart import gostruct
from helm_core.errors import ManifestError
from helm_core.golib import gounicode, goyaml, goyaml_rules
from helm_core.support.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HOOK_ANNOTATION = "helm.sh/hook"
HOOK_WEIGHT_ANNOTATION = "helm.sh/hook-weight"
HOOK_DELETE_ANNOTATION = "helm.sh/hook-delete-policy"
HOOK_OUTPUT_LOG_ANNOTATION = "helm.sh/hook-output-log-policy"
BEFORE_HOOK_CREATION = "before-hook-creation"
"""The delete policy of a hook that names none (helm's ``execHook`` sets it when it runs one)."""
RESOURCE_POLICY_ANNOTATION = "helm.sh/resource-policy"

#: Hook events Helm knows; ``test-success`` is the Helm 2 spelling of ``test``.
HOOK_EVENTS = {
    "pre-install": "pre-install",
    "post-install": "post-install",
    "pre-delete": "pre-delete",
    "post-delete": "post-delete",
    "pre-upgrade": "pre-upgrade",
    "post-upgrade": "post-upgrade",
    "pre-rollback": "pre-rollback",
    "post-rollback": "post-rollback",
    "test": "test",
    "test-success": "test",
}

INSTALL_ORDER: tuple[str, ...] = (
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
    "PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
    "ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
    "CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
    "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
    "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
    "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
    "APIService",
)
UNINSTALL_ORDER: tuple[str, ...] = (
    "APIService", "Ingress", "IngressClass", "Service", "CronJob", "Job", "StatefulSet",
    "HorizontalPodAutoscaler", "Deployment", "ReplicaSet", "ReplicationController", "Pod",
    "DaemonSet", "RoleBindingList", "RoleBinding", "RoleList", "Role", "ClusterRoleBindingList",
    "ClusterRoleBinding", "ClusterRoleList", "ClusterRole", "CustomResourceDefinition",
    "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "ConfigMap", "SecretList",
    "Secret", "ServiceAccount", "PodDisruptionBudget", "PodSecurityPolicy", "LimitRange",
    "ResourceQuota", "NetworkPolicy", "Namespace", "PriorityClass",
)

#: The spaces of releaseutil's separator ``(?:^|\s*\n)---\s*`` (Go's ASCII ``\s``).
_GO_SPACES = frozenset(gounicode.RE2_SPACE)


#: Helm's ``releaseutil.SimpleHead``: what ``SortManifests`` reads of each document to sort it
#: and find its hooks (sigs.k8s.io/yaml into a Go struct: keys matched case-insensitively,
#: numbers and booleans as text, Go's errors for other types).
SIMPLE_HEAD = gostruct.GoStruct("releaseutil.SimpleHead", {
    "apiVersion": gostruct.STRING, "kind": gostruct.STRING,
    "metadata": gostruct.GoStruct(
        'struct { Name string "json:\\"name\\""; Annotations map[string]string "json:\\"annotations\\"" }',
        {"name": gostruct.STRING, "annotations": gostruct.STRING_MAP}),
})
_HEAD_FIELDS = ("apiVersion", "kind", "metadata")
_METADATA_FIELDS = ("name", "annotations")
_FOLDED: dict[tuple[str, ...], frozenset[str]] = {
    names: frozenset(name.casefold() for name in names) for names in (_HEAD_FIELDS, _METADATA_FIELDS)}


@record
class Manifest:
    """One rendered document: its source template, text and parsed object."""

    source: str
    content: str
    obj: dict[str, Any] = field(default_factory=dict)
    #: The document's :data:`SIMPLE_HEAD` fields (:func:`simple_head`), read when first asked.
    head: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def simple_head(self) -> dict[str, Any]:
        if self.head is None:
            self.head = simple_head(self.content, self.obj)
        return self.head

    @property
    def kind(self) -> str:
        kind: str = self.simple_head().get("kind", "")
        return kind

    @property
    def name(self) -> str:
        name: str = self.simple_head().get("metadata", {}).get("name", "")
        return name

    @property
    def annotations(self) -> dict[str, str]:
        annotations: dict[str, str] = self.simple_head().get("metadata", {}).get("annotations", {})
        return annotations


@record
class Hook:
    """A document annotated as a Helm hook."""

    manifest: Manifest
    events: list[str]
    weight: int
    delete_policies: list[str]
    output_log_policies: list[str]

    @property
    def kind(self) -> str:
        return self.manifest.kind

    @property
    def name(self) -> str:
        return self.manifest.name


@record
class SortedManifests:
    hooks: list[Hook]
    manifests: list[Manifest]
    #: Hook annotations Helm did not recognise; Helm skips those documents with an info line.
    skipped: list[str] = field(default_factory=list)


def split_documents(text: str) -> list[str]:
    """Helm's ``SplitManifests``: trimmed non-empty documents in order."""
    return [gounicode.trim_space(doc) for doc in _separated(gounicode.trim_space(text)) if doc]


def _separated(text: str) -> list[str]:
    """``text`` split at releaseutil's separator ``(?:^|\\s*\\n)---\\s*`` (Go's ASCII ``\\s``), found
    by string methods (the pattern, tried at every character, took ~30 ns a character): a match
    is ``---`` at the start or after a line break, with the spaces before that break (from the
    last match's end) and all the spaces after it."""
    pieces = []
    start = 0
    if text.startswith("---"):
        pieces.append("")
        start = _spaces_end(text, 3)
    while (dashes := text.find("\n---", start)) >= 0:
        before = dashes
        while before > start and text[before - 1] in _GO_SPACES:
            before -= 1
        pieces.append(text[start:before])
        start = _spaces_end(text, dashes + 4)
    pieces.append(text[start:])
    return pieces


def _spaces_end(text: str, pos: int) -> int:
    end = len(text)
    while pos < end and text[pos] in _GO_SPACES:
        pos += 1
    return pos


def _is_partial(path: str) -> bool:
    return path.rsplit("/", 1)[-1].startswith("_")


def parse_documents(files: Mapping[str, str], *,
                    known: Mapping[str, tuple[str, list[Manifest]]] | None = None) -> list[Manifest]:
    """Split every rendered file (sorted by path; ``_*`` partials and blank files skipped).

    ``known``: by path, a text and its documents parsed before (the CLI's memo), taken when the
    file holds that text. Documents are decoded through the disk memo, if any: a text made at
    random is found there by no later run, but only the first of identical CLI runs writes it
    (:func:`helm_core.cli.rendered.repeating`), and the texts the same every time after one
    that was not (redis renders its Services again for the password its StatefulSet drew) are
    read back instead of decoded again. A ``ManifestError``
    carries the rendered files (``rendered``), as helm shows them with --debug.
    """
    try:
        return _parse_documents(files, known)
    except ManifestError as exc:
        exc.rendered = "".join(f"---\n# Source: {path}\n{files[path]}\n" for path in sorted(files)
                               if files[path].strip())
        raise


def _parse_documents(files: Mapping[str, str],
                     known: Mapping[str, tuple[str, list[Manifest]]] | None) -> list[Manifest]:
    out: list[Manifest] = []
    for path in sorted(files):
        content = files[path]
        if _is_partial(path) or not content.strip():
            continue
        if known and path in known and known[path][0] == content:
            out.extend(known[path][1])
            continue
        for doc in split_documents(content):
            try:
                obj = goyaml.load(doc, source=path)
            except ValueError as exc:
                if not _is_utf8(doc):
                    # Bytes of a binary file that are not UTF-8: yaml.v2's reader names the first bad one.
                    problem = goyaml_rules.utf8_problem(doc.encode("utf-8", "surrogateescape"))
                    raise ManifestError(
                        f"YAML parse error on {path}: error converting YAML to JSON: yaml: {problem}"
                    ) from None
                raise ManifestError(f"YAML parse error on {exc}") from None
            try:
                head = simple_head(doc, obj)
            except ValueError as exc:
                raise ManifestError(f"YAML parse error on {path}: {exc}") from None
            out.append(Manifest(source=path, content=doc, obj=obj if isinstance(obj, dict) else {}, head=head))
    return out


def simple_head(content: str, obj: Any) -> dict[str, Any]:
    """The document's :data:`SIMPLE_HEAD` as Helm reads it (``gostruct.unmarshal``'s form: the
    fields present and not null); ``obj`` is ``content`` decoded by ``goyaml.load``.

    Read from ``obj`` when its head is text under the fields' own names (every usual document),
    else from ``content`` as Helm decodes it into the struct; raises :class:`ValueError` with
    sigs.k8s.io/yaml's message (a document that is not a map, a list as ``kind``...).
    """
    head = _plain_head(obj)
    if head is not None:
        return head
    try:
        return gostruct.unmarshal(goyaml.decode_uncached(content, json_step=False), SIMPLE_HEAD)
    except (gostruct.MarshalError, gostruct.UnmarshalError) as exc:
        raise ValueError(gostruct.error_text(exc)) from None


def _plain_head(obj: Any) -> dict[str, Any] | None:
    """:func:`simple_head` of a decoded document whose head fields (if any) are spelled as Go's
    struct names them, with text or null values; None for any other document."""
    if obj is None:
        return {}
    if not isinstance(obj, dict) or not _exact_names(obj, _HEAD_FIELDS):
        return None
    head: dict[str, Any] = {}
    for key in ("apiVersion", "kind"):
        value = obj.get(key)
        if value is not None:
            if not isinstance(value, str):
                return None
            head[key] = value
    meta = obj.get("metadata")
    if meta is None:
        return head
    if not isinstance(meta, dict) or not _exact_names(meta, _METADATA_FIELDS):
        return None
    metadata: dict[str, Any] = {}
    name = meta.get("name")
    if name is not None:
        if not isinstance(name, str):
            return None
        metadata["name"] = name
    annotations = meta.get("annotations")
    if annotations is not None:
        if not isinstance(annotations, dict) or not all(isinstance(v, str) for v in annotations.values()):
            return None
        metadata["annotations"] = dict(annotations)
    head["metadata"] = metadata
    return head


def _exact_names(doc: dict[str, Any], names: tuple[str, ...]) -> bool:
    """Whether no key of ``doc`` matches one of a struct's field ``names`` other than exactly
    (encoding/json matches them case-insensitively, Unicode folding included)."""
    folded = _FOLDED[names]
    return not any(key not in names and key.casefold() in folded for key in doc)


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _hook_weight(annotations: Mapping[str, str]) -> int:
    """helm's ``calculateHookWeight``: ``strconv.Atoi`` of the annotation (an optional sign and
    ASCII digits, no spaces, within int64), else 0."""
    text = annotations.get(HOOK_WEIGHT_ANNOTATION, "")
    if not text:
        return 0
    from helm_core.gotemplate.funcs import conversion

    try:
        return conversion.parse_int(text, 10)
    except conversion.ParseError:
        return 0


def _annotation_list(annotations: Mapping[str, str], key: str) -> list[str]:
    if key not in annotations:
        return []
    return [part.strip().lower() for part in annotations[key].split(",")]


def sort_manifests(documents: Iterable[Manifest]) -> SortedManifests:
    """Separate hooks from resources and sort both by kind (install order)."""
    hooks: list[Hook] = []
    generic: list[Manifest] = []
    skipped: list[str] = []
    for m in documents:
        ann = m.annotations
        if HOOK_ANNOTATION not in ann:
            generic.append(m)
            continue
        events = []
        unknown = False
        for part in ann[HOOK_ANNOTATION].split(","):
            event = HOOK_EVENTS.get(part.strip().lower())
            if event is None:
                unknown = True
                break
            events.append(event)
        if unknown:
            skipped.append(f"{m.source}: skipping unknown hook: {ann[HOOK_ANNOTATION]!r}")
            continue
        hooks.append(Hook(
            manifest=m,
            events=events,
            weight=_hook_weight(ann),
            delete_policies=_annotation_list(ann, HOOK_DELETE_ANNOTATION),
            output_log_policies=_annotation_list(ann, HOOK_OUTPUT_LOG_ANNOTATION),
        ))
    return SortedManifests(
        hooks=sort_by_kind(hooks, INSTALL_ORDER),
        manifests=sort_by_kind(generic, INSTALL_ORDER),
        skipped=skipped,
    )


def kind_sort_key(kind: str, order: tuple[str, ...]) -> tuple[int, str]:
    """Known kinds by their rank, unknown kinds after them in name order."""
    try:
        return (order.index(kind), "")
    except ValueError:
        return (len(order), kind)


def sort_by_kind(items: list[Any], order: tuple[str, ...]) -> list[Any]:
    """A stable sort of manifests or hooks by ``.kind`` in ``order``."""
    return sorted(items, key=lambda item: kind_sort_key(item.kind, order))


def parse_stored_hooks(text: str) -> list[Hook]:
    """Hooks stored in ``format_documents`` form (a version's ``hooks``), in stored order."""
    return sort_manifests(parse_stored_documents(text, source="hooks")).hooks


def parse_stored_documents(text: str, *, source: str = "manifest") -> list[Manifest]:
    """The documents of a text in ``format_documents`` form, with their ``# Source:`` paths
    (``source`` for a document without one), in stored order; empty documents left out."""
    documents = []
    for doc in split_documents(text):
        first, _, rest = doc.partition("\n")
        where, content = (first[len(_SOURCE_PREFIX):], rest) if first.startswith(_SOURCE_PREFIX) \
            else (source, doc)
        obj = goyaml.load(content, source=where)
        if isinstance(obj, dict) and obj:
            documents.append(Manifest(source=where, content=content, obj=obj))
    return documents


_SOURCE_PREFIX = "# Source: "


def format_documents(manifests: Iterable[Manifest]) -> str:
    """The manifest text Helm stores and prints: ``---\\n# Source: path\\n<doc>\\n`` each."""
    return "".join(f"---\n# Source: {m.source}\n{m.content}\n" for m in manifests)
