"""Post-renderers in Flux's shape: kustomize patches and images, commonMetadata."""
from __future__ import annotations

import pytest

from helm_core.engine import manifests as mf
from helm_core.engine import postrender
from helm_core.errors import PatchError

DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"team": "chart"}},
          "spec": {"template": {"spec": {"initContainers": [{"name": "init", "image": "busybox"}],
                                         "containers": [{"name": "app", "image": "docker.io/nginx:1.0"},
                                                        {"name": "sidecar", "image": "registry:5000/envoy@sha256:aa"}]}}}}
SVC = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}}


def options(*renderers, meta=None):
    return postrender.from_spec([{"kustomize": r} for r in renderers], meta)


def test_json6902_with_target_only_touches_targets():
    out = postrender.run([DEPLOY, SVC], options({"patches": [{
        "target": {"kind": "Service"}, "patch": "- op: add\n  path: /spec/type\n  value: NodePort\n"}]}))
    assert out[0] == DEPLOY and out[1]["spec"]["type"] == "NodePort"


def test_json6902_needs_target():
    with pytest.raises(PatchError, match=r"patches\[0\]: a JSON 6902 patch needs a target"):
        postrender.run([DEPLOY], options({"patches": [{"patch": "[{op: remove, path: /spec}]"}]}))


def test_strategic_merge_without_target_names_its_object():
    patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n"
    out = postrender.run([DEPLOY, SVC], options({"patches": [{"patch": patch}]}))
    assert out[0]["spec"]["replicas"] == 3 and out[1] == SVC
    with pytest.raises(PatchError, match="no object matches"):
        postrender.run([SVC], options({"patches": [{"patch": patch}]}))


def test_strategic_merge_with_target_applies_to_every_match_whatever_its_name():
    other = dict(DEPLOY, metadata={"name": "api"})
    patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ignored\n  annotations: {a: b}\n"
    out = postrender.run([DEPLOY, other], options({"patches": [{"target": {"kind": "Deployment"}, "patch": patch}]}))
    assert [o["metadata"]["name"] for o in out] == ["web", "api"]
    assert all(o["metadata"]["annotations"] == {"a": "b"} for o in out)


def test_target_label_selector_and_no_match_is_no_error():
    out = postrender.run([DEPLOY, SVC], options({"patches": [
        {"target": {"labelSelector": "team=chart"}, "patch": "metadata:\n  labels: {x: why}\n"},
        {"target": {"kind": "Nothing"}, "patch": "metadata:\n  labels: {z: z}\n"}]}))
    assert out[0]["metadata"]["labels"] == {"team": "chart", "x": "why"} and out[1] == SVC


@pytest.mark.parametrize(("image", "expected"), [
    ({"name": "docker.io/nginx", "newTag": "1.27"}, "docker.io/nginx:1.27"),
    ({"name": "docker.io/nginx", "newName": "mirror/nginx"}, "mirror/nginx:1.0"),
    ({"name": "docker.io/nginx", "digest": "sha256:bb"}, "docker.io/nginx@sha256:bb"),
    ({"name": "docker.io/nginx", "newTag": "2", "digest": "sha256:bb"}, "docker.io/nginx:2@sha256:bb"),
    ({"name": "nginx", "newTag": "9"}, "docker.io/nginx:1.0"),  # the name matches whole
])
def test_images(image, expected):
    out = postrender.run([DEPLOY], options({"images": [image]}))
    assert out[0]["spec"]["template"]["spec"]["containers"][0]["image"] == expected


def test_images_reach_init_containers_and_keep_registry_ports():
    out = postrender.run([DEPLOY], options({"images": [{"name": "busybox", "newTag": "1.36"},
                                                       {"name": "registry:5000/envoy", "newTag": "v2"}]}))
    spec = out[0]["spec"]["template"]["spec"]
    assert spec["initContainers"][0]["image"] == "busybox:1.36"
    assert spec["containers"][1]["image"] == "registry:5000/envoy:v2"


def test_common_metadata_wins_and_comes_after_patches():
    opts = options({"patches": [{"target": {"kind": "Deployment"}, "patch": "metadata:\n  labels: {team: patch}\n"}]},
                   meta={"labels": {"team": "common"}, "annotations": {"owner": "ops"}})
    out = postrender.run([DEPLOY, SVC], opts)
    assert out[0]["metadata"]["labels"] == {"team": "common"}
    assert out[1]["metadata"] == {"name": "web", "labels": {"team": "common"}, "annotations": {"owner": "ops"}}


def test_run_manifests_keeps_untouched_text_and_skips_empty_documents():
    docs = [mf.Manifest(source="c/templates/d.yaml", content="# as rendered", obj=DEPLOY),
            mf.Manifest(source="c/templates/s.yaml", content="# svc", obj=SVC),
            mf.Manifest(source="c/templates/e.yaml", content="# empty", obj={})]
    out = postrender.run_manifests(docs, options({"patches": [
        {"target": {"kind": "Service"}, "patch": "- {op: add, path: /spec/type, value: NodePort}"}]}))
    assert out[0] is docs[0] and out[2] is docs[2]
    assert "type: NodePort" in out[1].content and out[1].obj["spec"]["type"] == "NodePort"


@pytest.mark.parametrize(("renderers", "meta", "message"), [
    ([{"kustomize": {"patches": [{"target": {"kind": "X"}}]}}], None, r"patches\[0\]\.patch: required"),
    ([{"kustomize": {"patches": [{"patch": "a: b", "target": {"knd": "X"}}]}}], None, "unknown field.*knd"),
    ([{"kustomize": {"images": [{"newTag": "1"}]}}], None, r"images\[0\]\.name: required"),
    ([{"kustomize": {"patches": [{"patch": "a: [", "target": {"kind": "X"}}]}}], None, "not valid YAML"),
    (None, {"labels": {"a": 1}}, "commonMetadata.labels: must be a map of strings"),
])
def test_bad_shapes_name_their_path(renderers, meta, message):
    with pytest.raises(PatchError, match=message):
        postrender.run([DEPLOY], postrender.from_spec(renderers, meta))


def test_empty_options_are_falsy():
    assert not postrender.from_spec(None, None)
    assert postrender.from_spec(None, {"labels": {"a": "b"}})


def test_a_delete_patch_removes_objects_from_the_release():
    docs = [mf.Manifest(source="c/templates/d.yaml", content="# d", obj=DEPLOY),
            mf.Manifest(source="c/templates/s.yaml", content="# s", obj=SVC)]
    opts = options({"patches": [{"patch": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n$patch: delete\n"}]},
                   meta={"labels": {"team": "x"}})
    out = postrender.run_manifests(docs, opts)
    assert [m.source for m in out] == ["c/templates/d.yaml"]
    assert out[0].obj["metadata"]["labels"]["team"] == "x"
    assert postrender.run([SVC, DEPLOY], options({"patches": [
        {"target": {"kind": "Deployment"}, "patch": "$patch: delete"}]})) == [SVC]
