"""charts/helm-operator: helm lint accepts it, helm-core renders it exactly as helm does, its
CRDs are those of manifests/crds, and its RBAC is deploy/'s least privilege (both modes)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from helm_core import cli
from helm_operator import admission, main
from tests.engine import helmbin

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "charts" / "helm-operator"
SETTINGS = {
    "default": [],
    "namespaced-shard": ["--set", "rbac.mode=namespaced", "--set", "watchNamespaces={team-a,team-b}",
                         "--set", "shard.selector=sharding.helm.sh/key=shard1"],
    "single-limits-monitor": ["--set", "leaderElection.enabled=false", "--set", "replicas=1",
                              "--set", "render.timeout=30s", "--set", "render.memory=512Mi",
                              "--set", "render.workers=2", "--set", "metrics.serviceMonitor.enabled=true",
                              "--set", "metrics.serviceMonitor.labels.release=prom",
                              "--set-string", "shard.selector=!sharding.helm.sh/key",
                              "--set", "settings.luaAllowlist={io,os}", "--set", "rbac.userRoles=false"],
    "requester": ["--set", "actAs.mode=requester"],
    "requester-labels-only": ["--set", "actAs.requester=true", "--set", "rbac.create=false"],
    "requester-webhook": ["--set", "actAs.webhook.enabled=true", "--set", "actAs.webhook.tlsSecret=tls",
                          "--set", "actAs.webhook.certManagerCertificate=ops/admission"],
    "webhook-without-secret": ["--set", "actAs.webhook.enabled=true"],
    "bad-act-as": ["--set", "actAs.mode=root"],
    "bad-mode": ["--set", "rbac.mode=everywhere"],
    "namespaced-without-namespaces": ["--set", "rbac.mode=namespaced"],
}


def helm_core(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("case", SETTINGS)
def test_helm_core_renders_the_chart_as_helm_does(case, capsys):
    args = ["--namespace", "ops", "--include-crds", *SETTINGS[case]]
    helm = subprocess.run([helmbin.require_helm(), "template", "op", str(CHART), *args],
                          capture_output=True, text=True, timeout=helmbin.HELM_TIMEOUT)
    code, out, err = helm_core(capsys, "template", "op", str(CHART), *args)
    assert (code, out) == (helm.returncode, helm.stdout)
    if helm.returncode:
        assert err.splitlines()[0] == helm.stderr.splitlines()[0]


def test_helm_lint_accepts_the_chart():
    helm = subprocess.run([helmbin.require_helm(), "lint", "--strict", str(CHART)],
                          capture_output=True, text=True, timeout=helmbin.HELM_TIMEOUT)
    assert helm.returncode == 0, helm.stdout + helm.stderr
    assert "1 chart(s) linted, 0 chart(s) failed" in helm.stdout


def test_the_chart_crds_are_the_manifests_crds():
    ours = sorted(p.name for p in (CHART / "crds").iterdir())
    assert ours == sorted(p.name for p in (ROOT / "manifests" / "crds").glob("*.yaml"))
    for name in ours:
        assert (CHART / "crds" / name).read_bytes() == (ROOT / "manifests" / "crds" / name).read_bytes()


def render(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    code, out, err = helm_core(capsys, "template", "op", str(CHART), "--namespace", "ops", *args)
    assert code == 0, err
    return [d for d in yaml.safe_load_all(out) if d]


def rules_of(docs: list[dict], kind: str) -> list[list[dict]]:
    return [d["rules"] for d in docs if d["kind"] == kind and not d["metadata"]["name"].endswith(
        ("-view", "-edit", "-admin", "-leader-election"))]


def test_cluster_mode_grants_what_deploy_grants(capsys):
    deploy = next(d for d in yaml.safe_load_all((ROOT / "deploy" / "rbac.yaml").read_text())
                  if d["kind"] == "ClusterRole")
    (rules,) = rules_of(render(capsys), "ClusterRole")
    assert sorted(map(str, rules)) == sorted(map(str, deploy["rules"]))


def test_user_roles_grant_what_deploy_grants(capsys):
    deploy = {d["metadata"]["name"].removeprefix("helmrequest-"): d
              for d in yaml.safe_load_all((ROOT / "deploy" / "user-roles.yaml").read_text()) if d}
    chart = {d["metadata"]["name"].removeprefix("op-helm-operator-"): d for d in render(capsys)
             if d["kind"] == "ClusterRole" and d["metadata"]["name"].endswith(("-view", "-edit", "-admin"))}
    assert set(chart) == set(deploy) == {"view", "edit", "admin"}
    for level, role in deploy.items():
        assert chart[level]["rules"] == role["rules"], level
        aggregated = {k: v for k, v in chart[level]["metadata"]["labels"].items() if "aggregate" in k}
        assert aggregated == {k: v for k, v in role["metadata"]["labels"].items() if "aggregate" in k}


def test_namespaced_mode_has_roles_in_the_watched_namespaces_only(capsys):
    docs = render(capsys, "--set", "rbac.mode=namespaced", "--set", "watchNamespaces={team-a,team-b}")
    assert not [d for d in docs if d["kind"] in ("ClusterRole", "ClusterRoleBinding")
                and not d["metadata"]["name"].endswith(("-view", "-edit", "-admin"))]
    roles = {(d["metadata"]["namespace"], d["metadata"]["name"]) for d in docs if d["kind"] == "Role"}
    assert roles == {("team-a", "op-helm-operator"), ("team-b", "op-helm-operator"),
                     ("ops", "op-helm-operator-leader-election")}
    for rules in rules_of(docs, "Role"):
        assert not {"namespaces", "customresourcedefinitions"} & {r for rule in rules for r in rule["resources"]}


@pytest.mark.parametrize("mode", ["cluster", "namespaced"])
def test_impersonation_is_of_service_accounts_only(mode, capsys):
    docs = render(capsys, "--set", f"rbac.mode={mode}", "--set", "watchNamespaces={team-a}")
    impersonating = [rule for d in docs if d["kind"] in ("Role", "ClusterRole") for rule in d["rules"]
                     if "impersonate" in rule["verbs"]]
    assert impersonating == [{"apiGroups": [""], "resources": ["serviceaccounts"],
                              "verbs": ["get", "impersonate"]}]


def test_the_deployment_passes_the_values_as_flags_main_understands(capsys):
    docs = render(capsys, "--set", "shard.selector=sharding.helm.sh/key=shard1",
                  "--set", "watchNamespaces={team-a}")
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["run", "--in-cluster", "--leader-elect",
                                 "--selector=sharding.helm.sh/key=shard1", "--namespace=team-a"]
    env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    env.update(POD_NAME="op-abc", POD_NAMESPACE="ops")
    inv = main.parse(container["args"], env)
    assert inv.settings.leader_election.enabled and inv.settings.leader_election.namespace == "ops"
    assert inv.settings.leader_election.identity == "op-abc"
    assert inv.settings.watch.selector == "sharding.helm.sh/key=shard1"
    assert inv.settings.watch.namespaces == ("team-a",)
    assert inv.settings.runtime.log_format == "json"


def test_render_limits_pass_through_as_flags(capsys):
    docs = render(capsys, "--set", "render.timeout=30s", "--set", "render.cpu=20s",
                  "--set", "render.memory=512Mi", "--set", "render.output=8Mi", "--set", "render.workers=2")
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["args"][3:] == [
        "--render-timeout=30s", "--render-cpu=20s", "--render-memory=512Mi", "--render-output=8Mi",
        "--render-workers=2"]


def test_requester_mode_installs_deploys_policy_and_impersonation_rights(capsys):
    docs = render(capsys, "--set", "actAs.mode=requester")
    policy = {d["kind"]: d for d in yaml.safe_load_all((ROOT / "deploy" / "requester" / "policy.yaml").read_text())}
    ours = {d["kind"]: d for d in docs if d["kind"].startswith("MutatingAdmissionPolicy")}
    assert ours["MutatingAdmissionPolicy"]["spec"] == policy["MutatingAdmissionPolicy"]["spec"]
    assert ours["MutatingAdmissionPolicyBinding"]["spec"] == {"policyName": "op-helm-operator-requester"}
    deploy_rules = next(d for d in yaml.safe_load_all((ROOT / "deploy" / "requester" / "rbac.yaml").read_text())
                        if d["kind"] == "ClusterRole")["rules"]
    (role,) = [d for d in docs if d["kind"] == "ClusterRole" and d["metadata"]["name"].endswith("-act-as-requester")]
    assert role["rules"] == deploy_rules
    (binding,) = [d for d in docs if d["kind"] == "ClusterRoleBinding"
                  and d["metadata"]["name"].endswith("-act-as-requester")]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "op-helm-operator", "namespace": "ops"}]
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    env = {e["name"]: e["value"] for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]
           if "value" in e}
    assert main.parse(["run"], env).settings.security.act_as == "requester"


def test_the_finalizer_policy_is_deploys_and_off_by_default(capsys):
    deploy = {d["kind"]: d for d in yaml.safe_load_all((ROOT / "deploy" / "finalizer" / "policy.yaml").read_text())}
    assert deploy["MutatingAdmissionPolicy"]["spec"]["mutations"][0]["applyConfiguration"]["expression"] == \
        f'Object{{metadata: Object.metadata{{finalizers: ["{main.FINALIZER}"]}}}}'
    ours = {d["kind"]: d for d in render(capsys, "--set", "finalizerPolicy.enabled=true")
            if d["kind"].startswith("MutatingAdmissionPolicy")}
    assert ours["MutatingAdmissionPolicy"]["spec"] == deploy["MutatingAdmissionPolicy"]["spec"]
    assert ours["MutatingAdmissionPolicyBinding"]["spec"] == {"policyName": "op-helm-operator-finalizer"}
    assert not [d for d in render(capsys) if d["metadata"]["name"].endswith("-finalizer")]


def test_the_default_chart_neither_stamps_nor_impersonates_users(capsys):
    docs = render(capsys)
    assert not [d for d in docs if d["kind"].startswith("MutatingAdmissionPolicy")]
    assert not [d for d in docs if d["metadata"]["name"].endswith("-act-as-requester")]


def test_the_webhook_replaces_the_policy_and_the_controller_serves_it(capsys):
    docs = render(capsys, "--set", "actAs.webhook.enabled=true", "--set", "actAs.webhook.tlsSecret=tls")
    assert not [d for d in docs if d["kind"].startswith("MutatingAdmissionPolicy")]
    (hook,) = [d for d in docs if d["kind"] == "MutatingWebhookConfiguration"]
    deploy_hook = next(d for d in yaml.safe_load_all(
        (ROOT / "deploy" / "requester" / "webhook" / "webhook.yaml").read_text()) if d["kind"] == hook["kind"])
    ours, theirs = hook["webhooks"][0], deploy_hook["webhooks"][0]
    assert {k: v for k, v in ours.items() if k != "clientConfig"} == {k: v for k, v in theirs.items()
                                                                      if k != "clientConfig"}
    assert ours["clientConfig"]["service"] == {"name": "op-helm-operator-admission", "namespace": "ops",
                                               "path": admission.PATH, "port": 443}
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    env = {e["name"]: e["value"] for e in pod["containers"][0]["env"] if "value" in e}
    inv = main.parse(["run"], env)
    assert inv.admission_port == 9443
    mounts = {m["name"]: m["mountPath"] for m in pod["containers"][0]["volumeMounts"]}
    assert mounts["admission-tls"] == inv.admission_cert_dir
    assert {"name": "admission-tls", "secret": {"secretName": "tls"}} in pod["volumes"]
