"""Release names as Helm accepts them (``ValidateReleaseName``).

Apart from :mod:`helm_core.storage.release` because ``helm-core template`` checks names too,
and must not import what release records need (python-ulid imports ``inspect``).
"""
from __future__ import annotations

import re

from helm_core.errors import ReleaseNameError
from helm_core.golib import gostrconv

#: The release name ``helm template`` renders with when none is given.
DEFAULT_TEMPLATE_NAME = "release-name"
RELEASE_NAME_MAX = 53
"""Helm's limit on release names (room for suffixes in generated object names)."""
_RELEASE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def check_name(name: str) -> None:
    """Refuse names Helm refuses (DNS-1123 subdomain, at most ``RELEASE_NAME_MAX`` chars), in
    Helm's words (``ValidateReleaseName`` as install and template wrap it)."""
    if not name:
        raise ReleaseNameError('release name "": no name provided')
    if len(name) > RELEASE_NAME_MAX or not _RELEASE_NAME.match(name):
        raise ReleaseNameError(f"release name {gostrconv.quote(name)}: invalid release name, must match regex "
                               f"{_RELEASE_NAME.pattern} and the length must not be longer than {RELEASE_NAME_MAX}")
