"""``python -m e2e.cluster up|down|status|build``: the local control plane from a shell.

Output contract (scripts rely on it): progress goes to stderr; ``build`` prints the bin folder
as its last stdout line, ``up`` the kubeconfig path. Exit status 0 on success, 1 on failure;
``status`` exits 1 when the cluster is not running.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from e2e.cluster import bootstrap, errors, harness, tools


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m e2e.cluster", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True,
                                     metavar="{up,down,status,build}")
    up = commands.add_parser("up", help="start (or reuse) a cluster in the background")
    up.add_argument("--nodes", type=int, default=bootstrap.NODE_COUNT, help="fake kwok nodes")
    down = commands.add_parser("down", help="stop a cluster and remove its files")
    status = commands.add_parser("status", help="show a cluster's state as JSON")
    for command in (up, down, status):
        command.add_argument("--name", default="default", help="cluster name (default: default)")
    build = commands.add_parser("build", help="build the pinned binaries (idempotent)")
    build.add_argument("--force", action="store_true", help="rebuild even if present")
    supervise = commands.add_parser("_supervise")  # internal: the process `up` starts
    supervise.add_argument("directory", type=Path)
    supervise.add_argument("--bin-dir", type=Path, required=True)
    supervise.add_argument("--nodes", type=int, default=bootstrap.NODE_COUNT)
    return parser


def _err(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "build":
        return tools.main_build(args.force)
    if args.command == "_supervise":
        return harness.supervise(args.directory, args.bin_dir, args.nodes)
    try:
        if args.command == "up":
            if tools.missing_binaries():
                tools.build(out=_err)
            current = harness.status(args.name)
            if not (current and current["running"] and current.get("status") == "ready"):
                _err(f"[cluster] starting {args.name!r} ...")
            kubeconfig = harness.up(args.name, node_count=args.nodes)
            state = harness.status(args.name) or {}
            _err(f"[cluster] {args.name!r} ready at {state.get('server')} "
                 f"(started in {state.get('start_seconds')}s); "
                 f"export KUBECONFIG={kubeconfig}")
            print(kubeconfig, flush=True)
            return 0
        if args.command == "down":
            found = harness.down(args.name)
            _err(f"[cluster] {args.name!r} " + ("stopped and removed" if found else "not running"))
            return 0
        state = harness.status(args.name)
        print(json.dumps(state or {"name": args.name, "running": False}, indent=2))
        return 0 if state and state["running"] and state.get("status") == "ready" else 1
    except errors.HarnessError as exc:
        _err(f"error: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
