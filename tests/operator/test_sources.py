"""valuesFrom resolution, values digest and chart references (helm_operator.sources)."""
from __future__ import annotations

import base64
import copy
import io
import json
import tarfile

import pytest

from helm_core import errors as core
from helm_operator import sources


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def reader(objects):
    calls = []

    def read(kind, name):
        calls.append((kind, name))
        return objects.get((kind, name))

    read.calls = calls
    return read


OBJECTS = {
    ("ConfigMap", "base"): {"data": {"values.yaml": "image:\n  tag: '1'\n  repo: a\nreplicas: 1\n"}},
    ("Secret", "creds"): {"data": {"values.yaml": b64("image:\n  tag: '2'\npassword: s3cret\n")}},
    ("ConfigMap", "raw"): {"data": {"cert": "-----BEGIN-----\nabc,def\n"}},
    ("ConfigMap", "bin"): {"binaryData": {"values.yaml": b64("fromBinary: true\n")}},
    ("ConfigMap", "list"): {"data": {"values.yaml": "- a\n"}},
}


def test_values_from_merge_in_order_and_inline_values_win():
    spec = {"valuesFrom": [{"kind": "ConfigMap", "name": "base"}, {"kind": "Secret", "name": "creds"}],
            "values": {"replicas": 3}}
    out = sources.resolve_values(spec, read=reader(OBJECTS))
    assert out.values == {"image": {"tag": "2", "repo": "a"}, "replicas": 3, "password": "s3cret"}
    assert out.references == (("ConfigMap", "base"), ("Secret", "creds"))


def test_target_path_sets_the_whole_text_as_a_string():
    spec = {"valuesFrom": [{"kind": "ConfigMap", "name": "raw", "valuesKey": "cert",
                            "targetPath": "tls.certs[0].pem"}]}
    out = sources.resolve_values(spec, read=reader(OBJECTS))
    assert out.values == {"tls": {"certs": [{"pem": "-----BEGIN-----\nabc,def\n"}]}}


def test_configmap_binary_data_is_read():
    spec = {"valuesFrom": [{"kind": "ConfigMap", "name": "bin"}]}
    assert sources.resolve_values(spec, read=reader(OBJECTS)).values == {"fromBinary": True}


@pytest.mark.parametrize("entry", [
    {"kind": "ConfigMap", "name": "absent", "optional": True},
    {"kind": "ConfigMap", "name": "base", "valuesKey": "nokey", "optional": True},
], ids=["missing-object", "missing-key"])
def test_optional_missing_is_skipped(entry):
    out = sources.resolve_values({"valuesFrom": [entry], "values": {"a": 1}}, read=reader(OBJECTS))
    assert out.values == {"a": 1}


@pytest.mark.parametrize(("entry", "message"), [
    ({"kind": "ConfigMap", "name": "absent"},
     "valuesFrom[0] (ConfigMap absent, key values.yaml): not found (set optional: true to skip it)"),
    ({"kind": "Secret", "name": "creds", "valuesKey": "other"},
     "valuesFrom[0] (Secret creds, key other): not found (set optional: true to skip it)"),
    ({"kind": "ConfigMap", "name": "list"},
     "valuesFrom[0] (ConfigMap list, key values.yaml): failed to parse values.yaml: error unmarshaling "
     "JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"),
    ({"kind": "Pod", "name": "x"},
     "valuesFrom[0] (Pod x, key values.yaml): kind must be ConfigMap or Secret"),
], ids=["missing-object", "missing-key", "not-a-map", "bad-kind"])
def test_resolution_errors_name_the_entry(entry, message):
    with pytest.raises(core.ValuesError) as info:
        sources.resolve_values({"valuesFrom": [entry]}, read=reader(OBJECTS))
    assert str(info.value) == message


def test_digest_changes_when_a_referenced_object_changes_and_ignores_key_order():
    spec = {"valuesFrom": [{"kind": "ConfigMap", "name": "base"}]}
    first = sources.resolve_values(spec, read=reader(OBJECTS)).digest
    changed = dict(OBJECTS)
    changed[("ConfigMap", "base")] = {"data": {"values.yaml": "image:\n  tag: '9'\n  repo: a\nreplicas: 1\n"}}
    assert sources.resolve_values(spec, read=reader(changed)).digest != first
    reordered = dict(OBJECTS)
    reordered[("ConfigMap", "base")] = {"data": {"values.yaml": "replicas: 1\nimage:\n  repo: a\n  tag: '1'\n"}}
    assert sources.resolve_values(spec, read=reader(reordered)).digest == first
    assert first.startswith("sha256:") and len(first) == 71


def test_resolution_does_not_mutate_spec():
    spec = {"valuesFrom": [{"kind": "ConfigMap", "name": "base"}], "values": {"image": {"tag": "x"}}}
    before = copy.deepcopy(spec)
    out = sources.resolve_values(spec, read=reader(OBJECTS))
    out.values["image"]["repo"] = "changed"
    assert spec == before


def tgz(name="hello", version="0.1.0") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        data = f"apiVersion: v2\nname: {name}\nversion: {version}\n".encode()
        info = tarfile.TarInfo(f"{name}/Chart.yaml")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_packaged_chart_from_configmap_binary_data():
    data = tgz()
    read = reader({("ConfigMap", "chart"): {"binaryData": {"hello-0.1.0.tgz": b64(data)}}})
    ref, creds = sources.chart_ref({"chart": {"configMapRef": {"name": "chart"}}}, namespace="ns",
                                   read=read)
    assert (ref.kind, ref.data, ref.description) == ("packaged", data, "configmap/ns/chart")
    assert not creds.has_secret


def test_packaged_chart_from_secret_key():
    data = tgz()
    read = reader({("Secret", "chart"): {"data": {"c": b64(data)}}})
    ref, _ = sources.chart_ref({"chart": {"secretRef": {"name": "chart", "key": "c"}}},
                               namespace="ns", read=read)
    assert ref.data == data and ref.description == "secret/ns/chart[c]"


def test_missing_packaged_chart_object_is_a_source_error_not_a_missing_repository_chart():
    with pytest.raises(core.SourceError) as info:
        sources.chart_ref({"chart": {"configMapRef": {"name": "gone"}}}, namespace="ns",
                          read=reader({}))
    assert str(info.value) == "configmap/ns/gone: not found"
    assert not isinstance(info.value, core.ChartNotFoundError)


def test_repository_reference_with_basic_auth_secret():
    read = reader({("Secret", "auth"): {"data": {"username": b64("u"), "password": b64("p")}}})
    spec = {"chart": {"repository": {"url": "https://charts.example", "name": "web",
                                     "version": ">=1 <2", "secretRef": {"name": "auth"}}}}
    ref, creds = sources.chart_ref(spec, namespace="ns", read=read)
    assert (ref.kind, ref.url, ref.name, ref.version) == ("repo", "https://charts.example", "web", ">=1 <2")
    assert (creds.username, creds.password) == ("u", "p")


def test_oci_reference_with_digest():
    spec = {"chart": {"oci": {"url": "oci://r.example/charts/web", "digest": "sha256:" + "a" * 64}}}
    ref, _ = sources.chart_ref(spec, namespace="ns", read=reader({}))
    assert (ref.kind, ref.url, ref.digest) == ("oci", "oci://r.example/charts/web", "sha256:" + "a" * 64)


@pytest.mark.parametrize(("chart", "found"), [
    ({}, "none"),
    ({"configMapRef": {"name": "a"}, "oci": {"url": "oci://x/y"}}, "configMapRef, oci"),
], ids=["none", "two"])
def test_exactly_one_chart_source(chart, found):
    with pytest.raises(core.SourceError) as info:
        sources.chart_ref({"chart": chart}, namespace="ns", read=reader({}))
    assert str(info.value) == ("spec.chart: exactly one chart source: configMapRef, secretRef, "
                               f"repository, repositoryRef or oci (found {found})")


def test_credentials_secret_uses_flux_key_names_and_docker_config():
    ca = b"-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n"
    docker = json.dumps({"auths": {"r.example:5000": {"username": "robot", "password": "s3"}}})
    read = reader({("Secret", "tls"): {"data": {"username": b64("u"), "password": b64("p"),
                                               "ca.crt": b64(ca)}},
                   ("Secret", "pull"): {"data": {".dockerconfigjson": b64(docker)}}})
    _, creds = sources.chart_ref({"chart": {"repository": {"url": "https://c.example", "name": "web",
                                                           "secretRef": {"name": "tls"}}}},
                                 namespace="ns", read=read)
    assert (creds.username, creds.password, creds.ca_pem) == ("u", "p", ca)
    _, creds = sources.chart_ref({"chart": {"oci": {"url": "oci://r.example:5000/charts/web",
                                                    "secretRef": {"name": "pull"}}}},
                                 namespace="ns", read=read)
    assert (creds.username, creds.password) == ("robot", "s3")


def test_missing_credentials_secret_is_an_auth_error_naming_it():
    spec = {"chart": {"repository": {"url": "https://c.example", "name": "web",
                                     "secretRef": {"name": "absent"}}}}
    with pytest.raises(core.AuthError) as info:
        sources.chart_ref(spec, namespace="ns", read=reader({}))
    assert str(info.value) == "secret/ns/absent: credentials secret not found"
