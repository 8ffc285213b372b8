"""Session-wide test settings: CLI runs in tests keep their disk caches (chart cache and
memo) in a temporary folder, never in the user's ~/.cache."""
from __future__ import annotations

import os
import tempfile

if "HELM_CORE_CACHE" not in os.environ:
    os.environ["HELM_CORE_CACHE"] = tempfile.mkdtemp(prefix="helm-core-test-cache-")
