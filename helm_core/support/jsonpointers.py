"""JSON pointers (RFC 6901): ``/a/b~1c`` names ``doc["a"]["b/c"]``; ``~`` is ``~0``, ``/`` is ``~1``.

Values schemas (``$ref``s and where a failure is), and drift ignore rules use them.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is ~1 ms of a CLI run's start-up (docs/architecture.md)
    from collections.abc import Iterable, Sequence
    from typing import Any


def escape(token: str) -> str:
    """One reference token as a pointer spells it."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """One token of a pointer as the key it names."""
    return token.replace("~1", "/").replace("~0", "~")


def join(tokens: Iterable[str]) -> str:
    """The pointer to ``tokens`` ("" for the whole document)."""
    return "".join("/" + escape(token) for token in tokens)


def tokens(pointer: str) -> list[str]:
    """The keys ``pointer`` names, in order (none for "", the whole document)."""
    return [unescape(token) for token in pointer.split("/")[1:]]


def step(node: Any, token: str) -> tuple[bool, Any]:
    """(found, the child): a map's key, or a list's index written in decimal digits."""
    if isinstance(node, dict):
        return token in node, node.get(token)
    if isinstance(node, list) and token.isdigit() and int(token) < len(node):
        return True, node[int(token)]
    return False, None


def get(node: Any, keys: Sequence[str]) -> tuple[bool, Any]:
    """(found, the value) at ``keys`` (from :func:`tokens`)."""
    for key in keys:
        found, node = step(node, key)
        if not found:
            return False, None
    return True, node
