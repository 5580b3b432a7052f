"""`agent-tck matrix` (kit/matrix.py): implementations judged side by side, their badges, the
hall of bugs and what changed since the previous matrix."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tck.kit.cli import build_parser, main
from agent_tck.kit.matrix import load

REFERENCE = f"{sys.executable} -m agent_tck.reference.adapter"
BROKEN = "python:tests.miniatures.responses:DropsToolCalls"


def matrix(where: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["matrix", str(where / "list.yaml"), *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def listing(where: Path, *entries: str) -> None:
    where.mkdir(parents=True, exist_ok=True)
    (where / "list.yaml").write_text("".join(entries))


def entry(name: str, impl: str, baseline: str = "", setup: str = "") -> str:
    more = f"  baseline: {baseline}\n" if baseline else ""
    more += f"  setup: {setup}\n" if setup else ""
    return f"- name: {name}\n  impl: {impl}\n  components: [responses]\n{more}"


@pytest.fixture
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The miniatures importable by the runs the matrix starts (`python:tests...`)."""
    root = Path(__file__).resolve().parent.parent
    monkeypatch.setenv("PYTHONPATH", str(root))


def test_each_implementation_gets_its_reports_badge_and_row_and_its_failures_their_account(
        tmp_path: Path, importable: None) -> None:
    """The baseline's account of a failure is the hall of bugs' "what it does"; a failure it
    does not list is told by its first failed scenario, with where."""
    (tmp_path / "known.yaml").write_text(
        "- id: RESP-001.3-a\n  reason: Drops every function_call item on the floor.\n")
    listing(tmp_path, entry("ref", REFERENCE), entry("drops", BROKEN, "known.yaml"))
    code, out, _ = matrix(tmp_path, "--out", str(tmp_path / "out"), "-n", "1")
    assert code == 0, out
    assert "2 of 2 implementations judged" in out
    for name in ("ref", "drops"):
        for ext in ("json", "html", "md"):
            assert (tmp_path / "out" / f"{name}.{ext}").stat().st_size > 0
        badge = json.loads((tmp_path / "out" / f"{name}.badge.json").read_text())
        assert badge["schemaVersion"] == 1
    index = (tmp_path / "out" / "index.md").read_text()
    assert "2 reports side by side" in index and "**≠**" in index
    for name in ("ref", "drops"):  # the list's names, the reports beside the index
        assert f"| {name}: agent\\-tck reference " in index and f"| {name}.json |" in index
    bugs = (tmp_path / "out" / "bugs.md").read_text()
    ref, drops = bugs.split("## drops")
    assert "## ref: " in ref and "Nothing failed." in ref
    assert "**RESP-001.3-a** (MUST, failed)" in drops
    assert "what it does: Drops every function_call item on the floor." in drops
    assert "(scenario: A function call without call_id falls back to the item id, " \
           "features/responses/003_responses_parser.feature:" in drops
    assert "<html" in (tmp_path / "out" / "index.html").read_text()


def test_a_regression_since_the_previous_matrix_comes_first_and_fails_it(
        tmp_path: Path, importable: None) -> None:
    listing(tmp_path / "before", entry("impl", REFERENCE))
    assert matrix(tmp_path / "before", "--out", str(tmp_path / "old"), "-n", "1")[0] == 0
    listing(tmp_path / "after", entry("impl", BROKEN), entry("new", REFERENCE))
    code, out, _ = matrix(tmp_path / "after", "--out", str(tmp_path / "new"),
                          "--previous", str(tmp_path / "old"), "-n", "1")
    assert code == 1 and "one regressed (changes.md)" in out
    changes = (tmp_path / "new" / "changes.md").read_text()
    impl, new = changes.split("## new")
    regressions = [line.split()[1] for line in impl.splitlines()
                   if line.startswith("regression ")]
    assert "RESP-001.3-a" in regressions and len(regressions) == 5, impl
    assert "5 regressions, 0 fixes" in impl
    assert "New: no report of it in the previous matrix." in new


def test_a_run_that_ends_in_an_error_is_named_and_fails_the_matrix(tmp_path: Path) -> None:
    listing(tmp_path, entry("ref", REFERENCE), entry("gone", str(tmp_path / "no-such-adapter")))
    code, out, _ = matrix(tmp_path, "--out", str(tmp_path / "out"), "-n", "1")
    assert code == 1
    assert f"gone: its run ended in an error (exit 2): agent-tck: error: cannot start adapter " \
           f"'{tmp_path / 'no-such-adapter'}'" in out
    assert "1 of 2 implementations judged" in out
    assert not (tmp_path / "out" / "gone.json").exists()


def test_a_setup_runs_in_the_lists_folder_and_one_that_fails_is_its_entrys_error(
        tmp_path: Path) -> None:
    """What installs an implementation's pinned packages runs before its judgement; a setup
    that fails leaves its implementation unjudged and fails the matrix, naming it."""
    install, failing = f"{sys.executable} install.py", f"{sys.executable} fail.py"
    listing(tmp_path, entry("ref", REFERENCE, setup=f"[{install}, {install} twice]"),
            entry("broken-setup", REFERENCE, setup=f"[{failing}, {install} again]"),
            entry("absent", REFERENCE, setup=str(tmp_path / "no-such-installer")))
    (tmp_path / "install.py").write_text(
        "import sys\nopen(' '.join(['installed', *sys.argv[1:]]), 'w').close()\n")
    (tmp_path / "fail.py").write_text("import sys\nsys.exit('no such package: acme@9')\n")
    code, out, _ = matrix(tmp_path, "--out", str(tmp_path / "out"), "-n", "1")
    assert code == 1
    assert (tmp_path / "installed").is_file() and (tmp_path / "installed twice").is_file()
    assert not (tmp_path / "installed again").exists()  # a failed command ends the setup
    assert "ref: exit 0" in out
    assert f"broken-setup: its setup '{failing}' ended in an error (exit 1): no such package: " \
           "acme@9" in out
    assert f"absent: its setup '{tmp_path / 'no-such-installer'}' could not start: " in out
    assert "1 of 3 implementations judged" in out
    assert sorted(p.name for p in (tmp_path / "out").glob("*.json")) == ["ref.badge.json",
                                                                        "ref.json"]


def test_a_setup_that_hangs_is_killed_and_named(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its timeout the setup is killed, not waited out (it would sleep past the test's
    own guard), and the entry's error names it. Five seconds: a loaded machine starts the
    setup's Python and it notes its pid well within them."""
    from agent_tck.kit import matrix as matrix_module

    monkeypatch.setattr(matrix_module, "SETUP_TIMEOUT", 5.0)
    pid_file = tmp_path / "pid"
    hangs = matrix_module.Entry("stuck", REFERENCE, setup=((sys.executable, "-c", (
        "import os, pathlib, time; "
        f"pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid())); time.sleep(600)")),))
    with pytest.raises(matrix_module._RunError, match=r"stuck: its setup .* did not end "
                                                      r"within 5 s; it was killed"):
        matrix_module.set_up(hangs, tmp_path)
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.parametrize(("text", "error"), [
    ("- name: a\n", "entry 0: needs 'name' and 'impl'"),
    ("- name: ../a\n  impl: x\n", "entry 0: name '../a' is not a file name"),
    ("- name: a\n  impl: x\n- name: a\n  impl: y\n", "entry 1: the name 'a' is given twice"),
    ("- name: a\n  impl: x\n  components: agent\n", "entry 0: components 'agent' is not a list"),
    ("- name: a\n  impl: x\n  colour: red\n", "entry 0: unknown key 'colour'"),
    ("- name: a\n  impl: x\n  setup: 5\n", "entry 0: setup 5 is not a command line"),
    ("- name: a\n  impl: x\n  setup: ''\n", "entry 0: setup '' is not a command line"),
    ("- name: a\n  impl: x\n  setup: npm 'ci\n", "entry 0: setup \"npm 'ci\" is not a command"),
    ("- name: a\n  impl: x\n  setup: []\n", "entry 0: setup [] is not a command line"),
    ("- name: a\n  impl: x\n  setup: [npm ci, 5]\n", "entry 0: setup 5 is not a command line"),
    ("name: a\n", "expected a list of implementations"),
])
def test_a_list_that_cannot_be_read_names_the_file_and_the_entry(
        tmp_path: Path, text: str, error: str) -> None:
    listing(tmp_path, text)
    code, out, err = matrix(tmp_path, "--out", str(tmp_path / "out"))
    assert (code, out) == (2, "")
    assert f"agent-tck: error: {tmp_path / 'list.yaml'}: {error}" in err, err
    assert not (tmp_path / "out").exists()


def test_the_examples_list_names_every_official_sdk_example_with_its_baseline() -> None:
    """examples/matrix.yaml: each SDK example's adapter and baseline exist (the suite judges
    each against its baseline in tests/test_examples.py)."""
    root = Path(__file__).resolve().parent.parent / "examples"
    entries = load(root / "matrix.yaml")
    sdks = {e.name: e for e in entries  # at the releases the examples pin
            if e.baseline is not None and not e.impl.split()[1].startswith("versions/")}
    assert sorted(sdks) == ["claude-agent-sdk-python", "claude-agent-sdk-ts", "codex-sdk"]
    for entry in sdks.values():
        assert entry.baseline is not None and entry.baseline.is_file(), entry
        assert (root / entry.impl.split()[1]).is_file(), entry
        assert entry.components == ("agent",)


def test_each_node_example_is_set_up_from_its_own_lockfile() -> None:
    """A Node example's setup installs the SDK its folder pins (its package-lock.json), in the
    folder its adapter runs from; without it the matrix would judge whatever is installed."""
    root = Path(__file__).resolve().parent.parent / "examples"
    node = [e for e in load(root / "matrix.yaml")  # at the releases the examples pin
            if e.impl.split()[0] == "node" and not e.impl.split()[1].startswith("versions/")]
    assert sorted(e.name for e in node) == ["acp-client-ts", "claude-agent-sdk-ts", "codex-sdk"]
    for each in node:
        folder = Path(each.impl.split()[1]).parent
        [install] = each.setup
        assert install[:2] == ("npm", "ci") and "--omit=optional" in install, each
        assert install[-2:] == ("--prefix", str(folder)), each
        assert (root / folder / "package-lock.json").is_file(), each


def test_the_examples_list_judges_an_earlier_sdk_release_beside_the_pinned_one() -> None:
    """codex-sdk at another release than its example pins, installed into a folder of its own
    with a copy of the adapter (Node resolves a package from the importer's folder up), and
    judged by the pinned release's baseline."""
    root = Path(__file__).resolve().parent.parent / "examples"
    entries = {e.name: e for e in load(root / "matrix.yaml")}
    pinned = json.loads((root / "codex-sdk" / "package.json").read_text())["dependencies"]
    earlier = entries["codex-sdk-0.160.0"]
    folder = "versions/codex-sdk-0.160.0"
    assert pinned["@openai/codex-sdk"] != "0.160.0"
    assert earlier.impl == f"node {folder}/adapter.mjs"
    assert earlier.baseline == entries["codex-sdk"].baseline
    install, copy = earlier.setup
    assert install[:2] == ("npm", "install") and install[-3:] == (
        "--prefix", folder, "@openai/codex-sdk@0.160.0"), install
    assert copy == ("cp", "codex-sdk/adapter.mjs", f"{folder}/")


def test_ci_builds_the_examples_matrix_with_the_kit_installed_as_ci_installs_it(
        tmp_path: Path) -> None:
    """`.ci/matrix`: the install of `.ci/run` (the real CLIs and Chromium aside: the matrix
    needs neither), that environment first on PATH, then `agent-tck matrix` of
    examples/matrix.yaml, comparing with MATRIX_PREVIOUS when it is set; its command line is
    one the kit's parser takes."""
    root = Path(__file__).resolve().parent.parent
    script = (root / ".ci" / "matrix").read_text().splitlines()
    run = (root / ".ci" / "run").read_text().splitlines()[-1].split(" && ")
    install, path, judge = script[-3:]
    assert install.split(" && ") == [step for step in run
                                     if "chromium" not in step and "install-clis" not in step
                                     and "-m tests" not in step]
    # the list runs `python ...`: the kit's own environment's, with the SDKs the extras install
    found = subprocess.run(["bash", "-euo", "pipefail", "-c", f"{path}\ncommand -v python"],
                           cwd=root, check=True, capture_output=True, text=True).stdout
    assert Path(found.strip()) == root / ".venv" / "bin" / "python"
    assert judge.startswith("agent-tck ")
    played = judge.replace("agent-tck", "printf '%s\\0'", 1)  # its argv, as bash has it
    for previous in (None, tmp_path / "old"):
        env = {"PATH": os.environ["PATH"]} | ({"MATRIX_PREVIOUS": str(previous)} if previous
                                              else {})
        argv = subprocess.run(["bash", "-euo", "pipefail", "-c", played], env=env, check=True,
                              capture_output=True, text=True).stdout.split("\0")[:-1]
        args = build_parser().parse_args(argv)
        assert (args.command, args.list, args.out, args.previous) == (
            "matrix", Path("examples/matrix.yaml"), Path("matrix"), previous)


def test_relative_paths_are_the_list_folders_and_the_callers(
        tmp_path: Path, importable: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """As docs/ci.md runs it: `agent-tck matrix examples/matrix.yaml --out matrix`, from the
    folder above the list's. The baseline is found beside the list, the reports where the
    caller said; an earlier matrix's files of an implementation are replaced, never kept."""
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "known.yaml").write_text(
        "- id: RESP-001.3-a\n  reason: Drops every function_call item.\n")
    listing(tmp_path / "examples", entry("drops", BROKEN, "known.yaml"))
    (tmp_path / "matrix").mkdir()
    (tmp_path / "matrix" / "drops.html").write_text("an earlier matrix's page")
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    code = main(["matrix", "examples/list.yaml", "--out", "matrix", "-n", "1"], out, err)
    assert code == 0, out.getvalue() + err.getvalue()
    assert "Drops every function_call item." in (tmp_path / "matrix" / "bugs.md").read_text()
    assert "earlier" not in (tmp_path / "matrix" / "drops.html").read_text()


@pytest.mark.parametrize(("previous", "error"), [
    ("missing", "--previous {p}: not a folder of an earlier matrix"),
    ("out", "--previous {p} is --out: a matrix is compared with an earlier one"),
])
def test_a_previous_matrix_that_cannot_be_compared_is_refused(
        tmp_path: Path, previous: str, error: str) -> None:
    listing(tmp_path, entry("ref", REFERENCE))
    (tmp_path / "out").mkdir()
    code, out, err = matrix(tmp_path, "--out", str(tmp_path / "out"),
                            "--previous", str(tmp_path / previous))
    assert (code, out) == (2, "")
    assert error.format(p=tmp_path / previous) in err, err
    assert list((tmp_path / "out").iterdir()) == []
