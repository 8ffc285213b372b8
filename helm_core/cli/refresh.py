"""Refreshing the indexes of helm's repositories and updating a chart's dependencies, with
helm's lines: ``repo update``, ``dependency update`` and ``--dependency-update``."""
from __future__ import annotations

import argparse
from typing import Any

from helm_core.cli import common
from helm_core.errors import HelmError

UPDATE_HEADER = "Hang tight while we grab the latest from your chart repositories..."
UPDATE_DONE = "Update Complete. \u2388Happy Helming!\u2388"


def refresh(args: argparse.Namespace, entries: list[Any]) -> list[str]:
    """Download every entry's index into helm's repository cache (in parallel), printing a
    line per repository between helm's header and footer; returns the URLs that failed."""
    from concurrent.futures import ThreadPoolExecutor

    from helm_core.sources import helmconfig

    print(UPDATE_HEADER)
    cache = common.chart_cache(args)

    def update(entry: helmconfig.RepoEntry) -> str:
        try:
            helmconfig.download_index(entry, args.settings.repository_cache, cache)
        except HelmError as exc:
            return exc.args[0] if exc.args else str(exc)
        return ""

    failed: list[str] = []
    with ThreadPoolExecutor(max_workers=max(1, min(8, len(entries)))) as pool:
        for entry, problem in zip(entries, pool.map(update, entries), strict=True):
            if problem:
                print(f'...Unable to get an update from the "{entry.name}" chart repository '
                      f"({entry.url}):\n\t{problem}")
                failed.append(entry.url)
            else:
                print(f'...Successfully got an update from the "{entry.name}" chart repository')
    return failed


def update_dependencies(args: argparse.Namespace, chart_dir: str) -> None:
    """``helm dependency update`` of ``chart_dir``: repositories refreshed (unless
    ``--skip-refresh``), charts/ and Chart.lock made from Chart.yaml, helm's lines printed."""
    from helm_core.sources import dependency, helmconfig

    entries = helmconfig.load_repositories(args.settings.repository_config)
    by_url = {e.url.rstrip("/"): e for e in entries}
    flags = common.credentials(args)

    def credentials(repository: str) -> Any:
        url = dependency.named_repository(repository, {e.name: e.url for e in entries}).rstrip("/")
        return flags if flags.has_secret or url not in by_url else by_url[url].credentials()

    if not getattr(args, "skip_refresh", False) and entries:
        refresh(args, entries)
        print(UPDATE_DONE)
    built = dependency.build(chart_dir, credentials=credentials, cache=common.chart_cache(args),
                             plain_http=args.plain_http, update=True,
                             repositories={e.name: e.url for e in entries})
    print(f"Saving {len(built)} charts")
    for item in built:
        print(f"Downloading {item.name} from repo {item.repository}")
    print("Deleting outdated charts")
