"""The ``Release`` CRD, installed on first use when the user may create CRDs.

Why: helm-core's storage needs ``releases.helm.sh``; a Helm user's first ``helm-core install``
should not stop to ask for it when their credentials could create it (issue 18). A user who may
not create CRDs gets the clear "apply manifests/crds/release.yaml first" error, with the reason.

The packaged ``crds/release.yaml`` is the same file as ``manifests/crds/release.yaml`` (a test
keeps them identical).
"""
from __future__ import annotations

from importlib import resources as importlib_resources
from typing import Any

from helm_core.errors import ClusterError, ConflictError, ForbiddenError, StorageError
from helm_core.golib import goyaml
from helm_core.kube import client as kclient
from helm_core.kube import wait as kwait

CRD_NAME = "releases.helm.sh"
ESTABLISH_TIMEOUT_S = 60.0


def definition() -> dict[str, Any]:
    """The Release CRD object shipped with helm_core."""
    text = importlib_resources.files("helm_core.storage").joinpath("crds/release.yaml").read_text()
    obj = goyaml.load(text, source="crds/release.yaml")
    assert isinstance(obj, dict)
    return obj


def install(client: kclient.ClusterClient, missing: str) -> None:
    """Create the Release CRD and wait until it is Established; ``StorageError`` starting with
    ``missing`` (the "apply it first" sentence) and naming the reason when the cluster refuses."""
    crd = definition()
    try:
        client.create(crd)
    except ConflictError:
        pass  # created meanwhile (another process): wait for it like ours
    except ForbiddenError as exc:
        raise StorageError(f"{missing} (installing it was refused: {exc})") from None
    except ClusterError as exc:
        raise StorageError(f"{missing} (installing it failed: {exc})") from None
    ref = kclient.ObjectRef.of(crd)
    try:
        kwait.wait_ready(client, [ref], options=kwait.WaitOptions(timeout_s=ESTABLISH_TIMEOUT_S))
    except ClusterError as exc:
        raise StorageError(f"{missing} (it was created but is not Established: {exc})") from None
    client.discover(refresh=True)
