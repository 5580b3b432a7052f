"""The safe loader: plain data only, positions for every node, each refusal word for word."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.reference.exceptions import DocumentError
from agent_tck.reference.pipeline.loader import (
    DEFAULT_LIMITS,
    Limits,
    Position,
    json_path,
    load_document,
)


def refusal(text: str, limits: Limits = DEFAULT_LIMITS) -> str:
    with pytest.raises(DocumentError) as caught:
        load_document(text, "f.yml", limits)
    return str(caught.value)


def test_values_keep_their_positions_and_raw_text() -> None:
    doc = load_document("status: success\ndata:\n  items: [1, yes]\n", "f.yml")
    assert doc.value == {"status": "success", "data": {"items": [1, True]}}
    assert doc.positions[("data", "items", 1)] == Position(3, 14, "yes")
    assert doc.key_positions[("data", "items")] == Position(3, 3)
    assert doc.where(("data", "items", 5)) == Position(3, 10, None)
    assert doc.where(("nowhere",)) == Position(1, 1, None)


def test_timestamps_stay_text() -> None:
    assert load_document("at: 2024-01-02\n").value == {"at": "2024-01-02"}


def test_json_path() -> None:
    assert json_path(()) == "$"
    assert json_path(("data", "methods", 0, "name")) == "$.data.methods[0].name"


@pytest.mark.parametrize(("text", "message"), [
    ("a: !!python/object/apply:os.system ['true']\n",
     "f.yml:1:4: $.a: tag !!python/object/apply:os.system is not allowed: a contract holds plain"
     " data only (map, seq, str, int, float, bool, null)"),
    ("a: !custom 1\n", "f.yml:1:4: $.a: tag !custom is not allowed: a contract holds plain data"
     " only (map, seq, str, int, float, bool, null)"),
    ("a: !!set {x, y}\n", "f.yml:1:4: $.a: tag !!set is not allowed: a contract holds plain"
     " data only (map, seq, str, int, float, bool, null)"),
    ("b: &b {x: 1}\na:\n  <<: *b\n",
     "f.yml:3:3: $.a: merge keys (<<) are not allowed: write the keys out"),
    ("a:\n  1: x\n", "f.yml:2:3: $.a: key '1' is not a string (quote it)"),
    ("? [a]\n: x\n", "f.yml:1:3: $: key 'SequenceNode' is not a string (quote it)"),
    ("a: 1\nb: 2\na: 3\n",
     "f.yml:3:1: $.a: duplicate key 'a' with a different value (first at line 1)"),
    ("a: &x [*x]\n", "f.yml:1:4: $.a[0]: recursive alias: a node contains itself"),
    ("# only a comment\n", "f.yml:1:1: $: document is empty"),
    ("a: [1\n", "f.yml:2:1: $: YAML syntax error: did not find expected ',' or ']'"),
    ("a: 1\n---\nb: 2\n",
     "f.yml:2:1: $: YAML syntax error: but found another document"),
])
def test_refusals_word_for_word(text: str, message: str) -> None:
    assert refusal(text) == message


def test_a_repeated_key_with_the_same_value_is_accepted() -> None:
    assert load_document("a: 1\nb: 2\na: 1\n").value == {"a": 1, "b": 2}


def test_limits_word_for_word() -> None:
    assert refusal("a: 12345\n", Limits(max_bytes=8)) == \
        "f.yml:1:1: $: document is 9 bytes, over the limit of 8"
    assert refusal("a: [1, 2, 3]\n", Limits(max_nodes=3)) == \
        "f.yml:1:4: $.a: document expands to more than 3 nodes (an alias bomb?)"
    assert refusal("a: [[[1]]]\n", Limits(max_depth=2)) == \
        "f.yml:1:6: $: document nests deeper than 2"
    assert refusal("a: &a [[1]]\nb: [[*a]]\n", Limits(max_depth=3)) == \
        "f.yml:1:4: $.b[0][0]: document nests deeper than 3"


@pytest.mark.parametrize("depth", [65, 2_000, 100_000])  # 100,000: the composer's C stack
def test_deep_nesting_is_refused_before_composing(depth: int) -> None:
    """Where: at level 65 (column 68), or where the scanner gave up first: PyYAML 6.0.4 and
    newer refuse nesting beyond 1000 while scanning ahead of the parser's events."""
    refused = refusal("a: " + "[" * depth + "]" * depth + "\n")
    assert re.fullmatch(r"f\.yml:1:(68|100[0-9]): \$: document nests deeper than 64", refused)


def test_document_error_knows_where() -> None:
    with pytest.raises(DocumentError) as caught:
        load_document("a: !x 1\n", "f.yml")
    error = caught.value
    assert (error.source, error.line, error.column, error.path) == ("f.yml", 1, 4, "$.a")


def test_aliases_count_at_every_use() -> None:
    text = "a: &a [1, 2, 3, 4]\nb: [*a, *a, *a]\n"
    assert load_document(text, "f.yml", Limits(max_nodes=22)).value["b"][2] == [1, 2, 3, 4]
    assert "expands to more than 21 nodes" in refusal(text, Limits(max_nodes=21))


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda children: st.lists(children, max_size=3)
                    | st.dictionaries(st.text(min_size=1, max_size=5), children, max_size=3),
                    max_leaves=12))
def test_plain_data_round_trips(value: object) -> None:
    import yaml

    assert load_document(yaml.safe_dump({"v": value})).value == {"v": value}


@pytest.mark.parametrize(("text", "where"), [
    ("a: b\nc: d\x07\n", "2:5: $: YAML syntax error: character U+0007"),
    ("é: ü\x00\n", "1:5: $: YAML syntax error: character U+0000"),  # characters, not bytes
    # A lone surrogate: JSON can carry one, UTF-8 cannot; refused where it is, not raised as
    # an encoding error.
    ("a: [1,\n  \ud800]\n", "2:3: $: YAML syntax error: character U+D800"),
])
def test_a_character_yaml_does_not_allow_is_refused_where_it_is(text: str, where: str) -> None:
    assert refusal(text) == f"f.yml:{where} is not allowed"
