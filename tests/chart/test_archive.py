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
        (_attack(tar_entry("demo/../../etc/passwd", b"x")),
         'chart illegally references parent directory (entry "demo/../../etc/passwd")'),
        (_attack(tar_entry("demo//etc/passwd", b"x")),
         'chart illegally contains absolute paths (entry "demo//etc/passwd")'),
        (_attack(tar_entry("demo/C:/windows/x", b"x")),
         'chart contains illegally named files (entry "demo/C:/windows/x")'),
        (_attack(tar_entry("demo\\..\\..\\x", b"x")),
         'chart illegally references parent directory (entry "demo\\\\..\\\\..\\\\x")'),
        (_attack(tar_entry("README", b"x")),
         'chart illegally contains content outside the base directory: "README"'),
        (make_tgz([tar_entry("Chart.yaml", chart_yaml().encode())]),
         'chart illegally contains content outside the base directory: "Chart.yaml"'),
        (make_tgz([tar_entry("Chart.yaml/x", b"x")]), 'chart yaml not in base directory (entry "Chart.yaml/x")'),
    ],
    ids=["dotdot", "absolute", "drive-letter", "backslash-dotdot", "outside-base", "chart-yaml-at-root",
         "chart-yaml-folder"],
)
def test_hostile_archive_is_refused_in_helms_words_naming_the_entry(data, expected):
    with pytest.raises(ArchiveError) as err:
        loader.load_archive(data, source="evil.tgz")
    assert str(err.value) == f"evil.tgz: {expected}"


def test_links_devices_and_fifos_are_empty_files_as_helm_reads_them():
    # Helm copies no bytes for them; the name stays, nothing is followed.
    data = _attack(
        tar_entry("demo/templates/cm.yaml", b"kind: ConfigMap\n"),
        tar_entry("demo/templates/out", kind=tarfile.SYMTYPE, linkname="../../../etc/passwd"),
        tar_entry("demo/templates/inside", kind=tarfile.SYMTYPE, linkname="cm.yaml"),
        tar_entry("demo/files/hard", kind=tarfile.LNKTYPE, linkname="demo/Chart.yaml"),
        tar_entry("demo/files/dev", kind=tarfile.CHRTYPE),
        tar_entry("demo/files/fifo", kind=tarfile.FIFOTYPE),
    )
    files = dict(archive.read_archive(data))
    assert {name: files[name] for name in files if name != "Chart.yaml"} == {
        "templates/cm.yaml": b"kind: ConfigMap\n", "templates/out": b"", "templates/inside": b"",
        "files/hard": b"", "files/dev": b"", "files/fifo": b""}


def test_an_entry_given_twice_is_the_last_one_as_in_helm():
    chart = loader.load_archive(_attack(tar_entry("demo/templates/cm.yaml", b"first"),
                                        tar_entry("demo/files/a.txt", b"one"),
                                        tar_entry("demo/templates/cm.yaml", b"second"),
                                        tar_entry("demo/files/a.txt", b"two")))
    assert [(t.name, t.data) for t in chart.templates] == [("templates/cm.yaml", b"second")]
    assert [(f.name, f.data) for f in chart.files] == [("files/a.txt", b"two")]


def test_top_folder_name_is_dropped_whatever_it_is_as_helm():
    # "/etc/passwd": the empty first component is the chart's folder, so this is etc/passwd.
    files = dict(archive.read_archive(_attack(tar_entry("/etc/passwd", b"x"), tar_entry("C:/w/x", b"y"))))
    assert files["etc/passwd"] == b"x" and files["w/x"] == b"y"


def test_file_over_per_file_limit_is_helms_error():
    data = package({**GOOD, "big.bin": b"0" * 2048})
    with pytest.raises(ArchiveError) as err:
        archive.read_archive(data, source="c.tgz", limits=archive.Limits(max_file_bytes=1024))
    assert str(err.value) == 'c.tgz: decompressed chart file "demo/big.bin" is larger than the maximum file size 1024'


def test_total_size_limit_is_helms_error():
    data = package({**GOOD, "a.bin": b"0" * 600, "b.bin": b"0" * 600})
    with pytest.raises(ArchiveError) as err:
        archive.read_archive(data, source="c.tgz", limits=archive.Limits(max_chart_bytes=1000))
    assert str(err.value) == "c.tgz: decompressed chart is larger than the maximum file size 1000"


def test_helms_default_limits():
    assert (archive.Limits().max_chart_bytes, archive.Limits().max_file_bytes) == (100 * 1024 * 1024, 5 * 1024 * 1024)


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
