"""install, upgrade, rollback, uninstall, get, history, list, test on the real API server."""
from __future__ import annotations

from pathlib import Path

import pytest

from e2e import release_kit as kit
from helm_core.action import config, get, history, install, rollback, uninstall, upgrade
from helm_core.action import list as list_action
from helm_core.action import test as test_action
from helm_core.action import hooks
from helm_core.errors import ConflictError, HelmError, ReleaseExistsError, TooLargeError
from helm_core.kube import client as kclient
from helm_core.kube import live
from helm_core.storage import release as rel
from helm_core.storage import secrets

pytestmark = pytest.mark.e2e


@pytest.fixture
def cfg(hc: live.LiveClient) -> config.Configuration:
    return kit.configuration(hc)


def _chart(tmp_path: Path, **kw) -> object:
    templates = {"a.yaml": kit.configmap("a"),
                 "b.yaml": kit.configmap("b", condition=".Values.withB"),
                 "kept.yaml": kit.configmap("kept", keep=True, condition=".Values.withKept"),
                 "NOTES.txt": "Hello from {{ .Release.Name }}"}
    return kit.chart(tmp_path, templates, values="greeting: hello\nwithB: true\nwithKept: true\n", **kw)


def test_install_upgrade_rollback_uninstall_lifecycle(cfg: config.Configuration, namespace: str,
                                                      tmp_path: Path) -> None:
    client = cfg.client
    chart = _chart(tmp_path)
    first = install.run(cfg, chart, {"greeting": "hi"}, install.InstallOptions(
        name="web", namespace=namespace, chart_source=str(tmp_path)))
    assert first.status is rel.Status.DEPLOYED
    a = kit.get(client, "ConfigMap", "a", namespace)
    assert a["data"] == {"greeting": "hi"}
    assert [r["kind"] for r in a["metadata"]["ownerReferences"]] == ["Release"]
    assert a["metadata"]["annotations"]["meta.helm.sh/release-name"] == "web"
    stored = get.run(cfg, "web", namespace)
    assert stored.notes == "Hello from web"
    assert "name: b" in stored.manifest
    assert get.values(stored) == {"greeting": "hi"}
    assert get.values(stored, all_values=True)["withB"] is True

    second = upgrade.run(cfg, chart, {"withB": False, "withKept": False},
                         upgrade.UpgradeOptions(name="web", namespace=namespace))
    assert second.version > first.version
    assert not kit.exists(client, "ConfigMap", "b", namespace)
    assert kit.exists(client, "ConfigMap", "kept", namespace)
    assert kit.get(client, "ConfigMap", "a", namespace)["data"] == {"greeting": "hello"}
    statuses = [v.status for v in history.run(cfg, "web", namespace)]
    assert statuses == [rel.Status.SUPERSEDED, rel.Status.DEPLOYED]

    third = rollback.run(cfg, "web", namespace, first.version)
    assert third.version > second.version
    assert third.description == f"Rollback to {first.version}"
    assert kit.exists(client, "ConfigMap", "b", namespace)
    assert kit.get(client, "ConfigMap", "a", namespace)["data"] == {"greeting": "hi"}
    assert [v.status for v in history.run(cfg, "web", namespace)] == [
        rel.Status.SUPERSEDED, rel.Status.SUPERSEDED, rel.Status.DEPLOYED]
    listed = list_action.run(cfg, list_action.ListOptions(namespace=namespace))
    assert [(v.name, v.version) for v in listed] == [("web", third.version)]

    result = uninstall.run(cfg, "web", namespace, uninstall.UninstallOptions(wait=True))
    assert [ref.name for ref in result.kept] == ["kept"]
    assert result.info.endswith('release "web" uninstalled')
    assert not kit.exists(client, "ConfigMap", "a", namespace)
    assert not kit.exists(client, "ConfigMap", "b", namespace)
    kept = kit.get(client, "ConfigMap", "kept", namespace)
    assert "ownerReferences" not in kept["metadata"]
    assert cfg.driver.history(namespace, "web") == []
    assert not kit.exists(client, "Release", "web", namespace, secrets.RELEASE_API_VERSION)


def test_install_refuses_a_name_in_use_and_an_object_owned_elsewhere(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    cfg.client.apply({"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": "a", "namespace": namespace}})
    chart = kit.chart(tmp_path, {"a.yaml": kit.configmap("a")})
    options = install.InstallOptions(name="web", namespace=namespace)
    with pytest.raises(ConflictError) as caught:
        install.run(cfg, chart, {}, options)
    assert str(caught.value) == (
        f'Unable to continue with install: ConfigMap "a" in namespace "{namespace}" exists and '
        'cannot be imported into the current release: invalid ownership metadata; label '
        'validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"; '
        'annotation validation error: missing key "meta.helm.sh/release-name": must be set to '
        f'"web"; annotation validation error: missing key "meta.helm.sh/release-namespace": '
        f'must be set to "{namespace}"')
    # as helm: refused before anything is stored, so the same install says the same again
    assert cfg.driver.history(namespace, "web") == []
    assert not kit.exists(cfg.client, "Release", "web", namespace, secrets.RELEASE_API_VERSION)
    with pytest.raises(ConflictError, match="^Unable to continue with install: ConfigMap"):
        install.run(cfg, chart, {}, options)
    adopted = install.run(cfg, chart, {}, install.InstallOptions(
        name="web", namespace=namespace, take_ownership=True))
    assert adopted.status is rel.Status.DEPLOYED
    assert kit.get(cfg.client, "ConfigMap", "a", namespace)["data"] == {"greeting": "hello"}
    with pytest.raises(ReleaseExistsError, match="^cannot re-use a name that is still in use$"):
        install.run(cfg, chart, {}, options)


def test_dry_run_stores_and_applies_nothing(cfg: config.Configuration, namespace: str,
                                            tmp_path: Path) -> None:
    chart = kit.chart(tmp_path, {"a.yaml": kit.configmap("a")})
    dry = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=namespace,
                                                             dry_run=True))
    assert dry.status is rel.Status.PENDING_INSTALL
    assert "kind: ConfigMap" in dry.manifest
    assert not kit.exists(cfg.client, "ConfigMap", "a", namespace)
    assert cfg.driver.history(namespace, "web") == []


def test_a_release_too_big_is_refused_before_anything_is_applied(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    import os
    blob = os.urandom(900 * 1024).hex()  # incompressible, 1.8 MB of text
    chart = kit.chart(tmp_path, {"a.yaml": kit.configmap("a"),
                                 "big.yaml": kit.configmap("big", data="{{ .Values.blob | quote }}")})
    with pytest.raises(TooLargeError, match="over the 1 MiB limit of a Kubernetes Secret; nothing was applied$"):
        install.run(cfg, chart, {"blob": blob}, install.InstallOptions(name="web", namespace=namespace))
    assert not kit.exists(cfg.client, "ConfigMap", "a", namespace)
    assert cfg.driver.history(namespace, "web") == []


def test_atomic_install_with_a_failing_hook_leaves_nothing(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    chart = kit.chart(tmp_path, {"a.yaml": kit.configmap("a"),
                                 "hook.yaml": kit.hook_job("migrate", "post-install", fail=True)})
    with pytest.raises(HelmError) as caught:
        install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=namespace,
                                                           atomic=True, timeout_s=60))
    assert str(caught.value) == ("release web failed, and has been uninstalled due to atomic being set: "
                                 "failed post-install: 1 error occurred:\n\t* job migrate failed: DeadlineExceeded\n\n")
    assert not kit.exists(cfg.client, "ConfigMap", "a", namespace)
    assert not kit.exists(cfg.client, "Job", "migrate", namespace, "batch/v1")
    assert cfg.driver.history(namespace, "web") == []


def test_atomic_upgrade_with_a_failing_hook_rolls_back(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    good = kit.chart(tmp_path / "good", {"a.yaml": kit.configmap("a")})
    first = install.run(cfg, good, {}, install.InstallOptions(name="web", namespace=namespace))
    bad = kit.chart(tmp_path / "bad", {"a.yaml": kit.configmap("a"), "b.yaml": kit.configmap("b"),
                                       "hook.yaml": kit.hook_job("check", "post-upgrade", fail=True)},
                    version="0.2.0")
    with pytest.raises(HelmError, match="^release web failed, and has been rolled back due to "
                                        "atomic being set: post-upgrade hooks failed: "):
        upgrade.run(cfg, bad, {"greeting": "new"}, upgrade.UpgradeOptions(
            name="web", namespace=namespace, atomic=True, timeout_s=60))
    versions = history.run(cfg, "web", namespace)
    assert [v.status for v in versions] == [rel.Status.SUPERSEDED, rel.Status.FAILED,
                                            rel.Status.DEPLOYED]
    assert versions[1].description == ('Upgrade "web" failed: post-upgrade hooks failed: 1 error occurred:\n'
                                       "\t* job check failed: DeadlineExceeded\n\n")
    assert versions[2].chart_version == "0.1.0"
    assert versions[2].description == f"Rollback to {first.version}"
    assert kit.get(cfg.client, "ConfigMap", "a", namespace)["data"] == {"greeting": "hello"}
    assert not kit.exists(cfg.client, "ConfigMap", "b", namespace)


def test_hooks_run_in_weight_order_with_delete_policies_and_test_runs_test_hooks(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    chart = kit.chart(tmp_path, {
        "a.yaml": kit.configmap("a"),
        "h1.yaml": kit.hook_job("second", "pre-install", weight=5),
        "h2.yaml": kit.hook_job("first", "pre-install", weight=-1, policy="hook-succeeded"),
        "t.yaml": kit.hook_job("smoke", "test"),
    })
    lines: list[str] = []
    logged = config.Configuration(client=cfg.client, driver=cfg.driver, log=lines.append,
                                  lock=cfg.lock)
    install.run(logged, chart, {}, install.InstallOptions(name="web", namespace=namespace))
    assert [line for line in lines if line.startswith("running")] == [
        f'running pre-install hook Job "first" in namespace "{namespace}"',
        f'running pre-install hook Job "second" in namespace "{namespace}"']
    assert not kit.exists(cfg.client, "Job", "first", namespace, "batch/v1")
    second = kit.get(cfg.client, "Job", "second", namespace, "batch/v1")
    assert second["metadata"]["ownerReferences"][0]["kind"] == "Release"
    assert not kit.exists(cfg.client, "Job", "smoke", namespace, "batch/v1")
    ran = test_action.run(cfg, "web", namespace, timeout_s=60)
    assert [ref.name for ref in ran] == ["smoke"]
    assert [h.name for h in hooks.parse(get.run(cfg, "web", namespace).hooks)] == [
        "second", "first", "smoke"]


def test_test_filters_as_helm_and_flux_name_them(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    """helm's ``--filter name=X`` / ``!name=X`` and Flux's ``spec.test.filters`` pick the tests."""
    chart = kit.chart(tmp_path, {"a.yaml": kit.configmap("a"), "t1.yaml": kit.hook_job("smoke", "test"),
                                 "t2.yaml": kit.hook_job("deep", "test", weight=1)})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=namespace))

    def ran(filters: test_action.TestFilters) -> list[str]:
        return [ref.name for ref in test_action.run(cfg, "web", namespace, timeout_s=60, filters=filters)]

    assert ran(test_action.filters_from_flags(["name=deep"])) == ["deep"]
    assert ran(test_action.filters_from_flags(["!name=deep"])) == ["smoke"]
    assert ran(test_action.filters_from_flags(["name=deep,name=smoke"])) == ["smoke", "deep"]
    assert ran(test_action.filters_from_flags(["name=smoke", "! name=smoke"])) == []
    report = test_action.after_release(cfg, get.run(cfg, "web", namespace), test_action.TestOptions(
        timeout_s=60, filters=test_action.filters_from_spec([{"name": "smoke", "exclude": True}])))
    assert [(r.name, r.phase) for r in report.results] == [("deep", "Succeeded")]


def test_lookup_and_capabilities_come_from_the_cluster(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    template = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: facts\ndata:\n"
                "  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
                "  apps: {{ .Capabilities.APIVersions.Has \"apps/v1/Deployment\" | quote }}\n"
                "  ns: {{ (lookup \"v1\" \"Namespace\" \"\" .Release.Namespace).metadata.name | quote }}\n")
    chart = kit.chart(tmp_path, {"facts.yaml": template})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=namespace))
    data = kit.get(cfg.client, "ConfigMap", "facts", namespace)["data"]
    assert data == {"kube": cfg.client.discover().server_version, "apps": "true", "ns": namespace}


def test_create_namespace_and_wait_for_a_deployment(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n"
                  "  replicas: 2\n  selector:\n    matchLabels: {app: x}\n  template:\n"
                  "    metadata:\n      labels: {app: x}\n    spec:\n      containers:\n"
                  "      - name: c\n        image: nginx\n")
    chart = kit.chart(tmp_path, {"d.yaml": deployment})
    target = f"{namespace}-new"
    try:
        install.run(cfg, chart, {}, install.InstallOptions(
            name="web", namespace=target, create_namespace=True, wait=True, timeout_s=120))
        app = kit.get(cfg.client, "Deployment", "app", target, "apps/v1")
        assert app["status"]["readyReplicas"] == 2
        uninstall.run(cfg, "web", target, uninstall.UninstallOptions(wait=True, timeout_s=120))
        assert not kit.exists(cfg.client, "Deployment", "app", target, "apps/v1")
    finally:
        cfg.client.delete(kclient.ObjectRef("v1", "Namespace", target))


def test_uninstall_keep_history_marks_uninstalled_and_crds_stay(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    group = f"{namespace}.example.com"
    crd = (f"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
           f"  name: widgets.{group}\nspec:\n  group: {group}\n  scope: Namespaced\n"
           f"  names: {{plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}}\n"
           f"  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n"
           f"      openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}\n")
    widget = f"apiVersion: {group}/v1\nkind: Widget\nmetadata:\n  name: w\nspec: {{size: 1}}\n"
    chart = kit.chart(tmp_path, {"w.yaml": widget}, extra={"crds/widget.yaml": crd})
    try:
        install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=namespace))
        assert kit.exists(cfg.client, "Widget", "w", namespace, f"{group}/v1")
        result = uninstall.run(cfg, "web", namespace, uninstall.UninstallOptions(keep_history=True))
        assert result.release is not None and result.release.status is rel.Status.UNINSTALLED
        assert [v.status for v in history.run(cfg, "web", namespace)] == [rel.Status.UNINSTALLED]
        assert not kit.exists(cfg.client, "Widget", "w", namespace, f"{group}/v1")
        assert kit.exists(cfg.client, "CustomResourceDefinition", f"widgets.{group}", "",
                          "apiextensions.k8s.io/v1")
        listed = list_action.run(cfg, list_action.ListOptions(
            namespace=namespace, statuses=frozenset({rel.Status.UNINSTALLED})))
        assert [v.name for v in listed] == ["web"]
    finally:
        cfg.client.delete(kclient.ObjectRef("apiextensions.k8s.io/v1", "CustomResourceDefinition",
                                            f"widgets.{group}"))


def test_rollback_and_delete_hooks_run_around_their_operations(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    lines: list[str] = []
    logged = config.Configuration(client=cfg.client, driver=cfg.driver, log=lines.append,
                                  lock=cfg.lock)
    chart = kit.chart(tmp_path, {
        "a.yaml": kit.configmap("a"),
        "r1.yaml": kit.hook_job("before-rollback", "pre-rollback"),
        "r2.yaml": kit.hook_job("after-rollback", "post-rollback"),
        "d1.yaml": kit.hook_job("before-delete", "pre-delete"),
        "d2.yaml": kit.hook_job("after-delete", "post-delete"),
    })
    install.run(logged, chart, {}, install.InstallOptions(name="web", namespace=namespace))
    upgrade.run(logged, chart, {"greeting": "two"},
                upgrade.UpgradeOptions(name="web", namespace=namespace))
    assert [line for line in lines if line.startswith("running")] == []
    rollback.run(logged, "web", namespace, options=rollback.RollbackOptions(timeout_s=60))
    uninstall.run(logged, "web", namespace, uninstall.UninstallOptions(keep_history=True,
                                                                       timeout_s=60))
    assert [line.split(" in namespace")[0] for line in lines if line.startswith("running")] == [
        'running pre-rollback hook Job "before-rollback"',
        'running post-rollback hook Job "after-rollback"',
        'running pre-delete hook Job "before-delete"',
        'running post-delete hook Job "after-delete"']
    done = kit.get(cfg.client, "Job", "after-delete", namespace, "batch/v1")
    assert any(c["type"] == "Complete" for c in done["status"]["conditions"])
    assert not kit.exists(cfg.client, "ConfigMap", "a", namespace)


def test_wait_timeout_marks_the_version_failed_with_the_reason(
        cfg: config.Configuration, namespace: str, tmp_path: Path) -> None:
    stuck = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n"
             "  selector:\n    matchLabels: {app: x}\n  template:\n    metadata:\n"
             "      labels: {app: x}\n    spec:\n      nodeSelector: {no-such-node: \"true\"}\n"
             "      containers:\n      - name: c\n        image: nginx\n")
    chart = kit.chart(tmp_path, {"d.yaml": stuck})
    with pytest.raises(HelmError) as caught:
        install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=namespace,
                                                           wait=True, timeout_s=3))
    assert str(caught.value).startswith(
        f'timed out after 3s waiting for 1 object(s) to be ready: Deployment "app" in namespace '
        f'"{namespace}": ')
    [failed] = history.run(cfg, "web", namespace)
    assert failed.status is rel.Status.FAILED
    assert failed.description == f'Release "web" failed: {caught.value}'
    assert kit.exists(cfg.client, "Deployment", "app", namespace, "apps/v1")
