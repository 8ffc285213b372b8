"""Kopf handlers of HelmRepository: decorators only, each delegating to :mod:`repositories`.

A daemon per repository fetches its index at once, then every ``spec.interval`` (an asyncio
task: an idle repository costs no CPU), woken early by a spec change or a Flux reconcile token; in a shard
(``--selector``), only for the repositories the shard owns or its own requests name
(:func:`repositories.owns`); a new index wakes the
HelmRequests that reference the repository (:func:`handlers.wake`), and runs at once the retry of
those that failed for their chart source. Deleting a repository drops
its index from the store: the requests naming it then wait (Reconciling) for it to return.
"""
from __future__ import annotations

import asyncio
import contextvars
import copy
import functools
from collections.abc import Callable
from typing import Any

import kopf

from helm_operator import handlers, ondemand, repositories, watches

GROUP, VERSION, PLURAL = "helm.sh", "v1alpha1", "helmrepositories"


def register(registry: kopf.OperatorRegistry) -> None:
    """Register the handlers in ``registry``; the memo needs ``runtime`` (with a
    ``repositories`` store), ``requests`` (watches.Requests) and ``repository_wakeups``."""

    @kopf.on.update(GROUP, VERSION, PLURAL, registry=registry, id="refetch", field="spec")
    async def on_spec(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
        _wake(memo, body)

    # Flux's reconcile.fluxcd.io/requestedAt (`flux reconcile source helm`): a token not
    # handled yet wakes the fetch now; the fetch records it in status.lastHandledReconcileAt
    @kopf.on.event(GROUP, VERSION, PLURAL, registry=registry, id="requested",
                   annotations={ondemand.REQUESTED_AT: kopf.PRESENT}, when=handlers.requested)
    async def on_request_annotation(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
        _wake(memo, body)

    @kopf.daemon(GROUP, VERSION, PLURAL, registry=registry, id="fetch",
                 cancellation_timeout=handlers.DAEMON_CANCEL_S)
    async def every_interval(body: kopf.Body, memo: kopf.Memo, stopped: kopf.DaemonStopped,
                             **_: Any) -> None:
        meta = body["metadata"]
        woken = memo.repository_wakeups.setdefault(meta["uid"], asyncio.Event())
        loop = asyncio.get_running_loop()
        key = watches.ObjectKey(watches.HELMREPOSITORY, meta["namespace"], meta["name"])
        repository = repositories.RepositoryKey(meta["namespace"], meta["name"])
        store: repositories.Store = memo.runtime.repositories
        while not stopped:
            users = memo.requests.referencing(key)
            # another shard's repository is fetched here only while our own requests name it
            if users or repositories.owns(memo.runtime, body):
                fetch = functools.partial(repositories.reconcile_repository, memo.runtime,
                                          copy.deepcopy(dict(body)))
                outcome = await loop.run_in_executor(None, contextvars.copy_context().run, fetch)
                if outcome is not None and outcome.changed:
                    handlers.wake(memo, memo.requests.referencing(key),
                                  index=_index(repository, outcome))
            every = repositories.interval_seconds(body.get("spec") or {})
            due = store.due_in(repository, int(body["metadata"].get("generation") or 1), every)
            await handlers.sleep_or_wake(stopped, woken, max(handlers.MIN_INTERVAL_S, due or every))

    @kopf.on.delete(GROUP, VERSION, PLURAL, registry=registry, id="forget", optional=True)
    async def on_delete(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
        meta = body["metadata"]
        memo.runtime.repositories.drop(repositories.RepositoryKey(meta["namespace"], meta["name"]))
        memo.repository_wakeups.pop(meta["uid"], None)


def _wake(memo: kopf.Memo, body: kopf.Body) -> None:
    """Fetch the repository now (its daemon sleeps until then)."""
    woken = memo.repository_wakeups.get(body["metadata"]["uid"])
    if woken is not None:
        woken.set()


def loader(memo: kopf.Memo, loop: asyncio.AbstractEventLoop) -> Callable[[repositories.RepositoryKey], None]:
    """``Store.loader``: fetch a repository a request needs now (from a worker thread), and
    wake the other requests naming it when that brought an index."""
    def load(key: repositories.RepositoryKey) -> None:
        outcome = repositories.load(memo.runtime, key)
        if outcome is not None and outcome.changed:
            uids = memo.requests.referencing(
                watches.ObjectKey(watches.HELMREPOSITORY, key.namespace, key.name))
            loop.call_soon_threadsafe(functools.partial(
                handlers.wake, memo, uids, index=_index(key, outcome)))
    return load


def _index(key: repositories.RepositoryKey, outcome: repositories.Outcome) -> str:
    """What a new index is called in the requests it wakes: the repository and its digest."""
    digest = (outcome.status.get("artifact") or {}).get("digest") or "(oci)"
    return f"HelmRepository {key} {digest}"
