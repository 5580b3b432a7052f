"""The GIVEN/WHEN/THEN converter: any document in the seeds' format, never a silent drop."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gherkin.parser import Parser

from agent_tck.kit.cli import main
from agent_tck.kit.errors import SpecError
from agent_tck.kit.gherkin import convert_file, parse, read_manifest, render
from agent_tck.kit.paths import FEATURES

DOC = """\
;====
; Area: First
;
; What the first area is about.
;====

;----
; A scenario.
;----
GIVEN a thing.
WHEN it acts.
THEN it is "done".
GIVEN a late given.
"""


def convert(text: str) -> str:
    return render(parse(text, "doc.txt"), feature="F", id_prefix="X", origin="doc.txt")


def steps_of(gherkin: str) -> list[str]:
    doc = Parser().parse(gherkin)
    out = []
    for child in doc["feature"]["children"]:
        for sub in [*child.get("rule", {}).get("children", []), child]:
            if "scenario" in sub:
                out += [s["keyword"].strip() + " " + s["text"] for s in sub["scenario"]["steps"]]
    return out


def test_steps_are_kept_word_for_word_in_order_given_after_when_included() -> None:
    assert steps_of(convert(DOC)) == [
        "Given a thing.",
        "When it acts.",
        'Then it is "done".',
        "Given a late given.",
    ]


def test_section_becomes_a_rule_with_its_description_and_tagged_scenario() -> None:
    text = convert(DOC)
    assert "  Rule: Area: First\n    What the first area is about.\n" in text
    assert "    @req:X-1.1\n    Scenario: A scenario.\n" in text


def test_crlf_and_blank_lines_change_nothing() -> None:
    crlf = DOC.replace("\n", "\r\n").replace("WHEN", "\r\n\r\nWHEN")
    assert convert(crlf) == convert(DOC)


def test_section_without_description_is_a_bare_rule() -> None:
    text = convert(";====\n; Only a title\n;====\n;----\n; S\n;----\nGIVEN x.\n")
    assert "  Rule: Only a title\n\n    @req:X-1.1\n" in text


def test_scenario_without_title_gets_a_numbered_one() -> None:
    text = convert(";====\n; T\n;====\n;----\n;----\nGIVEN x.\n;----\n;\n;----\nTHEN y.\n")
    assert "Scenario: Untitled scenario 1" in text and "Scenario: Untitled scenario 2" in text


def test_scenario_before_any_section_stays_at_feature_level() -> None:
    text = convert(";----\n; Lone\n;----\nGIVEN x.\n")
    assert "Rule:" not in text and steps_of(text) == ["Given x."]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("GIVEN x.\n", "doc.txt:1: step 'GIVEN x.' comes before any ';----' scenario block"),
        (
            ";----\n; S\n;----\nGIVEN x.\nwhatever\n",
            "doc.txt:5: 'whatever' is neither a comment nor a GIVEN/WHEN/THEN step",
        ),
        (
            ";----\n; S\n;----\nGiven x.\n",
            "doc.txt:4: 'Given x.' is neither a comment nor a GIVEN/WHEN/THEN step",
        ),
        (";====\n; T\n", "doc.txt:1: block opened by ';====' is never closed"),
        (";====\n; T\n;----\n", "doc.txt:1: block opened by ';====' is never closed"),
        (
            ";----\n; S\nGIVEN x.\n;----\n",
            "doc.txt:3: expected a ';' comment line inside a block, got 'GIVEN x.'",
        ),
        (
            ";----\n; S\n;----\n;----\n; T\n;----\nGIVEN x.\n",
            "doc.txt:1: scenario 'S' has no steps",
        ),
        (";====\n; T\n;====\n", "doc.txt: no scenarios found"),
        ("", "doc.txt: no scenarios found"),
    ],
)
def test_bad_documents_get_an_error_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        convert(text)
    assert str(caught.value) == message


MISREAD = [
    "Feature: a second feature", "Rule: the agent stays ready", "Background: the setup",
    "Scenario: not really", "Scenario Outline: of many", "Example: one", "Examples: many",
    "Scenarios: several", "Given an agent, the spec says", "When the CLI exits, the agent",
    "Then it answers", "And so on", "But not this", "* a star line", "@tag-like words",
    "| a | table |", "# a comment-like line", '"""', "```", "> already marked",
]


@pytest.mark.parametrize("line", MISREAD)
def test_a_description_line_gherkin_would_misread_is_kept_behind_a_marker(line: str) -> None:
    """Each form is escaped the same way, parses with the official parser, keeps every word
    and adds no step, rule or scenario."""
    gherkin = convert(f";====\n; T\n;\n; {line}\n; plain words\n;====\n;----\n; S\n;----\n"
                      "GIVEN x.\n")
    rule = Parser().parse(gherkin)["feature"]["children"][0]["rule"]
    assert [d.strip() for d in rule["description"].splitlines()] == [f"> {line}", "plain words"]
    assert [c["scenario"]["name"] for c in rule["children"]] == ["S"]
    assert steps_of(gherkin) == ["Given x."]


def test_words_that_only_contain_a_keyword_are_not_marked() -> None:
    gherkin = convert(";====\n; T\n;\n; Whenever it runs, Given that\n;====\n;----\n; S\n;----\n"
                      "GIVEN x.\n")
    assert "    Whenever it runs, Given that\n" in gherkin


def test_converted_file_is_written_whole(tmp_path: Path) -> None:
    src = tmp_path / "010_some_area.txt"
    src.write_text(DOC)
    target = convert_file(src, tmp_path / "out", "SA")
    assert target.name == "010_some_area.feature"
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["010_some_area.feature"]
    assert "Feature: Area" in target.read_text()


def test_bad_source_leaves_no_file(tmp_path: Path) -> None:
    src = tmp_path / "bad.txt"
    src.write_text("junk\n")
    with pytest.raises(SpecError):
        convert_file(src, tmp_path / "out", "B")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("manifest", sorted(FEATURES.glob("*/spec/manifest.yaml")), ids=str)
def test_generated_features_match_the_converter(manifest: Path, tmp_path: Path) -> None:
    """features/<component>/ is what the converter makes now from its sources."""
    for source, prefix in read_manifest(manifest):
        fresh = convert_file(source, tmp_path, prefix)
        committed = manifest.parent.parent / fresh.name
        assert committed.read_text() == fresh.read_text(), f"regenerate {committed}"


def test_cli_converts_and_reports_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "a.txt"
    src.write_text(DOC)
    assert main(["gherkin", str(src), "--id-prefix", "A", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "a.feature").exists()
    assert main(["gherkin", str(src), "--out", str(tmp_path)]) == 2
    assert "give one --id-prefix per SRC: 1 SRC, 0 --id-prefix" in capsys.readouterr().err
    src.write_text("oops\n")
    assert main(["gherkin", str(src), "--id-prefix", "A", "--out", str(tmp_path)]) == 2
    assert f"{src}:1: 'oops' is neither" in capsys.readouterr().err


@pytest.mark.parametrize(("data", "message"), [
    (b"- {source: caf\xe9.txt, id_prefix: RP}\n", "not UTF-8"),
    (b"- &a {source: a.txt, id_prefix: RP}\n- *a\n", "anchors and aliases are not allowed"),
])
def test_a_hostile_manifest_is_refused_naming_the_file(
        tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "manifest.yaml"
    path.write_bytes(data)
    with pytest.raises(SpecError, match=f"manifest {re.escape(str(path))}.*{message}"):
        read_manifest(path)
