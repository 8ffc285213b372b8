"""RSA keys generated ahead: handed out once each, counted, and generated on the spot when none
was asked for ahead (or generating ahead failed)."""
from __future__ import annotations

import pytest

from helm_core.gotemplate.funcs import crypto, keypool


def _public(key) -> int:
    return key.public_key().public_numbers().n


def test_keys_generated_ahead_are_handed_out_once_each() -> None:
    ahead, made = keypool.made_ahead(), keypool.made()
    keypool.prefetch({2048: 2})
    first, second = keypool.new_rsa(2048), keypool.new_rsa(2048)
    assert keypool.made_ahead() == ahead + 2
    assert first.key_size == second.key_size == 2048 and _public(first) != _public(second)
    assert keypool.made_since(made) == {2048: 2}
    # None left ahead: the next one is generated on the spot, and new too.
    third = keypool.new_rsa(2048)
    assert keypool.made_ahead() == ahead + 2 and _public(third) not in (_public(first), _public(second))
    assert keypool.made_since(made) == {2048: 3}


def test_a_key_of_another_size_is_not_taken_from_those_made_ahead() -> None:
    ahead = keypool.made_ahead()
    keypool.prefetch({2048: 1})
    assert keypool.new_rsa(1024).key_size == 1024 and keypool.made_ahead() == ahead
    assert keypool.new_rsa(2048).key_size == 2048 and keypool.made_ahead() == ahead + 1


def test_a_failure_ahead_leaves_the_key_to_be_generated_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    real = keypool._generate
    calls: list[int] = []

    def failing_on_threads(bits: int):
        calls.append(bits)
        if len(calls) == 1:
            raise MemoryError("no room")
        return real(bits)

    monkeypatch.setattr(keypool, "_generate", failing_on_threads)
    ahead = keypool.made_ahead()
    keypool.prefetch({2048: 1})
    assert keypool.new_rsa(2048).key_size == 2048  # waited for the failure, then generated its own
    assert keypool.made_ahead() == ahead and len(calls) == 2


def test_certificate_functions_take_their_keys_from_the_pool() -> None:
    made = keypool.made()
    ca = crypto.gen_ca("ca", 1)
    crypto.gen_signed_cert("leaf", None, None, 1, ca)
    crypto.gen_self_signed_cert("self", None, None, 1)
    assert keypool.made_since(made) == {crypto.CERT_RSA_KEY_BITS: 3}


def test_no_thread_to_spare_leaves_the_keys_to_be_generated_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    def refused(self) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refused)
    ahead = keypool.made_ahead()
    keypool.prefetch({2048: 3})
    assert keypool.new_rsa(2048).key_size == 2048 and keypool.made_ahead() == ahead


def test_only_sprig_s_sizes_and_a_bounded_count_are_generated_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[int]] = []
    monkeypatch.setattr(keypool, "_fill", lambda lane: started.append(lane))
    keypool.prefetch({512: 1, 65536: 1, 2048: 1000})
    assert sorted(bits for lane in started for bits in lane) == [2048] * keypool.MAX_AHEAD
    keypool._give_up([bits for lane in started for bits in lane])  # nothing left pending for the next tests


def test_keys_ready_or_under_way_are_not_generated_again(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[int]] = []
    monkeypatch.setattr(keypool, "_fill", lambda lane: started.append(lane))
    keypool.prefetch({2048: 2})
    keypool.prefetch({2048: 3})  # two are under way: one more
    assert sorted(bits for lane in started for bits in lane) == [2048] * 3
    keypool._give_up([bits for lane in started for bits in lane])
