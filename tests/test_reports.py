"""Reports face hostile text: an implementation's name, its messages and its stderr can hold
escape sequences, characters XML forbids and Markdown that forges the verdict."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import yaml

from agent_tck.kit import registry, reports, verdicts
from agent_tck.kit.drivers.base import ImplInfo
from agent_tck.kit.text import (
    json_written,
    markdown_inline,
    printable,
    well_formed,
    well_formed_json,
    xml_safe,
)
from agent_tck.kit.verdicts import FAILED, NOT_RUN, PASSED, ReqVerdict, ScenarioResult

HOSTILE = "evil\x1b]0;pwned\x07\x1b[31m\x00\ud800\n# CONFORMANT\n<!-- hide | [x](http://e)"


def hostile_run() -> reports.Run:
    req = next(iter(registry.load().values()))
    scenario = ScenarioResult("node", HOSTILE, "agent", (req.id,), FAILED, evidence=HOSTILE)
    info = ImplInfo(HOSTILE, "go", HOSTILE, ("agent",), ("claude",))
    return reports.Run(info, [scenario], [ReqVerdict(req, FAILED, [scenario])], False, {}, [])


def test_the_junit_report_of_hostile_text_parses_and_keeps_it_visible() -> None:
    root = ET.fromstring(reports.to_junit(hostile_run()))
    text = ET.tostring(root, encoding="unicode")
    assert "\x1b" not in text and "\\x1b]0;pwned\\x07" in text
    assert root.get("name", "").startswith("agent-tck: evil\\x1b]0;pwned")


def test_the_markdown_summary_cannot_be_forged_by_the_implementations_name() -> None:
    lines = reports.to_markdown(hostile_run()).splitlines()
    assert lines[0].startswith("## agent-tck: evil") and lines[0].endswith("is **not conformant**")
    assert not any(line.startswith("# ") for line in lines)
    assert "<!--" not in "\n".join(lines) and "&lt;\\!\\-\\-" in lines[0]


def test_each_destination_gets_inert_text() -> None:
    assert printable("a\x1b[2Jb\tc\nd\x9b") == "a\\x1b[2Jb\tc\nd\\x9b"
    assert xml_safe("\ud800ok\ufffe") == "\ufffdok\ufffd"
    assert markdown_inline("| a | <b>\n# h") == "\\| a \\| &lt;b&gt; \\# h"


def test_a_lone_surrogate_becomes_u_fffd_and_a_pair_stays_one_character() -> None:
    """JSON carries a lone surrogate as an escape: it is mended in the text, an escaped
    backslash before a `u` is no escape, and two escapes that make a pair are one character."""
    assert well_formed("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert printable("\ud800\x07") == "\ufffd\\x07"
    text = r'["\ud800", "\uD83D\uDE00", "\\ud800", "\\\udc00", "\ud83d\ud83d\ude00"]'
    assert well_formed_json(text) == (
        r'["\ufffd", "\uD83D\uDE00", "\\ud800", "\\\ufffd", "\ufffd\ud83d\ude00"]')
    assert json.loads(well_formed_json(text)) == ["\ufffd", "\U0001f600", "\\ud800",
                                                  "\\\ufffd", "\ufffd\U0001f600"]
    assert json_written('{"a": "\x7f\x85\ud800 \u00e9"}') == (
        r'{"a": "\u007f\u0085' + '\ufffd \u00e9"}')


def test_the_markdown_summary_lists_what_failed_what_was_expected_and_what_is_stale() -> None:
    """The summary a pull request shows: the failed requirements first (a failure the
    baseline expects says so), then the baseline's stale entries; a clean run lists neither."""
    first, second, third = list(registry.load().values())[:3]
    failed = ScenarioResult("a", "a", "agent", (first.id,), FAILED, evidence="E")
    expected = ScenarioResult("b", "b", "agent", (second.id,), FAILED, evidence="E")
    passed = ScenarioResult("c", "c", "agent", (third.id,), PASSED)
    verdicts = [ReqVerdict(first, FAILED, [failed]), ReqVerdict(second, FAILED, [expected]),
                ReqVerdict(third, PASSED, [passed])]
    info = ImplInfo("wrapper", "go", "1.2", ("agent",), ("claude",))
    run = reports.Run(info, [failed, expected, passed], verdicts, False,
                      {second.id: "known"}, [third.id])
    lines = reports.to_markdown(run).splitlines()
    table = lines[lines.index("| requirement | level | verdict | text |") + 2:]
    assert table[:4] == [  # a blank line ends the table: the next line is no row of it
        f"| {first.id} | {first.level} | failed | {first.text} |",
        f"| {second.id} | {second.level} | failed (expected) | {second.text} |", "",
        f"Stale baseline entries (now passing): {third.id}"]
    clean = reports.Run(info, [passed], verdicts[2:], True, {}, [])
    text = reports.to_markdown(clean)
    assert "| requirement | level | verdict | text |" not in text and "Stale" not in text


def test_a_must_that_no_scenario_judged_fails_a_whole_run_not_a_selection() -> None:
    """A whole run that never judged a MUST must not pass it by silence; a selection (-k,
    --req, -m) that left its scenarios out says "not run". A SHOULD is "not run" either way."""
    reqs = registry.load()
    must = next(r for r in reqs.values() if r.level == "MUST")
    should = next(r for r in reqs.values() if r.level == "SHOULD")
    chosen = {must.id: must, should.id: should}
    assert [v.verdict for v in verdicts.fold(chosen, [])] == [FAILED, NOT_RUN]
    assert [v.verdict for v in verdicts.fold(chosen, [], selected=True)] == [NOT_RUN, NOT_RUN]


def test_a_written_baseline_gives_each_failure_its_first_error_else_its_last_line() -> None:
    reqs = list(registry.load().values())[:3]
    results = [
        ScenarioResult("a", "a", "agent", (reqs[0].id,), FAILED, evidence="x\ny",
                       error="AssertionError: " + "e" * 300),
        ScenarioResult("b", "b", "agent", (reqs[1].id,), FAILED, evidence="first\n\nlast\n"),
        ScenarioResult("c", "c", "agent", (reqs[2].id,), FAILED),
    ]
    folded = [ReqVerdict(r, FAILED, [s]) for r, s in zip(reqs, results, strict=True)]
    later = ScenarioResult("d", "d", "agent", (reqs[0].id,), FAILED, error="OSError: later")
    folded[0] = ReqVerdict(reqs[0], FAILED, [results[0], later])  # the first error is named
    entries = yaml.safe_load(reports.baseline_text(folded, "2026-11-25"))
    assert [e["reason"] for e in entries] == [
        "failed on 2026-11-25: " + ("AssertionError: " + "e" * 300)[:200],
        "failed on 2026-11-25: last",
        "failed on 2026-11-25: no evidence recorded"]


def test_the_json_report_is_indented_two_spaces_and_ends_its_last_line() -> None:
    """A report checked in or diffed between runs reads line by line: two-space indents,
    as most JSON tools write, and a newline at its end."""
    text = reports.to_json(hostile_run())
    assert text == json.dumps(json.loads(text), indent=2) + "\n"
