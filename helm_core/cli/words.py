"""Helm's words for a command line it cannot take (cobra and helm's ``cmd/helm/require``).

argparse's own messages are translated here, so a script that reads helm's errors reads ours:
- a wrong number of arguments: ``"helm-core get values" requires 1 argument`` followed by a
  blank line and ``Usage:  helm-core get values RELEASE_NAME [flags]``;
- an unknown command: ``unknown command "foo" for "helm-core"`` and ``Run 'helm-core --help'
  for usage.``; an unknown flag: ``unknown flag: --bogus`` (``unknown shorthand flag: 'x' in -x``).
"""
from __future__ import annotations

import re

PROG = "helm-core"

#: Command path -> (rule, count, use line after the command name), helm's ``Args`` and ``Use``.
ARITY: dict[str, tuple[str, int, str]] = {
    "template": ("min", 1, "[NAME] [CHART]"),
    "install": ("min", 1, "[NAME] [CHART]"),
    "upgrade": ("exact", 2, "[RELEASE] [CHART]"),
    "rollback": ("min", 1, "<RELEASE> [REVISION]"),
    "uninstall": ("min", 1, "RELEASE_NAME [...]"),
    "status": ("exact", 1, "RELEASE_NAME"),
    "history": ("exact", 1, "RELEASE_NAME"),
    "test": ("exact", 1, "[RELEASE]"),
    "list": ("none", 0, ""),
    "lint": ("min", 0, "PATH"),
    "pull": ("min", 1, "[chart URL | repo/chartname] [...]"),
    "push": ("min", 2, "[chart] [remote]"),
    "package": ("min", 0, "[CHART_PATH] [...]"),
    "create": ("exact", 1, "NAME"),
    "version": ("none", 0, ""),
    "completion bash": ("none", 0, ""),
    "get all": ("exact", 1, "RELEASE_NAME"),
    "get hooks": ("exact", 1, "RELEASE_NAME"),
    "get manifest": ("exact", 1, "RELEASE_NAME"),
    "get metadata": ("exact", 1, "RELEASE_NAME"),
    "get notes": ("exact", 1, "RELEASE_NAME"),
    "get values": ("exact", 1, "RELEASE_NAME"),
    "show all": ("exact", 1, "[CHART]"),
    "show chart": ("exact", 1, "[CHART]"),
    "show values": ("exact", 1, "[CHART]"),
    "show readme": ("exact", 1, "[CHART]"),
    "show crds": ("exact", 1, "[CHART]"),
    "repo add": ("exact", 2, "[NAME] [URL]"),
    "repo list": ("none", 0, ""),
    "repo remove": ("min", 1, "[REPO1 [REPO2 ...]]"),
    "repo update": ("min", 0, "[REPO1 [REPO2 ...]]"),
    "repo index": ("exact", 1, "[DIR]"),
    "search repo": ("max", 1, "[keyword]"),
    "registry login": ("min", 1, "[host]"),
    "registry logout": ("min", 1, "[host]"),
    "dependency list": ("max", 1, "CHART"),
    "dependency build": ("max", 1, "CHART"),
    "dependency update": ("max", 1, "CHART"),
}
ALIASES = {"ls": "list", "hist": "history", "delete": "uninstall", "del": "uninstall",
           "un": "uninstall", "dep": "dependency", "inspect": "show"}


def command_path(prog: str) -> str:
    """``helm-core get values`` -> ``get values`` (aliases spelled out)."""
    words = prog.split()[1:]
    return " ".join(ALIASES.get(w, w) for w in words)


def _plural(n: int) -> str:
    return "argument" if n == 1 else "arguments"


def arity_message(path: str) -> str | None:
    """Helm's message for a wrong number of arguments to ``path``, or None when unknown."""
    if path not in ARITY:
        return None
    rule, n, use = ARITY[path]
    shown = f"{PROG} {path}"
    what = {"exact": f"requires {n} {_plural(n)}", "min": f"requires at least {n} {_plural(n)}",
            "max": f"accepts at most {n} {_plural(n)}", "none": "accepts no arguments"}[rule]
    use_line = f"{shown} {use} [flags]" if use else f"{shown} [flags]"
    return f'"{shown}" {what}\n\nUsage:  {use_line}'


def unknown_flag(flag: str) -> str:
    name = flag.split("=", 1)[0]
    if name.startswith("--"):
        return f"unknown flag: {name}"
    return f"unknown shorthand flag: {name[1:2]!r} in {flag}"


_INVALID_CHOICE = re.compile(r"argument (\S+): invalid choice: '([^']*)'(?: \(choose from (.*)\))?")


def translate(prog: str, message: str) -> str:
    """argparse's error ``message`` raised by the parser of ``prog``, in helm's words."""
    path = command_path(prog)
    m = _INVALID_CHOICE.match(message)
    if m and m.group(1).startswith("-"):  # a flag's value (pflag's words)
        flag = m.group(1).split("/")[-1]
        return f'invalid argument "{m.group(2)}" for "{flag}" flag: must be one of {m.group(3) or "its choices"}'
    if m:
        parent = f"{PROG} {path}".strip()
        return f'unknown command "{m.group(2)}" for "{parent}"\nRun \'{parent} --help\' for usage.'
    if message.startswith("the following arguments are required"):
        if not path:
            return f'a command is required\nRun \'{PROG} --help\' for usage.'
        return arity_message(path) or message
    m = re.match(r"argument \S+: (invalid argument .*)", message, re.DOTALL)
    if m:  # a flag's own check, already in pflag's words
        return m.group(1)
    m = re.match(r"argument (\S+?)(?:/\S+)?: expected one argument", message)
    if m:
        return f"flag needs an argument: {m.group(1)}"
    return message


def unrecognized(path: str, extra: list[str]) -> str:
    """Arguments left over after parsing: an unknown flag, else too many arguments."""
    flags = [e for e in extra if e.startswith("-") and e != "-"]
    if flags:
        return unknown_flag(flags[0])
    return arity_message(path) or f"unexpected arguments: {', '.join(extra)}"
