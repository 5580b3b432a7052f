"""`agent-tck run --html`: one self-contained page, the verdict first, every requirement with
its anchor, its scenarios as Gherkin with marked steps, and the evidence, all text inert."""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agent_tck.kit import html_report, registry, reports
from agent_tck.kit.cli import main
from agent_tck.kit.drivers import make_driver
from agent_tck.kit.drivers.base import ImplInfo
from agent_tck.kit.verdicts import FAILED, PASSED, SKIPPED, ReqVerdict, ScenarioResult

VOID = {"meta", "input", "br", "hr", "img", "link", "source", "embed"}
LOADERS = {"script", "link", "img", "iframe", "object", "embed", "source", "audio", "video"}
BROKEN = ("--impl", "python:tests.miniatures.agent:NoReap", "--component", "agent",
          "-k", "exceeds_timeout")


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class Tree(HTMLParser):
    """The page as a tree; an end tag that closes anything but the open element fails."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack, self.all = [self.root], [self.root]
        self.feed(page)
        self.close()
        assert [n.tag for n in self.stack] == ["#document"], "unclosed elements"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        self.all.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)

    def find(self, tag: str, cls: str = "", under: Node | None = None) -> list[Node]:
        nodes = self.all if under is None else _descendants(under)
        return [n for n in nodes if n.tag == tag and (not cls or cls in n.classes())]

    def by_id(self, ident: str) -> Node:
        [node] = [n for n in self.all if n.attrs.get("id") == ident]
        return node


def _descendants(node: Node) -> list[Node]:
    found = []
    for child in node.children:
        if isinstance(child, Node):
            found += [child, *_descendants(child)]
    return found


def _run(tmp: Path, *argv: str) -> tuple[int, str, Tree, dict[str, object]]:
    page, report = tmp / "report.html", tmp / "report.json"
    out = io.StringIO()
    code = main(["run", *argv, "--html", str(page), "--json", str(report)], out, io.StringIO())
    return code, out.getvalue(), Tree(page.read_text(encoding="utf-8")), json.loads(
        report.read_text())


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Tree, dict[str, object]]:
    return _run(tmp_path_factory.mktemp("good"), "--component", "runner")


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Tree, dict[str, object]]:
    return _run(tmp_path_factory.mktemp("broken"), *BROKEN)


def _steps(tree: Tree, scenario: Node) -> list[tuple[str, str]]:
    """(status, text) of each step of a scenario's Gherkin."""
    return [(next(iter(s.classes() - {"step"})), " ".join(s.text().split()[2:]))
            for s in tree.find("li", "step", scenario)]


def test_a_conformant_run_says_so_before_its_requirements_each_with_an_anchor(
        good: tuple[int, str, Tree, dict[str, object]]) -> None:
    code, out, tree, _ = good
    assert code == 0
    outcome = tree.by_id("outcome")
    assert (outcome.text(), outcome.classes()) == ("CONFORMANT", {"outcome", "good"})
    assert tree.by_id("summary").text() == out.splitlines()[-1]
    reqs = tree.find("details", "req")
    assert tree.all.index(outcome) < tree.all.index(reqs[0])
    runner = [r.id for r in registry.load().values() if r.component == "runner"]
    assert [r.attrs["id"] for r in reqs] == runner
    assert all(tree.by_id(rid) is req for rid, req in zip(runner, reqs, strict=True))


def test_the_summary_names_the_implementation_and_counts_by_verdict_and_level(
        good: tuple[int, str, Tree, dict[str, object]]) -> None:
    _, _, tree, _ = good
    impl = make_driver("reference", 5.0)
    info = impl.info
    impl.close()
    facts = dict(zip((n.text() for n in tree.find("dt")), (n.text() for n in tree.find("dd")),
                     strict=True))
    assert {k: facts[k] for k in ("name", "version", "language")} == {
        "name": info.name, "version": info.version, "language": info.language}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", facts["finished"])
    runner = [r for r in registry.load().values() if r.component == "runner"]
    levels = [sum(r.level == level for r in runner) for level in ("MUST", "SHOULD")]
    rows = {}
    for row in tree.find("tr", under=tree.by_id("counts")):
        first, *cells = [c.text() for c in row.children if isinstance(c, Node)]
        rows[first] = cells
    assert rows["passed"] == [*map(str, levels), str(len(runner))]
    assert rows["all"] == rows["passed"]
    assert rows["failed"] == rows["errored"] == rows["not applicable"] == ["0", "0", "0"]


def test_passed_scenarios_show_every_step_passed(
        good: tuple[int, str, Tree, dict[str, object]]) -> None:
    _, _, tree, report = good
    scenarios = tree.find("details", "scenario")
    assert len(scenarios) >= len(report["scenarios"])  # type: ignore[arg-type]
    for scenario in scenarios:
        steps = _steps(tree, scenario)
        assert steps and {status for status, _ in steps} == {PASSED}, scenario.text()[:200]
        assert "open" not in scenario.attrs  # folded: what passed is there to be opened


def test_a_broken_run_is_not_conformant_and_shows_the_failed_step_and_its_evidence(
        broken: tuple[int, str, Tree, dict[str, object]]) -> None:
    code, _, tree, _ = broken
    assert code == 1
    outcome = tree.by_id("outcome")
    assert (outcome.text(), outcome.classes()) == ("NOT CONFORMANT", {"outcome", "bad"})
    req = tree.by_id("EH-1.1")
    assert {"v-failed", "l-must", "c-agent"} <= req.classes() and "open" in req.attrs
    assert [a.attrs["href"] for a in tree.find("a", under=tree.by_id("failing"))] == ["#EH-1.1"]
    scenarios = tree.find("details", "scenario", req)
    assert len(scenarios) == 3  # once per backend
    assert all("open" in scenario.attrs for scenario in scenarios)  # a failure is shown open
    assert [tree.find("summary", under=s)[0].text() for s in scenarios] == [
        f"failed Subprocess exceeds timeout. [{b}]" for b in ("claude", "codex", "gemini")
    ]  # the Gherkin title, each run named by its backend
    for scenario in scenarios:
        assert _steps(tree, scenario) == [
            *[(PASSED, text) for text in (
                "a CodingGenesisAgent with timeout 10.0 seconds.",
                "the subprocess runs for longer than 10 seconds without completing.",
                "the timeout is reached.",
                "the subprocess is terminated via SIGTERM.")],
            (FAILED, "the subprocess is waited on to prevent zombie processes."),
            *[(SKIPPED, text) for text in (
                'the response contains key "status" with a non-zero value.',
                'the response contains key "message" with text containing "timed out".',
                'the agent transitions to "READY" state, not "DEGRADED".')],
        ]
        [error] = tree.find("p", "error", scenario)
        assert re.fullmatch(r"AssertionError: the harness's parent \d+, started by the "
                            r"implementation, is left a zombie", error.text())
        [evidence] = tree.find("pre", "evidence", scenario)  # what happened, shown
        assert error.text().partition(": ")[2] in evidence.text()
        assert "in no_zombie" not in evidence.text()  # pytest's traceback: folded apart
        [engine] = tree.find("pre", "engine", scenario)
        assert "in no_zombie" in engine.text()
        [meta] = tree.find("p", "meta", scenario)  # where it is written, to open it there
        assert re.match(r"features/agent/001_error_handling\.feature:\d+, ", meta.text())


def test_the_json_report_keeps_its_fields_and_adds_the_steps(
        broken: tuple[int, str, Tree, dict[str, object]]) -> None:
    _, out, _, report = broken
    scenario = report["scenarios"][0]  # type: ignore[index]
    assert set(scenario) == {"nodeid", "name", "component", "reqs", "verdict", "evidence",
                             "error", "duration", "title", "where", "steps", "message",
                             "argument", "exchange"}
    assert scenario["title"] == "Subprocess exceeds timeout."
    assert scenario["where"] == "features/agent/001_error_handling.feature:11"
    assert [status for _, _, status in scenario["steps"]] == [PASSED] * 4 + [FAILED] + [
        SKIPPED] * 3
    assert report["footer"]["summary"] == out.splitlines()[-1]  # type: ignore[index]


@pytest.mark.parametrize("which", ["good", "broken"])
def test_the_page_loads_nothing_from_anywhere(which: str, request: pytest.FixtureRequest) -> None:
    tree: Tree = request.getfixturevalue(which)[2]
    assert not [n.tag for n in tree.all if n.tag in LOADERS]
    assert not [n for n in tree.all if "src" in n.attrs or "srcset" in n.attrs]
    # A link out, followed only when clicked, is a hazard's: where a real failure was seen.
    out = [n.attrs["href"] for n in tree.all if n.tag == "a" and "href" in n.attrs
           and not n.attrs["href"].startswith("#")]
    assert all(registry.HAZARD_URL.fullmatch(h) for h in out), out
    hrefs = [n.attrs["href"] for n in tree.all if "href" in n.attrs and n.attrs["href"] not in out]
    assert hrefs == [h for h in hrefs if h.startswith("#")]
    ids = {n.attrs["id"] for n in tree.all if "id" in n.attrs}
    assert {h[1:] for h in hrefs} <= ids
    [style] = tree.find("style")
    assert not re.search(r"@import|url\(|//", style.text())


def test_the_filters_work_without_a_script(
        broken: tuple[int, str, Tree, dict[str, object]]) -> None:
    _, _, tree, report = broken
    [style] = tree.find("style")
    css = style.text()
    radios = {n.attrs["id"]: n for n in tree.find("input") if n.attrs.get("type") == "radio"}
    assert sorted(n.attrs["for"] for n in tree.find("label")) == sorted(radios)
    assert {r for r in radios if "checked" in radios[r].attrs} == {"fv-all", "fl-all", "fc-all"}
    for radio, cls in (("fv-failed", "v-failed"), ("fv-not-run", "v-not-run"),
                       ("fl-should", "l-should"), ("fc-agent", "c-agent")):
        assert f"#{radio}:checked~.comp .req:not(.{cls}){{display:none}}" in css
        # a component left without such a requirement goes too, not an empty heading
        assert f"#{radio}:checked~.comp:not(:has(.req.{cls})){{display:none}}" in css
    for radio in radios:  # the chosen filter stands out, and so does the keyboard's focus
        assert f'#{radio}:checked~nav label[for="{radio}"]{{background:#333;color:#fff}}' in css
        assert f'#{radio}:focus-visible~nav label[for="{radio}"]{{outline:2px solid}}' in css
    # The radios open <main> (inside its landmark), siblings before the filters and components.
    [main] = tree.find("main")
    first = [n for n in main.children if isinstance(n, Node)]
    assert first[:len(radios)] == list(radios.values())
    assert [n.tag for n in first[len(radios):]] == ["nav"] + ["section"] * (
        len(first) - len(radios) - 1)
    judged = {r["id"]: r for r in report["requirements"]}  # type: ignore[attr-defined]
    reqs = registry.load()
    for req in tree.find("details", "req"):
        rid = req.attrs["id"]
        verdict = judged[rid]["verdict"].replace(" ", "-")
        assert req.classes() == {"req", f"v-{verdict}", f"l-{reqs[rid].level.lower()}",
                                 f"c-{reqs[rid].component}"}


HOSTILE = "<script>alert(1)</script>\x1b]0;pwned\x07\ud800\" onmouseover=\"alert(2)"


def hostile_run() -> reports.Run:
    req = replace(next(iter(registry.load().values())),
                  hazards=(registry.Hazard("https://github.com/o/r/issues/5", HOSTILE),))
    scenario = ScenarioResult(
        "node<b>", HOSTILE, "agent", (req.id,), FAILED, evidence=HOSTILE,
        error=f"AssertionError: {HOSTILE}", title=HOSTILE, where=HOSTILE,
        steps=[["Given", HOSTILE, PASSED], ["Then", HOSTILE, FAILED + HOSTILE]])
    info = ImplInfo(HOSTILE, HOSTILE, HOSTILE, ("agent",), (HOSTILE,))
    return reports.Run(info, [scenario], [ReqVerdict(req, FAILED, [scenario])], False, {},
                       [], summary=HOSTILE)


def test_hostile_text_stays_text() -> None:
    page = html_report.render(hostile_run())
    page.encode("utf-8")  # a lone surrogate could not be written
    tree = Tree(page)
    assert not [n.tag for n in tree.all if n.tag in LOADERS]
    assert not [n for n in tree.all if any(k.startswith("on") for k in n.attrs)]
    shown = "<script>alert(1)</script>\\x1b]0;pwned\\x07\ufffd\" onmouseover=\"alert(2)"
    [evidence] = tree.find("pre", "evidence")
    assert evidence.text() == shown
    assert tree.find("h1")[0].text() == f"agent-tck: {shown} {shown}"
    assert tree.find("title")[0].text() == f"agent-tck: {shown} {shown}"
    assert tree.by_id("summary").text() == shown
    assert [s.text().split(" ", 2)[2] for s in tree.find("li", "step")] == [shown, shown]
    [hazards] = tree.find("ul", "hazards")  # the requirement's, linked where it was seen
    assert hazards.text() == f"o/r/issues/5: {shown}"
    assert [a.attrs["href"] for a in tree.find("a", under=hazards)] == [
        "https://github.com/o/r/issues/5"]
    assert "\x1b" not in page and "<script>" not in page


def test_a_report_path_that_is_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    err = io.StringIO()
    code = main(["run", "--component", "runner", "--html", str(tmp_path)], io.StringIO(), err)
    assert code == 2
    assert err.getvalue().endswith(f"argument --html: {str(tmp_path)!r} is a directory, not a "
                                   "file to write\n")


# `agent-tck report A.json B.json ...`: several runs side by side.


def _report(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["report", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def reports_of_one_selection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """JSON reports of the reference and of NoReap, for the same selection."""
    tmp = tmp_path_factory.mktemp("matrix")
    reference, broken = tmp / "reference.json", tmp / "broken.json"
    selection = BROKEN[2:]
    assert main(["run", *selection, "--json", str(reference)], io.StringIO(),
                io.StringIO()) == 0
    assert main(["run", *BROKEN, "--json", str(broken)], io.StringIO(), io.StringIO()) == 1
    return reference, broken


def _assert_self_contained(tree: Tree) -> None:
    assert not [n.tag for n in tree.all if n.tag in LOADERS]
    assert not [n for n in tree.all if "src" in n.attrs or "srcset" in n.attrs]
    hrefs = [n.attrs["href"] for n in tree.all if "href" in n.attrs]
    assert hrefs == [h for h in hrefs if h.startswith("#")]
    [style] = tree.find("style")
    assert not re.search(r"@import|url\(|//", style.text())


def test_reports_side_by_side_mark_where_they_differ(
        reports_of_one_selection: tuple[Path, Path], tmp_path: Path) -> None:
    reference, broken = reports_of_one_selection
    page, markdown = tmp_path / "matrix.html", tmp_path / "matrix.md"
    code, out, _ = _report(str(reference), str(broken), "--html", str(page),
                           "--markdown", str(markdown))
    agent = sum(r.component == "agent" for r in registry.load().values())
    assert (code, out) == (0, f"2 reports, 1 of {agent} requirements differ\n")
    tree = Tree(page.read_text(encoding="utf-8"))
    _assert_self_contained(tree)
    rows = tree.find("tr", under=tree.by_id("matrix"))[1:]
    assert len(rows) == agent
    head = tree.find("tr", under=tree.by_id("matrix"))[0]
    heads = [h.text() for h in tree.find("th", under=head)]
    assert [h.split(" ")[0] for h in heads[-2:]] == ["1.", "2."]  # numbered as the reports are
    assert [r.attrs["id"] for r in rows if "differs" in r.classes()] == ["EH-1.1"]
    assert {c for r in rows for c in r.classes()} == {"differs", "same"}
    cells = [c for c in tree.by_id("EH-1.1").children if isinstance(c, Node)][3:]
    assert [c.classes() for c in cells] == [{"v-passed"}, {"v-failed"}]
    assert cells[0].text() == "passed"
    assert "is left a zombie" in tree.find("pre", under=cells[1])[0].text()
    [failed] = [r for r in json.loads(broken.read_text())["requirements"] if r["id"] == "EH-1.1"]
    assert tree.find("pre", under=cells[1])[0].text() == "\n".join(failed["evidence"])
    assert len(failed["evidence"]) > 1  # one piece of evidence a line, each whole
    [verdicts] = [[c.text() for c in r.children if isinstance(c, Node)][3] for r in tree.find(
        "tr", under=tree.by_id("reports"))[1:2]]
    assert verdicts == "CONFORMANT"
    shown = [[c for c in r.children if isinstance(c, Node)][3] for r in tree.find(
        "tr", under=tree.by_id("reports"))[1:]]
    assert [(c.text(), c.classes()) for c in shown] == [("CONFORMANT", {"good"}),
                                                       ("NOT CONFORMANT", {"bad"})]
    assert [tree.find("td", under=r)[0].text() for r in tree.find(
        "tr", under=tree.by_id("reports"))[1:]] == ["1", "2"]  # numbered as the columns are
    assert "#fd-differences-only:checked~table tr.same{display:none}" in tree.find(
        "style")[0].text()
    checked = [n.attrs["id"] for n in tree.find("input") if "checked" in n.attrs]
    assert checked == ["fd-all"]  # every requirement shown until the reader asks for less
    table = markdown.read_text().splitlines()
    assert [line for line in table if "≠** " in line] == [
        "| **≠** EH\\-1.1 | MUST | passed | failed |"]
    assert "| 2 | agent\\-tck reference 0.1.0 | python | **not conformant** | PARTIAL: " in (
        "\n".join(table))
    assert [line.split(" | ")[0] for line in table if line.startswith("| ") and " | python | "
            in line] == ["| 1", "| 2"]  # the reports numbered from 1, each one
    assert "| requirement | level | 1 | 2 |" in table  # and the columns of verdicts so


def test_a_hostile_report_stays_text_side_by_side(tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.json"
    hostile.write_text(reports.to_json(hostile_run()))
    page = tmp_path / "matrix.html"
    code, _, _ = _report(str(hostile), "--html", str(page))
    assert code == 0
    text = page.read_text(encoding="utf-8")
    tree = Tree(text)
    _assert_self_contained(tree)
    assert not [n for n in tree.all if any(k.startswith("on") for k in n.attrs)]
    shown = "<script>alert(1)</script>\\x1b]0;pwned\\x07\ufffd\" onmouseover=\"alert(2)"
    [evidence] = tree.find("pre", "evidence")
    assert evidence.text() == shown
    assert tree.find("td", under=tree.by_id("reports"))[1].text() == f"{shown} {shown}"
    assert "\x1b" not in text and "<script>" not in text
    code, out, _ = _report(str(hostile))  # no file asked for: the Markdown, printed
    assert code == 0 and "<script>" not in out and "\x1b" not in out
    assert out.splitlines()[4].startswith("| 1 | &lt;script&gt;alert\\(1\\)&lt;/script&gt;")


@pytest.mark.parametrize(("content", "problem"), [
    ("{", "cannot read it as JSON: Expecting property name"),
    ("5", "$ is not an object"),
    ('{"header": {"implementation": {"name": "x", "version": 1}}}',
     "$.header.implementation.version is not a str: int"),
    ('{"header": {"implementation": {"name": "x", "version": "1", "language": "go"}},'
     ' "footer": {}, "requirements": []}', "$.footer.conformant is missing"),
    ('{"header": {"implementation": {"name": "x", "version": "1", "language": "go"}},'
     ' "footer": {"conformant": true}, "requirements": [{"id": "A-1", "level": "MUST",'
     ' "text": "t", "verdict": null}]}', "$.requirements[0].verdict is not a str: NoneType"),
    ("[" * 100_000 + "]" * 100_000, "cannot read it as JSON: maximum recursion depth"),
])
def test_a_file_that_is_not_a_report_is_named_with_where(
        tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = _report(str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"agent-tck: error: report {path}: {problem}"), err


def test_a_report_of_64_mib_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    """The bound is 64 MiB exactly (docs/security.md says so): a report of that size is read (these,
    sparse files of NUL bytes, then fail as JSON); one byte more is refused unread."""
    path = tmp_path / "big.json"
    for size, problem in [(64 << 20, "cannot read it as JSON"),
                          ((64 << 20) + 1,
                           f"{(64 << 20) + 1} bytes, over the limit of {64 << 20}")]:
        with path.open("wb") as sparse:
            sparse.truncate(size)
        code, _, err = _report(str(path))
        assert code == 2 and err.startswith(f"agent-tck: error: report {path}: {problem}"), err


def test_the_failed_requirements_are_listed_musts_first() -> None:
    should, must = (next(r for r in registry.load().values() if r.level == level)
                    for level in ("SHOULD", "MUST"))
    results = [ScenarioResult(r.id, r.id, r.component, (r.id,), FAILED) for r in (should, must)]
    run = reports.Run(ImplInfo("w", "go", "1", ("agent",), ("claude",)), results,
                      [ReqVerdict(r, FAILED, [s]) for r, s in zip((should, must), results,
                                                                 strict=True)], False, {}, [])
    tree = Tree(html_report.render(run))
    assert [a.text() for a in tree.find("a", under=tree.by_id("failing"))] == [must.id, should.id]


def test_evidence_is_shown_with_a_failure_only(tmp_path: Path) -> None:
    """A report can come from anyone: evidence it gives a requirement that passed is not
    shown as if something had gone wrong there."""
    run = hostile_run()
    [verdict] = run.verdicts
    passed = reports.Run(run.impl, run.scenarios, [replace(verdict, verdict=PASSED)], True, {},
                         [])
    data = json.loads(reports.to_json(passed))
    data["requirements"][0]["evidence"] = ["a note that is no failure"]
    path, page = tmp_path / "passed.json", tmp_path / "matrix.html"
    path.write_text(json.dumps(data))
    assert _report(str(path), "--html", str(page))[0] == 0
    tree = Tree(page.read_text(encoding="utf-8"))
    [cell] = [c for c in tree.by_id(verdict.req.id).children if isinstance(c, Node)][3:]
    assert (cell.text(), tree.find("details", under=cell)) == ("passed", [])


def test_reports_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.json"
    path.write_text(" " * 101)
    monkeypatch.setattr(reports, "MAX_REPORT_BYTES", 100)
    code, _, err = _report(str(path))
    assert (code, err) == (
        2, f"agent-tck: error: report {path}: 101 bytes, over the limit of 100\n")
    code, _, err = _report(*[str(path)] * 33)
    assert (code, err) == (2, "agent-tck: error: 33 reports: at most 32 side by side\n")
    monkeypatch.undo()
    report = tmp_path / "report.json"
    report.write_text(reports.to_json(hostile_run()))
    assert _report(*[str(report)] * 32)[0] == 0  # 32 is the most, and allowed


@pytest.mark.parametrize(("verdict", "mark"), [(FAILED, "failed (expected)"), (PASSED, "passed")])
def test_a_baselined_requirement_says_expected_only_when_it_failed(verdict: str,
                                                                   mark: str) -> None:
    req = next(iter(registry.load().values()))
    scenario = ScenarioResult("node", "test_x", req.component, (req.id,), verdict)
    stale = [req.id] if verdict == PASSED else []
    run = reports.Run(ImplInfo("x", "go", "1", (), ()), [scenario],
                      [ReqVerdict(req, verdict, [scenario])], True, {req.id: "known: why"}, stale)
    tree = Tree(html_report.render(run))
    assert tree.find("span", "verdict", tree.by_id(req.id))[0].text() == mark  # its summary's
    assert tree.find("p", "expected")[0].text() == "expected failure: known: why"
    if stale:
        links = tree.find("a", under=tree.by_id("stale"))
        assert [a.attrs["href"] for a in links] == [f"#{req.id}"]
    else:
        assert "stale" not in {n.attrs.get("id") for n in tree.all}
