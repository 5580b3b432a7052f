"""The validator: every message word for word, in the `file:line:column: path: message` form."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tck.reference.pipeline import validate_text
from agent_tck.reference.pipeline.schemas import SCHEMA_DIR
from agent_tck.reference.pipeline.validate import near_miss

EXAMPLES = SCHEMA_DIR / "examples"
BANK = """behaviors:
  - {id: done, description: "done", type: terminal, enabled: true, used_by: 1}
  - {id: goes_on, description: "goes on", type: success, enabled: true, used_by: 1}
"""


def errors(text: str, contract: str | None = None, source: str = "f.yml") -> list[str]:
    return [str(i) for i in validate_text(text, source, contract).issues]


def method(*characteristics: str) -> str:
    return ("methods:\n  - name: run\n    type: instance\n    analyzed: true\n"
            "    characteristics:\n" + "".join(characteristics))


def characteristic(name: str, values: str, level: int = 1, depends_on: str = "null",
                   when_parent: str = "null") -> str:
    return (f"      - name: {name}\n        description: \"{name}\"\n        type: enum\n"
            f"        values: {values}\n        setup: {{type: data, class: null}}\n"
            f"        level: {level}\n        depends_on: {depends_on}\n"
            f"        when_parent: {when_parent}\n")


V = ('[{value: a, description: "a", terminal: true, behavior_id: done},'
     ' {value: b, description: "b", terminal: false}]')


def test_a_valid_bank_and_tree() -> None:
    text = BANK + method(characteristic("kind", V),
                         characteristic("sub", V, 2, "kind", "[b]"))
    assert errors(text, "metadata") == []


@pytest.mark.parametrize(("change", "expected"), [
    (lambda t: t.replace("behavior_id: done", "behavior_id: gone"),
     ["f.yml:12:76: $.methods[0].characteristics[0].values[0].behavior_id: behavior_id 'gone' is"
      " not the id of any entry of behaviors[]"]),
    (lambda t: t.replace("id: goes_on", "id: done"),
     ["f.yml:3:10: $.behaviors[1].id: behavior id 'done' is already used by behaviors[0]"]),
    (lambda t: t.replace(", behavior_id: done}", "}", 1),
     ["f.yml:12:18: $.methods[0].characteristics[0].values[0]: terminal value 'a' has no"
      " behavior_id: a terminal branch must name its behavior"]),
])
def test_bank_messages(change: object, expected: list[str]) -> None:
    text = BANK + method(characteristic("kind", V))
    assert errors(change(text), "metadata") == expected  # type: ignore[operator]


@pytest.mark.parametrize(("sub", "expected"), [
    (characteristic("sub", V, 2, "kind", "[z]"),
     ["f.yml:24:23: $.methods[0].characteristics[1].when_parent[0]: when_parent value 'z' is"
      " not a value of 'kind' (its values: 'a', 'b')"]),
    (characteristic("sub", V, 2, "other", "[b]"),
     ["f.yml:23:21: $.methods[0].characteristics[1].depends_on: depends_on 'other' is not a"
      " characteristic of the same method"]),
    (characteristic("sub", V, 2, "kind", "null"),
     ["f.yml:24:22: $.methods[0].characteristics[1].when_parent: when_parent is null but"
      " depends_on is 'kind'"]),
    (characteristic("sub", V, 1, "null", "[b]"),
     ["f.yml:24:22: $.methods[0].characteristics[1].when_parent: when_parent is set but"
      " depends_on is null"]),
    (characteristic("sub", V, 3, "kind", "[b]"),
     ["f.yml:22:16: $.methods[0].characteristics[1].level: level 3 but depends_on 'kind' is at"
      " level 1: expected 2"]),
    (characteristic("sub", V, 2, "null", "null"),
     ["f.yml:22:16: $.methods[0].characteristics[1].level: level 2 with depends_on null: a"
      " characteristic without a parent is at level 1"]),
])
def test_tree_messages(sub: str, expected: list[str]) -> None:
    assert errors(BANK + method(characteristic("kind", V), sub), "metadata") == expected


def test_slug_message() -> None:
    assert errors("slug: app_x\nsource_file: app/y.rb\n") == [
        "f.yml:1:7: $.slug: slug 'app_x' does not match source_file 'app/y.rb': expected 'app_y'"]
    assert errors("slug: x\nsource_file: ../y.rb\n") == [
        "f.yml:2:14: $.source_file: source path '../y.rb' has a '..' or '.' component: refused,"
        " the metadata file must stay under the metadata directory"]


def test_marker_messages() -> None:
    text = ("automation:\n  a_b: 1\n  code-analyzer_completed: true\n"
            "  test_architect_completed: false\n  test_reviewer_completed: True\n"
            "  test_architect_version: 2\n")
    assert errors(text) == [
        "f.yml:2:3: $.automation.a_b: unexpected key 'a_b': expected {agent}_completed,"
        " {agent}_version, {agent}_skipped, {agent}_skip_reason, errors or warnings",
        "f.yml:3:3: $.automation.code-analyzer_completed: unexpected key"
        " 'code-analyzer_completed': agent names use snake_case ('code_analyzer_completed')",
        "f.yml:4:29: $.automation.test_architect_completed: marker test_architect_completed must"
        " be true, not false: an agent that did not finish writes no marker",
        "f.yml:5:28: $.automation.test_reviewer_completed: marker test_reviewer_completed is"
        " written 'True': write true",
        "f.yml:6:27: $.automation.test_architect_version: 2 is not of type 'string'",
    ]


def test_status_near_misses_word_for_word() -> None:
    assert errors("status: skipped\nskip_reason: x\n", "response") == [
        "f.yml:1:9: $.status: 'skipped' is not one of 'success', 'error', 'skip'; did you mean"
        " 'skip'?"]
    assert errors("status: done\n", "test-reviewer") == [
        "f.yml:1:9: $.status: 'done' is not one of 'success', 'error', 'skip'"]
    assert near_miss("ok", ["success", "error", "skip"]) == "success"
    assert near_miss("ok", ["success", "stop", "error"]) == "success"
    assert near_miss("skipped", ["success", "stop", "error"]) is None
    assert near_miss(1, ["success"]) is None


def test_keys_allowed_only_with_a_value() -> None:
    assert errors("status: skip\nskip_reason: x\nerror: y\n", "response") == [
        "f.yml:3:1: $.error: 'error' is allowed only with status: error"]
    bank = "behaviors:\n  - {id: a, description: d, type: success, subtype: email, enabled: true," \
           " used_by: 1}\n"
    assert errors(bank, "metadata") == [
        "f.yml:2:44: $.behaviors[0].subtype: 'subtype' is allowed only with type: side_effect"]


def test_unexpected_key_points_at_the_key() -> None:
    assert errors("status: success\ndata:\n  files_created: []\n  extra: 1\n") == [
        "f.yml:4:3: $.data.extra: unexpected key 'extra'"]


def test_discovery_rules() -> None:
    text = (EXAMPLES / "discovery-agent.success.yml").read_text()
    broken = text.replace("total_files: 2", "total_files: 3").replace("- class: Payment",
                                                                      "- class: PaymentProcessor")
    assert errors(broken) == [
        "f.yml:45:13: $.method_waves[1].items[0].cross_class_deps[0]: PaymentProcessor#process"
        " (wave 1) depends on PaymentProcessor, but PaymentProcessor#process is in wave 1: a"
        " dependency must be in an earlier wave",
        "f.yml:81:16: $.summary.total_files: summary says total_files: 3, the document lists 2",
    ]


def test_rules_survive_documents_that_break_the_schema() -> None:
    text = ("behaviors: 3\nmethods:\n  - 1\n  - characteristics: [1, {depends_on: 2}]\n"
            "automation: []\n")
    assert len(errors(text, "metadata")) == 16
    assert errors("status: success\nmethod_waves: {a: 1}\nfiles: 1\nsummary: []\n",
                  "discovery-agent")[0].startswith("f.yml:")


def test_a_refused_document_is_one_issue() -> None:
    report = validate_text("a: !x 1\n", "f.yml", "metadata")
    assert (report.valid, report.contract, [str(i) for i in report.issues]) == (
        False, "metadata", ["f.yml:1:4: $.a: tag !x is not allowed: a contract holds plain data"
                            " only (map, seq, str, int, float, bool, null)"])


def test_report_as_json() -> None:
    report = validate_text("status: ok\n", "f.yml")
    assert report.to_dict() == {"file": "f.yml", "contract": "response", "valid": False,
                                "errors": [{"file": "f.yml", "line": 1, "column": 9,
                                            "path": "$.status", "message": "'ok' is not one of"
                                            " 'success', 'error', 'skip'; did you mean"
                                            " 'success'?"}]}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yml")), ids=lambda p: p.name)
def test_every_seed_example_passes_schema_and_rules(path: Path) -> None:
    assert errors(path.read_text(), None, str(path)) == []
