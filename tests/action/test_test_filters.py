"""helm's ``test --filter`` syntax and Flux's ``spec.test.filters``, read into TestFilters."""
import pytest

from helm_core.action import test as test_action


@pytest.mark.parametrize(("flags", "include", "exclude"), [
    ([], (), ()),
    (["name=a"], ("a",), ()),
    (["name=a,name=b", "name=c"], ("a", "b", "c"), ()),
    (["!name=a", "! name=b", "!  name=c"], (), ("a", "b")),  # helm's `^!\s?name=`: one space at most
    (["name=a,!name=b,other=c,a"], ("a",), ("b",)),  # what is neither is ignored, as helm does
    (["name="], ("",), ()),
])
def test_helm_filter_flags(flags, include, exclude):
    assert test_action.filters_from_flags(flags) == test_action.TestFilters(include=include, exclude=exclude)


def test_flux_filters_and_what_they_keep():
    filters = test_action.filters_from_spec([{"name": "a"}, {"name": "b", "exclude": True},
                                             {"name": "c", "exclude": False}])
    assert filters == test_action.TestFilters(include=("a", "c"), exclude=("b",))
    assert [n for n in "abcd" if filters.keeps(n)] == ["a", "c"]
    only_out = test_action.filters_from_spec([{"name": "b", "exclude": True}])
    assert [n for n in "abcd" if only_out.keeps(n)] == ["a", "c", "d"]
    assert [n for n in "ab" if test_action.ALL_TESTS.keeps(n)] == ["a", "b"]
