"""Adoption of releases stock helm made: one ``Driver`` over helm-core's storage and Helm's.

Why a driver: actions (list, history, status, get, upgrade, rollback, uninstall) keep one code
path; whether a release's versions come from helm-core's Secrets or Helm's is storage's business.

Rules:
- A release lives in helm-core's storage as soon as that holds any version of it; until then
  its versions are Helm's (``helm.sh/release.v1`` Secrets, revision ``n`` as version
  ``rel.revision_version(n)``), so ``list``/``history``/``status``/``get`` show helm's releases.
- Writing a new version (``create``: an upgrade, a rollback) of a release still in Helm's
  storage adopts it first: every Helm revision is copied into helm-core's storage with its
  version id (so rollback to one of them works, and they stay oldest in history), then Helm's
  Secrets are handled as asked (``HelmSecrets``), then the new version is written there.
  New versions are time-made ULIDs, as for any helm-core release.
- Other writes to a release still in Helm's storage (marking a pending revision failed,
  uninstalling it) happen in Helm's storage, as stock helm would do them.
- Where a release lives is known from this driver's last read of its history (and its own
  writes since): a write follows the history read under the release's lock, so it needs no
  read of its own (before, an install listed the Secrets of both storages three more times).
  A write with nothing read first looks, as before.
- ``HelmSecrets.KEEP`` (the default) leaves Helm's Secrets in place, labelled
  ``helm-core.io/adopted`` so helm-core ignores them from then on (stock helm still sees them:
  a way back); ``DELETE`` removes them once the copy is written.
"""
from __future__ import annotations

import enum
from collections.abc import Callable

import ulid

from helm_core.kube import client as kclient
from helm_core.storage import driver as drv
from helm_core.storage import helmsecrets, secrets
from helm_core.storage import release as rel

#: Where a release lives (:attr:`AdoptingDriver._where`): helm-core's storage, Helm's, or none.
OURS, HELM, NOWHERE = "ours", "helm", ""


class HelmSecrets(str, enum.Enum):
    """What adoption does with Helm's own release Secrets."""

    KEEP = "keep"
    DELETE = "delete"

    @classmethod
    def parse(cls, text: str) -> HelmSecrets:
        """The choice named ``text``; ``ValueError`` naming the accepted words otherwise."""
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f'helm secrets policy "{text}" is not one of: keep, delete') from None


class AdoptingDriver:
    """``Driver`` reading helm-core's storage, and Helm's for releases not yet adopted."""

    def __init__(self, client: kclient.ClusterClient, ours: drv.Driver, *,
                 helm_secrets: HelmSecrets = HelmSecrets.KEEP,
                 log: Callable[[str], None] | None = None) -> None:
        self._client = client
        self.ours = ours
        self.helm = helmsecrets.HelmSecretsDriver(client, hide_adopted=True)
        self.helm_secrets = helm_secrets
        self._log = log or (lambda _line: None)
        # (namespace, name) -> OURS, HELM or NOWHERE, as this driver last read or wrote it
        self._where: dict[tuple[str, str], str] = {}

    def next_version(self, after: ulid.ULID | None) -> ulid.ULID:
        """Adopted releases continue with time-made ULIDs (after the copied revisions)."""
        return drv.next_version(self.ours, after)

    # The size check, the claim and the owner are ours: new versions are written to our storage.
    def check(self, version: rel.ReleaseVersion) -> None:
        self.ours.check(version)

    def claim(self, namespace: str, name: str, *, annotation: str, claimant: str,
              new: bool = False) -> str:
        return self.ours.claim(namespace, name, annotation=annotation, claimant=claimant, new=new)

    def claimant(self, namespace: str, name: str, *, annotation: str) -> str | None:
        return self.ours.claimant(namespace, name, annotation=annotation)

    def owner_reference(self, namespace: str, name: str) -> dict[str, object] | None:
        return self.ours.owner_reference(namespace, name)

    def _lives(self, namespace: str, name: str) -> str:
        """Where the release lives (module rules): as last read or written, else read now."""
        known = self._where.get((namespace, name))
        if known is None:
            self.history(namespace, name)
            known = self._where[(namespace, name)]
        return known

    def _store(self, namespace: str, name: str) -> drv.Driver:
        return self.ours if self._lives(namespace, name) == OURS else self.helm

    # -- reads ----------------------------------------------------------------------------

    def history(self, namespace: str, name: str) -> list[rel.ReleaseVersion]:
        ours = self.ours.history(namespace, name)
        if ours:
            self._where[(namespace, name)] = OURS
            return ours
        theirs = self.helm.history(namespace, name)
        self._where[(namespace, name)] = HELM if theirs else NOWHERE
        return theirs

    def get(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        return self._store(namespace, name).get(namespace, name, version)

    def list_latest(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        return secrets.latest_of_each(self.list_all(namespace))

    def list_all(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        """helm-core's versions, and helm's of the releases helm-core keeps none of."""
        ours = self.ours.list_all(namespace)
        held = {(v.namespace, v.name) for v in ours}
        return [*ours, *(v for v in self.helm.list_all(namespace) if (v.namespace, v.name) not in held)]

    # -- writes ---------------------------------------------------------------------------

    def create(self, version: rel.ReleaseVersion) -> None:
        if self._lives(version.namespace, version.name) == HELM:
            self.adopt(version.namespace, version.name)
        self.ours.create(version)
        self._where[(version.namespace, version.name)] = OURS

    def update(self, version: rel.ReleaseVersion) -> None:
        self._store(version.namespace, version.name).update(version)

    def delete(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        deleted = self._store(namespace, name).delete(namespace, name, version)
        self._where.pop((namespace, name), None)  # it may have been the last one
        return deleted

    def adopt(self, namespace: str, name: str) -> list[rel.ReleaseVersion]:
        """Copy a Helm release's revisions into helm-core's storage and handle Helm's Secrets
        as configured; returns the copied versions (none when Helm holds no such release)."""
        stored = self.helm.secrets_of(namespace, name)
        if not stored:
            return []
        copied = rel.sort_history(helmsecrets.decode(s) for s in stored)
        for version in copied:
            self.ours.create(version)
        for secret in stored:
            ref = kclient.ObjectRef.of({**secret, "apiVersion": "v1", "kind": "Secret"})
            if self.helm_secrets is HelmSecrets.DELETE:
                self._client.delete(ref)
            else:
                self._client.apply({"apiVersion": "v1", "kind": "Secret", "metadata": {
                    "name": ref.name, "namespace": ref.namespace,
                    "labels": {helmsecrets.ADOPTED_LABEL: "true"}}}, force=True)
        fate = "deleted" if self.helm_secrets is HelmSecrets.DELETE else "kept"
        self._log(f'adopted Helm release "{name}" in namespace "{namespace}": '
                  f"{len(copied)} revisions copied, Helm's Secrets {fate}")
        return copied
