"""Go's ``path`` and ``path/filepath`` on Unix (the same rules there), where a path's spelling
shows in what helm prints and in Sprig's ``clean``/``dir``.

Python's ``os.path.join`` keeps what Go's ``Join`` cleans (``./a``, ``a//b``, ``a/../b``), and
``os.path.normpath`` keeps a leading ``//`` that Go's ``Clean`` reduces to ``/``.
"""
from __future__ import annotations


def clean(path: str) -> str:
    """Go's ``filepath.Clean``: the shortest path naming the same file, by lexical rules."""
    if not path:
        return "."
    rooted = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append(part)
            continue  # ".." at the root is the root
        parts.append(part)
    cleaned = "/".join(parts)
    if rooted:
        return "/" + cleaned
    return cleaned or "."


def join(*elements: str) -> str:
    """Go's ``filepath.Join``: the non-empty elements joined by ``/``, cleaned ("" for none)."""
    given = [e for e in elements if e]
    return clean("/".join(given)) if given else ""


def dir(path: str) -> str:  # noqa: A001 - Go's name
    """Go's ``filepath.Dir``: all but the last element, cleaned ("." for none)."""
    return clean(path[:path.rfind("/") + 1])
