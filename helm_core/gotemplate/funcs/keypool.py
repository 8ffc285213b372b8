"""New RSA keys for the key-making functions (``genCA``, ``genSignedCert``, ``genSelfSignedCert``,
``genPrivateKey``), generated ahead on threads of their own when a run knows it will need them.

A chart that makes TLS certificates spends most of its render waiting for primes (a 2048-bit
key: 20 to 150 ms). OpenSSL searches without holding the GIL, so a run that knows the keys it
will ask for starts them while it loads the chart, coalesces the values and renders the other
templates, each key on a thread of its own up to :data:`MAX_THREADS`: the CLI's memo kept how
many an identical render made (:mod:`helm_core.cli.rendered`), and a process that renders a
chart again knows how many its last render of that template set made (``engine/render.py``).
Every key is new, made by this process and handed out once; keys never asked for wait for a
later render of this process, or die with it. Without :func:`prefetch`, :func:`new_rsa`
generates the key when asked, as before.
"""
from __future__ import annotations

import threading
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Threads generating ahead, at most: one per key up to this many (keys past it wait their turn).
MAX_THREADS = 2
#: Keys generated ahead, at most, and the sizes that may be (Sprig's: 2048 and 4096 bits): the
#: counts come from a memo file, and a damaged one must not start endless work.
MAX_AHEAD = 16
SIZES = frozenset({2048, 4096})

_cond = threading.Condition()
#: Keys generated ahead and not handed out yet, by size in bits.
_ready: dict[int, list[Any]] = {}
#: Keys still being generated ahead, by size in bits.
_pending: dict[int, int] = {}
#: RSA keys handed out by this process, by size in bits (what a later run may prefetch).
_made: dict[int, int] = {}
#: How many of them were generated ahead.
_ahead = 0


def _generate(bits: int) -> Any:
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(65537, bits)


def new_rsa(bits: int) -> Any:
    """A new RSA private key of ``bits`` bits: one generated ahead if there is (waiting for one
    under way), else generated now."""
    global _ahead
    with _cond:
        _made[bits] = _made.get(bits, 0) + 1
        while not _ready.get(bits) and _pending.get(bits):
            _cond.wait()
        if _ready.get(bits):
            _ahead += 1
            return _ready[bits].pop()
    return _generate(bits)


def made() -> dict[int, int]:
    """How many RSA keys this process handed out, by size (compare before and after a render)."""
    with _cond:
        return dict(_made)


def made_ahead() -> int:
    """How many of the keys this process handed out were generated ahead."""
    with _cond:
        return _ahead


def made_since(before: Mapping[int, int]) -> dict[int, int]:
    """How many RSA keys were handed out since :func:`made` answered ``before``, by size."""
    now = made()
    return {bits: count - before.get(bits, 0) for bits, count in now.items() if count > before.get(bits, 0)}


def prefetch(wanted: Mapping[int, int]) -> None:
    """Have ``wanted`` keys (count by size in bits) ready or under way: those missing are
    started on daemon threads."""
    with _cond:
        order = [bits for bits, count in sorted(wanted.items()) if bits in SIZES
                 for _ in range(max(count, 0) - len(_ready.get(bits, ())) - _pending.get(bits, 0))]
        order = order[:MAX_AHEAD]
        for bits in order:
            _pending[bits] = _pending.get(bits, 0) + 1
    if not order:
        return
    lanes = [order[i::MAX_THREADS] for i in range(min(MAX_THREADS, len(order)))]
    for lane in lanes:
        try:
            threading.Thread(target=_fill, args=(lane,), name="helm-rsa-prefetch", daemon=True).start()
        except RuntimeError:  # no room for another thread (a tight address-space limit)
            _give_up(lane)


def _give_up(lane: list[int]) -> None:
    """The keys of ``lane`` will not come: whoever waits for them generates its own."""
    with _cond:
        for bits in lane:
            _pending[bits] -= 1
        _cond.notify_all()


def _fill(lane: list[int]) -> None:
    for at, bits in enumerate(lane):
        try:
            key = _generate(bits)
        except BaseException:  # noqa: BLE001 - the caller generates its own instead
            _give_up(lane[at:])
            return
        with _cond:
            _pending[bits] -= 1
            _ready.setdefault(bits, []).append(key)
            _cond.notify_all()
