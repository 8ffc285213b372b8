"""Entry point of the controller (`helm-operator run`). Built in the controller issue."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("helm-operator: the controller is not built yet", file=sys.stderr)
    return 1
