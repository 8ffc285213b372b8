"""The library's own face: load a chart, render it as ``helm template`` does, run release actions.

Everything here is re-exported by :mod:`helm_core` itself, lazily (``import helm_core`` stays as
cheap as the CLI's start-up needs): ``helm_core.load_chart``, ``helm_core.template``,
``helm_core.connect``, ``helm_core.install``... See docs/library.md for examples.

Rules:
- ``values`` is a mapping of user values as JSON would decode it (numbers are Go float64, as
  Helm types ``--set-json`` and the controller's ``spec.values``); ``values_files`` and ``set``
  are Helm's ``-f`` and ``--set``, merged after it in Helm's order.
- A chart is a :class:`helm_core.chart.model.Chart` or a path (directory or ``.tgz``).
- :func:`template` returns exactly the text ``helm template`` (and ``helm-core template``)
  prints; bad input raises a :class:`helm_core.errors.HelmError` with Helm's message.
- Release actions take a :class:`helm_core.action.config.Configuration` (``connect()`` builds
  one on the cluster of a kubeconfig) and return stored versions
  (:class:`helm_core.storage.release.ReleaseVersion`).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from helm_core.action import config as action_config
from helm_core.action import get as get_action
from helm_core.action import history as history_action
from helm_core.action import install as install_action
from helm_core.action import list as list_action
from helm_core.action import rollback as rollback_action
from helm_core.action import template as template_action
from helm_core.action import uninstall as uninstall_action
from helm_core.action import upgrade as upgrade_action
from helm_core.action import values_options
from helm_core.chart import loader, model
from helm_core.storage import release as rel

ChartLike = model.Chart | str | os.PathLike[str]
Configuration = action_config.Configuration
ReleaseVersion = rel.ReleaseVersion


def load_chart(path: str | os.PathLike[str]) -> model.Chart:
    """Load a chart from a directory or a packaged ``.tgz`` (Helm's ``loader.Load``)."""
    return loader.load(path)


def _chart(chart: ChartLike) -> model.Chart:
    return chart if isinstance(chart, model.Chart) else load_chart(chart)


def merge_values(values: Mapping[str, Any] | None = None, *, values_files: Sequence[str] = (),
                 set: Sequence[str] = (), set_string: Sequence[str] = ()) -> dict[str, Any]:
    """User values as ``helm template/install`` merges them: ``values``, then ``-f`` files,
    then ``--set`` and ``--set-string`` entries."""
    return values_options.merge(values_options.ValuesOptions(
        inline=dict(values or {}), value_files=tuple(values_files), set_values=tuple(set),
        set_string=tuple(set_string)))


def template(chart: ChartLike, values: Mapping[str, Any] | None = None, *,
             release_name: str = template_action.DEFAULT_RELEASE_NAME, namespace: str = "default",
             values_files: Sequence[str] = (), set: Sequence[str] = (),
             kube_version: str | None = None, api_versions: Sequence[str] = (),
             include_crds: bool = False, skip_tests: bool = False, no_hooks: bool = False,
             show_only: Sequence[str] = (), is_upgrade: bool = False,
             accept_lua_permissions: Sequence[str] = (),
             log: Callable[[str], None] = lambda _line: None) -> str:
    """The manifests of ``chart`` rendered for release ``release_name``, exactly as
    ``helm template`` prints them (``---``/``# Source:`` documents; CRDs with
    ``include_crds``; hooks unless ``no_hooks``)."""
    loaded = _chart(chart)
    options = template_action.TemplateOptions(
        release_name=release_name, namespace=namespace, kube_version=kube_version,
        api_versions=tuple(api_versions), include_crds=include_crds, skip_tests=skip_tests,
        no_hooks=no_hooks, show_only=tuple(show_only), is_upgrade=is_upgrade,
        lua=template_action.LuaOptions(accepted_permissions=frozenset(accept_lua_permissions)))
    user_values = merge_values(values, values_files=values_files, set=set)
    result = template_action.run(loaded, user_values, options, log=log)
    return template_action.output_text(result, options)


def connect(*, kubeconfig: str | None = None, context: str | None = None,
            log: Callable[[str], None] | None = None) -> action_config.Configuration:
    """A configuration for release actions on the cluster of ``kubeconfig`` (default: as
    ``kubectl`` finds it), releases stored as Secrets there (Helm's default driver)."""
    from helm_core.kube import live  # the kubernetes client: only callers that reach a cluster

    client = live.connect(live.LiveOptions(kubeconfig=kubeconfig, context=context))
    options: dict[str, Any] = {"log": log} if log else {}
    return action_config.on_cluster(client, **options)


def install(cfg: action_config.Configuration, chart: ChartLike, values: Mapping[str, Any] | None = None,
            *, name: str, namespace: str = "default", **options: Any) -> rel.ReleaseVersion:
    """``helm install``: ``options`` are :class:`helm_core.action.install.InstallOptions`
    fields (``wait``, ``timeout_s``, ``atomic``, ``create_namespace``, ``dry_run``...)."""
    return install_action.run(cfg, _chart(chart), merge_values(values), install_action.InstallOptions(
        name=name, namespace=namespace, **options))


def upgrade(cfg: action_config.Configuration, chart: ChartLike, values: Mapping[str, Any] | None = None,
            *, name: str, namespace: str = "default", **options: Any) -> rel.ReleaseVersion:
    """``helm upgrade`` (``install=True`` for ``--install``): ``options`` are
    :class:`helm_core.action.upgrade.UpgradeOptions` fields."""
    return upgrade_action.run(cfg, _chart(chart), merge_values(values), upgrade_action.UpgradeOptions(
        name=name, namespace=namespace, **options))


def rollback(cfg: action_config.Configuration, name: str, namespace: str = "default",
             version: Any = None, **options: Any) -> rel.ReleaseVersion:
    """``helm rollback`` to ``version`` (a ULID; None: the previous version) as a new version."""
    return rollback_action.run(cfg, name, namespace, version, rollback_action.RollbackOptions(**options))


def uninstall(cfg: action_config.Configuration, name: str, namespace: str = "default",
              **options: Any) -> uninstall_action.UninstallResult:
    """``helm uninstall``: ``options`` are :class:`helm_core.action.uninstall.UninstallOptions` fields."""
    return uninstall_action.run(cfg, name, namespace, uninstall_action.UninstallOptions(**options))


def get(cfg: action_config.Configuration, name: str, namespace: str = "default",
        version: Any = None) -> rel.ReleaseVersion:
    """``helm get``/``helm status``: one version of a release (the newest when None)."""
    return get_action.run(cfg, name, namespace, version)


def history(cfg: action_config.Configuration, name: str, namespace: str = "default") -> list[rel.ReleaseVersion]:
    """``helm history``: every stored version of a release, oldest first."""
    return history_action.run(cfg, name, namespace)


def list_releases(cfg: action_config.Configuration, namespace: str = "default",
                  **options: Any) -> list[rel.ReleaseVersion]:
    """``helm list``: ``options`` are :class:`helm_core.action.list.ListOptions` fields."""
    return list_action.run(cfg, list_action.ListOptions(namespace=namespace, **options))
