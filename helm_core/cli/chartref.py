"""Chart references as helm takes them, for every command that takes a chart.

``CHART`` is, in helm's order (``ChartPathOptions.LocateChart``):
1. ``oci://host/path/chart[:tag]`` (``--version`` a tag or range), credentials from the flags,
   else from helm's registry config;
2. a path that exists (folder or ``.tgz``);
3. ``./x`` or ``/x`` that does not: ``path "./x" not found``;
4. with ``--repo URL``: a chart name in that repository (its index fetched);
5. ``repo/chart``: through helm's ``repositories.yaml`` and the index ``helm repo add|update``
   left in helm's repository cache.
``--version`` is an exact version or a semver range; ``--devel`` admits pre-releases.
With ``--dependency-update`` (template, install, upgrade), a local chart folder whose declared
dependencies are not all in ``charts/`` gets ``dependency update`` first, as helm does.
Downloads go through helm-core's chart cache (digest-checked, shared with the controller).
"""
from __future__ import annotations

import argparse
import os

from helm_core.cli import common
from helm_core.errors import ChartError, SourceError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

OCI_SCHEME = "oci://"
"""helm_core.sources.oci.SCHEME, spelled here so that a local chart never imports the HTTP client."""


def add_flags(p: argparse.ArgumentParser, *, with_auth: bool = True) -> None:
    """helm's ``ChartPathOptions`` flags (``--repo``, ``--version``, ``--devel``, credentials)."""
    p.add_argument("--repo", default="", help="chart repository url where to locate the requested chart")
    p.add_argument("--version", default="",
                   help="version constraint for the chart (exact version or range); default: latest stable")
    p.add_argument("--devel", action="store_true",
                   help="use development versions, too (equivalent to version '>0.0.0-0')")
    if with_auth:
        common.add_auth_flags(p)


def add_dependency_update_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dependency-update", action="store_true",
                   help="update dependencies if they are missing before installing the chart")


def _ref_options(args: argparse.Namespace) -> tuple[str, bool]:
    version = (getattr(args, "version", "") or "").strip()
    devel = bool(getattr(args, "devel", False))
    return version, devel


def is_local(text: str) -> bool:
    return os.path.exists(text.strip())


def locate(args: argparse.Namespace, text: str) -> tuple[str, bytes | None]:
    """(where the chart is, its archive bytes or None for a local path)."""
    text = text.strip()
    if text.startswith(OCI_SCHEME):
        return _oci(args, text)
    if os.path.exists(text):
        path = os.path.realpath(text)
        if getattr(args, "dependency_update", False) and os.path.isdir(path):
            _update_missing_dependencies(args, path)
        return path, None
    if os.path.isabs(text) or text.startswith("."):
        raise ChartError(f'path "{text}" not found')
    if getattr(args, "repo", ""):
        return _from_repo_url(args, text)
    return _from_named_repo(args, text)


def _update_missing_dependencies(args: argparse.Namespace, chart_dir: str) -> None:
    """helm's install ``--dependency-update``: when ``CheckDependencies`` finds a declared
    dependency missing from ``charts/``, run ``dependency update`` (its output on stdout)."""
    from helm_core.chart import dependencies, loader
    from helm_core.cli import refresh
    from helm_core.errors import DependencyError

    try:
        dependencies.check_present(loader.load(chart_dir))
    except DependencyError:
        refresh.update_dependencies(args, chart_dir)


def load(args: argparse.Namespace, text: str) -> Any:
    """The chart ``text`` names (module rules), loaded."""
    from helm_core.chart import loader

    source, data = locate(args, text)
    if data is None:
        return loader.load(source)
    return loader.load_archive(data, source=source)


def source_of(args: argparse.Namespace, text: str) -> str:
    """What a release records as its chart source: the absolute path, or the URL."""
    return os.path.realpath(text) if is_local(text) else text


def _flag_credentials(args: argparse.Namespace) -> Any:
    from helm_core import sources
    if not hasattr(args, "username"):
        return sources.Credentials()
    return common.credentials(args)


def _oci(args: argparse.Namespace, text: str) -> tuple[str, bytes]:
    from helm_core import sources
    from helm_core.sources import helmconfig, oci
    from helm_core.support.records import replace as records_replace

    version, devel = _ref_options(args)
    reference = oci.Reference.parse(text)
    credentials = _flag_credentials(args)
    if not credentials.has_secret:
        stored = helmconfig.registry_credentials(args.settings.registry_config, reference.registry)
        if stored:
            credentials = records_replace(credentials, **stored)
    ref = sources.ChartRef(kind="oci", url=text, version=version, devel=devel,
                           plain_http=bool(getattr(args, "plain_http", False)))
    resolved = sources.resolve(ref, credentials, common.chart_cache(args))
    return resolved.source, resolved.data


def _from_repo_url(args: argparse.Namespace, name: str) -> tuple[str, bytes]:
    from helm_core import sources

    version, devel = _ref_options(args)
    ref = sources.ChartRef(kind="repo", url=args.repo, name=name, version=version, devel=devel)
    resolved = sources.resolve(ref, _flag_credentials(args), common.chart_cache(args))
    return resolved.source, resolved.data


def _from_named_repo(args: argparse.Namespace, text: str) -> tuple[str, bytes]:
    from helm_core.sources import helmconfig
    from helm_core.sources import repo as repo_mod
    from helm_core.support.records import replace as records_replace

    repo_name, slash, chart_name = text.partition("/")
    if not slash or not repo_name or not chart_name:
        raise SourceError(f"non-absolute URLs should be in form of repo_name/path_to_chart, got: {text}")
    version, devel = _ref_options(args)
    settings = args.settings
    entry = helmconfig.find_repository(helmconfig.load_repositories(settings.repository_config), repo_name)
    cache = common.chart_cache(args)
    index = helmconfig.cached_index(entry, settings.repository_cache, cache)
    try:
        found = helmconfig.get_version(index, chart_name, version, devel=devel)
    except SourceError as exc:
        raise SourceError(f'chart "{chart_name}" matching {version} not found in {entry.name} index. '
                          f"(try 'helm repo update'): {exc}") from None
    credentials = entry.credentials()
    flags = _flag_credentials(args)
    if flags.has_secret:
        credentials = records_replace(credentials, username=flags.username, password=flags.password,
                                      token=flags.token)
    with repo_mod.Repository(entry.url, credentials=credentials, cache=cache) as repository:
        fetched = repository.fetch_entry(found)
    return fetched.url, fetched.data
