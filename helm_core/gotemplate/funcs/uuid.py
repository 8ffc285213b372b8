"""``uuidv4``: a random (version 4) UUID in canonical lower-case form, as google/uuid prints it."""
from __future__ import annotations

from helm_core.golib.gotypes import signature


@signature()
def uuidv4() -> str:
    """``uuidv4``."""
    import uuid as _uuid  # here: it imports platform, start-up time (bench/deferred.py)

    return str(_uuid.uuid4())


FUNCS = {"uuidv4": uuidv4}
