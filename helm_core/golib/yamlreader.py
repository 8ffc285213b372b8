"""k8s.io/apimachinery's ``yaml.YAMLReader``: a YAML stream cut into documents at ``---`` lines,
before any of them is parsed (what ``yaml.NewYAMLOrJSONDecoder`` reads, e.g. ``helm lint``).

Each document is read only when the one before it has been used, so a caller reports what it
found in the earlier documents before a later one fails, as Go's decoding loop does.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


def documents(text: str) -> Iterator[str]:
    """The non-empty documents of ``text``, their lines ending in ``\\n`` (``\\r\\n`` read as
    ``\\n``, as ``bufio.Reader.ReadLine`` gives them). A line starting with ``---`` ends a
    document; anything after the dashes other than spaces or a comment raises
    :class:`ValueError` with Go's message when that line is reached."""
    lines = text.split("\n")
    if lines[-1] == "":  # what follows the last newline: end of input, not a line
        lines.pop()
    document: list[str] = []
    for line in lines:
        if line.startswith("---"):
            rest = line[3:].strip()
            if rest and not rest.startswith("#"):
                raise ValueError(f"invalid Yaml document separator: {rest}")
            if document:
                yield "".join(document)
                document = []
            continue
        document.append(line.removesuffix("\r") + "\n")
    if document:
        yield "".join(document)
