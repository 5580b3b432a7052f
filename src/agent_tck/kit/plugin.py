"""The pytest plugin (entry point `agent_tck`): options, the driver, tags, applicability.

Hook wiring only; the work is in `kit.drivers`, `steps.world` and the step modules.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from fnmatch import fnmatch
from typing import Any

import pytest
from _pytest.mark.expression import Expression

from agent_tck.kit import registry, steplookup, verdicts
from agent_tck.kit.drivers import Driver, make_driver
from agent_tck.kit.errors import DriverError
from agent_tck.kit.failfast import FailFast
from agent_tck.kit.options import add_shared

# The step modules' asserts are the verdicts' evidence: pytest rewrites them, as it would
# the modules `pytest_plugins` names, when they are registered before they are imported.
pytest.register_assert_rewrite("agent_tck.steps")

from agent_tck.steps import (  # noqa: E402
    agent_steps,
    backend_steps,
    credential_steps,
    harness_steps,
    pipeline_steps,
    realcli_steps,
    responses_steps,
    runner_steps,
    transport_steps,
)

# The step definitions, one module per component (and the harness's, which several share):
# the plugin registers them with pytest. The one import of the kit from the steps
# (pyproject.toml's contracts); the steps import nothing of this module back.
pytest_plugins = [module.__name__ for module in (
    agent_steps, credential_steps, backend_steps, harness_steps, pipeline_steps,
    transport_steps, responses_steps, runner_steps, realcli_steps)]

# Components that are not profiles of their own: the one they check with other means.
CHECKS_COMPONENT = {"real-cli": "agent"}


def pytest_addoption(parser: pytest.Parser) -> None:
    """The options `agent-tck run` shares with the session it starts, and two it sets itself
    (its `-k` and, unless --keep-going, fail-fast): a session started otherwise (the
    project's own tests) neither selects by them nor stops early."""
    group = parser.getgroup("agent-tck")
    add_shared(group.addoption)
    group.addoption("--select", metavar="EXPRESSION",
                    help="`agent-tck run -k`: the scenarios an expression selects by their "
                         "titles, test names, features, parameters and requirement IDs")
    group.addoption("--fail-fast", action="store_true",
                    help="stop a worker once many scenarios of a component break the same "
                         "way (kit/failfast.py; `agent-tck run` sets it unless --keep-going)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`--req` patterns (fnmatch) and a `--select` expression deselect the scenarios they do
    not match (in each xdist worker alike); before the collector (trylast) lists them."""
    patterns, expression = config.getoption("--req"), config.getoption("--select")
    selection = None if expression is None else _compiled(expression)
    keep = [i for i in items if (not patterns or any(
        fnmatch(rid, p) for rid in _reqs(i) for p in patterns)) and (
        selection is None or selects(selection, i))]
    if len(keep) < len(items):
        kept = set(map(id, keep))
        config.hook.pytest_deselected(items=[i for i in items if id(i) not in kept])
        items[:] = keep


def _reqs(item: pytest.Item) -> list[str]:
    return [m.args[0] for m in item.iter_markers("req")]


def _compiled(expression: str) -> Expression:
    try:
        return Expression.compile(expression)
    except SyntaxError as exc:  # what pytest's expression parser raises
        raise pytest.UsageError(f"-k {expression!r}: {exc}") from None


def selects(selection: Expression, item: pytest.Item) -> bool:
    """Whether `selection` (pytest's -k grammar) selects `item` by what the spec says of it:
    its feature's name and scenario's title (the scenario function's docstring; its name,
    made from the title, is in its node id with the run's parameters), its requirement IDs.
    Not by marks, as pytest's own -k does: a module's `timeout` mark would select all of
    its scenarios for `-k timeout`."""
    title = getattr(getattr(item, "obj", None), "__doc__", None) or ""
    words = " ".join([title, item.nodeid, *_reqs(item)]).lower()

    def found(word: str, /, **_: str | int | bool | None) -> bool:
        return word.lower() in words

    return selection.evaluate(found)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Each report carries its scenario's outcome, read where it ran (verdicts.outcome), its
    traceback without pytest's own frames (verdicts.prune)."""
    if call.excinfo is not None:
        verdicts.prune(call.excinfo)
    report: pytest.TestReport = yield
    if item.get_closest_marker("component") is not None:
        report.user_properties.append((verdicts.KEY, verdicts.outcome(item, report, call)))
    return report


def pytest_configure(config: pytest.Config) -> None:
    """The step lookup and markers; in a pytest-xdist worker, the fail-fast watch of its own
    scenarios too: a worker runs the scenarios queued to it until it stops itself, whatever
    the controller decides (`agent-tck run` watches the whole run in the controller)."""
    if hasattr(config, "workerinput") and config.getoption("--fail-fast"):
        config.pluginmanager.register(FailFast(), "agent-tck-failfast")
    steplookup.install()
    for line in (
        "req(id): the requirement a scenario checks (from @req:<id> tags)",
        "component(name): the spec component a suite module belongs to",
        f"real-cli: runs the real, pinned {', '.join(registry.KNOWN_BACKENDS)} CLIs "
        "(features/real-cli)",
    ):
        config.addinivalue_line("markers", line)


@pytest.hookimpl(tryfirst=True)
def pytest_bdd_apply_tag(tag: str, function: Callable[..., Any]) -> bool | None:
    """`@req:ID` becomes the `req` marker; other tags keep pytest-bdd's default."""
    if tag.startswith("req:"):
        pytest.mark.req(tag[4:])(function)
        return True
    return None


def pytest_bdd_before_step(request: pytest.FixtureRequest, step: Any) -> None:
    """Which step runs now, for a step that finds it judges nothing (verdicts.step_not_judged)."""
    request.node.stash[verdicts.STEP] = step.name


@functools.cache
def _requirements() -> dict[str, registry.Requirement]:
    return registry.load()


def backends_of(node: pytest.Item | pytest.Function | Any) -> tuple[str, ...]:
    """The backends the scenario's requirements run it for (`backends` in the registry)."""
    reqs = _requirements()
    found = [b for m in node.iter_markers("req") if m.args[0] in reqs
             for b in reqs[m.args[0]].backends]
    return tuple(dict.fromkeys(found))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A scenario of a backend-neutral requirement runs once per backend it names."""
    backends = backends_of(metafunc.definition)
    if len(backends) > 1 and "scenario_backend" in metafunc.fixturenames:
        metafunc.parametrize("scenario_backend", backends)


@pytest.fixture
def scenario_backend(request: pytest.FixtureRequest) -> str | None:
    """The backend this run of the scenario is for; None: the one its steps name."""
    backends = backends_of(request.node)
    return backends[0] if len(backends) == 1 else None


@pytest.fixture(autouse=True)
def _backend_applicable(request: pytest.FixtureRequest, scenario_backend: str | None) -> None:
    """Skip, as not applicable, the runs for a backend the implementation does not declare."""
    if scenario_backend is not None and request.node.get_closest_marker("component"):
        verdicts.require_backend(request.getfixturevalue("driver"), scenario_backend)


@pytest.fixture(scope="session")
def driver(pytestconfig: pytest.Config) -> Iterator[Driver]:
    """The implementation under test, started once for the session."""
    impl = make_driver(pytestconfig.getoption("--impl"),
                       pytestconfig.getoption("--adapter-timeout"),
                       pytestconfig.getoption("--isolate"),
                       pytestconfig.getoption("--read-only"))
    pytestconfig.stash[verdicts.DECLARED] = impl.info.to_dict()  # what is judged, in reports
    pytestconfig.stash[verdicts.DRIVER] = impl  # its exchange, in a failure's report
    try:
        yield impl
    finally:
        impl.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A scenario answers for all the implementation said in it: a second answer to one of its
    requests, or one that came after, errors this scenario, not the next one to ask. After a
    scenario that failed, its failure stands and what came after goes with the adapter."""
    impl: Driver | None = item.config.stash.get(verdicts.DRIVER, None)
    try:
        result = yield
    except BaseException:
        if impl is not None:
            impl.unasked()
        raise
    said = impl.unasked() if impl is not None else None
    if said is not None:
        raise DriverError(said)
    return result


@pytest.fixture
def time_scale(pytestconfig: pytest.Config) -> float:
    return float(pytestconfig.getoption("--time-scale"))


@pytest.fixture(autouse=True)
def _applicable(request: pytest.FixtureRequest) -> None:
    """Skip, as not applicable, scenarios of a component the implementation does not declare."""
    marker = request.node.get_closest_marker("component")
    if marker is None:
        return
    impl: Driver = request.getfixturevalue("driver")
    component = CHECKS_COMPONENT.get(marker.args[0], marker.args[0])
    if component not in impl.info.components:
        verdicts.not_applicable(f"component {component!r} not declared")
