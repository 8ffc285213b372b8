"""Loading chart folders and archives into the one chart model."""
from __future__ import annotations

import os

import pytest

from helm_core.chart import archive, loader, model, prepare
from helm_core.errors import ArchiveError, ChartError, ChartFileError, SchemaError, ValuesError
from tests.chartkit import SHARED_CHARTS, chart_yaml, package, shared_chart_names, write_chart


def test_directory_sorts_files_like_helm(tmp_path):
    write_chart(tmp_path, {
        "Chart.yaml": chart_yaml(),
        "values.yaml": "replicas: 3\nname: x\n",
        "values.schema.json": '{"type": "object"}',
        "templates/cm.yaml": "kind: ConfigMap\n",
        "templates/_helpers.tpl": "{{/* */}}",
        "crds/crd.yaml": "kind: CustomResourceDefinition\n",
        "files/a.txt": "hello",
        "ext/lua/chart.lua": "-- lua",
        "README.md": "# demo",
        "charts/sub/Chart.yaml": chart_yaml("sub"),
        "charts/sub/templates/s.yaml": "kind: Secret\n",
        "charts/_ignored/Chart.yaml": chart_yaml("ignored"),
    })
    chart = loader.load(tmp_path)
    assert chart.name == "demo" and chart.metadata.api_version == "v2"
    assert chart.values == {"replicas": 3.0, "name": "x"}
    assert chart.schema == {"type": "object"} and chart.schema_file == "values.schema.json"
    assert sorted(t.name for t in chart.templates) == ["templates/_helpers.tpl", "templates/cm.yaml"]
    assert sorted(f.name for f in chart.files) == ["README.md", "crds/crd.yaml", "ext/lua/chart.lua", "files/a.txt"]
    assert [c.name for c in chart.dependencies] == ["sub"]
    sub = chart.dependencies[0]
    assert sub.parent is chart and sub.chart_path() == "demo/charts/sub"
    assert [f.name for f in chart.crd_files()] == ["crds/crd.yaml"]


def test_values_numbers_are_go_float64_and_yaml11_booleans(tmp_path):
    write_chart(tmp_path, {"Chart.yaml": chart_yaml(), "values.yaml": "a: 1\nb: y\nc: 1e3\nd: 2001-12-14\ne: '1'\n"})
    values = loader.load(tmp_path).values
    assert values == {"a": 1.0, "b": True, "c": 1000.0, "d": "2001-12-14", "e": "1"}
    assert isinstance(values["a"], float)


def test_values_yaml_uses_first_document_only_as_helm(tmp_path):
    # Helm 3.22 reads values.yaml with yaml.Unmarshal: later documents are ignored.
    write_chart(tmp_path, {"Chart.yaml": chart_yaml(), "values.yaml": "a: 1\n---\na: 2\nb: 3\n"})
    assert loader.load(tmp_path).values == {"a": 1.0}


def test_helmignore_rules_apply(tmp_path):
    write_chart(tmp_path, {
        "Chart.yaml": chart_yaml(),
        ".helmignore": "# comment\n*.bak\n/secret.txt\ndocs/\n",
        "templates/cm.yaml": "x",
        "templates/cm.yaml.bak": "x",
        "templates/.hidden.yaml": "x",
        "secret.txt": "s",
        "sub/secret.txt": "kept",
        "docs/a.md": "a",
    })
    chart = loader.load(tmp_path)
    assert [t.name for t in chart.templates] == ["templates/cm.yaml"]
    assert sorted(f.name for f in chart.files) == [".helmignore", "sub/secret.txt"]


def test_helmignore_double_star_is_an_error(tmp_path):
    write_chart(tmp_path, {"Chart.yaml": chart_yaml(), ".helmignore": "a/**/b\n"})
    with pytest.raises(ChartError, match=r"\.helmignore:1: double-star \(\*\*\) syntax is not supported"):
        loader.load(tmp_path)


def test_symlinks_are_followed_wherever_they_point_as_helm(tmp_path, caplog):
    # Helm's sympath.Walk follows every link and names the content by the link's path.
    root = write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml(), "files/real.txt": "r"})
    os.symlink("real.txt", root / "files" / "alias.txt")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.txt").write_text("out")
    os.symlink(tmp_path / "outside", root / "linked")
    files = {f.name: f.data for f in loader.load(root).files}
    assert files == {"files/alias.txt": b"r", "files/real.txt": b"r", "linked/o.txt": b"out"}
    assert f"walk.go:75: found symbolic link in path: {root}/linked resolves to {tmp_path}/outside. Contents of linked file " \
           "included and used" in caplog.messages


def _load_error(root, limits=archive.Limits()) -> str:
    with pytest.raises(ChartError) as caught:
        loader.load(root, limits=limits)
    return str(caught.value)


def test_symlink_to_a_folder_containing_it_is_a_loop(tmp_path):
    # Helm walks templates/loop/loop/... until the path is too long; we name the link.
    root = write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml(), "templates/cm.yaml": "x"})
    os.symlink("..", root / "templates" / "loop")
    assert _load_error(root) == f"{root}: symlink templates/loop points to {root}, a folder that contains it (a loop)"


def test_links_to_each_other_are_helms_evalsymlinks_error(tmp_path):
    root = write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml()})
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    assert _load_error(root) == f"error evaluating symlink {root}/a: EvalSymlinks: too many links"


def test_dangling_symlink_is_helms_error(tmp_path):
    root = write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml()})
    os.symlink("missing", root / "gone")
    assert _load_error(root) == f"error evaluating symlink {root}/gone: lstat {root}/missing: no such file or directory"


def test_links_that_repeat_folders_without_end_hit_the_walk_limit(tmp_path):
    # Each folder linked twice from the one above: 2**20 paths. Helm would walk them all.
    root = write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml()})
    for level in range(20):
        (root / f"d{level}").mkdir()
        if level:
            os.symlink(f"../d{level}", root / f"d{level - 1}" / "x")
            os.symlink(f"../d{level}", root / f"d{level - 1}" / "y")
    assert _load_error(root, archive.Limits(max_dir_entries=5000)) == (
        f"{root}: more than 5000 files and folders in the chart")


def test_file_over_helms_size_limit_is_helms_error(tmp_path):
    root = write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml()})
    with open(root / "big.bin", "wb") as handle:  # sparse: 2 GB that takes no room
        handle.truncate(2 * 1024 ** 3)
    assert _load_error(root) == 'chart file "big.bin" is larger than the maximum file size 5242880'


@pytest.mark.parametrize("limit", [5 * 1024 * 1024, 16 * 1024, 16 * 1024 - 1, 40000, 200])
def test_files_read_whole_up_to_the_limit_and_refused_past_it(tmp_path, limit):
    """Files are read in chunks (a first one, then doubling): every size around their edges
    reads whole, and a file one byte over the limit is refused."""
    sizes = [0, 1, 3, 4, 16383, 16384, 16385, 32768, 32769, 40000, 40001, 65537, 300000]
    root = write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml()})
    for size in sizes:
        (root / f"f{size}.bin").write_bytes(bytes(i % 251 for i in range(size)))
    if limit < max(sizes):
        smallest_over = min(s for s in sizes if s > limit)
        for size in sizes:
            if size > limit and size != smallest_over:
                (root / f"f{size}.bin").unlink()
        assert _load_error(root, archive.Limits(max_file_bytes=limit)) == (
            f'chart file "f{smallest_over}.bin" is larger than the maximum file size {limit}')
        for size in sizes:
            if size > limit:
                (root / f"f{size}.bin").unlink(missing_ok=True)
    files = {f.name: f.data for f in loader.load(root, limits=archive.Limits(max_file_bytes=limit)).files}
    assert files == {f"f{size}.bin": bytes(i % 251 for i in range(size)) for size in sizes if size <= limit}


def test_fifo_in_chart_dir_is_refused_in_helms_words(tmp_path):
    root = write_chart(tmp_path, {"Chart.yaml": chart_yaml()})
    os.mkfifo(root / "pipe")
    assert _load_error(root) == f"cannot load irregular file {root}/pipe as it has file mode type bits set"


def test_subchart_archive_in_charts_dir(tmp_path):
    sub = package({"Chart.yaml": chart_yaml("sub", "1.2.3"), "templates/x.yaml": "kind: Pod\n"}, top="sub")
    write_chart(tmp_path, {"Chart.yaml": chart_yaml(), "charts/sub-1.2.3.tgz": sub})
    chart = loader.load(tmp_path)
    assert [(c.name, c.metadata.version) for c in chart.dependencies] == [("sub", "1.2.3")]


def test_error_in_subchart_names_the_subchart_as_helm_does(tmp_path):
    write_chart(tmp_path, {"Chart.yaml": chart_yaml(), "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\n"})
    with pytest.raises(ChartFileError) as err:
        loader.load(tmp_path)
    assert str(err.value) == "error unpacking subchart sub in demo: validation: chart.metadata.version is required"


def test_missing_chart_yaml(tmp_path):
    write_chart(tmp_path, {"values.yaml": "a: 1\n"})
    with pytest.raises(ChartError, match="Chart.yaml file is missing"):
        loader.load(tmp_path)


def test_missing_path():
    with pytest.raises(ChartError, match="^path \"/nonexistent/chart\" not found$"):
        loader.load("/nonexistent/chart")


def test_bad_values_yaml_names_the_file_and_line(tmp_path):
    write_chart(tmp_path, {"Chart.yaml": chart_yaml(), "values.yaml": "a: [1, 2\nb: 3\n"})
    with pytest.raises(ValuesError, match=r"values.yaml: .*line \d+"):
        loader.load(tmp_path)


def test_values_yaml_must_be_a_map(tmp_path):
    write_chart(tmp_path, {"Chart.yaml": chart_yaml(), "values.yaml": "- a\n- b\n"})
    with pytest.raises(ValuesError) as err:
        loader.load(tmp_path)
    assert str(err.value) == ("cannot load values.yaml: error unmarshaling JSON: while decoding JSON: json: "
                              "cannot unmarshal array into Go value of type map[string]interface {}")


def test_schema_yaml_form_is_loaded(tmp_path):
    write_chart(tmp_path, {"Chart.yaml": chart_yaml(), "values.schema.yaml": "type: object\nrequired: [a]\n"})
    chart = loader.load(tmp_path)
    assert chart.schema == {"type": "object", "required": ["a"]} and chart.schema_file == "values.schema.yaml"


@pytest.mark.parametrize(("text", "reason"), [("{not json", "invalid character 'n' looking for beginning of object key string"),
                                              ('{"type":', "unexpected EOF")], ids=["syntax", "truncated"])
def test_invalid_schema_json_fails_validation_as_in_helm(tmp_path, text, reason):
    # Helm loads the chart and reports the schema's JSON error when it validates values.
    write_chart(tmp_path, {"Chart.yaml": chart_yaml(), "values.schema.json": text})
    chart = loader.load(tmp_path)
    with pytest.raises(SchemaError) as err:
        prepare.prepare_chart(chart, {})
    assert str(err.value) == f"values don't meet the specifications of the schema(s) in the following chart(s):\ndemo:\n{reason}"


@pytest.mark.parametrize(("name", "data", "message"), [
    ("c.tgz", b"not a tarball", "file '{path}' does not appear to be a gzipped archive; got 'application/octet-stream'"),
    ("c.tgz", b"x" * 600, "file '{path}' does not appear to be a gzipped archive; got 'text/plain; charset=utf-8'"),
    ("c.tgz", b"PK\x03\x04rest", "file '{path}' does not appear to be a gzipped archive; got 'application/zip'"),
    ("values.yaml", b"a: 1\n", "file '{path}' seems to be a YAML file, but expected a gzipped archive"),
], ids=["short", "text", "zip", "yaml"])
def test_a_chart_file_that_is_not_gzip_gets_helms_line(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ArchiveError) as err:
        loader.load(path)
    assert str(err.value) == message.format(path=path)


def test_v1_chart_with_requirements(tmp_path):
    write_chart(tmp_path, {
        "Chart.yaml": "apiVersion: v1\nname: old\nversion: 1.0.0\n",
        "requirements.yaml": "dependencies:\n- name: sub\n  version: '>=0.1.0'\n  condition: sub.enabled\n",
        "requirements.lock": "dependencies:\n- name: sub\n  version: 0.1.0\ndigest: sha256:abc\n",
        "charts/sub/Chart.yaml": chart_yaml("sub"),
    })
    chart = loader.load(tmp_path)
    assert chart.metadata.api_version == model.API_VERSION_V1
    assert [(d.name, d.condition) for d in chart.metadata.dependencies] == [("sub", "sub.enabled")]
    assert chart.lock is not None and chart.lock.digest == "sha256:abc"
    assert {f.name for f in chart.files} == {"requirements.yaml", "requirements.lock"}


def test_chart_without_api_version_is_v1(tmp_path):
    write_chart(tmp_path, {"Chart.yaml": "name: old\nversion: 1.0.0\n"})
    assert loader.load(tmp_path).metadata.api_version == "v1"


def test_v2_chart_ignores_requirements_yaml(tmp_path):
    write_chart(tmp_path, {
        "Chart.yaml": chart_yaml(),
        "requirements.yaml": "dependencies:\n- name: sub\n",
    })
    chart = loader.load(tmp_path)
    assert chart.metadata.dependencies == [] and chart.files == []


def test_chart_lock_is_loaded(tmp_path):
    write_chart(tmp_path, {
        "Chart.yaml": chart_yaml(),
        "Chart.lock": "dependencies:\n- name: common\n  repository: oci://r\n  version: 2.31.4\ndigest: sha256:1\ngenerated: '2025-01-01T00:00:00Z'\n",
    })
    lock = loader.load(tmp_path).lock
    assert lock is not None and lock.dependencies[0].version == "2.31.4" and lock.digest == "sha256:1"


def test_shared_charts_load_when_present():
    names = shared_chart_names()
    if not names:
        pytest.skip(f"{SHARED_CHARTS} is not present on this machine")
    for name in names:
        chart = loader.load(SHARED_CHARTS / name)
        assert chart.name == name
        assert chart.templates


def test_chart_file_keeps_a_records_behaviour_with_its_own_init():
    """``model.File`` writes its ``__init__`` out (a warm load makes hundreds): it is still
    made by position or keyword, compared, shown, refused and pickled as the record it was."""
    import pickle

    by_position, by_keyword = model.File("templates/a.yaml", b"x"), model.File(name="templates/a.yaml", data=b"x")
    assert by_position == by_keyword and by_position != model.File("templates/a.yaml", b"y")
    assert repr(by_position) == "File(name='templates/a.yaml', data=b'x')"
    with pytest.raises(TypeError):
        model.File("templates/a.yaml")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        model.File(name="a", data=b"", mode=0)  # type: ignore[call-arg]
    digest = by_position.digest()
    again = pickle.loads(pickle.dumps(by_position))
    assert again == by_position and again.__dict__["_digest"] == (again.data, digest)
