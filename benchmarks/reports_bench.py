"""Reports of a large run: 10,000 scenarios, a third failing with evidence, written in each
format, against `json.dumps` of the same results measured in the same run (the baseline: the
least a writer must do). The target (issue: living documentation) is under 2 s each."""

from __future__ import annotations

import html
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from agent_tck.kit import html_report, messages, registry, reports, verdicts
from agent_tck.kit.drivers.base import ImplInfo
from benchmarks.report import Row

WHERE = "features/backends/parse_line.feature:17"  # a real scenario, for the messages' pickles
STEPS = [["When", "the claude backend parses:", "passed"], ["Then", "the events are:", "passed"]]


def large_run(count: int) -> reports.Run:
    reqs = list(registry.load().values())
    scenarios = []
    for i in range(count):
        req = reqs[i % len(reqs)]
        failed = i % 3 == 0
        steps = [STEPS[0], [*STEPS[1][:2], "failed" if failed else "passed"]]
        scenarios.append(verdicts.ScenarioResult(
            f"test_scenario_{i}[claude]", f"test_scenario_{i}", req.component, (req.id,),
            verdicts.FAILED if failed else verdicts.PASSED,
            evidence=f"AssertionError: <evidence {i}> & more\n" * 5 if failed else "",
            error="AssertionError: expected 1" if failed else "", duration=0.01,
            title=f"Scenario {i}", where=WHERE, steps=steps))
    folded = verdicts.fold(registry.load(), scenarios)
    info = ImplInfo("bench", "python", "1", ("agent",), ("claude",))
    return reports.Run(info, scenarios, folded, False, {}, [], "NOT CONFORMANT")


def seconds(write: Callable[[reports.Run], str], run: reports.Run) -> tuple[float, int]:
    started = time.perf_counter()
    text = write(run)
    return time.perf_counter() - started, len(text.encode())


def rows(count: int = 10_000) -> list[Row]:
    run = large_run(count)
    base, _ = seconds(lambda r: json.dumps([asdict(s) for s in r.scenarios]), run)
    found = []
    for name, write in (("JSON", reports.to_json), ("JUnit", reports.to_junit),
                        ("Markdown", reports.to_markdown), ("HTML", html_report.render),
                        ("Cucumber Messages", messages.render)):
        took, size = seconds(write, run)
        found.append(Row(f"{name} report of {count:,} scenarios ({size / 2**20:.1f} MiB)",
                         f"{took:.2f} s", f"{base:.2f} s (json.dumps)",
                         f"{took / base:.1f}x", "< 2 s", took < 2.0))
    return found


def opened(page: Path, filter_label: str | None) -> tuple[float, float]:
    """Seconds to `page`'s load event in headless Chromium, and for a click on the label
    `filter_label` to be laid out (0 when None)."""
    from playwright.sync_api import sync_playwright

    from tests.support.browser import launch

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            tab = browser.new_page()
            started = time.perf_counter()
            tab.goto(page.as_uri(), wait_until="load", timeout=120_000)
            tab.evaluate("document.body.getBoundingClientRect()")  # laid out
            loaded = time.perf_counter() - started
            if filter_label is None:
                return loaded, 0.0
            started = time.perf_counter()
            tab.locator(f"label[for='{filter_label}']").click()
            tab.evaluate("document.body.getBoundingClientRect()")
            return loaded, time.perf_counter() - started
        finally:
            browser.close()


def browser_rows(count: int = 10_000) -> list[Row]:
    if shutil.which("chromium") is None:
        return [Row(f"HTML report of {count:,} scenarios opened in Chromium", "not measured",
                    "-", "-", "< 5 s", None)]
    run = large_run(count)
    with tempfile.TemporaryDirectory() as tmp:
        report, plain = Path(tmp) / "report.html", Path(tmp) / "plain.html"
        report.write_text(html_report.render(run), encoding="utf-8")
        text = reports.to_json(run)
        plain.write_text(f"<!DOCTYPE html><title>plain</title><pre>{html.escape(text)}</pre>",
                         encoding="utf-8")
        base, _ = opened(plain, None)
        loaded, filtered = opened(report, "fv-failed")
        size = report.stat().st_size
    return [Row(f"HTML report of {count:,} scenarios opened in Chromium ({size / 2**20:.1f} "
                "MiB), to its load event", f"{loaded:.2f} s",
                f"{base:.2f} s (its JSON in one <pre>)", f"{loaded / base:.1f}x", "< 5 s",
                loaded < 5.0),
            Row("the same page: the \"failed\" filter clicked and laid out", f"{filtered:.2f} s",
                f"{base:.2f} s (its JSON in one <pre>)", f"{filtered / base:.1f}x", "< 1 s",
                filtered < 1.0)]


if __name__ == "__main__":
    from benchmarks.report import table

    print(table([*rows(), *browser_rows()]))
