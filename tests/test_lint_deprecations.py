"""helm lint's deprecated-API rule (helm_core.cli.deprecations) over the generated lifecycle table
(helm_core.cli.api_lifecycle); the whole rule beside helm is in tests/test_cli_helm.py."""
from __future__ import annotations

import pytest

from helm_core.cli import api_lifecycle, deprecations

INGRESS = ("extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; "
           "use networking.k8s.io/v1 Ingress")


def test_the_table_is_k8s_api_of_helm_3_22():
    assert api_lifecycle.K8S_API_VERSION == "v0.37.0"
    assert api_lifecycle.LIFECYCLE[("extensions", "v1beta1", "Ingress")] == (
        (1, 1), (1, 14), (1, 22), ("networking.k8s.io", "v1", "Ingress"))
    assert api_lifecycle.LIFECYCLE[("", "v1", "Endpoints")][1:] == (
        (1, 33), (0, 0), ("discovery.k8s.io", "v1", "EndpointSlice"))
    # Types client-go's scheme no longer registers are absent, whatever their history.
    assert ("policy", "v1beta1", "PodSecurityPolicy") not in api_lifecycle.LIFECYCLE
    assert ("autoscaling", "v2beta2", "HorizontalPodAutoscaler") not in api_lifecycle.LIFECYCLE
    assert api_lifecycle.LIFECYCLE[("apps", "v1", "Deployment")][1:] == ((0, 0), (0, 0), None)  # GA


@pytest.mark.parametrize(("api_version", "kind", "kube", "expected"), [
    ("extensions/v1beta1", "Ingress", (1, 13), None),                  # not yet deprecated
    ("extensions/v1beta1", "Ingress", (1, 14), INGRESS),               # the deprecation release
    ("extensions/v1beta1", "Ingress", (1, 37), INGRESS),               # removed: still warned of
    ("extensions/v1beta1", "Ingress", (0, 0), INGRESS),                # no version: any deprecation
    ("extensions/v1beta1", "Ingress", (2, 0), INGRESS),
    ("extensions/v1beta1", "IngressList", (1, 20), "extensions/v1beta1 IngressList is deprecated in v1.14+, "
                                                   "unavailable in v1.22+; use networking.k8s.io/v1 IngressList"),
    ("v1", "ComponentStatus", (1, 19), "v1 ComponentStatus is deprecated in v1.19+"),  # no removal, no replacement
    ("v1", "Endpoints", (1, 33), "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"),
    ("v1", "ConfigMap", (0, 0), None),                                 # lifecycle without a deprecation
    ("networking.k8s.io/v1", "Ingress", (1, 37), None),
    ("extensions/v1beta1", "ingress", (1, 37), None),                  # kinds match exactly
    ("/extensions/v1beta1", "Ingress", (1, 37), None),                 # more than one slash: no group/version
    ("extensions/v1beta1/x", "Ingress", (1, 37), None),
    ("example.com/v1beta1", "Widget", (1, 37), None),                  # unknown to the scheme
    ("", "Ingress", (1, 37), None),
    ("extensions/v1beta1", "", (1, 37), None),
])
def test_warning(api_version, kind, kube, expected):
    assert deprecations.warning(api_version, kind, kube) == expected


@pytest.mark.parametrize(("api_version", "gvk"), [
    ("v1", ("", "v1", "K")), ("apps/v1", ("apps", "v1", "K")), ("", ("", "", "K")), ("/", ("", "", "K")),
    ("a/b/c", ("", "", "K")), ("a/", ("a", "", "K")),
])
def test_group_version_kind_is_schemas(api_version, gvk):
    assert deprecations.group_version_kind(api_version, "K") == gvk
