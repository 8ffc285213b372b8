"""``uuidv4``: a random (version 4) UUID in canonical lower-case form, as google/uuid prints it."""
from __future__ import annotations

import uuid as _uuid

from helm_core.gotemplate.gotypes import signature


@signature()
def uuidv4() -> str:
    """``uuidv4``."""
    return str(_uuid.uuid4())


FUNCS = {"uuidv4": uuidv4}
