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


def _pax_record(key: str, value: str) -> bytes:
    body = f" {key}={value}\n"
    size = len(body) + 1
    while len(str(size)) + len(body) != size:
        size += 1
    return f"{size}{body}".encode()


def _header(name: str, kind: bytes, data: bytes) -> bytes:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, len(data)
    return info.tobuf(tarfile.USTAR_FORMAT if kind in (tarfile.XHDTYPE, tarfile.XGLTYPE) else tarfile.GNU_FORMAT) \
        + data + b"\0" * (-len(data) % 512)


def _chart_entry() -> bytes:
    return _header("demo/Chart.yaml", tarfile.REGTYPE, chart_yaml().encode())


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK],
                         ids=["pax", "pax-global", "gnu-long-name", "gnu-long-link"])
def test_tar_header_over_go_limit_is_refused_before_it_is_read(kind):
    # Go's archive/tar reads at most 1 MiB of a PAX header or GNU long name (helm: "archive/tar:
    # header field too long"); tarfile read all of it (a 90 MiB name took 1.6 s and 390 MiB).
    big = _pax_record("comment", "a" * (archive.MAX_HEADER_BYTES + 1)) if kind in (tarfile.XHDTYPE, tarfile.XGLTYPE) \
        else b"demo/" + b"a" * archive.MAX_HEADER_BYTES
    data = gzip.compress(_header("././@LongLink", kind, big) + _chart_entry() + b"\0" * 1024)
    with pytest.raises(ArchiveError) as err:
        archive.read_archive(data, source="evil.tgz")
    assert str(err.value) == "evil.tgz: archive/tar: header field too long"


def test_a_header_of_go_limit_is_read():
    name = "demo/" + "a" * (archive.MAX_HEADER_BYTES - len("demo/") - 1)
    data = gzip.compress(_header("././@LongLink", tarfile.GNUTYPE_LONGNAME, name.encode() + b"\0")
                         + _header("demo/x", tarfile.REGTYPE, b"x") + _chart_entry() + b"\0" * 1024)
    assert [n for n, _ in archive.read_archive(data)] == [name[len("demo/"):], "Chart.yaml"]


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME], ids=["pax", "gnu-long-name"])
def test_a_chain_of_tar_headers_is_refused(kind):
    # tarfile recurses once per extension header: 150000 in a row took 12.5 s and 470 MiB.
    one = _pax_record("comment", "") if kind == tarfile.XHDTYPE else b"demo/x\0"
    chain = _header("././@LongLink", kind, one) * (archive.MAX_HEADER_CHAIN + 1)
    with pytest.raises(ArchiveError) as err:
        archive.read_archive(gzip.compress(chain + _chart_entry() + b"\0" * 1024), source="evil.tgz")
    assert str(err.value) == f"evil.tgz: more than {archive.MAX_HEADER_CHAIN} tar extension headers before one entry"
    short = _header("././@LongLink", kind, one) * (archive.MAX_HEADER_CHAIN - 1)
    assert archive.read_archive(gzip.compress(short + _chart_entry() + b"\0" * 1024))


def _old_gnu_sparse(extended_blocks: int) -> bytes:
    info = tarfile.TarInfo("demo/templates/s.yaml")
    info.type, info.size = tarfile.GNUTYPE_SPARSE, 0
    block = bytearray(info.tobuf(tarfile.GNU_FORMAT))
    block[482] = 1  # isextended: the sparse map goes on in the blocks that follow
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    extension = bytearray(b"".join(b"%011o\0%011o\0" % (100 + 2 * i, 1) for i in range(21)).ljust(512, b"\0"))
    extension[504] = 1
    return bytes(block) + bytes(extension) * extended_blocks


@pytest.mark.parametrize("entries", [
    # An old GNU sparse map of 300000 extension blocks took 14 s and 1.7 GiB.
    _old_gnu_sparse(1000),
    # A GNU 1.0 sparse map claiming 999999999 holes ended in "internal error (ValueError)".
    _header("././@PaxHeader", tarfile.XHDTYPE,
            _pax_record("GNU.sparse.major", "1") + _pax_record("GNU.sparse.minor", "0") + _pax_record("GNU.sparse.name", "demo/templates/s.yaml") + _pax_record("GNU.sparse.realsize", "9"))
    + _header("demo/GNUSparseFile.0/s", tarfile.REGTYPE, b"999999999\n"),
    _header("././@PaxHeader", tarfile.XHDTYPE,
            _pax_record("GNU.sparse.size", "9") + _pax_record("GNU.sparse.offset", "1") + _pax_record("GNU.sparse.numbytes", "1"))
    + _header("demo/templates/s.yaml", tarfile.REGTYPE, b"x"),
    _header("././@PaxHeader", tarfile.XHDTYPE, _pax_record("GNU.sparse.map", "1,1," * 1000)
            + _pax_record("GNU.sparse.realsize", "9")) + _header("demo/templates/s.yaml", tarfile.REGTYPE, b"x"),
], ids=["old-gnu", "gnu-1.0", "gnu-0.0", "gnu-0.1"])
def test_sparse_files_are_refused_before_their_maps_are_read(entries):
    with pytest.raises(ArchiveError) as err:
        archive.read_archive(gzip.compress(_chart_entry() + entries + b"\0" * 1024), source="evil.tgz")
    assert str(err.value).startswith("evil.tgz: sparse files are not supported (entry \"demo/")


def test_archives_in_charts_share_the_charts_size_budget():
    # 30 subchart archives of ~95 KiB, each unpacking to 95 MiB: helm 3.22 gives each its own
    # 100 MiB (15.7 s and 5.9 GiB for a 54 KiB chart); here they unpack within the parent's.
    sub = package({"Chart.yaml": chart_yaml("sub"), "a.bin": b"\0" * 600, "b.bin": b"\0" * 600}, top="sub")
    files = {"Chart.yaml": chart_yaml(), **{f"charts/sub{i}.tgz": sub for i in range(3)}}
    limits = archive.Limits(max_chart_bytes=3000)
    with pytest.raises(ArchiveError) as err:
        loader.load_archive(package(files), source="c.tgz", limits=limits)
    assert str(err.value) == ("error unpacking subchart sub1.tgz in demo: c.tgz/charts/sub1.tgz: "
                              "decompressed chart is larger than the maximum file size 3000")
    chart = loader.load_archive(package({"Chart.yaml": chart_yaml(), "charts/sub0.tgz": sub}), limits=limits)
    assert [d.name for d in chart.dependencies] == ["sub"]
