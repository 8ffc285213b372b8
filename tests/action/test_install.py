"""install on the fake cluster: records, ownership, refusals, dry-run, size limit."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, install
from helm_core.errors import ConflictError, ReleaseExistsError, TooLargeError
from helm_core.kube import client as kclient
from helm_core.storage import release as rel
from tests.action.conftest import configmap, make_chart


def _cm(cfg: config.Configuration, name: str) -> dict:
    return cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", name, "apps"))


def test_install_applies_objects_owned_by_the_release_and_records_deployed(
        cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "NOTES.txt": "hi {{ .Release.Name }}"})
    done = install.run(cfg, chart, {"greeting": "yo"},
                       install.InstallOptions(name="web", namespace="apps", chart_source="here"))
    assert (done.status, done.description, done.notes) == (rel.Status.DEPLOYED, "Install complete",
                                                           "hi web")
    meta = _cm(cfg, "a")["metadata"]
    assert meta["labels"] == {"app.kubernetes.io/managed-by": "Helm"}
    assert meta["annotations"] == {"meta.helm.sh/release-name": "web",
                                   "meta.helm.sh/release-namespace": "apps"}
    assert [r["kind"] for r in meta["ownerReferences"]] == ["Release"]
    [stored] = cfg.driver.history("apps", "web")
    assert stored == done
    assert stored.user_values == {"greeting": "yo"}
    assert stored.chart_values == {"greeting": "yo"}
    assert stored.manifest.startswith("---\n# Source: demo/templates/a.yaml\napiVersion: v1\n")


def test_install_refuses_a_name_with_history(cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    options = install.InstallOptions(name="web", namespace="apps")
    install.run(cfg, chart, {}, options)
    with pytest.raises(ReleaseExistsError, match="^cannot re-use a name that is still in use$"):
        install.run(cfg, chart, {}, options)


@pytest.mark.parametrize("name", ["Web", "a_b", "x" * 54], ids=["upper", "underscore", "too-long"])
def test_install_refuses_names_helm_refuses(cfg: config.Configuration, tmp_path: Path,
                                            name: str) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    with pytest.raises(ValueError, match=f'^release name "{name}": invalid release name, must match regex '):
        install.run(cfg, chart, {}, install.InstallOptions(name=name, namespace="apps"))


def test_install_refuses_an_object_of_another_release_unless_taking_ownership(
        cfg: config.Configuration, tmp_path: Path) -> None:
    cfg.client.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "a", "namespace": "apps", "labels": {"app.kubernetes.io/managed-by": "Helm"},
        "annotations": {"meta.helm.sh/release-name": "other",
                        "meta.helm.sh/release-namespace": "apps"}}})
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    with pytest.raises(ConflictError) as caught:
        install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace="apps"))
    assert str(caught.value) == (
        'Unable to continue with install: ConfigMap "a" in namespace "apps" exists and cannot be '
        'imported into the current release: invalid ownership metadata; annotation validation '
        'error: key "meta.helm.sh/release-name" must equal "web": current value is "other"')
    assert cfg.driver.history("apps", "web") == []  # as helm: refused before anything is stored
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace="apps", take_ownership=True))
    assert _cm(cfg, "a")["metadata"]["annotations"]["meta.helm.sh/release-name"] == "web"


def test_dry_run_changes_nothing(cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    dry = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace="apps",
                                                             dry_run=True))
    assert (dry.status, dry.description) == (rel.Status.PENDING_INSTALL, "Dry run complete")
    assert cfg.client.list("v1", "ConfigMap", namespace="apps") == []
    assert cfg.driver.history("apps", "web") == []


def test_too_big_release_is_refused_before_anything_is_applied(
        cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"),
                                  "b.yaml": configmap("b").replace(".Values.greeting", ".Values.blob")})
    blob = __import__("os").urandom(700 * 1024).hex()
    with pytest.raises(TooLargeError, match="nothing was applied$"):
        install.run(cfg, chart, {"blob": blob}, install.InstallOptions(name="web", namespace="apps"))
    assert cfg.client.list("v1", "ConfigMap", namespace="apps") == []
    assert cfg.driver.history("apps", "web") == []


def test_an_unserved_kind_fails_validation_naming_it(cfg: config.Configuration,
                                                    tmp_path: Path) -> None:
    widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
    chart = make_chart(tmp_path, {"w.yaml": widget})
    with pytest.raises(Exception, match='^resource mapping not found for name: "w" namespace: "": '
                                        'no matches for kind "Widget" in version "example.com/v1"; '
                                        "ensure CRDs are installed first$"):
        install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace="apps"))
    assert cfg.driver.history("apps", "web") == []


def test_capabilities_come_from_the_cluster(cfg: config.Configuration, tmp_path: Path) -> None:
    cm = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\ndata:\n"
          "  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
          "  lease: {{ .Capabilities.APIVersions.Has \"coordination.k8s.io/v1/Lease\" | quote }}\n"
          "  batch: {{ .Capabilities.APIVersions.Has \"batch/v1\" | quote }}\n")
    install.run(cfg, make_chart(tmp_path, {"c.yaml": cm}), {},
                install.InstallOptions(name="web", namespace="apps"))
    assert _cm(cfg, "caps")["data"] == {"kube": "v1.37.0", "lease": "true", "batch": "false"}


def test_install_reads_the_release_object_once(cluster, tmp_path: Path) -> None:
    """The driver keeps the Release it created: the objects' owner reference needs no read."""
    from helm_core.kube import fake
    from helm_core.storage import secrets

    class Counting(fake.FakeClient):
        def __init__(self, cluster):
            super().__init__(cluster)
            self.gets: list[str] = []

        def get(self, ref):
            self.gets.append(f"{ref.kind}/{ref.name}")
            return super().get(ref)

    client = Counting(cluster)
    cfg = config.Configuration(client=client, driver=secrets.SecretsDriver(client))
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace="apps"))
    assert client.gets.count("Release/web") == 1  # ensure_release; owner() reuses it
    release = client.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", "apps"))
    assert _cm(cfg, "a")["metadata"]["ownerReferences"][0]["uid"] == release["metadata"]["uid"]
