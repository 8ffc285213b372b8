"""The service-account check: an account seen to exist is not read again for a while; a
missing one is read on every reconcile."""
from __future__ import annotations

from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_operator import accounts


RESOURCES = fake.FAKE_RESOURCES + (kclient.ApiResource("v1", "ServiceAccount", "serviceaccounts", True),)


class Counting(fake.FakeClient):
    def __init__(self, cluster):
        super().__init__(cluster)
        self.gets = 0

    def get(self, ref):
        self.gets += 1
        return super().get(ref)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_an_existing_account_is_read_once_per_ttl():
    client, clock = Counting(fake.FakeCluster(resources=RESOURCES)), Clock()
    client.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "deployer", "namespace": "team"}})
    known = accounts.Accounts(ttl_s=60, clock=clock)
    assert all(known.exists(client, "team", "deployer") for _ in range(5))
    assert client.gets == 1
    clock.now += 61
    client.delete(kclient.ObjectRef("v1", "ServiceAccount", "deployer", "team"))
    assert not known.exists(client, "team", "deployer")  # read again after the TTL
    assert client.gets == 2


def test_a_missing_account_is_never_cached():
    client = Counting(fake.FakeCluster(resources=RESOURCES))
    known = accounts.Accounts(ttl_s=60, clock=Clock())
    assert not known.exists(client, "team", "deployer")
    client.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "deployer", "namespace": "team"}})
    assert known.exists(client, "team", "deployer")  # created: seen at the next reconcile
    assert not known.exists(client, "team", "other")
    assert client.gets == 3
