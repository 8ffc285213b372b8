"""The ``list`` action: the newest version of each release, filtered as ``helm list`` filters.

Rules (Helm's ``List``): one namespace, or all when ``all_namespaces``; ``statuses`` empty means
Helm's default (deployed and failed); ``all_statuses`` shows every status; ``filter`` is a
regular expression searched in the release name; sorted by name (then namespace) unless
``by_date``; ``reverse`` flips the order.
"""
from __future__ import annotations

import re

from helm_core.action import config
from helm_core.errors import HelmError
from helm_core.storage import release as rel
from helm_core.support.records import record

DEFAULT_STATUSES = frozenset({rel.Status.DEPLOYED, rel.Status.FAILED})


@record(frozen=True)
class ListOptions:
    """What ``helm-core list`` can be asked."""

    namespace: str = "default"
    all_namespaces: bool = False
    statuses: frozenset[rel.Status] = frozenset()
    all_statuses: bool = False
    filter: str = ""
    by_date: bool = False
    reverse: bool = False


def run(cfg: config.Configuration, options: ListOptions = ListOptions()) -> list[rel.ReleaseVersion]:
    """The releases ``options`` select (see the module rules)."""
    try:
        pattern = re.compile(options.filter) if options.filter else None
    except re.error as exc:
        raise HelmError(f"invalid list filter {options.filter!r}: {exc}") from None
    wanted = options.statuses or DEFAULT_STATUSES
    found = [v for v in cfg.driver.list_latest("" if options.all_namespaces else options.namespace)
             if (options.all_statuses or v.status in wanted)
             and (pattern is None or pattern.search(v.name))]
    if options.by_date:
        found.sort(key=lambda v: v.version)
    else:
        found.sort(key=lambda v: (v.name, v.namespace))
    return found[::-1] if options.reverse else found
