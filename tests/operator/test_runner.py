"""A request reconciled by the runner on the fake cluster seam: install, nothing-to-do, upgrade,
failure policy (Stalled at once, retries with backoff, budget), claims and deletion."""
from __future__ import annotations

import base64
import contextlib
import copy
from typing import Any

import kopf
import pytest

from helm_core import errors as core_errors
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.kube import wait as kwait
from helm_core.sources import cache as cache_mod
from helm_core.sources import package
from helm_operator import metrics as metrics_mod
from helm_operator import ondemand, reconcile, runner, settings

NS = "team"
RESOURCES = fake.FAKE_RESOURCES + (
    kclient.ApiResource("helm.sh/v1alpha1", "HelmRequest", "helmrequests", True),
    kclient.ApiResource("v1", "ServiceAccount", "serviceaccounts", True),
    kclient.ApiResource("batch/v1", "Job", "jobs", True),
)
CHART = package.archive_bytes("demo", [
    ("Chart.yaml", b"apiVersion: v2\nname: demo\nversion: 1.0.0\nappVersion: '2'\n"),
    ("values.schema.json", b'{"type": "object", "properties": {"n": {"type": "integer"}}}'),
    ("templates/cm.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
                          b"data:\n  count: {{ .Values.n | default 0 | quote }}\n"),
])


class World:
    def __init__(self, tmp_path, **security: Any) -> None:
        self.cluster = fake.FakeCluster(RESOURCES)
        self.admin = self.cluster.client("helm-operator")
        self.events: list[tuple[str, str, str]] = []
        self.rt = reconcile.Runtime(
            settings=settings.OperatorSettings(security=settings.SecuritySettings(**security)),
            admin=self.admin,
            impersonate=lambda sa, ns: self.admin.impersonate(service_account=sa, namespace=ns),
            cache=cache_mod.Cache(tmp_path / "cache"),
            post_event=lambda body, type_, *, reason, message: self.events.append((type_, reason, message)))
        self.metrics = metrics_mod.Metrics()
        self.admin.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "chart", "namespace": NS},
                           "binaryData": {"demo.tgz": base64.b64encode(CHART).decode()}})
        self.admin.create({"apiVersion": "v1", "kind": "ServiceAccount",
                           "metadata": {"name": "deployer", "namespace": NS}})

    def request(self, name: str = "app", **spec: Any) -> dict[str, Any]:
        body = {"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest",
                "metadata": {"name": name, "namespace": NS, "generation": 1, "uid": f"uid-{name}"},
                "spec": {"chart": {"configMapRef": {"name": "chart"}}, "serviceAccountName": "deployer",
                         "install": {"wait": False}, "upgrade": {"wait": False}, **spec}}
        return self.admin.create(body)

    def current(self, name: str = "app") -> dict[str, Any]:
        return self.admin.get(kclient.ObjectRef("helm.sh/v1alpha1", "HelmRequest", name, NS))

    def edit(self, name: str = "app", **spec: Any) -> dict[str, Any]:
        body = copy.deepcopy(self.current(name))
        body["spec"].update(spec)
        body["metadata"]["generation"] += 1
        return self.admin.replace(body)

    def run(self, name: str = "app", retry: int = 0) -> dict[str, Any]:
        runner.apply(self.rt, self.current(name), retry=retry, metrics=self.metrics)
        return self.current(name)

    def configmap(self, name: str) -> dict[str, Any]:
        return self.admin.get(kclient.ObjectRef("v1", "ConfigMap", name, NS))


def conditions(obj: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c["reason"]) for c in obj["status"]["conditions"]}


def test_install_then_nothing_to_do_then_upgrade_on_values_change(tmp_path):
    w = World(tmp_path)
    w.request(values={"n": 1})
    obj = w.run()
    assert conditions(obj) == {"Ready": ("True", "InstallSucceeded"), "Released": ("True", "InstallSucceeded")}
    assert (obj["status"]["chartName"], obj["status"]["appVersion"]) == ("demo", "2")
    assert w.configmap("app")["data"] == {"count": "1"}
    first = obj["status"]["version"]
    assert w.run()["status"]["version"] == first  # idle: no new version
    w.edit(values={"n": 2})
    obj = w.run()
    assert obj["status"]["version"] > first
    assert conditions(obj)["Ready"] == ("True", "UpgradeSucceeded")
    assert w.configmap("app")["data"] == {"count": "2"}
    assert [e[1] for e in w.events] == ["InstallSucceeded", "UpgradeSucceeded"]


def test_schema_failure_stalls_at_once_with_an_event(tmp_path):
    """A failure of the install before it stored anything is Flux's failed install (Released
    and Ready ``InstallFailed``, our cause heading the message), not counted in installFailures
    nor remediated; the same values fail the same way: Stalled with our cause."""
    w = World(tmp_path)
    w.request(values={"n": "x"}, install={"wait": False, "remediation": {"retries": 2}})
    with pytest.raises(kopf.PermanentError):
        w.run()
    obj = w.current()
    assert conditions(obj) == {"Ready": ("False", "InstallFailed"), "Stalled": ("True", "ValuesInvalid"),
                               "Released": ("False", "InstallFailed")}
    # the condition says what helm says (jsonschema v6's wording), on one block of lines
    stalled = next(c for c in obj["status"]["conditions"] if c["type"] == "Stalled")
    assert stalled["message"].startswith("Helm install failed for release team/app with chart demo@1.0.0: "
                                         "ValuesInvalid: values don't meet the specifications of the schema(s)")
    assert stalled["message"].endswith(":\n- at '/n': got string, want integer")
    assert (obj["status"]["failures"], obj["status"].get("installFailures")) == (1, None)
    assert w.events[-1] == ("Warning", "InstallFailed", stalled["message"])
    with pytest.raises(Exception):
        w.configmap("app")


#: The fake cluster keeps a Job's status as applied: this hook Job has failed already.
FAILED_HOOK = (b"{{ if .Values.fail }}apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-migrate\n"
               b"  annotations:\n    helm.sh/hook: {{ .Values.fail }}\nstatus:\n  conditions:\n  - type: Failed\n"
               b"    status: \"True\"\n    reason: BackoffLimitExceeded\n{{ end }}")
HOOKED_SOURCE = [
    ("Chart.yaml", b"apiVersion: v2\nname: demo\nversion: 1.0.0\n"), ("templates/hook.yaml", FAILED_HOOK),
    ("templates/cm.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
                          b"data:\n  count: {{ .Values.n | default 0 | quote }}\n")]
HOOKED = package.archive_bytes("demo", HOOKED_SOURCE)


def _hooked(w: World) -> None:
    w.admin.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "hooked", "namespace": NS},
                    "binaryData": {"demo.tgz": base64.b64encode(HOOKED).decode()}})


def _version_states(w: World) -> list[str]:
    return [labels["status"] for labels in _version_labels(w)]


def _version_labels(w: World) -> list[dict[str, str]]:
    secrets = [s for s in w.admin.list("v1", "Secret", namespace=NS) if s.get("type") == "helm.sh/release-version"]
    return [s["metadata"]["labels"] for s in sorted(secrets, key=lambda s: s["metadata"]["name"])]


def test_a_failed_install_hook_is_a_failed_install_remediated_and_retried_as_flux_does(tmp_path):
    """Flux counts a hook that fails in installFailures, runs the remediation and retries while
    retries remain, and leaves the last failure as it is (``remediateLastFailure`` defaults to
    false on install). Flux's reasons on the conditions and Events; helm's words
    (tests/action/test_hooks.py) in the messages after our finer cause."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"fail": "pre-install"},
              install={"wait": False, "remediation": {"retries": 1}})
    with pytest.raises(kopf.TemporaryError):
        w.run()
    obj = w.current()
    said = ("Helm install failed for release team/app with chart demo@1.0.0: HookFailed: failed pre-install: "
            "1 error occurred:\n\t* job app-migrate failed: BackoffLimitExceeded")
    failed = _version_labels(w)[0]["version"]
    remedied = f"Helm uninstall remediation for release team/app.v{failed} with chart demo@1.0.0 succeeded"
    message = f"{said} (remediation: {remedied})"
    assert conditions(obj) == {"Ready": ("False", "UninstallSucceeded"), "Released": ("False", "InstallFailed"),
                               "Remediated": ("True", "UninstallSucceeded"),
                               "Reconciling": ("True", "ProgressingWithRetry")}
    assert condition_message(obj, "Remediated") == remedied
    assert {c["message"] for c in obj["status"]["conditions"] if c["type"] != "Remediated"} == {message}
    assert (obj["status"]["installFailures"], obj["status"]["failures"]) == (1, 1)
    assert w.events[-2:] == [("Normal", "UninstallSucceeded", remedied), ("Warning", "InstallFailed", message)]
    assert _version_states(w) == ["uninstalled"]  # Flux's install remediation: uninstall, history kept

    with pytest.raises(kopf.PermanentError):  # the retry fails the same way: no retries left
        w.run(retry=1)
    obj = w.current()
    assert conditions(obj) == {"Ready": ("False", "InstallFailed"), "Released": ("False", "InstallFailed"),
                               "Stalled": ("True", "RetriesExceeded")}
    # Flux's stall: its count on Stalled, the failure as it is on Ready, Released and the Event
    assert condition_message(obj, "Stalled") == "Failed to install after 2 attempt(s)"
    assert condition_message(obj, "Ready") == condition_message(obj, "Released") == said
    assert (obj["status"]["installFailures"], obj["status"]["failures"]) == (2, 2)
    assert w.events[-1] == ("Warning", "InstallFailed", said)
    # the last failure left for debugging; the install marked the uninstalled version superseded,
    # as helm's install --replace (which Flux runs) does
    assert _version_states(w) == ["superseded", "failed"]


@pytest.mark.parametrize("remediate_last", [None, True], ids=["flux-default", "remediateLastFailure"])
def test_a_failed_upgrade_is_left_or_rolled_back_as_remediate_last_failure_says(tmp_path, remediate_last):
    """Flux's ``upgrade.remediation.remediateLastFailure`` defaults to false with no retries:
    the failed upgrade stays as it is (its objects applied) for debugging; true rolls it back."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"n": 1})
    assert conditions(w.run())["Ready"] == ("True", "InstallSucceeded")
    asked = {} if remediate_last is None else {"remediateLastFailure": remediate_last}
    w.edit(values={"n": 2, "fail": "post-upgrade"}, upgrade={"wait": False, "remediation": asked})
    with pytest.raises(kopf.PermanentError):  # remediation.retries defaults to 0
        w.run()
    obj = w.current()
    said = ("Helm upgrade failed for release team/app with chart demo@1.0.0: HookFailed: post-upgrade hooks failed: "
            "1 error occurred:\n\t* job app-migrate failed: BackoffLimitExceeded")
    assert (obj["status"]["upgradeFailures"], obj["status"].get("installFailures")) == (1, None)
    assert conditions(obj)["Stalled"] == ("True", "RetriesExceeded")
    assert conditions(obj)["Released"] == ("False", "UpgradeFailed")
    if remediate_last is None:
        assert condition_message(obj, "Stalled") == "Failed to upgrade after 1 attempt(s)"
        assert condition_message(obj, "Ready") == said
        assert conditions(obj)["Ready"] == ("False", "UpgradeFailed")
        assert "Remediated" not in conditions(obj)
        assert [e[:2] for e in w.events[1:]] == [("Warning", "UpgradeFailed")]
        assert _version_states(w) == ["deployed", "failed"]
        assert w.configmap("app")["data"] == {"count": "2"}  # as the failed upgrade left it
    else:
        rolled = f"Helm rollback to previous release team/app.v{_version_labels(w)[0]['version']} with chart demo@1.0.0 " \
            "succeeded"
        assert condition_message(obj, "Stalled") == "Failed to upgrade after 1 attempt(s)"
        assert condition_message(obj, "Ready") == f"{said} (remediation: {rolled})"
        assert conditions(obj)["Ready"] == ("False", "RollbackSucceeded")
        assert conditions(obj)["Remediated"] == ("True", "RollbackSucceeded")
        assert [e[:2] for e in w.events[1:]] == [("Normal", "RollbackSucceeded"), ("Warning", "UpgradeFailed")]
        assert _version_states(w) == ["superseded", "failed", "deployed"]
        assert w.configmap("app")["data"] == {"count": "1"}  # the rollback brought the first values back


@pytest.mark.parametrize("fail", ["post-upgrade", "post-install,post-upgrade"], ids=["installs", "install-fails"])
def test_an_upgrade_uninstalled_by_its_remediation_is_installed_again_as_flux_does(tmp_path, fail):
    """Flux's upgrade remediation ``strategy: uninstall``: once the failed upgrade is uninstalled
    the release is installed again, even when the upgrade's retries are used up (its
    ``IsUninstallAfterUpgrade``); that install's failure counts against the install's budget."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"n": 1})
    w.run()
    w.edit(values={"n": 2, "fail": fail}, upgrade={"wait": False, "remediation": {
        "strategy": "uninstall", "remediateLastFailure": True}})
    with pytest.raises(kopf.TemporaryError):  # no retries left, yet the uninstalled release is installed again
        w.run()
    obj = w.current()
    assert conditions(obj) == {"Ready": ("False", "UninstallSucceeded"), "Released": ("False", "UpgradeFailed"),
                               "Remediated": ("True", "UninstallSucceeded"),
                               "Reconciling": ("True", "ProgressingWithRetry")}
    assert obj["status"]["upgradeFailures"] == 1
    # helm uninstalls the newest only, and marks the older deployed one superseded
    assert _version_states(w) == ["superseded", "uninstalled"]
    if fail == "post-upgrade":
        obj = w.run(retry=1)
        assert conditions(obj)["Ready"] == ("True", "InstallSucceeded")
        # a new version installed over the uninstalled one (superseded by new release, as helm's)
        assert _version_states(w)[1:] == ["superseded", "deployed"]
        assert w.configmap("app")["data"] == {"count": "2"}
        return
    with pytest.raises(kopf.PermanentError):  # install.remediation.retries is 0: no more tries
        w.run(retry=1)
    obj = w.current()
    assert conditions(obj)["Stalled"] == ("True", "RetriesExceeded")
    assert conditions(obj)["Released"] == ("False", "InstallFailed")
    assert obj["status"]["installFailures"] == 1
    assert _version_states(w) == ["superseded", "superseded", "failed"]  # left, as Flux leaves it


def test_the_rollback_target_is_never_a_version_an_install_replaced(tmp_path):
    """A version the install after an uninstall marked "superseded by new release" was
    uninstalled (its objects gone): a later upgrade's rollback skips it for the version
    released before it."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"n": 1})
    w.run()
    w.edit(values={"n": 2, "fail": "post-install,post-upgrade"}, upgrade={"wait": False, "remediation": {
        "strategy": "uninstall", "remediateLastFailure": True}}, install={"wait": False})
    with pytest.raises(kopf.TemporaryError):  # the upgrade fails and is uninstalled
        w.run()
    with pytest.raises(kopf.PermanentError):  # the install over it fails and is left
        w.run(retry=1)
    assert _version_states(w) == ["superseded", "superseded", "failed"]
    w.edit(values={"n": 3, "fail": "post-upgrade"}, upgrade={"wait": False, "remediation": {
        "strategy": "rollback", "remediateLastFailure": True}})
    with pytest.raises(kopf.PermanentError):
        w.run()
    obj = w.current()
    assert conditions(obj)["Remediated"] == ("True", "RollbackSucceeded")
    assert w.configmap("app")["data"] == {"count": "1"}  # the first version's, not the uninstalled one's


def test_an_install_after_an_upgrades_uninstall_has_its_own_retries(tmp_path):
    """The install that follows an upgrade's uninstall remediation is retried while
    ``install.remediation.retries`` remain, counted in installFailures from zero, whatever
    attempt the upgrade had reached."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"n": 1})
    w.run()
    w.edit(values={"n": 2, "fail": "post-install,post-upgrade"},
           install={"wait": False, "remediation": {"retries": 1}},
           upgrade={"wait": False, "remediation": {"retries": 1, "strategy": "uninstall"}})
    with pytest.raises(kopf.TemporaryError):
        w.run()
    with pytest.raises(kopf.TemporaryError):  # the install's first failure: one install retry left
        w.run(retry=1)
    obj = w.current()
    assert conditions(obj)["Released"] == ("False", "InstallFailed")
    assert (obj["status"]["installFailures"], obj["status"]["upgradeFailures"]) == (1, 1)
    with pytest.raises(kopf.PermanentError):
        w.run(retry=2)
    assert conditions(w.current())["Stalled"] == ("True", "RetriesExceeded")


def test_an_object_refused_after_the_version_is_stored_is_a_failed_install_as_flux_counts_it(
        tmp_path, monkeypatch):
    """The API server refusing an object during apply fails the install once its version is
    stored: Flux counts and remediates it like any failed install (not a transient error
    retried, nor a Forbidden stalled at once); our finer cause heads the message."""
    refuse = fake.FakeClient.apply

    def refusing(self, obj, **kw):
        if obj.get("kind") == "ConfigMap" and obj["metadata"]["name"] == "app" and not kw.get("dry_run"):
            raise core_errors.ForbiddenError('configmaps "app" is forbidden: denied by a webhook')
        return refuse(self, obj, **kw)

    monkeypatch.setattr(fake.FakeClient, "apply", refusing)
    w = World(tmp_path)
    w.request(install={"wait": False, "remediation": {"retries": 1}})
    with pytest.raises(kopf.TemporaryError):
        w.run()
    obj = w.current()
    assert conditions(obj)["Released"] == ("False", "InstallFailed")
    assert conditions(obj)["Ready"] == ("False", "UninstallSucceeded")
    failed = _version_labels(w)[0]["version"]
    assert condition_message(obj, "Released") == (
        'Helm install failed for release team/app with chart demo@1.0.0: Forbidden: configmaps "app" is forbidden: '
        f"denied by a webhook (remediation: Helm uninstall remediation for release team/app.v{failed} with chart "
        "demo@1.0.0 succeeded)")
    assert obj["status"]["installFailures"] == 1
    assert _version_states(w) == ["uninstalled"]


def test_an_atomic_upgrade_is_a_failed_upgrade_undone_and_retried(tmp_path):
    """``upgrade.atomic`` rolls a failed upgrade back itself: that is its remediation (Remediated
    RollbackSucceeded); the failure counts, is told as its cause, and is retried while
    retries remain, instead of stalling at once."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"n": 1})
    w.run()
    w.edit(values={"n": 2, "fail": "pre-upgrade"},
           upgrade={"wait": False, "atomic": True, "remediation": {"retries": 1}})
    with pytest.raises(kopf.TemporaryError):
        w.run()
    obj = w.current()
    assert conditions(obj) == {"Ready": ("False", "RollbackSucceeded"), "Released": ("False", "UpgradeFailed"),
                               "Remediated": ("True", "RollbackSucceeded"),
                               "Reconciling": ("True", "ProgressingWithRetry")}
    assert condition_message(obj, "Remediated") == "rollback by upgrade.atomic"
    assert condition_message(obj, "Released").startswith(
        "Helm upgrade failed for release team/app with chart demo@1.0.0: "
        "HookFailed: release app failed, and has been rolled back due to atomic being set: pre-upgrade hooks")
    assert obj["status"]["upgradeFailures"] == 1
    assert w.configmap("app")["data"] == {"count": "1"}


def test_failed_tests_count_against_the_action_that_ran_them_unless_it_ignores_them(tmp_path):
    """Flux's ``<action>.remediation.ignoreTestFailures``, by default ``test.ignoreFailures``:
    an install whose tests fail is a failed install (installFailures, reason TestFailed) unless
    its remediation ignores them; the upgrade's own setting wins over ``test.ignoreFailures``."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"fail": "test"}, test={"enable": True})
    with pytest.raises(kopf.PermanentError):
        w.run()
    obj = w.current()
    # Flux's: the install succeeded (Released True), its tests did not (TestSuccess False), and
    # Ready says the latter
    assert conditions(obj) == {"Ready": ("False", "TestFailed"), "Released": ("True", "InstallSucceeded"),
                               "TestSuccess": ("False", "TestFailed"), "Stalled": ("True", "RetriesExceeded")}
    version = _version_labels(w)[0]["version"]
    assert condition_message(obj, "Released") == (
        f"Helm install succeeded for release team/app.v{version} with chart demo@1.0.0")
    assert condition_message(obj, "TestSuccess").startswith(
        f"Helm test failed for release team/app.v{version} with chart demo@1.0.0: test hooks of release app failed: ")
    assert (obj["status"].get("installFailures"), obj["status"].get("upgradeFailures")) == (1, None)
    assert [e[:2] for e in w.events[-2:]] == [("Normal", "InstallSucceeded"), ("Warning", "TestFailed")]
    assert w.events[-1][2] == condition_message(obj, "TestSuccess")
    assert obj["status"]["lastTest"]["phase"] == "Failed"

    w.request("second", chart={"configMapRef": {"name": "hooked"}}, values={"fail": "test"}, test={"enable": True},
              install={"wait": False, "remediation": {"ignoreTestFailures": True}})
    second = w.run("second")
    # Flux's summary: the failure not counted nor remediated, but Ready says it (test.ignoreFailures
    # unset); nothing to retry, nothing stalled
    assert conditions(second) == {"Ready": ("False", "TestFailed"), "Released": ("True", "InstallSucceeded"),
                                  "TestSuccess": ("False", "TestFailed")}
    assert condition_message(second, "Ready") == condition_message(second, "TestSuccess")
    assert not second["status"].get("installFailures")
    assert [e[:2] for e in w.events[-2:]] == [("Normal", "InstallSucceeded"), ("Warning", "TestFailed")]
    again = interval_check(w, "second")  # found as released: Ready stays as Flux's summary says
    assert again["metadata"]["resourceVersion"] == second["metadata"]["resourceVersion"]
    assert second["status"]["lastTest"]["phase"] == "Failed"

    w.edit(values={"fail": "test", "n": 2}, test={"enable": True, "ignoreFailures": True},
           upgrade={"wait": False, "remediation": {"ignoreTestFailures": False}})
    with pytest.raises(kopf.PermanentError):
        w.run()
    obj = w.current()
    assert conditions(obj)["Ready"] == ("False", "TestFailed")
    assert obj["status"]["upgradeFailures"] == 1


def test_tests_after_a_release_post_flux_s_test_events(tmp_path):
    """Flux's TestSuccess condition and Events of the tests run after an install or upgrade:
    True TestSucceeded (a Normal Event after the release's own), False TestFailed for a failure
    ignored (a Warning Event; the request stays Ready); gone, and no Event, when no tests ran."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"n": 1}, test={"enable": True})
    obj = w.run()
    version = obj["status"]["version"]
    said = f"Helm test succeeded for release team/app.v{version} with chart demo@1.0.0: no test hooks"
    assert [e[:2] for e in w.events[-2:]] == [("Normal", "InstallSucceeded"), ("Normal", "TestSucceeded")]
    assert w.events[-1][2] == said == condition_message(obj, "TestSuccess")  # no test hook without fail
    assert conditions(obj)["TestSuccess"] == ("True", "TestSucceeded")
    w.edit(values={"n": 2, "fail": "test"}, test={"enable": True, "ignoreFailures": True})
    obj = w.run()
    assert conditions(obj)["Ready"] == ("True", "UpgradeSucceeded")
    assert conditions(obj)["TestSuccess"] == ("False", "TestFailed")
    assert [e[:2] for e in w.events[-2:]] == [("Normal", "UpgradeSucceeded"), ("Warning", "TestFailed")]
    assert w.events[-1][2] == condition_message(obj, "TestSuccess")
    assert w.events[-1][2].startswith(f"Helm test failed for release team/app.v{obj['status']['version']} "
                                      "with chart demo@1.0.0: test hooks of release app failed: ")
    w.edit(values={"n": 3}, test={"enable": False})
    obj = w.run()
    assert w.events[-1][:2] == ("Normal", "UpgradeSucceeded")
    assert "TestSuccess" not in conditions(obj)


@pytest.mark.parametrize(("ignored", "count"), [(None, "1"), (True, "2")], ids=["skipped", "ignored"])
def test_the_rollback_target_skips_a_version_whose_tests_failed_unless_ignored_as_flux(tmp_path, ignored, count):
    """Flux's ``History.Previous``: the upgrade remediation rolls back to the newest version
    released before the failed one whose tests did not fail, or to that version when
    ``upgrade.remediation.ignoreTestFailures`` (by default ``test.ignoreFailures``) is true."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"n": 1}, test={"enable": True})
    first = w.run()["status"]["version"]
    w.edit(values={"n": 2, "fail": "test"}, test={"enable": True, "ignoreFailures": True})
    obj = w.run()  # its test failed, ignored: Ready
    assert (conditions(obj)["Ready"], obj["status"]["lastTest"]["phase"]) == (("True", "UpgradeSucceeded"), "Failed")
    second = obj["status"]["version"]
    asked = {"remediateLastFailure": True} if ignored is None else {
        "remediateLastFailure": True, "ignoreTestFailures": ignored}
    w.edit(values={"n": 3, "fail": "post-upgrade"}, test={"enable": True},
           upgrade={"wait": False, "remediation": asked})
    with pytest.raises(kopf.PermanentError):
        w.run()
    obj = w.current()
    target = first if ignored is None else second
    assert condition_message(obj, "Remediated") == (
        f"Helm rollback to previous release team/app.v{target} with chart demo@1.0.0 succeeded")
    assert w.configmap("app")["data"] == {"count": count}


@pytest.mark.parametrize(("action", "asked", "expected"), [
    ("install", {}, False), ("install", {"retries": 3}, False),
    ("install", {"remediateLastFailure": True}, True),
    ("upgrade", {}, False), ("upgrade", {"retries": 1}, True),
    ("upgrade", {"retries": 1, "remediateLastFailure": False}, False),
    ("upgrade", {"remediateLastFailure": True}, True)])
def test_remediate_last_failure_defaults_as_flux(action, asked, expected):
    assert reconcile.remediates_last_failure({action: {"remediation": asked}}, action) is expected


@pytest.mark.parametrize(("spec", "expected"), [
    ({}, False), ({"test": {"ignoreFailures": True}}, True),
    ({"test": {"ignoreFailures": True}, "upgrade": {"remediation": {"ignoreTestFailures": False}}}, False),
    ({"upgrade": {"remediation": {"ignoreTestFailures": True}}}, True),
    ({"install": {"remediation": {"ignoreTestFailures": True}}}, False)])
def test_ignore_test_failures_falls_back_to_the_test_spec_as_flux(spec, expected):
    assert reconcile.ignores_test_failures(spec, "upgrade") is expected


def condition_message(obj: dict[str, Any], type_: str) -> str:
    return next(c["message"] for c in obj["status"]["conditions"] if c["type"] == type_)


def test_disable_schema_validation_per_action(tmp_path):
    """Flux's ``install``/``upgrade.disableSchemaValidation``: helm's --skip-schema-validation."""
    w = World(tmp_path)
    w.request(values={"n": "x"}, install={"wait": False, "disableSchemaValidation": True})
    obj = w.run()
    assert conditions(obj)["Ready"] == ("True", "InstallSucceeded")
    assert w.configmap("app")["data"] == {"count": "x"}
    w.edit(values={"n": "y"})  # the upgrade checks again
    with pytest.raises(kopf.PermanentError):
        w.run()
    assert conditions(w.current())["Ready"] == ("False", "UpgradeFailed")
    w.edit(upgrade={"wait": False, "disableSchemaValidation": True})
    assert conditions(w.run())["Ready"] == ("True", "UpgradeSucceeded")
    assert w.configmap("app")["data"] == {"count": "y"}


def test_missing_service_account_stalls(tmp_path):
    w = World(tmp_path)
    w.request(serviceAccountName="nobody")
    with pytest.raises(kopf.PermanentError) as info:
        w.run()
    assert str(info.value) == "service account team/nobody not found"
    assert conditions(w.current())["Stalled"] == ("True", "ServiceAccountNotFound")


def test_required_service_account(tmp_path):
    w = World(tmp_path, require_service_account=True)
    w.request(serviceAccountName="")
    with pytest.raises(kopf.PermanentError):
        w.run()
    assert conditions(w.current())["Stalled"] == ("True", "ServiceAccountRequired")


def test_second_request_for_a_release_is_stalled_and_its_deletion_leaves_the_release(tmp_path):
    w = World(tmp_path)
    w.request("first", releaseName="shared")
    w.run("first")
    w.request("second", releaseName="shared")
    with pytest.raises(kopf.PermanentError):
        w.run("second")
    assert conditions(w.current("second"))["Stalled"] == ("True", "ReleaseClaimed")
    runner.delete(w.rt, w.current("second"), retry=0, metrics=w.metrics)
    assert w.events[-1] == ("Normal", "UninstallSucceeded",
                            "release team/shared belongs to HelmRequest team/first; left in place")
    assert w.configmap("shared")["data"] == {"count": "0"}


def test_transient_errors_retry_with_backoff_until_the_budget(tmp_path, monkeypatch):
    w = World(tmp_path)
    w.request()
    from helm_core import errors as core
    def locked(*_a: Any, **_k: Any) -> None:
        raise core.LockedError("another operation (upgrade) is in progress on release app")

    monkeypatch.setattr(reconcile, "claim", locked)
    with pytest.raises(kopf.TemporaryError) as info:
        w.run(retry=2)
    assert info.value.delay == 20.0
    assert conditions(w.current())["Reconciling"] == ("True", "ProgressingWithRetry")
    assert "Stalled" not in conditions(w.current())
    with pytest.raises(kopf.PermanentError) as final:
        w.run(retry=runner.MAX_TRANSIENT_RETRIES)
    assert str(final.value).endswith(f"(gave up after {runner.MAX_TRANSIENT_RETRIES + 1} attempts)")
    assert conditions(w.current())["Stalled"][0] == "True"


def test_suspended_request_does_nothing(tmp_path):
    w = World(tmp_path)
    w.request(suspend=True)
    obj = w.run()
    assert conditions(obj)["Ready"] == ("Unknown", "Suspended")
    with pytest.raises(Exception):
        w.configmap("app")


def test_delete_uninstalls_and_a_gone_release_is_fine(tmp_path):
    w = World(tmp_path)
    w.request()
    w.run()
    version = w.current()["status"]["version"]
    runner.delete(w.rt, w.current(), retry=0, metrics=w.metrics)
    assert w.events[-1] == ("Normal", "UninstallSucceeded",
                            f"Helm uninstall succeeded for release team/app.v{version} with chart demo@1.0.0")
    with pytest.raises(Exception):
        w.configmap("app")
    runner.delete(w.rt, w.current(), retry=0, metrics=w.metrics)
    assert w.events[-1] == ("Normal", "UninstallSucceeded", "release team/app was already gone")


@pytest.mark.parametrize(("uninstall", "waits"), [({}, True), ({"wait": False}, False)], ids=["default", "no-wait"])
def test_uninstalls_wait_for_the_objects_to_go_unless_told_not_to_as_flux(tmp_path, monkeypatch, uninstall, waits):
    """Flux's uninstall waits (``disableWait: false``), on deletion and in an uninstall
    remediation alike; ``uninstall.wait: false`` does not. A wait past its timeout still ends
    the uninstall (helm's words in the Event); the retry finds the release gone."""
    waited: list[list[str]] = []

    def never_gone(client, refs, *, options):
        waited.append([f"{r.kind}/{r.name}" for r in refs])
        raise core_errors.WaitError("timed out", timed_out=True)

    monkeypatch.setattr(kwait, "wait_deleted", never_gone)
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"fail": "post-install"}, uninstall=uninstall,
              install={"wait": False, "remediation": {"retries": 1, "strategy": "uninstall"}})
    with pytest.raises(kopf.TemporaryError):
        w.run()
    remedy = f"Helm uninstall remediation for release team/app.v{_version_labels(w)[0]['version']} with chart demo@1.0.0"
    said = ("Helm install failed for release team/app with chart demo@1.0.0: HookFailed: failed post-install: "
            "1 error occurred:\n\t* job app-migrate failed: BackoffLimitExceeded "
            + (f"(remediation: {remedy} failed: uninstallation completed with 1 error(s): context deadline exceeded)"
               if waits else f"(remediation: {remedy} succeeded)"))
    assert w.events[-2][:2] == (("Warning", "UninstallFailed") if waits else ("Normal", "UninstallSucceeded"))
    assert w.events[-1] == ("Warning", "InstallFailed", said)
    assert _version_states(w) == ["uninstalled"]  # the wait failed, the uninstall went on
    w.edit(values={})
    version = w.run(retry=0)["status"]["version"]
    with pytest.raises(kopf.TemporaryError) if waits else contextlib.nullcontext():
        runner.delete(w.rt, w.current(), retry=0, metrics=w.metrics)
    assert waited == ([["ConfigMap/app"]] * 2 if waits else [])
    if waits:
        assert w.events[-1] == ("Warning", "UninstallFailed",
                                f"Helm uninstall failed for release team/app.v{version} with chart demo@1.0.0: "
                                "uninstallation completed with 1 error(s): context deadline exceeded")
        runner.delete(w.rt, w.current(), retry=1, metrics=w.metrics)
        assert w.events[-1] == ("Normal", "UninstallSucceeded", "release team/app was already gone")
    else:
        assert w.events[-1] == ("Normal", "UninstallSucceeded",
                                f"Helm uninstall succeeded for release team/app.v{version} with chart demo@1.0.0")
    assert _version_states(w) == []


def test_a_failed_pre_delete_hook_is_retried_then_the_finalizer_released(tmp_path):
    """helm stops an uninstall at a failed pre-delete hook; the deletion retries it (Flux retries
    a failed uninstall), then gives up rather than hold the finalizer for good."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"fail": "pre-delete"})
    version = w.run()["status"]["version"]
    said = (f"Helm uninstall failed for release team/app.v{version} with chart demo@1.0.0: "
            "1 error occurred:\n\t* job app-migrate failed: BackoffLimitExceeded")
    for retry in range(runner.MAX_DELETE_RETRIES):
        with pytest.raises(kopf.TemporaryError):
            runner.delete(w.rt, w.current(), retry=retry, metrics=w.metrics)
        assert w.events[-1] == ("Warning", "UninstallFailed", said)
    runner.delete(w.rt, w.current(), retry=runner.MAX_DELETE_RETRIES, metrics=w.metrics)
    assert w.events[-1] == ("Warning", "FinalizerReleased", f"{said} (finalizer released anyway)")
    assert w.configmap("app")  # the release stays


def test_delete_in_a_namespace_being_deleted_logs_instead_of_posting_events(tmp_path):
    """The API server refuses Events in a terminating namespace (and Kopf would retry each
    with ERROR lines): the uninstall still runs, its outcome goes to the log."""
    from helm_core.support import records

    w = World(tmp_path)
    lines: list[str] = []
    w.rt = records.replace(w.rt, post_event=runner.unless_terminating(w.admin, w.rt.post_event, lines.append))
    w.request()
    version = w.run()["status"]["version"]
    posted = len(w.events)
    deleted = copy.deepcopy(w.current())
    deleted["metadata"]["deletionTimestamp"] = "2026-11-26T00:00:00Z"
    w.admin.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS},
                    "status": {"phase": "Terminating"}})
    runner.delete(w.rt, deleted, retry=0, metrics=w.metrics)
    assert len(w.events) == posted
    assert lines == [f"team/app: Normal UninstallSucceeded: Helm uninstall succeeded for release team/app.v{version} "
                     "with chart demo@1.0.0 (no Event: the namespace is being deleted)"]
    with pytest.raises(Exception):
        w.configmap("app")
    w.request("other")  # a request not being deleted still gets its Events
    w.run("other")
    assert len(w.events) > posted and len(lines) == 1


def test_idle_check_writes_nothing(tmp_path):
    w = World(tmp_path)
    w.request()
    w.run()
    before = w.current()["metadata"]["resourceVersion"]
    runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    assert w.current()["metadata"]["resourceVersion"] == before


STUCK = package.archive_bytes("stuck", [
    ("Chart.yaml", b"apiVersion: v2\nname: stuck\nversion: 1.0.0\n"),
    # the fake cluster never makes a Deployment ready
    ("templates/d.yaml", b"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
                         b"spec:\n  replicas: 1\n"),
])


def test_a_wait_superseded_by_a_newer_generation_returns_without_retry_or_remediation(tmp_path):
    w = World(tmp_path)
    w.admin.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "stuck", "namespace": NS},
                    "binaryData": {"stuck.tgz": base64.b64encode(STUCK).decode()}})
    asked: list[dict[str, Any]] = []

    def superseded(meta):
        asked.append(dict(meta))
        return "superseded by generation 2"

    w.rt.superseded = superseded
    w.request(chart={"configMapRef": {"name": "stuck"}},
              install={"wait": True, "timeout": "5m", "remediation": {"strategy": "uninstall"}})
    obj = w.run()  # returns: no TemporaryError/PermanentError for Kopf
    assert asked and asked[0]["uid"] == "uid-app" and asked[0]["generation"] == 1
    # Flux's: Ready False HealthCheckCanceled naming the trigger, the newer generation next
    assert conditions(obj) == {"Ready": ("False", "HealthCheckCanceled"), "Reconciling": ("True", "Progressing")}
    assert condition_message(obj, "Ready") == f"New reconciliation triggered by HelmRequest/{NS}/app"
    detail = ("superseded by generation 2: the install of generation 1 stopped waiting and its "
              "version was marked failed")
    assert condition_message(obj, "Reconciling") == detail
    assert w.events[-1] == ("Normal", "HealthCheckCanceled",
                            f"Health checks canceled due to new reconciliation triggered by HelmRequest/{NS}/app: {detail}")
    assert "failures" not in obj["status"] and "installFailures" not in obj["status"]
    secrets = w.admin.list("v1", "Secret", namespace=NS)
    [version] = [s for s in secrets if s.get("type") == "helm.sh/release-version"]
    assert version["metadata"]["labels"]["status"] == "failed"  # not uninstalled: no remediation
    assert w.admin.list("coordination.k8s.io/v1", "Lease", namespace=NS) == []
    text = w.metrics.exposition().decode()
    assert 'helm_operator_reconciles_total{action="install",result="superseded"} 1.0' in text


def _versions(w: World) -> list[str]:
    return sorted(s["metadata"]["name"] for s in w.admin.list("v1", "Secret", namespace=NS)
                  if s.get("type") == "helm.sh/release-version")


def _installed_then_edited(w: World, mode: str) -> str:
    """The version installed with ``driftDetection.mode``, its ConfigMap then edited by hand."""
    w.request(values={"n": 3}, driftDetection={"mode": mode})
    version = w.run()["status"]["version"]
    edited = w.configmap("app")
    edited["data"]["count"] = "99"
    w.admin.replace(edited)
    return str(version)


def test_drift_is_reported_in_warn_mode_and_only_drifted_objects_reapplied_in_enabled_mode(tmp_path):
    w = World(tmp_path)
    version = _installed_then_edited(w, "warn")
    runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    line = f'ConfigMap "app" in namespace "{NS}": changed (data)'
    assert w.current()["status"]["drift"] == [line]
    assert w.configmap("app")["data"] == {"count": "99"}
    assert w.events[-1] == ("Warning", "DriftDetected", line)

    body = copy.deepcopy(w.current())
    body["spec"]["driftDetection"] = {"mode": "enabled"}  # (same generation: no upgrade)
    w.admin.replace(body)
    posted = len(w.events)
    runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    obj = w.current()
    assert w.configmap("app")["data"] == {"count": "3"}
    assert obj["status"]["version"] == version  # ("drift" leaves status on a real server:
    # the fake's apply merges and never drops a field; e2e checks that)
    assert _versions(w) == [f"app.{version.lower()}"]  # no new version
    # Flux's Events: the drift found (as in warn mode), then its correction
    assert w.events[posted:] == [("Warning", "DriftDetected", line), ("Normal", "DriftCorrected", line)]
    assert conditions(obj)["Ready"] == ("True", "InstallSucceeded")

    w.admin.delete(kclient.ObjectRef("v1", "ConfigMap", "app", NS))
    runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    assert w.configmap("app")["data"] == {"count": "3"}
    assert w.events[-1] == ("Normal", "DriftCorrected", f'ConfigMap "app" in namespace "{NS}": deleted')
    assert w.admin.list("coordination.k8s.io/v1", "Lease", namespace=NS) == []


def test_a_failed_drift_correction_keeps_the_release_and_is_tried_again_with_backoff(tmp_path, monkeypatch):
    """Flux's CorrectClusterDrift: a correction that fails fails nothing (no failure counted,
    Released as it was): Ready Unknown and Reconciling ProgressingWithRetry "correcting cluster
    drift", a Warning DriftCorrectionFailed Event after DriftDetected, tried again with backoff
    until the drift is corrected."""
    apply_ = fake.FakeClient.apply

    def refusing(self, obj, **kw):
        if obj.get("kind") == "ConfigMap" and not kw.get("dry_run") and obj["data"] == {"count": "3"}:
            raise core_errors.ForbiddenError('configmaps "app" is forbidden: denied by a webhook')
        return apply_(self, obj, **kw)

    w = World(tmp_path)
    version = _installed_then_edited(w, "enabled")
    monkeypatch.setattr(fake.FakeClient, "apply", refusing)
    posted = len(w.events)
    with pytest.raises(runner.CheckAgain) as first:
        runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    obj = w.current()
    line = f'ConfigMap "app" in namespace "{NS}": changed (data)'
    said = (f"Failed to correct cluster state of release {NS}/app.v{version}:\n"
            'configmaps "app" is forbidden: denied by a webhook')
    assert w.events[posted:] == [("Warning", "DriftDetected", line), ("Warning", "DriftCorrectionFailed", said)]
    assert conditions(obj) == {"Ready": ("Unknown", "Progressing"), "Reconciling": ("True", "ProgressingWithRetry"),
                               "Released": ("True", "InstallSucceeded")}
    assert condition_message(obj, "Ready") == condition_message(obj, "Reconciling") == "correcting cluster drift"
    assert obj["status"]["drift"] == [line]
    assert obj["status"]["version"] == version and not obj["status"].get("installFailures")
    assert first.value.seconds == 5.0
    # the interval check is the retry (not left to a Kopf retry), and backs off
    assert runner._due_on_interval(obj["status"], 1)
    with pytest.raises(runner.CheckAgain) as second:
        runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    assert second.value.seconds == 10.0
    monkeypatch.setattr(fake.FakeClient, "apply", apply_)
    runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    obj = w.current()
    assert w.configmap("app")["data"] == {"count": "3"}
    assert w.events[-1] == ("Normal", "DriftCorrected", line)
    assert conditions(obj) == {"Ready": ("True", "InstallSucceeded"), "Released": ("True", "InstallSucceeded")}
    assert obj["status"]["failures"] == 0


def test_a_failed_drift_correction_says_each_refusal_on_its_own_line_as_flux():
    from helm_core.kube import resources
    from helm_operator import drift

    refused = resources.joined([core_errors.ForbiddenError("error 1"), core_errors.ClusterError("error 2")])
    assert drift.failure_message("ns/app.v01J", refused) == (
        "Failed to correct cluster state of release ns/app.v01J:\nerror 1\nerror 2")


def test_the_next_action_is_helm_cores_plan_over_the_stored_history(tmp_path):
    w = World(tmp_path)
    w.request(maxHistory=2)
    assert reconcile.planned_action(w.rt, w.current()) == "install"
    w.run()
    assert reconcile.planned_action(w.rt, w.current()) == "upgrade"
    for n in (1, 2, 3):
        w.edit(values={"n": n})
        w.run()
    assert len(_versions(w)) == 2  # maxHistory: the upgrade action pruned


def test_a_release_installed_and_claimed_is_annotated_with_its_request(tmp_path):
    w = World(tmp_path)
    w.request()
    w.run()
    release = w.admin.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "app", NS))
    assert release["metadata"]["annotations"]["helm.sh/helmrequest"] == f"{NS}/app"


def test_what_a_first_install_asks_of_the_cluster(tmp_path, monkeypatch):
    """Every request of a first install, by verb and kind (the API server's cost per install,
    docs/scale.md): the claim creates the Release under the release's lock without reading it
    first, so only Helm's storage is listed (adoption); the version's writes need no further reads; an
    install faster than the announce grace writes no Reconciling and no pending version (its
    Secret is created once, deployed)."""
    import collections

    w = World(tmp_path)
    w.request()
    body = w.current()
    calls: collections.Counter[str] = collections.Counter()
    order: list[str] = []
    for verb in ("get", "list", "create", "apply", "replace", "delete"):
        original = getattr(fake.FakeClient, verb)

        def counted(self, *args, _verb=verb, _original=original, **kwargs):
            first = args[0] if args else None
            kind = first.kind if isinstance(first, kclient.ObjectRef) else \
                args[1] if _verb == "list" else first.get("kind")
            call = f"{_verb} {kind}{'/' + kwargs['subresource'] if kwargs.get('subresource') else ''}"
            calls[call] += 1
            order.append(call)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(fake.FakeClient, verb, counted)
    runner.apply(w.rt, body, retry=0, metrics=w.metrics)
    monkeypatch.undo()
    assert conditions(w.current())["Ready"] == ("True", "InstallSucceeded")
    assert calls == {
        "apply HelmRequest/status": 1,  # Ready (Reconciling only for an install outlasting the grace)
        "get Namespace": 1, "get ServiceAccount": 1,  # both remembered for a minute
        "get ConfigMap": 2,  # the chart; the object about to be applied (adoption check)
        "create Release": 1, "create Lease": 1, "delete Lease": 1,
        # Helm's versions (adoption); helm-core's are known to be none: the claim created the
        # Release under the release's lock
        "list Secret": 1,
        "create Secret": 1, "apply Release/status": 1,  # deployed (pending likewise)
        "apply ConfigMap": 1,
    }
    assert order.index("create Lease") < order.index("create Release") < order.index("list Secret")


def _announcing_world(tmp_path, monkeypatch, grace_s: float) -> tuple[World, list[str]]:
    """A world whose runner announces after ``grace_s``; returns it and the Ready condition
    of every HelmRequest status write, in order."""
    w = World(tmp_path)
    w.rt.settings = settings.OperatorSettings(runtime=settings.RuntimeSettings(announce_after_s=grace_s))
    written: list[str] = []
    original = runner.write_status

    def recording(rt, body, new):
        original(rt, body, new)
        written.append(next(c["status"] for c in new["conditions"] if c["type"] == "Ready"))

    monkeypatch.setattr(runner, "write_status", recording)
    return w, written


def _slowed(monkeypatch, before_apply) -> None:
    original = reconcile.apply

    def slow(rt, body, **options):
        before_apply()
        return original(rt, body, **options)

    monkeypatch.setattr(reconcile, "apply", slow)


def test_an_install_outlasting_the_grace_shows_reconciling(tmp_path, monkeypatch):
    import time

    w, written = _announcing_world(tmp_path, monkeypatch, grace_s=0.05)
    w.request()
    seen: list[tuple[str, str]] = []

    def wait_for_the_announcement() -> None:
        deadline = time.monotonic() + 5
        while not written and time.monotonic() < deadline:
            time.sleep(0.01)
        seen.append(conditions(w.current())["Reconciling"])

    _slowed(monkeypatch, wait_for_the_announcement)
    obj = w.run()
    assert seen == [("True", "Progressing")]
    assert written == ["Unknown", "True"]
    assert conditions(obj) == {"Ready": ("True", "InstallSucceeded"), "Released": ("True", "InstallSucceeded")}


def test_an_install_within_the_grace_writes_its_result_alone(tmp_path, monkeypatch):
    w, written = _announcing_world(tmp_path, monkeypatch, grace_s=30)
    w.request()
    obj = w.run()
    assert written == ["True"]
    assert "Reconciling" not in conditions(obj)
    assert obj["status"]["observedGeneration"] == 1


def test_a_failure_within_the_grace_writes_its_verdict_alone(tmp_path, monkeypatch):
    w, written = _announcing_world(tmp_path, monkeypatch, grace_s=30)
    w.request(values={"n": "x"})
    with pytest.raises(kopf.PermanentError):
        w.run()
    assert written == ["False"]
    assert conditions(w.current())["Stalled"] == ("True", "ValuesInvalid")


def test_an_announcement_in_flight_never_lands_after_the_result(tmp_path, monkeypatch):
    """The race: the grace ends while the install finishes. The Reconciling write is under way
    (held here until the result is ready to be written); the result waits for it, so Ready is
    the last word."""
    import threading

    w = World(tmp_path)
    w.rt.settings = settings.OperatorSettings(runtime=settings.RuntimeSettings(announce_after_s=0.01))
    announcing, let_go = threading.Event(), threading.Event()
    original = runner.write_status
    order: list[str] = []

    def held(rt, body, new):
        ready = next(c["status"] for c in new["conditions"] if c["type"] == "Ready")
        if ready == "Unknown":
            announcing.set()
            let_go.wait(5)
        original(rt, body, new)
        order.append(ready)

    monkeypatch.setattr(runner, "write_status", held)
    _slowed(monkeypatch, lambda: announcing.wait(5))
    threading.Timer(0.2, let_go.set).start()  # the result is ready well before the announcement lands
    w.request()
    obj = w.run()
    assert order == ["Unknown", "True"]
    assert conditions(obj)["Ready"] == ("True", "InstallSucceeded")
    assert "Reconciling" not in conditions(obj)


def test_preserve_values_merges_the_request_values_over_the_deployed_ones(tmp_path):
    """Flux's ``upgrade.preserveValues`` (helm's --reuse-values); without it only the request's count."""
    w = World(tmp_path)
    w.request(values={"n": 1})
    w.run()
    w.edit(values={"other": True}, upgrade={"wait": False, "preserveValues": True})
    w.run()
    assert w.configmap("app")["data"] == {"count": "1"}  # n kept from the deployed version
    w.edit(values={"other": False}, upgrade={"wait": False})
    w.run()
    assert w.configmap("app")["data"] == {"count": "0"}  # the request's values alone


NOTE = "example.com/note"


def _annotate_by_hand(w: World) -> None:
    """``kubectl annotate``: another field manager writes one field of the release's ConfigMap."""
    w.cluster.client("kubectl").apply({"apiVersion": "v1", "kind": "ConfigMap",
                                       "metadata": {"name": "app", "namespace": NS,
                                                    "annotations": {NOTE: "by hand"}}})


def test_upgrade_force_replaces_the_objects_and_a_plain_upgrade_applies(tmp_path):
    """Flux's ``upgrade.force`` (helm's --force): the object is written whole, so what another
    manager set is gone; without it the upgrade applies over it and it stays."""
    w = World(tmp_path)
    w.request(values={"n": 1})
    w.run()
    _annotate_by_hand(w)
    w.edit(values={"n": 2})
    w.run()
    assert w.configmap("app")["metadata"]["annotations"][NOTE] == "by hand"
    w.edit(values={"n": 3}, upgrade={"wait": False, "force": True})
    obj = w.run()
    assert conditions(obj)["Ready"] == ("True", "UpgradeSucceeded")
    assert NOTE not in w.configmap("app")["metadata"]["annotations"]
    assert w.configmap("app")["data"] == {"count": "3"}


def test_rollback_to_follows_spec_rollback_force(tmp_path):
    for forced in (False, True):
        w = World(tmp_path / str(forced))
        w.request(values={"n": 1})
        first = w.run()["status"]["version"]
        w.edit(values={"n": 2})
        w.run()
        _annotate_by_hand(w)
        w.edit(rollbackTo=first, rollback={"force": forced})
        assert conditions(w.run())["Ready"] == ("True", "RollbackSucceeded")
        assert w.configmap("app")["data"] == {"count": "1"}
        assert (NOTE in w.configmap("app")["metadata"]["annotations"]) is not forced


@pytest.mark.parametrize(("spec", "expected"), [
    ({}, dict(wait=True, wait_for_jobs=True, timeout_s=300.0, no_hooks=False, force=False, cleanup_on_fail=False)),
    ({"upgrade": {"wait": False, "waitForJobs": False, "timeout": "1m", "cleanupOnFail": True, "force": True,
                  "disableHooks": True}},
     dict(wait=False, wait_for_jobs=False, timeout_s=60.0, no_hooks=False, force=False, cleanup_on_fail=True)),
    ({"upgrade": {"wait": False, "waitForJobs": False, "timeout": "1m", "cleanupOnFail": True},
      "rollback": {"wait": True, "waitForJobs": True, "timeout": "2m", "cleanupOnFail": False, "force": True,
                   "disableHooks": True}},
     dict(wait=True, wait_for_jobs=True, timeout_s=120.0, no_hooks=True, force=True, cleanup_on_fail=False)),
    ({"rollback": {"waitForJobs": False}}, dict(wait=True, wait_for_jobs=False)),
], ids=["defaults", "the-upgrades-wait-timeout-and-cleanup", "spec-rollback-wins", "rollback-jobs-alone"])
def test_rollback_options_read_spec_rollback_over_the_upgrades(spec, expected):
    options = reconcile.rollback_options(spec, reconcile.template.LuaOptions())
    assert {name: getattr(options, name) for name in expected} == expected


@pytest.mark.parametrize(("install", "upgrade", "expected"), [
    ({}, {}, (True, True)),
    ({"waitForJobs": False}, {}, (False, True)),
    ({}, {"waitForJobs": False}, (True, False)),
], ids=["default-true", "install-false", "upgrade-false"])
def test_wait_for_jobs_is_each_actions_own(tmp_path, monkeypatch, install, upgrade, expected):
    """Flux's install/upgrade.disableWaitForJobs, inverted: helm's --wait-for-jobs unless false."""
    seen = []
    real = reconcile.upgrade.upgrade_or_install

    def spy(cfg, chart, values, options, install_options, **kwargs):
        seen.append((install_options.wait_for_jobs, options.wait_for_jobs))
        return real(cfg, chart, values, options, install_options, **kwargs)

    monkeypatch.setattr(reconcile.upgrade, "upgrade_or_install", spy)
    w = World(tmp_path)
    w.request(install={"wait": False, **install}, upgrade={"wait": False, **upgrade})
    assert conditions(w.run())["Ready"] == ("True", "InstallSucceeded")
    assert seen == [expected]


def test_a_chart_that_does_not_load_is_named_in_the_condition(tmp_path):
    """helm's words name no chart (``cannot load values.yaml``); the condition says whose it is."""
    w = World(tmp_path)
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi"))
    w.admin.replace({**w.admin.get(kclient.ObjectRef("v1", "ConfigMap", "chart", NS)),
                     "binaryData": {"demo.tgz": base64.b64encode(package.archive_bytes("demo", [
                         ("Chart.yaml", b"apiVersion: v2\nname: demo\nversion: 1.0.0\n"),
                         ("values.yaml", bomb.encode())])).decode()}})
    w.request()
    with pytest.raises(kopf.PermanentError):
        w.run()
    assert conditions(w.current())["Ready"] == ("False", "ValuesInvalid")
    assert condition_message(w.current(), "Ready") == (
        f"configmap/{NS}/chart: cannot load values.yaml: error converting YAML to JSON: "
        "yaml: document contains excessive aliasing")


def test_retries_minus_one_retries_without_end_as_flux(tmp_path):
    """Flux's ``remediation.retries: -1``: every failed install is remediated and tried again."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"fail": "pre-install"},
              install={"wait": False, "remediation": {"retries": -1}})
    for retry in (0, 1, 50):
        with pytest.raises(kopf.TemporaryError):
            w.run(retry=retry)
        obj = w.current()
        assert conditions(obj)["Reconciling"] == ("True", "ProgressingWithRetry")
        assert "Stalled" not in conditions(obj)
        assert conditions(obj)["Remediated"] == ("True", "UninstallSucceeded")
    assert obj["status"]["installFailures"] == 3


def test_a_missing_values_from_object_is_retried_until_it_exists_as_flux(tmp_path):
    """Flux's ``ValuesError``: a valuesFrom object missing (or not values) is fixed in that
    object, not in the request: Reconciling and retried, never Stalled; nothing is counted."""
    w = World(tmp_path)
    w.request(valuesFrom=[{"kind": "ConfigMap", "name": "vals"}])
    with pytest.raises(kopf.TemporaryError):
        w.run()
    obj = w.current()
    said = "valuesFrom[0] (ConfigMap vals, key values.yaml): not found (set optional: true to skip it)"
    assert conditions(obj) == {"Ready": ("False", "ValuesError"), "Reconciling": ("True", "ProgressingWithRetry")}
    assert w.events[-1] == ("Warning", "ValuesError", said)
    with pytest.raises(kopf.PermanentError):  # past the backoff budget: the interval tries again
        w.run(retry=runner.MAX_TRANSIENT_RETRIES)
    assert conditions(w.current())["Reconciling"] == ("True", "RetryingOnInterval")
    w.admin.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "vals", "namespace": NS},
                    "data": {"values.yaml": '"n": 4\n'}})  # a bare n is YAML 1.1's false
    runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    assert conditions(w.current())["Ready"] == ("True", "InstallSucceeded")
    assert w.configmap("app")["data"] == {"count": "4"}


BROKEN = package.archive_bytes("demo", [
    ("Chart.yaml", b"apiVersion: v2\nname: demo\nversion: 1.0.1\n"),
    ("templates/cm.yaml", b"{{ fail \"this chart is broken\" }}\n")])


def _stalls(w: World) -> dict[str, Any]:
    """Run the request, which stalls (no Kopf retry follows); its status after."""
    with pytest.raises(kopf.PermanentError):
        w.run()
    return w.current()


def _replace_chart(w: World, chart: bytes) -> None:
    found = w.admin.get(kclient.ObjectRef("v1", "ConfigMap", "chart", NS))
    w.admin.replace(dict(found, binaryData={"demo.tgz": base64.b64encode(chart).decode()}))


def test_an_upgrade_that_fails_before_storing_is_flux_upgrade_failed_not_counted_nor_remediated(tmp_path):
    """A render error stores nothing: Flux's UpgradeFailed on Released and Ready (our cause
    heading the message), no upgradeFailures, no rollback whatever the remediation says;
    Stalled, and tried again at the interval, which picks up a chart that renders."""
    w = World(tmp_path)
    w.request(values={"n": 1}, upgrade={"wait": False, "remediation": {"retries": 2, "remediateLastFailure": True}})
    w.run()
    _replace_chart(w, BROKEN)
    w.edit(values={"n": 2})
    obj = _stalls(w)
    assert conditions(obj) == {"Ready": ("False", "UpgradeFailed"), "Stalled": ("True", "RenderFailed"),
                               "Released": ("False", "UpgradeFailed")}
    assert condition_message(obj, "Released").startswith(
        "Helm upgrade failed for release team/app with chart demo@1.0.1: RenderFailed: ")  # the version tried
    assert "this chart is broken" in condition_message(obj, "Released")
    assert (obj["status"]["failures"], obj["status"].get("upgradeFailures")) == (1, None)
    assert [e[:2] for e in w.events[1:]] == [("Warning", "UpgradeFailed")]
    assert len(_version_states(w)) == 1 and w.configmap("app")["data"] == {"count": "1"}

    _replace_chart(w, CHART)
    runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    assert conditions(w.current())["Ready"] == ("True", "UpgradeSucceeded")
    assert w.configmap("app")["data"] == {"count": "2"}


def test_an_ownership_read_refused_is_a_failed_install_retried_at_the_interval(tmp_path, monkeypatch):
    """helm reads each object before an install to check who owns it; a read the service
    account may not do stores nothing: Flux's InstallFailed, not counted; Stalled Forbidden
    (an admin grants the right) and tried again at the interval."""
    read = fake.FakeClient.get

    def refusing(self, ref, **kw):
        if ref.kind == "ConfigMap" and ref.name == "app" and self is not w.admin:
            raise core_errors.ForbiddenError('configmaps "app" is forbidden: User cannot get resource')
        return read(self, ref, **kw)

    w = World(tmp_path)
    monkeypatch.setattr(fake.FakeClient, "get", refusing)
    w.request(install={"wait": False, "remediation": {"retries": 1}})
    obj = _stalls(w)
    assert conditions(obj) == {"Ready": ("False", "InstallFailed"), "Stalled": ("True", "Forbidden"),
                               "Released": ("False", "InstallFailed")}
    assert condition_message(obj, "Released").startswith(
        'Helm install failed for release team/app with chart demo@1.0.0: Forbidden: ')
    assert obj["status"].get("installFailures") is None and _version_states(w) == []
    monkeypatch.setattr(fake.FakeClient, "get", read)
    runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    assert conditions(w.current())["Ready"] == ("True", "InstallSucceeded")


def annotate(w: World, **annotations: str) -> None:
    obj = copy.deepcopy(w.current())
    obj["metadata"].setdefault("annotations", {}).update(annotations)
    w.admin.replace(obj)  # metadata only: the generation stays


def interval_check(w: World, name: str = "app") -> dict[str, Any]:
    runner.apply(w.rt, w.current(name), retry=0, metrics=w.metrics, interval_check=True)
    return w.current(name)


def _out_of_retries(w: World) -> dict[str, Any]:
    """An install failing in its pre-install hook, values from the ConfigMap ``extra``: its one
    retry used up, Stalled RetriesExceeded."""
    _hooked(w)
    w.admin.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "extra", "namespace": NS},
                    "data": {"values.yaml": "n: 1\n"}})
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"fail": "pre-install"},
              valuesFrom=[{"kind": "ConfigMap", "name": "extra"}],
              install={"wait": False, "remediation": {"retries": 1}})
    with pytest.raises(kopf.TemporaryError):
        w.run()
    with pytest.raises(kopf.PermanentError):
        w.run(retry=1)
    obj = w.current()
    assert conditions(obj)["Stalled"] == ("True", "RetriesExceeded")
    assert obj["status"]["installFailures"] == 2
    return obj


def test_retries_used_up_hold_the_release_at_every_check_until_something_changes(tmp_path):
    """Flux acts no more on a release out of retries: an interval check, a restart's resume or a
    reconcile token (``flux reconcile hr``) try no install (no new version, no count, no Event)
    and leave the status as it is, Stalled RetriesExceeded (it used to try once per interval);
    a reset token (``--reset``) or a new generation counts from zero."""
    w = World(tmp_path)
    stalled = _out_of_retries(w)
    versions, events = _version_states(w), list(w.events)
    assert interval_check(w)["metadata"]["resourceVersion"] == stalled["metadata"]["resourceVersion"]
    assert w.run(retry=0)["metadata"]["resourceVersion"] == stalled["metadata"]["resourceVersion"]
    annotate(w, **{ondemand.REQUESTED_AT: "t1"})
    obj = interval_check(w)
    assert obj["status"]["lastHandledReconcileAt"] == "t1"
    assert obj["status"]["conditions"] == stalled["status"]["conditions"]
    assert obj["status"]["installFailures"] == 2
    assert (_version_states(w), w.events) == (versions, events)
    annotate(w, **{ondemand.REQUESTED_AT: "t2", ondemand.RESET_AT: "t2"})  # flux reconcile hr --reset
    with pytest.raises(kopf.PermanentError):  # tried again: on the interval, no Kopf retry
        interval_check(w)
    assert w.current()["status"]["installFailures"] == 1
    assert len(_version_states(w)) == len(versions) + 1
    w.edit(values={"fail": "pre-install", "n": 2})
    with pytest.raises(kopf.TemporaryError):  # one retry left for the new generation
        w.run()
    assert w.current()["status"]["installFailures"] == 1


def test_a_hold_written_by_the_previous_version_holds_and_then_says_flux_s_reason(tmp_path):
    """A request the previous version stalled out of retries (Stalled ``RetriesExhausted``, its
    word before Flux's ``RetriesExceeded``) is still held after the controller's upgrade: the
    interval check runs for it, tries no install (no version, no count, no Event) and writes
    Flux's reason once, the message and transition time kept; the next check writes nothing."""
    w = World(tmp_path)
    stalled = _out_of_retries(w)
    before = copy.deepcopy(stalled["status"])
    for cond in before["conditions"]:
        if cond["type"] == "Stalled":
            cond["reason"] = "RetriesExhausted"
    runner.write_status(w.rt, stalled, before)
    assert conditions(w.current())["Stalled"] == ("True", "RetriesExhausted")
    assert runner._held(before) and runner._due_on_interval(before, 1)
    versions, events = _version_states(w), list(w.events)
    obj = interval_check(w)
    assert obj["status"]["conditions"] == stalled["status"]["conditions"]  # Flux's word again
    assert obj["status"]["installFailures"] == 2
    assert (_version_states(w), w.events) == (versions, events)
    assert interval_check(w)["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]


@pytest.mark.parametrize("change", ["values", "chart"])
def test_a_new_chart_or_values_within_the_generation_counts_failures_from_zero(tmp_path, change):
    """Flux's config digest: a valuesFrom object changed, or another chart in the same source,
    starts the failure counts again though the generation is the same; the check then tries
    again (``lastAttemptedConfigDigest`` and ``lastAttemptedRevision`` say what)."""
    w = World(tmp_path)
    stalled = _out_of_retries(w)
    assert stalled["status"]["lastAttemptedRevision"] == "1.0.0"
    if change == "values":
        extra = w.configmap("extra")
        w.admin.replace(dict(extra, data={"values.yaml": "n: 2\n"}))
    else:
        newer = HOOKED_SOURCE[:]
        newer[0] = ("Chart.yaml", b"apiVersion: v2\nname: demo\nversion: 1.0.1\n")
        found = w.admin.get(kclient.ObjectRef("v1", "ConfigMap", "hooked", NS))
        w.admin.replace(dict(found, binaryData={"demo.tgz": base64.b64encode(
            package.archive_bytes("demo", newer)).decode()}))
    with pytest.raises(kopf.PermanentError):  # tried once more: on the interval, no Kopf retry
        interval_check(w)
    obj = w.current()
    assert obj["status"]["installFailures"] == 1  # from zero, then this failure
    assert conditions(obj)["Reconciling"] == ("True", "RetryingOnInterval")  # one retry left
    assert _version_states(w) == ["superseded", "failed", "uninstalled"]  # replaced, failed, remediated
    assert (obj["status"]["lastAttemptedConfigDigest"] != stalled["status"]["lastAttemptedConfigDigest"]) \
        is (change == "values")
    assert obj["status"]["lastAttemptedRevision"] == ("1.0.0" if change == "values" else "1.0.1")


def test_a_force_token_tries_once_out_of_retries_and_stalls_again(tmp_path):
    """Flux's ``flux reconcile hr --force`` installs though the retries are used up."""
    w = World(tmp_path)
    _out_of_retries(w)
    annotate(w, **{ondemand.REQUESTED_AT: "t1", ondemand.FORCE_AT: "t1"})
    with pytest.raises(kopf.PermanentError):
        interval_check(w)
    obj = w.current()
    assert (obj["status"]["installFailures"], conditions(obj)["Stalled"]) == (3, ("True", "RetriesExceeded"))
    assert _version_states(w) == ["superseded", "failed", "failed"]
    assert interval_check(w)["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]


@pytest.mark.parametrize("fail", ["post-upgrade", "test"], ids=["hook", "tests"])
def test_an_upgrade_with_no_version_to_roll_back_to_stalls_as_flux_does(tmp_path, fail):
    """Flux's MissingRollbackTarget: the only earlier version's tests failed (the install
    ignored them, the upgrade does not), so the rollback remediation of the failed upgrade (its
    hook, or its tests: the version then stays deployed) has nowhere to go: Stalled, Flux's
    reason and message, the upgrade's failure on Released and Ready, its Event; no retry, and
    no check tries again until something changes (it used to retry the upgrade)."""
    w = World(tmp_path)
    _hooked(w)
    w.request(chart={"configMapRef": {"name": "hooked"}}, values={"fail": "test"}, test={"enable": True},
              install={"wait": False, "remediation": {"ignoreTestFailures": True}})
    assert conditions(w.run())["Ready"] == ("False", "TestFailed")  # not counted (Flux's summary)
    w.edit(values={"fail": fail, "n": 2}, upgrade={"wait": False, "remediation": {"retries": 2}})
    with pytest.raises(kopf.PermanentError):
        w.run()
    obj = w.current()
    told = "Released" if fail == "post-upgrade" else "TestSuccess"  # Flux: Released True when tests fail
    said = condition_message(obj, told)
    reason = "UpgradeFailed" if fail == "post-upgrade" else "TestFailed"
    tested = _version_labels(w)[-1]["version"]
    assert said.startswith("Helm upgrade failed for release team/app with chart demo@1.0.0: "
                           "HookFailed: post-upgrade hooks failed: " if fail == "post-upgrade"
                           else f"Helm test failed for release team/app.v{tested} with chart demo@1.0.0: "
                           "test hooks of release app failed: ")
    assert conditions(obj) == {"Ready": ("False", reason), "Stalled": ("True", "MissingRollbackTarget"), **(
        {"Released": ("False", reason)} if fail == "post-upgrade" else
        {"Released": ("True", "UpgradeSucceeded"), "TestSuccess": ("False", "TestFailed")})}
    assert condition_message(obj, "Stalled") == ("Failed to perform remediation: missing target release for "
                                                 "rollback: cannot remediate failed release")
    assert condition_message(obj, "Ready") == said
    assert obj["status"]["upgradeFailures"] == 1
    assert w.events[-1] == ("Warning", reason, said)
    states = _version_states(w)
    assert states[1:] == ["failed" if fail == "post-upgrade" else "deployed"]  # failed tests: deployed
    events = list(w.events)
    assert w.run(retry=1)["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]
    assert interval_check(w)["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]
    assert (_version_states(w), w.events) == (states, events)
    w.edit(values={"n": 3})  # a new generation: the upgrade is tried again, and succeeds
    assert conditions(w.run())["Ready"] == ("True", "UpgradeSucceeded")


def test_success_messages_name_the_version_and_chart_in_fluxs_words(tmp_path):
    """Flux's fmtInstallSuccess / fmtUpgradeSuccess on Ready, Released and the Event: the
    release's version (the ULID ``status.version`` shows, where Flux writes ``.v<N>``) and the
    chart version deployed."""
    w = World(tmp_path)
    w.request(values={"n": 1})
    obj = w.run()
    said = f"Helm install succeeded for release team/app.v{obj['status']['version']} with chart demo@1.0.0"
    assert (condition_message(obj, "Ready"), condition_message(obj, "Released")) == (said, said)
    assert w.events[-1] == ("Normal", "InstallSucceeded", said)
    w.edit(values={"n": 2})
    obj = w.run()
    said = f"Helm upgrade succeeded for release team/app.v{obj['status']['version']} with chart demo@1.0.0"
    assert condition_message(obj, "Ready") == said
    assert w.events[-1] == ("Normal", "UpgradeSucceeded", said)
