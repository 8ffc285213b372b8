"""``helm-core`` release commands: install, upgrade, rollback, uninstall, get, history, list,
status, test, with Helm's names, flags and output layout.

Rules:
- Versions are ULIDs: ``REVISION`` columns and ``--revision`` flags show and take them.
- Tables are Helm's ``uitable`` layout: a column as wide as its widest line (at most the
  command's column limit; ``history`` has none), every cell right-padded to it, cells joined by
  a tab. A cell of several lines (a failure's description) is measured as a whole, its line
  breaks and tabs counting nothing, so it is cut with "..." to its column's width (its longest
  line), as uitable cuts it; what is left of it spans as many lines, the others blank there.
- ``-o json`` is compact JSON on one line as Go's encoding/json writes it (Go's numbers,
  ``<>&`` escaped, a struct's fields in helm's order with helm-core's own keys after them, maps
  sorted), ``-o yaml`` block YAML with sorted keys (Helm's ``output.EncodeJSON``/``EncodeYAML``);
  times as Helm prints them.
- ``--timeout`` takes Go durations (``5m0s``, ``90s``, ``1h``) or plain seconds.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from helm_core.errors import ActionFailed, HelmError

if TYPE_CHECKING:
    from helm_core.action import config
    from helm_core.chart import model
    from helm_core.storage import release as rel

# Action modules (and the kubernetes client under them) are imported by the command that
# runs them, so that `helm-core template` starts without loading them.

ANSIC = "%a %b %e %H:%M:%S %Y"
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_timeout(text: str) -> float:
    """Seconds in a Go duration (``5m0s``) or a plain number of seconds."""
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise argparse.ArgumentTypeError(f'invalid duration "{text}"')
    return sum(float(n) * _UNITS[u] for n, u in parts)


def _char_width(char: str) -> int:
    """go-runewidth's width of a character: 0 for control and combining ones, 2 for East Asian
    wide ones, else 1."""
    import unicodedata
    if unicodedata.category(char) in ("Cc", "Mn", "Me"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _text_width(text: str) -> int:
    if text.isascii():
        return sum(1 for c in text if " " <= c < "\x7f")
    return sum(map(_char_width, text))


def _fit(text: str, width: int) -> str:
    """uitable's ``Resize``: padded to ``width``, or cut with "..." when wider (line breaks and
    all: a cell of several lines is measured as one)."""
    have = _text_width(text)
    if have <= width:
        return text + " " * (width - have)
    kept, used = [], 0
    for char in text:
        kept.append(char)
        step = _char_width(char)
        if used + step >= width - 3:
            break
        used += step
    return "".join(kept) + "..."


def table(rows: Sequence[Sequence[str]], *, max_width: int = 0) -> str:
    """Helm's uitable layout (module rules), without a trailing newline."""
    if not rows:
        return ""
    widths = [max(_text_width(line) for row in rows for line in row[i].split("\n")) for i in range(len(rows[0]))]
    if max_width:
        widths = [min(w, max_width) for w in widths]
    lines = []
    for row in rows:
        cells = [_fit(c, w).split("\n") if w else c.split("\n") for c, w in zip(row, widths, strict=False)]
        for n in range(max(len(c) for c in cells)):
            lines.append("\t".join((_fit(c[n], w) if w else c[n]) if n < len(c) else " " * max(w, 1)
                                   for c, w in zip(cells, widths, strict=False)))
    return "\n".join(lines)


def go_time(value: dt.datetime | None) -> str:
    """Go's ``time.Time.String()`` (helm list's UPDATED): nanoseconds when it has any, the
    offset and the zone's name (its offset for a zone named by nothing); "-" for none."""
    from helm_core.golib import gotime
    return gotime.format_time(value, gotime.TIME_STRING_LAYOUT) if value else "-"


def ansic(value: dt.datetime | None) -> str:
    """Go's ``time.ANSIC`` layout: the time in its own offset."""
    return value.strftime(ANSIC) if value else ""


def rfc3339(value: dt.datetime | None) -> str:
    """Go's ``time.RFC3339`` layout (``helm get metadata``), in the time's own offset."""
    from helm_core.golib import gotime
    return gotime.format_time(value, gotime.RFC3339) if value else ""


def encode(data: Any, output: str) -> str:
    """``-o json`` / ``-o yaml`` text, newline-terminated, as helm's ``output.EncodeJSON`` and
    ``EncodeYAML`` write it: a :class:`gojson.Struct` keeps its keys' order, other maps are sorted."""
    if output == "json":
        from helm_core.golib import gojson
        return gojson.dumps(data) + "\n"
    from helm_core.golib import goyaml
    return goyaml.dump(data)


# --------------------------------------------------------------------------- connection

def _configuration(args: argparse.Namespace) -> config.Configuration:
    from helm_core.action import config
    from helm_core.kube import live  # the kubernetes package: only commands that reach a cluster
    client = live.connect(live.LiveOptions(kubeconfig=args.kubeconfig, context=args.kube_context))

    def log(line: str) -> None:
        if args.debug:
            print(line, file=sys.stderr)
    try:
        return config.on_cluster(client, storage=args.storage, helm_secrets=args.helm_secrets, log=log)
    except ValueError as exc:
        raise HelmError(str(exc)) from None


def _add_cluster_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kubeconfig", default=os.environ.get("KUBECONFIG"), help="path to the kubeconfig file")
    p.add_argument("--kube-context", help="name of the kubeconfig context to use")
    p.add_argument("-n", "--namespace", default=os.environ.get("HELM_NAMESPACE", "default"))
    p.add_argument("--debug", action="store_true", help="print progress to stderr")
    p.add_argument("--storage", choices=["release", "helm"],
                   default=os.environ.get("HELM_CORE_STORAGE", "release"),
                   help="where the release is kept: helm-core's Release storage (default; "
                        "releases stock helm made are read and adopted), or helm's own format "
                        "(stock helm keeps working on it)")
    p.add_argument("--helm-secrets", choices=["keep", "delete"], default="keep",
                   help="when a write adopts a release stock helm made: keep helm's Secrets "
                        "(labelled adopted; default) or delete them")


def _timeout(args: argparse.Namespace) -> float:
    """``--timeout`` in seconds, Helm's 5m0s when not given."""
    from helm_core.kube import wait as kwait

    return kwait.DEFAULT_TIMEOUT_S if args.timeout is None else float(args.timeout)


def _add_wait_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wait", action="store_true", help="wait until every object is ready")
    p.add_argument("--timeout", type=parse_timeout, default=None,
                   help="time to wait for any individual operation (default 5m0s)")
    p.add_argument("--no-hooks", action="store_true", help="do not run hooks")
    p.add_argument("--dry-run", action="store_true", help="simulate the operation")


def _add_wait_for_jobs_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wait-for-jobs", action="store_true",
                   help="if set and --wait enabled, will wait until all Jobs have been completed before "
                        "marking the release as successful. It will wait for as long as --timeout")


def _add_output_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", choices=["table", "json", "yaml"], default="table")


def _version_arg(text: str | None) -> Any:
    from helm_core.storage import release as rel
    if not text:
        return None
    try:
        return rel.parse_version(text)
    except ValueError as exc:
        raise HelmError(str(exc)) from None


# --------------------------------------------------------------------------- status printing

def revision_numbers(cfg: config.Configuration, namespace: str, name: str) -> dict[str, int]:
    """Version -> helm's integer revision, for scripts written for helm: a Helm revision's own
    number or the revision it recorded, else one more than the version before it, oldest first
    (as helm numbers its revisions: ``rel.next_revision``)."""
    from helm_core.storage import release as rel
    numbers: dict[str, int] = {}
    previous = 0
    for v in sorted(cfg.driver.history(namespace, name), key=lambda v: v.version):
        previous = v.revision or rel.revision_of(v.version) or previous + 1
        numbers[str(v.version)] = previous
    return numbers


def release_data(release: rel.ReleaseVersion, revision: int | None = None, *,
                 chart: bool = False) -> dict[str, Any]:
    """A release as ``-o json|yaml`` of ``install``/``upgrade`` (``chart``: the prepared chart
    the version was made of, :func:`chart_data`) and ``status`` (no chart: helm's status drops
    it) show it: helm's ``release.Release`` fields in its order, empty ones left out as helm's
    ``omitempty`` leaves them, ``version`` helm's integer (``revision``, else the one the version
    was rendered as), then helm-core's own ``versionId``: the stored version, when a ULID."""
    from helm_core.golib import gojson, gotime
    from helm_core.storage import release as rel
    json_time = gotime.json_time
    info = gojson.Struct(first_deployed=json_time(release.first_deployed),
                         last_deployed=json_time(release.last_deployed), deleted=json_time(release.deleted))
    info.update(_non_empty(description=release.description, status=release.status.value, notes=release.notes))
    data = gojson.Struct(name=release.name, info=info)
    if chart and release.made_of is not None:
        data["chart"] = chart_data(release.made_of)
    data.update(_non_empty(config=dict(release.user_values), manifest=release.manifest,
                           hooks=hooks_data(release) if release.hooks else None))
    data.update(version=revision or release.revision, namespace=release.namespace)
    if rel.revision_of(release.version) is None:  # a Helm revision's version is ``version`` itself
        data["versionId"] = str(release.version)
    return data


def chart_data(chart: model.Chart) -> dict[str, Any]:
    """A chart as helm's JSON encodes its ``chart.Chart``: the metadata (``.Chart``'s members),
    the lock, the templates, the values, the schema and the other files, bytes as base64;
    the subcharts are not encoded (Go's unexported ``dependencies``)."""
    from helm_core.engine import capabilities
    from helm_core.golib import gojson
    from helm_core.support import records

    def files(found: Sequence[model.File]) -> list[dict[str, str]] | None:  # Go's nil slice: null
        return [gojson.Struct(name=f.name, data=gojson.base64_text(f.data)) for f in found] or None
    lock = None if chart.lock is None else gojson.Struct(
        generated=_lock_time(chart.lock.generated), digest=chart.lock.digest,
        # a lock's dependencies are never processed: not enabled (Go's false, left out)
        dependencies=[capabilities.ChartDependency(records.replace(d, enabled=False)).go_json_value()
                      for d in chart.lock.dependencies])
    return gojson.Struct(metadata=capabilities.ChartInfo(chart.metadata, is_root=True).metadata_json(),
                         lock=lock, templates=files(chart.templates), values=chart.values,
                         schema=gojson.base64_text(chart.raw_schema) if chart.raw_schema else None,
                         files=files(chart.files))


def _non_empty(**fields: Any) -> dict[str, Any]:
    """The fields that are not empty: what encoding/json's ``omitempty`` keeps."""
    return {key: value for key, value in fields.items() if value}


def _lock_time(generated: Any) -> str:
    """A lock's ``generated`` as Go's JSON writes the ``time.Time`` it was read into: RFC 3339
    with its nanoseconds' trailing zeros cut; Go's zero time when it has none."""
    import datetime as dt

    from helm_core.golib import gotime
    if isinstance(generated, dt.datetime):
        return gotime.json_time(generated)
    if not generated:
        return "0001-01-01T00:00:00Z"
    try:
        return gotime.json_time(gotime.parse_rfc3339(str(generated)))
    except ValueError:
        return str(generated)


def status_text(release: rel.ReleaseVersion, *, show_description: bool = False,
                debug: bool = False, metadata: bool = False, stored: bool = True, hide_notes: bool = False,
                resources: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> str:
    """Helm's status printer (``helm status``, and after install/upgrade/test; ``--hide-notes``;
    ``resources``: ``--show-resources``' tables by group, ``action/status.py``; ``debug``: ``helm
    get all``'s and ``--debug``'s, with the values, the hooks and the manifest; ``metadata``:
    ``get all``'s chart lines). ``stored``: the release as read back from its record, where no
    user values are nil (``null``); a release the command made itself holds a map (``{}``)."""
    from helm_core.storage import release as rel
    lines = [f"NAME: {release.name}"]
    if release.last_deployed:
        lines.append(f"LAST DEPLOYED: {ansic(release.last_deployed)}")
    lines += [f"NAMESPACE: {release.namespace}", f"STATUS: {release.status.value}",
              f"REVISION: {rel.version_text(release.version)}"]
    if metadata:
        lines += [f"CHART: {release.chart_name}", f"VERSION: {release.chart_version}",
                  f"APP_VERSION: {release.app_version}"]
    if show_description:
        lines.append(f"DESCRIPTION: {release.description}")
    if resources:
        from helm_core.cli import kubetable
        lines.append(f"RESOURCES:\n{kubetable.resources_text(resources)}")
    text = "\n".join(lines) + "\n" + test_suite_text(release)
    if debug:
        user = values_shown(release) if stored else dict(release.user_values)
        text += ("USER-SUPPLIED VALUES:\n" + encode(user, "yaml")
                 + "\nCOMPUTED VALUES:\n" + encode(values_shown(release, all_values=True), "yaml") + "\n")
    if debug or release.description.lower() == "dry run complete":
        text += "HOOKS:\n" + release.hooks + f"MANIFEST:\n{release.manifest}\n"
    if release.notes and not hide_notes:
        from helm_core.golib import gounicode

        text += f"NOTES:\n{gounicode.trim_space(release.notes)}\n"
    return text


def values_shown(release: rel.ReleaseVersion, *, all_values: bool = False) -> dict[str, Any] | None:
    """The values ``get values [--all]`` and ``get all`` print, as helm reads them back from
    its record: no user values are None, printed ``null`` (helm leaves an empty ``config`` out
    of the record, and reads it back as nil); the computed values are a map, ``{}`` when empty."""
    from helm_core.action import get
    return get.values(release, all_values=all_values) or ({} if all_values else None)


GO_ZERO_TIME_ANSIC = "Mon Jan  1 00:00:00 0001"
"""Go's zero ``time.Time`` in the ANSIC layout (a test still running has no completion)."""


def test_suite_text(release: rel.ReleaseVersion) -> str:
    """helm status's TEST SUITE part: ``TEST SUITE: None`` when the release has no test hook,
    else a block per test hook that has run (its recorded last run), in stored hook order, once
    per ``test`` event it names (helm's ``executionsByHookEvent``); nothing for tests never run."""
    if not release.hooks:
        return "TEST SUITE: None\n"
    from helm_core.action import hooks

    blocks = []
    for hook in hooks.parse(release.hooks):
        for _ in (event for event in hook.events if event == "test"):
            run = release.last_run(hook.kind, hook.name)
            blocks.append("" if run is None or run.started is None else (
                f"TEST SUITE:     {hook.name}\nLast Started:   {ansic(run.started)}\n"
                f"Last Completed: {ansic(run.completed) or GO_ZERO_TIME_ANSIC}\n"
                f"Phase:          {run.phase.value}\n"))
    return "".join(blocks) if blocks else "TEST SUITE: None\n"


def hooks_data(release: rel.ReleaseVersion) -> list[dict[str, Any]]:
    """The release's hooks as helm's JSON holds them (``helmsecrets.hook_record``: with each
    hook's ``last_run``), in stored order."""
    from helm_core.action import hooks
    from helm_core.storage import helmsecrets

    return [helmsecrets.hook_record(hook, release.last_run(hook.kind, hook.name))
            for hook in hooks.parse(release.hooks)]


def _print_release(release: rel.ReleaseVersion, output: str, cfg: config.Configuration | None = None,
                   *, resources: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
                   chart: bool = False, **kw: bool) -> None:
    """A release as its command prints it: helm's status text, or ``-o json|yaml`` data
    (``resources`` as helm's ``info.resources``; ``chart``: the one installed, :func:`release_data`)."""
    if output == "table":
        sys.stdout.write(status_text(release, resources=resources, **kw))
    else:
        revision = (revision_numbers(cfg, release.namespace, release.name).get(str(release.version))
                    if cfg is not None and release.description.lower() != "dry run complete" else None)
        data = release_data(release, revision, chart=chart)
        if resources:
            # helm's info.resources is a Go map: its JSON keys come sorted
            data["info"]["resources"] = {key: list(found) for key, found in sorted(resources.items())}
        sys.stdout.write(encode(data, output))


# --------------------------------------------------------------------------- commands

def _load_chart(path: str) -> Any:
    from helm_core.chart import loader
    return loader.load(path)


def cmd_install(args: argparse.Namespace) -> int:
    try:
        return _install(args)
    except HelmError as exc:
        raise ActionFailed("INSTALLATION FAILED", exc) from exc  # helm wraps all of its runInstall


def _install(args: argparse.Namespace) -> int:
    from helm_core.action import crds as crd_policy
    from helm_core.action import install
    from helm_core.cli import chartref, common, naming
    name, chart_path = naming.release_name_and_chart(args)
    chart = chartref.load(args, chart_path)
    cfg = _configuration(args)
    result = install.run(cfg, chart, common.values(args), install.InstallOptions(
        name=name, namespace=args.namespace, chart_source=chartref.source_of(args, chart_path),
        dry_run=args.dry_run, wait=args.wait, wait_for_jobs=args.wait_for_jobs, timeout_s=_timeout(args),
        atomic=args.atomic, create_namespace=args.create_namespace, take_ownership=args.take_ownership,
        replace=args.replace, no_hooks=args.no_hooks, description=args.description,
        skip_schema_validation=args.skip_schema_validation,
        lua=common.lua_options(args), post_render=common.post_render_options(args),
        subchart_notes=args.render_subchart_notes, crds=_crds(args, crd_policy.INSTALL_DEFAULT),
        labels=args.labels, force=args.force))
    _print_release(result, args.output, cfg, chart=True, hide_notes=args.hide_notes, debug=args.debug,
                   stored=False)
    return 0


def _crds(args: argparse.Namespace, default: str) -> str:
    """``--crds`` (Flux's words), or helm's ``--skip-crds``; none: the action's ``default``."""
    from helm_core.action import crds as crd_policy
    if args.skip_crds and args.crds not in (None, crd_policy.SKIP):
        raise HelmError(f"--skip-crds and --crds {args.crds} contradict each other")
    return crd_policy.SKIP if args.skip_crds else args.crds or default


def cmd_upgrade(args: argparse.Namespace) -> int:
    from helm_core.action import upgrade
    from helm_core.cli import chartref, common
    from helm_core.storage import names as release_names
    release_names.check_name(args.name)
    chart = chartref.load(args, args.chart)
    cfg = _configuration(args)
    installing = args.install and upgrade.plan(cfg.driver.history(args.namespace, args.name)) == "install"
    if installing and args.output == "table":
        print(f'Release "{args.name}" does not exist. Installing it now.')
    values = common.values(args)
    options = _upgrade_options(args)
    try:
        action, result = upgrade.upgrade_or_install(cfg, chart, values, options)
    except HelmError as exc:
        if installing:
            raise  # helm's upgrade --install of a new release returns its install's error as it is
        raise ActionFailed("UPGRADE FAILED", exc) from exc
    if args.output == "table" and action == "upgrade":
        print(f'Release "{args.name}" has been upgraded. Happy Helming!')
    _print_release(result, args.output, cfg, chart=True, hide_notes=args.hide_notes, debug=args.debug,
                   stored=False)
    return 0


def _upgrade_options(args: argparse.Namespace) -> Any:
    """The upgrade action's options as the command's flags ask for them."""
    from helm_core.action import crds as crd_policy
    from helm_core.action import upgrade
    from helm_core.cli import chartref, common
    from helm_core.cli import settings as settings_mod
    return upgrade.UpgradeOptions(
        name=args.name, namespace=args.namespace, chart_source=chartref.source_of(args, args.chart),
        install=args.install, dry_run=args.dry_run, wait=args.wait, wait_for_jobs=args.wait_for_jobs,
        timeout_s=_timeout(args),
        atomic=args.atomic, reuse_values=args.reuse_values, reset_values=args.reset_values,
        reset_then_reuse_values=args.reset_then_reuse_values, cleanup_on_fail=args.cleanup_on_fail,
        create_namespace=args.create_namespace, take_ownership=args.take_ownership,
        no_hooks=args.no_hooks, description=args.description,
        max_history=settings_mod.max_history(os.environ, upgrade.DEFAULT_MAX_HISTORY)
        if args.history_max is None else args.history_max,
        skip_schema_validation=args.skip_schema_validation,
        lua=common.lua_options(args), post_render=common.post_render_options(args),
        subchart_notes=args.render_subchart_notes, crds=_crds(args, crd_policy.UPGRADE_DEFAULT),
        install_crds=_crds(args, crd_policy.INSTALL_DEFAULT), labels=args.labels, force=args.force)


def cmd_rollback(args: argparse.Namespace) -> int:
    from helm_core.action import rollback
    from helm_core.cli import common
    rollback.run(_configuration(args), args.name, args.namespace, _version_arg(args.version),
                 rollback.RollbackOptions(wait=args.wait, wait_for_jobs=args.wait_for_jobs,
                                          timeout_s=_timeout(args),
                                          no_hooks=args.no_hooks, dry_run=args.dry_run, force=args.force,
                                          cleanup_on_fail=args.cleanup_on_fail, lua=common.lua_options(args)))
    print("Rollback was a success! Happy Helming!")
    return 0


def cmd_uninstall(args: argparse.Namespace) -> int:
    from helm_core.action import uninstall
    from helm_core.cli import common
    propagation = uninstall.cascade(args.cascade)  # helm checks it before it connects
    cfg = _configuration(args)
    for name in args.names:
        result = uninstall.run(cfg, name, args.namespace, uninstall.UninstallOptions(
            keep_history=args.keep_history, wait=args.wait, timeout_s=_timeout(args),
            no_hooks=args.no_hooks, dry_run=args.dry_run, ignore_not_found=args.ignore_not_found,
            description=args.description, cascade=propagation, lua=common.lua_options(args)))
        if result.release is not None:
            print(result.info if not args.dry_run else f'release "{name}" uninstalled')
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    from helm_core.action import get
    cfg = _configuration(args)
    release = get.run(cfg, args.name, args.namespace, _version_arg(args.revision))
    what = args.what
    if what == "metadata":
        revision = revision_numbers(cfg, release.namespace, release.name).get(str(release.version))
        sys.stdout.write(metadata_text(release, revision, args.output))
    elif what == "manifest":
        sys.stdout.write(release.manifest)
    elif what == "hooks":
        sys.stdout.write(release.hooks)
    elif what == "notes":
        if release.notes:
            sys.stdout.write(f"NOTES:\n{release.notes}\n")
    elif what == "values":
        values = values_shown(release, all_values=args.all)
        if args.output == "table":
            header = "COMPUTED VALUES:" if args.all else "USER-SUPPLIED VALUES:"
            sys.stdout.write(f"{header}\n" + encode(values, "yaml"))
        else:
            sys.stdout.write(encode(values, args.output))
    else:  # all
        sys.stdout.write(status_text(release, debug=True, metadata=True))
    return 0


def metadata_text(release: rel.ReleaseVersion, revision: int | None, output: str) -> str:
    """``helm get metadata``: helm's fields, ``REVISION`` helm's integer and ``VERSION_ID`` the
    stored version (``version`` in helm is the chart's version, so ours gets its own key, after
    helm's)."""
    deployed = rfc3339(release.last_deployed)
    if output != "table":
        from helm_core.golib import gojson
        return encode(gojson.Struct(name=release.name, chart=release.chart_name, version=release.chart_version,
                                    appVersion=release.app_version, namespace=release.namespace,
                                    revision=revision, status=release.status.value, deployedAt=deployed,
                                    versionId=str(release.version)), output)
    return (f"NAME: {release.name}\nCHART: {release.chart_name}\nVERSION: {release.chart_version}\n"
            f"APP_VERSION: {release.app_version}\nANNOTATIONS: \nDEPENDENCIES: \n"
            f"NAMESPACE: {release.namespace}\nREVISION: {revision}\n"
            f"VERSION_ID: {release.version}\nSTATUS: {release.status.value}\n"
            f"DEPLOYED_AT: {deployed}\n")


def cmd_history(args: argparse.Namespace) -> int:
    from helm_core.action import history
    from helm_core.golib import gotime
    from helm_core.storage import release as rel
    cfg = _configuration(args)
    versions = history.run(cfg, args.name, args.namespace,
                           max_versions=history.DEFAULT_MAX if args.max is None else args.max)
    if args.output == "table":
        rows = [["REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION"]]
        rows += [[rel.version_text(v.version), ansic(v.last_deployed), v.status.value, v.chart, v.app_version,
                  v.description] for v in versions]
        print(table(rows))
    else:
        from helm_core.golib import gojson
        numbers = revision_numbers(cfg, args.namespace, args.name)
        # helm's releaseInfo fields in its order, then the version as helm-core shows it
        sys.stdout.write(encode([gojson.Struct(revision=numbers.get(str(v.version)),
                                               updated=gotime.json_time(v.last_deployed),
                                               status=v.status.value, chart=v.chart, app_version=v.app_version,
                                               description=v.description, version=rel.version_text(v.version))
                                 for v in versions], args.output))
    return 0


#: ``list`` flags naming a status (the Status member of the same name, upper-cased).
_STATUS_FLAGS = ("deployed", "failed", "superseded", "uninstalled", "uninstalling")
_PENDING = ("PENDING_INSTALL", "PENDING_UPGRADE", "PENDING_ROLLBACK")


def cmd_list(args: argparse.Namespace) -> int:
    from helm_core.action import list as list_action
    from helm_core.storage import release as rel
    statuses = {rel.Status[flag.upper()] for flag in _STATUS_FLAGS if getattr(args, flag)}
    if args.pending:
        statuses.update(rel.Status[name] for name in _PENDING)
    cfg = _configuration(args)
    found = list_action.run(cfg, list_action.ListOptions(
        namespace=args.namespace, all_namespaces=args.all_namespaces,
        statuses=frozenset(statuses), all_statuses=args.all, filter=args.filter,
        by_date=args.date, reverse=args.reverse, limit=args.max, offset=args.offset,
        selector=args.selector))
    if args.short:
        sys.stdout.write("".join(f"{v.name}\n" for v in found))
        return 0
    elements: list[dict[str, Any]] = [
        {"name": v.name, "namespace": v.namespace, "revision": rel.version_text(v.version),
                 "updated": _updated(v.last_deployed, args.time_format), "status": v.status.value,
                 "chart": v.chart, "app_version": v.app_version} for v in found]
    if args.output != "table":
        from helm_core.golib import gojson
        shown = []
        for element, v in zip(elements, found, strict=True):
            number = revision_numbers(cfg, v.namespace, v.name).get(str(v.version))
            # helm's releaseElement fields in its order (revision: a string), then the version
            shown.append(gojson.Struct(element, revision=None if number is None else str(number),
                                       version=element["revision"]))
        sys.stdout.write(encode(shown, args.output))
        return 0
    rows = [] if args.no_headers else [["NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS",
                                        "CHART", "APP VERSION"]]
    rows += [[e["name"], e["namespace"], e["revision"], e["updated"], e["status"], e["chart"],
              e["app_version"]] for e in elements]
    if rows:
        print(table(rows))
    return 0


def _updated(value: dt.datetime | None, layout: str) -> str:
    """helm list's UPDATED: the time's ``String()``, or ``--time-format``'s Go layout."""
    if value is None or not layout:
        return go_time(value)
    from helm_core.golib import gotime
    return gotime.format_time(value, layout)


def cmd_status(args: argparse.Namespace) -> int:
    from helm_core.action import status as status_action
    cfg = _configuration(args)
    release = status_action.run(cfg, args.name, args.namespace, _version_arg(args.revision))
    # helm reads tables for its table output and whole objects for -o json|yaml
    found = (status_action.resources(cfg, release, as_tables=args.output == "table")
             if args.show_resources else None)
    _print_release(release, args.output, cfg, show_description=args.show_desc, resources=found)
    return 0


def cmd_test(args: argparse.Namespace) -> int:
    """helm's ``test``: run the tests; then, whether they passed or not, the status and, with
    ``--logs``, each test Pod's log (``POD LOGS: <name>``); then the tests' failure, if any."""
    from helm_core.action import get, hooks
    from helm_core.action import test as test_action
    from helm_core.cli import common
    cfg = _configuration(args)
    filters = test_action.filters_from_flags(args.filter)
    failure: hooks.HookError | None = None
    try:
        test_action.run(cfg, args.name, args.namespace, timeout_s=_timeout(args), filters=filters,
                        lua=common.lua_options(args))
    except hooks.HookError as exc:  # helm still prints the status and the logs, then fails
        failure = exc
    release = get.run(cfg, args.name, args.namespace)
    sys.stdout.write(status_text(release, hide_notes=args.hide_notes, debug=args.debug))
    if args.logs:
        sys.stdout.write("\n")
        for name, log in test_action.logs(cfg, release, args.namespace, filters):
            sys.stdout.write(f"POD LOGS: {name}\n{log}\n")
            sys.stdout.flush()
    if failure is not None:
        raise failure
    return 0


# --------------------------------------------------------------------------- registration

def _add_cleanup_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cleanup-on-fail", action="store_true",
                   help="allow deletion of new resources created in this upgrade when upgrade fails")


def _install_like(p: argparse.ArgumentParser) -> None:
    from helm_core.cli import common
    _add_cluster_flags(p)
    _add_wait_flags(p)
    _add_wait_for_jobs_flag(p)
    _add_output_flag(p)
    p.add_argument("--atomic", action="store_true", help="undo everything on failure (implies --wait)")
    p.add_argument("--create-namespace", action="store_true", help="create the release namespace")
    p.add_argument("--take-ownership", action="store_true",
                   help="adopt existing objects whatever release owns them")
    p.add_argument("--description", default="", help="a custom description")
    p.add_argument("--force", action="store_true",
                   help="force resource updates through a replacement strategy")
    common.add_post_render_flag(p)
    common.add_schema_flag(p)
    p.add_argument("--crds", choices=["Skip", "Create", "CreateReplace"],
                   help="the chart's crds/ (default: Create on install, Skip on upgrade)")
    p.add_argument("--skip-crds", action="store_true",
                   help="if set, no CRDs will be installed (helm's; --crds Skip)")
    p.add_argument("--render-subchart-notes", action="store_true",
                   help="if set, render subchart notes along with the parent")
    p.add_argument("--hide-notes", action="store_true",
                   help="if set, do not show notes in the output (they are still stored)")
    common.add_values_flags(p)
    common.add_lua_flags(p)
    common.add_limit_flags(p)
    from helm_core.cli import chartref
    chartref.add_flags(p)
    chartref.add_dependency_update_flag(p)


def register(sub: Any) -> None:
    """Add the release commands to ``helm-core``'s subcommand parser."""
    from helm_core.cli import common, naming
    p = sub.add_parser("install", help="install a chart as a release")
    p.add_argument("args", nargs="+", metavar="[NAME] CHART")
    naming.add_name_flags(p)
    p.add_argument("--replace", action="store_true",
                   help="re-use the name of an uninstalled or failed release")
    common.add_labels_flag(p, "Labels that would be added to release metadata. Should be divided by comma.")
    _install_like(p)
    p.set_defaults(func=cmd_install)

    p = sub.add_parser("upgrade", help="upgrade a release")
    p.add_argument("name")
    p.add_argument("chart")
    p.add_argument("-i", "--install", action="store_true", help="install when absent")
    p.add_argument("--reuse-values", action="store_true")
    p.add_argument("--reset-values", action="store_true")
    p.add_argument("--reset-then-reuse-values", action="store_true")
    _add_cleanup_flag(p)
    p.add_argument("--history-max", type=int, default=None,
                   help="versions kept after the upgrade (0: no limit; default $HELM_MAX_HISTORY or 10, as Helm)")
    common.add_labels_flag(p, "Labels that would be added to release metadata. Should be separated by comma. "
                              "Original release labels will be merged with upgrade labels. You can unset label "
                              "using null.")
    _install_like(p)
    p.set_defaults(func=cmd_upgrade)

    p = sub.add_parser("rollback", help="roll a release back to a previous version")
    p.add_argument("name")
    p.add_argument("version", nargs="?", help="the version (ULID) to roll back to; default: previous")
    _add_cleanup_flag(p)
    p.add_argument("--force", action="store_true",
                   help="force resource updates through a replacement strategy (a PUT, as helm does)")
    _add_cluster_flags(p)
    _add_wait_flags(p)
    _add_wait_for_jobs_flag(p)
    common.add_lua_flags(p)
    p.set_defaults(func=cmd_rollback)

    p = sub.add_parser("uninstall", aliases=["delete", "del", "un"], help="uninstall releases")
    p.add_argument("names", nargs="+")
    p.add_argument("--keep-history", action="store_true")
    p.add_argument("--cascade", default="background",
                   help='Must be "background", "orphan", or "foreground". Selects the deletion cascading strategy '
                        "for the dependents. Defaults to background.")
    p.add_argument("--ignore-not-found", action="store_true")
    p.add_argument("--description", default="")
    _add_cluster_flags(p)
    _add_wait_flags(p)
    common.add_lua_flags(p)
    p.set_defaults(func=cmd_uninstall)

    p = sub.add_parser("get", help="download a stored release version")
    p.add_argument("what", choices=["manifest", "values", "notes", "hooks", "metadata", "all"])
    p.add_argument("name")
    p.add_argument("--revision", help="the version (ULID); default: the newest")
    p.add_argument("-a", "--all", action="store_true", help="(values) all computed values")
    _add_cluster_flags(p)
    _add_output_flag(p)
    p.set_defaults(func=cmd_get)

    p = sub.add_parser("history", aliases=["hist"], help="a release's versions")
    p.add_argument("name")
    p.add_argument("--max", type=int, default=None, help="maximum number of versions shown (default 256)")
    _add_cluster_flags(p)
    _add_output_flag(p)
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("list", aliases=["ls"], help="list releases")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("-a", "--all", action="store_true", help="releases of every status")
    for flag in (*_STATUS_FLAGS, "pending"):
        p.add_argument(f"--{flag}", action="store_true", help=f"show {flag} releases")
    p.add_argument("-f", "--filter", default="", help="a regular expression on release names")
    p.add_argument("-d", "--date", action="store_true", help="sort by release date")
    p.add_argument("-r", "--reverse", action="store_true")
    p.add_argument("-q", "--short", action="store_true")
    p.add_argument("--no-headers", action="store_true")
    p.add_argument("-m", "--max", type=int, default=256, help="maximum number of releases to fetch")
    p.add_argument("--offset", type=int, default=0,
                   help="next release index in the list, used to offset from start value")
    p.add_argument("--time-format", default="",
                   help='format time using golang time formatter. Example: --time-format "2006-01-02 15:04:05Z0700"')
    p.add_argument("-l", "--selector", default="",
                   help="Selector (label query) to filter on, supports '=', '==', and '!='.(e.g. -l key1=value1,"
                        "key2=value2). Works only for secret(default) and configmap storage backends.")
    _add_cluster_flags(p)
    _add_output_flag(p)
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("status", help="a release's status")
    p.add_argument("name")
    p.add_argument("--revision")
    p.add_argument("--show-desc", action="store_true")
    p.add_argument("--show-resources", action="store_true",
                   help="if set, display the resources of the named release")
    _add_cluster_flags(p)
    _add_output_flag(p)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("test", help="run a release's tests")
    p.add_argument("name")
    p.add_argument("--timeout", type=parse_timeout, default=None, help="default 5m0s")
    p.add_argument("--filter", action="append", default=[],
                   help="specify tests by attribute (currently \"name\") using attribute=value syntax or "
                        "'!attribute=value' to exclude a test (can specify multiple or separate values with "
                        "commas: name=test1,name=test2)")
    p.add_argument("--logs", action="store_true",
                   help="dump the logs from test pods (this runs after all tests are complete, but before any cleanup)")
    p.add_argument("--hide-notes", action="store_true",
                   help="if set, do not show notes in test output. Does not affect presence in chart metadata")
    _add_cluster_flags(p)
    common.add_lua_flags(p)
    p.set_defaults(func=cmd_test)
