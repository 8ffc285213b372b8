"""Chart Lua for the actions that work from a stored version: rollback, uninstall, test.

These actions never load the chart (Helm's neither): they re-apply, delete or test what a
version stored. Its chart's Lua comes from the version too (``ReleaseVersion.extensions``,
kept by install and upgrade: :mod:`helm_core.lua.kept`), and answers the action's own events
(``lua.ACTIONS``: ``pre-rollback``/``post-rollback``/``wait``/``ready``, ``pre-delete``/
``post-delete``, ``pre-test``/``post-test``/``failed-test``).

Rules:
- the context is the version's: its values, ``_.release`` with the version's revision, the
  cluster's capabilities, and ``_.objects`` the documents the action works on (the manifest
  for rollback and uninstall, the test hooks for test);
- handlers of ``pre-*`` events that may change objects (``lua.EVENTS``) change what the
  action uses: :attr:`VersionEvents.text` is the documents as they left them;
- permissions are checked as for install (``LuaOptions``) before any Lua runs;
- a version without Lua (most) costs nothing: no worker starts, nothing is imported.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from helm_core import lua
from helm_core.action import config, events
from helm_core.action import template as template_action
from helm_core.engine import manifests as mf
from helm_core.storage import release as rel


class VersionEvents:
    """The Lua of one stored version during one action; ``fire`` runs an event's handlers."""

    def __init__(self, text: str, documents: Sequence[mf.Manifest] = (),
                 emitter: events.Emitter[lua.EventContext] | None = None,
                 ctx: lua.EventContext | None = None) -> None:
        self._text = text
        self._documents = list(documents)
        self._emitter = emitter
        self._ctx = ctx

    @property
    def text(self) -> str:
        """The documents' text as the handlers so far left them (the stored text, unchanged
        when they changed nothing)."""
        if self._ctx is None:
            return self._text
        now = template_action.documents_after(self._documents, self._ctx.objects)
        if len(now) == len(self._documents) and all(a is b for a, b in zip(now, self._documents, strict=True)):
            return self._text
        return mf.format_documents(now)

    def fire(self, event: str) -> None:
        if self._emitter is not None and self._ctx is not None:
            self._ctx = self._emitter.emit(event, self._ctx)


@contextlib.contextmanager
def of_version(cfg: config.Configuration, version: rel.ReleaseVersion, *, action: str,
               revision: int, text: str, lua_options: template_action.LuaOptions,
               enabled: bool = True) -> Iterator[VersionEvents]:
    """The Lua of ``version`` for ``action`` (``rollback``, ``uninstall``, ``test``) working on
    the documents of ``text`` (stored form: ``mf.format_documents``); ``revision`` is
    ``_.release.revision``; not ``enabled``: no Lua runs (events do nothing)."""
    if not version.extensions or not enabled:
        yield VersionEvents(text)
        return
    from helm_core.lua import kept

    where = f'release "{version.name}" version {rel.version_text(version.version)}'
    chart = kept.unpack(version.extensions, source=where)
    assert chart is not None
    with lua.load_chart_scripts(chart, accepted_permissions=lua_options.accepted_for(chart),
                                limits=lua_options.limits, log=lua_options.log or cfg.log,
                                session_factory=lua_options.session_factory) as scripts:
        emitter: events.Emitter[lua.EventContext] = events.Emitter()
        events.attach_chart_scripts(emitter, scripts, lua.ACTIONS[action])
        capabilities = config.cluster_capabilities(cfg)
        documents = mf.parse_stored_documents(text)
        ctx = lua.new_context(
            chart,
            release=lua.ReleaseInfo(name=version.name, namespace=version.namespace, revision=revision,
                                    is_install=False, is_upgrade=False),
            capabilities=lua.CapabilitiesInfo(kube_version=capabilities.KubeVersion.Version,
                                              api_versions=tuple(capabilities.APIVersions)),
            values=version.chart_values,
            objects=tuple(lua.RenderedObject(d.source, d.obj) for d in documents))
        yield VersionEvents(text, documents, emitter, ctx)


def revision_of(history: Sequence[rel.ReleaseVersion], version: rel.ReleaseVersion) -> int:
    """``.Release.Revision`` of a stored ``version`` (what its render saw)."""
    if version.revision:
        return version.revision
    before = [v for v in history if v.version < version.version]
    return rel.next_revision(before)
