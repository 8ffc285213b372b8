"""The ``list`` action: the newest version of each release, filtered as ``helm list`` filters.

Rules (Helm's ``List``): one namespace, or all when ``all_namespaces``; ``statuses`` empty means
Helm's default (deployed and failed); ``all_statuses`` shows every status; ``superseded`` alone
lists every superseded version, not only releases whose newest version is (helm skips its
latest-only filter then: a newest version is seldom superseded); ``filter`` is a
regular expression searched in the release name; ``selector`` a label selector on the releases'
custom labels (``storage/labels.py``; as helm, it is read only when some release's name passed
the filter, so with none listed a bad selector is no error); sorted by name (then namespace) unless
``by_date``; ``reverse`` flips the order; then ``offset`` releases are skipped and at most
``limit`` kept (0: all).
"""
from __future__ import annotations

from helm_core.action import config
from helm_core.errors import HelmError
from helm_core.storage import release as rel
from helm_core.support.records import record

DEFAULT_STATUSES = frozenset({rel.Status.DEPLOYED, rel.Status.FAILED})
_ZERO_TIME_UNIX = -62135596800
"""Go's zero ``time.Time`` in Unix seconds: a release never deployed sorts first."""


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
    limit: int = 256
    """helm's ``--max`` (its default 256; 0 keeps all)."""
    offset: int = 0
    selector: str = ""
    """helm's ``--selector``/``-l``: ``=``, ``==``, ``!=``, ``in``, ``notin``, ``key``, ``!key``."""


def run(cfg: config.Configuration, options: ListOptions = ListOptions()) -> list[rel.ReleaseVersion]:
    """The releases ``options`` select (see the module rules)."""
    from helm_core.golib import goregexp, labels

    try:  # Go's regexp, as helm's: its syntax, and linear time
        pattern = goregexp.compile(options.filter) if options.filter else None
    except goregexp.GoSyntaxError as exc:
        raise HelmError(str(exc)) from None
    wanted = options.statuses or DEFAULT_STATUSES
    namespace = "" if options.all_namespaces else options.namespace
    every = not options.all_statuses and wanted == {rel.Status.SUPERSEDED}
    listed = sorted(cfg.driver.list_all(namespace), key=lambda v: v.version) if every \
        else cfg.driver.list_latest(namespace)
    named = [v for v in listed if pattern is None or pattern.match_string(v.name)]
    if not named:
        return []
    try:  # apimachinery's parser and words, as helm's
        requirements = labels.parse(options.selector)
    except labels.SelectorError as exc:
        raise HelmError(str(exc)) from None
    found = [v for v in named if (options.all_statuses or v.status in wanted)
             and all(r.matches(v.labels) for r in requirements)]
    found.sort(key=lambda v: (v.name, v.namespace))
    if options.by_date:  # helm's ByDate: oldest first, by whole seconds (ties keep name order here)
        found.sort(key=lambda v: int(v.last_deployed.timestamp()) if v.last_deployed else _ZERO_TIME_UNIX)
    if options.reverse:
        found.reverse()
    if options.offset < 0:  # helm's slice would panic
        raise HelmError(f"invalid list offset {options.offset}: it may not be negative")
    if options.offset >= len(found):
        return []
    kept = found[options.offset:]
    return kept[:options.limit] if options.limit > 0 else kept
