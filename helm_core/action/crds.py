"""The chart's ``crds/`` under a policy (Flux's ``install.crds`` / ``upgrade.crds``).

Policies:
- ``Skip``: the chart's CRDs are left alone (neither created nor changed).
- ``Create``: the missing ones are created; existing ones are left as they are (Helm's own
  behaviour on install).
- ``CreateReplace``: the missing ones are created and existing ones replaced by the chart's
  (server-side apply, forced), so a chart's new CRD versions and schemas reach the cluster on
  upgrade. CRDs a chart no longer ships are never deleted, nor their custom resources.

Only ``CustomResourceDefinition`` objects count: other kinds found in ``crds/`` are skipped
with a log line (they belong in ``templates/``). Created or replaced CRDs are waited for until
Established, then discovery is refreshed so the templates' custom resources resolve.
Defaults as Flux: ``Create`` on install, ``Skip`` on upgrade.
"""
from __future__ import annotations

from typing import Any

from helm_core.action import config
from helm_core.chart import model
from helm_core.errors import HelmError
from helm_core.kube import client as kclient
from helm_core.kube import resources
from helm_core.kube import wait as kwait

SKIP, CREATE, CREATE_REPLACE = "Skip", "Create", "CreateReplace"
POLICIES = (SKIP, CREATE, CREATE_REPLACE)
INSTALL_DEFAULT = CREATE
UPGRADE_DEFAULT = SKIP
CRD_KIND = "CustomResourceDefinition"
CRD_GROUP = "apiextensions.k8s.io"


def check_policy(policy: str, *, default: str) -> str:
    """``policy`` (``default`` when empty), or Flux's error naming the valid values."""
    if not policy:
        return default
    if policy not in POLICIES:
        raise HelmError(f"invalid CRD policy '{policy}', valid values are '{SKIP}', '{CREATE}' "
                        f"or '{CREATE_REPLACE}'")
    return policy


def crd_objects(crds: list[tuple[str, model.File]], *, log: Any = None) -> list[dict[str, Any]]:
    """The CustomResourceDefinitions of a chart's ``crds/`` files (several documents per file)."""
    objects = []
    for chart_path, crd in crds:
        for obj in config.parse_manifest(crd.data.decode("utf-8", "replace"),
                                         source=f"{chart_path}/{crd.name}"):
            ref = kclient.ObjectRef.of(obj)
            if obj.get("kind") == CRD_KIND and ref.group == CRD_GROUP:
                objects.append(obj)
            elif log is not None:
                log(f"ignoring {ref} in {chart_path}/{crd.name}: crds/ is for "
                    f"CustomResourceDefinitions only")
    return objects


def apply(cfg: config.Configuration, crds: list[tuple[str, model.File]], *, policy: str,
          timeout_s: float) -> list[kclient.ObjectRef]:
    """Apply the chart's CRDs under ``policy`` (module rules); returns the CRDs created or
    replaced."""
    policy = check_policy(policy, default=INSTALL_DEFAULT)
    if policy == SKIP:
        if crds:
            cfg.log(f"skipping CustomResourceDefinition apply: policy is set to {SKIP}")
        return []
    objects = crd_objects(crds, log=cfg.log)
    if not objects:
        return []
    created, existing = resources.create_missing(cfg.client, objects)
    changed = list(created)
    if policy == CREATE_REPLACE and existing:
        by_ref = {kclient.ObjectRef.of(o): o for o in objects}
        for ref in existing:
            cfg.client.apply(by_ref[ref], force=True)
            changed.append(ref)
    if changed:
        kwait.wait_ready(cfg.client, changed, options=config.wait_options(cfg, timeout_s))
        cfg.client.discover(refresh=True)
    return changed
