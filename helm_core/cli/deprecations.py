"""helm lint's deprecated-API rule: is an object's type deprecated at a Kubernetes version, and
helm's warning for it (helm's ``validateNoDeprecations``, apiserver's ``deprecation.IsDeprecated``
and ``WarningMessage``), over the table :mod:`helm_core.cli.api_lifecycle`.

Only types client-go's scheme registers are known (others, custom resources included, are
never deprecated); kinds and versions match exactly, as the scheme looks them up.
"""
from __future__ import annotations

from helm_core.cli.api_lifecycle import LIFECYCLE


def group_version_kind(api_version: str, kind: str) -> tuple[str, str, str]:
    """``schema.FromAPIVersionAndKind``: ``v1`` is the core group, ``group/version`` splits at
    its one slash; an apiVersion with more slashes keeps only the kind (a type nobody registers)."""
    slashes = api_version.count("/")
    if api_version in ("", "/") or slashes > 1:
        return "", "", kind
    if slashes == 0:
        return "", api_version, kind
    group, version = api_version.split("/")
    return group, version, kind


def _api_version(group: str, version: str) -> str:
    """``GroupVersion.String()``."""
    return f"{group}/{version}" if group else version


def warning(api_version: str, kind: str, kube_version: tuple[int, int]) -> str | None:
    """helm's warning when ``api_version``/``kind`` is deprecated at ``kube_version`` (major,
    minor), None otherwise. Deprecated means: the type names a deprecation release and it is not
    later than ``kube_version`` (any release when that is ``(0, 0)``, as apiserver reads it)."""
    if not api_version or not kind:
        return None
    gvk = group_version_kind(api_version, kind)
    lifecycle = LIFECYCLE.get(gvk)
    if lifecycle is None:
        return None
    _introduced, deprecated, removed, replacement = lifecycle
    if deprecated == (0, 0) or (kube_version != (0, 0) and deprecated > kube_version):
        return None
    text = f"{_api_version(*gvk[:2])} {kind} is deprecated in v{deprecated[0]}.{deprecated[1]}+"
    if removed != (0, 0):
        text += f", unavailable in v{removed[0]}.{removed[1]}+"
    if replacement is not None:
        text += f"; use {_api_version(replacement[0], replacement[1])} {replacement[2]}"
    return text
