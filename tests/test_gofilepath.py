"""Go's filepath.Clean/Join/Dir on Unix: the spellings helm prints (lint --with-subcharts paths)."""
import pytest

from helm_core.golib import gofilepath


@pytest.mark.parametrize(("given", "clean"), [
    ("", "."), (".", "."), ("./", "."), ("a/", "a"), ("./a/./b/", "a/b"), ("a//b", "a/b"),
    ("a/../b", "b"), ("a/..", "."), ("../a", "../a"), ("a/../../b", "../b"), ("../../a/..", "../.."),
    ("/", "/"), ("//", "/"), ("//a//b", "/a/b"), ("/..", "/"), ("/../a", "/a"), ("/a/b/../../..", "/"),
])
def test_clean(given, clean):
    assert gofilepath.clean(given) == clean


@pytest.mark.parametrize(("elements", "joined"), [
    ((), ""), (("", ""), ""), ((".", "charts"), "charts"), (("./parent/", "charts"), "parent/charts"),
    (("a", "", "b"), "a/b"), (("/", "a"), "/a"), (("a/b", "../c"), "a/c"), (("", "/a"), "/a"),
])
def test_join(elements, joined):
    assert gofilepath.join(*elements) == joined


@pytest.mark.parametrize(("path", "parent"), [
    ("a", "."), ("", "."), ("/", "/"), ("/a", "/"), ("a/b/Chart.yaml", "a/b"), ("a//b/", "a/b"), ("./a/b", "a"),
])
def test_dir(path, parent):
    assert gofilepath.dir(path) == parent
