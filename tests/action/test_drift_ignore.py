"""driftDetection.ignore rules: Flux's shape read, JSON pointers applied (module rules of action/drift)."""
import pytest

from helm_core.action import drift
from helm_core.errors import PatchError

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"}},
              "spec": {"replicas": 3, "template": {"metadata": {"annotations": {"a/b": "1", "c~d": "2"}}}},
              "status": {"ready": 1}}


def test_rules_from_fluxs_shape_and_what_they_cover():
    rules = drift.ignore_rules([{"paths": ["/spec/replicas"], "target": {"kind": "Deploy.*", "labelSelector": "app=web"}},
                                {"paths": ["/data"]}])
    assert [r.covers(DEPLOYMENT, "ns") for r in rules] == [True, True]
    assert not rules[0].covers({"kind": "ConfigMap", "metadata": {"name": "web"}}, "ns")


@pytest.mark.parametrize(("spec", "message"), [
    ([{"paths": []}], r"ignore\[0\]\.paths: a list of JSON pointers is required"),
    ([{"target": {"kind": "x"}}], r"ignore\[0\]\.paths"),
    ([{"paths": ["spec/replicas"]}], "is not a JSON pointer"),
    ([{"paths": [""]}], "would ignore the whole object"),
    ([{"paths": ["/a"], "target": {"knd": "x"}}], r"ignore\[0\]\.target: unknown field\(s\) knd"),
    ([{"paths": ["/a"], "target": {"kind": 1}}], r"target\.kind: must be a string"),
])
def test_wrong_rules_are_named(spec, message):
    with pytest.raises(PatchError, match=message):
        drift.ignore_rules(spec)


def test_ignored_paths_leave_the_comparison_and_take_the_live_value():
    paths = ["/spec/replicas", "/spec/template/metadata/annotations/a~1b", "/spec/template/metadata/annotations/c~0d"]
    content = drift._content(DEPLOYMENT, paths)
    assert content == {"apiVersion": "apps/v1", "kind": "Deployment",
                       "spec": {"template": {"metadata": {"annotations": {}}}}}
    assert DEPLOYMENT["spec"]["replicas"] == 3  # the object itself is left as it was
    live = {"spec": {"replicas": 7, "template": {"metadata": {"annotations": {"c~d": "live"}}}}}
    stored = drift._as_live(DEPLOYMENT, live, paths)
    assert stored["spec"] == {"replicas": 7, "template": {"metadata": {"annotations": {"c~d": "live"}}}}
    assert drift._as_live(DEPLOYMENT, {}, ["/spec/replicas"])["spec"] == {
        "template": DEPLOYMENT["spec"]["template"]}  # absent in the cluster: left out of the apply
    assert drift._as_live({"spec": {}}, {"spec": {"x": {"y": 1}}}, ["/spec/x/y"]) == {"spec": {"x": {"y": 1}}}
