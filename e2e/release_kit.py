"""Shared helpers of the release e2e tests: a live ``Configuration`` and fixture charts."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import yaml

from helm_core.action import config
from helm_core.chart import loader, model
from helm_core.errors import NotFoundError
from helm_core.kube import client as kclient
from helm_core.kube import live
from helm_core.kube import wait as kwait
from helm_core.storage import lock as lock_mod
from helm_core.storage import secrets
from tests import chartkit

CRD_FILE = Path(__file__).resolve().parents[1] / "manifests" / "crds" / "release.yaml"
FAILING_JOB_DEADLINE_S = 1
"""A hook Job whose pod can never be scheduled fails with DeadlineExceeded after this long."""


def install_release_crd(client: kclient.ClusterClient) -> None:
    """Apply manifests/crds/release.yaml and wait until Releases are served."""
    crd = yaml.safe_load(CRD_FILE.read_text())
    client.apply(crd, force=True)
    kwait.wait_ready(client, [kclient.ObjectRef.of(crd)], options=kwait.WaitOptions(timeout_s=30))
    deadline = time.monotonic() + 30
    while client.discover(refresh=True).find(secrets.RELEASE_API_VERSION, secrets.RELEASE_KIND) is None:
        assert time.monotonic() < deadline, "Release CRD never served"
        time.sleep(0.2)


def connect(kubeconfig: Path) -> live.LiveClient:
    return live.connect(live.LiveOptions(kubeconfig=str(kubeconfig)))


def configuration(client: kclient.ClusterClient, *, lock_s: int = 30) -> config.Configuration:
    return config.Configuration(client=client, driver=secrets.SecretsDriver(client),
                                lock=lock_mod.LockOptions(duration_s=lock_s, renew_every_s=lock_s / 3))


def configmap(name: str, *, data: str = "{{ .Values.greeting | quote }}", keep: bool = False,
              condition: str = "") -> str:
    annotations = '  annotations:\n    helm.sh/resource-policy: keep\n' if keep else ""
    body = (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{annotations}"
            f"data:\n  greeting: {data}\n")
    return f"{{{{- if {condition} }}}}\n{body}{{{{- end }}}}\n" if condition else body


def hook_job(name: str, event: str, *, fail: bool = False, weight: int = 0,
             policy: str = "before-hook-creation") -> str:
    """A hook Job: completes (kwok runs its pod), or fails when its pod cannot be scheduled."""
    failing = (f"  activeDeadlineSeconds: {FAILING_JOB_DEADLINE_S}\n" if fail else "")
    selector = "      nodeSelector:\n        no-such-node: \"true\"\n" if fail else ""
    return (f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  annotations:\n"
            f"    helm.sh/hook: {event}\n    helm.sh/hook-weight: \"{weight}\"\n"
            f"    helm.sh/hook-delete-policy: {policy}\n"
            f"spec:\n{failing}  backoffLimit: 0\n  template:\n    spec:\n{selector}"
            f"      restartPolicy: Never\n      containers:\n      - name: main\n"
            f"        image: busybox\n")


#: A hook Job that fails for the event named by ``.Values.fail``; one that never starts
#: (suspended) for the event named by ``.Values.hang`` (both empty: no hook).
FAILING_HOOKS = ("{{- if .Values.fail }}\n"
                 + hook_job("{{ .Release.Name }}-check", "{{ .Values.fail }}", fail=True)
                 + "{{- end }}\n{{- if .Values.hang }}\n---\n"
                 + hook_job("{{ .Release.Name }}-hang", "{{ .Values.hang }}").replace(
                     "spec:\n", "spec:\n  suspend: true\n", 1)
                 + "{{- end }}\n")


def chart(root: Path, templates: dict[str, str], *, values: str = "greeting: hello\n",
          name: str = "demo", version: str = "0.1.0", extra: dict[str, str] | None = None
          ) -> model.Chart:
    files: dict[str, str | bytes] = {"Chart.yaml": chartkit.chart_yaml(name, version),
                                     "values.yaml": values}
    files.update({f"templates/{k}": v for k, v in templates.items()})
    files.update(extra or {})
    return loader.load(chartkit.write_chart(root, files))


def exists(client: kclient.ClusterClient, kind: str, name: str, namespace: str = "",
           api_version: str = "v1") -> bool:
    try:
        obj = client.get(kclient.ObjectRef(api_version, kind, name, namespace))
    except NotFoundError:
        return False
    return not (obj.get("metadata") or {}).get("deletionTimestamp")


def get(client: kclient.ClusterClient, kind: str, name: str, namespace: str = "",
        api_version: str = "v1") -> dict[str, Any]:
    return client.get(kclient.ObjectRef(api_version, kind, name, namespace))
