"""Where helm-core keeps what it caches on disk: one root for the chart cache
(:mod:`helm_core.sources.cache`) and the memo (:mod:`helm_core.support.memo`).

Takes the environment as an argument: only the CLI and the operator's main read it.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

MEMO_FOLDER = "memo"


def default_root(env: Mapping[str, str]) -> Path:
    """``$HELM_CORE_CACHE`` or ``$XDG_CACHE_HOME/helm-core`` or ``~/.cache/helm-core``."""
    if env.get("HELM_CORE_CACHE"):
        return Path(env["HELM_CORE_CACHE"])
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "helm-core"
