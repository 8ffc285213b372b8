"""A release's custom labels (helm's ``install/upgrade --labels``, ``list --selector``): where
each storage keeps them, which names they may not take, how an upgrade changes them.

Helm (3.13+) keeps custom labels as labels of the release's storage record, beside its system
labels, and reads them back as the record's labels minus those. helm-core does the same in
both of its storages, so ``list --selector`` filters on the same labels whichever keeps the
release:

- helm-core's storage (``storage/secrets.py``): labels of each version Secret (type
  ``helm.sh/release-version``), beside its own ``release``, ``version``, ``status`` and ``owner``;
- Helm's format (``storage/helmsecrets.py``): labels of Helm's release Secret, as stock helm
  writes them (``helm list --selector`` sees them too), beside Helm's system labels;
- adopting a Helm release copies each revision with its labels into helm-core's storage.

Every version carries its own labels (``ReleaseVersion.labels``): an install sets them, an
upgrade merges the new ones over the current version's (a value ``null`` removes a label:
:func:`merged`), a rollback copies those of the version it returns to (helm's rules).

Reserved names (:data:`RESERVED`): Helm's system labels, helm-core's own ``release`` and the
adopted mark. Helm refuses its own with the message :func:`check` words; helm-core refuses
its two as well, since a release may move between the storages (``--storage``, adoption) and
such a label would be overwritten by, or be taken for, the storage's own.
"""
from __future__ import annotations

from collections.abc import Mapping

from helm_core.errors import HelmError
from helm_core.storage import helmsecrets, secrets

RESERVED = (*helmsecrets.SYSTEM_LABELS, secrets.RELEASE_LABEL, helmsecrets.ADOPTED_LABEL)
"""Label names no custom label may take (module rules), Helm's first and in Helm's order."""
REMOVE = "null"
"""An upgrade's label value that removes the label (helm's ``mergeCustomLabels``)."""


def check(labels: Mapping[str, str]) -> None:
    """Refuse custom labels naming a reserved label, in helm's words (``%+v`` of the list)."""
    if any(key in RESERVED for key in labels):
        raise HelmError("user supplied labels contains system reserved label name. "
                        f"System labels: [{' '.join(RESERVED)}]")


def merged(current: Mapping[str, str], desired: Mapping[str, str]) -> dict[str, str]:
    """An upgrade's labels: ``desired`` over ``current``, those valued ``null`` dropped."""
    return {key: value for key, value in {**current, **desired}.items() if value != REMOVE}
