"""Which engine renders a template: Go templates by default, Jinja2 only on opt-in.

Kept apart from :mod:`helm_core.engine.jinja` so that choosing costs nothing: Jinja2 is
imported only when a chart actually opts in (a ``.j2`` file or a pre-render handler).
"""
from __future__ import annotations

#: The engine name a pre-render handler sets on ``_.templates`` entries.
JINJA2 = "jinja2"
#: The file suffix that opts a template in; it is dropped from the document source name.
JINJA2_SUFFIX = ".j2"


def is_jinja_file(name: str) -> bool:
    return name.endswith(JINJA2_SUFFIX)


def document_name(name: str) -> str:
    """``templates/cm.yaml.j2`` → ``templates/cm.yaml`` (other names unchanged)."""
    return name[: -len(JINJA2_SUFFIX)] if is_jinja_file(name) else name
