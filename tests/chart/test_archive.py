"""Chart archives: well-formed ones load in memory; every attack is refused, naming the entry."""
from __future__ import annotations

import gzip
import io
import tarfile

import pytest

from helm_core.chart import archive, loader
from helm_core.errors import ArchiveError
from tests.chartkit import chart_yaml, make_tgz, package, tar_entry

GOOD = {"Chart.yaml": chart_yaml(), "values.yaml": "a: 1\n", "templates/cm.yaml": "kind: ConfigMap\n"}


def test_archive_loads_in_memory_and_strips_top_folder():
    files = dict(archive.read_archive(package(GOOD)))
    assert set(files) == {"Chart.yaml", "values.yaml", "templates/cm.yaml"}
    chart = loader.load_archive(package(GOOD))
    assert chart.name == "demo"
    assert [t.name for t in chart.templates] == ["templates/cm.yaml"]
    assert chart.values == {"a": 1.0}


def test_archive_drops_utf8_bom():
    data = package({"Chart.yaml": b"\xef\xbb\xbf" + chart_yaml().encode()})
    assert loader.load_archive(data).name == "demo"


def _attack(*entries):
    return make_tgz([tar_entry("demo/Chart.yaml", chart_yaml().encode()), *entries])


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (_attack(tar_entry("demo/../../etc/passwd", b"x")), "'demo/../../etc/passwd' references a parent directory"),
        (_attack(tar_entry("/etc/passwd", b"x")), "'/etc/passwd' has an absolute path"),
        (_attack(tar_entry("C:/windows/x", b"x")), "'C:/windows/x' has an absolute path"),
        (_attack(tar_entry("demo\\..\\..\\x", b"x")), "references a parent directory"),
        (_attack(tar_entry("demo/templates/link", kind=tarfile.SYMTYPE, linkname="../../../etc/passwd")),
         "'demo/templates/link' is a link pointing outside the chart"),
        (_attack(tar_entry("demo/templates/abs", kind=tarfile.SYMTYPE, linkname="/etc/passwd")),
         "'demo/templates/abs' is a link pointing outside the chart"),
        (_attack(tar_entry("demo/templates/inside", kind=tarfile.SYMTYPE, linkname="cm.yaml")),
         "'demo/templates/inside' is a symlink to 'cm.yaml'; links are not allowed"),
        (_attack(tar_entry("demo/templates/hard", kind=tarfile.LNKTYPE, linkname="demo/Chart.yaml")),
         "'demo/templates/hard' is a hard link"),
        (_attack(tar_entry("demo/dev", kind=tarfile.CHRTYPE)), "'demo/dev' is not a regular file"),
        (_attack(tar_entry("demo/fifo", kind=tarfile.FIFOTYPE)), "'demo/fifo' is not a regular file"),
        (make_tgz([tar_entry("Chart.yaml", chart_yaml().encode())]), "Chart.yaml is not inside the chart's folder"),
    ],
    ids=["dotdot", "absolute", "drive-letter", "backslash-dotdot", "symlink-out", "symlink-absolute",
         "symlink-inside", "hardlink", "char-device", "fifo", "chart-yaml-at-root"],
)
def test_hostile_archive_is_refused_naming_the_entry(data, expected):
    with pytest.raises(ArchiveError) as err:
        loader.load_archive(data, source="evil.tgz")
    assert expected in str(err.value)
    assert str(err.value).startswith("evil.tgz: ")


def test_file_over_per_file_limit_is_refused():
    data = package({**GOOD, "big.bin": b"0" * 2048})
    with pytest.raises(ArchiveError, match=r"entry 'demo/big.bin' is 2048 bytes, over the per-file limit of 1024"):
        archive.read_archive(data, limits=archive.Limits(max_file_bytes=1024))


def test_total_size_limit_is_refused():
    data = package({**GOOD, "a.bin": b"0" * 600, "b.bin": b"0" * 600})
    with pytest.raises(ArchiveError, match="decompressed chart is larger than the limit of 1000 bytes"):
        archive.read_archive(data, limits=archive.Limits(max_chart_bytes=1000))


def test_gzip_bomb_stops_while_inflating():
    # 50 MiB of zeros compress to ~50 KiB: the stream must stop at the budget, not inflate it all.
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo("demo/zeros")
        info.size = 50 * 1024 * 1024
        tar.addfile(info, io.BytesIO(b"\0" * info.size))
    bomb = gzip.compress(raw.getvalue())
    assert len(bomb) < 1024 * 1024
    with pytest.raises(ArchiveError, match="larger than"):
        archive.read_archive(bomb, limits=archive.Limits(max_chart_bytes=1024 * 1024, max_file_bytes=100 * 1024 * 1024))


def test_lying_size_header_is_refused():
    # A header that promises 4096 bytes followed by only 5: the reader must notice.
    info = tarfile.TarInfo("demo/Chart.yaml")
    info.size = 4096
    lying = gzip.compress(info.tobuf() + b"short".ljust(512, b"\0"))
    with pytest.raises(ArchiveError, match="evil.tgz: "):
        archive.read_archive(lying, source="evil.tgz")


def test_too_many_entries_is_refused():
    entries = [tar_entry(f"demo/f{i}", b"") for i in range(20)]
    with pytest.raises(ArchiveError, match="more than 10 entries"):
        archive.read_archive(make_tgz(entries), limits=archive.Limits(max_entries=10))


@pytest.mark.parametrize("data", [b"", b"not gzip at all", gzip.compress(b"not a tar")], ids=["empty", "text", "gzip-not-tar"])
def test_corrupt_archive_is_a_clear_error(data):
    with pytest.raises(ArchiveError, match="evil.tgz: "):
        archive.read_archive(data, source="evil.tgz")


def test_empty_archive_is_refused():
    with pytest.raises(ArchiveError, match="no files in chart archive"):
        archive.read_archive(make_tgz([tar_entry("demo/", kind=tarfile.DIRTYPE)]))
