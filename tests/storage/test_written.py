"""``WrittenSecrets``: the metadata both Secret drivers keep of what they wrote, so that a
Secret's next write is a replace guarded by their own last write's resourceVersion."""
from __future__ import annotations

from typing import Any

import pytest

from helm_core.errors import NotFoundError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import written

REF = kclient.ObjectRef("v1", "Secret", "web.v1", "demo")


class Counting(fake.FakeClient):
    def __init__(self, cluster: fake.FakeCluster) -> None:
        super().__init__(cluster)
        self.gets: list[str] = []

    def get(self, ref: kclient.ObjectRef) -> dict[str, Any]:
        self.gets.append(ref.name)
        return super().get(ref)


def _secret(value: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": REF.name, "namespace": REF.namespace},
            "data": {"v": value}}


def _setup() -> tuple[Counting, written.WrittenSecrets]:
    client = Counting(fake.FakeCluster())
    kept = written.WrittenSecrets(client)
    kept.created(client.create(_secret("1")))
    return client, kept


def test_a_secret_written_here_is_replaced_over_its_own_write_without_a_read() -> None:
    client, kept = _setup()
    seen: list[str] = []

    def over(meta: Any) -> dict[str, Any]:
        seen.append(meta["resourceVersion"])
        return _secret("2")
    first = kept.replace(REF, over)
    kept.replace(REF, over)
    assert client.gets == []
    assert seen[1] == first["metadata"]["resourceVersion"] != seen[0]  # each write's own version
    assert kept.known("demo", "web.v1") == client.get(REF)["metadata"]


def test_a_secret_written_by_someone_else_since_is_read_and_written_over_what_was_read() -> None:
    client, kept = _setup()
    theirs = client.get(REF)
    theirs["metadata"]["labels"] = {"mark": "theirs"}
    client.replace(theirs)
    client.gets.clear()
    seen: list[Any] = []

    def over(meta: Any) -> dict[str, Any]:
        seen.append(dict(meta.get("labels") or {}))
        return {**_secret("2"), "metadata": {**_secret("2")["metadata"], "labels": dict(meta.get("labels") or {})}}
    kept.replace(REF, over)
    assert client.gets == [REF.name]  # the guarded write failed: read, then write over it
    assert seen == [{}, {"mark": "theirs"}]
    assert client.get(REF)["metadata"]["labels"] == {"mark": "theirs"}


def test_a_forgotten_or_unknown_secret_is_read_first() -> None:
    client, kept = _setup()
    kept.forget("demo", "web.v1")
    assert kept.known("demo", "web.v1") is None
    kept.replace(REF, lambda meta: _secret("2"))
    assert client.gets == [REF.name]


def test_a_secret_gone_is_not_found() -> None:
    client, kept = _setup()
    client.delete(REF)
    with pytest.raises(NotFoundError):
        kept.replace(REF, lambda meta: _secret("2"))
    assert kept.known("demo", "web.v1") is None
