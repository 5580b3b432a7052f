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


def _plugin(impls: Mapping[str, Any], failed: dict[str, set[str]],
            reach: Mapping[str, set[str]]) -> ModuleType:
    """A plugin whose `driver` fixture is, per test, one of `impls`, and that records the
    requirement IDs of every scenario that does not pass under that implementation's name.
    An implementation named in `reach` runs only the scenarios (test function names) it
    gives. Registered after `kit.plugin`, its `driver` fixture wins."""
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

    def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
        def reached(item: pytest.Item) -> bool:
            name = item.callspec.params[PARAM]  # type: ignore[attr-defined]
            return name not in reach or item.originalname in reach[name]  # type: ignore[attr-defined]

        kept = [item for item in items if reached(item)]
        config.hook.pytest_deselected(items=[item for item in items if not reached(item)])
        items[:] = kept

    for hook in (pytest_generate_tests, driver, pytest_runtest_makereport,
                 pytest_collection_modifyitems):
        setattr(plugin, getattr(hook, "__name__", "driver"), hook)
    return plugin


class _Register:
    def __init__(self, plugin: ModuleType) -> None:
        self.plugin = plugin

    def pytest_configure(self, config: pytest.Config) -> None:
        config.pluginmanager.register(self.plugin, "broken-drivers")


def failing_requirements(impls: Mapping[str, Any], *paths: str,
                         reach: Mapping[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Implementation name -> the requirement IDs whose scenarios fail against it (of the
    scenarios `reach` gives it, where it names it)."""
    failed: dict[str, set[str]] = {name: set() for name in impls}
    args = [str(ROOT / p) for p in paths] or [str(ROOT / "steps" / "suite")]
    plugin = _Register(_plugin(impls, failed, reach or {}))
    with private_basetemp() as basetemp, unmeasured():
        code = pytest.main([*args, *plugin_args(), *basetemp, "-qq", "--tb=no", "-rN",
                            "--rootdir", str(ROOT)], plugins=[plugin])
    assert code in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), f"suite run: {code!r}"
    return failed
