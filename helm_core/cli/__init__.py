"""``helm-core``: the command-line face of the library, with Helm's command and flag names.

Errors print as one line (``Error: ...``) with exit code 1, never a traceback:
every expected failure is a :class:`~helm_core.errors.HelmError`.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from helm_core.errors import HelmError
from helm_core.support import cachedirs, memo

if TYPE_CHECKING:
    from helm_core.action import template as template_action

# Command modules are imported by the command that needs them: `helm-core` starts in a
# fraction of the time when `template` does not load the HTTP client, and `pull` does not
# load the template engine.


def _template_options(args: argparse.Namespace, name: str, chart: Any) -> template_action.TemplateOptions:
    from helm_core.action import template as template_action

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
        lua=_lua_options(args, chart),
        post_render=_post_render_options(args),
    )


def cmd_template(args: argparse.Namespace) -> int:
    from helm_core.action import template as template_action
    from helm_core.chart import loader

    if len(args.args) == 1:
        name, chart_path = args.release_name or template_action.DEFAULT_RELEASE_NAME, args.args[0]
    elif len(args.args) == 2:
        name, chart_path = args.args
    else:
        raise HelmError("template takes [NAME] CHART")
    chart = loader.load(chart_path)
    options = _template_options(args, name, chart)
    result = template_action.run(chart, _values(args), options, log=_lua_log)
    for line in result.info:
        print(f"info: {line}", file=sys.stderr)
    text = template_action.output_text(result, options)
    if args.output_dir:
        _write_output_dir(Path(args.output_dir), text)
    else:
        _write(text)
    return 0


def _write(text: str) -> None:
    """Print rendered text; bytes of binary chart files pass through unchanged (surrogateescape)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (tests capture this way)
        sys.stdout.write(text)
        return
    buffer.write(text.encode("utf-8", "surrogateescape"))
    buffer.flush()


def _write_output_dir(root: Path, text: str) -> None:
    """``--output-dir``: one file per source template, documents appended in order."""
    written: set[Path] = set()
    for block in text.split("---\n# Source: ")[1:]:
        source, _, content = block.partition("\n")
        target = (root / source).resolve()
        if root.resolve() not in target.parents:
            raise HelmError(f"refusing to write {source} outside {root}")
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = "a" if target in written else "w"
        with target.open(mode, encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(f"---\n# Source: {source}\n{content}")
        if target not in written:
            print(f"wrote {target}")
        written.add(target)


def cmd_lint(args: argparse.Namespace) -> int:
    from helm_core.action import template as template_action
    from helm_core.chart import loader, prepare

    failures = 0
    for chart_path in args.charts:
        print(f"==> Linting {chart_path}")
        try:
            chart = loader.load(chart_path)
            if chart.metadata.is_library:
                prepare.prepare_chart(chart, _values(args), allow_library=True)
            else:
                options = template_action.TemplateOptions(strict=args.strict, namespace=args.namespace,
                                                          lua=_lua_options(args, chart))
                template_action.run(chart, _values(args), options, log=_lua_log)
        except HelmError as exc:
            print(f"[ERROR] {exc}")
            failures += 1
            continue
        print()
    print(f"{len(args.charts)} chart(s) linted, {failures} chart(s) failed")
    return 1 if failures else 0


def cmd_show(args: argparse.Namespace) -> int:
    from helm_core.chart import loader, prepare
    from helm_core.golib import goyaml

    chart = loader.load(args.chart)
    if args.what == "chart":
        chart_yaml = next((f for f in _raw_files(args.chart) if f[0] == "Chart.yaml"), None)
        _write(chart_yaml[1].decode("utf-8", "surrogateescape") if chart_yaml else "")
    elif args.what == "values":
        if args.computed:
            prepared = prepare.prepare_chart(chart, _values(args), allow_library=True)
            _write(goyaml.dump(prepared.values))
        else:
            _write(chart.raw_values.decode("utf-8", "surrogateescape"))
    elif args.what == "readme":
        readme = next((f for f in chart.files if f.name.lower() == "readme.md"), None)
        _write(readme.data.decode("utf-8", "surrogateescape") if readme else "")
    return 0


def _raw_files(chart_path: str) -> list[tuple[str, bytes]]:
    p = Path(chart_path)
    if p.is_dir():
        return [("Chart.yaml", (p / "Chart.yaml").read_bytes())]
    from helm_core.chart import archive
    return archive.read_archive(p.read_bytes(), source=chart_path)


def _add_template(sub: Any) -> None:
    t = sub.add_parser("template", help="render chart templates locally")
    t.add_argument("args", nargs="+", metavar="[NAME] CHART")
    t.add_argument("--release-name", help="release name when NAME is not given")
    t.add_argument("-n", "--namespace", default=os.environ.get("HELM_NAMESPACE", "default"))
    t.add_argument("--kube-version", help="Kubernetes version for .Capabilities (e.g. 1.30.0)")
    t.add_argument("-a", "--api-versions", action="append", default=[], help="extra API versions for .Capabilities")
    t.add_argument("--include-crds", action="store_true", help="include the crds/ files in the output")
    t.add_argument("--skip-tests", action="store_true", help="leave test hooks out")
    t.add_argument("--no-hooks", action="store_true", help="leave hooks out")
    t.add_argument("-s", "--show-only", action="append", default=[], metavar="PATH", help="only show these templates")
    t.add_argument("--output-dir", help="write files into this folder instead of stdout")
    t.add_argument("--strict", action="store_true", help="fail on missing values")
    t.add_argument("--is-upgrade", action="store_true", help="set .Release.IsUpgrade")
    _add_post_render_flag(t)
    _add_values_flags(t)
    _add_lua_flags(t)
    _add_limit_flags(t)
    t.set_defaults(func=cmd_template)


def _add_lint(sub: Any) -> None:
    lint = sub.add_parser("lint", help="check charts for problems")
    lint.add_argument("charts", nargs="+")
    lint.add_argument("--strict", action="store_true")
    lint.add_argument("-n", "--namespace", default="default")
    _add_values_flags(lint)
    _add_lua_flags(lint)
    _add_limit_flags(lint)
    lint.set_defaults(func=cmd_lint)


def _add_show(sub: Any) -> None:
    show = sub.add_parser("show", help="show information about a chart")
    show.add_argument("what", choices=["chart", "values", "readme"])
    show.add_argument("chart")
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


class _ArgumentParser(argparse.ArgumentParser):
    """Every parser and subparser of the CLI formats help with :class:`_HelpFormatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


#: Commands defined in this module, in help order.
LOCAL_COMMANDS = {"template": _add_template, "lint": _add_lint, "show": _add_show}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone when it is one of LOCAL_COMMANDS.

    Building all ~20 subparsers is a visible part of a small chart's `template` run
    (bench/deferred.py);
    a run of one local command needs only its own (`--help` and unknown names get all).
    """
    parser = _ArgumentParser(prog="helm-core", description="A Helm 3 library in Python: render, lint and show charts.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, add in LOCAL_COMMANDS.items():
        if command is None or command == name:
            add(sub)
    if command not in LOCAL_COMMANDS:
        from helm_core.cli import release as cli_release
        from helm_core.cli import sources as cli_sources
        cli_sources.register(sub)
        cli_release.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv and argv[0] in LOCAL_COMMANDS else None)
    args = parser.parse_args(argv)
    # A CLI run is short and builds large, long-lived trees (parsed templates, values):
    # the cyclic collector would rescan them again and again for nothing (bench/deferred.py
    # measures a cold render with it on and off). Reference counting still frees everything that is not cyclic.
    collecting = gc.isenabled()
    gc.disable()
    # Parse trees and schema verdicts outlive this short process (helm_core.support.memo).
    previous_memo = memo.active()
    memo.use(memo.DiskMemo(cachedirs.default_root(os.environ) / cachedirs.MEMO_FOLDER))
    try:
        return int(_with_deep_stack(lambda: _limited(args)))
    except HelmError as exc:
        print(f"Error: {_one_line(str(exc))}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"Error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except MemoryError:
        from helm_core.cli import limits as cli_limits
        print(f"Error: {cli_limits.memory_error_message(cli_limits.from_args(args))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        memo.use(previous_memo)
        if collecting:
            gc.enable()


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
    flushed first; helm_core registers no exit handlers that would be skipped.
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (`| head`): as Python would exit
        code = code or 120
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    os._exit(code)


def _one_line(message: str) -> str:
    """Keep multi-line reports (schema violations) readable but clearly one error."""
    return message.strip("\n")  # helm keeps a trailing space (e.g. an empty dependency name)

