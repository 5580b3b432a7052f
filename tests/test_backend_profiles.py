"""One profile per backend holds everything backend-specific (doubles/backends).

The registry's backends, the profiles, the CLI schemas and the recorded transcripts name the
same CLIs; the profiles' lines are the CLIs' own; and no other module of the kit, the doubles
or the steps branches on a CLI's name (a new backend is a profile, not an edit of if-chains).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from agent_tck.doubles.backends import NAMES, PROFILES, profile
from agent_tck.doubles.backends.transcripts import index
from agent_tck.doubles.harness.script import Script
from agent_tck.doubles.realcli.shapes import off_schema
from agent_tck.kit import registry
from agent_tck.kit.errors import SuiteError

ROOT = Path(__file__).resolve().parent.parent
# Where a CLI's name may still be compared: the profiles themselves; the option recorder,
# which parses each CLI's own --help format; the runner's steps, whose spec (seed 004) is
# about one CLI, claude.
NAMED = {"doubles/backends", "doubles/realcli/options.py", "steps/runner_steps.py"}


def branches_on_a_cli(path: Path, root: Path = ROOT) -> list[str]:
    """`x == "claude"`-like comparisons and `if` tests on a CLI's name, as `file:line`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Compare):
            names = [c.value for c in [node.left, *node.comparators]
                     if isinstance(c, ast.Constant) and c.value in NAMES]
            if names:
                found.append(f"{path.relative_to(root)}:{node.lineno} compares with {names[0]!r}")
    return found


def test_no_module_outside_the_profiles_branches_on_a_cli_name() -> None:
    found = []
    for top in ("kit", "doubles", "steps"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not any(rel == n or rel.startswith(n + "/") for n in NAMED):
                found += branches_on_a_cli(path)
    assert found == []


def test_a_comparison_with_a_cli_name_is_found(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text('if backend == "codex":\n    pass\n')
    assert branches_on_a_cli(tmp_path / "x.py", tmp_path) == ["x.py:1 compares with 'codex'"]


def test_registry_profiles_schemas_and_transcripts_name_the_same_clis() -> None:
    assert tuple(sorted(PROFILES)) == registry.KNOWN_BACKENDS
    assert {t.backend for t in index()} == set(PROFILES)


@pytest.mark.parametrize("backend", NAMES)
def test_a_profiles_turn_is_valid_against_its_clis_schema(backend: str) -> None:
    script = Script(backend)
    script.init("6f0c3a2e-0000-4000-8000-00000000000a").text("hi").tool("t1", result=False)
    script.tool("t1", result=True).done("hi")
    lines = [*script.emitted, script.profile.failure("boom")]
    assert [problem for line in lines for problem in off_schema(backend, line)] == []
    assert script.completes()
    assert {script.profile.shape_of(line) for line in lines} <= set(_schema_shapes(backend))


@pytest.mark.parametrize("backend", NAMES)
def test_a_profile_reads_back_the_session_it_resumes(backend: str) -> None:
    cli = profile(backend)
    fresh = cli.recording_argv(())
    assert cli.resumed_session(fresh[1:]) is None
    resumed = {"claude": ["-p", "--resume", "s-1", "--output-format", "stream-json"],
               "codex": ["exec", "--json", "resume", "s-1", "-"],
               "gemini": ["--output-format", "stream-json", "--resume", "s-1"]}[backend]
    assert cli.resumed_session(resumed) == "s-1"


def test_an_unknown_backend_is_an_error_of_the_suite() -> None:
    with pytest.raises(SuiteError, match="no backend profile 'acme'"):
        profile("acme")


def _schema_shapes(backend: str) -> list[str]:
    schema = json.loads((ROOT / "schemas" / "cli" / f"{backend}.schema.json").read_text())
    return list(schema["$defs"])


def test_a_resumed_session_is_read_in_every_form_the_cli_takes() -> None:
    from agent_tck.doubles.backends import profile

    for backend in ("claude", "gemini"):
        resumed = profile(backend).resumed_session
        assert resumed(["-p", "--resume", "s-1"]) == "s-1"
        assert resumed(["-p", "--resume=s-2", "--verbose"]) == "s-2"  # as the Claude SDK passes it
        assert resumed(["-p", "-r", "s-3"]) == "s-3"
        assert resumed(["-p", "--", "--resume", "s-4"]) is None  # after `--`: the prompt
        assert resumed(["-p", "--verbose"]) is None
    codex = profile("codex").resumed_session
    assert codex(["exec", "--json", "resume", "t-1", "-"]) == "t-1"
    assert codex(["exec", "--json", "resume", "t-2", "the prompt"]) == "t-2"
    assert codex(["exec", "--json", "-"]) is None
    assert codex(["exec", "--json", "--", "resume", "t-3"]) is None
