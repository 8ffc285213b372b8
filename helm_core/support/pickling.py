"""pickle's functions and classes, from CPython's C module without ``pickle.py``.

``pickle.dumps``, ``loads``, ``Pickler`` and their errors are ``_pickle``'s own; importing
``pickle.py`` on top defines its Python twins and compiles a pattern, ~1.5 ms of every run
that reads or writes the disk memo (bench/deferred.py). As ``support/hashes.py`` does for
digests, helm_core takes them from the C module.
"""
from __future__ import annotations

import copyreg
import io
from _pickle import Pickler, PicklingError, Unpickler, UnpicklingError, dumps, loads
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``pickle.HIGHEST_PROTOCOL`` on every Python helm_core runs on (protocol 5 since 3.8); the
#: memo's keys hold the Python version, so another one never reads these pickles.
HIGHEST_PROTOCOL = 5

__all__ = ["HIGHEST_PROTOCOL", "Pickler", "PicklingError", "UnpicklingError", "dumps", "dumps_reducing", "loads",
           "loads_naming_known"]


def dumps_reducing(obj: Any, reducers: dict[type, Callable[[Any], Any]]) -> bytes:
    """``obj`` pickled (:data:`HIGHEST_PROTOCOL`) with the objects of each type in ``reducers``
    reduced by its function (as ``copyreg``'s reducers are): the C pickler calls a Python hook
    only for those types."""
    out = io.BytesIO()
    pickler = Pickler(out, protocol=HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, **reducers}
    pickler.dump(obj)
    return out.getvalue()


#: The classes and functions pickles named, by module and name, as the unpickler found them.
_FOUND: dict[tuple[str, str], Any] = {}


class _KnownNamesUnpickler(Unpickler):
    def find_class(self, module_name: str, global_name: str, /) -> Any:
        key = (module_name, global_name)
        found = _FOUND.get(key)
        if found is None:
            found = _FOUND[key] = super().find_class(module_name, global_name)
        return found


def loads_naming_known(blob: bytes) -> Any:
    """``loads(blob)`` for one of many pickles that name the same classes and functions (the
    disk memo's parse trees: a pickle per body, each naming a dozen node classes and restore
    functions): each name is found once per process, not once per pickle. The unpickler finds
    a name as an import statement does, ~3,000 instructions each time: a redis run from the
    memo found 2,400 names in 250 pickles."""
    return _KnownNamesUnpickler(io.BytesIO(blob)).load()
