"""The HTML report of a conformance run: one self-contained file a person opens in a browser.

The verdict comes first (the run's, then counts by verdict and level), then each component's
requirements, each one a `<details>` (with an anchor: `report.html#RP-5.1`) that opens to its
scenarios written as Gherkin, every step marked passed, failed or skipped, and the evidence of
a failure. Filters by verdict, level and component are radio buttons and CSS: the file has no
script, loads nothing from anywhere, and works with JavaScript off. Every piece of text goes
through `escape` (an implementation's name, its errors and its stderr are hostile).
`page_head`, `escape`, `slug` and `BASE_CSS` are shared with the spec's site (kit/docs_site.py).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from datetime import UTC, datetime

from agent_tck.kit.registry import Hazard
from agent_tck.kit.reports import ABSENT, BAD, Judged, MatrixRow, Run, matrix
from agent_tck.kit.text import xml_safe
from agent_tck.kit.verdicts import (
    ERRORED,
    FAILED,
    NA,
    NOT_RUN,
    PASSED,
    SKIPPED,
    ReqVerdict,
    ScenarioResult,
)

VERDICTS = (FAILED, ERRORED, PASSED, NA, NOT_RUN)  # a requirement's, worst first
LEVELS = ("MUST", "SHOULD")
MARKS = {PASSED: "\u2713", FAILED: "\u2717", SKIPPED: "-", NA: "\u2205"}  # how a step went

# What every page of the kit shares (the report, the matrix and the spec's site).
BASE_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:72em;padding:1em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:1.5em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.15em .6em;text-align:right}
th:first-child,td:first-child{text-align:left}
.gherkin{font-family:monospace;margin:.3em 0 .3em 1em}.steps{list-style:none;padding-left:2em}
.kw{font-weight:bold}pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}
pre,code{overflow-wrap:anywhere}
.meta{color:#666;font-size:.85em}
"""
CSS = BASE_CSS + """
.outcome{font-size:1.6em;font-weight:bold;margin:.2em 0}.good{color:#176b1c}.bad{color:#b00020}
dt{font-weight:bold;float:left;width:8em}
dd{margin-left:8em}.f{position:absolute;opacity:0;pointer-events:none}
nav{margin:1em 0}nav div{margin:.2em 0}
nav label{border:1px solid #aaa;border-radius:3px;padding:0 .4em;cursor:pointer}
details.req{border:1px solid #ddd;border-radius:3px;margin:.3em 0;padding:.2em .5em}
details.req>summary{cursor:pointer}.rid{font-family:monospace;font-weight:bold}
.verdict{border-radius:3px;padding:0 .3em;font-size:.9em}
.v-passed{background:#dff3e0}.v-failed,.v-errored{background:#fbdde1}
.v-not-applicable,.v-not-run,.v-skipped{background:#eee}
.step.passed .mark{color:#176b1c}.step.failed{color:#b00020;font-weight:bold}
.step.skipped{color:#555}
"""


def render(run: Run, finished: str | None = None) -> str:
    """The whole report; `finished` (ISO date and time) defaults to now."""
    when = finished or datetime.now(UTC).isoformat(timespec="seconds")
    components = list(dict.fromkeys(v.req.component for v in run.verdicts))
    return "\n".join([
        page_head(f"agent-tck: {run.impl.name} {run.impl.version}",
                  CSS + _filter_css(components)),
        _summary(run, when),
        "<main>",
        *_radios(components),
        _filters(components),
        *(_component(c, [v for v in run.verdicts if v.req.component == c], run)
          for c in components),
        "</main></body></html>",
        "",
    ])


def page_head(title: str, css: str) -> str:
    """A page's doctype and head, its stylesheet inline, up to the opening <body>."""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{css}</style></head><body>",
    ])


def escape(value: object) -> str:
    """Any text, inert in HTML content and attribute values."""
    return html.escape(xml_safe(str(value)), quote=True)


def slug(value: str) -> str:
    """A class or id fragment: 'not applicable' -> 'not-applicable'."""
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")


# Filters: one radio group per axis (verdict, level, component), checked "all" by default.
# The inputs (visually hidden, still focused and toggled by the keyboard) open <main>, before
# <nav> and the components, their siblings: `#radio:checked~...` selectors hide what a filter
# excludes (`body:has(#radio:checked)` would too, at half the browser's speed on a large page).
def _axes(components: list[str]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(group, what it filters, values) per filter axis."""
    return [("fv", "verdict", VERDICTS), ("fl", "level", LEVELS),
            ("fc", "component", tuple(components))]


def radio(group: str, value: str, checked: bool) -> str:
    """A filter's hidden radio input, labelled by `value`."""
    return (f'<input type="radio" class="f" name="{group}" id="{group}-{slug(value)}"'
            f'{" checked" if checked else ""}>')


def label(group: str, value: str) -> str:
    return f'<label for="{group}-{slug(value)}">{escape(value)}</label>'


def _radios(components: list[str]) -> list[str]:
    return [radio(group, value, value == "all")
            for group, _, values in _axes(components) for value in ("all", *values)]


def _filters(components: list[str]) -> str:
    rows = [f"<div>{what}: " + " ".join(label(group, v) for v in ("all", *values)) + "</div>"
            for group, what, values in _axes(components)]
    return '<nav aria-label="filters"><h2>Requirements</h2>' + "".join(rows) + "</nav>"


def _filter_css(components: list[str]) -> str:
    """Hide what the checked radio of each axis excludes; mark the checked label and the
    focused one. A component left with nothing to show is hidden too, where the browser knows
    `:has`."""
    prefix = {"fv": "v", "fl": "l", "fc": "c"}
    rules = []
    for group, _, values in _axes(components):
        for value in ("all", *values):
            ident = f"{group}-{slug(value)}"
            shown = f'~nav label[for="{ident}"]'
            rules.append(f"#{ident}:checked{shown}{{background:#333;color:#fff}}")
            rules.append(f"#{ident}:focus-visible{shown}{{outline:2px solid}}")
            if value != "all":
                cls = f"{prefix[group]}-{slug(value)}"
                rules.append(f"#{ident}:checked~.comp .req:not(.{cls}){{display:none}}")
                rules.append(f"#{ident}:checked~.comp:not(:has(.req.{cls})){{display:none}}")
    return "\n".join(rules)


def _summary(run: Run, when: str) -> str:
    impl = run.impl
    outcome = run.verdict
    parts = [
        "<header>",
        f"<h1>agent-tck: {escape(impl.name)} {escape(impl.version)}</h1>",
        f'<p id="outcome" class="outcome {"good" if run.conformant else "bad"}">{outcome}</p>',
        f'<p id="summary">{escape(run.summary)}</p>' if run.summary else "",
        "<dl>",
        f"<dt>name</dt><dd>{escape(impl.name)}</dd>",
        f"<dt>version</dt><dd>{escape(impl.version)}</dd>",
        f"<dt>language</dt><dd>{escape(impl.language)}</dd>",
        f"<dt>components</dt><dd>{escape(', '.join(impl.components))}</dd>",
        f"<dt>backends</dt><dd>{escape(', '.join(impl.backends))}</dd>",
        f"<dt>finished</dt><dd><time>{escape(when)}</time></dd>",
        "</dl>",
        _counts_table(run.verdicts),
        _bad_list(run),
        _stale(run.stale),
        "</header>",
    ]
    return "\n".join(p for p in parts if p)


def _counts_table(verdicts: list[ReqVerdict]) -> str:
    """Requirements by verdict (rows) and level (columns), with totals."""
    counts = Counter((v.verdict, v.req.level) for v in verdicts)
    head = "<tr><th>verdict</th>" + "".join(f"<th>{lvl}</th>" for lvl in LEVELS) + "<th>all</th>"
    rows = [head + "</tr>"]
    for verdict in VERDICTS:
        cells = [counts[verdict, level] for level in LEVELS]
        rows.append(f'<tr class="v-{slug(verdict)}"><td>{verdict}</td>'
                    + "".join(f"<td>{n}</td>" for n in [*cells, sum(cells)]) + "</tr>")
    totals = [sum(v.req.level == level for v in verdicts) for level in LEVELS]
    rows.append("<tr><th>all</th>" + "".join(f"<th>{n}</th>" for n in [*totals, len(verdicts)])
                + "</tr>")
    return '<table id="counts">' + "".join(rows) + "</table>"


def _bad_list(run: Run) -> str:
    """Links to the failed and errored requirements, MUSTs first."""
    bad = sorted((v for v in run.verdicts if v.verdict in BAD),
                 key=lambda v: LEVELS.index(v.req.level) if v.req.level in LEVELS else 2)
    if not bad:
        return ""
    items = "".join(
        f'<li><a href="#{escape(v.req.id)}">{escape(v.req.id)}</a> {escape(v.req.level)} '
        f"{escape(v.verdict)}{_expected(run, v)}</li>" for v in bad)
    return f'<h2>Failed requirements</h2><ul id="failing">{items}</ul>'


def _expected(run: Run, verdict: ReqVerdict) -> str:
    """' (expected)' after a failure the baseline expects, as the terminal's table says."""
    return " (expected)" if verdict.req.id in run.expected and verdict.verdict in BAD else ""


def _stale(stale: list[str]) -> str:
    if not stale:
        return ""
    links = ", ".join(f'<a href="#{escape(rid)}">{escape(rid)}</a>' for rid in stale)
    return f'<p id="stale">Stale baseline entries (now passing): {links}</p>'


def _component(name: str, verdicts: list[ReqVerdict], run: Run) -> str:
    reqs = "\n".join(_requirement(v, run) for v in verdicts)
    return (f'<section class="comp c-{slug(name)}" id="component-{slug(name)}">'
            f"<h2>{escape(name)}</h2>\n{reqs}\n</section>")


def _requirement(v: ReqVerdict, run: Run) -> str:
    req = v.req
    classes = f"req v-{slug(v.verdict)} l-{slug(req.level)} c-{slug(req.component)}"
    reason = run.expected.get(req.id)
    return "\n".join(p for p in [
        f'<details class="{classes}" id="{escape(req.id)}"{" open" if v.verdict in BAD else ""}>',
        f'<summary><span class="rid">{escape(req.id)}</span> {escape(req.level)} '
        f'<span class="verdict v-{slug(v.verdict)}">{escape(v.verdict)}'
        f"{_expected(run, v)}</span> {escape(req.text)}</summary>",
        f'<p class="meta">source: {escape(req.source)}</p>{hazards_html(req.hazards)}',
        f'<p class="expected">expected failure: {escape(reason)}</p>' if reason else "",
        _scenarios(v.scenarios),
        "</details>",
    ] if p)


def hazards_html(hazards: tuple[Hazard, ...]) -> str:
    """The real failures a requirement guards against, each linked where it was seen (a
    recorded transcript is named: a page does not carry the fixtures)."""
    if not hazards:
        return ""
    items = [f'<li><a href="{escape(h.url)}">{escape(h.url.removeprefix("https://github.com/"))}'
             f"</a>: {escape(h.what)}</li>" if h.url.startswith("https://") else
             f"<li><code>{escape(h.url)}</code>: {escape(h.what)}</li>" for h in hazards]
    return f'<p class="meta">guards against:</p><ul class="hazards">{"".join(items)}</ul>'


def _scenarios(scenarios: list[ScenarioResult]) -> str:
    if not scenarios:
        return '<p class="meta">no scenario of this requirement was selected</p>'
    return "<ol class=\"scenarios\">" + "".join(
        f"<li>{_scenario(s)}</li>" for s in scenarios) + "</ol>"


def _scenario(s: ScenarioResult) -> str:
    return "\n".join(p for p in [
        f'<details class="scenario v-{slug(s.verdict)}"{" open" if s.verdict in BAD else ""}>',
        f'<summary><span class="verdict v-{slug(s.verdict)}">{escape(s.verdict)}</span> '
        f"{escape(s.title or s.name)}{escape(_param(s.name))}</summary>",
        f'<p class="meta">{escape(s.where) + ", " if s.where else ""}'
        f"<code>{escape(s.nodeid)}</code>, {s.duration:.2f} s</p>",
        _gherkin(s),
        f'<p class="error">{escape(s.error)}</p>' if s.error else "",
        _evidence(s),
        "</details>",
    ] if p)


def _gherkin(s: ScenarioResult) -> str:
    """The scenario's steps, each marked; without recorded steps, a line that says so."""
    if not s.steps:
        return '<p class="meta">no step ran</p>'
    tags = " ".join(f"@req:{rid}" for rid in s.reqs)
    steps = "".join(_step(kw, text, status, s.argument) for kw, text, status in s.steps)
    return (f'<div class="gherkin"><div class="meta">{escape(tags)}</div>'
            f'<div><span class="kw">Scenario:</span> {escape(s.title)}</div>'
            f'<ol class="steps">{steps}</ol></div>')


def _param(name: str) -> str:
    """The parameter of a scenario's run, ' [claude]' of 'test_x[claude]', else ''."""
    return f" [{name.partition('[')[2]}" if name.endswith("]") else ""


def _step(keyword: str, text: str, status: str, argument: str = "") -> str:
    """A step and its mark; the failed one with its docstring or table (what it expected)."""
    mark = MARKS.get(status, "?")
    shown = f'<pre class="argument">{escape(argument)}</pre>' if argument and (
        status == FAILED) else ""
    return (f'<li class="step {slug(status)}"><span class="mark" title="{escape(status)}">'
            f'{mark}</span> <span class="kw">{escape(keyword)}</span> {escape(text)}{shown}</li>')


def _evidence(s: ScenarioResult) -> str:
    """What happened, in full, and the last of the exchange; pytest's own report folded."""
    if not s.evidence and not s.message:
        return ""
    if s.verdict not in BAD:
        return f'<p class="reason">{escape(s.evidence)}</p>'
    told = f"{s.message}\n\n{s.exchange}".strip() if s.message else s.evidence
    folded = (f"<details><summary>pytest's report</summary><pre class=\"engine\">"
              f"{escape(s.evidence)}</pre></details>") if s.message and s.evidence else ""
    return f'<pre class="evidence">{escape(told)}</pre>{folded}'


# Several runs side by side (`agent-tck report`): a requirement per row, a report per column.
MATRIX_CSS = """
tr.differs{background:#fff4d6}tr.differs td:first-child{border-left:4px solid #b00020}
td.absent{color:#999}td.text{text-align:left;font-size:.85em}
#fd-differences-only:checked~table tr.same{display:none}
#fd-all:checked~nav label[for="fd-all"],
#fd-differences-only:checked~nav label[for="fd-differences-only"]{background:#333;color:#fff}
#fd-all:focus-visible~nav label[for="fd-all"],
#fd-differences-only:focus-visible~nav label[for="fd-differences-only"]{outline:2px solid}
"""


def render_matrix(judged: list[Judged]) -> str:
    """The reports' verdicts side by side; the rows where they differ marked, and a filter
    (CSS, no script) that shows only those."""
    rows = matrix(judged)
    differ = sum(r.differs for r in rows)
    return "\n".join([
        page_head(f"agent-tck: {len(judged)} reports side by side", CSS + MATRIX_CSS),
        f"<header><h1>agent-tck: {len(judged)} reports side by side</h1>",
        _reports_table(judged),
        f'<p id="differ">{differ} of {len(rows)} requirements differ.</p></header>',
        f'<main>{radio("fd", "all", True)}{radio("fd", "differences only", False)}',
        f'<nav aria-label="filters">show: {label("fd", "all")} '
        f'{label("fd", "differences only")}</nav>',
        f"{_matrix_table(judged, rows)}</main></body></html>",
        "",
    ])


def _reports_table(judged: list[Judged]) -> str:
    head = ("<tr><th>#</th><th>implementation</th><th>language</th><th>verdict</th>"
            "<th>summary</th><th>report</th></tr>")
    rows = "".join(
        f"<tr><td>{i}</td><td>{escape(j.name)} {escape(j.version)}</td>"
        f"<td>{escape(j.language)}</td>"
        f'<td class="{"good" if j.conformant else "bad"}">'
        f"{escape(j.word)}</td>"
        f'<td class="text">{escape(j.summary)}</td><td><code>{escape(j.source)}</code></td></tr>'
        for i, j in enumerate(judged, 1))
    return f'<table id="reports">{head}{rows}</table>'


def _matrix_table(judged: list[Judged], rows: list[MatrixRow]) -> str:
    head = "<tr><th>requirement</th><th>level</th><th>text</th>" + "".join(
        f"<th>{i}. {escape(j.name)} {escape(j.version)}</th>" for i, j in enumerate(judged, 1))
    body = "".join(
        f'<tr id="{escape(r.id)}" class="{"differs" if r.differs else "same"}">'
        f'<td><a href="#{escape(r.id)}">{escape(r.id)}</a></td><td>{escape(r.level)}</td>'
        f'<td class="text">{escape(r.text)}</td>'
        + "".join(_cell(v, j.evidence.get(r.id, [])) for v, j in zip(r.verdicts, judged,
                                                                       strict=True))
        + "</tr>" for r in rows)
    return f'<table id="matrix">{head}</tr>{body}</table>'


def _cell(verdict: str, evidence: list[str]) -> str:
    if verdict == ABSENT:
        return '<td class="absent" title="not in this report">-</td>'
    shown = escape(verdict)
    if verdict in BAD and evidence:
        shown = (f"<details><summary>{shown}</summary><pre class=\"evidence\">"
                 f"{escape(chr(10).join(evidence))}</pre></details>")
    return f'<td class="v-{slug(verdict)}">{shown}</td>'
