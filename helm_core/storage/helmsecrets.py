"""Releases in Helm's own format: Secrets of type ``helm.sh/release.v1`` (Helm's ``Secrets`` driver).

Why: releases made by stock helm (and by Flux's helm-controller, which uses Helm's storage) are
stored this way; reading them lets helm-core list and adopt them, and writing them
(``--storage helm``) lets stock ``helm list/get/history/rollback`` work on helm-core releases.

Layout (helm's ``pkg/storage/driver/secrets.go`` and ``util.go``):
- Secret ``sh.helm.release.v1.<release>.v<revision>`` in the release's namespace, labels
  ``name``, ``owner: helm``, ``status``, ``version`` (the integer revision) and ``createdAt`` /
  ``modifiedAt`` (Unix seconds); other labels are the release's custom ones (``--labels``,
  ``ReleaseVersion.labels``), as helm keeps them, but ``helm-core.io/adopted``.
- ``data.release`` is base64(gzip(JSON of Helm's ``release.Release``)), and the Secret's data
  is base64 again on the wire. Its times are helm's JSON of them (``gotime.json_time``: RFC 3339
  with nanoseconds in their own offset, "" for none, as helm's ``pkg/time`` writes its zero).
  Records without the gzip magic are read as plain JSON (Helm's backwards compatibility).

Mapping to ``ReleaseVersion``: revision ``n`` is version ``rel.revision_version(n)``;
``user_values`` is ``config``; ``chart_values`` the chart's values under ``config`` (as helm's
``CoalesceValues`` of the record, quietly), and ``helm_chart_values`` the chart's values
themselves; hooks come back in the ``---\\n# Source: <path>`` text form, each hook's ``last_run``
(``helm test``'s record) as ``hook_runs``. Writing stores the chart's metadata and, as the
chart's values, the ones read (a version helm made) or our computed values (enough for ``helm
get values --all``, ``history`` and ``rollback``, which re-applies the stored manifest);
templates are not stored.
"""
from __future__ import annotations

import base64
import datetime as dt
import gzip
import json
import time
from collections.abc import Mapping
from typing import Any

import ulid

from helm_core.chart import values as chart_values
from helm_core.engine import manifests as mf
from helm_core.errors import ConflictError, NotFoundError, StorageError, TooLargeError
from helm_core.golib import gojson, gotime
from helm_core.kube import client as kclient
from helm_core.storage import release as rel
from helm_core.storage import secrets
from helm_core.storage import written as written_secrets
from helm_core.support import helmlog

SECRET_TYPE = "helm.sh/release.v1"
OWNER = "helm"
NAME_LABEL, OWNER_LABEL, STATUS_LABEL, VERSION_LABEL = "name", "owner", "status", "version"
SYSTEM_LABELS = (NAME_LABEL, OWNER_LABEL, STATUS_LABEL, VERSION_LABEL, "createdAt", "modifiedAt")
ADOPTED_LABEL = "helm-core.io/adopted"
"""Set on Helm's Secrets that helm-core adopted and was asked to keep: helm-core reads the
release from its own storage from then on, and ignores these copies."""
SOURCE_ANNOTATION = "helm-core.io/chart-source"
"""Where the chart came from (``chartSource``), which Helm's record has no field for."""
EXTENSIONS_KEY = "extensions"
"""The chart's kept Lua (``ReleaseVersion.extensions``, gzip): a data key helm reads past."""
_GZIP_MAGIC = b"\x1f\x8b\x08"


def secret_name(name: str, revision: int) -> str:
    """Helm's storage key: ``sh.helm.release.v1.<name>.v<revision>``."""
    return f"sh.helm.release.v1.{name}.v{revision}"


def selector(name: str = "") -> str:
    """Label selector of Helm's release Secrets (of one release when ``name`` is given)."""
    return f"{OWNER_LABEL}={OWNER},{NAME_LABEL}={name}" if name else f"{OWNER_LABEL}={OWNER}"


def revision(version: rel.ReleaseVersion) -> int:
    """The integer revision of a version to be kept in Helm's format."""
    number = rel.revision_of(version.version)
    if number is None:
        raise StorageError(f'release "{version.name}" version {version.version} is not a Helm '
                           "revision: Helm's storage numbers revisions 1, 2, 3...")
    return number


# ----------------------------------------------------------------------------- the record

def _parse_go_time(text: Any) -> dt.datetime | None:
    """A time of helm's record as Go reads it (``gotime.parse_rfc3339``: its offset, the
    ``Local`` zone when that is its offset, nanoseconds); None for none (Go's zero time)."""
    return gotime.parse_json_time(text) if isinstance(text, str) else None


def hook_record(hook: mf.Hook, run: rel.HookRun | None) -> dict[str, Any]:
    """Helm's ``release.Hook`` JSON of one stored hook and its last run (``run``; None: never
    ran), as helm stores it and ``helm status -o json`` prints it: a hook that ran has helm's
    default delete policy when it names none."""
    entry: dict[str, Any] = gojson.Struct(  # helm's field order, for helm status -o json
        name=hook.name, kind=hook.kind, path=hook.manifest.source,
        manifest=hook.manifest.content, events=list(hook.events),
        last_run=gojson.Struct(started_at=gotime.json_time(run.started if run else None),
                               completed_at=gotime.json_time(run.completed if run else None),
                               phase=run.phase.value if run else ""))
    if hook.weight:
        entry["weight"] = hook.weight
    # helm gives a hook it runs without a delete policy its default, and keeps it in the release
    policies = list(hook.delete_policies) or ([mf.BEFORE_HOOK_CREATION] if run else [])
    if policies:
        entry["delete_policies"] = policies
    if hook.output_log_policies:
        entry["output_log_policies"] = list(hook.output_log_policies)
    return entry


def to_helm(version: rel.ReleaseVersion) -> dict[str, Any]:
    """Helm's ``release.Release`` JSON for ``version`` (a revision)."""
    metadata = {"name": version.chart_name, "version": version.chart_version, "apiVersion": "v2"}
    if version.app_version:
        metadata["appVersion"] = version.app_version
    info: dict[str, Any] = {"first_deployed": gotime.json_time(version.first_deployed),
                            "last_deployed": gotime.json_time(version.last_deployed),
                            "deleted": gotime.json_time(version.deleted),
                            "description": version.description, "status": version.status.value}
    if version.notes:
        info["notes"] = version.notes
    record: dict[str, Any] = {
        "name": version.name, "info": info,
        "chart": {"metadata": metadata, "lock": None, "templates": None,
                  "values": dict(version.chart_values if version.helm_chart_values is None
                                 else version.helm_chart_values), "schema": None, "files": None},
        "manifest": version.manifest, "version": revision(version), "namespace": version.namespace,
    }
    if version.user_values:
        record["config"] = dict(version.user_values)
    hooks = mf.parse_stored_hooks(version.hooks) if version.hooks else []
    if hooks:
        record["hooks"] = [hook_record(h, version.last_run(h.kind, h.name)) for h in hooks]
    return {key: value for key, value in record.items() if value not in ("", None)}


def _hooks_text(hooks: Any) -> str:
    return "".join(f"---\n# Source: {h.get('path', '')}\n{h.get('manifest', '')}\n"
                   for h in hooks or () if isinstance(h, Mapping))


def _hook_runs(hooks: Any) -> tuple[rel.HookRun, ...]:
    """The recorded last runs of Helm's ``release.Hook`` records (those never run left out)."""
    runs = []
    for hook in hooks or ():
        last = (hook.get("last_run") or {}) if isinstance(hook, Mapping) else {}
        if last.get("phase") or _parse_go_time(last.get("started_at")):
            runs.append(rel.HookRun(kind=str(hook.get("kind") or ""), name=str(hook.get("name") or ""),
                                    phase=rel.HookPhase(last.get("phase") or rel.HookPhase.UNKNOWN.value),
                                    started=_parse_go_time(last.get("started_at")),
                                    completed=_parse_go_time(last.get("completed_at"))))
    return tuple(runs)


def from_helm(record: Mapping[str, Any], *, chart_source: str = "",
              labels: Mapping[str, str] | None = None) -> rel.ReleaseVersion:
    """The ``ReleaseVersion`` of Helm's ``release.Release`` JSON (``labels``: its custom labels,
    which helm keeps on the Secret, not in the record)."""
    info = record.get("info") or {}
    chart = record.get("chart") or {}
    metadata = chart.get("metadata") or {}
    user = record.get("config") or {}
    defaults = chart.get("values") or {}
    with helmlog.quiet():  # reading a release logs nothing: commands that show values coalesce again
        all_values = chart_values.coalesce_stored(str(metadata.get("name") or ""), defaults, user)
    return rel.ReleaseVersion(
        name=str(record["name"]), namespace=str(record.get("namespace") or ""),
        version=rel.revision_version(int(record["version"])),
        status=rel.Status(info.get("status") or "unknown"),
        chart_name=str(metadata.get("name") or ""), chart_version=str(metadata.get("version") or ""),
        app_version=str(metadata.get("appVersion") or ""), chart_source=chart_source,
        user_values=user,
        chart_values=all_values, helm_chart_values=defaults,
        manifest=str(record.get("manifest") or ""), hooks=_hooks_text(record.get("hooks")),
        notes=str(info.get("notes") or ""), description=str(info.get("description") or ""),
        first_deployed=_parse_go_time(info.get("first_deployed")),
        last_deployed=_parse_go_time(info.get("last_deployed")),
        deleted=_parse_go_time(info.get("deleted")),
        labels=dict(labels or {}),
        hook_runs=_hook_runs(record.get("hooks")),
    )


# ----------------------------------------------------------------------------- the Secret

def encode(version: rel.ReleaseVersion, *, adopted_mark: bool = False,
           stamp: str = "createdAt") -> dict[str, Any]:
    """The Secret Helm would store for ``version`` (its custom labels among the Secret's);
    ``adopted_mark`` keeps the adopted label; ``stamp`` is ``createdAt`` or ``modifiedAt`` (set
    to now). ``TooLargeError`` over 1 MiB; labels the API server refuses as
    ``secrets.check_labels`` words them."""
    raw = json.dumps(to_helm(version), separators=(",", ":")).encode()
    inner = base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0))
    data = {"release": base64.b64encode(inner).decode()}
    kept = gzip.compress(version.extensions.encode(), mtime=0) if version.extensions else b""
    if kept:
        data[EXTENSIONS_KEY] = base64.b64encode(kept).decode()
    if len(inner) + len(kept) > secrets.MAX_SECRET_BYTES:
        raise TooLargeError(
            f'release "{version.name}" revision {revision(version)} is '
            f"{(len(inner) + len(kept)) / (1024 * 1024):.1f} MiB once compressed, over the 1 MiB limit of a "
            "Kubernetes Secret; nothing was applied")
    all_labels = {k: v for k, v in version.labels.items() if k not in SYSTEM_LABELS}
    if adopted_mark:
        all_labels[ADOPTED_LABEL] = "true"
    all_labels.update({NAME_LABEL: version.name, OWNER_LABEL: OWNER,
                       STATUS_LABEL: version.status.value, VERSION_LABEL: str(revision(version)),
                       stamp: str(int(time.time()))})
    meta: dict[str, Any] = {"name": secret_name(version.name, revision(version)),
                            "namespace": version.namespace, "labels": all_labels}
    if version.chart_source:
        meta["annotations"] = {SOURCE_ANNOTATION: version.chart_source}
    secret = {"apiVersion": "v1", "kind": "Secret", "type": SECRET_TYPE, "metadata": meta, "data": data}
    secrets.check_labels(secret)
    return secret


def decode(secret: Mapping[str, Any]) -> rel.ReleaseVersion:
    """The version a Helm release Secret stores; ``StorageError`` naming it if corrupt."""
    meta = secret.get("metadata") or {}
    where = f'Secret "{meta.get("name")}" in namespace "{meta.get("namespace")}"'
    try:
        data = secret.get("data") or {}
        inner = base64.b64decode(base64.b64decode(data["release"]))
        if inner[:3] == _GZIP_MAGIC:
            inner = gzip.decompress(inner)
        record = json.loads(inner)
        if not record.get("namespace"):
            record["namespace"] = meta.get("namespace") or ""
        source = (meta.get("annotations") or {}).get(SOURCE_ANNOTATION, "")
        version = from_helm(record, chart_source=source, labels=custom_labels(meta.get("labels") or {}))
        if EXTENSIONS_KEY in data:
            version = version.replace(extensions=gzip.decompress(base64.b64decode(data[EXTENSIONS_KEY])).decode())
        return version
    except (KeyError, ValueError, TypeError, OSError, EOFError, AttributeError) as exc:
        raise StorageError(f"{where} is not a valid Helm release: {exc}") from exc


def custom_labels(labels: Mapping[str, Any]) -> dict[str, str]:
    """A Helm release Secret's labels but Helm's system labels and the adopted mark (helm's
    ``filterSystemLabels``, which gives ``release.Labels``)."""
    return {str(k): str(v) for k, v in labels.items() if k not in SYSTEM_LABELS and k != ADOPTED_LABEL}


def adopted(secret: Mapping[str, Any]) -> bool:
    """True for a Helm Secret helm-core adopted (and kept)."""
    return bool(((secret.get("metadata") or {}).get("labels") or {}).get(ADOPTED_LABEL))


# ----------------------------------------------------------------------------- the driver

class HelmSecretsDriver:
    """``Driver`` over Helm's release Secrets; versions are revisions (``next_version`` counts).

    ``hide_adopted`` leaves out Secrets marked adopted (the adopting view reads the release
    from helm-core's storage then)."""

    def __init__(self, client: kclient.ClusterClient, *, hide_adopted: bool = False) -> None:
        self._client = client
        self._hide_adopted = hide_adopted
        # Helm keeps no claim: the controller's claim lives on helm-core's Release object, as
        # for ours (the CLI never claims, so it needs no Release CRD).
        self._claims = secrets.SecretsDriver(client)
        # The next update of a Secret this driver wrote (a hook starting, the result) is made
        # over its resourceVersion without reading it first.
        self._written = written_secrets.WrittenSecrets(client)

    def check(self, version: rel.ReleaseVersion) -> None:
        encode(version)

    def claim(self, namespace: str, name: str, *, annotation: str, claimant: str,
              new: bool = False) -> str:
        return self._claims.claim(namespace, name, annotation=annotation, claimant=claimant, new=new)

    def claimant(self, namespace: str, name: str, *, annotation: str) -> str | None:
        return self._claims.claimant(namespace, name, annotation=annotation)

    def owner_reference(self, namespace: str, name: str) -> dict[str, object] | None:
        # Helm's release has no owner object: its objects carry helm's labels and annotations
        # only, as helm's do, and need no Release (nor its CRD, which a Helm user's cluster may
        # lack). A Release a claim made is no owner either: it holds no version.
        return None

    def _ref(self, namespace: str, name: str, version: ulid.ULID) -> kclient.ObjectRef:
        number = rel.revision_of(version)
        if number is None:
            raise secrets.missing_version(namespace, name, version)
        return kclient.ObjectRef("v1", "Secret", secret_name(name, number), namespace)

    def next_version(self, after: ulid.ULID | None) -> ulid.ULID:
        """Helm's next revision: one more than ``after``'s (1 for a new release)."""
        return rel.revision_version((rel.revision_of(after) or 0) + 1 if after is not None else 1)

    def _secrets(self, namespace: str, name: str = "") -> list[dict[str, Any]]:
        found = self._client.list("v1", "Secret", namespace=namespace, label_selector=selector(name))
        return [s for s in found if s.get("type") == SECRET_TYPE
                and not (self._hide_adopted and adopted(s))]

    def secrets_of(self, namespace: str, name: str) -> list[dict[str, Any]]:
        """The release's Helm Secrets as stored (adopted ones left out when hidden)."""
        return self._secrets(namespace, name)

    def create(self, version: rel.ReleaseVersion) -> None:
        try:
            created = self._client.create(encode(version))
        except ConflictError as exc:
            raise secrets.exists_error(version) from exc
        self._written.created(created)

    def update(self, version: rel.ReleaseVersion) -> None:
        def over(meta: Mapping[str, Any]) -> dict[str, Any]:  # the stored Secret's adopted mark kept
            return encode(version, adopted_mark=adopted({"metadata": meta}), stamp="modifiedAt")
        try:
            self._written.replace(self._ref(version.namespace, version.name, version.version), over)
        except NotFoundError as exc:
            raise secrets.missing_version(version.namespace, version.name, version.version) from exc

    def get(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        try:
            secret = self._client.get(self._ref(namespace, name, version))
        except NotFoundError as exc:
            raise secrets.missing_version(namespace, name, version) from exc
        if secret.get("type") != SECRET_TYPE or (self._hide_adopted and adopted(secret)):
            raise secrets.missing_version(namespace, name, version)
        return decode(secret)

    def history(self, namespace: str, name: str) -> list[rel.ReleaseVersion]:
        return rel.sort_history(decode(s) for s in self._secrets(namespace, name))

    def delete(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        stored = self.get(namespace, name, version)
        self._written.forget(namespace, secret_name(name, revision(stored)))
        try:
            self._client.delete(self._ref(namespace, name, version))
        except NotFoundError as exc:
            raise secrets.missing_version(namespace, name, version) from exc
        return stored

    def list_latest(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        return secrets.latest_of_each(self.list_all(namespace))

    def list_all(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        # Like helm's List: a record that does not decode is skipped, not fatal to the listing
        # (helm-core's own releases are listed through here too when adopting).
        return [v for v in map(_decoded_or_none, self._secrets(namespace)) if v is not None]


def _decoded_or_none(secret: Mapping[str, Any]) -> rel.ReleaseVersion | None:
    try:
        return decode(secret)
    except StorageError:
        return None
