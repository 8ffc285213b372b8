"""The rest of helm's everyday commands, with helm's flags, messages and table layouts:
``repo add|list|remove|update``, ``search repo``, ``registry login|logout``, ``create``,
``env``, ``version``, ``completion``, ``dependency list|update``.

They read and write helm's own files (:mod:`helm_core.sources.helmconfig`), so a repository
added by ``helm-core repo add`` is one stock helm sees, and the other way round.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from helm_core.cli import common
from helm_core.errors import HelmError, SourceError

SEARCH_MAX_SCORE = 25
"""helm's ``searchMaxScore``: matches further into the line than this are not matches."""
SEARCH_COLUMN_WIDTH = 50
DEPENDENCY_COLUMN_WIDTH = 80


def _table(rows: list[list[str]], max_width: int = 0) -> str:
    from helm_core.cli import release as cli_release
    return cli_release.table(rows, max_width=max_width)


def _encode(data: Any, output: str) -> str:
    from helm_core.cli import release as cli_release
    return cli_release.encode(data, output)


def _password_from_stdin() -> str:
    return sys.stdin.read().removesuffix("\n").removesuffix("\r")


# --------------------------------------------------------------------------- repo

def cmd_repo_add(args: argparse.Namespace) -> int:
    from helm_core.sources import helmconfig

    settings = args.settings
    if args.username and not args.password:
        if not args.password_stdin:
            raise HelmError("--password or --password-stdin is required with --username")
        args.password = _password_from_stdin()
    entry = helmconfig.RepoEntry(name=args.name, url=args.url, username=args.username,
                                 password=args.password, cert_file=args.cert_file,
                                 key_file=args.key_file, ca_file=args.ca_file,
                                 insecure_skip_tls_verify=args.insecure_skip_tls_verify,
                                 pass_credentials_all=args.pass_credentials)
    if "/" in args.name:
        raise HelmError(f"repository name ({args.name}) contains '/', please specify a different name without '/'")
    with helmconfig.locked(settings.repository_config):
        entries = helmconfig.load_repositories(settings.repository_config)
        existing = next((e for e in entries if e.name == args.name), None)
        if existing is not None and not args.force_update:
            if existing != entry:
                raise HelmError(f"repository name ({args.name}) already exists, please specify a different name")
            print(f'"{args.name}" already exists with the same configuration, skipping')
            return 0
        try:
            helmconfig.download_index(entry, settings.repository_cache, common.chart_cache(args))
        except SourceError as exc:
            raise SourceError(f'looks like "{args.url}" is not a valid chart repository or cannot be '
                              f"reached: {exc}") from None
        entries = [e for e in entries if e.name != args.name] + [entry]
        if existing is not None:  # --force-update keeps the repository's place
            entries = [entry if e.name == args.name else e for e in
                       helmconfig.load_repositories(settings.repository_config)]
        helmconfig.write_repositories(settings.repository_config, entries)
    print(f'"{args.name}" has been added to your repositories')
    return 0


def cmd_repo_list(args: argparse.Namespace) -> int:
    from helm_core.golib import gojson
    from helm_core.sources import helmconfig

    entries = helmconfig.load_repositories(args.settings.repository_config)
    if not entries:
        raise HelmError("no repositories to show")
    if args.output == "table":
        print(_table([["NAME", "URL"]] + [[e.name, e.url] for e in entries]))
    else:
        sys.stdout.write(_encode([gojson.Struct(name=e.name, url=e.url) for e in entries], args.output))
    return 0


def cmd_repo_remove(args: argparse.Namespace) -> int:
    from helm_core.sources import helmconfig

    settings = args.settings
    with helmconfig.locked(settings.repository_config):
        entries = helmconfig.load_repositories(settings.repository_config)
        if not entries:
            raise HelmError("no repositories configured")
        for name in args.names:
            if not any(e.name == name for e in entries):
                raise HelmError(f'no repo named "{name}" found')
            entries = [e for e in entries if e.name != name]
            helmconfig.write_repositories(settings.repository_config, entries)
            for path in (helmconfig.charts_file(settings.repository_cache, name),
                         helmconfig.index_file(settings.repository_cache, name)):
                path.unlink(missing_ok=True)
            print(f'"{name}" has been removed from your repositories')
    return 0


def cmd_repo_update(args: argparse.Namespace) -> int:
    from helm_core.cli import refresh
    from helm_core.sources import helmconfig

    settings = args.settings
    entries = helmconfig.load_repositories(settings.repository_config)
    if not entries:
        raise HelmError("no repositories found. You must add one before updating")
    for name in args.names:
        if not any(e.name == name for e in entries):
            raise HelmError(f"no repositories found matching '{name}'.  Nothing will be updated")
    chosen = [e for e in entries if not args.names or e.name in args.names]
    failed = refresh.refresh(args, chosen)
    if failed and args.fail_on_repo_update_fail:
        raise HelmError(f"Failed to update the following repositories: [{' '.join(failed)}]")
    print(refresh.UPDATE_DONE)
    return 0


# --------------------------------------------------------------------------- search

def _search_lines(settings: Any, all_versions: bool) -> list[tuple[str, dict[str, Any]]]:
    """(index line, chart version) per chart version (the newest only unless ``all_versions``), helm's
    ``search.Index``: name, repo/name, description and keywords joined by a vertical tab."""
    from helm_core.sources import helmconfig
    from helm_core.sources import repo as repo_mod

    entries = helmconfig.load_repositories(settings.repository_config)
    if not entries:
        raise HelmError("no repositories configured")
    lines: list[tuple[str, dict[str, Any]]] = []
    for entry in entries:
        path = helmconfig.index_file(settings.repository_cache, entry.name)
        try:
            doc = repo_mod.load_yaml_strings(path.read_bytes())
        except (OSError, ValueError) as exc:
            print(f"WARNING: Repo \"{entry.name}\" is corrupt or missing. Try 'helm repo update'.",
                  file=sys.stderr)
            print(f"WARNING: {exc}", file=sys.stderr)
            continue
        for chart, versions in sorted(((doc or {}).get("entries") or {}).items()):
            items = repo_mod.newest_first([v for v in versions or [] if isinstance(v, dict)],
                                          lambda v: str(v.get("version", "")))
            for item in items if all_versions else items[:1]:
                line = "\v".join([chart, f"{entry.name}/{chart}", str(item.get("description") or ""),
                                  " ".join(str(k) for k in item.get("keywords") or [])])
                lines.append((line, {**item, "_name": f"{entry.name}/{chart}"}))
    return lines


def _score(index: int, line: str) -> int:
    splits = [i for i, ch in enumerate(line) if ch == "\v"]
    for position, at in enumerate(splits):
        if index <= at:
            return position
    return len(splits)


def cmd_search_repo(args: argparse.Namespace) -> int:
    from functools import cmp_to_key

    from helm_core.golib import gojson, goregexp, versions

    version = args.version or (">0.0.0-0" if args.devel else ">0.0.0")
    # helm sets a default constraint before indexing, so every version is indexed and the
    # first one (newest first) that meets the constraint stands for its chart
    lines = _search_lines(args.settings, True)
    results: list[tuple[int, dict[str, Any]]] = []
    if not args.keywords:
        results = [(0, item) for _, item in lines]
    else:
        term = " ".join(args.keywords)
        if args.regexp:
            pattern = goregexp.Regexp(term)
        for line, item in lines:
            if args.regexp:
                found = pattern.find_all_string_index(line, 1)
                at = found[0][0] if found else -1
            else:
                at = line.lower().find(term.lower())
            if at >= 0 and _score(at, line) < SEARCH_MAX_SCORE:
                results.append((_score(at, line), item))

    def parsed(item: dict[str, Any]) -> Any:
        try:
            return versions.Version.parse(str(item.get("version", "")))
        except versions.VersionError:
            return None

    def order(a: tuple[int, dict[str, Any]], b: tuple[int, dict[str, Any]]) -> int:
        if a[0] != b[0]:
            return -1 if a[0] < b[0] else 1
        if a[1]["_name"] == b[1]["_name"]:
            va, vb = parsed(a[1]), parsed(b[1])
            if va is None or vb is None:
                return 0
            return -1 if va > vb else (1 if vb > va else 0)
        return -1 if a[1]["_name"] < b[1]["_name"] else 1

    results.sort(key=cmp_to_key(order))
    try:
        constraint = versions.Constraints.parse(version)
    except versions.VersionError as exc:
        raise HelmError(f"an invalid version/constraint format: {exc}") from None
    shown: list[dict[str, Any]] = []
    seen: set[str] = set()
    for _, item in results:
        if not args.versions and item["_name"] in seen:
            continue
        v = parsed(item)
        if v is not None and constraint.check(v):
            shown.append(item)
            seen.add(item["_name"])
    if not shown and args.fail_on_no_result:
        raise HelmError("no results found")
    if args.output == "table":
        if not shown:
            print("No results found")
            return 0
        rows = [["NAME", "CHART VERSION", "APP VERSION", "DESCRIPTION"]]
        rows += [[i["_name"], str(i.get("version", "")), str(i.get("appVersion") or ""),
                  str(i.get("description") or "")] for i in shown]
        print(_table(rows, max_width=args.max_col_width))
    else:
        sys.stdout.write(_encode([gojson.Struct(name=i["_name"], version=str(i.get("version", "")),
                                                app_version=str(i.get("appVersion") or ""),
                                                description=str(i.get("description") or "")) for i in shown],
                                 args.output))
    return 0


# --------------------------------------------------------------------------- registry

def _registry_host(text: str) -> str:
    return text.removeprefix("oci://").split("/", 1)[0]


def cmd_registry_login(args: argparse.Namespace) -> int:
    from helm_core.sources import auth, helmconfig, oci

    host = _registry_host(args.host)
    password = _password_from_stdin() if args.password_stdin else args.password
    if not args.username or not password:
        raise HelmError("username and password are required (--username, and --password or --password-stdin)")
    credentials = auth.Credentials(username=args.username, password=password,
                                   ca_pem=_read(args.ca_file), cert_pem=_read(args.cert_file),
                                   key_pem=_read(args.key_file), insecure_skip_verify=args.insecure)
    try:
        with oci.Registry(host, credentials=credentials, cache=common.chart_cache(args),
                          plain_http=args.plain_http) as registry:
            registry.ping()
    except SourceError as exc:
        raise SourceError(f'authenticating to "{host}": {exc}') from None
    helmconfig.registry_login(args.settings.registry_config, host, args.username, password)
    print("Login Succeeded", file=sys.stderr)
    return 0


def _read(path: str) -> bytes:
    return common.read_file(path)


def cmd_registry_logout(args: argparse.Namespace) -> int:
    from helm_core.sources import helmconfig

    host = _registry_host(args.host)
    helmconfig.registry_logout(args.settings.registry_config, host)
    print(f"Removing login credentials for {host}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------- create

def cmd_create(args: argparse.Namespace) -> int:
    from helm_core.cli import starter

    target = Path(args.name)
    print(f"Creating {args.name}")
    if args.starter:
        from helm_core.cli import settings as settings_mod
        source = Path(args.starter)
        if not source.is_absolute() and not source.exists():
            source = settings_mod.data_home(os.environ) / "starters" / args.starter
        starter.create_from(source, target)
    else:
        starter.create(target)
    return 0


# --------------------------------------------------------------------------- env

def env_vars(args: argparse.Namespace) -> dict[str, str]:
    """``helm env``'s variables, as this run reads them: helm's that helm-core honours (none it
    ignores, such as HELM_PLUGINS or HELM_QPS), and helm-core's own."""
    from helm_core.action import upgrade
    from helm_core.cli import settings as settings_mod
    from helm_core.support import cachedirs

    settings: settings_mod.Settings = args.settings
    out = {
        "HELM_BIN": sys.argv[0],
        "HELM_CACHE_HOME": str(settings_mod.cache_home(os.environ)),
        "HELM_CONFIG_HOME": str(settings_mod.config_home(os.environ)),
        "HELM_DATA_HOME": str(settings_mod.data_home(os.environ)),
        "HELM_DEBUG": "true" if settings.debug else "false",
        "HELM_KUBECONTEXT": settings.kube_context,
        "HELM_MAX_HISTORY": str(settings_mod.max_history(os.environ, upgrade.DEFAULT_MAX_HISTORY)),
        "HELM_NAMESPACE": args.namespace,
        "HELM_REGISTRY_CONFIG": settings.registry_config,
        "HELM_REPOSITORY_CACHE": settings.repository_cache,
        "HELM_REPOSITORY_CONFIG": settings.repository_config,
        "HELM_CORE_CACHE": cachedirs.default_folder(os.environ),
        "HELM_CORE_STORAGE": os.environ.get("HELM_CORE_STORAGE") or "release",
    }
    if settings.kubeconfig_flag:
        out["KUBECONFIG"] = settings.kubeconfig_flag
    return out


def cmd_env(args: argparse.Namespace) -> int:
    found = env_vars(args)
    if args.name:
        print(found.get(args.name, ""))  # helm prints an empty line for a name it does not know
        return 0
    for key in sorted(found):
        print(f'{key}="{found[key]}"')
    return 0


# --------------------------------------------------------------------------- version

def build_info() -> dict[str, str]:
    import importlib.metadata
    import platform

    from helm_core.engine import capabilities
    try:
        own = importlib.metadata.version("helm-controller")
    except importlib.metadata.PackageNotFoundError:
        own = "0.0.0"
    return {"Version": f"v{own}", "HelmVersion": capabilities.HELM_VERSION,
            "GitCommit": "", "GitTreeState": "", "PythonVersion": platform.python_version()}


def cmd_version(args: argparse.Namespace) -> int:
    info = build_info()
    if args.template:
        from helm_core.gotemplate import Environment
        tset = Environment({}).new_set("_")
        tset.parse("_", args.template)
        sys.stdout.write(tset.execute("_", info))
        return 0
    if args.short:
        print(info["Version"])
        return 0
    fields = ", ".join(f'{k}:"{v}"' for k, v in info.items())
    print(f"version.BuildInfo{{{fields}}}")
    return 0


# --------------------------------------------------------------------------- completion

def cmd_completion(args: argparse.Namespace) -> int:
    from helm_core.cli import completion

    sys.stdout.write(completion.script(args.shell, args.parser))
    return 0


# --------------------------------------------------------------------------- dependency

def _dependency_status(chart_dir: Path, dep: dict[str, Any], loaded: Any) -> str:
    """helm's ``dependencyStatus``: an archive in charts/ first, else an unpacked folder."""
    import glob

    name, wanted = str(dep.get("name") or ""), str(dep.get("version") or "")
    archives = glob.glob(str(chart_dir / "charts" / f"{glob.escape(name)}-*.tgz"))
    if len(archives) > 1:
        from helm_core.golib import versions
        found = []
        for arc in archives:
            maybe = Path(arc).name[:-len(".tgz")][len(name) + 1:]
            try:
                versions.Version.parse_strict(maybe)
                found.append(arc)
            except (versions.VersionError, AttributeError):
                continue
        if len(found) > 1:
            return "too many matches"
        archives = found
    if len(archives) == 1:
        status = _archive_status(Path(archives[0]), name, wanted)
        if status:
            return status
    sub = next((c for c in loaded.dependencies if c.metadata.name == name), None) if loaded else None
    if sub is None:
        return "missing"
    return _version_status(str(sub.metadata.version), wanted) or "unpacked"


def _version_status(have: str, wanted: str) -> str:
    if have == wanted:
        return ""
    from helm_core.golib import versions
    try:
        ok = versions.Constraints.parse(wanted).check(versions.Version.parse(have))
    except versions.VersionError:
        return "invalid version"
    return "" if ok else "wrong version"


def _archive_status(path: Path, name: str, wanted: str) -> str:
    from helm_core.chart import loader
    try:
        chart = loader.load(path)
    except HelmError:
        return "corrupt"
    if chart.metadata.name != name:
        return "misnamed"
    return _version_status(str(chart.metadata.version), wanted) or "ok"


def cmd_dependency_list(args: argparse.Namespace) -> int:
    import yaml

    from helm_core.chart import loader

    chart_dir = Path(args.chart)
    if not chart_dir.exists():  # helm's loader.Load stats the cleaned path first
        raise HelmError(f"stat {os.path.normpath(args.chart)}: no such file or directory")
    loaded = loader.load(chart_dir)
    doc = yaml.safe_load((chart_dir / "Chart.yaml").read_text("utf-8")) if chart_dir.is_dir() else {}
    deps = [d for d in (doc or {}).get("dependencies") or [] if isinstance(d, dict)]
    if not deps:
        print(f"WARNING: no dependencies at {chart_dir / 'charts'}")
        return 0
    rows = [["NAME", "VERSION", "REPOSITORY", "STATUS"]]
    rows += [[str(d.get("name") or ""), str(d.get("version") or ""), str(d.get("repository") or ""),
              _dependency_status(chart_dir, d, loaded)] for d in deps]
    print(_table(rows, max_width=args.max_col_width))
    print()
    names = {str(d.get("name")) for d in deps}
    for item in sorted((chart_dir / "charts").glob("*")) if (chart_dir / "charts").is_dir() else []:
        if not item.is_dir() and item.suffix != ".tgz":
            continue
        try:
            sub = loader.load(item)
        except HelmError:
            print(f'WARNING: "{item}" is not a chart.')
            continue
        if sub.metadata.name not in names:
            print(f'WARNING: "{item}" is not in Chart.yaml.')
    return 0


def cmd_dependency_update(args: argparse.Namespace) -> int:
    from helm_core.cli import refresh
    refresh.update_dependencies(args, args.chart)
    return 0


# --------------------------------------------------------------------------- registration

def _subparsers(parser: argparse.ArgumentParser) -> Any:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _add_output(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", choices=["table", "json", "yaml"], default="table",
                   help="prints the output in the specified format")


def register(sub: Any) -> None:
    """Add these commands to ``helm-core``'s subparsers (``repo`` and ``dependency`` extend the
    parsers :mod:`helm_core.cli.sources` made)."""

    repo_sub = _subparsers(sub.choices["repo"])
    p = repo_sub.add_parser("add", help="add a chart repository")
    p.add_argument("name")
    p.add_argument("url")
    p.add_argument("--username", default="", help="chart repository username")
    p.add_argument("--password", default="", help="chart repository password")
    p.add_argument("--password-stdin", action="store_true", help="read chart repository password from stdin")
    p.add_argument("--force-update", action="store_true", help="replace (overwrite) the repo if it already exists")
    p.add_argument("--no-update", action="store_true", help="ignored (deprecated by --force-update)")
    p.add_argument("--cert-file", default="", help="identify HTTPS client using this SSL certificate file")
    p.add_argument("--key-file", default="", help="identify HTTPS client using this SSL key file")
    p.add_argument("--ca-file", default="", help="verify certificates of HTTPS-enabled servers using this CA bundle")
    p.add_argument("--insecure-skip-tls-verify", action="store_true",
                   help="skip tls certificate checks for the repository")
    p.add_argument("--pass-credentials", action="store_true", help="pass credentials to all domains")
    p.add_argument("--allow-deprecated-repos", action="store_true", help="accepted for helm's sake")
    p.add_argument("--timeout", default="2m0s", help="time to wait for the index file download")
    p.add_argument("--cache-dir", default="", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_repo_add)

    p = repo_sub.add_parser("list", aliases=["ls"], help="list chart repositories")
    _add_output(p)
    p.set_defaults(func=cmd_repo_list)

    p = repo_sub.add_parser("remove", aliases=["rm"], help="remove one or more chart repositories")
    p.add_argument("names", nargs="+", metavar="REPO")
    p.set_defaults(func=cmd_repo_remove)

    p = repo_sub.add_parser("update", aliases=["up"], help="update information of available charts locally")
    p.add_argument("names", nargs="*", metavar="REPO")
    p.add_argument("--fail-on-repo-update-fail", action="store_true",
                   help="update fails if any of the repository updates fail")
    p.add_argument("--timeout", default="2m0s", help="time to wait for the index file download")
    p.add_argument("--cache-dir", default="", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_repo_update)

    search = sub.add_parser("search", help="search for a keyword in charts")
    search_sub = search.add_subparsers(dest="search_command", required=True)
    p = search_sub.add_parser("repo", help="search repositories for a keyword in charts")
    p.add_argument("keywords", nargs="*", metavar="keyword")
    p.add_argument("-r", "--regexp", action="store_true", help="use regular expressions for searching")
    p.add_argument("-l", "--versions", action="store_true", help="show the long listing, with each version")
    p.add_argument("--version", default="", help="search using semantic versioning constraints")
    p.add_argument("--devel", action="store_true", help="use development versions (alpha, beta, rc), too")
    p.add_argument("--max-col-width", type=int, default=SEARCH_COLUMN_WIDTH,
                   help="maximum column width for output table")
    p.add_argument("--fail-on-no-result", action="store_true", help="search fails if no results are found")
    _add_output(p)
    p.set_defaults(func=cmd_search_repo)

    registry = sub.add_parser("registry", help="login to or logout from a registry")
    registry_sub = registry.add_subparsers(dest="registry_command", required=True)
    p = registry_sub.add_parser("login", help="login to a registry")
    p.add_argument("host")
    p.add_argument("-u", "--username", default="", help="registry username")
    p.add_argument("-p", "--password", default="", help="registry password or identity token")
    p.add_argument("--password-stdin", action="store_true", help="read password or identity token from stdin")
    p.add_argument("--insecure", action="store_true", help="allow connections to TLS registry without certs")
    p.add_argument("--cert-file", default="", help="identify registry client using this SSL certificate file")
    p.add_argument("--key-file", default="", help="identify registry client using this SSL key file")
    p.add_argument("--ca-file", default="", help="verify certificates of HTTPS-enabled servers using this CA bundle")
    p.add_argument("--plain-http", action="store_true", help="use insecure HTTP connections")
    p.add_argument("--cache-dir", default="", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_registry_login)
    p = registry_sub.add_parser("logout", help="logout from a registry")
    p.add_argument("host")
    p.set_defaults(func=cmd_registry_logout)

    p = sub.add_parser("create", help="create a new chart with the given name")
    p.add_argument("name")
    p.add_argument("-p", "--starter", default="", help="the name or absolute path to a starter scaffold")
    p.set_defaults(func=cmd_create)

    p = sub.add_parser("env", help="helm client environment information")
    p.add_argument("name", nargs="?", default="", help="print only this variable's value")
    p.set_defaults(func=cmd_env)

    p = sub.add_parser("version", help="print the client version information")
    p.add_argument("--short", action="store_true", help="print the version number")
    p.add_argument("--template", default="", help="template for version string format")
    p.set_defaults(func=cmd_version)

    p = sub.add_parser("completion", help="generate autocompletion scripts for the specified shell")
    p.add_argument("shell", choices=["bash", "zsh"])
    p.add_argument("--no-descriptions", action="store_true", help="accepted for helm's sake")
    p.set_defaults(func=cmd_completion)

    dep_sub = _subparsers(sub.choices["dependency"])
    p = dep_sub.add_parser("list", aliases=["ls"], help="list the dependencies for the given chart")
    p.add_argument("chart", nargs="?", default=".")
    p.add_argument("--max-col-width", type=int, default=DEPENDENCY_COLUMN_WIDTH,
                   help="maximum column width for output table")
    p.set_defaults(func=cmd_dependency_list)
    p = dep_sub.add_parser("update", aliases=["up"], help="update charts/ based on the contents of Chart.yaml")
    p.add_argument("chart", nargs="?", default=".")
    p.add_argument("--skip-refresh", action="store_true", help="do not refresh the local repository cache")
    common.add_auth_flags(p)
    p.set_defaults(func=cmd_dependency_update)

