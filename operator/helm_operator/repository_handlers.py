"""Kopf handlers of HelmRepository: decorators only, each delegating to :mod:`repositories`.

A daemon per repository fetches its index at once, then every ``spec.interval`` (an asyncio
task: an idle repository costs no CPU), woken early by a spec change; a new index wakes the
HelmRequests that reference the repository (:func:`handlers.wake`). Deleting a repository drops
its index from the store: the requests naming it then wait (Reconciling) for it to return.
"""
from __future__ import annotations

import asyncio
import contextvars
import copy
import functools
from typing import Any

import kopf

from helm_operator import handlers, repositories, watches

GROUP, VERSION, PLURAL = "helm.sh", "v1alpha1", "helmrepositories"


def register(registry: kopf.OperatorRegistry) -> None:
    """Register the handlers in ``registry``; the memo needs ``runtime`` (with a
    ``repositories`` store), ``requests`` (watches.Requests) and ``repository_wakeups``."""

    @kopf.on.update(GROUP, VERSION, PLURAL, registry=registry, id="refetch", field="spec")
    async def on_spec(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
        woken = memo.repository_wakeups.get(body["metadata"]["uid"])
        if woken is not None:
            woken.set()

    @kopf.daemon(GROUP, VERSION, PLURAL, registry=registry, id="fetch",
                 cancellation_timeout=handlers.DAEMON_CANCEL_S)
    async def every_interval(body: kopf.Body, memo: kopf.Memo, stopped: kopf.DaemonStopped,
                             **_: Any) -> None:
        meta = body["metadata"]
        woken = memo.repository_wakeups.setdefault(meta["uid"], asyncio.Event())
        loop = asyncio.get_running_loop()
        key = watches.ObjectKey(watches.HELMREPOSITORY, meta["namespace"], meta["name"])
        while not stopped:
            fetch = functools.partial(repositories.reconcile_repository, memo.runtime,
                                      copy.deepcopy(dict(body)))
            outcome = await loop.run_in_executor(None, contextvars.copy_context().run, fetch)
            if outcome.changed:
                handlers.wake(memo, memo.requests.referencing(key))
            every = repositories.interval_seconds(body.get("spec") or {})
            await handlers.sleep_or_wake(stopped, woken, max(handlers.MIN_INTERVAL_S, every))

    @kopf.on.delete(GROUP, VERSION, PLURAL, registry=registry, id="forget", optional=True)
    async def on_delete(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
        meta = body["metadata"]
        memo.runtime.repositories.drop(repositories.RepositoryKey(meta["namespace"], meta["name"]))
        memo.repository_wakeups.pop(meta["uid"], None)
