"""The content-addressed cache: atomic, verified, bounded, safe across processes."""
from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from helm_core import errors
from helm_core.sources import cache as cache_mod


def test_put_get_round_trip(tmp_path: Path) -> None:
    cache = cache_mod.Cache(tmp_path)
    digest = cache.put(b"hello")
    assert digest == "sha256:" + cache_mod.sha256_hex(b"hello")
    assert cache.get(digest) == b"hello"
    assert cache.put(b"hello") == digest


def test_corrupt_blob_is_removed_and_missing(tmp_path: Path) -> None:
    cache = cache_mod.Cache(tmp_path)
    digest = cache.put(b"hello")
    cache.blob_path(digest).write_bytes(b"tampered")
    assert cache.get(digest) is None
    assert not cache.has(digest)


@pytest.mark.parametrize("digest", ["sha256:xyz", "../../etc/passwd", "sha256:" + "A" * 63],
                         ids=["not-hex", "traversal", "short"])
def test_invalid_digests_are_refused(tmp_path: Path, digest: str) -> None:
    with pytest.raises(errors.SourceError) as info:
        cache_mod.Cache(tmp_path).get(digest)
    assert str(info.value) == f"invalid sha256 digest {digest!r}"


def test_size_bound_evicts_least_recently_used(tmp_path: Path) -> None:
    cache = cache_mod.Cache(tmp_path, max_bytes=250)
    first = cache.put(b"a" * 100)
    second = cache.put(b"b" * 100)
    os.utime(cache.blob_path(first), (1, 1))
    os.utime(cache.blob_path(second), (2, 2))
    cache.get(first)  # touch: now the most recent
    third = cache.put(b"c" * 100)
    assert cache.has(first) and cache.has(third)
    assert not cache.has(second)
    assert cache.size() <= 250


def test_stream_limit_leaves_no_partial_file(tmp_path: Path) -> None:
    cache = cache_mod.Cache(tmp_path)
    with pytest.raises(errors.SourceError) as info:
        cache.put_stream(iter([b"x" * 10, b"y" * 10]), limit=15, what="http://r/index.yaml")
    assert str(info.value) == "http://r/index.yaml: larger than the limit of 15 bytes"
    assert list((tmp_path / "blobs" / "sha256").iterdir()) == []


def test_records_round_trip_and_key_checked(tmp_path: Path) -> None:
    cache = cache_mod.Cache(tmp_path)
    cache.write_record("k", {"etag": '"x"'})
    assert cache.read_record("k") == {"etag": '"x"', "key": "k"}
    assert cache.read_record("other") is None


def _writer(root: str, seed: int) -> None:
    cache = cache_mod.Cache(root, max_bytes=50_000)
    for i in range(40):
        payload = bytes([seed]) * 1000 + i.to_bytes(2, "big")
        with cache.lock(f"k{i % 5}"):
            digest = cache.put(payload)
        data = cache.get(digest)
        assert data is None or data == payload


def test_concurrent_processes_never_see_partial_blobs(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), seed)) for seed in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    cache = cache_mod.Cache(tmp_path, max_bytes=50_000)
    for blob in (tmp_path / "blobs" / "sha256").iterdir():
        assert not blob.name.startswith(".tmp-")
        assert cache_mod.sha256_hex(blob.read_bytes()) == blob.name
    assert cache.size() <= 50_000


def test_default_root_from_environment() -> None:
    assert cache_mod.default_root({"HELM_CORE_CACHE": "/x"}) == Path("/x")
    assert cache_mod.default_root({"XDG_CACHE_HOME": "/c", "HOME": "/h"}) == Path("/c/helm-core")
