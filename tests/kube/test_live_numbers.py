"""Request bodies carry numbers as Go writes them (helm_core.kube.live.go_numbers)."""
from __future__ import annotations

import json

from helm_core.golib import goyaml
from helm_core.kube import live


def test_whole_floats_become_ints_as_in_gos_json():
    decoded = goyaml.load("spec:\n  minLength: 1\n  ratio: 0.5\n  big: 1e300\n  list: [2, 3.25]\n  enabled: true\n",
                          source="crd.yaml")
    assert json.dumps(live.go_numbers(decoded)) == (
        '{"spec": {"minLength": 1, "ratio": 0.5, "big": 1e+300, "list": [2, 3.25], "enabled": true}}')


def test_a_request_is_sent_as_the_kubernetes_package_would_send_it(monkeypatch):
    """The client builds its requests itself (URL, headers, JSON body) instead of through the
    kubernetes package's ``param_serialize``/``call_api``, which walked every body twice: the
    bytes sent are the package's own, and its serialization is no longer called."""
    import datetime as dt
    import enum

    from kubernetes import client as k8s_client

    class Phase(enum.Enum):
        RUNNING = "Running"

    configuration = k8s_client.Configuration()
    configuration.host = "https://127.0.0.1:1"
    configuration.api_key["BearerToken"] = "Bearer abc"
    api = k8s_client.ApiClient(configuration)
    client = live.LiveClient(api)
    body = {"metadata": {"name": "a b", "labels": {"x": "1"}}, "data": {"n": 1.0, "r": 0.5, "l": [2.0, "s"]},
            "at": dt.datetime(2026, 11, 27, 9, 30, tzinfo=dt.UTC), "day": dt.date(2026, 11, 27),
            "phase": Phase.RUNNING, "none": None, "ok": True}
    query = [("fieldManager", "helm-core"), ("labelSelector", "owner=helm,name=a b"), ("limit", "500")]
    headers = {"Accept": "application/json", "Content-Type": "application/json"}
    method, url, sent_headers, _, _ = api.param_serialize(
        "POST", "/api/v1/namespaces/ns/configmaps", query_params=list(query), header_params=dict(headers),
        body=live.go_numbers(body), auth_settings=["BearerToken"])
    expected = (method, url, sent_headers, json.dumps(api.sanitize_for_serialization(live.go_numbers(body))))

    def walked(*_args, **_kwargs):
        raise AssertionError("the kubernetes package's serialization walked the body")

    monkeypatch.setattr(k8s_client.ApiClient, "sanitize_for_serialization", walked)
    monkeypatch.setattr(k8s_client.ApiClient, "param_serialize", walked)
    assert client._serialize("POST", "/api/v1/namespaces/ns/configmaps", query=list(query),
                             headers=dict(headers), body=live.go_numbers(body)) == expected
    assert '"n": 1, "r": 0.5, "l": [2, "s"]' in expected[3]
