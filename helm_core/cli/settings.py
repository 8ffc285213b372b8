"""Helm's global flags and environment (``helm env``): read once per run, anywhere on the line.

Rules (helm's ``pkg/cli.EnvSettings`` and ``pkg/helmpath``):
- Global flags may stand before or after the command (``helm-core -n ns list``):
  ``-n/--namespace``, ``--kube-context``, ``--kubeconfig``, ``--debug``, ``--registry-config``,
  ``--repository-config``, ``--repository-cache``. They are taken out of the command line
  before the command's own flags are parsed (up to a ``--``).
- Environment: ``HELM_NAMESPACE``, ``HELM_KUBECONTEXT``, ``KUBECONFIG``, ``HELM_DEBUG``,
  ``HELM_REGISTRY_CONFIG``, ``HELM_REPOSITORY_CONFIG``, ``HELM_REPOSITORY_CACHE``; a flag wins.
- Paths default as helm's on Linux: ``$HELM_CONFIG_HOME`` else ``$XDG_CONFIG_HOME/helm`` else
  ``~/.config/helm`` (likewise ``HELM_CACHE_HOME``/``XDG_CACHE_HOME``/``~/.cache``).
- The namespace is ``-n``, else ``$HELM_NAMESPACE``, else the namespace of the kubeconfig's
  context (``--kube-context`` or its current context), else ``default``.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from helm_core.errors import HelmError
from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

#: Global flags that take a value -> the attribute they set.
VALUE_FLAGS = {"-n": "namespace", "--namespace": "namespace", "--kube-context": "kube_context",
               "--kubeconfig": "kubeconfig", "--registry-config": "registry_config",
               "--repository-config": "repository_config", "--repository-cache": "repository_cache"}
BOOL_FLAGS = {"--debug": "debug"}


@record(frozen=True)
class Settings:
    """What the global flags and the environment say (paths resolved, namespace not yet)."""

    namespace_flag: str = ""
    kube_context: str = ""
    kubeconfig: str = ""
    kubeconfig_flag: str = ""
    """``--kubeconfig`` alone (what ``helm env`` shows as KUBECONFIG; the variable is not)."""
    debug: bool = False
    registry_config: str = ""
    repository_config: str = ""
    repository_cache: str = ""


def extract(argv: Sequence[str]) -> tuple[list[str], dict[str, object]]:
    """Take the global flags out of ``argv``: (the rest, {attribute: value})."""
    rest: list[str] = []
    found: dict[str, object] = {}
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        if item == "--":
            rest.extend(items[i:])
            break
        name, eq, value = item.partition("=")
        if name in BOOL_FLAGS:
            found[BOOL_FLAGS[name]] = (value.lower() in ("1", "t", "true")) if eq else True
        elif name in VALUE_FLAGS and eq:
            found[VALUE_FLAGS[name]] = value
        elif item in VALUE_FLAGS:
            if i + 1 >= len(items):
                raise HelmError(f"flag needs an argument: {_flag_shown(item)}")
            found[VALUE_FLAGS[item]] = items[i + 1]
            i += 1
        elif item.startswith("-n") and not item.startswith("--") and len(item) > 2:
            found["namespace"] = item[2:].removeprefix("=")  # -nfoo, as pflag takes it
        else:
            rest.append(item)
        i += 1
    return rest, found


def _flag_shown(flag: str) -> str:
    """pflag's spelling of a flag in messages (``'n' in -n``, ``--kube-context``)."""
    return "'n' in -n" if flag == "-n" else flag


# Paths are text here: every run reads the settings, and pathlib is an import a run that
# prints from the memo does not otherwise make.

def _home(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def _helm_folder(env: Mapping[str, str], helm_var: str, xdg_var: str, *default: str) -> str:
    """``$HELM_*_HOME``, else ``$XDG_*_HOME/helm``, else ``~/<default>/helm``."""
    if env.get(helm_var):
        return env[helm_var]
    return os.path.join(env.get(xdg_var) or os.path.join(_home(env), *default), "helm")


def config_home(env: Mapping[str, str]) -> Path:
    from pathlib import Path
    return Path(_helm_folder(env, "HELM_CONFIG_HOME", "XDG_CONFIG_HOME", ".config"))


def cache_home(env: Mapping[str, str]) -> Path:
    from pathlib import Path
    return Path(_helm_folder(env, "HELM_CACHE_HOME", "XDG_CACHE_HOME", ".cache"))


def data_home(env: Mapping[str, str]) -> Path:
    from pathlib import Path
    return Path(_helm_folder(env, "HELM_DATA_HOME", "XDG_DATA_HOME", ".local", "share"))


def max_history(env: Mapping[str, str], default: int) -> int:
    """``upgrade --history-max``'s default: ``$HELM_MAX_HISTORY`` when it is an integer, else
    ``default`` (helm's ``envIntOr``)."""
    try:
        return int(env.get("HELM_MAX_HISTORY", ""))
    except ValueError:
        return default


def load(found: Mapping[str, object], env: Mapping[str, str]) -> Settings:
    """Settings from extracted flags over the environment over helm's defaults."""
    def pick(attr: str, var: str, default: str = "") -> str:
        value = found.get(attr)
        return str(value) if value is not None else (env.get(var) or default)
    debug = found.get("debug")
    config = _helm_folder(env, "HELM_CONFIG_HOME", "XDG_CONFIG_HOME", ".config")
    return Settings(
        namespace_flag=pick("namespace", "HELM_NAMESPACE"),
        kube_context=pick("kube_context", "HELM_KUBECONTEXT"),
        kubeconfig=pick("kubeconfig", "KUBECONFIG"),
        kubeconfig_flag=str(found.get("kubeconfig") or ""),
        debug=bool(debug) if debug is not None else env.get("HELM_DEBUG", "").lower() in ("1", "t", "true"),
        registry_config=pick("registry_config", "HELM_REGISTRY_CONFIG",
                             os.path.join(config, "registry", "config.json")),
        repository_config=pick("repository_config", "HELM_REPOSITORY_CONFIG",
                               os.path.join(config, "repositories.yaml")),
        repository_cache=pick("repository_cache", "HELM_REPOSITORY_CACHE",
                              os.path.join(_helm_folder(env, "HELM_CACHE_HOME", "XDG_CACHE_HOME", ".cache"),
                                           "repository")),
    )


def namespace(settings: Settings, env: Mapping[str, str]) -> str:
    """The request's namespace (module rules)."""
    if settings.namespace_flag:
        return settings.namespace_flag
    return kubeconfig_namespace(settings.kubeconfig, settings.kube_context, env) or "default"


def kubeconfig_files(kubeconfig: str, env: Mapping[str, str]) -> list[str]:
    if kubeconfig:
        return [p for p in kubeconfig.split(os.pathsep) if p]
    return [os.path.join(_home(env), ".kube", "config")]


def kubeconfig_namespace(kubeconfig: str, context: str, env: Mapping[str, str]) -> str:
    """The namespace of ``context`` (else the current context) in the merged kubeconfig files:
    the first file to set current-context or define a context wins, as kubectl merges them."""
    texts: list[bytes] = []
    for path in kubeconfig_files(kubeconfig, env):
        try:
            with open(path, "rb") as config:
                texts.append(config.read())
        except OSError:
            continue  # unreadable kubeconfigs are reported when a command connects
    if not any(_may_name_namespace(text) for text in texts):
        return ""  # every run reads the kubeconfig: most name no namespace, and need no YAML
    from helm_core.golib import goyaml  # memoised per content

    current = ""
    contexts: dict[str, object] = {}
    for text in texts:
        try:
            doc = goyaml.decode(text)
        except ValueError:
            continue
        if not isinstance(doc, dict):
            continue
        current = current or str(doc.get("current-context") or "")
        for item in doc.get("contexts") or []:
            if isinstance(item, dict) and item.get("name") and item["name"] not in contexts:
                contexts[str(item["name"])] = item.get("context")
    chosen = contexts.get(context or current)
    if isinstance(chosen, dict):
        return str(chosen.get("namespace") or "")
    return ""


def _may_name_namespace(text: bytes) -> bool:
    """False when no reading of ``text`` can set a namespace: the key is not spelled out and
    there is no escape that could spell it (YAML and JSON quoted keys)."""
    return b"namespace" in text or b"\\" in text
