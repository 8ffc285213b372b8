"""RFC 6901 pointers: escaping, parsing and looking up (support/jsonpointers)."""
from helm_core.support import jsonpointers


def test_escape_join_and_tokens_are_inverse():
    keys = ["a/b", "c~d", "", "~1", "0"]
    pointer = jsonpointers.join(keys)
    assert pointer == "/a~1b/c~0d//~01/0"
    assert jsonpointers.tokens(pointer) == keys
    assert jsonpointers.tokens("") == [] and jsonpointers.join([]) == ""


def test_get_follows_maps_and_decimal_list_indexes_only():
    doc = {"a": [{"b": None}, 2], "x/y": 1}
    assert jsonpointers.get(doc, ["a", "0", "b"]) == (True, None)
    assert jsonpointers.get(doc, jsonpointers.tokens("/x~1y")) == (True, 1)
    for keys in (["a", "2"], ["a", "-1"], ["a", " 1"], ["a", "x"], ["missing"], ["x/y", "z"]):
        assert jsonpointers.get(doc, keys) == (False, None), keys
