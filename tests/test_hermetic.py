"""A conformance run loads its own plugins and none of the others installed beside it
(kit/run.py, `hermetic`): they could reorder or retry scenarios, and they cost CPU. Its
temporary folder is its own (`private_basetemp`)."""

from __future__ import annotations

import argparse
import errno
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent_tck.kit import run

INSTALLED_HERE = {"anyio", "hypothesispytest", "pytest_cov"}  # the dev extra brings them


def test_a_run_loads_its_own_plugins_and_no_other_installed_one() -> None:
    loaded: list[str] = []

    class Spy:
        def pytest_configure(self, config: pytest.Config) -> None:
            loaded.extend(name for name, _ in config.pluginmanager.list_name_plugin())

    args = argparse.Namespace(impl="reference", time_scale=0.02, component=["runner"],
                              keyword=None, markexpr=None, adapter_timeout=60.0)
    before = os.environ.get(run.AUTOLOAD_OFF)
    with run.hermetic(), run.private_basetemp() as basetemp:
        code = pytest.main([*run.pytest_args(args), *basetemp, "--collect-only"],
                           plugins=[Spy()])
    assert code == pytest.ExitCode.OK
    assert set(run.RUN_PLUGINS) <= set(loaded), loaded
    assert not INSTALLED_HERE & set(loaded), loaded
    assert os.environ.get(run.AUTOLOAD_OFF) == before


def test_the_setting_is_restored_as_it_was(monkeypatch: Any) -> None:
    monkeypatch.setenv(run.AUTOLOAD_OFF, "yes")
    with run.hermetic():
        assert os.environ[run.AUTOLOAD_OFF] == "1"
    assert os.environ[run.AUTOLOAD_OFF] == "yes"
    monkeypatch.delenv(run.AUTOLOAD_OFF)
    with run.hermetic():
        pass
    assert run.AUTOLOAD_OFF not in os.environ


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
