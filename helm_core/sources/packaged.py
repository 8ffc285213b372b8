"""Packaged charts kept in the cluster: a ``.tgz`` in a ConfigMap ``binaryData`` or Secret key.

The chart is loaded through the archive-safe loader and named by its SHA-256, like every other
source. ``read_from_cluster`` reads the object through a ``ClusterClient`` (so as the request's
impersonated service account): a ConfigMap's ``binaryData`` or a Secret's ``data`` (both
base64 in the API), the key named or else the only ``*.tgz`` key.
"""
from __future__ import annotations

import base64
import binascii
import collections
import threading
from collections.abc import Mapping

from helm_core.chart import loader
from helm_core.errors import ChartNotFoundError, DigestMismatchError, SourceError
from helm_core.kube import client as kclient
from helm_core.sources import cache as cache_mod
from helm_core.support.records import record

KINDS = {"ConfigMap": "binaryData", "Secret": "data"}
"""Object kinds that may hold a packaged chart, and the field holding base64 values."""


@record(frozen=True)
class Packaged:
    data: bytes
    digest: str
    name: str
    version: str


LOADED_ARCHIVES = 256
"""Archives whose name and version :func:`load` keeps (by digest, in this process)."""
_loaded: collections.OrderedDict[str, tuple[str, str]] = collections.OrderedDict()
_loaded_lock = threading.Lock()


def load(data: bytes, *, source: str, expected_digest: str = "") -> Packaged:
    """Check and load a packaged chart; ``expected_digest`` (``sha256:``) pins its content.

    An archive that loaded once is not loaded again for its name and version (kept by digest):
    a controller reads the same chart for every request that names its ConfigMap, and its
    render workers load it anyway. A failure is not kept: the next call loads again."""
    digest = "sha256:" + cache_mod.sha256_hex(data)
    if expected_digest and expected_digest != digest:
        raise DigestMismatchError(f"{source}: digest mismatch: got {digest}, expected {expected_digest}")
    with _loaded_lock:
        known = _loaded.get(digest)
        if known is not None:
            _loaded.move_to_end(digest)
    if known is None:
        # Chart.yaml only: values, schemas and templates come from strangers and are decoded in
        # the render workers, under the render limits (the controller runs no chart code)
        metadata = loader.load_archive_metadata(data, source=source)
        known = (metadata.name, metadata.version)
        with _loaded_lock:
            _loaded[digest] = known
            while len(_loaded) > LOADED_ARCHIVES:
                _loaded.popitem(last=False)
    return Packaged(data=data, digest=digest, name=known[0], version=known[1])


def pick_key(data: Mapping[str, bytes], key: str, *, source: str) -> bytes:
    """The bytes under ``key`` (or the only ``.tgz`` key when ``key`` is empty)."""
    if key:
        if key not in data:
            raise ChartNotFoundError(f"{source}: no key {key!r} (keys: {', '.join(sorted(data)) or 'none'})")
        return data[key]
    archives = [k for k in data if k.endswith(".tgz")]
    if len(archives) != 1:
        raise SourceError(f"{source}: name the key holding the chart ({len(archives)} .tgz keys found)")
    return data[archives[0]]


def from_secret_data(data: Mapping[str, str]) -> dict[str, bytes]:
    """Decode a Secret's (or ConfigMap ``binaryData``'s) base64 values."""
    out: dict[str, bytes] = {}
    for key, value in data.items():
        try:
            out[key] = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise SourceError(f"key {key!r} is not valid base64") from None
    return out


def read_from_cluster(client: kclient.ClusterClient, *, kind: str, namespace: str, name: str,
                      key: str = "") -> tuple[bytes, str]:
    """The archive bytes in a ConfigMap/Secret and a description (``configmap/ns/name[key]``)."""
    if kind not in KINDS:
        raise SourceError(f"{kind}/{namespace}/{name}: packaged charts live in a ConfigMap or Secret")
    obj = client.get(kclient.ObjectRef("v1", kind, name, namespace))
    where = f"{kind.lower()}/{namespace}/{name}"
    values = from_secret_data(obj.get(KINDS[kind]) or {})
    data = pick_key(values, key, source=where)
    chosen = key or next(k for k, v in values.items() if v is data)
    return data, f"{where}[{chosen}]"
