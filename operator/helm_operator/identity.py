"""What a HelmRequest is and which release it manages: the one place that says it.

- The resource: group ``helm.sh``, version ``v1alpha1``, kind ``HelmRequest``, plural
  ``helmrequests``; the finalizer the controller puts on it.
- The release it manages (:class:`ReleaseKey`): ``spec.releaseName`` (default ``metadata.name``)
  in ``spec.targetNamespace`` (default the request's namespace).
- The claim: the request's ``<namespace>/<name>`` (:func:`owner_id`) under
  :data:`OWNER_ANNOTATION`, kept by helm_core's claim action on the Release object.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from helm_core.support.records import record

GROUP, VERSION, KIND, PLURAL = "helm.sh", "v1alpha1", "HelmRequest", "helmrequests"
API_VERSION = f"{GROUP}/{VERSION}"
#: The controller's name: the field manager of its writes and the component of its Events (the
#: "From" of ``kubectl describe``, where Kopf's default said "kopf").
COMPONENT = "helm-operator"
#: Finalizer on every HelmRequest: its release is uninstalled before it goes.
FINALIZER = "helm.sh/helmrequest-finalizer"
#: Annotation on the Release naming the HelmRequest (``<namespace>/<name>``) that owns it.
OWNER_ANNOTATION = "helm.sh/helmrequest"


@record(frozen=True)
class ReleaseKey:
    """A release's identity: one operation at a time per key."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


def release_key(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> ReleaseKey:
    """The release a request manages (defaults: its own name and namespace)."""
    return ReleaseKey(namespace=spec.get("targetNamespace") or meta["namespace"],
                      name=spec.get("releaseName") or meta["name"])


def owner_id(meta: Mapping[str, Any]) -> str:
    """The value of :data:`OWNER_ANNOTATION` for this request."""
    return f"{meta['namespace']}/{meta['name']}"
