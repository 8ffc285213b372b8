"""Release versions as Secrets, and the ``Release`` object that owns them (DESIGN §5).

Why Secrets: values and manifests often hold credentials; RBAC on Secrets is what clusters
already lock down, so a user allowed to read ``Release`` objects (status only: chart, version,
status, a short history) still cannot read values.

Layout of one version (``encode``/``decode`` are the only code that knows it):
- Secret ``<release>.<ulid lower-cased>`` in the release's namespace, ``type:
  helm.sh/release-version``, labels ``release``, ``version`` (the ULID), ``status`` and
  ``owner: helm-core``, and the version's custom labels (``storage/labels.py``); owned by the
  ``Release`` (owner reference, garbage-collected with it).
- ``data`` keys ``userValues`` and ``chartValues`` (JSON), ``manifest``, ``hooks``, ``notes``
  and, for a chart with Lua, ``extensions`` (:mod:`helm_core.lua.kept`) are gzip-compressed
  (``COMPRESSED_KEYS``); ``chartName``, ``chartVersion``, ``appVersion``,
  ``chartSource``, ``status``, ``description``, the times (``firstDeployed``, ``lastDeployed``,
  ``deleted``: helm's JSON of them, ``gotime.json_time``, so RFC 3339 with nanoseconds in the
  local offset they were taken in, as helm stamps its own; "" for none; versions stored before
  kept UTC to the second, read as such) and ``revision`` (the
  ``.Release.Revision`` it rendered; absent in versions stored before it was kept) are plain UTF-8;
  ``hookRuns`` (only once a hook ran for the version: each action's hooks, ``helm-core test``) is
  plain JSON, a list of ``{kind, name, phase, startedAt, completedAt}`` (times as above). A
  write that changes nothing the ``Release`` status shows (a hook starting) writes the Secret
  alone. The ``Release`` status keeps its times as Kubernetes does: UTC, to the second.
- The decoded ``data`` may total at most ``MAX_SECRET_BYTES`` (the API server's limit);
  ``encode`` raises ``TooLargeError`` naming the largest parts before anything is written.

The ``Release`` object (``helm.sh/v1alpha1``, same name as the release) carries in ``status``
the newest version, its status and chart, and the last ``STATUS_HISTORY`` versions (their
descriptions cut to ``STATUS_DESCRIPTION_MAX`` characters: the Secrets keep them whole); it is
created with the first version and deleted with the last.

A pending version (an operation starting) is written, its Secret and then the ``Release``
status, only if the operation still runs ``announce_after_s`` later (0, the default: at once):
most operations end sooner, and their result is the one write of each (the Secret created with
the final status). A hook's run on a version still unwritten changes the copy to be written.
Any other write of the release settles the announcement first (stopped, or waited for): the
Secrets it did not write are created then, or, for the version being written, by that write;
its versions are folded into the next status write. The Secret of the first version of a
``Release`` this driver has just created is written at once (a refused write deletes that
``Release`` again); the controller's claim creates the ``Release`` before, so its installs defer
both.
Within the grace nothing is stored of the operation but its lock: a process dying then leaves
no pending version to recover, and the next install adopts the objects it applied (they carry
the release's ownership metadata and an owner reference to the ``Release``).

Without the ``Release`` CRD there is no ``Release``: the owner reference and the claimant are
none (a release stock helm made is read, tested and uninstalled without it); writing a version
or a claim installs the CRD when the user may create CRDs, else fails with ``CRD_MISSING``.
"""
from __future__ import annotations

import base64
import contextlib
import gzip
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import ulid

from helm_core.errors import (
    ConflictError,
    HelmError,
    NotFoundError,
    ReleaseExistsError,
    ReleaseNotFoundError,
    StorageError,
    TooLargeError,
)
from helm_core.golib import gotime
from helm_core.kube import client as kclient
from helm_core.kube import resources
from helm_core.storage import crd
from helm_core.storage import release as rel
from helm_core.storage import written as written_secrets
from helm_core.support import timers

SECRET_TYPE = "helm.sh/release-version"
MAX_SECRET_BYTES = 1024 * 1024
"""Kubernetes' limit on the total size of a Secret's data (``MaxSecretSize``, 1 MiB)."""
OWNER_LABEL, OWNER = "owner", "helm-core"
RELEASE_LABEL, VERSION_LABEL, STATUS_LABEL = "release", "version", "status"
SYSTEM_LABELS = (RELEASE_LABEL, VERSION_LABEL, STATUS_LABEL, OWNER_LABEL)
"""The labels this storage sets itself; any other label of a version Secret is a custom one."""
COMPRESSED_KEYS = ("userValues", "chartValues", "manifest", "hooks", "notes", "extensions")
HOOK_RUNS_KEY = "hookRuns"
RELEASE_API_VERSION = "helm.sh/v1alpha1"
RELEASE_KIND = "Release"
STATUS_HISTORY = 10
"""Versions listed in a ``Release``'s status (the full history is in the Secrets)."""
STATUS_DESCRIPTION_MAX = 1024
"""Characters of a version's description the ``Release`` status keeps (:func:`status_description`)."""
_TIMES = ("firstDeployed", "lastDeployed", "deleted")
CRD_MISSING = ('the Release CRD "releases.helm.sh" (helm.sh/v1alpha1) is not installed in the '
               "cluster; apply manifests/crds/release.yaml first")


def secret_name(name: str, version: ulid.ULID) -> str:
    """``<release>.<ulid in lower case>``."""
    return f"{name}.{str(version).lower()}"


def selector(name: str = "") -> str:
    """Label selector for our version Secrets (of one release when ``name`` is given)."""
    base = f"{OWNER_LABEL}={OWNER}"
    return f"{base},{RELEASE_LABEL}={name}" if name else base


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MiB"
    return f"{count / 1024:.1f} KiB"


def _raw_data(version: rel.ReleaseVersion) -> dict[str, bytes]:
    plain = {
        "chartName": version.chart_name, "chartVersion": version.chart_version,
        "appVersion": version.app_version, "chartSource": version.chart_source,
        "status": version.status.value, "description": version.description,
        "firstDeployed": gotime.json_time(version.first_deployed),
        "lastDeployed": gotime.json_time(version.last_deployed), "deleted": gotime.json_time(version.deleted),
    }
    if version.revision:
        plain["revision"] = str(version.revision)
    texts = {
        "userValues": json.dumps(version.user_values, sort_keys=True, separators=(",", ":")),
        "chartValues": json.dumps(version.chart_values, sort_keys=True, separators=(",", ":")),
        "manifest": version.manifest, "hooks": version.hooks, "notes": version.notes,
    }
    if version.extensions:
        texts["extensions"] = version.extensions
    if version.hook_runs:
        plain[HOOK_RUNS_KEY] = json.dumps([
            {"kind": run.kind, "name": run.name, "phase": run.phase.value,
             "startedAt": gotime.json_time(run.started), "completedAt": gotime.json_time(run.completed)}
            for run in version.hook_runs], separators=(",", ":"))
    data = {key: value.encode() for key, value in plain.items()}
    data.update({key: gzip.compress(value.encode(), mtime=0) for key, value in texts.items()})
    return data


def check_labels(secret: Mapping[str, Any]) -> None:
    """Refuse a version's Secret whose labels (the custom ones, ``--labels``) the API server
    would refuse, in its words (``Secret "<name>" is invalid: <field errors>``, several as Go's
    aggregate: ``[a, b]``, each once) after helm's storage driver's ``create: failed to
    create:``, so that nothing is written (the API server would refuse only the Secret, after
    the ``Release`` and the chart's CRDs)."""
    from helm_core.golib import labels as golabels

    meta = secret["metadata"]
    errors = list(dict.fromkeys(golabels.label_errors(meta.get("labels") or {})))
    if errors:
        listed = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
        raise StorageError(f'create: failed to create: Secret "{meta["name"]}" is invalid: {listed}')


def encode(version: rel.ReleaseVersion) -> dict[str, Any]:
    """The Secret storing ``version`` (without owner references); ``TooLargeError`` if > 1 MiB,
    ``StorageError`` for labels the API server refuses (:func:`check_labels`)."""
    data = _raw_data(version)
    total = sum(len(value) for value in data.values())
    if total > MAX_SECRET_BYTES:
        largest = sorted(data.items(), key=lambda item: -len(item[1]))[:3]
        parts = ", ".join(f"{key} {_size(len(value))}" for key, value in largest)
        raise TooLargeError(
            f'release "{version.name}" version {version.version} is {_size(total)} once '
            f"compressed ({parts}), over the {MAX_SECRET_BYTES // 1024 // 1024} MiB limit of a Kubernetes "
            f"Secret; nothing was applied")
    secret = {
        "apiVersion": "v1", "kind": "Secret", "type": SECRET_TYPE,
        "metadata": {
            "name": secret_name(version.name, version.version), "namespace": version.namespace,
            "labels": {**version.labels, RELEASE_LABEL: version.name, VERSION_LABEL: str(version.version),
                       STATUS_LABEL: version.status.value, OWNER_LABEL: OWNER},
        },
        "data": {key: base64.b64encode(value).decode() for key, value in data.items()},
    }
    check_labels(secret)
    return secret


def decode(secret: Mapping[str, Any], *, payloads: bool = True) -> rel.ReleaseVersion:
    """The version a Secret made by ``encode`` stores; ``StorageError`` naming it if corrupt.

    ``payloads=False`` skips the compressed keys (values, manifest, hooks, notes come back
    empty): enough for summaries, and cheap for long histories.
    """
    meta = secret.get("metadata") or {}
    labels = meta.get("labels") or {}
    where = f'Secret "{meta.get("name")}" in namespace "{meta.get("namespace")}"'
    try:
        data = {key: base64.b64decode(value) for key, value in (secret.get("data") or {}).items()
                if payloads or key not in COMPRESSED_KEYS}
        text = {key: (gzip.decompress(value) if key in COMPRESSED_KEYS else value).decode()
                for key, value in data.items()}
        return rel.ReleaseVersion(
            name=str(labels[RELEASE_LABEL]), namespace=str(meta.get("namespace") or ""),
            version=rel.parse_version(str(labels[VERSION_LABEL])),
            status=rel.Status(text.get("status", "unknown")),
            chart_name=text.get("chartName", ""), chart_version=text.get("chartVersion", ""),
            app_version=text.get("appVersion", ""), chart_source=text.get("chartSource", ""),
            user_values=json.loads(text.get("userValues") or "{}"),
            chart_values=json.loads(text.get("chartValues") or "{}"), helm_chart_values=None,
            manifest=text.get("manifest", ""), hooks=text.get("hooks", ""),
            notes=text.get("notes", ""), description=text.get("description", ""),
            extensions=text.get("extensions", ""), revision=int(text.get("revision") or 0),
            **{field: gotime.parse_json_time(text.get(key, "")) for field, key in
               zip(("first_deployed", "last_deployed", "deleted"), _TIMES, strict=True)},
            labels={str(k): str(v) for k, v in labels.items() if k not in SYSTEM_LABELS},
            hook_runs=tuple(
                rel.HookRun(kind=str(run["kind"]), name=str(run["name"]), phase=rel.HookPhase(run["phase"]),
                            started=gotime.parse_json_time(run.get("startedAt") or ""),
                            completed=gotime.parse_json_time(run.get("completedAt") or ""))
                for run in json.loads(text.get(HOOK_RUNS_KEY) or "[]")),
        )
    except (KeyError, ValueError, TypeError, OSError, EOFError) as exc:
        raise StorageError(f"{where} is not a valid release version: {exc}") from exc


def status_description(version: rel.ReleaseVersion) -> str:
    """A version's description as the ``Release`` status keeps it: cut after
    ``STATUS_DESCRIPTION_MAX`` characters (``...`` marks the cut). The status holds the newest
    version's and ``STATUS_HISTORY`` more, while a version's Secret may hold one of nearly 1 MiB
    (helm's ``--description`` is free text): uncut, a few long ones would make the status
    write, which comes after the version's Secret, fail on etcd's request limit (1.5 MiB)."""
    text = version.description
    return text if len(text) <= STATUS_DESCRIPTION_MAX else text[:STATUS_DESCRIPTION_MAX - 3] + "..."


def _summary(version: rel.ReleaseVersion) -> dict[str, Any]:
    entry = {"version": str(version.version), "status": version.status.value,
             "chart": version.chart, "appVersion": version.app_version,
             "description": status_description(version)}
    if version.last_deployed:
        entry["updated"] = kclient.kube_time(version.last_deployed)
    return entry


def merge_all(status: Mapping[str, Any] | None, versions: Iterable[rel.ReleaseVersion]) -> dict[str, Any]:
    """``merge_status`` of each of ``versions`` in turn."""
    merged = dict(status or {})
    for version in versions:
        merged = merge_status(merged, version)
    return merged


def release_status(history: list[rel.ReleaseVersion]) -> dict[str, Any]:
    """The ``status`` of a ``Release`` for its (ULID-ordered) history; never holds values."""
    head = history[-1]
    status: dict[str, Any] = {
        "version": str(head.version), "status": head.status.value, "chart": head.chart,
        "chartName": head.chart_name, "chartVersion": head.chart_version,
        "appVersion": head.app_version, "description": status_description(head),
        "history": [_summary(v) for v in history[-STATUS_HISTORY:]],
    }
    for key, value in (("firstDeployed", history[0].first_deployed),
                       ("lastDeployed", head.last_deployed)):
        if value:
            status[key] = kclient.kube_time(value)
    return status


def merge_status(status: Mapping[str, Any] | None, version: rel.ReleaseVersion) -> dict[str, Any]:
    """``status`` with ``version`` recorded: same result as ``release_status`` of the history
    the status summarised plus ``version``, without reading that history again."""
    entries = {str(e.get("version")): e for e in (status or {}).get("history") or ()}
    entries[str(version.version)] = _summary(version)
    ordered = [entries[key] for key in sorted(entries)][-STATUS_HISTORY:]
    merged = dict(status or {})
    merged["history"] = ordered
    if not merged.get("version") or str(version.version) >= str(merged["version"]):
        head = release_status([version])
        head.pop("history")
        head.pop("firstDeployed", None)
        merged.update(head)
    if version.first_deployed and not merged.get("firstDeployed"):
        merged["firstDeployed"] = kclient.kube_time(version.first_deployed)
    return merged


#: How long a discovery that served no ``Release`` is believed before it is read again (seconds).
RELEASES_RECHECK_S = 10.0


class SecretsDriver:
    """``Driver`` on a cluster: version Secrets owned by a ``Release`` object."""

    def __init__(self, client: kclient.ClusterClient, *, announce_after_s: float = 0.0) -> None:
        self._client = client
        self._announce_after_s = announce_after_s
        # Pending versions whose writes are deferred, by (namespace, name), with the
        # announcement that writes them and the monotonic time it is due (module docstring).
        self._announcements: dict[tuple[str, str], tuple[timers.Deferred, list[rel.ReleaseVersion], float]] = {}
        # What this driver last wrote: the next write of the same Secret (``written``) or Release
        # status (by (namespace, name)) uses its resourceVersion as a precondition instead of
        # reading the object first; a conflict (someone wrote meanwhile) falls back to reading.
        self._written = written_secrets.WrittenSecrets(client)
        self._releases: dict[tuple[str, str], dict[str, Any]] = {}
        # Releases whose Release this driver's claim created under the release's lock, with no
        # version written since: their history is empty without a LIST (``claim``).
        self._empty: set[tuple[str, str]] = set()
        # When discovery was last read again and still served no ``Release`` (monotonic time):
        # a command reading many releases of a cluster without the CRD reads it once.
        self._no_releases_seen_at: float | None = None

    def _ref(self, namespace: str, name: str, version: ulid.ULID) -> kclient.ObjectRef:
        return kclient.ObjectRef("v1", "Secret", secret_name(name, version), namespace)

    def ensure_release(self, namespace: str, name: str) -> dict[str, Any]:
        """The ``Release`` object, created if absent (and its CRD, when missing and the user may
        create CRDs); actions make it own their objects. The object this driver last read or wrote
        serves without a request (its uid is what an owner reference needs, and a Release is never
        recreated under a running operation)."""
        return self._ensure_release(namespace, name)[0]

    def _ensure_release(self, namespace: str, name: str) -> tuple[dict[str, Any], bool]:
        """:meth:`ensure_release`, and whether this call created the ``Release``."""
        known = self.known_release(namespace, name)
        if known is not None:
            return known, False
        self._require_releases()
        made = False
        try:
            found = self._client.get(kclient.ObjectRef(RELEASE_API_VERSION, RELEASE_KIND, name, namespace))
        except NotFoundError:
            found = self._client.apply({
                "apiVersion": RELEASE_API_VERSION, "kind": RELEASE_KIND,
                "metadata": {"name": name, "namespace": namespace, "labels": {OWNER_LABEL: OWNER}},
                "spec": {},
            })
            made = True
        self.remember_release(found)
        return found, made

    def _serves_releases(self) -> bool:
        """Whether the cluster serves ``Release`` (its CRD is installed): discovery as known, read
        again when it says no (the CRD may have been installed since), at most once per
        ``RELEASES_RECHECK_S``."""
        if self._client.discover().find(RELEASE_API_VERSION, RELEASE_KIND) is not None:
            return True
        seen = self._no_releases_seen_at
        if seen is not None and time.monotonic() - seen < RELEASES_RECHECK_S:
            return False
        if self._client.discover(refresh=True).find(RELEASE_API_VERSION, RELEASE_KIND) is not None:
            self._no_releases_seen_at = None
            return True
        self._no_releases_seen_at = time.monotonic()
        return False

    def _require_releases(self) -> None:
        """Install the Release CRD when the cluster lacks it and the user may create CRDs;
        ``StorageError`` (``CRD_MISSING``, with the reason) when it cannot be had."""
        if not self._serves_releases():
            crd.install(self._client, CRD_MISSING)

    def _delete_release(self, namespace: str, name: str) -> None:
        """Delete the ``Release`` of a release left without versions."""
        self._releases.pop((namespace, name), None)
        self._empty.discard((namespace, name))
        self._client.delete(kclient.ObjectRef(RELEASE_API_VERSION, RELEASE_KIND, name, namespace))

    def known_release(self, namespace: str, name: str) -> dict[str, Any] | None:
        """The ``Release`` object as this driver last read or wrote it (None: not seen)."""
        return self._releases.get((namespace, name))

    def remember_release(self, release: Mapping[str, Any]) -> None:
        """Record a ``Release`` object read elsewhere (the controller's claim), so this driver
        does not read it again; its resourceVersion guards the next status write."""
        meta = release.get("metadata") or {}
        self._releases[(str(meta.get("namespace") or ""), str(meta.get("name") or ""))] = dict(release)

    def _write_status(self, namespace: str, name: str, status: dict[str, Any],
                      resource_version: str = "") -> None:
        metadata = {"name": name, "namespace": namespace}
        if resource_version:
            metadata["resourceVersion"] = resource_version
        written = self._client.apply({
            "apiVersion": RELEASE_API_VERSION, "kind": RELEASE_KIND,
            "metadata": metadata, "status": status,
        }, subresource="status", force=True)
        self._releases[(namespace, name)] = written

    def _publish(self, namespace: str, name: str, versions: list[rel.ReleaseVersion], *,
                 created: Sequence[rel.ReleaseVersion] = ()) -> None:
        """Fold ``versions`` (just written to their Secrets) into the Release status (O(1), no
        history read), guarded by the Release as this driver last saw it; when someone wrote it
        since, read it, and when it is a new Release (recreated meanwhile) the Secrets of
        ``created`` (versions this driver created) become its own."""
        key = (namespace, name)
        known = self._releases.get(key)
        if known is not None:
            try:
                self._write_status(namespace, name, merge_all(known.get("status"), versions),
                                   (known.get("metadata") or {}).get("resourceVersion", ""))
                return
            except ConflictError:
                pass  # written by someone else since: read it
        try:
            current = self._client.get(kclient.ObjectRef(RELEASE_API_VERSION, RELEASE_KIND, name, namespace))
        except NotFoundError:
            if created:
                raise
            return  # a version outliving its Release is being garbage-collected
        newest = {version.version: version for version in versions}
        for version in created:
            self._own(current, newest[version.version])
        self._write_status(namespace, name, merge_all(current.get("status"), versions))

    def _own(self, release: Mapping[str, Any], version: rel.ReleaseVersion) -> None:
        """Make ``release`` the owner of ``version``'s Secret (as this driver last wrote it)."""
        meta = self._written.known(version.namespace, secret_name(version.name, version.version))
        wanted = _owner_reference(release)
        if meta is None or (meta.get("ownerReferences") or [None])[0] == wanted:
            return
        secret = encode(version)
        secret["metadata"]["ownerReferences"] = [wanted]
        self._written.write(secret, meta)

    def _settle(self, namespace: str, name: str, *,
                writing: ulid.ULID | None = None) -> list[rel.ReleaseVersion]:
        """Settle the release's deferred announcement: the pending versions it did not write,
        their Secrets created now (but ``writing``'s, which the caller writes itself)."""
        announced = self._announcements.pop((namespace, name), None)
        if announced is None:
            return []
        deferred, versions, _ = announced
        if deferred.settle():
            return []
        for version in versions:
            if version.version != writing and not self._stored(version):
                self._create_secret(version)
        return versions

    def _stored(self, version: rel.ReleaseVersion) -> bool:
        """Whether this driver wrote the version's Secret (a deferred one may not be yet)."""
        return self._written.known(version.namespace, secret_name(version.name, version.version)) is not None

    def _create_secret(self, version: rel.ReleaseVersion) -> None:
        """Create the version's Secret, owned by the ``Release`` (known: no request)."""
        self._empty.discard((version.namespace, version.name))
        secret = encode(version)
        owner = self._ensure_release(version.namespace, version.name)[0]
        secret["metadata"]["ownerReferences"] = [_owner_reference(owner)]
        try:
            created = self._client.create(secret)
        except ConflictError as exc:
            raise exists_error(version) from exc
        self._written.created(created)

    def _announce(self, versions: list[rel.ReleaseVersion], delay_s: float) -> None:
        """Write ``versions`` (pending, of one release: their Secrets, then the status) if the
        operation still runs ``delay_s`` from now."""
        namespace, name = versions[0].namespace, versions[0].name

        def write() -> None:
            for version in versions:
                if not self._stored(version):
                    self._create_secret(version)
            self._publish(namespace, name, versions, created=versions)
        self._announcements[(namespace, name)] = (timers.Deferred(write, delay_s), versions,
                                                  time.monotonic() + delay_s)

    def create(self, version: rel.ReleaseVersion) -> None:
        unannounced = self._settle(version.namespace, version.name)
        made = self._ensure_release(version.namespace, version.name)[1]
        deferred = version.status.pending and self._announce_after_s > 0
        if made or not deferred:
            try:
                self._create_secret(version)
            except HelmError:
                if made:  # the first version was refused (quota, RBAC...): leave no empty Release
                    with contextlib.suppress(HelmError):  # the refusal is the error to report
                        self._delete_release(version.namespace, version.name)
                raise
        versions = [*unannounced, version]
        if deferred:
            self._announce(versions, self._announce_after_s)
        else:
            self._publish(version.namespace, version.name, versions, created=versions)

    def update(self, version: rel.ReleaseVersion) -> None:
        if self._summarised(version):  # a hook's run: the Secret alone keeps it
            if not self._redeferred(version):
                self._write_secret(version)
            return
        unannounced = self._settle(version.namespace, version.name, writing=version.version)
        created = list(unannounced)
        if any(v.version == version.version for v in unannounced) and not self._stored(version):
            self._create_secret(version)  # its pending write was deferred and never made
            created.append(version)
        else:
            self._write_secret(version)
        self._publish(version.namespace, version.name, [*unannounced, version], created=created)

    def _redeferred(self, version: rel.ReleaseVersion) -> bool:
        """When ``version`` is still to be written by its announcement, have it write this
        content instead (due when it was); False when it was written already."""
        announced = self._announcements.get((version.namespace, version.name))
        if announced is None or self._stored(version) \
                or all(v.version != version.version for v in announced[1]):
            return False
        deferred, versions, due = announced
        if deferred.settle():  # it was being written: write over it
            del self._announcements[(version.namespace, version.name)]
            return False
        self._announce([version if v.version == version.version else v for v in versions],
                       due - time.monotonic())
        return True

    def _summarised(self, version: rel.ReleaseVersion) -> bool:
        """True when the ``Release`` status, as this driver last wrote it or will write it (a
        deferred announcement), already says what it would say of ``version``: only what the
        Secret alone keeps changed (a hook's run), so the status write is left out."""
        announced = self._announcements.get((version.namespace, version.name))
        if announced is not None:
            view = release_status([version])
            return any(v.version == version.version and release_status([v]) == view for v in announced[1])
        known = self._releases.get((version.namespace, version.name))
        return known is not None and merge_status(known.get("status"), version) == known.get("status")

    def _write_secret(self, version: rel.ReleaseVersion) -> None:
        """Replace a version's Secret, over its resourceVersion as this driver last wrote it
        (read again when someone wrote it since)."""
        secret = encode(version)

        def over(meta: Mapping[str, Any]) -> dict[str, Any]:  # the stored Secret's owners kept
            owners = meta.get("ownerReferences")
            return {**secret, "metadata": {**secret["metadata"], **({"ownerReferences": owners} if owners else {})}}
        try:
            self._written.replace(self._ref(version.namespace, version.name, version.version), over)
        except NotFoundError as exc:
            raise missing_version(version.namespace, version.name, version.version) from exc

    def get(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        try:
            return decode(self._client.get(self._ref(namespace, name, version)))
        except NotFoundError as exc:
            raise missing_version(namespace, name, version) from exc

    def history(self, namespace: str, name: str) -> list[rel.ReleaseVersion]:
        return self._history(namespace, name, payloads=True)

    def _history(self, namespace: str, name: str, *, payloads: bool) -> list[rel.ReleaseVersion]:
        if (namespace, name) in self._empty:
            return []
        secrets = self._client.list("v1", "Secret", namespace=namespace,
                                    label_selector=selector(name))
        return rel.sort_history(decode(s, payloads=payloads) for s in secrets
                                if s.get("type") == SECRET_TYPE)

    def delete(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        self._settle(namespace, name)  # the status is rebuilt from the Secrets below
        stored = self.get(namespace, name, version)
        self._client.delete(self._ref(namespace, name, version))
        self._written.forget(namespace, secret_name(name, version))
        remaining = self._history(namespace, name, payloads=False)
        if remaining:
            self._write_status(namespace, name, release_status(remaining))
        else:
            self._delete_release(namespace, name)
        return stored

    def list_latest(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        return latest_of_each(self.list_all(namespace))

    def list_all(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        secrets = self._client.list("v1", "Secret", namespace=namespace, label_selector=selector())
        return [decode(s) for s in secrets if s.get("type") == SECRET_TYPE]

    def check(self, version: rel.ReleaseVersion) -> None:
        encode(version)

    def _release(self, namespace: str, name: str) -> dict[str, Any] | None:
        if not self._serves_releases():  # no CRD, no Release: a release helm made, or none
            return None
        try:
            found = self._client.get(kclient.ObjectRef(RELEASE_API_VERSION, RELEASE_KIND, name, namespace))
        except NotFoundError:
            return None
        self.remember_release(found)  # the operation that follows (ensure_release) reads no more
        return found

    def claim(self, namespace: str, name: str, *, annotation: str, claimant: str,
              new: bool = False) -> str:
        """The claim is an annotation of the ``Release`` object (created here when absent, so
        the claim comes before the first version); ``new``: created first, read only when it
        exists (one request for a first install instead of a read that finds nothing). A
        ``Release`` created under the release's lock (``new``) owns no version Secret: those
        of a deleted one are being garbage-collected, and a new one is written under the lock;
        the history is then known empty until this driver writes a version."""
        self._require_releases()  # the claim is kept on the Release: its CRD, or the clear error
        current = None if new else self._release(namespace, name)
        if current is None:
            try:
                self.remember_release(self._client.create({
                    "apiVersion": RELEASE_API_VERSION, "kind": RELEASE_KIND,
                    "metadata": {"name": name, "namespace": namespace, "labels": {OWNER_LABEL: OWNER},
                                 "annotations": {annotation: claimant}},
                    "spec": {}}))
                if new:
                    self._empty.add((namespace, name))
                return ""
            except ConflictError:  # created meanwhile: read who won
                current = self._release(namespace, name) or {}
        claimed_by: str = ((current.get("metadata") or {}).get("annotations") or {}).get(annotation, "")
        if claimed_by and claimed_by != claimant:
            return claimed_by
        if not claimed_by:
            self.remember_release(self._client.apply({
                "apiVersion": RELEASE_API_VERSION, "kind": RELEASE_KIND,
                "metadata": {"name": name, "namespace": namespace, "annotations": {annotation: claimant}}},
                force=True))
        return ""

    def claimant(self, namespace: str, name: str, *, annotation: str) -> str | None:
        current = self._release(namespace, name)
        if current is None:
            return None
        owner: str = ((current.get("metadata") or {}).get("annotations") or {}).get(annotation, "")
        return owner

    def owner_reference(self, namespace: str, name: str) -> dict[str, object] | None:
        current = self.known_release(namespace, name) or self._release(namespace, name)
        return None if current is None else resources.owner_reference(current)



def _owner_reference(release: Mapping[str, Any]) -> dict[str, Any]:
    """The controller owner reference of a version Secret to its ``Release``."""
    return {**resources.owner_reference(release), "controller": True}


def missing_version(namespace: str, name: str, version: ulid.ULID) -> ReleaseNotFoundError:
    """The error every driver raises for a version it does not hold."""
    return ReleaseNotFoundError(f'release "{name}" has no version {version} in namespace '
                                f'"{namespace}"')


def exists_error(version: rel.ReleaseVersion) -> ReleaseExistsError:
    """The error every driver raises when creating a version twice."""
    return ReleaseExistsError(f'release "{version.name}" version {version.version} already '
                              f'exists in namespace "{version.namespace}"')


def latest_of_each(versions: Iterable[rel.ReleaseVersion]) -> list[rel.ReleaseVersion]:
    """The newest version of each (namespace, release), sorted by namespace then name."""
    newest: dict[tuple[str, str], rel.ReleaseVersion] = {}
    for version in versions:
        key = (version.namespace, version.name)
        if key not in newest or newest[key].version < version.version:
            newest[key] = version
    return sorted(newest.values(), key=lambda v: (v.namespace, v.name))
