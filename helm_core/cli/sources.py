"""``helm-core pull|push|package|repo index|dependency build``: the chart-source commands.

Flags and messages follow Helm's. Credentials come from flags (``--username``/``--password``,
``--ca-file``, ``--cert-file``/``--key-file``, ``--insecure-skip-tls-verify``,
``--pass-credentials``); the cache root from ``--cache-dir``, ``$HELM_CORE_CACHE`` or
``~/.cache/helm-core`` (this module, as a CLI boundary, reads the environment).
"""
from __future__ import annotations

import argparse
import datetime
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helm_core.cli import common
from helm_core.errors import HelmError, SourceError

if TYPE_CHECKING:
    pass

# The source modules (and the HTTP client under them) are imported by the command that
# uses them, so that `helm-core template` does not pay for them at start-up.


# Credential flags are shared with every command that takes a chart (helm_core.cli.common).
_add_auth_flags = common.add_auth_flags
_read = common.read_file
_credentials = common.credentials


def cmd_pull(args: argparse.Namespace) -> int:
    from helm_core import sources
    from helm_core.sources import oci
    if args.chart.startswith(oci.SCHEME):
        ref = sources.ChartRef(kind="oci", url=args.chart, version=args.version, devel=args.devel,
                               plain_http=args.plain_http)
    elif args.repo:
        ref = sources.ChartRef(kind="repo", url=args.repo, name=args.chart, version=args.version,
                               devel=args.devel)
    else:
        ref = None  # repo/chart through helm's repositories.yaml and repository cache
    if ref is None:
        from helm_core.cli import chartref
        from helm_core.sources import package as package_mod
        _, data = chartref.locate(args, args.chart)
        if data is None:
            raise SourceError(f"{args.chart}: a local chart, not one to pull")
        meta = package_mod.raw_chart_yaml(data or b"", source=args.chart)
        name, version = meta.get("name"), meta.get("version")
    else:
        credentials = _credentials(args)
        if ref.kind == "oci" and not credentials.has_secret:  # helm's registry login, as helm uses it
            from helm_core.sources import helmconfig
            from helm_core.support.records import replace
            stored = helmconfig.registry_credentials(args.settings.registry_config,
                                                     oci.Reference.parse(args.chart).registry)
            credentials = replace(credentials, **stored) if stored else credentials
        resolved = sources.resolve(ref, credentials, common.chart_cache(args))
        data, name, version = resolved.data, resolved.name, resolved.version
    if args.untar:
        _untar(args, data or b"")
    else:
        _save(args, data or b"", f"{name}-{version}.tgz")
    if ref is not None and ref.kind == "oci":
        print(f"Pulled: {resolved.source.removeprefix(oci.SCHEME)}")
        print(f"Digest: {resolved.manifest_digest}")
    return 0


def _save(args: argparse.Namespace, data: bytes, file_name: str) -> None:
    """helm's ``fileutil.AtomicWriteFile``: a temporary file beside the target (Go's
    ``os.CreateTemp``: its name and a random number; the system's temporary folder for a bare
    name), mode 0644, renamed over it. A destination folder that does not exist is helm's
    error, never created."""
    import random
    import shutil
    import tempfile

    from helm_core.chart.folder import go_errno
    from helm_core.golib import gofilepath

    target = gofilepath.join(args.destination, file_name)
    folder, base = os.path.split(target)
    while True:
        temporary = os.path.join(folder or tempfile.gettempdir(), base + str(random.getrandbits(32)))
        try:
            fd = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            raise HelmError(f"open {temporary}: {go_errno(exc)}") from None
        break
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.chmod(temporary, 0o644)
    shutil.move(temporary, target)  # a rename, or a copy from the temporary folder


def _untar(args: argparse.Namespace, data: bytes) -> None:
    """helm's ``pull --untar``: the chart expanded under ``--untardir`` (relative to
    ``--destination``), refused when the folder named after the chart reference exists."""
    from helm_core.golib import gofilepath
    from helm_core.sources import package as package_mod

    into = args.untardir if os.path.isabs(args.untardir) else gofilepath.join(args.destination, args.untardir)
    reference_name = args.chart.rstrip("/").rsplit("/", 1)[-1]  # Go's filepath.Split of the reference
    check = reference_name if into == "." else gofilepath.join(into, reference_name)
    if os.path.lexists(check):
        raise HelmError(f"failed to untar: a file or directory with the name {check} already exists")
    os.makedirs(check, mode=package_mod.DIR_MODE)
    package_mod.expand(data, into, source=args.chart)


def cmd_push(args: argparse.Namespace) -> int:
    from helm_core import sources
    from helm_core.sources import oci
    from helm_core.sources import package as package_mod
    data = _read(args.chart)
    doc = package_mod.raw_chart_yaml(data, source=args.chart)
    sources.packaged.load(data, source=args.chart)
    meta = package_mod.chart_metadata(doc)
    remote = oci.Reference.parse(args.remote.rstrip("/"))
    if remote.tag or remote.digest:
        raise SourceError(f"{args.remote}: give the repository without a tag (the chart version is the tag)")
    ref = oci.Reference(remote.registry, f"{remote.repository}/{meta['name']}",
                        oci.version_to_tag(str(meta["version"])))
    with oci.Registry(ref.registry, credentials=_credentials(args), cache=common.chart_cache(args),
                      plain_http=args.plain_http) as registry:
        digest = registry.push(ref, data, meta, annotations=_annotations(meta))
    print(f"Pushed: {str(ref).removeprefix(oci.SCHEME)}")
    print(f"Digest: {digest}")
    return 0


def _annotations(meta: dict[str, Any]) -> dict[str, str]:
    """Helm's ``generateOCIAnnotations`` (chart annotations never override these keys)."""
    out = {f"org.opencontainers.image.{k}": str(meta[f]) for k, f in
           (("description", "description"), ("title", "name"), ("version", "version"), ("url", "home"))
           if meta.get(f)}
    out["org.opencontainers.image.created"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if meta.get("sources"):
        out["org.opencontainers.image.source"] = str(meta["sources"][0])
    for key, value in (meta.get("annotations") or {}).items():
        out.setdefault(str(key), str(value))
    return out


def cmd_package(args: argparse.Namespace) -> int:
    from helm_core.sources import package as package_mod
    for chart_dir in args.charts:
        filename, data = package_mod.package(chart_dir, version=args.version, app_version=args.app_version)
        dest = Path(args.destination)
        dest.mkdir(parents=True, exist_ok=True)
        target = (dest / filename).resolve()
        temporary = target.with_name(f".{filename}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, target)
        # helm's path: the working folder's absolute one for the default ".", else the
        # destination joined as given (filepath.Join cleans it)
        shown = target if args.destination == "." else os.path.normpath(os.path.join(args.destination, filename))
        print(f"Successfully packaged chart and saved it to: {shown}")
    return 0


def cmd_repo_index(args: argparse.Namespace) -> int:
    from helm_core.sources import index as index_mod
    if not Path(args.dir).is_dir():
        raise HelmError(f"{args.dir}: not a directory")
    index_mod.write_index(args.dir, url=args.url, merge_with=args.merge)
    return 0


def cmd_dependency_build(args: argparse.Namespace) -> int:
    from helm_core.sources import dependency, helmconfig
    creds = _credentials(args)
    entries = helmconfig.load_repositories(args.settings.repository_config)
    built = dependency.build(args.chart, credentials=lambda _url: creds, cache=common.chart_cache(args),
                             plain_http=args.plain_http,
                             repositories={e.name: e.url for e in entries})
    for item in built:
        print(f"Saving {item.name} {item.version} from {item.repository}")
    print(f"{len(built)} dependencies in {Path(args.chart) / 'charts'}")
    return 0


def register(sub: Any) -> None:
    """Add the chart-source subcommands to ``helm-core``'s subparsers."""
    pull = sub.add_parser("pull", help="download a chart from a repository or OCI registry")
    pull.add_argument("chart", help="chart name (with --repo) or oci:// reference")
    pull.add_argument("--repo", default="", help="chart repository URL")
    pull.add_argument("--version", default="", help="version or semver constraint (default: latest stable)")
    pull.add_argument("--devel", action="store_true", help="use development versions too")
    pull.add_argument("-d", "--destination", default=".",
                      help="location to write the chart. If this and untardir are specified, untardir is "
                           "appended to this")
    pull.add_argument("--untar", action="store_true", help="if set to true, will untar the chart after downloading it")
    pull.add_argument("--untardir", default=".",
                      help="if untar is specified, this flag specifies the name of the directory into which the chart "
                           "is expanded")
    _add_auth_flags(pull)
    pull.set_defaults(func=cmd_pull)

    push = sub.add_parser("push", help="push a packaged chart to an OCI registry")
    push.add_argument("chart", help="the .tgz to push")
    push.add_argument("remote", help="oci://host/path")
    _add_auth_flags(push)
    push.set_defaults(func=cmd_push)

    pkg = sub.add_parser("package", help="package chart directories into deterministic archives")
    pkg.add_argument("charts", nargs="+", metavar="DIR")
    pkg.add_argument("-d", "--destination", default=".", help="folder to write the archive to")
    pkg.add_argument("--version", default="", help="set the version on the chart to this semver version")
    pkg.add_argument("--app-version", default="", help="set the appVersion on the chart to this version")
    pkg.set_defaults(func=cmd_package)

    repo_cmd = sub.add_parser("repo", help="chart repository tools")
    repo_sub = repo_cmd.add_subparsers(dest="repo_command", required=True)
    idx = repo_sub.add_parser("index", help="generate index.yaml for a folder of charts")
    idx.add_argument("dir")
    idx.add_argument("--url", default="", help="URL of the chart repository")
    idx.add_argument("--merge", default="", help="merge the generated index into this index")
    idx.set_defaults(func=cmd_repo_index)

    dep = sub.add_parser("dependency", aliases=["dep"], help="manage a chart's dependencies")
    dep_sub = dep.add_subparsers(dest="dependency_command", required=True)
    dep_build = dep_sub.add_parser("build", help="fetch the dependencies of Chart.yaml (honours Chart.lock)")
    dep_build.add_argument("chart", nargs="?", default=".")
    _add_auth_flags(dep_build)
    dep_build.set_defaults(func=cmd_dependency_build)
