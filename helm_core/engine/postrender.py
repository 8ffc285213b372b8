"""Post-renderers after chart Lua's ``post-render``: Flux's ``postRenderers`` (kustomize
``patches`` and ``images``) and ``commonMetadata``.

Rules (Flux's HelmRelease v2 with Helm 3's ``nohooks`` strategy):
- They change the release's objects, never its hooks nor the chart's ``crds/``, and the
  stored manifest is what they produce (so drift detection, upgrades and uninstall see it).
- Post-renderers run in the order given; within one, patches in order, then images. Common
  labels and annotations come last and win over a chart's own keys.
- A patch is JSON 6902 when its YAML is a list of operations (a target is then required), a
  strategic merge patch when it is a map (see :mod:`helm_core.engine.patch` for what merges how).
  A strategic merge patch without a target applies to the object its own apiVersion, kind,
  metadata.name (and namespace) name, which must exist; with a target, to every object it
  selects (none is no error), whatever name the patch carries. A strategic merge patch whose
  top level is ``$patch: delete`` removes the objects it applies to from the release.
- A target's namespace is matched against the object's namespace, or the release namespace
  for objects that name none (Helm installs them there).
- ``images`` set the ``image`` of every container, init container and ephemeral container
  whose image name (without tag or digest) equals ``name``: ``newName`` replaces the name,
  ``newTag`` the tag, ``digest`` the digest (``name:tag@digest`` when both are given).
- Patch text is read as Helm reads YAML (1.1 rules): quote ``yes``/``no``/``on``/``off``/
  ``y``/``n`` meant as strings (kustomize's YAML 1.2 reader keeps them strings).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from helm_core.engine import manifests as mf
from helm_core.errors import PatchError
from helm_core.golib import goyaml
from helm_core.support.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from helm_core.engine import patch as kpatch
# The patch engine (``kpatch``) is imported by the functions that parse or apply patches: a
# render without post-renderers never needs it (start-up time, bench/deferred.py).

@record(frozen=True)
class Patch:
    """One kustomize patch: ``patch`` is YAML (strategic merge map or JSON 6902 list)."""

    patch: str
    target: kpatch.Selector | None = None


@record(frozen=True)
class Image:
    """A kustomize image override."""

    name: str
    new_name: str = ""
    new_tag: str = ""
    digest: str = ""


@record(frozen=True)
class Kustomize:
    patches: tuple[Patch, ...] = ()
    images: tuple[Image, ...] = ()


@record(frozen=True)
class PostRenderOptions:
    """What runs after chart Lua's post-render; empty (the default) changes nothing."""

    kustomize: tuple[Kustomize, ...] = ()
    common_labels: Mapping[str, str] = field(default_factory=dict)
    common_annotations: Mapping[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.kustomize or self.common_labels or self.common_annotations)


NONE = PostRenderOptions()


def _strings(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise PatchError(f"{where}: must be a map of strings")
    return {str(k): v for k, v in value.items()}


def _text(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key, "")
    if not isinstance(value, str):
        raise PatchError(f"{where}.{key}: must be a string")
    return value


def from_spec(post_renderers: Sequence[Any] | None, common_metadata: Mapping[str, Any] | None
              ) -> PostRenderOptions:
    """Options from Flux's shapes: ``postRenderers: [{kustomize: {patches: [{target, patch}],
    images: [{name, newName, newTag, digest}]}}]`` and ``commonMetadata: {labels, annotations}``;
    a field of the wrong shape is a ``PatchError`` naming its path."""
    renderers = []
    for i, item in enumerate(post_renderers or ()):
        where = f"postRenderers[{i}]"
        if not isinstance(item, Mapping):
            raise PatchError(f"{where}: must be a map")
        k = item.get("kustomize") or {}
        if not isinstance(k, Mapping):
            raise PatchError(f"{where}.kustomize: must be a map")
        patches = []
        for j, p in enumerate(k.get("patches") or ()):
            pwhere = f"{where}.kustomize.patches[{j}]"
            if not isinstance(p, Mapping) or not _text(p, "patch", pwhere).strip():
                raise PatchError(f"{pwhere}.patch: required")
            target = p.get("target")
            if target is not None and not isinstance(target, Mapping):
                raise PatchError(f"{pwhere}.target: must be a map")
            selector = None
            if target:
                from helm_core.engine import patch as kpatch

                selector = kpatch.selector_from_spec(target, f"{pwhere}.target")
            patches.append(Patch(patch=str(p["patch"]), target=selector))
        images = []
        for j, img in enumerate(k.get("images") or ()):
            iwhere = f"{where}.kustomize.images[{j}]"
            if not isinstance(img, Mapping) or not _text(img, "name", iwhere):
                raise PatchError(f"{iwhere}.name: required")
            images.append(Image(name=img["name"], new_name=_text(img, "newName", iwhere),
                                new_tag=_text(img, "newTag", iwhere), digest=_text(img, "digest", iwhere)))
        renderers.append(Kustomize(patches=tuple(patches), images=tuple(images)))
    meta = common_metadata or {}
    if not isinstance(meta, Mapping):
        raise PatchError("commonMetadata: must be a map")
    return PostRenderOptions(kustomize=tuple(renderers),
                             common_labels=_strings(meta.get("labels"), "commonMetadata.labels"),
                             common_annotations=_strings(meta.get("annotations"), "commonMetadata.annotations"))


def run(objects: Sequence[Mapping[str, Any]], options: PostRenderOptions, *,
        namespace: str = "") -> list[dict[str, Any]]:
    """``objects`` after the post-renderers (module rules); inputs unchanged. ``namespace`` is
    the release namespace (for targets of objects that name none)."""
    return [obj for _, obj in _run_tagged(list(enumerate(objects)), options, namespace=namespace)]


_Tagged: TypeAlias = "list[tuple[int, Any]]"
"""Objects with the index they had before post-rendering (a ``$patch: delete`` drops some)."""


def _run_tagged(items: _Tagged, options: PostRenderOptions, *, namespace: str) -> _Tagged:
    out = [(tag, dict(o)) for tag, o in items]
    for r_index, renderer in enumerate(options.kustomize):
        for p_index, one in enumerate(renderer.patches):
            out = _apply_patch(out, one, where=f"postRenderers[{r_index}].kustomize.patches[{p_index}]",
                               namespace=namespace)
        for image in renderer.images:
            out = [(tag, _set_images(o, image)) for tag, o in out]
    if options.common_labels or options.common_annotations:
        out = [(tag, _with_metadata(o, options.common_labels, options.common_annotations)) for tag, o in out]
    return out


def run_manifests(manifests: Sequence[mf.Manifest], options: PostRenderOptions, *,
                  namespace: str = "") -> list[mf.Manifest]:
    """:func:`run` over rendered documents: an object left as it was keeps its rendered text,
    a changed one is written anew, a deleted one is gone; empty documents stay as they are."""
    if not options:
        return list(manifests)
    after = dict(_run_tagged([(i, m.obj) for i, m in enumerate(manifests) if m.obj], options,
                             namespace=namespace))
    out = []
    for i, m in enumerate(manifests):
        if not m.obj:
            out.append(m)
        elif i in after:
            new = after[i]
            out.append(m if new == m.obj else
                       mf.Manifest(source=m.source, content=goyaml.dump(new).rstrip("\n"), obj=new))
    return out


def _documents(text: str, where: str) -> list[Any]:
    try:
        docs = [goyaml.load(d, source=where) for d in mf.split_documents(text)]
    except ValueError as exc:
        raise PatchError(f"{where}: not valid YAML: {exc}") from None
    return [d for d in docs if d is not None]


def _apply_patch(objects: _Tagged, one: Patch, *, where: str, namespace: str) -> _Tagged:
    from helm_core.engine import patch as kpatch

    docs = _documents(one.patch, where)
    if len(docs) == 1 and isinstance(docs[0], list):
        if one.target is None:
            raise PatchError(f"{where}: a JSON 6902 patch needs a target")
        selector = one.target
        compiled = kpatch.Json6902(docs[0], where=where)
        return [(tag, compiled.apply(o, where=f"{where} on {_describe(o)}"))
                if selector.matches(o, default_namespace=namespace) else (tag, o) for tag, o in objects]
    for doc in docs:
        if not isinstance(doc, Mapping):
            raise PatchError(f"{where}: a patch is a map (strategic merge) or a list of "
                             f"operations (JSON 6902), not {type(doc).__name__}")
        if one.target is not None:
            selector = one.target
            body = {k: v for k, v in doc.items() if k not in ("apiVersion", "kind")}
            meta = {k: v for k, v in (doc.get("metadata") or {}).items() if k not in ("name", "namespace")}
            body = dict(body, metadata=meta) if meta else {k: v for k, v in body.items() if k != "metadata"}
        else:
            selector = _own_target(doc, where)
            body = dict(doc)
        hits = 0
        patched = []
        remove = doc.get("$patch") == "delete"
        for tag, o in objects:
            if selector.matches(o, default_namespace=namespace):
                hits += 1
                if remove:  # kustomize: a patch that is ``$patch: delete`` removes the object
                    continue
                o = kpatch.apply_strategic(o, body, where=f"{where} on {_describe(o)}")
            patched.append((tag, o))
        if one.target is None and not hits:
            raise PatchError(f"{where}: no object matches the patch's {selector.kind} {selector.name!r}")
        objects = patched
    return objects


def _own_target(doc: Mapping[str, Any], where: str) -> kpatch.Selector:
    """The object a strategic merge patch without target names itself."""
    from helm_core.engine import patch as kpatch

    meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
    assert isinstance(meta, Mapping)
    if not doc.get("kind") or not meta.get("name"):
        raise PatchError(f"{where}: a strategic merge patch without target needs kind and metadata.name")
    return kpatch.Selector(group=_exact(kpatch.group_of(doc)) if doc.get("apiVersion") else "",
                           version=_exact(kpatch.version_of(doc)) if doc.get("apiVersion") else "",
                           kind=_exact(str(doc["kind"])), name=_exact(str(meta["name"])),
                           namespace=_exact(str(meta["namespace"])) if meta.get("namespace") else "")


def _exact(text: str) -> str:
    from helm_core.golib import goregexp

    return goregexp.quote_meta(text)


def _describe(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{obj.get('kind', '?')}/{meta.get('name', '?') if isinstance(meta, Mapping) else '?'}"


# -- images --------------------------------------------------------------------------------

_CONTAINERS = ("containers", "initContainers", "ephemeralContainers")


def split_image(ref: str) -> tuple[str, str, str]:
    """``(name, tag, digest)`` of an image reference (a port in the registry is no tag)."""
    name, _, digest = ref.partition("@")
    slash, colon = name.rfind("/"), name.rfind(":")
    if colon > slash:
        return name[:colon], name[colon + 1:], digest
    return name, "", digest


def new_image(ref: str, image: Image) -> str:
    """``ref`` after ``image`` (unchanged when its name differs)."""
    name, tag, digest = split_image(ref)
    if name != image.name:
        return ref
    name = image.new_name or name
    if image.new_tag or image.digest:
        tag = image.new_tag
        digest = image.digest
    return name + (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")


def _set_images(value: Any, image: Image) -> Any:
    """``value`` with ``image`` applied; the very same object when nothing changed."""
    if isinstance(value, dict):
        out: dict[str, Any] | None = None
        for key, item in value.items():
            if key in _CONTAINERS and isinstance(item, list):
                new = [_set_container_image(c, image) for c in item]
                if any(a is not b for a, b in zip(new, item, strict=True)):
                    out = out if out is not None else dict(value)
                    out[key] = new
            elif isinstance(item, (dict, list)):
                new_item = _set_images(item, image)
                if new_item is not item:
                    out = out if out is not None else dict(value)
                    out[key] = new_item
        return value if out is None else out
    if isinstance(value, list):
        new_list = [_set_images(v, image) for v in value]
        return value if all(a is b for a, b in zip(new_list, value, strict=True)) else new_list
    return value


def _set_container_image(container: Any, image: Image) -> Any:
    if not isinstance(container, dict):
        return container
    ref = container.get("image")
    if isinstance(ref, str):
        new_ref = new_image(ref, image)
        if new_ref != ref:
            return dict(container, image=new_ref)
    return container


def _with_metadata(obj: Mapping[str, Any], labels: Mapping[str, str],
                   annotations: Mapping[str, str]) -> dict[str, Any]:
    meta = dict(obj.get("metadata") or {})
    if labels:
        meta["labels"] = {**(meta.get("labels") or {}), **labels}
    if annotations:
        meta["annotations"] = {**(meta.get("annotations") or {}), **annotations}
    return dict(obj, metadata=meta)
