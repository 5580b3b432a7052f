"""Steps of credentials: the CLI's own login or an API key (features/agent/credentials.feature,
decision D-21). Each backend's API-key variables come from its profile (doubles/backends)."""

from __future__ import annotations

import os

from pytest_bdd import given, parsers, then, when

from agent_tck.doubles.backends import profile
from agent_tck.kit.drivers.base import INHERITED_ENV
from agent_tck.kit.verdicts import not_applicable
from agent_tck.steps.agent_steps import agent_with_backend, create_or_refuse
from agent_tck.steps.world import AgentWorld

# How an implementation marks its probe run (decision D-22), in that run's environment.
PROBE_MARK = "CODING_AGENT_PROBE"


def _keys(world: AgentWorld) -> tuple[str, ...]:
    return profile(world.backend).key_variables


@given(parsers.parse('an agent for the "{backend}" backend with credentials "{mode}"'))
def agent_with_credentials(world: AgentWorld, backend: str, mode: str) -> None:
    agent_with_backend(world, backend)
    world.settings["credentials"] = mode


@given(parsers.parse('an agent for the "{backend}" backend that sets its first API key '
                     'variable to "{value}"'))
def agent_setting_a_key(world: AgentWorld, backend: str, value: str) -> None:
    agent_with_backend(world, backend)
    if not world.driver.env_apart:
        not_applicable("the driver hands env on as the implementation's own environment: a key "
                       "set there cannot be told from an inherited one")
    world.env[_keys(world)[0]] = value


@given("the implementation inherited every API key variable of the agent's backend")
def inherited_keys(world: AgentWorld) -> None:
    missing = [name for name in _keys(world) if name not in INHERITED_ENV]
    assert not missing, f"the suite does not put {missing} in the implementation's env"


@given("the agent strips every API key variable of its backend")
def strips_keys(world: AgentWorld) -> None:
    world.settings.setdefault("strip_env", []).extend(_keys(world))


@given("the CLI's login does not work: without an API key it reports an authentication "
       "failure in its stream and exits 0")
def login_fails(world: AgentWorld) -> None:
    script = world.new_script()
    failure = [script.profile.init(), script.failure_line("Invalid API key · Please run /login")]
    script.add("login_fails", {"keys": list(_keys(world)), "lines": failure})
    world.default_script()  # with a key, it answers


@when("the agent is created, or refused")
def created_or_refused(world: AgentWorld) -> None:
    create_or_refuse(world)


def _created_reason(world: AgentWorld, state: str) -> str:
    assert world.created_states, "no state was published while the agent was created"
    last = world.created_states[-1]
    assert last.get("state") == state, (
        f"the agent was created {last.get('state')}, not {state}: {world.created_states}")
    return str(last.get("reason") or "")


@then(parsers.parse("the agent was created {state}, its reason naming the login"))
def created_on_login(world: AgentWorld, state: str) -> None:
    reason = _created_reason(world, state)
    assert "login" in reason.lower(), f"the reason does not name the login: {reason!r}"
    named = [name for name in _keys(world) if name in reason]
    assert not named, f"the login works, yet the reason names keys {named}: {reason!r}"


@then(parsers.parse("the agent was created {state}, its reason naming the first API key "
                    "variable of the agent's backend"))
def created_on_a_key(world: AgentWorld, state: str) -> None:
    reason = _created_reason(world, state)
    assert _keys(world)[0] in reason, (
        f"the reason does not name the key variable in use, {_keys(world)[0]}: {reason!r}")


@then(parsers.parse("the agent was created {state}, its reason naming every API key variable of "
                    "the agent's backend"))
def created_naming_keys(world: AgentWorld, state: str) -> None:
    reason = _created_reason(world, state)
    unnamed = [name for name in _keys(world) if name not in reason]
    assert not unnamed, f"the reason does not name {unnamed}: {reason!r}"


@then(parsers.parse('the reason quotes what the CLI said: "{words}"'))
def reason_quotes_cli(world: AgentWorld, words: str) -> None:
    assert world.created_states, "no state was published while the agent was created"
    reason = str(world.created_states[-1].get("reason") or "")
    assert words in reason, f"the reason does not quote the CLI's {words!r}: {reason!r}"


@then("the harness was started once, marked as a probe, with none of the API key variables of "
      "the agent's backend")
def probed_once(world: AgentWorld) -> None:
    starts = world.rig.starts()
    assert len(starts) == 1, f"the CLI was started {len(starts)} times while the agent was created"
    env = starts[0]["env"]
    assert env.get(PROBE_MARK) == "1", (
        f"the probe run was not marked {PROBE_MARK}=1: {env.get(PROBE_MARK)!r}")
    leaked = [name for name in _keys(world) if name in env]
    assert not leaked, f"the probe of the login ran with API keys {leaked}"


@then("the harness's last start was not marked as a probe")
def request_unmarked(world: AgentWorld) -> None:
    env = world.rig.last_start()["env"]
    assert PROBE_MARK not in env, f"a request's run was marked as a probe: {env[PROBE_MARK]!r}"


@then("the harness saw none of the API key variables of the agent's backend")
def saw_no_key(world: AgentWorld) -> None:
    env = world.rig.last_start()["env"]
    leaked = {name: env[name] for name in _keys(world) if name in env}
    assert not leaked, f"the CLI got API keys while using its own login: {leaked}"


@then("the harness saw every API key variable of the agent's backend as inherited")
def saw_every_key(world: AgentWorld) -> None:
    env = world.rig.last_start()["env"]
    wrong = {name: env.get(name) for name in _keys(world) if env.get(name) != INHERITED_ENV[name]}
    assert not wrong, f"inherited API keys did not reach the CLI as they were: {wrong}"


@then("the harness saw HOME, PATH and the other inherited variables unchanged")
def saw_the_rest(world: AgentWorld) -> None:
    env = world.rig.last_start()["env"]
    expected = {"HOME": os.environ.get("HOME"), "PATH": world.path_override or world.rig.path(),
                "AGENT_TCK_INHERITED": INHERITED_ENV["AGENT_TCK_INHERITED"]}
    changed = {name: env.get(name) for name, value in expected.items() if env.get(name) != value}
    assert not changed, f"variables other than API keys changed on the way: {changed}"


@then("the creation is refused with an error that names the API key variables of its backend")
def refused_naming_keys(world: AgentWorld) -> None:
    assert world.refusal is not None, (
        f"an agent was created with {world.settings!r} and none of {_keys(world)} set")
    unnamed = [name for name in _keys(world) if name not in world.refusal]
    assert not unnamed, f"the error does not name {unnamed}: {world.refusal[-300:]!r}"
