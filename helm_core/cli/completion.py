"""``helm-core completion bash|zsh``: a shell completion script made from the parser itself.

The script holds one table, command path -> the words that may follow it (sub-commands,
positional choices such as ``get values``, and flags), so it cannot drift from the CLI.
Words that match nothing fall back to file names (charts are folders and archives).
"""
from __future__ import annotations

import argparse

from helm_core.cli import settings as settings_mod

_FUNCTION = r"""# helm-core completion for bash: source it, e.g. `source <(helm-core completion bash)`.
declare -A _helm_core_words=(
%(table)s
)

_helm_core() {
    local cur="${COMP_WORDS[COMP_CWORD]}" path="helm-core" word i
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        [[ "$word" == -* ]] && continue
        if [[ -n "${_helm_core_words["$path $word"]+set}" ]]; then
            path="$path $word"
        fi
    done
    COMPREPLY=($(compgen -W "${_helm_core_words["$path"]} %(globals)s" -- "$cur"))
    if [[ ${#COMPREPLY[@]} -eq 0 ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o default -F _helm_core helm-core
"""


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def table(parser: argparse.ArgumentParser, path: str = "") -> dict[str, list[str]]:
    """Command path -> words that may follow it."""
    words: list[str] = []
    out: dict[str, list[str]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                words.append(name)
                out.update(table(sub, f"{path} {name}".strip()))
        elif action.option_strings:
            if action.dest.startswith("_global_") or action.dest == "help":
                continue
            words.extend(action.option_strings)
        elif action.choices:
            for choice in action.choices:
                words.append(str(choice))
                out[f"{path} {choice}".strip()] = [w for w in words if w.startswith("-")]
    out[path] = words
    # flags learnt after a positional choice belong to it too
    for key in list(out):
        if key.startswith(path) and key != path and not _subparsers(parser):
            out[key] = sorted(set(out[key]) | {w for w in words if w.startswith("-")})
    return out


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    # bash refuses an empty key: paths start with the program's name
    rows = "\n".join(f'    ["{f"helm-core {path}".strip()}"]="{" ".join(sorted(set(words)))}"'
                     for path, words in sorted(table(parser).items()))
    globals_ = " ".join(sorted([*settings_mod.VALUE_FLAGS, *settings_mod.BOOL_FLAGS]))
    text = _FUNCTION % {"table": rows, "globals": globals_}
    if shell == "zsh":
        return "autoload -U +X bashcompinit && bashcompinit\n" + text
    return text
