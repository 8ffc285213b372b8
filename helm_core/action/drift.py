"""The ``drift`` action: objects of a deployed version changed or deleted behind its back.

Detection reads each object of the stored manifest: a missing object is drift; a present one is
compared with a server-side apply dry run of the stored object (forced, so fields another
manager took over come back): if the dry run would change anything outside ``metadata`` and
``status``, the object drifted.
Correction server-side applies the drifted objects again, and only them, under the release
lock, exactly as the version stored them (Flux corrects drift the same way): no new version,
since what runs is again what the deployed version says. If another operation changed the
release meanwhile, nothing is applied.
Ignore rules (Flux's ``driftDetection.ignore``): the JSON pointers of a rule are left out of the
comparison for the objects its target selects (every object without one), and a correction
applies them as they are in the cluster (absent there: left out), so an ignored field (replicas
an autoscaler sets) is never reset, nor released to its default.
Hooks are not checked (Helm keeps them outside the manifest).
"""
from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from helm_core.action import config
from helm_core.errors import NotFoundError, PatchError
from helm_core.kube import client as kclient
from helm_core.kube import resources
from helm_core.storage import release as rel
from helm_core.support import jsonpointers
from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from helm_core.engine import patch as kpatch

_IGNORED = ("metadata", "status")


@record(frozen=True)
class IgnoreRule:
    """Flux's ``driftDetection.ignore[]``: JSON pointers (RFC 6901) not compared nor corrected,
    in the objects ``target`` selects (all when None)."""

    paths: tuple[str, ...]
    target: kpatch.Selector | None = None

    def covers(self, obj: Mapping[str, Any], namespace: str) -> bool:
        return self.target is None or self.target.matches(obj, default_namespace=namespace)


def ignore_rules(spec: Sequence[Any] | None) -> tuple[IgnoreRule, ...]:
    """Rules from Flux's shape (``[{paths: [...], target: {...}}]``); a wrong shape or a path that
    is not a JSON pointer is a ``PatchError`` naming it."""
    from helm_core.engine import patch as kpatch

    rules = []
    for i, item in enumerate(spec or ()):
        where = f"driftDetection.ignore[{i}]"
        paths = item.get("paths") if isinstance(item, Mapping) else None
        if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
            raise PatchError(f"{where}.paths: a list of JSON pointers is required")
        for path in paths:
            _tokens(path, f"{where}.paths")
        target = item.get("target")
        if target is not None and not isinstance(target, Mapping):
            raise PatchError(f"{where}.target: must be a map")
        rules.append(IgnoreRule(tuple(paths), kpatch.selector_from_spec(target, f"{where}.target")
                                if target else None))
    return tuple(rules)


@record(frozen=True)
class Drifted:
    """One drifted object: what to say, and the stored object that puts it right."""

    line: str
    """``ConfigMap "x" in namespace "y": deleted`` (or ``changed (data)``)."""
    stored: dict[str, Any]
    """The object as the deployed version stored it, resolved."""


def detect(cfg: config.Configuration, version: rel.ReleaseVersion,
           ignore: Sequence[IgnoreRule] = ()) -> list[Drifted]:
    """Every drifted object of ``version``, in manifest order (``ignore``: module rules)."""
    found: list[Drifted] = []
    objects = config.resolve_stored(cfg, config.parse_manifest(version.manifest), version.namespace)
    for obj in objects:
        ref = kclient.ObjectRef.of(obj)
        paths = [p for rule in ignore if rule.covers(obj, version.namespace) for p in rule.paths]
        try:
            live = cfg.client.get(ref)
        except NotFoundError:
            found.append(Drifted(f"{ref}: deleted", obj))
            continue
        desired = _content(cfg.client.apply(obj, force=True, dry_run=True), paths)
        current = _content(live, paths)
        if desired != current:
            changed = sorted(k for k in set(desired) | set(current) if desired.get(k) != current.get(k))
            found.append(Drifted(f"{ref}: changed ({', '.join(changed)})", _as_live(obj, live, paths)))
    return found


def correct(cfg: config.Configuration, version: rel.ReleaseVersion, found: Sequence[Drifted]) -> bool:
    """Apply the drifted objects of ``version`` again (module rules); False when ``version``
    is no longer the deployed head of the release, and nothing was applied."""
    with config.locked(cfg, namespace=version.namespace, name=version.name,
                       operation="drift-correction") as history:
        head = rel.latest(history)
        if head is None or head.version != version.version or head.status is not rel.Status.DEPLOYED:
            return False
        owner = config.owner(cfg, namespace=version.namespace, name=version.name)
        config.apply_batched(cfg, [d.stored for d in found], owner)
    return True


def refusals(exc: BaseException) -> list[str]:
    """The errors of a failed :func:`correct`, one per object refused (an apply joins them as
    helm does, ``resources.joined``)."""
    return str(exc).split(resources.JOINER)


def _content(obj: Mapping[str, Any], ignored_paths: Sequence[str] = ()) -> dict[str, Any]:
    content = {k: v for k, v in obj.items() if k not in _IGNORED}
    if not ignored_paths:
        return content
    content = copy.deepcopy(content)
    for path in ignored_paths:
        _remove(content, _tokens(path, "path"))
    return content


def _as_live(stored: dict[str, Any], live: Mapping[str, Any], paths: Sequence[str]) -> dict[str, Any]:
    """``stored`` with each ignored path as ``live`` has it (absent there: left out)."""
    if not paths:
        return stored
    out = copy.deepcopy(stored)
    for path in paths:
        tokens = _tokens(path, "path")
        found, value = jsonpointers.get(live, tokens)
        if found:
            _set(out, tokens, copy.deepcopy(value))
        else:
            _remove(out, tokens)
    return out


def _tokens(pointer: str, where: str) -> list[str]:
    """RFC 6901: "" is the whole document, else "/"-separated tokens with ~1 and ~0 unescaped."""
    if pointer == "":
        raise PatchError(f"{where}: {pointer!r} would ignore the whole object")
    if not pointer.startswith("/"):
        raise PatchError(f"{where}: {pointer!r} is not a JSON pointer (it starts with /)")
    return jsonpointers.tokens(pointer)


def _remove(node: Any, tokens: Sequence[str]) -> None:
    found, parent = jsonpointers.get(node, tokens[:-1])
    if not found:
        return
    if isinstance(parent, dict):
        parent.pop(tokens[-1], None)
    elif isinstance(parent, list) and tokens[-1].isdigit() and int(tokens[-1]) < len(parent):
        del parent[int(tokens[-1])]


def _set(node: Any, tokens: Sequence[str], value: Any) -> None:
    """Set the value at ``tokens``, making the maps on the way that are missing."""
    for token in tokens[:-1]:
        found, child = jsonpointers.step(node, token)
        if not found or not isinstance(child, (dict, list)):
            if not isinstance(node, dict):
                return
            child = node[token] = {}
        node = child
    if isinstance(node, dict):
        node[tokens[-1]] = value
    elif isinstance(node, list) and tokens[-1].isdigit() and int(tokens[-1]) < len(node):
        node[int(tokens[-1])] = value
