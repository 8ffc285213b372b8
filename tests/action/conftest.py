"""Fixtures for action unit tests: the fake cluster behind the real Secrets driver."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config
from helm_core.chart import loader, model
from helm_core.kube import fake
from helm_core.storage import secrets
from tests import chartkit


@pytest.fixture
def cluster() -> fake.FakeCluster:
    return fake.FakeCluster()


@pytest.fixture
def cfg(cluster: fake.FakeCluster) -> config.Configuration:
    client = cluster.client()
    return config.Configuration(client=client, driver=secrets.SecretsDriver(client))


def make_chart(root: Path, templates: dict[str, str], *, values: str = "greeting: hello\n",
               version: str = "0.1.0") -> model.Chart:
    files: dict[str, str | bytes] = {"Chart.yaml": chartkit.chart_yaml("demo", version),
                                     "values.yaml": values}
    files.update({f"templates/{name}": text for name, text in templates.items()})
    return loader.load(chartkit.write_chart(root, files))


def configmap(name: str, *, condition: str = "") -> str:
    body = (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"
            "data:\n  greeting: {{ .Values.greeting | quote }}\n")
    return f"{{{{- if {condition} }}}}\n{body}{{{{- end }}}}\n" if condition else body
