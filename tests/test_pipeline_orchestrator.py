"""The orchestrator and the metadata store, through their Python API (agents as callables)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from agent_tck.reference.exceptions import ContractError, PathError
from agent_tck.reference.pipeline import (
    AGENTS,
    Context,
    Reply,
    run_pipeline,
    scripted_agent,
    slug_for,
)
from agent_tck.reference.pipeline.store import MetadataStore

SOURCE = "app/services/payment.rb"


@pytest.fixture
def base(tmp_path: Path) -> Path:
    source = tmp_path / SOURCE
    source.parent.mkdir(parents=True)
    source.write_text("class Payment; end\n")
    os.utime(source, (1699351530, 1699351530))
    return tmp_path


def success(context: Context) -> Reply:
    return Reply({"status": "success"})


def test_agents_see_the_metadata_the_previous_ones_left(base: Path) -> None:
    seen: list[dict[str, object]] = []

    def analyzer(context: Context) -> Reply:
        return Reply("status: success\n", {"slug": context.slug}, "3.0")

    def architect(context: Context) -> Reply:
        seen.append(context.metadata)
        return Reply("status: success\n")

    agents = {"test-architect": architect, "code-analyzer": analyzer, "discovery-agent": success}
    result = run_pipeline(base, SOURCE, agents)
    assert (result.outcome, result.ran) == (
        "completed", ["discovery-agent", "code-analyzer", "test-architect"])
    assert seen == [{"slug": "app_services_payment", "automation": {
        "discovery_agent_completed": True, "discovery_agent_version": "1.0",
        "code_analyzer_completed": True, "code_analyzer_version": "3.0"}}]
    assert result.metadata_path == base / "tmp/rspec_metadata/app_services_payment.yml"


@pytest.mark.parametrize(("response", "message"), [
    ("status: done\n", "test-architect returned status 'done': expected one of success, error,"
                       " skip"),
    ("status: skip\n", "test-architect returned status skip without skip_reason"),
    ("status: error\n", "test-architect returned status error without error"),
    ("- a list\n", "test-architect returned status None: expected one of success, error, skip"),
    ("status: [\n", "test-architect returned unreadable YAML: <test-architect response>:2:1: $:"
                    " YAML syntax error: did not find expected node content"),
])
def test_a_malformed_response_stops_the_pipeline(base: Path, response: str,
                                                 message: str) -> None:
    agents = {"discovery-agent": success,
              "test-architect": scripted_agent({"response": response}, base)}
    result = run_pipeline(base, SOURCE, agents)
    assert (result.outcome, result.failed_agent, result.message) == (
        "error", "test-architect", message)


def test_a_run_without_the_discovery_agent_enriches_its_metadata(base: Path) -> None:
    store = MetadataStore(base, SOURCE)
    store.write({"class_name": "Payment", "automation": {"discovery_agent_completed": True}})
    analyzer = scripted_agent({"response": "status: success\n", "writes": {"slug": "x"}}, base)
    result = run_pipeline(base, SOURCE, {"code-analyzer": analyzer})
    assert (result.outcome, store.read()) == ("completed", {
        "class_name": "Payment", "slug": "x", "automation": {
            "discovery_agent_completed": True, "code_analyzer_completed": True,
            "code_analyzer_version": "1.0"}})
    store.write({"class_name": "Payment"})
    assert run_pipeline(base, SOURCE, {"code-analyzer": analyzer}).message.startswith(
        "code-analyzer cannot start: discovery_agent_completed: true is missing from ")


def test_an_automation_that_is_not_a_mapping_is_replaced(base: Path) -> None:
    store = MetadataStore(base, SOURCE)
    writer = scripted_agent({"response": "status: success\n", "writes": {"automation": [1]}},
                            base)
    assert run_pipeline(base, SOURCE, {"discovery-agent": writer}).outcome == "completed"
    assert store.read()["automation"] == {"discovery_agent_completed": True,
                                          "discovery_agent_version": "1.0"}


def test_a_crashing_agent_stops_the_pipeline(base: Path) -> None:
    def crash(context: Context) -> Reply:
        raise RuntimeError("out of tokens")

    result = run_pipeline(base, SOURCE, {"discovery-agent": crash, "code-analyzer": success})
    assert (result.outcome, result.ran, result.message) == (
        "error", ["discovery-agent"], "discovery-agent crashed: RuntimeError: out of tokens")


def test_discovery_may_stop_but_not_others(base: Path) -> None:
    stop = scripted_agent({"response": "status: stop\nreason: user_cancelled\n"}, base)
    assert run_pipeline(base, SOURCE, {"discovery-agent": stop}).to_dict() == {
        "outcome": "stopped", "ran": ["discovery-agent"], "skipped": [],
        "failed_agent": "discovery-agent", "message": "discovery-agent stopped: user_cancelled",
        "reason": "user_cancelled"}
    result = run_pipeline(base, SOURCE, {"discovery-agent": success, "code-analyzer": stop})
    assert result.message == ("code-analyzer returned status 'stop': expected one of success,"
                              " error, skip")


def test_unreadable_metadata_stops_cache_validation(base: Path) -> None:
    store = MetadataStore(base, SOURCE)
    store.directory.mkdir(parents=True)
    store.path.write_text("a: !!python/object:os.system x\n")
    result = run_pipeline(base, SOURCE, {"discovery-agent": success})
    assert (result.outcome, result.ran) == ("error", [])
    assert result.message.startswith("cache validation: metadata file refused: ")


@pytest.mark.parametrize(("agents", "start_at", "message"), [
    ({}, None, "a pipeline needs at least one agent"),
    ({"coder": success}, None, "unknown agent 'coder': the pipeline's agents are "),
    ({"code-analyzer": success}, "test-architect",
     "unknown agent 'test-architect': the pipeline's agents are code-analyzer"),
])
def test_unknown_agents_are_refused(base: Path, agents: dict[str, object], start_at: str | None,
                                    message: str) -> None:
    with pytest.raises(ContractError) as caught:
        run_pipeline(base, SOURCE, agents, start_at)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(("source", "slug"), [
    ("app/services/payment.rb", "app_services_payment"),
    ("app//models/user.rb", "app_models_user"),
    ("lib/tasks/run", "lib_tasks_run"),
])
def test_slug_convention(source: str, slug: str) -> None:
    assert slug_for(source) == slug


@pytest.mark.parametrize(("source", "message"), [
    ("../x.rb", "source path '../x.rb' has a '..' or '.' component: refused, the metadata file"
                " must stay under the metadata directory"),
    ("app/./x.rb", "source path 'app/./x.rb' has a '..' or '.' component: refused, the"
                   " metadata file must stay under the metadata directory"),
    ("/abs/x.rb", "source path '/abs/x.rb' must be relative to the project, with /"),
    ("app\\x.rb", "source path 'app\\\\x.rb' must be relative to the project, with /"),
    ("", "source path '' is empty or has surrounding spaces"),
    (" app/x.rb", "source path ' app/x.rb' is empty or has surrounding spaces"),
])
def test_paths_that_could_escape_are_refused(source: str, message: str) -> None:
    with pytest.raises(PathError) as caught:
        slug_for(source)
    assert str(caught.value) == message


def test_a_symlinked_metadata_directory_cannot_lead_out(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "project/tmp").mkdir(parents=True)
    (tmp_path / "project/tmp/rspec_metadata").symlink_to(outside)
    (outside / "app_x.yml").symlink_to(tmp_path / "elsewhere.yml")
    with pytest.raises(PathError, match="would leave"):
        MetadataStore(tmp_path / "project", "app/x.rb")


def test_atomic_write_leaves_no_temporary_file(base: Path) -> None:
    store = MetadataStore(base, SOURCE)
    store.write({"slug": "app_services_payment"})
    with pytest.raises(yaml.representer.RepresenterError):
        store.write({"slug": object()})
    assert sorted(p.name for p in store.directory.iterdir()) == ["app_services_payment.yml"]
    assert store.read() == {"slug": "app_services_payment"}


def test_every_seed_agent_runs_in_order(base: Path) -> None:
    order: list[str] = []

    def agent(context: Context) -> Reply:
        order.append(context.agent)
        return Reply("status: success\n")

    assert run_pipeline(base, SOURCE, {a: agent for a in reversed(AGENTS)}).ran == list(AGENTS)
    assert order == list(AGENTS)


@pytest.mark.parametrize(
    "relative", ["../outside.txt", "/tmp/agent-tck-never", "link/outside.txt", "", "."])
def test_removes_never_leaves_the_base_directory(tmp_path: Path, relative: str) -> None:
    base, outside = tmp_path / "base", tmp_path / "outside.txt"
    base.mkdir()
    outside.write_text("keep me")
    (base / "link").symlink_to(tmp_path)
    with pytest.raises(ContractError, match="removes: "):
        scripted_agent({"response": "status: success\n", "removes": [relative]}, base)
    assert outside.read_text() == "keep me"


def test_removes_deletes_inside_the_base_directory(tmp_path: Path) -> None:
    (tmp_path / "tmp").mkdir()
    (tmp_path / "tmp" / "old.yml").write_text("x")
    agent = scripted_agent({"response": "status: success\n", "removes": ["tmp/old.yml"]}, tmp_path)
    agent(None)  # type: ignore[arg-type]
    assert not (tmp_path / "tmp" / "old.yml").exists()
    reply = agent(None)  # type: ignore[arg-type]
    assert reply.response == "status: success\n"  # a file already gone is no error


@pytest.mark.parametrize("link", ["tmp", "tmp/rspec_metadata"])
def test_a_symlinked_metadata_directory_never_carries_writes_outside(
        tmp_path: Path, link: str) -> None:
    base, outside = tmp_path / "base", tmp_path / "outside"
    outside.mkdir()
    (base / link).parent.mkdir(parents=True, exist_ok=True)
    (base / link).symlink_to(outside)
    with pytest.raises(PathError, match="leads outside the base directory"):
        MetadataStore(base, "app/models/user.rb").write({"slug": "x"})
    assert list(outside.rglob("*.yml")) == []


def test_metadata_the_loader_would_refuse_is_never_written(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "a.rb").write_text("x")
    nested: list[object] = []
    for _ in range(70):
        nested = [nested]
    agent = scripted_agent({"response": "status: success\n", "writes": {"deep": nested}},
                           tmp_path)
    result = run_pipeline(tmp_path, "app/a.rb", {"discovery-agent": agent})
    assert result.outcome == "error"
    assert "could not be read back" in result.message and "nests deeper than 64" in result.message
    assert not (tmp_path / "tmp" / "rspec_metadata" / "app_a.yml").exists()


def test_two_sources_with_one_slug_never_share_a_metadata_file(tmp_path: Path) -> None:
    for source in ("app/services_payment.rb", "app/services/payment.rb"):
        (tmp_path / source).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / source).write_text("x")
    first = scripted_agent({"response": "status: success\n",
                            "writes": {"source_file": "app/services_payment.rb"}}, tmp_path)
    assert run_pipeline(tmp_path, "app/services_payment.rb",
                        {"discovery-agent": first}).outcome == "completed"
    ran: list[str] = []

    def second(context: object) -> object:
        ran.append("second")
        raise AssertionError("must not run")

    result = run_pipeline(tmp_path, "app/services/payment.rb",
                          {"discovery-agent": second})  # type: ignore[dict-item]
    assert result.outcome == "error" and ran == []
    assert "slug collision" in result.message and "belongs to app/services_payment.rb" in (
        result.message)
    kept = yaml.safe_load((tmp_path / "tmp/rspec_metadata/app_services_payment.yml").read_text())
    assert kept["source_file"] == "app/services_payment.rb"
