"""Patches of Kubernetes objects as kustomize applies them: strategic merge, JSON 6902 and
object selection (kind/name regexes, label and annotation selectors).

Strategic merge (``apply_strategic``), the rules kustomize's kyaml ``merge2`` follows:
- maps merge key by key; a ``null`` value deletes the key; ``$patch: replace`` in a map
  replaces it whole, ``$patch: delete`` removes it;
- lists of maps merge by their merge key where Kubernetes declares one for the built-in kinds
  (``containers``/``initContainers``/``ephemeralContainers``/``volumes``/``env``/
  ``imagePullSecrets``/``resourceClaims``/``schedulingGates`` by ``name``; ``volumeMounts`` by
  ``mountPath``; ``volumeDevices`` by ``devicePath``; container ``ports`` by ``containerPort``;
  a Service's ``spec.ports`` by ``port``; ``hostAliases`` by ``ip``;
  ``topologySpreadConstraints`` by ``topologyKey``; ``conditions`` by ``type``;
  ``ownerReferences`` by ``uid``); elsewhere (custom resources too) a list of maps whose every
  element, in the object and in the patch, has one of ``mountPath``, ``devicePath``, ``ip``,
  ``type``, ``topologyKey``, ``name``, ``containerPort`` merges by the first such key (kyaml's
  associative-list rule); any other list is replaced whole;
- in a merged list an element ``{$patch: delete, <key>: v}`` removes the element with that key,
  an element ``{$patch: replace}`` makes the patch's elements the whole list, new elements are
  appended in patch order; ``metadata.finalizers`` merges as a set;
- ``$deleteFromPrimitiveList/<field>: [...]`` removes those values from a list of scalars;
  ``$setElementOrder/<field>`` and ``$retainKeys`` are accepted and ignored (order is the
  object's, then the patch's new elements).
Not supported: ``$patch: merge`` lists of scalars keyed by value other than finalizers, and
the ``x-kubernetes-list-map-keys`` of CRD schemas (a CRD's lists follow the rule above).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from helm_core.errors import PatchError
from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Merge keys of the built-in kinds' lists, by field name (``ports`` depends on where it is).
MERGE_KEYS: dict[str, str] = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
    "volumes": "name", "env": "name", "imagePullSecrets": "name", "resourceClaims": "name",
    "schedulingGates": "name", "volumeMounts": "mountPath", "volumeDevices": "devicePath",
    "hostAliases": "ip", "topologySpreadConstraints": "topologyKey", "conditions": "type",
    "ownerReferences": "uid", "resizePolicy": "resourceName",
}
#: kyaml's associative keys: a list whose every element has one of them merges by it.
ASSOCIATIVE_KEYS = ("mountPath", "devicePath", "ip", "type", "topologyKey", "name", "containerPort")
_CONTAINER_LISTS = frozenset({"containers", "initContainers", "ephemeralContainers"})
#: API groups whose kinds follow the Kubernetes merge keys above.
BUILTIN_GROUPS = frozenset({"", "apps", "batch", "policy", "autoscaling", "networking.k8s.io",
                            "rbac.authorization.k8s.io", "storage.k8s.io", "scheduling.k8s.io",
                            "coordination.k8s.io", "discovery.k8s.io", "node.k8s.io"})


def group_of(obj: Mapping[str, Any]) -> str:
    api_version = str(obj.get("apiVersion") or "")
    return api_version.rpartition("/")[0]


def version_of(obj: Mapping[str, Any]) -> str:
    return str(obj.get("apiVersion") or "").rpartition("/")[2]


def _merge_key(path: tuple[str, ...], *, kind: str, builtin: bool,
               orig: Sequence[Any], patch: Sequence[Any]) -> str | None:
    field = path[-1]
    if builtin:
        if field == "ports":
            if len(path) >= 2 and path[-2] in _CONTAINER_LISTS:
                return "containerPort"
            if kind == "Service" and path == ("spec", "ports"):
                return "port"
        elif field in MERGE_KEYS:
            return MERGE_KEYS[field]
    items = [x for x in [*orig, *patch] if not (isinstance(x, Mapping) and x.get("$patch"))]
    if not items or not all(isinstance(x, Mapping) for x in items):
        return None
    for key in ASSOCIATIVE_KEYS:
        if all(key in x for x in items):
            return key
    return None


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars): several times faster than
    ``copy.deepcopy``, which post-rendering a large release would spend most of its time in."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


def _strip(value: Any) -> Any:
    """``value`` without patch directives (``$patch``, ``$setElementOrder/...``)."""
    if isinstance(value, Mapping):
        return {k: _strip(v) for k, v in value.items() if not str(k).startswith("$")}
    if isinstance(value, list):
        return [_strip(v) for v in value if not (isinstance(v, Mapping) and v.get("$patch") == "replace"
                                                 and len(v) == 1)]
    return value


class _Merge:
    def __init__(self, kind: str, builtin: bool, where: str) -> None:
        self.kind, self.builtin, self.where = kind, builtin, where

    def map(self, orig: Mapping[str, Any], patch: Mapping[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
        directive = patch.get("$patch")
        if directive == "replace":
            return _strip(patch)  # type: ignore[no-any-return]
        if directive not in (None, "merge"):
            raise PatchError(f"{self.where}: unknown $patch {directive!r} at {_dotted(path)}")
        out = dict(orig)
        for key, value in patch.items():
            if str(key).startswith("$"):
                continue
            here = (*path, str(key))
            if value is None:
                out.pop(key, None)
            elif isinstance(value, Mapping):
                if value.get("$patch") == "delete":
                    out.pop(key, None)
                else:
                    current = out.get(key)
                    out[key] = self.map(current if isinstance(current, Mapping) else {}, value, here)
            elif isinstance(value, list):
                current = out.get(key)
                out[key] = self.list(current if isinstance(current, list) else [], value, here)
            else:
                out[key] = value
        for key, value in patch.items():
            if str(key).startswith("$deleteFromPrimitiveList/"):
                field = str(key).split("/", 1)[1]
                if isinstance(out.get(field), list) and isinstance(value, list):
                    out[field] = [x for x in out[field] if x not in value]
        return out

    def list(self, orig: list[Any], patch: list[Any], path: tuple[str, ...]) -> list[Any]:
        if path == ("metadata", "finalizers"):
            return [*orig, *(x for x in patch if x not in orig)]
        key = _merge_key(path, kind=self.kind, builtin=self.builtin, orig=orig, patch=patch)
        if key is None:
            return _strip(patch)  # type: ignore[no-any-return]
        if any(isinstance(x, Mapping) and x.get("$patch") == "replace" for x in patch):
            return _strip([x for x in patch if not (isinstance(x, Mapping) and x.get("$patch"))])  # type: ignore[no-any-return]
        out = list(orig)  # elements are replaced, never changed in place
        for item in patch:
            if not isinstance(item, Mapping):
                raise PatchError(f"{self.where}: {_dotted(path)}: an element of a list merged by "
                                 f"{key!r} is not a map: {item!r}")
            if key not in item:
                raise PatchError(f"{self.where}: {_dotted(path)}: an element lacks the merge key {key!r}")
            at = next((i for i, x in enumerate(out) if isinstance(x, Mapping) and x.get(key) == item[key]), None)
            if item.get("$patch") == "delete":
                out = [x for x in out if not (isinstance(x, Mapping) and x.get(key) == item[key])]
            elif at is None:
                out.append(_strip(item))
            else:
                out[at] = self.map(out[at], item, path)
        return out


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path) or "<root>"


def apply_strategic(obj: Mapping[str, Any], patch: Mapping[str, Any], *, where: str = "patch") -> dict[str, Any]:
    """``obj`` with the strategic merge ``patch`` applied (module rules); inputs unchanged (the
    result shares the parts the patch does not touch with them: change neither in place)."""
    merge = _Merge(str(obj.get("kind") or ""), group_of(obj) in BUILTIN_GROUPS, where)
    return merge.map(obj, patch, ())


class Json6902:
    """RFC 6902 ``operations`` checked once, applied to many objects."""

    def __init__(self, operations: Sequence[Mapping[str, Any]], *, where: str = "patch") -> None:
        for i, op in enumerate(operations):
            if not isinstance(op, Mapping) or "op" not in op or "path" not in op:
                raise PatchError(f"{where}: operation {i} needs 'op' and 'path': {op!r}")
        import jsonpatch  # only requests with JSON 6902 patches pay for its import (the CLI's start-up)
        import jsonpointer

        try:
            self._patch = jsonpatch.JsonPatch(json_copy([dict(op) for op in operations]))
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
            raise PatchError(f"{where}: {exc}") from None

    def apply(self, obj: Mapping[str, Any], *, where: str = "patch") -> dict[str, Any]:
        """``obj`` with the operations applied; a failing one (a ``test`` that does not hold,
        a path that does not exist) is a ``PatchError`` naming ``where``."""
        import jsonpatch
        import jsonpointer

        try:
            return self._patch.apply(json_copy(obj), in_place=True)  # type: ignore[no-any-return]
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, TypeError, KeyError) as exc:
            raise PatchError(f"{where}: {exc}") from None


def apply_json6902(obj: Mapping[str, Any], operations: Sequence[Mapping[str, Any]], *,
                   where: str = "patch") -> dict[str, Any]:
    """``obj`` with the RFC 6902 ``operations`` applied (see :class:`Json6902`)."""
    return Json6902(operations, where=where).apply(obj, where=where)


# -- selection ------------------------------------------------------------------------------

#: A target's fields in Flux's (kustomize's) spelling, and the Selector's names for them.
TARGET_FIELDS = {"group": "group", "version": "version", "kind": "kind", "name": "name",
                 "namespace": "namespace", "labelSelector": "label_selector",
                 "annotationSelector": "annotation_selector"}


def selector_from_spec(target: Mapping[str, Any], where: str) -> Selector:
    """A ``target`` map as Flux writes it (post-renderer patches, drift ignore rules); a field
    that is unknown or not a string is a ``PatchError`` naming ``where``."""
    unknown = set(target) - set(TARGET_FIELDS)
    if unknown:
        raise PatchError(f"{where}: unknown field(s) {', '.join(sorted(map(str, unknown)))}")
    fields: dict[str, str] = {}
    for key, value in target.items():
        if not isinstance(value, str):
            raise PatchError(f"{where}.{key}: must be a string")
        fields[TARGET_FIELDS[key]] = value
    return Selector(**fields)


@record(frozen=True)
class Selector:
    """Which objects a patch targets (kustomize's ``Selector``): group, version, kind, name and
    namespace are regular expressions matched whole (empty matches any); ``label_selector`` and
    ``annotation_selector`` are Kubernetes label selectors over labels and annotations."""

    group: str = ""
    version: str = ""
    kind: str = ""
    name: str = ""
    namespace: str = ""
    label_selector: str = ""
    annotation_selector: str = ""

    def matches(self, obj: Mapping[str, Any], *, default_namespace: str = "") -> bool:
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        assert isinstance(meta, Mapping)
        checks = ((self.group, group_of(obj)), (self.version, version_of(obj)),
                  (self.kind, str(obj.get("kind") or "")), (self.name, str(meta.get("name") or "")),
                  (self.namespace, str(meta.get("namespace") or default_namespace)))
        for pattern, value in checks:
            if pattern and not _full_match(pattern, value):
                return False
        return (match_labels(self.label_selector, meta.get("labels") or {})
                and match_labels(self.annotation_selector, meta.get("annotations") or {}))


def _full_match(pattern: str, value: str) -> bool:
    """kustomize's anchored Go regexp: a request's pattern runs in linear time (RE2), never
    in Python's backtracking ``re``, where ``(a+)+$`` on an object's name could hold the
    controller for good."""
    from helm_core.golib import goregexp

    try:
        return goregexp.compile(f"^(?:{pattern})$").match_string(value)
    except goregexp.GoSyntaxError as exc:
        raise PatchError(f"target: invalid regular expression {pattern!r}: {exc}") from None


def match_labels(selector: str, labels: Mapping[str, Any]) -> bool:
    """True when ``labels`` satisfy the Kubernetes label ``selector`` (empty matches everything)."""
    from helm_core.golib import labels as selectors  # its grammar compiles at import: only selectors pay

    try:
        return selectors.matches(selector, labels)
    except ValueError as exc:
        raise PatchError(str(exc)) from None
