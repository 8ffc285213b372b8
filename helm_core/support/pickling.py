"""pickle's functions and classes, from CPython's C module without ``pickle.py``.

``pickle.dumps``, ``loads``, ``Pickler`` and their errors are ``_pickle``'s own; importing
``pickle.py`` on top defines its Python twins and compiles a pattern, ~1.5 ms of every run
that reads or writes the disk memo (bench/deferred.py). As ``support/hashes.py`` does for
digests, helm_core takes them from the C module.
"""
from __future__ import annotations

import copyreg
import io
from _pickle import Pickler, PicklingError, UnpicklingError, dumps, loads
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``pickle.HIGHEST_PROTOCOL`` on every Python helm_core runs on (protocol 5 since 3.8); the
#: memo's keys hold the Python version, so another one never reads these pickles.
HIGHEST_PROTOCOL = 5

__all__ = ["HIGHEST_PROTOCOL", "Pickler", "PicklingError", "UnpicklingError", "dumps", "dumps_reducing", "loads"]


def dumps_reducing(obj: Any, reducers: dict[type, Callable[[Any], Any]]) -> bytes:
    """``obj`` pickled (:data:`HIGHEST_PROTOCOL`) with the objects of each type in ``reducers``
    reduced by its function (as ``copyreg``'s reducers are): the C pickler calls a Python hook
    only for those types."""
    out = io.BytesIO()
    pickler = Pickler(out, protocol=HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, **reducers}
    pickler.dump(obj)
    return out.getvalue()
