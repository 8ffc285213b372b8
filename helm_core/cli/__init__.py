"""``helm-core``: the command-line face of the library, with Helm's command and flag names.

Errors print as one line (``Error: ...``) with exit code 1, never a traceback:
every expected failure is a :class:`~helm_core.errors.HelmError`.
"""
from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
from collections.abc import Callable, Sequence

from helm_core.cli.common import VALUES_FLAGS
from helm_core.cli.common import (  # shared with the command modules
    add_limit_flags as _add_limit_flags,
)
from helm_core.cli.common import (
    add_lua_flags as _add_lua_flags,
)
from helm_core.cli.common import (
    add_post_render_flag as _add_post_render_flag,
)
from helm_core.cli.common import (
    add_schema_flag as _add_schema_flag,
)
from helm_core.cli.common import (
    add_values_flags as _add_values_flags,
)
from helm_core.cli.common import (
    lua_log as _lua_log,
)
from helm_core.cli.common import (
    lua_options as _lua_options,
)
from helm_core.cli.common import (
    post_render_options as _post_render_options,
)
from helm_core.cli.common import (
    values as _values,
)
from helm_core.cli.naming import add_name_flags, release_name_and_chart  # noqa: F401 - re-exported
from helm_core.errors import ActionFailed, HelmError, HookError, SchemaError
from helm_core.support import cachedirs, memo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from helm_core.action import template as template_action
    from helm_core.engine import purity

# Command modules are imported by the command that needs them: `helm-core` starts in a
# fraction of the time when `template` does not load the HTTP client, and `pull` does not
# load the template engine.


def _template_options(args: argparse.Namespace, name: str, chart: Any,
                      ledger: purity.Ledger | None = None) -> template_action.TemplateOptions:
    from helm_core.action import template as template_action

    _check_kube_version(args.kube_version)
    api_versions: list[str] = []
    for entry in args.api_versions:
        api_versions.extend(v for v in entry.split(",") if v)
    return template_action.TemplateOptions(
        release_name=name,
        namespace=args.namespace,
        kube_version=args.kube_version,
        api_versions=tuple(api_versions),
        include_crds=args.include_crds,
        skip_tests=args.skip_tests,
        no_hooks=args.no_hooks,
        show_only=tuple(args.show_only),
        strict=args.strict,
        is_upgrade=args.is_upgrade,
        skip_schema_validation=args.skip_schema_validation,
        lua=_lua_options(args),
        post_render=_post_render_options(args),
        ledger=ledger,
    )


def cmd_template(args: argparse.Namespace) -> int:
    from helm_core.cli import chartref, rendered
    from helm_core.storage import names as release_names

    _check_kube_version(args.kube_version)  # first, as helm's template command checks it
    name, chart_ref = release_name_and_chart(args, default=release_names.DEFAULT_TEMPLATE_NAME)
    chart_input = rendered.read_chart(*chartref.locate(args, chart_ref))
    disk = memo.active()
    entry_key = None
    # No values flag: nothing to merge (and merging's modules are not imported for it).
    given = any(getattr(args, flag) for flag in VALUES_FLAGS)
    user_values = _values(args) if given else None
    if disk is not None and rendered.may_keep(args):
        entry_key = rendered.key(args, name, chart_input, user_values)
        printed = rendered.recall(disk, entry_key, documents=bool(args.output_dir)) if entry_key else None
        if printed is not None:
            _print_template(printed, args, name)
            return 0
    values = user_values if user_values is not None else {}
    from helm_core.support import helmlog

    with helmlog.recording() as said:  # kept with what this run keeps, said again by runs that take it
        return _template_rendered(args, name, chart_input, values, disk, entry_key, said)


def _template_rendered(args: argparse.Namespace, name: str, chart_input: Any, values: dict[str, Any],
                       disk: memo.DiskMemo | None, entry_key: str | None, said: list[str]) -> int:
    """``template``'s render (``entry_key``: its memo entries', when it may keep them), and its
    output printed or written; ``said``: the warnings this run gave (taken from the memo too)."""
    from helm_core.cli import rendered
    from helm_core.gotemplate.funcs import keypool

    kept = sources = None
    if entry_key and disk is not None:
        kept = rendered.recall_parts(disk, entry_key)
        keypool.prefetch(kept.rsa_keys)  # generated while the chart loads and the rest renders
        if kept.found:
            rendered.repeating(disk)
        if kept.outputs or kept.rsa_keys:
            # Parts are kept for charts without Lua or Jinja2 only; so is what they rendered.
            sources = rendered.recall_sources(disk, entry_key)
    from helm_core.action import template as template_action
    from helm_core.engine import purity

    prepared = sources.prepared if sources is not None else None
    if sources is not None:  # what loading and preparing said, said again
        _say(sources.said)
        said.extend(sources.said)
    chart = prepared.chart if prepared is not None else chart_input.load()
    ledger = None
    if kept is not None and (prepared is not None or rendered.pure_chart(chart)):
        ledger = purity.Ledger(kept.outputs, sources.documents if sources is not None else None)
    options = _template_options(args, name, chart, ledger)
    impure_calls, keys_before = purity.calls(), keypool.made()
    result = _render_template(args, chart, values, options, prepared)
    if ledger is not None and ledger.stale:
        # A template rendered anew changed data that the kept outputs were rendered without
        # changes to: they may not hold this time, so every template is rendered.
        ledger = purity.Ledger()
        options = _template_options(args, name, chart, ledger)
        keys_before = keypool.made()
        result = _render_template(args, chart, values, options, prepared)
    listed = template_action.output_parts(result, options)
    text = None if args.output_dir else template_action.output_text(result, options, listed)
    if entry_key and disk is not None and ledger is not None and kept is not None:
        if purity.calls() == impure_calls:  # kept as printed, with what an --output-dir run writes
            printed = text if text is not None else template_action.output_text(result, options, listed)
            rendered.keep(disk, entry_key, rendered.Printed(printed, result.info, said),
                          None if args.show_only else listed)
        else:
            parts = rendered.KeptParts(ledger.reusable(), keypool.made_since(keys_before))
            # Kept even when empty: the next identical run knows it repeats this one.
            if not kept.found or parts.outputs.keys() != kept.outputs.keys() or parts.rsa_keys != kept.rsa_keys:
                rendered.keep_parts(disk, entry_key, parts)
            elif (kept.outputs or kept.rsa_keys) and sources is None:  # the parts hold: start from here next
                from helm_core.chart import prepare

                rendered.keep_sources(disk, entry_key, rendered.KeptSources(
                    prepare.Prepared(chart=result.chart, values=result.values),
                    {name: ledger.documents[name] for name in kept.outputs if name in ledger.documents}, said))
    _print_info(result.info)
    if text is None:
        _write_output_dir(args, [(part.kind, part.source, template_action.document(part.source, part.content).encode(
            "utf-8", "surrogateescape")) for part in listed], name, chart_name=result.chart.name)
        return 0
    _write(text)
    return 0


def _print_template(printed: Any, args: argparse.Namespace, release_name: str) -> None:
    """A ``rendered.Printed`` from the memo, as the run that made it printed it, or its
    documents written to ``--output-dir`` as a render would write them."""
    _say(printed.said)
    _print_info(printed.info)
    if printed.documents is not None:
        _write_output_dir(args, printed.documents, release_name)
        return
    _write(printed.text)


def _say(warnings: list[str]) -> None:
    """Warnings Helm logs, as the console script's logging prints them."""
    for line in warnings:
        print(line, file=sys.stderr)


def _print_info(info: list[str]) -> None:
    for line in info:
        print(f"info: {line}", file=sys.stderr)


def _check_kube_version(text: str | None) -> None:
    if not text:
        return
    from helm_core.engine import capabilities

    try:
        capabilities.KubeVersion.parse(text)
    except ValueError as exc:
        raise HelmError(f"invalid kube version '{text}': {exc}") from None


def _write(text: str) -> None:
    """Print rendered text; bytes of binary chart files pass through unchanged (surrogateescape)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (tests capture this way)
        sys.stdout.write(text)
        return
    buffer.write(text.encode("utf-8", "surrogateescape"))
    buffer.flush()


def _write_output_dir(args: argparse.Namespace, documents: list[tuple[str, str, bytes]], release_name: str, *,
                      chart_name: str = "") -> None:
    """``--output-dir`` as helm writes it: each document (kind, source, its printed bytes) appended
    to the file of its source, and ``wrote PATH`` printed for each. CRDs go under the folder,
    resources and hooks under FOLDER/NAME with ``--release-name``. A resource's first document in
    this run starts its file; a hook's is appended to whatever file is there, even one from an
    earlier run (helm's rule): decided here, against the folder as it is now, also for documents
    taken from the memo. Then helm prints its resource text, empty here, and applies
    ``--show-only`` to it (``chart_name``'s): with an output folder, a pattern matches nothing
    (so such a run is never kept). os.path, not pathlib: pathlib imports urllib and ipaddress,
    start-up time of every run."""
    root = args.output_dir
    release_root = os.path.normpath(os.path.join(root, release_name)) if args.release_name else root
    started: set[str] = set()  # helm's fileWritten: sources whose file this run has started
    folders: set[str] = set()
    for kind, source, data in documents:
        # A chart names only the path inside the folder: it must not climb out of it.
        relative = os.path.normpath(source)
        if os.path.isabs(relative) or relative == ".." or relative.startswith(".." + os.sep):
            raise HelmError(f"refusing to write {source} outside {root}")
        target = (root if kind == "crd" else release_root) + os.sep + source
        if kind == "hook":
            append = os.path.exists(target)
        else:
            append = source in started
            started.add(source)
        folder = os.path.dirname(target)
        if folder not in folders:
            os.makedirs(folder, mode=0o755, exist_ok=True)
            folders.add(folder)
        with open(target, "ab" if append else "wb") as fh:
            fh.write(data)
        sys.stdout.write(f"wrote {target}\n")
    if args.show_only:
        from helm_core.action import template as template_action

        template_action.filter_show_only([], chart_name, tuple(args.show_only))
    sys.stdout.write("\n")


def cmd_lint(args: argparse.Namespace) -> int:
    """helm's lint report (:mod:`helm_core.cli.lint`)."""
    from helm_core.chart import prepare
    from helm_core.cli import lint as lint_mod
    from helm_core.engine import capabilities as caps_mod

    _check_kube_version(args.kube_version)
    values = _values(args)
    paths = args.charts or ["."]
    # Without --kube-version helm judges deprecations at the Kubernetes release its client-go
    # is (lint rules' k8sVersionMajor/Minor, set by the same ldflags as the default capabilities).
    kube = caps_mod.KubeVersion.parse(args.kube_version or caps_mod.DEFAULT_KUBE_VERSION)
    kube_version = (int(kube.Major), int(kube.Minor))

    def render(chart: Any) -> Any:
        """helm's lint render: dependencies processed (silently given up on failure), values
        coalesced and checked, every template rendered in lint mode (``required``/``fail``
        do not stop it); for a chart with Lua, the lint action's events around it
        (``pre-render`` may change values and templates; ``pre-lint`` sees the objects)."""
        from helm_core.chart import schema
        from helm_core.chart import values as chart_values
        from helm_core.engine import render as render_mod
        from helm_core.errors import DependencyError
        from helm_core.lua import layout

        try:
            prepared = prepare.prepare_chart(chart, values, allow_library=True, validate_schema=False)
        except DependencyError:
            return None
        # helm's lint rule coalesces the coalesced values once more (CoalesceValues, then
        # ToRenderValues), so each coalescing warning is logged a second time, and checks those
        prepared = prepare.Prepared(chart=prepared.chart,
                                    values=chart_values.coalesce_values(prepared.chart, prepared.values))
        if not args.skip_schema_validation:
            schema.validate(prepared.chart, prepared.values)
        caps = caps_mod.make_capabilities(kube_version=args.kube_version or caps_mod.DEFAULT_KUBE_VERSION)
        release = caps_mod.ReleaseInfo(name=lint_mod.RELEASE_NAME, namespace=args.namespace, revision=1,
                                       is_install=True, is_upgrade=False)
        options = render_mod.RenderOptions(release=release, capabilities=caps, lint_mode=True,
                                           lint_log=lambda line: print(line, file=sys.stderr))
        if not layout.has_extensions(prepared.chart):
            return prepared.chart, render_mod.render(prepared.chart, prepared.values, options=options)
        from helm_core.action import template as template_action
        from helm_core.engine import renderer as renderer_mod

        kept = renderer_mod.FilesKept()
        step = template_action.RenderStep(prepared.chart, options, kept)
        template_action.run_events("lint", step, prepared, release, caps, _lua_options(args), _lua_log)
        return kept.chart, kept.files

    if args.with_subcharts:  # helm walks each given chart's charts/ once, in the order given
        paths = paths + [sub for given in paths for sub in lint_mod.subchart_paths(given)]
    failed = noisy = 0
    report: list[str] = []
    for chart_path in paths:
        messages, chart_failed, guard = lint_mod.lint(chart_path, render, kube_version=kube_version,
                                                      strict=args.strict, overrides=values)
        failed += chart_failed
        noisy += chart_failed or any(m.severity != lint_mod.INFO for m in messages)
        if args.quiet and not any(m.severity != lint_mod.INFO for m in messages) and not chart_failed:
            continue
        report.append(f"==> Linting {chart_path}")
        if guard:
            report.append(f"Error {guard}")
        report += [str(m) for m in messages if not args.quiet or m.severity != lint_mod.INFO]
        report.append("")
    sys.stdout.write("".join(f"{line}\n" for line in report))
    summary = f"{len(paths)} chart(s) linted, {failed} chart(s) failed"
    if failed:
        raise HelmError(summary)
    if not args.quiet or noisy:
        print(summary)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """``helm show``: what helm's ``action.Show`` prints, section by section."""
    from helm_core.chart import chartfile, loader, model, prepare
    from helm_core.cli import chartref
    from helm_core.golib import goyaml

    source, data = chartref.locate(args, args.chart)
    chart = loader.load(source) if data is None else loader.load_archive(data, source=source)
    what = args.what
    out: list[str] = []
    if what in ("chart", "all"):
        raw = _raw_chart_yaml(source, data)
        out.append(goyaml.dump(_omit_empty(chartfile.metadata_fields(raw))) + "\n")
    if what == "values" and args.computed:
        prepared = prepare.prepare_chart(chart, _values(args), allow_library=True)
        out.append(goyaml.dump(prepared.values))
    elif what in ("values", "all"):
        if what == "all":
            out.append("---\n")
        out.append(chart.raw_values.decode("utf-8", "surrogateescape") + "\n")
    if what in ("readme", "all"):
        readme = next((f for name in _README_NAMES for f in chart.files if f.name.lower() == name), None)
        if readme is not None:
            if what == "all":
                out.append("---\n")
            out.append(readme.data.decode("utf-8", "surrogateescape") + "\n")
    if what in ("crds", "all"):
        crds = [f for _, f in model.all_crd_files(chart)]
        if crds:
            if what == "all" and not crds[0].data.startswith(b"---"):
                out.append("---\n")
            out.extend(f.data.decode("utf-8", "surrogateescape") + "\n" for f in crds)
    _write("".join(out))
    return 0


#: helm's ``readmeFileNames``, in its order of preference (any letter case).
_README_NAMES = ("readme.md", "readme.txt", "readme")
#: Fields of helm's structs written even when empty (no ``omitempty``).
_ALWAYS = frozenset({"repository"})


def _omit_empty(value: Any) -> Any:
    """encoding/json's ``omitempty``: empty strings, lists, maps and false left out."""
    if isinstance(value, dict):
        pruned = {k: _omit_empty(v) for k, v in value.items()}
        return {k: v for k, v in pruned.items() if k in _ALWAYS or v not in ("", [], {}, False, None)}
    if isinstance(value, list):
        return [_omit_empty(v) for v in value]
    return value


def _raw_chart_yaml(source: str, data: bytes | None) -> bytes:
    from pathlib import Path

    p = Path(source)
    if data is None and p.is_dir():
        return (p / "Chart.yaml").read_bytes()
    from helm_core.chart import archive
    files = archive.read_archive(data if data is not None else p.read_bytes(), source=source)
    return next((body for name, body in files if name == "Chart.yaml"), b"")


def _add_template(sub: Any) -> None:
    t = sub.add_parser("template", help="render chart templates locally")
    t.add_argument("args", nargs="+", metavar="[NAME] CHART")
    t.add_argument("--release-name", action="store_true", help="use release name in the output-dir path")
    add_name_flags(t)
    t.add_argument("--kube-version", help="Kubernetes version for .Capabilities (e.g. 1.30.0)")
    t.add_argument("-a", "--api-versions", action="append", default=[], help="extra API versions for .Capabilities")
    t.add_argument("--include-crds", action="store_true", help="include the crds/ files in the output")
    t.add_argument("--skip-tests", action="store_true", help="leave test hooks out")
    t.add_argument("--no-hooks", action="store_true", help="leave hooks out")
    t.add_argument("-s", "--show-only", action="append", default=[], metavar="PATH", help="only show these templates")
    t.add_argument("--output-dir", help="write files into this folder instead of stdout")
    t.add_argument("--strict", action="store_true", help="fail on missing values")
    t.add_argument("--is-upgrade", action="store_true", help="set .Release.IsUpgrade")
    _add_schema_flag(t)
    _add_post_render_flag(t)
    _add_values_flags(t)
    _add_lua_flags(t)
    _add_limit_flags(t)
    from helm_core.cli import chartref
    chartref.add_flags(t)
    chartref.add_dependency_update_flag(t)
    t.set_defaults(func=cmd_template)


def _add_lint(sub: Any) -> None:
    lint = sub.add_parser("lint", help="check charts for problems")
    lint.add_argument("charts", nargs="*", metavar="PATH")
    lint.add_argument("--strict", action="store_true", help="fail on lint warnings")
    lint.add_argument("--quiet", action="store_true", help="print only warnings and errors")
    lint.add_argument("--with-subcharts", action="store_true", help="lint dependent charts")
    _add_schema_flag(lint)
    lint.add_argument("--kube-version", help="Kubernetes version used for capabilities and deprecation checks")
    _add_values_flags(lint)
    _add_lua_flags(lint)
    _add_limit_flags(lint)
    lint.set_defaults(func=cmd_lint)


def _add_show(sub: Any) -> None:
    show = sub.add_parser("show", aliases=["inspect"], help="show information about a chart")
    show.add_argument("what", choices=["all", "chart", "values", "readme", "crds"])
    show.add_argument("chart")
    from helm_core.cli import chartref
    chartref.add_flags(show)
    show.add_argument("--computed", action="store_true",
                      help="(values) show the coalesced values, with subcharts and user values")
    _add_values_flags(show)
    show.set_defaults(func=cmd_show)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, told the terminal's width so that it does not import shutil.

    argparse builds a formatter for every ``add_argument`` and finds the width through
    shutil, whose import (with bz2 and lzma) is paid by each short run (bench/deferred.py).
    """

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or _terminal_columns() - 2)


@functools.cache  # argparse makes a formatter for each of a command's ~50 flags
def _terminal_columns() -> int:
    """$COLUMNS, else the size of the terminal on stdout, else 80 (shutil.get_terminal_size's rule)."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        stdout = sys.__stdout__
        return (os.get_terminal_size(stdout.fileno()).columns or 80) if stdout is not None else 80
    except (AttributeError, ValueError, OSError):
        return 80


class UsageError(HelmError):
    """The command line itself is wrong (helm's words, :mod:`helm_core.cli.words`)."""


class _ArgumentParser(argparse.ArgumentParser):
    """Every parser and subparser of the CLI formats help with :class:`_HelpFormatter` and
    reports a wrong command line in helm's words instead of exiting."""

    #: The command line being parsed (``get``/``show`` name their sub-command positionally).
    argv: Sequence[str] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        kwargs.setdefault("allow_abbrev", False)  # helm takes no abbreviated flags (--repo is not --repository-cache)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:
        from helm_core.cli import words
        raise UsageError(words.translate(_full_prog(self.prog, _ArgumentParser.argv), message))


def _full_prog(prog: str, argv: Sequence[str]) -> str:
    """``helm-core get`` -> ``helm-core get values`` when the line names the sub-command as a
    positional choice (``get``, ``show`` take it so)."""
    words = prog.split()
    if len(words) == 2 and words[1] in ("get", "show", "inspect") and words[1] in argv:
        rest = [a for a in argv[list(argv).index(words[1]) + 1:] if not a.startswith("-")]
        if rest:
            return f"{prog} {rest[0]}"
    return prog


#: Commands defined in this module, in help order.
LOCAL_COMMANDS = {"template": _add_template, "lint": _add_lint, "show": _add_show}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone when it is one of LOCAL_COMMANDS.

    Building all ~20 subparsers is a visible part of a small chart's `template` run
    (bench/deferred.py);
    a run of one local command needs only its own (`--help` and unknown names get all).
    """
    parser = _ArgumentParser(prog="helm-core", description="A Helm 3 library in Python: render, lint and show charts.")
    _add_global_help(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, add in LOCAL_COMMANDS.items():
        if command is None or command == name:
            add(sub)
    if command not in LOCAL_COMMANDS:
        from helm_core.cli import helmcmds
        from helm_core.cli import release as cli_release
        from helm_core.cli import sources as cli_sources
        cli_sources.register(sub)
        cli_release.register(sub)
        helmcmds.register(sub)
    _mark_paths(parser)
    return parser


def _add_global_help(parser: argparse.ArgumentParser) -> None:
    """The global flags in ``--help`` (they are taken out of the line before parsing:
    :mod:`helm_core.cli.settings`)."""
    group = parser.add_argument_group("global flags (accepted before or after the command)")
    for flags, text in ((("-n", "--namespace"), "namespace scope for this request"),
                        (("--kube-context",), "name of the kubeconfig context to use"),
                        (("--kubeconfig",), "path to the kubeconfig file"),
                        (("--registry-config",), "path to the registry config file"),
                        (("--repository-config",), "path to the file of repository names and URLs"),
                        (("--repository-cache",), "path to the folder of cached repository indexes")):
        group.add_argument(*flags, dest=f"_global_{flags[-1][2:]}", metavar="VALUE", help=text)
    group.add_argument("--debug", dest="_global_debug", action="store_true", help="enable verbose output")


def _mark_paths(parser: argparse.ArgumentParser) -> None:
    """Every parser sets ``_path`` (its command path) in the namespace it fills, so that an
    error found after parsing names the right command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_parser in set(action.choices.values()):
                sub_parser.set_defaults(_path=sub_parser.prog)
                _mark_paths(sub_parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line; its new memo entries are written before this returns."""
    disk = _cli_memo()
    try:
        return _main(argv, disk)
    finally:
        disk.write_pending()


def _cli_memo() -> memo.DiskMemo:
    """The memo under the cache root: parse trees and schema verdicts outlive this short process
    (helm_core.support.memo); the kubeconfig read for the default namespace goes through it too.
    Its entries are written once the command is done (the console script: after its output)."""
    return memo.DiskMemo(os.path.join(cachedirs.default_folder(os.environ), cachedirs.MEMO_FOLDER),
                         defer_writes=True)


def _main(argv: Sequence[str] | None, disk: memo.DiskMemo) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # A CLI run is short and builds large, long-lived trees (parsed templates, values):
    # the cyclic collector would rescan them again and again for nothing (bench/deferred.py
    # measures a cold render with it on and off). Reference counting still frees everything that is not cyclic.
    collecting = gc.isenabled()
    gc.disable()
    previous_memo = memo.active()
    memo.use(disk)
    args: argparse.Namespace | None = None
    try:
        args = parse(argv)
        parsed = args
        return int(_with_deep_stack(lambda: _limited(parsed)))
    except HelmError as exc:
        words, cause = (f"{exc.words}: ", exc.cause) if isinstance(exc, ActionFailed) else ("", exc)
        print(f"Error: {words}{cause if _printed_whole(cause) else _one_line(str(cause))}",
              file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"Error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except MemoryError:
        if args is None:
            raise
        from helm_core.cli import limits as cli_limits
        print(f"Error: {cli_limits.memory_error_message(cli_limits.from_args(args))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        memo.use(previous_memo)
        if collecting:
            gc.enable()


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The command line -> the command's namespace, global flags applied (helm's rules:
    :mod:`helm_core.cli.settings`); a wrong line raises :class:`UsageError` in helm's words."""
    from helm_core.cli import settings as settings_mod

    rest, found = settings_mod.extract(argv)
    command = next((a for a in rest if not a.startswith("-")), None)
    parser = build_parser(command if command in LOCAL_COMMANDS else None)
    _ArgumentParser.argv = rest
    args, extra = parser.parse_known_args(rest)
    args.parser = parser  # `completion` describes the parser it was parsed with (the full one)
    if extra:
        from helm_core.cli import words

        path = words.command_path(_full_prog(getattr(args, "_path", "helm-core"), rest))
        raise UsageError(words.unrecognized(path, extra))
    settings = settings_mod.load(found, os.environ)
    args.settings = settings
    args.namespace = settings_mod.namespace(settings, os.environ)
    args.kube_context = settings.kube_context or None
    args.kubeconfig = settings.kubeconfig or None
    args.debug = settings.debug
    return args


def _with_deep_stack(command: Callable[[], Any]) -> Any:
    """Run a command on a stack as deep as the inputs Helm accepts (:mod:`helm_core.support.deepstack`):
    values and YAML nested 10000 levels deep (yaml.v2's limit), --set lists deeper still;
    past it, one error line."""
    from helm_core.support import deepstack
    try:
        return deepstack.run(command)
    except RecursionError:
        raise HelmError("input nested too deeply to be handled (values, YAML or JSON)") from None


def _limited(args: argparse.Namespace) -> Any:
    """The command under its render limits (measured from inside the deep-stack thread, so its
    stack is counted as already in use)."""
    with _render_limits(args):
        return args.func(args)


#: Commands that only render locally: the whole command is under the render timeout.
_LOCAL_RENDERS = ("template", "lint")


def _render_limits(args: argparse.Namespace) -> Any:
    """The render limits of a command that renders (``--render-*`` flags), else nothing."""
    import contextlib

    if not hasattr(args, "render_timeout"):
        return contextlib.nullcontext()
    from helm_core.cli import limits as cli_limits
    return cli_limits.enforced(cli_limits.from_args(args), watchdog=args.command in _LOCAL_RENDERS)


def run() -> None:
    """The console script: :func:`main`, then exit without tearing the interpreter down.

    A run builds large object graphs (parse trees, values, documents); freeing them one by
    one at exit took up to half of a cold ``template`` run. Output streams and logging are
    flushed first; helm_core registers no exit handlers that would be skipped. The memo's new
    entries are written after that, by a child that outlives the run (``DiskMemo.write_pending_detached``):
    a first run creates dozens of files, which the user would wait for with the output printed.
    """
    _english_argparse()
    disk = _cli_memo()
    code = _main(None, disk)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (`| head`): as Python would exit
        code = code or 120
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    disk.write_pending_detached()
    os._exit(code)


def _english_argparse() -> None:
    """argparse words its messages through gettext, whose first call imports locale and looks
    for message catalogues on disk: a visible part of a short run. helm-core rewords argparse's
    English messages into helm's (:mod:`helm_core.cli.words`), so they must stay English anyway.
    Done by the console script only: a program that imports the CLI keeps its own argparse.
    (The console script imports argparse without gettext, :mod:`helm_core.__main__`: these two
    functions are all argparse takes from it.)"""
    setattr(argparse, "_", str)  # noqa: B010 - the module's private name for gettext
    setattr(argparse, "ngettext", lambda singular, plural, n: singular if n == 1 else plural)  # noqa: B010


def _render_template(args: argparse.Namespace, chart: Any, values: dict[str, Any], options: Any,
                     prepared: Any = None) -> Any:
    """``template``'s render, failing as ``helm template`` does once rendering had begun: with
    ``--debug`` what was rendered is printed first, else the error says how to see it."""
    from helm_core.action import template as template_action
    try:
        return template_action.run(chart, values, options, log=_lua_log, prepared=prepared)
    except HelmError as exc:
        if exc.rendered is None:
            raise
        if args.debug:
            sys.stdout.write(exc.rendered.strip() + "\n")
            raise
        hint = HelmError(f"{exc}\n\nUse --debug flag to render out invalid YAML")
        raise hint from exc


def _printed_whole(exc: BaseException) -> bool:
    """helm's text to the byte, trailing newlines included: a schema report, and an error
    carrying a hook's go-multierror list (the hook's failure, or ``--atomic``'s wrap of it)."""
    if isinstance(exc, SchemaError):
        return True
    found: BaseException | None = exc
    while found is not None and not isinstance(found, HookError):
        found = found.__cause__
    return found is not None


def _one_line(message: str) -> str:
    """Keep multi-line reports (schema violations) readable but clearly one error."""
    return message.strip("\n")  # helm keeps a trailing space (e.g. an empty dependency name)

