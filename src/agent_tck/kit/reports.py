"""Reports of a conformance run: JSON, JUnit XML, Markdown, and the expected-failures baseline.

Every writer goes through a temporary file and a rename, so a report is either whole or absent.
"""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from agent_tck.kit import plainyaml, verdicts
from agent_tck.kit.drivers.base import ImplInfo
from agent_tck.kit.errors import RegistryError, UsageError
from agent_tck.kit.failures import explain, scenario
from agent_tck.kit.files import read_bounded
from agent_tck.kit.text import markdown_inline, well_formed, well_formed_json, xml_safe
from agent_tck.kit.verdicts import ERRORED, FAILED, PASSED, ReqVerdict, ScenarioResult

BAD = (FAILED, ERRORED)


@dataclass
class Run:
    """Everything a report needs."""

    impl: ImplInfo
    scenarios: list[ScenarioResult]
    verdicts: list[ReqVerdict]
    conformant: bool
    expected: dict[str, str]  # baselined requirement -> reason
    stale: list[str]
    summary: str = ""  # the one-line verdict the terminal shows (verdicts.summary)
    # What the run judged (kit/run.py `judge`): its shard, components, another selection.
    selection: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """The run's verdict as every report leads with it (verdicts.word)."""
        return verdicts.word(self.verdicts, self.conformant, self.expected)


def to_json(run: Run) -> str:
    """The report as JSON (text escaped as JSON does, no lone surrogate: any JSON parser
    reads it, strict ones too)."""
    header = {
        "suite": "agent-tck",
        "implementation": vars(run.impl)
        | {"components": list(run.impl.components), "backends": list(run.impl.backends)},
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "run": run.selection,
    }
    body = {
        "header": header,
        "scenarios": [vars(s) | {"reqs": list(s.reqs)} for s in run.scenarios],
        "requirements": [
            {
                "id": v.req.id,
                "level": v.req.level,
                "text": v.req.text,
                "source": v.req.source,
                "verdict": v.verdict,
                "expected_failure": run.expected.get(v.req.id),
                "scenarios": [s.nodeid for s in v.scenarios],
                "evidence": [s.evidence for s in v.scenarios if s.verdict in BAD],
            }
            for v in run.verdicts
        ],
        "footer": {
            "conformant": run.conformant,
            "verdict": run.verdict,
            "stale_baseline_entries": run.stale,
            "summary": run.summary,
            "counts": _counts(v.verdict for v in run.verdicts),
        },
    }
    return well_formed_json(json.dumps(body, indent=2)) + "\n"


def _counts(verdicts: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for verdict in verdicts:
        counts[verdict] = counts.get(verdict, 0) + 1
    return counts


def to_junit(run: Run) -> str:
    """JUnit XML as every common CI viewer reads it (tests/schemas/junit.xsd): one testsuite,
    a testcase per scenario with its requirements in its system-out (viewers show that text;
    a testcase may hold no properties), failures and errors with a message and a type."""
    scenarios = run.scenarios
    suite = ET.Element("testsuite", name=xml_safe(f"agent-tck: {run.impl.name}"),
                       tests=str(len(scenarios)))
    counts = _counts(s.verdict for s in scenarios)
    failures, errors = counts.get(FAILED, 0), counts.get(ERRORED, 0)
    skipped = len(scenarios) - counts.get(PASSED, 0) - failures - errors
    for kind, count in (("failures", failures), ("errors", errors), ("skipped", skipped)):
        suite.set(kind, str(count))
    suite.set("time", f"{sum(s.duration for s in scenarios):.3f}")
    props = ET.SubElement(suite, "properties")
    for name, value in (("implementation", run.impl.name), ("version", run.impl.version),
                        ("verdict", run.summary)):
        ET.SubElement(props, "property", name=name, value=xml_safe(value))
    for s in scenarios:
        case = ET.SubElement(suite, "testcase", classname=s.component or "agent-tck",
                             name=xml_safe(s.name), time=f"{s.duration:.3f}")
        evidence = xml_safe(s.evidence)
        if s.verdict in BAD:
            told = xml_safe(scenario(s)) if s.message else evidence
            ET.SubElement(case, "failure" if s.verdict == FAILED else "error",
                          message=evidence.splitlines()[-1] if evidence else s.verdict,
                          type=xml_safe(s.error.partition(":")[0]) or s.verdict).text = told
        elif s.verdict != PASSED:
            ET.SubElement(case, "skipped", message=evidence or s.verdict)
        ET.SubElement(case, "system-out").text = f"requirements: {', '.join(s.reqs)}"
        if s.verdict in BAD and s.message:  # pytest's own report, after the spec's
            ET.SubElement(case, "system-err").text = evidence
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def to_markdown(run: Run) -> str:
    verdict = run.verdict.lower() if run.conformant else "**not conformant**"
    counts = ", ".join(
        f"{n} {k}" for k, n in sorted(_counts(v.verdict for v in run.verdicts).items())
    )
    lines = [
        f"## agent-tck: {markdown_inline(f'{run.impl.name} {run.impl.version}')} is {verdict}",
        "",
        f"{len(run.verdicts)} requirements: {counts}.",
        "",
    ]
    bad = [v for v in run.verdicts if v.verdict in BAD]
    if bad:
        lines += ["| requirement | level | verdict | text |", "|---|---|---|---|"]
        lines += [
            f"| {v.req.id} | {v.req.level} | {v.verdict}"
            f"{' (expected)' if v.req.id in run.expected else ''} | {v.req.text} |"
            for v in bad
        ]
        lines.append("")
    if run.stale:
        lines += [f"Stale baseline entries (now passing): {', '.join(run.stale)}", ""]
    told = explain(run.verdicts, run.expected)
    if told:  # a <pre> block runs to its end tag, blank lines and all; its text is escaped
        lines += ["<details><summary>Failures, as the spec reads them</summary>", "",
                  f"<pre>{html.escape(xml_safe(told))}</pre>", "", "</details>", ""]
    lines += [
        "<details><summary>All requirements</summary>",
        "",
        "| requirement | level | verdict |",
        "|---|---|---|",
    ]
    lines += [f"| {v.req.id} | {v.req.level} | {v.verdict} |" for v in run.verdicts]
    lines += ["", "</details>", ""]
    return "\n".join(lines)


def load_baseline(path: Path, known: Iterable[str]) -> dict[str, str]:
    """Requirement ID -> reason. Unknown IDs and entries without a reason are errors."""
    try:
        entries = plainyaml.load(path, "baseline")
    except plainyaml.PlainYamlError as exc:
        raise RegistryError(str(exc)) from None
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise RegistryError(f"baseline {path}: expected a list of {{id, reason}}")
    known = set(known)
    baseline: dict[str, str] = {}
    for index, entry in enumerate(entries):
        where = f"baseline {path}: entry {index}"
        if not isinstance(entry, dict) or set(entry) != {"id", "reason"}:
            raise RegistryError(f"{where}: needs exactly 'id' and 'reason'")
        if not isinstance(entry["id"], str):
            raise RegistryError(f"{where}: id {entry['id']!r:.80} is not a requirement ID")
        if entry["id"] not in known:
            raise RegistryError(f"{where}: unknown requirement {entry['id']!r}")
        if not str(entry["reason"]).strip():
            raise RegistryError(f"{where}: {entry['id']} has an empty reason")
        baseline[str(entry["id"])] = str(entry["reason"])
    return baseline


def apply_baseline(verdicts: list[ReqVerdict], baseline: dict[str, str]) -> list[str]:
    """The stale entries: baselined requirements that passed. One the run did not judge (not
    run, not applicable) stays listed: nothing shows that it no longer fails."""
    return sorted(v.req.id for v in verdicts if v.req.id in baseline and v.verdict == PASSED)


def baseline_text(verdicts: list[ReqVerdict], run_date: str) -> str:
    """The failing requirements as a baseline that `load_baseline` reads back: each reason
    without a lone surrogate, which YAML writes as an escape its readers refuse."""
    entries = [
        {"id": v.req.id,
         "reason": well_formed(f"{v.verdict} on {run_date}: " + _first_line(v.scenarios))}
        for v in verdicts
        if v.verdict in BAD
    ]
    head = "# Expected failures: each failing requirement with the reason it is accepted.\n"
    return head + (yaml.safe_dump(entries, sort_keys=False, width=100) if entries else "[]\n")


def _first_line(scenarios: list[ScenarioResult]) -> str:
    """What failed first, in a line (the exception), else the last line of evidence."""
    errors = [s.error for s in scenarios if s.error]
    lines = [line for s in scenarios for line in s.evidence.splitlines() if line.strip()]
    return (errors or lines[-1:] or ["no evidence recorded"])[0][:200]


# Several runs side by side (`agent-tck report A.json B.json ...`): the JSON reports read back
# (a report can come from anyone: each is bounded in size and checked field by field), then
# one row per requirement and one column per report.
MAX_REPORT_BYTES = 64 * 2**20
MAX_REPORTS = 32
ABSENT = "absent"  # the requirement is not in that report (another kit, other components)


@dataclass(frozen=True)
class Judged:
    """What the matrix reads of one JSON report."""

    source: str
    name: str
    version: str
    language: str
    conformant: bool
    summary: str
    reqs: dict[str, tuple[str, str, str]]  # requirement ID -> (level, text, verdict)
    evidence: dict[str, list[str]]  # requirement ID -> what its failed scenarios showed
    verdict: str = ""  # the run's verdict in words (reports before the field have none)

    @property
    def word(self) -> str:
        return self.verdict or ("CONFORMANT" if self.conformant else "NOT CONFORMANT")


@dataclass(frozen=True)
class MatrixRow:
    id: str
    level: str
    text: str
    verdicts: tuple[str, ...]  # one per report, ABSENT where it has no such requirement
    differs: bool  # the reports that judged it did not all come to the same verdict


def load_reports(paths: list[Path]) -> list[Judged]:
    if len(paths) > MAX_REPORTS:
        raise RegistryError(f"{len(paths)} reports: at most {MAX_REPORTS} side by side")
    return [load_report(path) for path in paths]


def load_report(path: Path) -> Judged:
    """One `agent-tck run --json` report; RegistryError naming the file and the JSON path.
    Its text is someone else's: a lone surrogate in it is read as U+FFFD."""
    try:
        raw = read_bounded(path, MAX_REPORT_BYTES, "report")
    except UsageError as exc:
        raise RegistryError(str(exc)) from None
    try:
        data = json.loads(well_formed_json(raw.decode("utf-8")))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RegistryError(f"report {path}: cannot read it as JSON: {exc}") from None
    where = f"report {path}"
    impl = _member(data, "header", dict, where, "$")
    impl = _member(impl, "implementation", dict, where, "$.header")
    facts = {k: _member(impl, k, str, where, "$.header.implementation")
             for k in ("name", "version", "language")}
    footer = _member(data, "footer", dict, where, "$")
    rows = _member(data, "requirements", list, where, "$")
    return Judged(
        str(path), facts["name"], facts["version"], facts["language"],
        _member(footer, "conformant", bool, where, "$.footer"),
        str(footer.get("summary", "")),  # reports before the field have none
        {str(r["id"]): (r["level"], r["text"], r["verdict"])
         for r in (_requirement(row, where, i) for i, row in enumerate(rows))},
        {str(row["id"]): [str(e) for e in row.get("evidence") or []] for row in rows},
        str(footer.get("verdict", "")),
    )


def _requirement(row: object, where: str, index: int) -> dict[str, str]:
    at = f"$.requirements[{index}]"
    if not isinstance(row, dict):
        raise RegistryError(f"{where}: {at} is not an object")
    evidence = row.get("evidence", [])
    if not isinstance(evidence, list):
        raise RegistryError(f"{where}: {at}.evidence is not a list")
    return {k: _member(row, k, str, where, at) for k in ("id", "level", "text", "verdict")}


def _member(obj: Any, key: str, kind: type, where: str, at: str) -> Any:
    """obj[key], which must be a `kind`; `at`: where obj is in the report (a JSON path)."""
    if not isinstance(obj, dict):
        raise RegistryError(f"{where}: {at} is not an object")
    if key not in obj:
        raise RegistryError(f"{where}: {at}.{key} is missing")
    if not isinstance(obj[key], kind):
        raise RegistryError(f"{where}: {at}.{key} is not a {kind.__name__}: "
                            f"{type(obj[key]).__name__}")
    return obj[key]


def matrix(judged: list[Judged]) -> list[MatrixRow]:
    """One row per requirement any report judged, in the order they first appear."""
    ids = list(dict.fromkeys(rid for j in judged for rid in j.reqs))
    rows = []
    for rid in ids:
        level, text, _ = next(j.reqs[rid] for j in judged if rid in j.reqs)
        cells = tuple(j.reqs[rid][2] if rid in j.reqs else ABSENT for j in judged)
        rows.append(MatrixRow(rid, level, text, cells, len(set(cells) - {ABSENT}) > 1))
    return rows


def matrix_markdown(judged: list[Judged]) -> str:
    rows = matrix(judged)
    numbers = " | ".join(str(i) for i in range(1, len(judged) + 1))
    lines = [f"## agent-tck: {len(judged)} reports side by side", "",
             "| # | implementation | language | verdict | summary | report |",
             "|---|---|---|---|---|---|", *map(_report_line, range(1, len(judged) + 1), judged),
             "", f"{sum(r.differs for r in rows)} of {len(rows)} requirements differ "
             "(marked **≠**).", "",
             f"| requirement | level | {numbers} |", "|---|---|" + "---|" * len(judged)]
    lines += [f"| {'**≠** ' if r.differs else ''}{markdown_inline(r.id)} | "
              f"{markdown_inline(r.level)} | "
              + " | ".join(markdown_inline(v) for v in r.verdicts) + " |" for r in rows]
    return "\n".join([*lines, ""])


def _report_line(number: int, j: Judged) -> str:
    verdict = j.word.lower() if j.conformant else "**not conformant**"
    cells = [markdown_inline(f"{j.name} {j.version}"), markdown_inline(j.language), verdict,
             markdown_inline(j.summary), markdown_inline(j.source)]
    return f"| {number} | " + " | ".join(cells) + " |"
