"""Run the suite against broken implementations and report, per implementation, the
requirements whose scenarios failed.

Broken implementations are driver objects. `failing_requirements` runs the suite once, in
this process, with every scenario parametrized over the given implementations (collection
happens once, which keeps the self-tests fast), and returns, for each implementation, the
requirement IDs (from `req` markers) of the scenarios that did not pass.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agent_tck.kit.run import plugin_args, private_basetemp
from tests.support.nested import unmeasured

ROOT = Path(__file__).resolve().parents[2]
PARAM = "broken_impl"


def _plugin(impls: Mapping[str, Any], failed: dict[str, set[str]]) -> ModuleType:
    """A plugin whose `driver` fixture is, per test, one of `impls`, and that records the
    requirement IDs of every scenario that does not pass under that implementation's name.
    Registered after `kit.plugin`, its `driver` fixture wins."""
    plugin = ModuleType("broken_drivers")

    def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
        metafunc.fixturenames.append(PARAM)
        metafunc.parametrize(PARAM, list(impls))

    @pytest.fixture
    def driver(broken_impl: str) -> Any:
        return impls[broken_impl]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, Any, Any]:
        report = yield
        if report.failed:
            name = item.callspec.params[PARAM]  # type: ignore[attr-defined]
            failed[name].update(m.args[0] for m in item.iter_markers("req"))
        return report

    for hook in (pytest_generate_tests, driver, pytest_runtest_makereport):
        setattr(plugin, getattr(hook, "__name__", "driver"), hook)
    return plugin


class _Register:
    def __init__(self, plugin: ModuleType) -> None:
        self.plugin = plugin

    def pytest_configure(self, config: pytest.Config) -> None:
        config.pluginmanager.register(self.plugin, "broken-drivers")


def failing_requirements(impls: Mapping[str, Any], *paths: str) -> dict[str, set[str]]:
    """Implementation name -> the requirement IDs whose scenarios fail against it."""
    failed: dict[str, set[str]] = {name: set() for name in impls}
    args = [str(ROOT / p) for p in paths] or [str(ROOT / "steps" / "suite")]
    with private_basetemp() as basetemp, unmeasured():
        code = pytest.main([*args, *plugin_args(), *basetemp, "-qq", "--tb=no", "-rN",
                            "--rootdir", str(ROOT)], plugins=[_Register(_plugin(impls, failed))])
    assert code in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), f"suite run: {code!r}"
    return failed
