"""agent-tck installed like any tool: the wheel works outside the checkout, installs one
namespace, and leaves other pytest projects alone."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from agent_tck.kit import registry
from agent_tck.kit.paths import CHECKOUT
from tests.support import once

# A conformance run of the installed wheel: each scenario has its own deadline in it; the
# project-wide guard of 120 s would fail a slow machine on time alone (docs/flakes.md).
pytestmark = pytest.mark.timeout(600)

# Components judged the same way from a wheel: transport needs the `dds` extra and real-cli
# the pinned CLIs, which a bare wheel install has neither of.
COMPONENTS = ["agent", "backends", "responses", "runner", "pipeline"]
TOOLS = Path(sys.executable).parent


def _env() -> dict[str, str]:
    """The environment without this checkout on PYTHONPATH."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> tuple[Path, Path]:
    """The sdist and the wheel, built from this checkout as `python -m build` does; once a
    session: two builds at once in one checkout race on its `egg-info` (a file listed by
    one is missing from the other's copy), which failed a run of these tests on 4 workers."""
    if CHECKOUT is None:
        pytest.skip("not run: needs a checkout to build from")

    def build(out: Path) -> None:
        done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out),
                               str(CHECKOUT)], capture_output=True, text=True, timeout=600,
                              check=False, env=_env())
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

    out = once.made_once(once.session_dir(tmp_path_factory, worker_id), "dist", build)
    (sdist,), (wheel,) = out.glob("*.tar.gz"), out.glob("*.whl")
    return sdist, wheel


def test_the_sdist_and_wheel_pass_twine_and_check_wheel_contents(
        built: tuple[Path, Path]) -> None:
    for argv in ([str(TOOLS / "twine"), "check", *map(str, built)],
                 [str(TOOLS / "check-wheel-contents"), str(built[1])]):
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_wheel_installs_one_namespace_with_its_data(built: tuple[Path, Path]) -> None:
    names = zipfile.ZipFile(built[1]).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"agent_tck"}
    for data in ("agent_tck/features/agent/requirements.yaml",
                 "agent_tck/schemas/cli/claude.schema.json",
                 "agent_tck/fixtures/cli-options.json", "agent_tck/clis/package.json",
                 "agent_tck/reference/cyclonedds-loopback.xml",
                 "agent_tck/doubles/harness/fake.py", "agent_tck/steps/suite/test_agent.py",
                 "agent_tck/docs/decisions.md"):
        assert data in names, data
    documents = {n for n in names if n.startswith("agent_tck/docs/")}
    assert documents <= {"agent_tck/docs/decisions.md", "agent_tck/docs/genesis.md"}, documents
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "pytest11" not in zipfile.ZipFile(built[1]).read(entry_points).decode()


def test_the_wheel_outside_the_checkout_gives_the_checkouts_verdicts(
        built: tuple[Path, Path], tmp_path: Path) -> None:
    venv, empty = tmp_path / "venv", tmp_path / "empty"
    empty.mkdir()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(built[1])],
                             capture_output=True, text=True, timeout=600, check=False,
                             cwd=empty, env=_env())
    assert install.returncode == 0, install.stderr[-2000:]
    words = [a for c in COMPONENTS for a in ("--component", c)]
    report = tmp_path / "report.json"
    done = subprocess.run([str(venv / "bin" / "agent-tck"), "run", *words, "--json", str(report)],
                          cwd=empty, capture_output=True, text=True, timeout=900, check=False,
                          env=_env())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    # The checkout's verdicts are every one passed (its own scenarios, run by this session,
    # and README command 1): computing them again here would be another agent run.
    judged = json.loads(report.read_text())
    verdicts = {r["id"]: r["verdict"] for r in judged["requirements"]}
    failing = [(s["where"], s["verdict"], s["error"][-1500:]) for s in judged["scenarios"]
               if s["verdict"] in ("failed", "errored")]
    assert verdicts == {rid: "passed" for rid, req in registry.load().items()
                        if req.component in COMPONENTS}, failing
    assert list(empty.iterdir()) == [], "the run wrote into the user's directory"


USER_PROJECT = {
    "steps/__init__.py": 'NAME = "the user\'s own steps"\n',
    "steps/greeting_steps.py": (
        "from pytest_bdd import given, parsers, then\n\n"
        "@given(parsers.parse('a greeting \"{text}\"'), target_fixture='greeting')\n"
        "def greeting(text):\n    return text\n\n"
        "@then('it is polite')\ndef polite(greeting):\n    assert greeting == 'hello'\n"),
    "reference/__init__.py": 'NAME = "the user\'s own reference"\n',
    "conftest.py": 'pytest_plugins = ["steps.greeting_steps"]\n',
    "features/greeting.feature": (
        "Feature: Greeting\n  Scenario: Polite\n    Given a greeting \"hello\"\n"
        "    Then it is polite\n"),
    "test_greeting.py": (
        "import reference, steps\nfrom pytest_bdd import scenarios\n\n"
        "scenarios('features')\n\n"
        "def test_the_packages_are_the_users():\n"
        "    assert (steps.NAME, reference.NAME) == "
        "(\"the user's own steps\", \"the user's own reference\")\n"),
}


def test_a_user_project_with_its_own_steps_and_reference_is_unaffected(tmp_path: Path) -> None:
    for name, text in USER_PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(base, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          check=False, env=_env())
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr
    unknown = subprocess.run([*base, "--impl", "reference"], cwd=tmp_path, capture_output=True,
                             text=True, timeout=120, check=False, env=_env())
    assert unknown.returncode == 4 and "unrecognized arguments: --impl" in unknown.stderr
    asked = subprocess.run([*base, "-p", "agent_tck", "--help"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120, check=False, env=_env())
    assert asked.returncode == 0 and "--impl=IMPL" in asked.stdout, asked.stderr


def ci_steps(title: str) -> list[str]:
    """The shell steps of the README's CI job under `title` (`run:` lines, or `script:`)."""
    readme = (CHECKOUT or Path()).joinpath("README.md").read_text(encoding="utf-8")
    block = readme.split(f"\n{title} (", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    runs = re.findall(r"^\s*- run: (.+)$", block, re.M)
    script = block.split("script:", 1)[1].split("artifacts:", 1)[0] if "script:" in block else ""
    return runs + re.findall(r"^\s*- (.+)$", script, re.M)


def test_the_readmes_ci_jobs_run_as_written(built: tuple[Path, Path], tmp_path: Path) -> None:
    """Each job's own shell steps, with the wheel as AGENT_TCK and the example adapter as the
    user's: pipx installs agent-tck, the run passes and the JUnit report is written. The jobs
    install the same way, so they share the tools and pipx's home: the second job's `pipx run`
    takes the environment the first one's made (pipx's own cache)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("not run: Node.js is not installed (the example adapter is JavaScript)")
    tools = tmp_path / "tools"
    subprocess.run([sys.executable, "-m", "venv", str(tools)], check=True, timeout=120)
    env = {**_env(), "PATH": f"{tools / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "AGENT_TCK": str(built[1]), "PIPX_HOME": str(tmp_path / "pipx"),
           "PIPX_BIN_DIR": str(tmp_path / "pipx-bin"),
           "GITHUB_STEP_SUMMARY": str(tmp_path / "step-summary.md")}
    jobs = {title: ci_steps(title) for title in ("GitHub Actions", "GitLab CI")}
    installs = {title: [s.split(" agent-tck run ")[0] for s in steps if "pipx" in s]
                for title, steps in jobs.items()}
    assert len(set(map(tuple, installs.values()))) == 1, installs  # what lets them share
    assert any("pipx run" in step for step in installs["GitLab CI"]), installs
    for title, steps in jobs.items():
        work = tmp_path / title.replace(" ", "-")
        work.mkdir()
        shutil.copy((CHECKOUT or Path()) / "examples" / "node-codex-parser" / "adapter.js", work)
        for step in steps:
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", step], cwd=work, env=env,
                                  capture_output=True, text=True, timeout=900, check=False)
            assert done.returncode == 0, (f"{title}: {step}\n{done.stdout[-2000:]}\n"
                                          f"{done.stderr[-2000:]}")
        suites = ElementTree.parse(work / "junit.xml").getroot()
        assert int(suites.get("tests") or suites[0].get("tests") or 0) > 0, title
