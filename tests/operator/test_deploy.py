"""deploy/: least privilege for the controller, a restricted pod, settings main understands."""
from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from helm_operator import admission, main, probes

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def load(name: str) -> list[dict]:
    return [d for d in yaml.safe_load_all((DEPLOY / name).read_text()) if d]


def controller_rules() -> list[dict]:
    role = next(d for d in load("rbac.yaml") if d["kind"] == "ClusterRole")
    return role["rules"]


def test_controller_role_has_no_wildcards_and_never_touches_secrets_or_workloads():
    for rule in controller_rules():
        assert "*" not in rule["verbs"] and "*" not in rule["resources"] and "*" not in rule["apiGroups"]
        assert not {"deployments", "pods"} & set(rule["resources"])
        if {"secrets", "configmaps"} & set(rule["resources"]):
            # the metadata-only valuesFrom watch: never get, never write
            assert rule == {"apiGroups": [""], "resources": ["configmaps", "secrets"],
                            "verbs": ["list", "watch"]}


def test_controller_may_impersonate_service_accounts_only():
    impersonating = [r for r in controller_rules() if "impersonate" in r["verbs"]]
    assert impersonating == [{"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["get", "impersonate"]}]


def test_controller_writes_only_its_kinds_their_status_and_events():
    writes = {"create", "update", "patch", "delete"}
    written = {(g, r) for rule in controller_rules() if writes & set(rule["verbs"])
               for g in rule["apiGroups"] for r in rule["resources"]}
    assert written == {("helm.sh", "helmrequests"), ("helm.sh", "helmrequests/status"),
                       ("helm.sh", "helmrequests/finalizers"),
                       ("helm.sh", "helmrepositories"), ("helm.sh", "helmrepositories/status"),
                       ("helm.sh", "helmrepositories/finalizers"), ("", "events"), ("events.k8s.io", "events")}


def test_user_roles_aggregate_into_view_edit_admin():
    roles = {d["metadata"]["name"]: d for d in load("user-roles.yaml")}
    assert set(roles) == {"helmrequest-view", "helmrequest-edit", "helmrequest-admin"}
    labels = roles["helmrequest-edit"]["metadata"]["labels"]
    assert labels["rbac.authorization.k8s.io/aggregate-to-edit"] == "true"
    assert "rbac.authorization.k8s.io/aggregate-to-view" not in labels


def test_deployment_is_restricted_with_probes_and_resources():
    dep = load("deployment.yaml")[0]
    pod = dep["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    sc = container["securityContext"]
    assert sc == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                  "capabilities": {"drop": ["ALL"]}}
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["resources"]["requests"] and container["resources"]["limits"]["memory"]
    assert pod["serviceAccountName"] == next(d for d in load("serviceaccount.yaml"))["metadata"]["name"]


def test_operator_config_is_understood_by_main():
    config = load("config.yaml")[0]["data"]
    dep = load("deployment.yaml")[0]["spec"]["template"]["spec"]["containers"][0]
    env = dict(config, **{e["name"]: e["value"] for e in dep["env"] if "value" in e})
    assert all(k.startswith(main.ENV_PREFIX) or k == "HOME" for k in env)
    from_pod = {e["name"]: e["valueFrom"]["fieldRef"]["fieldPath"] for e in dep["env"] if "valueFrom" in e}
    assert from_pod == {"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"}
    inv = main.parse(dep["args"], dict(env, POD_NAME="helm-operator-x", POD_NAMESPACE="helm-operator-system"))
    election = inv.settings.leader_election
    assert (election.enabled, election.identity, election.namespace) == (
        True, "helm-operator-x", load("leader-election.yaml")[0]["metadata"]["namespace"])
    assert inv.in_cluster
    assert inv.settings.security.require_service_account
    assert inv.settings.runtime.log_format == "json"
    assert inv.settings.runtime.probe_port == dep["ports"][0]["containerPort"]
    assert probes.HEARTBEAT_STALE_S < dep["livenessProbe"]["periodSeconds"] * 5


def test_kustomization_lists_every_manifest_and_the_crds():
    kust = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())
    assert sorted(kust["resources"]) == sorted(["../manifests"] + [p.name for p in DEPLOY.glob("*.yaml")
                                                                   if p.name != "kustomization.yaml"])
    crds = yaml.safe_load((DEPLOY.parent / "manifests" / "kustomization.yaml").read_text())
    assert sorted(crds["resources"]) == sorted(f"crds/{p.name}" for p in (DEPLOY.parent / "manifests" / "crds").glob("*.yaml"))


def test_kubectl_kustomize_builds_crds_and_controller():
    proc = subprocess.run(["kubectl", "kustomize", str(DEPLOY)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    kinds = sorted((d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(proc.stdout) if d)
    assert ("CustomResourceDefinition", "helmrequests.helm.sh") in kinds
    assert ("CustomResourceDefinition", "releases.helm.sh") in kinds
    assert ("CustomResourceDefinition", "helmrepositories.helm.sh") in kinds
    assert ("Deployment", "helm-operator") in kinds and ("Service", "helm-operator-metrics") in kinds
    assert ("Role", "helm-operator-leader-election") in kinds


def test_requester_overlay_builds_the_policy_and_the_impersonation_rights():
    proc = subprocess.run(["kubectl", "kustomize", str(DEPLOY / "requester")], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    docs = [d for d in yaml.safe_load_all(proc.stdout) if d]
    assert sorted(d["kind"] for d in docs) == ["ClusterRole", "ClusterRoleBinding", "MutatingAdmissionPolicy",
                                               "MutatingAdmissionPolicyBinding"]
    (role,) = [d for d in docs if d["kind"] == "ClusterRole"]
    assert role["rules"] == [
        {"apiGroups": [""], "resources": ["users", "groups"], "verbs": ["impersonate"]},
        {"apiGroups": ["authentication.k8s.io"], "resources": ["*"], "verbs": ["impersonate"]}]
    (binding,) = [d for d in docs if d["kind"] == "ClusterRoleBinding"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "helm-operator",
                                    "namespace": "helm-operator-system"}]


def test_config_keeps_the_service_account_mode():
    config = load("config.yaml")[0]["data"]
    config.pop("HELM_OPERATOR_LEADER_ELECT")
    assert config["HELM_OPERATOR_ACT_AS"] == "serviceaccount"
    assert main.parse(["run"], config).settings.security.act_as == "serviceaccount"


def test_the_webhook_patch_makes_the_controller_serve_it():
    proc = subprocess.run(["kubectl", "patch", "-f", str(DEPLOY / "deployment.yaml"), "--local", "--type",
                           "strategic", "--patch-file", str(DEPLOY / "requester" / "webhook" / "deployment-patch.yaml"),
                           "-o", "yaml"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    pod = yaml.safe_load(proc.stdout)["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    inv = main.parse(container["args"], env)
    assert inv.admission_port == 9443
    assert {"name": "admission-tls", "mountPath": inv.admission_cert_dir, "readOnly": True} in container["volumeMounts"]
    assert {"name": "admission", "containerPort": 9443} in container["ports"]
    hook = next(d for d in load("requester/webhook/webhook.yaml") if d["kind"] == "MutatingWebhookConfiguration")
    service = next(d for d in load("requester/webhook/webhook.yaml") if d["kind"] == "Service")
    assert hook["webhooks"][0]["clientConfig"]["service"]["name"] == service["metadata"]["name"]
    assert hook["webhooks"][0]["clientConfig"]["service"]["path"] == admission.PATH
    assert service["spec"]["ports"][0]["targetPort"] == "admission"
