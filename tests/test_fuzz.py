"""Property-based fuzzing of the input surfaces (docs/security.md): whatever comes in, no
traceback, a clear error naming the value where one is due, and the surface still serves.

Quick in CI (the hypothesis profile's example count); deeper on demand:
`python -m pytest tests/test_fuzz.py --hypothesis-profile deep` (see tests/conftest.py).
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tck.kit import plainyaml, registry, reports
from agent_tck.kit.drivers.base import ImplInfo
from agent_tck.kit.errors import RegistryError
from agent_tck.kit.options import duration
from agent_tck.kit.text import markdown_inline
from agent_tck.kit.verdicts import FAILED, ReqVerdict, ScenarioResult
from agent_tck.reference.adapter import Adapter, serve
from agent_tck.reference.agent import CodingAgent, create_agent
from agent_tck.reference.dds.bus import loads_object
from agent_tck.reference.exceptions import ConfigError
from agent_tck.reference.pipeline.validate import validate_text

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=20,
)
LINES = st.one_of(st.text(max_size=200), JSON.map(json.dumps),
                  st.integers(1, 5000).map(lambda n: "[" * n),
                  st.sampled_from(['{"seq": 1, "cmd": "start", "version": NaN}', "Infinity"]))
REQS = registry.load()
COMMANDS = ["start", "parse_line", "agent.create", "agent.info", "responses.parse",
            "signal.parse", "contract.validate", "nope"]
REQUEST = st.fixed_dictionaries({"seq": JSON, "cmd": st.sampled_from(COMMANDS)},
                                optional={"backend": JSON, "line": JSON, "settings": JSON,
                                          "agent": JSON, "payload": JSON, "output": JSON,
                                          "document": JSON})


@given(st.lists(LINES | REQUEST.map(json.dumps), max_size=8))
def test_the_reference_adapter_answers_every_line_and_keeps_serving(lines: list[str]) -> None:
    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines]
    stdin = "\n".join([*lines, '{"seq": "end", "cmd": "stop"}']) + "\n"
    out = io.StringIO()
    assert serve(Adapter(), io.StringIO(stdin), out) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == len(lines) + 1  # one answer per line, the stop's last
    assert answers[-1] == {"seq": "end", "stopped": True}


@given(st.text(max_size=300) | JSON.map(json.dumps) | st.integers(1, 3000).map(lambda n: "{" * n))
def test_dds_metadata_from_a_peer_is_an_object_or_nothing(text: str) -> None:
    value = loads_object(text)
    assert isinstance(value, dict)


@given(st.text(max_size=400), st.sampled_from([None, "response", "metadata"]))
@settings(suppress_health_check=[HealthCheck.filter_too_much])
def test_pipeline_yaml_is_a_report_never_a_traceback(text: str, contract: str | None) -> None:
    report = validate_text(text, "fuzz.yml", contract)
    assert report.valid or all(issue.message for issue in report.issues)


@given(st.text(max_size=30))
def test_a_command_line_duration_is_a_number_or_a_usage_error_naming_it(text: str) -> None:
    try:
        value = duration(text)
    except argparse.ArgumentTypeError as exc:
        assert repr(text) in str(exc)
    else:
        assert 0 < value <= 7 * 24 * 3600


@given(st.dictionaries(st.sampled_from(["timeout", "grace_period", "env", "strip_env",
                                        "extra_args", "working_dir", "backend"]), JSON))
def test_agent_settings_are_taken_or_refused_with_a_config_error(
        settings_: dict[str, object]) -> None:
    try:
        create_agent(**settings_)
    except ConfigError as exc:
        assert str(exc)


@given(JSON)
def test_a_session_id_is_taken_only_when_it_is_a_plain_session_id(session: object) -> None:
    refused = CodingAgent.check_session(session)  # type: ignore[arg-type]
    if refused is None:
        assert session is None or (isinstance(session, str) and not session.startswith("-"))


@given(st.binary(max_size=300))
def test_a_baseline_of_any_bytes_loads_or_is_refused_naming_the_file(data: bytes) -> None:
    path = Path(f"/tmp/agent-tck-fuzz-{id(data)}.yaml")
    try:
        path.write_bytes(data)
        try:
            reports.load_baseline(path, REQS)
        except RegistryError as exc:
            assert str(path) in str(exc)
        try:
            plainyaml.load(path, "fuzz")
        except plainyaml.PlainYamlError as exc:
            assert str(path) in str(exc)
    finally:
        path.unlink(missing_ok=True)


@given(st.text(), st.text())
def test_reports_of_any_text_stay_well_formed(name: str, evidence: str) -> None:
    req = next(iter(REQS.values()))
    scenario = ScenarioResult("n", name, "agent", (req.id,), FAILED, evidence=evidence)
    run = reports.Run(ImplInfo(name, "x", name, ("agent",), ("claude",)), [scenario],
                      [ReqVerdict(req, FAILED, [scenario])], False, {}, [])
    ET.fromstring(reports.to_junit(run))
    heading = reports.to_markdown(run).splitlines()[0]
    assert heading.startswith("## agent-tck: ") and heading.endswith("is **not conformant**")
    assert "\n" not in markdown_inline(name) and "<" not in markdown_inline(name)


@pytest.mark.parametrize("depth", [10, 1000, 100_000])
def test_deep_nesting_everywhere_is_refused_cleanly(depth: int) -> None:
    text = "[" * depth + "]" * depth
    assert loads_object(text) == {}
    out = io.StringIO()
    serve(Adapter(), io.StringIO(text + '\n{"seq": 1, "cmd": "stop"}\n'), out)
    assert json.loads(out.getvalue().splitlines()[-1]) == {"seq": 1, "stopped": True}


@given(st.text(max_size=40))
@example("")
@example("report\0.json")  # a NUL no file name holds: found by a mutant of its check
def test_a_report_path_is_a_writable_place_or_a_usage_error_naming_it(text: str) -> None:
    from agent_tck.kit.run import report_path

    try:
        path = report_path(text)
    except argparse.ArgumentTypeError as exc:
        assert repr(text) in str(exc)
    else:
        assert "\0" not in str(path) and path.parent.is_dir() and not path.is_dir()


@given(st.text(max_size=12))
@example("²")  # a digit to str.isdigit, not to int(): found by this test
def test_a_worker_count_is_one_to_64_auto_or_a_usage_error_naming_it(text: str) -> None:
    from agent_tck.kit.run import workers

    try:
        value = workers(text)
    except argparse.ArgumentTypeError as exc:
        assert repr(text) in str(exc)
    else:
        assert value == "auto" or 1 <= int(value) <= 64


SEED_LINES = st.lists(st.one_of(
    st.sampled_from(["GIVEN a thing.", "WHEN it runs.", "THEN it works.", "# Title",
                     "## Section", "### Scenario: one", "```", "", "- item", "When bare"]),
    st.text(max_size=30)), max_size=12).map("\n".join)


@given(SEED_LINES)
def test_a_seed_document_converts_to_parsable_gherkin_or_is_refused_naming_it(
        text: str) -> None:
    from agent_tck.kit import gherkin
    from agent_tck.kit.errors import SpecError

    try:
        doc = gherkin.parse(text, "seed.md")
    except SpecError as exc:
        assert "seed.md" in str(exc)
        return
    rendered = gherkin.render(doc, feature="Fuzz", id_prefix="FZ", origin="seed.md")
    gherkin.check_gherkin(rendered, "seed.md")  # what the converter writes always parses


@given(st.binary(max_size=200))
def test_a_manifest_of_any_bytes_is_read_or_refused_naming_the_file(data: bytes) -> None:
    from agent_tck.kit.errors import SpecError
    from agent_tck.kit.gherkin import read_manifest

    path = Path(f"/tmp/agent-tck-fuzz-manifest-{id(data)}.yaml")
    try:
        path.write_bytes(data)
        try:
            pairs = read_manifest(path)
        except SpecError as exc:
            assert str(path) in str(exc)
        else:
            assert all(isinstance(prefix, str) for _, prefix in pairs)
    finally:
        path.unlink(missing_ok=True)


@given(st.binary(max_size=300), st.lists(st.integers(1, 50), max_size=10))
def test_cli_stdout_in_any_chunks_gives_the_same_lines(data: bytes, cuts: list[int]) -> None:
    from agent_tck.reference.supervisor import LineSplitter

    lines: list[str] = []
    splitter = LineSplitter(lines.append, limit=64)
    rest = data
    for cut in cuts:
        splitter.feed(rest[:cut])
        rest = rest[cut:]
    splitter.feed(rest)
    splitter.close()
    whole = data.split(b"\n")
    if whole and whole[-1] == b"":
        whole.pop()  # a final newline ends the last line; it starts no new one
    kept = [line.decode("utf-8", errors="replace") for line in whole if len(line) <= 64]
    assert lines == kept and splitter.skipped == len(whole) - len(kept)


class _Says:
    """An adapter process that answers every request with one fixed line."""

    def __init__(self, line: str) -> None:
        self.line = line

    def send(self, message: dict[str, object]) -> None:
        pass

    def receive(self, timeout: float) -> str:
        return self.line


@given(st.one_of(st.text(max_size=200), JSON.map(json.dumps),
                 st.fixed_dictionaries({"seq": st.just(1)}, optional={
                     "stopped": JSON, "error": JSON, "info": JSON}).map(json.dumps)))
@example("[" * 100_000)  # deeper than the JSON parser goes: found by a review
def test_any_adapter_answer_is_taken_or_a_typed_driver_error(line: str) -> None:
    from agent_tck.kit.drivers.stdio import StdioDriver
    from agent_tck.kit.errors import DriverError

    driver = StdioDriver.__new__(StdioDriver)  # no adapter started: the line is the input
    driver.timeout = 1.0
    try:
        answer = driver._exchange(_Says(line), {"seq": 1, "cmd": "stop"})  # type: ignore[arg-type]
    except DriverError as exc:
        assert str(exc)
    else:
        assert answer["seq"] == 1


# Text as an implementation can send it: lone surrogates (JSON carries them as escapes) and
# control characters included.
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=60)
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=20,
)


def _mended(value: object) -> object:
    """`value` with each lone surrogate of its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, list):
        return [_mended(item) for item in value]
    if isinstance(value, dict):
        return {_mended(k): _mended(v) for k, v in value.items()}
    return value


@given(ANY_JSON, st.booleans())
@example(["\ud800", {"k\udc00": "\x1b\x07\x00"}, "\ud83d\ude00\\ud800"], True)
@example(["\ud800", {"k\udc00": "\x1b\x07\x00"}, "\ud83d\ude00\\ud800"], False)
def test_an_adapters_strings_arrive_as_sent_but_for_lone_surrogates(value: object,
                                                                    ascii_only: bool) -> None:
    """Control characters reach the steps as sent (a scenario may check them); a lone
    surrogate, escaped or not, arrives as U+FFFD (two escapes that make a pair, one
    character)."""
    from agent_tck.kit.drivers.stdio import StdioDriver

    driver = StdioDriver.__new__(StdioDriver)  # no adapter started: the line is the input
    driver.timeout = 1.0
    line = json.dumps({"seq": 1, "error": {"message": "m", "data": value}},
                      ensure_ascii=ascii_only)
    answer = driver._exchange(_Says(line), {"seq": 1, "cmd": "stop"})  # type: ignore[arg-type]
    assert answer["error"]["data"] == _mended(json.loads(line)["error"]["data"])


@given(ANY_TEXT)
def test_any_text_shown_on_a_terminal_is_inert_and_encodable(text: str) -> None:
    from agent_tck.kit.text import CONTROL, printable

    shown = printable(text)
    shown.encode("utf-8")
    assert not CONTROL.search(shown.replace("\t", "").replace("\n", ""))


@given(ANY_TEXT, ANY_TEXT, ANY_TEXT)
@example("name \ud800", "evidence \x1b[2J \udfff", "Refused: \ud800\x85")
def test_reports_of_any_text_are_written_and_read_back(name: str, evidence: str,
                                                       error: str) -> None:
    """Every report a run writes is written whole; the JSON report and the baseline are read
    back by the kit's own readers."""
    from agent_tck.kit import html_report, messages
    from agent_tck.kit.files import write_atomically
    from agent_tck.kit.text import CONTROL

    req = REQS["RUN-SIG-1"]
    scenario = ScenarioResult(
        "n", name, "runner", (req.id,), FAILED, evidence=evidence, error=error, title=name,
        where="features/runner/004_signals.feature:13", steps=[["Given", name, "failed"]])
    run = reports.Run(ImplInfo(name, "x", name, ("runner",), ()), [scenario],
                      [ReqVerdict(req, FAILED, [scenario])], False, {}, [])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for kind, render in (("json", reports.to_json), ("xml", reports.to_junit),
                             ("md", reports.to_markdown), ("html", html_report.render),
                             ("ndjson", messages.render)):
            write_atomically(folder / f"run.{kind}", render(run))
        baseline = folder / "baseline.yaml"
        write_atomically(baseline, reports.baseline_text(run.verdicts, "2031-01-02"))
        assert reports.load_report(folder / "run.json").name == _mended(name)
        ET.parse(folder / "run.xml")
        stream = (folder / "run.ndjson").read_text(encoding="utf-8")
        assert not CONTROL.search(stream)  # JSON's newlines end lines: none is in a string
        for line in stream.split("\n")[:-1]:
            json.loads(line)
        reason = reports.load_baseline(baseline, REQS)[req.id]
        assert reason.startswith("failed on 2031-01-02: ") and reason == _mended(reason)


@given(st.binary(max_size=40), st.integers(0, 50))
def test_a_user_file_is_read_whole_within_its_bound_or_refused_naming_it(data: bytes,
                                                                         limit: int) -> None:
    from agent_tck.kit.errors import UsageError
    from agent_tck.kit.files import read_bounded

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "file"
        path.write_bytes(data)
        try:
            assert read_bounded(path, limit, "thing") == data and len(data) <= limit
        except UsageError as exc:
            assert len(data) > limit
            assert str(exc) == f"thing {path}: {len(data)} bytes, over the limit of {limit}"
