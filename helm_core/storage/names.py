"""Release names as Helm accepts them (``ValidateReleaseName``).

Apart from :mod:`helm_core.storage.release` because ``helm-core template`` checks names too,
and must not import what release records need (python-ulid imports ``inspect``). Every
``template`` run checks its name: the check is string methods, not a regular expression compiled
by each process, and the Go quoting of a refused name is imported only to refuse it.
"""
from __future__ import annotations

from helm_core.errors import ReleaseNameError

#: The release name ``helm template`` renders with when none is given.
DEFAULT_TEMPLATE_NAME = "release-name"
RELEASE_NAME_MAX = 53
"""Helm's limit on release names (room for suffixes in generated object names)."""
#: The rule Helm states as this regular expression (a DNS-1123 subdomain), matched by
#: :func:`_is_dns1123_subdomain`.
RELEASE_NAME_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_LABEL_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def _is_dns1123_subdomain(name: str) -> bool:
    """Whether all of ``name`` matches :data:`RELEASE_NAME_PATTERN` (as Go matches it: ``$`` is
    the end of the text): dot-separated labels of lower-case letters, digits and dashes, none
    empty, none starting or ending with a dash."""
    return all(label and label[0] != "-" and label[-1] != "-" and _LABEL_CHARACTERS.issuperset(label)
               for label in name.split("."))


def check_name(name: str) -> None:
    """Refuse names Helm refuses (DNS-1123 subdomain, at most ``RELEASE_NAME_MAX`` chars), in
    Helm's words (``ValidateReleaseName`` as install and template wrap it)."""
    if not name:
        raise ReleaseNameError('release name "": no name provided')
    if len(name) > RELEASE_NAME_MAX or not _is_dns1123_subdomain(name):
        from helm_core.golib import gostrconv

        raise ReleaseNameError(f"release name {gostrconv.quote(name)}: invalid release name, must match regex "
                               f"{RELEASE_NAME_PATTERN} and the length must not be longer than {RELEASE_NAME_MAX}")
