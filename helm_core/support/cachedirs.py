"""Where helm-core keeps what it caches on disk: one root for the chart cache
(:mod:`helm_core.sources.cache`) and the memo (:mod:`helm_core.support.memo`).

Takes the environment as an argument: only the CLI and the operator's main read it.
"""
from __future__ import annotations

import os
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

MEMO_FOLDER = "memo"


def default_root(env: Mapping[str, str]) -> Path:
    """``$HELM_CORE_CACHE`` or ``$XDG_CACHE_HOME/helm-core`` or ``~/.cache/helm-core``."""
    from pathlib import Path

    return Path(default_folder(env))


def default_folder(env: Mapping[str, str]) -> str:
    """:func:`default_root` as text (a CLI run that prints from the memo never imports pathlib)."""
    if env.get("HELM_CORE_CACHE"):
        return env["HELM_CORE_CACHE"]
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "helm-core")
