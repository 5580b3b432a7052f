"""The CI recipes a wrapper's project uses: the GitHub Action (`action.yml`) and the GitLab CI
template (`ci/gitlab/agent-tck.gitlab-ci.yml`).

Their structure is checked as data (every input used is defined and every one defined is used,
no expression inside a script, every `agent-tck` command line parses with the kit's own
parser, every report the run writes is one the upload collects), and their shell steps are
played as the CI services play them: each step's script in `bash -eo pipefail` with the
environment the service gives it, the action's `${{ }}` expressions filled in from its inputs,
an `if:` judged, a failed step skipping the steps after it that do not say `always()`. `act`
(which plays a whole workflow in containers) is not on the package index, and would need
Docker: this is the part of it these files use. The install steps are not played (they build
a wheel of this checkout and fetch its dependencies): the environment they would make is
this one's, and their scripts are checked to be valid bash. The run is played twice for
real, against the reference and against a broken miniature, with `--component runner`; the
rest with a stand-in `agent-tck` that records its argv and exits with the code it is given.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_tck.kit import run as run_command
from agent_tck.kit.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
ACTION_FILE = ROOT / "action.yml"
GITLAB_FILE = ROOT / "ci" / "gitlab" / "agent-tck.gitlab-ci.yml"
ACTION: dict[str, Any] = yaml.safe_load(ACTION_FILE.read_text(encoding="utf-8"))
GITLAB: dict[str, Any] = yaml.safe_load(GITLAB_FILE.read_text(encoding="utf-8"))
JOB: dict[str, Any] = GITLAB["agent-tck"]
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
# The reports every recipe writes (docs/ci.md names them), by the option that writes each.
REPORTS = {"json": "report.json", "markdown": "summary.md", "html": "report.html",
           "junit": "junit.xml", "badge": "badge.json"}
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
INVOCATION = re.compile(r'"\$AGENT_TCK_VENV/bin/agent-tck" ([^|;\n]*)')
VARIABLE = re.compile(r"\$\{?(\w+)\}?")
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]  # GitHub's `shell: bash`
# A stand-in for `agent-tck`: appends its argv (a JSON line) to $FAKE_LOG, exits $FAKE_EXIT.
FAKE = (f"#!{sys.executable}\nimport json, os, sys\n"
        "with open(os.environ['FAKE_LOG'], 'a') as log:\n"
        "    log.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        "sys.exit(int(os.environ.get('FAKE_EXIT', '0')))\n")


def strings(node: object) -> Iterator[str]:
    """Every string in a parsed YAML document, keys and values."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from strings(key)
            yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)
    elif isinstance(node, str):
        yield node


def scripts() -> dict[str, list[str]]:
    """The shell scripts of each recipe: the action's `run:` steps, the job's `script:`."""
    return {"action": [s["run"] for s in STEPS if "run" in s], "gitlab": list(JOB["script"])}


def command_lines(script: str, values: dict[str, str]) -> list[list[str]]:
    """The argv of each `agent-tck` command in `script`, its variables replaced by `values`
    and its bash arrays (`"${name[@]}"`, the optional arguments) left out."""
    found = []
    for line in INVOCATION.findall(script):
        words = [w for w in shlex.split(line) if not re.fullmatch(r"\$\{\w+\[@\]\}", w)]
        found.append([VARIABLE.sub(lambda m: values[m[1]], w) for w in words])
    return found


def parsed(argv: list[str]) -> Any:
    """`argv` as the kit's own command line reads it (`--version` answers and exits 0)."""
    try:
        return build_parser().parse_args(argv)
    except SystemExit as exc:
        assert argv == ["--version"] and exc.code == 0, argv
        return None


# --- Structure --------------------------------------------------------------------------


def test_the_action_is_composite_and_uses_exactly_the_inputs_it_defines() -> None:
    assert ACTION["runs"]["using"] == "composite"
    defined = set(ACTION["inputs"])
    assert {"impl", "components", "baseline", "python-version", "args"} <= defined
    used = {name for text in strings([ACTION["runs"], ACTION["outputs"]])
            for name in re.findall(r"\binputs\.([\w-]+)", text)}
    assert used == defined  # no input is ignored, none used that is not defined
    assert ACTION["inputs"]["impl"]["required"] is True
    assert ACTION["inputs"]["python-version"]["default"] == "3.11"
    assert all("description" in spec for spec in ACTION["inputs"].values())


def test_no_expression_is_written_into_a_script() -> None:
    """An input reaches a script through `env:` only: inside a script, `${{ }}` is pasted
    as text before bash reads it, so a value could become shell code."""
    assert [s["name"] for s in STEPS if "run" in s and "${{" in s["run"]] == []


def test_the_outputs_name_steps_that_set_them() -> None:
    for name, output in ACTION["outputs"].items():
        named = re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}",
                             output["value"])
        assert named, output
        step, key = named.groups()
        script = next(s["run"] for s in STEPS if s.get("id") == step)
        assert f'echo "{key}=' in script, name


def test_the_gitlab_job_uses_exactly_the_variables_it_defines() -> None:
    text = "\n".join([JOB["image"], *JOB["script"]])
    named = [*VARIABLE.findall(text), *re.findall(r'environ\["(\w+)"\]', text)]  # bash, Python
    used = {name for name in named if name.startswith("AGENT_TCK")}
    assert used == set(JOB["variables"])
    assert {"AGENT_TCK_IMPL", "AGENT_TCK_COMPONENTS", "AGENT_TCK_BASELINE", "AGENT_TCK_ARGS",
            "AGENT_TCK_PYTHON_VERSION"} <= used
    assert JOB["variables"]["AGENT_TCK_PYTHON_VERSION"] == "3.11"


@pytest.mark.parametrize("recipe", ["action", "gitlab"])
def test_every_agent_tck_command_line_parses_with_the_kits_parser(
        recipe: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the GitLab job writes its reports in the project's folder
    (tmp_path / "agent-tck-reports").mkdir()
    values = {"AGENT_TCK_VENV": "/venv", "AGENT_TCK_IMPL": "node adapter.js",
              "AGENT_TCK_REPORTS": str(tmp_path)}
    lines = [argv for script in scripts()[recipe] for argv in command_lines(script, values)]
    commands = [argv[0] for argv in lines]
    assert sorted(commands) == sorted({"action": ["--version", "install-clis", "run"],
                                       "gitlab": ["install-clis", "run"]}[recipe])
    for argv in lines:
        args = parsed(argv)
        if argv[0] == "run":
            assert args.impl == "node adapter.js"
            assert {option: getattr(args, option).name for option in REPORTS} == REPORTS


def report_options() -> set[str]:
    """Every option of `agent-tck run` that writes a file (a report, a baseline, a badge)."""
    parser = argparse.ArgumentParser()
    run_command.add_arguments(parser)
    return {a.dest for a in parser._actions if a.type is run_command.report_path}


def written(argv: list[str]) -> dict[str, Path]:
    """The files `agent-tck run` `argv` writes, by option."""
    args = parsed(argv)
    return {o: getattr(args, o) for o in report_options() if getattr(args, o) is not None}


def test_every_report_the_action_writes_is_in_the_folder_it_uploads(tmp_path: Path) -> None:
    run = next(s for s in STEPS if s.get("id") == "run")
    upload = next(s for s in STEPS if s.get("uses", "").startswith("actions/upload-artifact@"))
    values = {"AGENT_TCK_VENV": "/venv", "AGENT_TCK_IMPL": "x",
              "AGENT_TCK_REPORTS": str(tmp_path)}
    argv = next(a for a in command_lines(run["run"], values) if a[0] == "run")
    assert written(argv) == {o: tmp_path / name for o, name in REPORTS.items()}
    assert run["env"]["AGENT_TCK_REPORTS"] == upload["with"]["path"]
    assert upload["if"] == "always()"
    summary = next(s for s in STEPS if s.get("name") == "Summary")
    assert summary["if"] == "always()" and ">> \"$GITHUB_STEP_SUMMARY\"" in summary["run"]
    assert summary["env"]["AGENT_TCK_REPORTS"] == run["env"]["AGENT_TCK_REPORTS"]
    assert '"$AGENT_TCK_REPORTS/summary.md"' in summary["run"]


def test_every_report_the_gitlab_job_writes_is_an_artifact_even_when_it_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent-tck-reports").mkdir()
    argv = next(a for s in JOB["script"]
                for a in command_lines(s, {"AGENT_TCK_VENV": "/venv", "AGENT_TCK_IMPL": "x"})
                if a[0] == "run")
    files = written(argv)
    assert set(files) == set(REPORTS)
    artifacts = JOB["artifacts"]
    assert artifacts["when"] == "always"
    assert all(any(str(path).startswith(folder) for folder in artifacts["paths"])
               for path in files.values()), (files, artifacts["paths"])
    assert artifacts["reports"]["junit"] == str(files["junit"])


# --- Played as GitHub plays the action -----------------------------------------------------


@dataclass
class Played:
    """What a job using the action came to."""

    codes: dict[str, int | None] = field(default_factory=dict)  # step -> exit code; None: skipped
    outputs: dict[str, str] = field(default_factory=dict)  # the action's outputs
    summary: str = ""  # what the job's step summary holds
    uploaded: list[str] = field(default_factory=list)  # the files of the uploaded folder
    left: list[str] = field(default_factory=list)  # what the steps left in their TMPDIR

    @property
    def failed(self) -> bool:
        return any(self.codes.values())


class ActionRunner:
    """Plays the action's steps with `inputs` as GitHub's runner does, `agent_tck` standing
    for the command the install step puts in the action's environment."""

    def __init__(self, tmp: Path, inputs: dict[str, str], agent_tck: str) -> None:
        self.workspace, self.temp = tmp / "workspace", tmp / "runner-temp"
        self.tmpdir = tmp / "tmp"  # the system's temporary folder, as the steps see it
        for folder in (self.workspace, self.temp, self.tmpdir):
            folder.mkdir()
        self.summary = tmp / "step-summary.md"
        self.summary.touch()
        self.agent_tck = agent_tck
        self.context = {f"inputs.{name}": str(inputs.get(name, spec.get("default", "")))
                        for name, spec in ACTION["inputs"].items()}
        assert set(inputs) <= {k.removeprefix("inputs.") for k in self.context}, inputs
        self.context |= {"runner.temp": str(self.temp), "runner.os": "Linux",
                         "github.action_path": str(ROOT)}
        self.env = {**os.environ, "RUNNER_TEMP": str(self.temp), "RUNNER_OS": "Linux",
                    "GITHUB_WORKSPACE": str(self.workspace),
                    "GITHUB_STEP_SUMMARY": str(self.summary), "PYTHONPATH": str(ROOT),
                    "TMPDIR": str(self.tmpdir)}

    def expand(self, text: str) -> str:
        """`text` with its expressions filled in (a KeyError: one this runner cannot judge;
        a step's output it did not set is empty, as on GitHub)."""
        return EXPRESSION.sub(lambda m: self.context.get(m[1], "") if m[1].startswith(
            "steps.") else self.context[m[1]], text)

    def runs(self, step: dict[str, Any], failed: bool) -> bool:
        conditions = {
            "always()": True,
            "runner.os != 'Linux'": self.context["runner.os"] != "Linux",
            "contains(inputs.components, 'real-cli')":
                "real-cli" in self.context["inputs.components"],
            "always() && steps.run.outputs.userns-restricted != ''":
                self.context.get("steps.run.outputs.userns-restricted", "") != "",
        }
        return conditions[step["if"]] if "if" in step else not failed

    def play(self) -> Played:
        played = Played()
        for index, step in enumerate(STEPS):
            name = step.get("name") or step["uses"]
            if not self.runs(step, played.failed):
                played.codes[name] = None
                continue
            played.codes[name] = self.step(index, step, played)
        played.outputs = {k: self.expand(v["value"]) for k, v in ACTION["outputs"].items()}
        played.summary = self.summary.read_text(encoding="utf-8")
        played.left = sorted(p.name for p in self.tmpdir.iterdir())
        return played

    def step(self, index: int, step: dict[str, Any], played: Played) -> int:
        if "uses" in step:  # setup-python: this Python; upload-artifact: its folder listed
            with_ = {k: self.expand(str(v)) for k, v in step.get("with", {}).items()}
            if step["uses"].startswith("actions/upload-artifact@"):
                folder = Path(with_["path"])
                played.uploaded = sorted(p.name for p in folder.iterdir()) if folder.is_dir() \
                    else []
            return 0
        if step.get("id") == "install":
            return self.install(step)
        outputs = self.temp / f"output-{index}"
        outputs.touch()
        env = {**self.env, "GITHUB_OUTPUT": str(outputs),
               **{k: self.expand(str(v)) for k, v in step.get("env", {}).items()}}
        done = subprocess.run([*BASH, "-c", step["run"]], cwd=self.workspace, env=env,
                              capture_output=True, text=True, timeout=600, check=False)
        for line in outputs.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            self.context[f"steps.{step.get('id')}.outputs.{key}"] = value
        return done.returncode

    def install(self, step: dict[str, Any]) -> int:
        """The environment the install step makes, without building it: its `agent-tck`
        is `self.agent_tck`, its Python this one. Its script is checked to be valid bash."""
        assert subprocess.run(["bash", "-n", "-c", step["run"]], check=False).returncode == 0
        venv = Path(self.expand(step["env"]["AGENT_TCK_VENV"]))
        (venv / "bin").mkdir(parents=True)
        (venv / "bin" / "agent-tck").symlink_to(self.agent_tck)
        (venv / "bin" / "python").symlink_to(sys.executable)
        self.context["steps.install.outputs.agent-tck"] = str(venv / "bin" / "agent-tck")
        return 0


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stand-in `agent-tck`; its log of argvs."""
    script = tmp_path / "fake-agent-tck"
    script.write_text(FAKE)
    script.chmod(0o755)
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "argv.jsonl"))
    return script


def calls(tmp_path: Path) -> list[list[str]]:
    log = tmp_path / "argv.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_each_input_reaches_the_run_as_one_argument(tmp_path: Path, fake: Path) -> None:
    inputs = {"impl": 'node "my adapter.js" --flag', "components": "runner, real-cli",
              "baseline": "known failures.yaml", "args": "--strict -k 'timeout and not codex'"}
    played = ActionRunner(tmp_path, inputs, str(fake)).play()
    assert not played.failed, played.codes
    install, run = calls(tmp_path)
    assert install == ["install-clis"]  # real-cli is named: the pinned CLIs are installed
    args = parsed(run)
    assert args.impl == 'node "my adapter.js" --flag'
    assert args.component == ["runner", "real-cli"]
    assert args.baseline == Path("known failures.yaml")
    assert args.strict and args.keyword == "timeout and not codex"
    assert played.left == [], "the job left files in the system's temporary folder"
    reports = Path(played.outputs["reports"])
    assert reports == tmp_path / "runner-temp" / "agent-tck-reports"
    assert {o: getattr(args, o) for o in REPORTS} == {o: reports / n for o, n in REPORTS.items()}


def test_without_real_cli_nothing_is_installed_and_no_option_is_empty(
        tmp_path: Path, fake: Path) -> None:
    played = ActionRunner(tmp_path, {"impl": "./adapter"}, str(fake)).play()
    assert played.codes["Install the pinned real CLIs"] is None
    [run] = calls(tmp_path)
    args = parsed(run)
    assert (args.impl, args.component, args.baseline, args.strict) == ("./adapter", [], None,
                                                                      False)
    assert "" not in run


STUBS = {  # commands an isolated run calls, each noting its argv in $STUB_LOG
    "unshare": "exit ${UNSHARE_EXIT:-0}",
    "sudo": 'if [ "$2" = true ]; then exit 0; fi; shift; "$@"',
    "sysctl": 'if [ "$1" = -n ]; then echo 1; fi',
}


@pytest.fixture
def stubs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`unshare`, `sudo` and `sysctl` stand-ins first on PATH; the log of their calls."""
    folder = tmp_path / "stubs"
    folder.mkdir()
    log = tmp_path / "stubs.log"
    for name, body in STUBS.items():
        (folder / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "$STUB_LOG"\n{body}\n')
        (folder / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("STUB_LOG", str(log))
    return log


@pytest.mark.parametrize(("isolate", "given"), [("true", True), ("false", False)])
def test_isolate_reaches_the_run_as_its_option(tmp_path: Path, fake: Path, stubs: Path,
                                               isolate: str, given: bool) -> None:
    played = ActionRunner(tmp_path, {"impl": "./adapter", "isolate": isolate}, str(fake)).play()
    assert not played.failed, played.codes
    [run] = calls(tmp_path)
    args = parsed(run)
    assert args.isolate is given
    # The runner's files of workflow commands, read-only to an isolated adapter.
    assert args.read_only == ([str(tmp_path / "runner-temp"), str(tmp_path)] if given else [])
    assert "sudo" not in (stubs.read_text() if stubs.exists() else "")  # unshare worked


def test_where_user_namespaces_are_restricted_the_job_lifts_and_restores_it(
        tmp_path: Path, fake: Path, stubs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNSHARE_EXIT", "1")
    played = ActionRunner(tmp_path, {"impl": "./adapter", "isolate": "true"}, str(fake)).play()
    assert not played.failed, played.codes
    assert played.codes["Restore the user-namespace restriction"] == 0
    sysctls = [line for line in stubs.read_text().splitlines() if line.startswith("sysctl -q")]
    assert sysctls == ["sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0",
                       "sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=1"]


def test_an_isolate_that_is_neither_true_nor_false_stops_the_job_before_any_run(
        tmp_path: Path, fake: Path) -> None:
    played = ActionRunner(tmp_path, {"impl": "./adapter", "isolate": "yes"}, str(fake)).play()
    assert played.codes["Run the conformance suite"] == 2
    assert calls(tmp_path) == []


@pytest.mark.parametrize("code", [0, 1, 2])
def test_the_job_ends_with_the_runs_exit_code_after_the_summary_and_the_upload(
        tmp_path: Path, fake: Path, code: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_EXIT", str(code))
    played = ActionRunner(tmp_path, {"impl": "./adapter"}, str(fake)).play()
    assert played.outputs["exit-code"] == str(code)
    assert played.codes["Run the conformance suite"] == 0  # kept for the last step
    assert played.codes["Summary"] == 0 and played.codes["Upload the reports"] == 0
    assert played.codes["Verdict"] == code
    # The stand-in wrote no report: the summary says the run reached no verdict.
    assert played.summary.startswith("agent-tck wrote no summary: the run did not reach")


def test_args_a_shell_cannot_split_fail_the_step_before_any_run(
        tmp_path: Path, fake: Path) -> None:
    played = ActionRunner(tmp_path, {"impl": "./adapter", "args": "-k 'unclosed"},
                          str(fake)).play()
    assert played.codes["Run the conformance suite"] != 0 and calls(tmp_path) == []
    assert played.codes["Verdict"] is None and played.failed and played.left == []
    assert played.codes["Summary"] == 0  # always()


def test_a_step_on_another_system_than_linux_stops_the_job(tmp_path: Path, fake: Path) -> None:
    runner = ActionRunner(tmp_path, {"impl": "./adapter"}, str(fake))
    runner.context["runner.os"] = "macOS"
    played = runner.play()
    assert played.codes["Check the runner"] == 2 and played.codes["Verdict"] is None
    assert calls(tmp_path) == []


AGENT_TCK = str(Path(sys.executable).with_name("agent-tck"))


@pytest.mark.timeout(600)
def test_the_action_runs_the_reference_and_passes(tmp_path: Path) -> None:
    played = ActionRunner(tmp_path, {"impl": "reference", "components": "runner"},
                          AGENT_TCK).play()
    assert not played.failed, played.codes
    assert played.outputs["exit-code"] == "0"
    heading = played.summary.splitlines()[0]
    assert heading.startswith("## agent-tck: ") and heading.endswith(" is conformant"), heading
    assert played.uploaded == sorted(REPORTS.values())
    reports = Path(played.outputs["reports"])
    assert json.loads((reports / "report.json").read_text())["footer"]["conformant"] is True
    assert json.loads((reports / "badge.json").read_text())["message"].startswith(
        "partial · conformant · ")


@pytest.mark.timeout(600)
def test_the_action_fails_a_broken_implementation_with_its_summary(tmp_path: Path) -> None:
    inputs = {"impl": "python:tests.miniatures.runner:AlwaysNone", "components": "runner",
              "args": "--req 'RUN-SIG-*'"}
    played = ActionRunner(tmp_path, inputs, AGENT_TCK).play()
    assert played.outputs["exit-code"] == "1" and played.codes["Verdict"] == 1
    assert played.summary.splitlines()[0].endswith("is **not conformant**")
    assert "| RUN-SIG-1 | MUST | failed |" in played.summary
    assert played.uploaded == sorted(REPORTS.values())
    badge = json.loads((Path(played.outputs["reports"]) / "badge.json").read_text())
    assert (badge["color"], badge["message"].split(" · ")[:2]) == ("red",
                                                                   ["partial", "not conformant"])


# --- Played as GitLab plays the job --------------------------------------------------------


def play_job(tmp_path: Path, variables: dict[str, str],
             agent_tck: str) -> subprocess.CompletedProcess[str]:
    """The job's script in one bash (as GitLab's runner runs it), with the job's variables
    and `variables`; the install lines left out, their environment standing in."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "agent-tck").symlink_to(agent_tck)
    (venv / "bin" / "python").symlink_to(sys.executable)
    project, tmpdir = tmp_path / "project", tmp_path / "tmp"
    project.mkdir()
    tmpdir.mkdir()
    lines = [s for s in JOB["script"] if "pip install" not in s and "-m venv" not in s]
    assert len(lines) == len(JOB["script"]) - 2  # those two alone
    env = {**os.environ, **{k: str(v) for k, v in JOB["variables"].items()},
           "AGENT_TCK_VENV": str(venv), "TMPDIR": str(tmpdir), **variables}
    return subprocess.run([*BASH, "-c", "\n".join(lines)], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.parametrize("code", [0, 1, 2])
def test_the_gitlab_job_passes_its_variables_and_fails_with_the_run(
        tmp_path: Path, fake: Path, code: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_EXIT", str(code))
    variables = {"AGENT_TCK_IMPL": "node adapter.js", "AGENT_TCK_COMPONENTS": "runner agent",
                 "AGENT_TCK_BASELINE": "known.yaml", "AGENT_TCK_ARGS": '-k "a or b" --strict'}
    done = play_job(tmp_path, variables, str(fake))
    assert done.returncode == code, done.stderr
    [run] = calls(tmp_path)
    monkeypatch.chdir(tmp_path / "project")  # its reports are relative to the project
    assert Path("agent-tck-reports").is_dir()
    args = parsed(run)
    assert {o: getattr(args, o) for o in REPORTS} == {
        o: Path("agent-tck-reports", n) for o, n in REPORTS.items()}
    assert (args.impl, args.component, args.baseline, args.keyword, args.strict) == (
        "node adapter.js", ["runner", "agent"], Path("known.yaml"), "a or b", True)
    assert list((tmp_path / "tmp").iterdir()) == [], "the job left files in TMPDIR"


def test_the_gitlab_job_stops_on_args_a_shell_cannot_split_and_leaves_nothing(
        tmp_path: Path, fake: Path) -> None:
    done = play_job(tmp_path, {"AGENT_TCK_IMPL": "x", "AGENT_TCK_ARGS": "-k 'unclosed"},
                    str(fake))
    assert done.returncode != 0 and calls(tmp_path) == []
    assert "No closing quotation" in done.stderr
    assert list((tmp_path / "tmp").iterdir()) == [], "the job left files in TMPDIR"


def test_the_gitlab_job_without_an_implementation_says_what_to_set(
        tmp_path: Path, fake: Path) -> None:
    done = play_job(tmp_path, {}, str(fake))
    assert done.returncode == 2 and calls(tmp_path) == []
    assert done.stderr == ("agent-tck: set AGENT_TCK_IMPL to your adapter's command line "
                           "(docs/ci.md)\n")


def test_the_gitlab_job_installs_the_real_clis_only_when_asked(
        tmp_path: Path, fake: Path) -> None:
    done = play_job(tmp_path, {"AGENT_TCK_IMPL": "x", "AGENT_TCK_COMPONENTS": "agent,real-cli"},
                    str(fake))
    assert done.returncode == 0, done.stderr
    assert [argv[0] for argv in calls(tmp_path)] == ["install-clis", "run"]
