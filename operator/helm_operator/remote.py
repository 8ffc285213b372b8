"""``spec.kubeConfig``: the cluster a request's release lives in.

Rules (Flux's, made stricter where the controller's own secrets are at stake):
- Without ``kubeConfig`` the release lives in the controller's cluster, acted on as the
  request's service account.
- With ``kubeConfig.secretRef: {name, key}`` the kubeconfig is read from a Secret of the
  request's namespace *with the request's own identity* (its service account, or the
  requester in requester mode: it must be allowed to read it), so a request cannot borrow a
  kubeconfig its identity could not read. Values, valuesFrom and
  chart ConfigMaps/Secrets are still read from the controller's cluster, the same way.
- The release's objects, its ``Release`` record, version Secrets and lock live in the remote
  cluster (the ``Release`` CRD must be installed there). When the request names a service
  account, the controller impersonates ``system:serviceaccount:<request namespace>:<name>`` in
  the remote cluster too (the kubeconfig's user needs the ``impersonate`` verb there, and that
  account must exist in a namespace of the request's name); without one, the kubeconfig's
  own identity acts.
- The kubeconfig must be self-contained (see :mod:`helm_core.kube.kubeconfig`): no files, no
  credential plugins.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from helm_core import errors as core_errors
from helm_core.kube import client as kclient
from helm_core.kube import kubeconfig
from helm_operator import errors, policy
from helm_operator import settings as settings_mod

Connect = Callable[[bytes], kclient.ClusterClient]
"""``connect(kubeconfig bytes)`` -> a client of that cluster."""


def target(local: kclient.ClusterClient, meta: Mapping[str, Any], spec: Mapping[str, Any], *,
           connect: Connect, security: settings_mod.SecuritySettings) -> kclient.ClusterClient:
    """The client the release is applied with: ``local`` or, with ``spec.kubeConfig``, the
    remote cluster's (module rules)."""
    ref = (spec.get("kubeConfig") or {}).get("secretRef") or {}
    if not ref:
        return local
    namespace = meta["namespace"]
    name = ref.get("name") or ""
    if not name:
        raise errors.RequestError("spec.kubeConfig.secretRef.name: required", reason="InvalidKubeConfig")
    try:
        secret = local.get(kclient.ObjectRef("v1", "Secret", name, namespace))
    except core_errors.NotFoundError:
        raise errors.RequestError(f"spec.kubeConfig.secretRef: Secret {namespace}/{name} not found",
                                  reason="KubeConfigNotFound") from None
    where = f"spec.kubeConfig.secretRef ({namespace}/{name})"
    try:
        remote = connect(kubeconfig.from_secret(secret, key=ref.get("key") or "", where=where))
    except core_errors.ClusterError as exc:
        raise errors.RequestError(str(exc), reason="InvalidKubeConfig") from None
    account = policy.service_account(meta, spec, security=security)
    return remote.impersonate(service_account=account, namespace=namespace) if account else remote


def connector(*, field_manager: str) -> Connect:
    """Remote clients cached by kubeconfig content."""
    clients = kubeconfig.Clients(field_manager=field_manager)
    return lambda text: clients.get(text)
