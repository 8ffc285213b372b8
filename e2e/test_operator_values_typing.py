"""Values typing through the controller on the local cluster: a chart printing ``kindOf`` of
each value renders, from ``valuesFrom`` and from ``spec.values``, what ``helm template``
renders from the same values file."""
from __future__ import annotations

import json

import pytest
from kubernetes import client as k8s

from e2e.conftest import Kubectl
from e2e.operator_kit import (GROUP, VERSION, Controller, controller, objects, ready_at, request,
                              setup_namespace, wait_for)
from helm_core.sources import package
from tests.engine import helmbin
from tests.operator.test_values_typing import KINDS_CHART, KINDS_VALUES, helm_kinds_data

pytestmark = pytest.mark.e2e

__all__ = ["controller", "objects"]  # fixtures used by the tests below


def kinds_config_map(api: k8s.ApiClient, namespace: str, release: str) -> dict[str, str]:
    return k8s.CoreV1Api(api).read_namespaced_config_map(f"{release}-kinds", namespace).data


def test_values_from_and_spec_values_render_what_helm_renders_from_the_file(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, kubectl: Kubectl,
        namespace: str) -> None:
    helmbin.require_helm()
    expected = helm_kinds_data()
    setup_namespace(api, namespace, chart=package.package(KINDS_CHART)[1])
    text = KINDS_VALUES.read_text()
    k8s.CoreV1Api(api).create_namespaced_config_map(
        namespace, {"metadata": {"name": "vals"}, "data": {"values.yaml": text}})
    request(objects, namespace, "from-configmap", valuesFrom=[{"kind": "ConfigMap", "name": "vals"}])
    # spec.values written in YAML and applied with kubectl, as a user would: kubectl's own
    # YAML-to-JSON step, then the API server's JSON, reach the controller.
    spec = {"chart": {"configMapRef": {"name": "chart"}}, "serviceAccountName": "deployer",
            "install": {"timeout": "60s"}}
    manifest = (f"apiVersion: {GROUP}/{VERSION}\nkind: HelmRequest\n"
                f"metadata: {{name: inline, namespace: {namespace}}}\n"
                "spec:\n" + "".join(f"  {key}: {json.dumps(value)}\n" for key, value in spec.items())
                + "  values:\n"
                + "".join(f"    {line}\n" for line in text.splitlines()))
    kubectl("apply", "-f", "-", stdin=manifest)
    wait_for(objects, namespace, ready_at(1), name="from-configmap")
    assert kinds_config_map(api, namespace, "from-configmap") == expected
    stored = wait_for(objects, namespace, ready_at(1), name="inline")["spec"]["values"]
    # The API server prunes nulls from a custom resource (no ``nullable`` in its schema), as it
    # does for Flux's HelmRelease: those keys never reach the controller; all else must match.
    nulls = {"null-word", "tilde", "empty"}
    assert nulls.isdisjoint(stored)
    assert kinds_config_map(api, namespace, "inline") == {
        key: value for key, value in expected.items() if key not in nulls}
    assert expected["int"] == "float64 1.2345678e+07" and expected["date"] == "string 2024-01-01"
