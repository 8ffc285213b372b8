"""The requester-stamp webhook: the same rule as the admission policy, answered over HTTPS.
On the real API server: e2e/test_operator_requester_webhook.py."""
from __future__ import annotations

import base64
import json
import ssl
import urllib.error
import urllib.request
from typing import Any

import pytest

from e2e.operator_kit import free_port
from e2e.requester_kit import serving_certificate
from helm_operator import admission, main

ALICE = {"username": "alice", "uid": "7", "groups": ["devs", "system:authenticated"],
         "extra": {"scopes": ["a"]}}
SPEC = {"chart": {"configMapRef": {"name": "chart"}}}


def request(operation: str, obj: dict[str, Any], old: dict[str, Any] | None = None,
            user: dict[str, Any] = ALICE, **more: Any) -> dict[str, Any]:
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "r-1", "operation": operation, "userInfo": user, "object": obj,
                        "oldObject": old, **more}}


def patch_of(answer: dict[str, Any]) -> list[dict[str, Any]] | None:
    response = answer["response"]
    assert response["uid"] == "r-1" and response["allowed"] is True
    if "patch" not in response:
        return None
    assert response["patchType"] == "JSONPatch"
    return json.loads(base64.b64decode(response["patch"]))  # type: ignore[no-any-return]


def test_a_create_is_stamped_over_a_forged_identity():
    forged = {"spec": SPEC, "requester": {"username": "root", "groups": ["system:masters"]}}
    assert patch_of(admission.review(request("CREATE", forged))) == [
        {"op": "add", "path": "/requester", "value": ALICE}]


def test_empty_parts_are_left_out():
    answer = admission.review(request("CREATE", {"spec": SPEC}, user={"username": "bob", "uid": "", "groups": []}))
    assert patch_of(answer) == [{"op": "add", "path": "/requester", "value": {"username": "bob"}}]


@pytest.mark.parametrize("new,old,stamped", [
    ({"spec": {"a": 2}, "requester": {"username": "x"}}, {"spec": {"a": 1}, "requester": {"username": "x"}}, True),
    ({"spec": SPEC, "requester": {"username": "y"}}, {"spec": SPEC, "requester": {"username": "x"}}, True),
    ({"spec": SPEC}, {"spec": SPEC, "requester": {"username": "x"}}, True),
    ({"spec": SPEC, "metadata": {"labels": {"a": "b"}}, "requester": {"username": "x"}},
     {"spec": SPEC, "requester": {"username": "x"}}, False),
])
def test_updates_are_stamped_only_when_spec_or_stamp_change(new, old, stamped):
    assert (patch_of(admission.review(request("UPDATE", new, old))) is not None) == stamped


def test_subresources_and_deletes_are_left_alone():
    assert patch_of(admission.review(request("UPDATE", {"spec": {"a": 2}}, {"spec": {}}, subResource="status"))) is None
    assert patch_of(admission.review(request("DELETE", {}, {"spec": SPEC}))) is None


def test_served_over_https(tmp_path):
    ca = serving_certificate(tmp_path)
    port = free_port()
    server = admission.serve(port, cert_dir=tmp_path, host="127.0.0.1")
    context = ssl.create_default_context(cadata=ca.decode())
    try:
        def post(path: str, data: bytes) -> tuple[int, dict[str, Any]]:
            req = urllib.request.Request(f"https://127.0.0.1:{port}{path}", data=data,
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, context=context, timeout=10) as rsp:
                    return rsp.status, json.loads(rsp.read())
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read())

        status, answer = post(admission.PATH, json.dumps(request("CREATE", {"spec": SPEC})).encode())
        assert status == 200 and patch_of(answer)[0]["value"] == ALICE
        assert post(admission.PATH, b"[1]") == (400, {"error": "not an AdmissionReview: not a JSON object"})
        assert post("/other", b"{}")[0] == 404
    finally:
        server.shutdown()
        server.server_close()


def test_missing_certificate_fails_at_start(tmp_path):
    with pytest.raises(FileNotFoundError):
        admission.serve(free_port(), cert_dir=tmp_path, host="127.0.0.1")


def test_flags():
    inv = main.parse(["run", "--admission-port", "9443"], {})
    assert (inv.admission_port, inv.admission_cert_dir) == (9443, main.DEFAULT_ADMISSION_CERT_DIR)
    assert main.parse(["run"], {}).admission_port == 0
    with pytest.raises(ValueError, match="admission port must be between 0 and 65535, not 70000"):
        main.parse(["run"], {"HELM_OPERATOR_ADMISSION_PORT": "70000"})
