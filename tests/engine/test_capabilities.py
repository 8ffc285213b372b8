"""engine.capabilities: Helm's defaults and the Go shapes of .Capabilities/.Chart/.Release."""
from __future__ import annotations

import pytest

from helm_core.golib import gojson
from helm_core.chart import model
from helm_core.engine import capabilities


def test_default_capabilities_are_helm_3_22_with_kubernetes_1_37():
    caps = capabilities.make_capabilities()
    assert gojson.dumps(caps.KubeVersion) == '{"Version":"v1.37.0","Major":"1","Minor":"37"}'
    assert gojson.dumps(caps.HelmVersion) == '{"version":"v3.22.0","go_version":"go1.26.8"}'
    assert str(caps.HelmVersion) == "{v3.22.0   go1.26.8}"
    assert len(caps.APIVersions) == 57


@pytest.mark.parametrize(
    ("api", "expected"),
    [("v1", True), ("apps/v1", True), ("policy/v1", True), ("apps/v1/Deployment", False), ("foo/v1", False)],
    ids=["core", "apps", "policy", "kind-form-not-in-defaults", "unknown"],
)
def test_api_versions_has_group_versions_only(api, expected):
    assert capabilities.make_capabilities().APIVersions.Has(api) is expected


def test_extra_api_versions_are_added():
    caps = capabilities.make_capabilities(extra_api_versions=["apps/v1/Deployment"])
    assert caps.APIVersions.Has("apps/v1/Deployment")


@pytest.mark.parametrize(
    ("text", "version", "minor"),
    [("1.30", "v1.30.0", "30"), ("v1.28.3", "v1.28.3", "28"), ("v1.28.3-gke.1", "v1.28.3-gke.1", "28")],
    ids=["short", "full", "pre-release"],
)
def test_kube_version_parse(text, version, minor):
    kv = capabilities.KubeVersion.parse(text)
    assert (kv.Version, kv.Minor, kv.String(), kv.GitVersion()) == (version, minor, version, version)


def test_kube_version_parse_rejects_garbage():
    with pytest.raises(ValueError, match='could not parse "abc" as version'):
        capabilities.KubeVersion.parse("abc")


def test_chart_info_prints_and_marshals_like_go():
    md = model.Metadata(api_version="v2", name="c2", version="0.1.0", type="")
    info = capabilities.ChartInfo(md, is_root=True)
    assert str(info) == "{{c2  [] 0.1.0  [] []  v2    false map[]  [] } true}"
    assert gojson.dumps(info) == '{"name":"c2","version":"0.1.0","apiVersion":"v2","IsRoot":true}'
    assert info.go_field("Name") == "c2"
    with pytest.raises(KeyError):
        info.go_field("Foo")


def test_release_map_has_helm_keys():
    assert capabilities.ReleaseInfo().as_map() == {
        "Name": "release-name", "Namespace": "default", "Revision": 1,
        "IsUpgrade": False, "IsInstall": True, "Service": "Helm",
    }
