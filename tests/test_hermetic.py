"""A conformance run is sealed from its surroundings (kit/run.py: `pytest_args`, `hermetic`):
it loads its own plugins and none of the others installed beside it (they could reorder or
retry scenarios, and they cost CPU); it reads its own pytest configuration (kit/run.ini) and no
pytest.ini, pyproject.toml, tox.ini, setup.cfg or conftest.py of the project it is started
from or installed in, nor pytest's settings in the environment (a conftest.py could pass a
broken implementation, an `addopts` stop every run). Its temporary folder is its own
(`private_basetemp`)."""

from __future__ import annotations

import argparse
import errno
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tck.kit import paths, run
from agent_tck.kit.cli import main

INSTALLED_HERE = {"anyio", "hypothesispytest", "pytest_cov"}  # the dev extra brings them
RUNNER = argparse.Namespace(impl="reference", time_scale=0.02, component=["runner"],
                            keyword=None, markexpr=None, adapter_timeout=60.0)
SITE = Path(".venv", "lib", "python3", "site-packages")  # where the user installed agent-tck
CHECKOUT = Path(__file__).resolve().parent.parent  # where `tests.miniatures` imports from


class Seen:
    """What a run's session was configured with, and how many scenarios it collected."""

    def __init__(self) -> None:
        self.config: pytest.Config | None = None
        self.plugins: list[str] = []
        self.scenarios = 0

    def pytest_configure(self, config: pytest.Config) -> None:
        self.config = config
        self.plugins = [name for name, _ in config.pluginmanager.list_name_plugin()]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.scenarios = len(session.items)


def collect(seen: Seen) -> int | pytest.ExitCode:
    """Collect the runner component's scenarios as a run would, `seen` watching."""
    with run.hermetic(), run.private_basetemp() as basetemp:
        return pytest.main([*run.pytest_args(RUNNER), *basetemp, "--collect-only"],
                           plugins=[seen])


def test_a_run_loads_its_own_plugins_and_no_other_installed_one() -> None:
    seen = Seen()
    before = os.environ.get(run.AUTOLOAD_OFF)
    assert collect(seen) == pytest.ExitCode.OK
    assert set(run.RUN_PLUGINS) <= set(seen.plugins), seen.plugins
    assert not INSTALLED_HERE & set(seen.plugins), seen.plugins
    assert os.environ.get(run.AUTOLOAD_OFF) == before


def test_a_run_reads_its_own_configuration_not_the_checkouts() -> None:
    """The settings a run needs (kit/run.ini) are the kit's, the same in a wheel and here,
    where pytest would otherwise read the project's own pyproject.toml."""
    seen = Seen()
    assert collect(seen) == pytest.ExitCode.OK
    assert seen.config is not None
    assert seen.config.inipath == paths.RUN_INI
    assert "--strict-markers" in seen.config.getini("addopts")
    assert seen.config.getini("xfail_strict") is True
    assert seen.config.getini("filterwarnings")[0] == "error"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user's project, the current directory, with agent-tck installed inside it: the
    package reached through a path in the project, as from its virtualenv's site-packages."""
    site = tmp_path / SITE
    site.mkdir(parents=True)
    (site / "agent_tck").symlink_to(paths.PACKAGE, target_is_directory=True)
    monkeypatch.syspath_prepend(str(site))  # pytest adds it to import the suite: undone after
    monkeypatch.setattr(run, "PACKAGE", site / "agent_tck")
    monkeypatch.setattr(run, "SUITE", site / "agent_tck" / "steps" / "suite")
    monkeypatch.chdir(tmp_path)
    return tmp_path


HARMLESS = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
# Each would stop the run, or leave it nothing to run, were it read.
USERS_CONFIGURATION = {
    "pyproject.toml": {"pyproject.toml": '[tool.pytest.ini_options]\naddopts = "--cov=src"\n'},
    "pytest.ini": {"pytest.ini": "[pytest]\naddopts = -k no_scenario_is_named_so\n"},
    ".pytest.ini": {".pytest.ini": "[pytest]\npython_functions = check_\n"},
    "pytest.toml": {"pytest.toml": '[pytest]\nrequired_plugins = ["pytest-of-the-user"]\n'},
    "tox.ini": {"tox.ini": "[pytest]\npython_functions = check_\n"},
    "setup.cfg": {"setup.cfg": "[tool:pytest]\nrequired_plugins = pytest-of-the-user\n"},
    "conftest.py": {"pyproject.toml": HARMLESS,
                    "conftest.py": 'raise RuntimeError("the project\'s conftest.py ran")\n'},
}


@pytest.mark.parametrize("files", USERS_CONFIGURATION.values(), ids=USERS_CONFIGURATION)
def test_a_run_inside_a_users_project_reads_none_of_its_pytest_configuration(
        project: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (project / name).write_text(text)
    seen = Seen()
    assert collect(seen) == pytest.ExitCode.OK
    assert seen.config is not None and seen.scenarios > 0
    assert seen.config.inipath == paths.RUN_INI
    assert seen.config.rootpath == project / SITE / "agent_tck"


# Every failed step passes: the user's own conftest.py would make a broken implementation
# conformant.
PASSES_EVERYTHING = '''import pytest


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    try:
        return (yield)
    except Exception:
        return True
'''


def test_agent_tck_run_inside_a_users_project_judges_as_anywhere_else(project: Path) -> None:
    """The command as a user types it in their project, where agent-tck is installed, with a
    pytest configuration and a conftest.py that passes every failure: a broken implementation
    still fails. `-v` prints pytest's own report, under the run's `filterwarnings` (a quiet
    run turns pytest's warnings plugin off)."""
    (project / "pyproject.toml").write_text(HARMLESS)
    (project / "conftest.py").write_text(PASSES_EVERYTHING)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project / SITE), str(CHECKOUT)])}
    done = subprocess.run(
        [sys.executable, "-m", "agent_tck", "run", "--impl",
         "python:tests.miniatures.runner:AlwaysNone", "--component", "runner", "--req",
         "RUN-SIG-1", "-v"], cwd=project, env=env, capture_output=True, text=True, timeout=120,
        check=False)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert ["RUN-SIG-1", "MUST", "failed", "0/1"] in [line.split()
                                                       for line in done.stdout.splitlines()]


# pytest's settings in the environment, each of which would change or stop a run; pytest-timeout
# reads PYTEST_TIMEOUT before the run's own `timeout`.
ENVIRONMENT = {"PYTEST_ADDOPTS": "--cov=src", "PYTEST_PLUGINS": "plugin_of_the_user",
               "PYTEST_TIMEOUT": "0.0001"}


@pytest.mark.parametrize(("name", "value"), ENVIRONMENT.items(), ids=ENVIRONMENT)
def test_a_run_ignores_pytests_settings_in_the_environment_and_leaves_them_there(
        monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    out, err = io.StringIO(), io.StringIO()
    code = main(["run", "--component", "backends", "--req", "BK-CX.1"], out, err)
    assert code == 0, out.getvalue() + err.getvalue()
    assert ["BK-CX.1", "SHOULD", "passed", "1/1"] in [line.split()
                                                      for line in out.getvalue().splitlines()]
    assert os.environ[name] == value


def test_the_settings_are_restored_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(run.AUTOLOAD_OFF, "yes")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x")
    with run.hermetic():
        assert os.environ[run.AUTOLOAD_OFF] == "1"
        assert "PYTEST_ADDOPTS" not in os.environ
    assert (os.environ[run.AUTOLOAD_OFF], os.environ["PYTEST_ADDOPTS"]) == ("yes", "-x")
    monkeypatch.delenv(run.AUTOLOAD_OFF)
    monkeypatch.delenv("PYTEST_ADDOPTS")
    with run.hermetic():
        pass
    assert run.AUTOLOAD_OFF not in os.environ and "PYTEST_ADDOPTS" not in os.environ


def test_a_run_folder_that_cannot_be_removed_whole_ends_the_run_all_the_same(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What a scenario left that cannot be removed (a file still held, a folder of another
    user) stays in the temporary folder: the run ends with its own verdict, not a traceback
    of the cleanup."""
    unlink = os.unlink

    def held(path: Any, *args: Any, **kwargs: Any) -> None:
        if os.fspath(path).endswith("held-file"):
            raise PermissionError(errno.EPERM, "held", path)
        unlink(path, *args, **kwargs)

    with run.private_basetemp() as basetemp:
        folder = Path(basetemp[1]).parent
        (folder / "held-file").write_text("left by a scenario")
        monkeypatch.setattr(os, "unlink", held)
    monkeypatch.undo()
    assert [p.name for p in folder.iterdir()] == ["held-file"]
    shutil.rmtree(folder)
