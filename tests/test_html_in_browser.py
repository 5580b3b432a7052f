"""The HTML report as a person sees it: Debian's headless Chromium opens the page of a failing
run (`file://`, as a downloaded CI artifact is opened), and the tests look at what it shows.

Screenshots are kept in `test-output/browser/` (or `$AGENT_TCK_TEST_OUTPUT/browser/`).
The browser is Debian's package (tests/support/browser.py).
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, sync_playwright

from agent_tck.kit.cli import main
from tests.support import browser as browser_support
from tests.support import once
from tests.test_html_report import BROKEN

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = Path(os.environ.get("AGENT_TCK_TEST_OUTPUT") or ROOT / "test-output") / "browser"
PHONE = {"width": 375, "height": 740}


@dataclass
class Opened:
    page: Page
    requests: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # console errors and warnings, page errors

    def visible(self, selector: str) -> list[str]:
        """The ids of the elements `selector` finds that are shown."""
        found: list[str] = self.page.eval_on_selector_all(
            selector, "els => els.filter(e => e.checkVisibility()).map(e => e.id)")
        return found


# The pages are made once a test session, by the first worker that asks (tests/support/once):
# each is a conformance run or more, and the tests that open them are dealt to many workers.


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    return once.session_dir(tmp_path_factory, worker_id)


@pytest.fixture(scope="module")
def failing(shared: Path) -> tuple[Path, dict[str, Any]]:
    def make(out: Path) -> None:
        out.mkdir()
        code = main(["run", *BROKEN, "--html", str(out / "report.html"), "--json",
                     str(out / "report.json")], io.StringIO(), io.StringIO())
        assert code == 1

    made = once.made_once(shared, "browser-failing", make)
    return made / "report.html", json.loads((made / "report.json").read_text())


@pytest.fixture(scope="module")
def matrix(failing: tuple[Path, dict[str, Any]], shared: Path) -> Path:
    """`agent-tck report` of the reference's run beside the failing one, as a page."""
    def make(out: Path) -> None:
        out.mkdir()
        reference = out / "reference.json"
        assert main(["run", *BROKEN[2:], "--json", str(reference)], io.StringIO(),
                    io.StringIO()) == 0
        assert main(["report", str(reference), str(failing[0].with_suffix(".json")),
                     "--html", str(out / "matrix.html")], io.StringIO(), io.StringIO()) == 0

    return once.made_once(shared, "browser-matrix", make) / "matrix.html"


@pytest.fixture(scope="module")
def site(shared: Path) -> Path:
    """`agent-tck matrix` of the reference and a broken implementation: its index page."""
    def make(tmp: Path) -> None:
        tmp.mkdir()
        (tmp / "list.yaml").write_text(
            f"- name: reference\n  impl: {sys.executable} -m agent_tck.reference.adapter\n"
            "  components: [responses]\n- name: drops\n"
            "  impl: python:tests.miniatures.responses:DropsToolCalls\n"
            "  components: [responses]\n")
        out = io.StringIO()
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PYTHONPATH", str(ROOT))  # the miniature, for the runs it starts
            code = main(["matrix", str(tmp / "list.yaml"), "--out", str(tmp / "out"), "-n", "1"],
                        out, io.StringIO())
        assert code == 0, out.getvalue()

    return once.made_once(shared, "browser-site", make) / "out" / "index.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        try:
            chromium = browser_support.launch(playwright)
        except RuntimeError as exc:  # no chromium on PATH: the install step was skipped
            pytest.fail(str(exc))
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def viewport() -> dict[str, int]:
    return {"width": 1280, "height": 800}


@pytest.fixture
def shown() -> str:
    return "report"


@pytest.fixture
def opened(browser: Browser, viewport: dict[str, int], shown: str,
           request: pytest.FixtureRequest) -> Iterator[Opened]:
    """The page `shown` ("report": the failing run's; "matrix": it beside the reference's;
    "site": the index of `agent-tck matrix`)."""
    path = request.getfixturevalue("failing")[0] if shown == "report" else request.getfixturevalue(
        shown)
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    try:
        page = context.new_page()
        seen = Opened(page)
        page.on("request", lambda r: seen.requests.append(r.url))
        page.on("console", lambda m: seen.problems.append(f"{m.type}: {m.text}")
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: seen.problems.append(f"page error: {e}"))
        page.goto(path.as_uri())
        yield seen
    finally:
        context.close()


def _failed(report: dict[str, Any]) -> list[str]:
    return [r["id"] for r in report["requirements"] if r["verdict"] in ("failed", "errored")]


def _tab_to(page: Page, focused: str, limit: int = 60) -> None:
    """Press Tab until the expression `focused` is true, at most `limit` times."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(focused):
            return
    pytest.fail(f"{limit} presses of Tab never came to {focused}")


def _shot(page: Page, name: str) -> None:
    """Keep what the viewport shows in the test output."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=OUTPUT / name)


def test_the_page_loads_nothing_else_and_reports_no_error(
        opened: Opened, failing: tuple[Path, dict[str, Any]]) -> None:
    opened.page.get_by_text("verdict:").wait_for()
    assert opened.requests == [failing[0].as_uri()]
    assert opened.page.eval_on_selector_all("script", "s => s.length") == 0
    assert opened.problems == []


def test_a_failed_requirement_shows_its_failed_step_and_evidence(
        opened: Opened, failing: tuple[Path, dict[str, Any]]) -> None:
    failed = _failed(failing[1])
    assert failed, failing[1]["footer"]
    page = opened.page
    assert page.locator(".outcome").inner_text().startswith("NOT CONFORMANT")
    for rid in failed:
        req = page.locator(f"details.req[id='{rid}']")
        assert req.get_attribute("open") is not None, rid
        assert req.locator(".step.failed").first.is_visible(), rid
        assert "zombie" in req.locator("pre.evidence").first.inner_text(), rid
    _shot(page, "failing-run.png")
    assert opened.problems == []


def test_the_filters_show_only_what_they_name(
        opened: Opened, failing: tuple[Path, dict[str, Any]]) -> None:
    every = opened.visible("details.req")
    assert len(every) == len(failing[1]["requirements"])
    opened.page.locator("label[for='fv-failed']").click()
    assert opened.visible("details.req") == _failed(failing[1])
    opened.page.locator("label[for='fl-should']").click()
    should = {r["id"] for r in failing[1]["requirements"] if r["level"] == "SHOULD"}
    assert set(opened.visible("details.req")) == set(_failed(failing[1])) & should
    opened.page.locator("label[for='fv-all']").click()
    opened.page.locator("label[for='fl-all']").click()
    assert opened.visible("details.req") == every
    assert opened.problems == []


def test_the_keyboard_alone_filters_and_opens_a_failed_requirement(
        opened: Opened, failing: tuple[Path, dict[str, Any]]) -> None:
    page = opened.page
    first = _failed(failing[1])[0]
    _tab_to(page, "document.activeElement.id == 'fv-all'")
    page.keyboard.press("ArrowRight")  # the verdict filters are one radio group
    assert page.evaluate("document.activeElement.id") == "fv-failed"
    assert opened.visible("details.req") == _failed(failing[1])
    _tab_to(page, f"document.activeElement.parentElement.id == '{first}'")
    evidence = page.locator(f"details.req[id='{first}'] pre.evidence").first
    assert evidence.is_visible()
    page.keyboard.press("Enter")
    assert not evidence.is_visible()
    page.keyboard.press("Enter")
    assert evidence.is_visible()
    assert opened.problems == []


@pytest.mark.parametrize("viewport", [PHONE], ids=["phone"])
def test_a_phone_wide_page_needs_no_sideways_scrolling(
        opened: Opened, failing: tuple[Path, dict[str, Any]]) -> None:
    page = opened.page
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width
    first = _failed(failing[1])[0]
    box = page.locator(f"details.req[id='{first}'] > summary").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    _shot(page, "failing-run-phone.png")
    assert opened.problems == []


@pytest.mark.parametrize("shown", ["report", "matrix", "site"])
@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, PHONE],
                         ids=["desktop", "phone"])
def test_axe_finds_no_accessibility_violation(opened: Opened) -> None:
    results = Axe().run(opened.page)
    assert results.violations_count == 0, results.generate_snapshot()
    assert opened.problems == []


@pytest.mark.parametrize("shown", ["site"])
def test_the_matrix_site_shows_each_implementation_and_loads_nothing_else(opened: Opened,
                                                                         site: Path) -> None:
    page = opened.page
    rows = page.locator("#reports tr").all_inner_texts()
    for name in ("reference", "drops"):  # under the list's names, their reports beside it
        assert any(f"{name}: agent-tck reference" in r and f"{name}.json" in r
                   for r in rows), rows
    assert opened.visible("main tr[id]"), "no requirement rows"
    assert opened.requests == [site.as_uri()]
    assert page.eval_on_selector_all("script", "s => s.length") == 0
    assert opened.problems == []


@pytest.mark.parametrize("shown", ["matrix"])
def test_the_matrix_shows_only_the_differences_when_asked(opened: Opened) -> None:
    every = opened.visible("main tr[id]")
    opened.page.locator("label[for='fd-differences-only']").click()
    assert opened.visible("main tr[id]") == ["EH-1.1"], every
    assert len(every) > 1
    opened.page.locator("label[for='fd-all']").click()
    assert opened.visible("main tr[id]") == every
    assert opened.problems == []
