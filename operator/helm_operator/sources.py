"""What a HelmRequest points at: its chart reference and its values, read from the cluster.

The reads go through a :data:`Reader` the caller gives (the handlers read as the request's
service account), so these functions are pure over their inputs and tested without a cluster.

Values rules (Flux HelmRelease ``valuesFrom``, then ``values``):
- ``valuesFrom`` entries merge in order, later wins, maps deep (helm ``-f a -f b``);
  ``spec.values`` merges last and wins;
- an entry reads ``valuesKey`` (default ``values.yaml``) of a ConfigMap (``data`` or
  ``binaryData``) or Secret; without ``targetPath`` the text must be a YAML map, read as
  ``helm -f`` reads a file (:func:`helm_core.golib.goyaml.load_values`: numbers float64, dates strings);
- ``spec.values`` is typed as Go decodes its JSON (:func:`helm_core.golib.gojson.load_values`), as
  Flux does: ``replicas: 3`` is the same float64 in both places;
- with ``targetPath`` the key's whole text becomes the string at that path (``a.b[0]``, helm
  ``--set-literal`` syntax for the path);
- ``optional: true`` skips a missing object or key; a missing required one is an error naming it
  (:class:`helm_operator.errors.ValuesFromError`, as is a key that is no values: retried);
- the digest (``sha256:`` of the canonical JSON of the merged values) is recorded in status:
  a changed ConfigMap/Secret changes the digest, and a changed digest means upgrade.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from helm_core import errors
from helm_core import sources as core_sources
from helm_core.chart import strvals
from helm_core.chart import values as values_mod
from helm_core.golib import gojson, goyaml
from helm_core.sources import auth, oci, packaged
from helm_core.support.records import record
from helm_operator.errors import ValuesFromError

#: ``reader(kind, name)`` -> the object (ConfigMap or Secret, as the API returns it) or None
#: when it does not exist; reads are in the request's namespace.
Reader = Callable[[str, str], Mapping[str, Any] | None]

DEFAULT_VALUES_KEY = "values.yaml"
#: Largest values text accepted from one key (bytes); a ConfigMap holds at most 1 MiB anyway.
MAX_VALUES_BYTES = 1024 * 1024


@record(frozen=True)
class ResolvedValues:
    """The merged user values of a request and what they were made from."""

    values: dict[str, Any]
    digest: str
    """``sha256:<hex>`` of the canonical JSON of ``values``."""
    references: tuple[tuple[str, str], ...]
    """(kind, name) of every ConfigMap/Secret read, found or not, in spec order."""


def resolve_values(spec: Mapping[str, Any], *, read: Reader) -> ResolvedValues:
    """Merge ``spec.valuesFrom`` (in order) and ``spec.values`` (last, wins)."""
    layers: list[dict[str, Any]] = []
    refs: list[tuple[str, str]] = []
    for index, entry in enumerate(spec.get("valuesFrom") or []):
        kind, name = entry.get("kind", ""), entry.get("name", "")
        key = entry.get("valuesKey") or DEFAULT_VALUES_KEY
        where = f"valuesFrom[{index}] ({kind} {name}, key {key})"
        refs.append((kind, name))
        if kind not in ("ConfigMap", "Secret"):
            raise errors.ValuesError(f"{where}: kind must be ConfigMap or Secret")
        try:
            text = _read_key(read, kind=kind, name=name, key=key, where=where)
            if text is None:
                if entry.get("optional"):
                    continue
                raise errors.ValuesError(f"{where}: not found (set optional: true to skip it)")
            layers.append(_layer(text, target_path=entry.get("targetPath") or "", key=key, where=where))
        except errors.ValuesError as exc:  # the object's to fix, not the request's: retried
            raise ValuesFromError(str(exc)) from None
    layers.append(gojson.load_values(spec.get("values"), context="spec.values"))
    merged = values_mod.merge_user_values(layers)
    return ResolvedValues(values=merged, digest=values_digest(merged), references=tuple(refs))


def values_digest(values: Mapping[str, Any]) -> str:
    """``sha256:`` of the values as Go's ``json.Marshal`` writes them (sorted keys, float64
    ``3`` as ``3``); stable across key order, different for any change of a key or value."""
    text = gojson.dumps(values)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read_key(read: Reader, *, kind: str, name: str, key: str, where: str) -> str | None:
    obj = read(kind, name)
    if obj is None:
        return None
    if kind == "ConfigMap":
        data = obj.get("data") or {}
        if key in data:
            return str(data[key])
        raw = (obj.get("binaryData") or {}).get(key)
    else:
        raw = (obj.get("data") or {}).get(key)
    if raw is None:
        return None
    try:
        blob = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise errors.ValuesError(f"{where}: value is not valid base64") from None
    if len(blob) > MAX_VALUES_BYTES:
        raise errors.ValuesError(f"{where}: {len(blob)} bytes exceed the {MAX_VALUES_BYTES} byte limit")
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.ValuesError(f"{where}: value is not UTF-8 text") from None


def _layer(text: str, *, target_path: str, key: str, where: str) -> dict[str, Any]:
    if target_path:
        try:
            return strvals.parse_set_literal(f"{target_path}={text}")
        except errors.ValuesError as exc:
            raise errors.ValuesError(f"{where}: targetPath {target_path!r}: {exc}") from None
    return goyaml.load_values(text, context=f"{where}: failed to parse {key}")


#: ``shared(spec.chart.repositoryRef)`` -> the chart reference and credentials a shared
#: HelmRepository gives (:func:`helm_operator.repositories.chart_ref`).
SharedRepository = Callable[[Mapping[str, Any]], tuple[core_sources.ChartRef, core_sources.Credentials]]


def chart_ref(spec: Mapping[str, Any], *, namespace: str, read: Reader,
              shared: SharedRepository | None = None
              ) -> tuple[core_sources.ChartRef, core_sources.Credentials]:
    """The helm_core chart reference and credentials for ``spec.chart``.

    Packaged charts are read here (ConfigMap ``binaryData``/Secret ``data`` key, or the only
    ``.tgz`` key); repository and OCI credentials come from their ``secretRef`` (the keys
    :func:`helm_core.sources.auth.from_secret` reads). A missing packaged-chart object is a
    plain SourceError (Stalled, retried at the interval): it belongs to the request's own
    namespace, unlike a chart not yet pushed to a repository (ChartNotFoundError, Reconciling)."""
    chart = spec.get("chart") or {}
    present = [k for k in ("configMapRef", "secretRef", "repository", "repositoryRef", "oci")
               if chart.get(k)]
    if len(present) != 1:
        raise errors.SourceError(
            "spec.chart: exactly one chart source: configMapRef, secretRef, repository, "
            f"repositoryRef or oci (found {', '.join(present) or 'none'})")
    kind = present[0]
    ref = chart[kind]
    if kind == "repositoryRef":
        if shared is None:
            raise errors.SourceError("spec.chart.repositoryRef: no HelmRepository is served here")
        return shared(ref)
    if kind in ("configMapRef", "secretRef"):
        obj_kind = "ConfigMap" if kind == "configMapRef" else "Secret"
        key = ref.get("key") or ""
        description = f"{obj_kind.lower()}/{namespace}/{ref['name']}" + (f"[{key}]" if key else "")
        obj = read(obj_kind, ref["name"])
        if obj is None:
            raise errors.SourceError(f"{description}: not found")
        blobs = packaged.from_secret_data(
            (obj.get("binaryData") if obj_kind == "ConfigMap" else obj.get("data")) or {})
        data = packaged.pick_key(blobs, key, source=description)
        return (core_sources.ChartRef(kind="packaged", data=data, description=description),
                core_sources.Credentials())
    host = oci.Reference.parse(ref["url"]).registry if kind == "oci" else ""
    credentials = credentials_from(ref.get("secretRef"), namespace=namespace, read=read, registry=host)
    if kind == "repository":
        return (core_sources.ChartRef(kind="repo", url=ref["url"], name=ref["name"],
                                      version=ref.get("version") or ""), credentials)
    return (core_sources.ChartRef(kind="oci", url=ref["url"], version=ref.get("version") or "",
                                  digest=ref.get("digest") or ""), credentials)


def credentials_from(secret_ref: Mapping[str, Any] | None, *, namespace: str, read: Reader,
                     registry: str) -> core_sources.Credentials:
    """The credentials in the Secret ``secret_ref`` names (read through ``read``); none
    without a reference, AuthError when the Secret is missing."""
    if not secret_ref:
        return core_sources.Credentials()
    name = secret_ref["name"]
    obj = read("Secret", name)
    if obj is None:
        raise errors.AuthError(f"secret/{namespace}/{name}: credentials secret not found")
    return auth.from_secret(packaged.from_secret_data(obj.get("data") or {}), registry=registry)
