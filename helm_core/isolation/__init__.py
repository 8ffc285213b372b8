"""Chart code in worker processes under a budget: what the controller renders with.

Why processes: a chart's templates, regexes, schemas and YAML come from strangers, and the
controller serves every namespace from one process. A Python thread cannot be stopped, a
C stack overflow kills the whole interpreter, and memory is shared. A worker process can be
killed, limited (``RLIMIT_AS``, ``RLIMIT_CPU``) and replaced, and holds no credentials.

- :mod:`~helm_core.isolation.process`: one worker process and the framing both sides speak;
- :mod:`~helm_core.isolation.serve`: the worker's side (``python -m helm_core.isolation.serve``);
- :mod:`~helm_core.isolation.pool`: a pool of workers shared fairly between tenants
  (namespaces), and :class:`IsolatedRenderer`, the :class:`~helm_core.engine.renderer.Renderer`
  actions use through ``Configuration.renderer``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from helm_core.isolation.pool import IsolatedRenderer, RenderPool

__all__ = ["IsolatedRenderer", "RenderPool"]


def __getattr__(name: str) -> Any:
    # the pool (and with it the engine) is imported on first use: the Lua worker, which only
    # needs the process module, stays light
    if name in __all__:
        from helm_core.isolation import pool

        return getattr(pool, name)
    raise AttributeError(name)
