"""The patch engine: strategic merge as kustomize merges, JSON 6902, selectors."""
from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest

from helm_core.errors import PatchError
from helm_core.engine import patch as kpatch

DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}, "finalizers": ["a"]},
    "spec": {"replicas": 1, "template": {"spec": {
        "containers": [
            {"name": "app", "image": "nginx:1.0", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
             "ports": [{"containerPort": 80, "name": "http"}],
             "volumeMounts": [{"name": "data", "mountPath": "/data"}], "args": ["--x"]},
            {"name": "side", "image": "busybox"}],
        "volumes": [{"name": "data", "emptyDir": {}}],
        "tolerations": [{"key": "k", "operator": "Exists"}]}}},
}


def containers(obj):
    return obj["spec"]["template"]["spec"]["containers"]


def smp(patch, obj=DEPLOYMENT):
    before = copy.deepcopy(obj)
    out = kpatch.apply_strategic(obj, patch)
    assert obj == before, "input must not change"
    return out


def test_containers_merge_by_name_and_env_by_name():
    out = smp({"spec": {"template": {"spec": {"containers": [
        {"name": "app", "env": [{"name": "B", "value": "changed"}, {"name": "C", "value": "3"}]}]}}}})
    app, side = containers(out)
    assert app["image"] == "nginx:1.0" and side["name"] == "side"
    assert app["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "changed"}, {"name": "C", "value": "3"}]


def test_new_container_is_appended():
    out = smp({"spec": {"template": {"spec": {"containers": [{"name": "extra", "image": "x"}]}}}})
    assert [c["name"] for c in containers(out)] == ["app", "side", "extra"]


def test_container_ports_merge_by_container_port():
    out = smp({"spec": {"template": {"spec": {"containers": [
        {"name": "app", "ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 9090}]}]}}}})
    assert containers(out)[0]["ports"] == [{"containerPort": 80, "name": "http", "protocol": "TCP"},
                                           {"containerPort": 9090}]


def test_volume_mounts_merge_by_mount_path():
    out = smp({"spec": {"template": {"spec": {"containers": [
        {"name": "app", "volumeMounts": [{"mountPath": "/data", "readOnly": True}]}]}}}})
    assert containers(out)[0]["volumeMounts"] == [{"name": "data", "mountPath": "/data", "readOnly": True}]


def test_patch_delete_removes_list_element_and_map():
    out = smp({"spec": {"template": {"spec": {
        "containers": [{"name": "side", "$patch": "delete"}],
        "volumes": [{"name": "data", "$patch": "delete"}]}}},
        "metadata": {"labels": {"$patch": "delete"}}})
    assert [c["name"] for c in containers(out)] == ["app"]
    assert out["spec"]["template"]["spec"]["volumes"] == []
    assert "labels" not in out["metadata"]


def test_patch_replace_in_list_and_map():
    out = smp({"spec": {"template": {"spec": {"containers": [{"$patch": "replace"}, {"name": "only", "image": "i"}]}}}})
    assert containers(out) == [{"name": "only", "image": "i"}]
    out = smp({"metadata": {"labels": {"$patch": "replace", "new": "1"}}})
    assert out["metadata"]["labels"] == {"new": "1"}


def test_null_deletes_key_and_scalars_replace():
    out = smp({"spec": {"replicas": None, "template": {"spec": {"containers": [{"name": "app", "image": None}]}}}})
    assert "replicas" not in out["spec"] and "image" not in containers(out)[0]


def test_lists_without_merge_key_are_replaced():
    out = smp({"spec": {"template": {"spec": {
        "tolerations": [{"key": "other", "operator": "Exists"}],
        "containers": [{"name": "app", "args": ["--y"]}]}}}})
    assert out["spec"]["template"]["spec"]["tolerations"] == [{"key": "other", "operator": "Exists"}]
    assert containers(out)[0]["args"] == ["--y"]


def test_finalizers_merge_as_set_and_delete_from_primitive_list():
    out = smp({"metadata": {"finalizers": ["a", "b"]}})
    assert out["metadata"]["finalizers"] == ["a", "b"]
    out = smp({"spec": {"template": {"spec": {"containers": [
        {"name": "app", "$deleteFromPrimitiveList/args": ["--x"]}]}}}})
    assert containers(out)[0]["args"] == []


def test_service_ports_merge_by_port():
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
           "spec": {"ports": [{"port": 80, "targetPort": 8080}]}}
    out = smp({"spec": {"ports": [{"port": 80, "name": "http"}, {"port": 443}]}}, svc)
    assert out["spec"]["ports"] == [{"port": 80, "targetPort": 8080, "name": "http"}, {"port": 443}]


def test_custom_resource_lists_merge_by_associative_key_else_replace():
    cr = {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"},
          "spec": {"items": [{"name": "a", "v": 1}], "hosts": ["x"]}}
    out = smp({"spec": {"items": [{"name": "a", "w": 2}, {"name": "b"}], "hosts": ["y"]}}, cr)
    assert out["spec"] == {"items": [{"name": "a", "v": 1, "w": 2}, {"name": "b"}], "hosts": ["y"]}


def test_element_without_merge_key_is_an_error():
    with pytest.raises(PatchError, match="merge key 'name'"):
        smp({"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}})


def test_json6902_operations_and_failures():
    out = kpatch.apply_json6902(DEPLOYMENT, [
        {"op": "add", "path": "/metadata/labels/env", "value": "prod"},
        {"op": "replace", "path": "/spec/replicas", "value": 3},
        {"op": "remove", "path": "/spec/template/spec/containers/1"}])
    assert out["metadata"]["labels"] == {"app": "web", "env": "prod"}
    assert out["spec"]["replicas"] == 3 and len(containers(out)) == 1
    assert DEPLOYMENT["spec"]["replicas"] == 1
    with pytest.raises(PatchError, match="web-x"):
        kpatch.apply_json6902(DEPLOYMENT, [{"op": "test", "path": "/metadata/name", "value": "web-x"}],
                              where="web-x check")
    with pytest.raises(PatchError, match="nope"):
        kpatch.apply_json6902(DEPLOYMENT, [{"op": "remove", "path": "/nope"}])
    with pytest.raises(PatchError, match="needs 'op' and 'path'"):
        kpatch.apply_json6902(DEPLOYMENT, [{"path": "/x"}])


@pytest.mark.parametrize(("selector", "expected"), [
    (kpatch.Selector(), True),
    (kpatch.Selector(kind="Deployment"), True),
    (kpatch.Selector(kind="Deploy"), False),  # regexes match whole
    (kpatch.Selector(kind="Deploy.*", name="w.b"), True),
    (kpatch.Selector(group="apps", version="v1"), True),
    (kpatch.Selector(group=""), True),
    (kpatch.Selector(namespace="ns"), True),  # the release namespace when the object has none
    (kpatch.Selector(namespace="other"), False),
    (kpatch.Selector(label_selector="app=web"), True),
    (kpatch.Selector(label_selector="app in (api, web),!tier"), True),
    (kpatch.Selector(label_selector="app!=web"), False),
    (kpatch.Selector(label_selector="tier"), False),
    (kpatch.Selector(annotation_selector="note=1"), False),
], ids=repr)
def test_selector(selector, expected):
    assert selector.matches(DEPLOYMENT, default_namespace="ns") is expected


def test_bad_selector_is_an_error():
    with pytest.raises(PatchError, match=r"^invalid label selector 'a==\(': unable to parse requirement: found '\('"):
        kpatch.match_labels("a==(", {})
    with pytest.raises(PatchError, match="invalid regular expression"):
        kpatch.Selector(kind="(").matches(DEPLOYMENT)


def test_target_patterns_are_go_regexps_in_linear_time():
    """A request's target patterns are kustomize's Go (RE2) regexps: Python's extensions are
    refused with Go's words, and a pattern that backtracks exponentially in Python's ``re``
    answers at once (the controller applies post-renderers in its own process). The hostile
    case runs in a child process with a deadline, so a regression fails instead of hanging."""
    with pytest.raises(PatchError, match=r"invalid escape sequence: `\\1`"):
        kpatch.Selector(name=r"(a)\1").matches(DEPLOYMENT)
    with pytest.raises(PatchError, match="invalid or unsupported Perl syntax"):
        kpatch.Selector(name=r"(?=w)web").matches(DEPLOYMENT)
    program = ("from helm_core.engine import patch as p\n"
               "obj = {'kind': 'ConfigMap', 'metadata': {'name': 'a' * 64 + '!'}}\n"
               "print(p.Selector(name='(a+)+').matches(obj), p.Selector(name='(a|aa)*').matches(obj))\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])
    assert (done.returncode, done.stdout) == (0, "False False\n"), done.stderr
