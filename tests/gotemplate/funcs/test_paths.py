"""Go path/filepath rules (differences from posixpath included)."""
from __future__ import annotations

import pytest

from helm_core.gotemplate.funcs import paths

CASES = [
    ("base_empty", paths.base, "", "."),
    ("base_root", paths.base, "///", "/"),
    ("base_trailing_slash", paths.base, "a/b/", "b"),
    ("base_plain", paths.base, "a", "a"),
    ("dir_empty", paths.dir_, "", "."),
    ("dir_root_file", paths.dir_, "/a", "/"),
    ("dir_nested", paths.dir_, "a/b/c", "a/b"),
    ("dir_relative_file", paths.dir_, "a", "."),
    ("dir_cleans", paths.dir_, "a/../b/c", "b"),
    ("clean_double_leading_slash", paths.clean, "//a/../b/./c/", "/b/c"),
    ("clean_dotdot_past_root", paths.clean, "/../a", "/a"),
    ("clean_relative_dotdot_kept", paths.clean, "../../a/..", "../.."),
    ("clean_empty", paths.clean, "", "."),
    ("ext_last_dot", paths.ext, "a/b.tar.gz", ".gz"),
    ("ext_dot_in_dir_only", paths.ext, "a.b/c", ""),
    ("ext_hidden_file", paths.ext, ".bashrc", ".bashrc"),
    ("isAbs_true", paths.is_abs, "/x", True),
    ("isAbs_false", paths.is_abs, "x/", False),
]


@pytest.mark.parametrize(("fn", "arg", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_path_functions_follow_go(fn, arg: str, expected) -> None:
    assert fn(arg) == expected
