"""Meta-tests: the requirement registry and the scenarios' @req tags agree, both ways."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from gherkin.parser import Parser

from agent_tck.kit import registry, reports
from agent_tck.kit.errors import RegistryError
from agent_tck.kit.gherkin import parse, read_manifest
from agent_tck.kit.paths import FEATURES

REQS = registry.load()
TAGS = registry.tags_in()


def test_every_requirement_has_a_scenario() -> None:
    assert sorted(set(REQS) - set(TAGS)) == []


def test_every_tag_names_a_requirement() -> None:
    assert {t: TAGS[t] for t in set(TAGS) - set(REQS)} == {}


def test_every_tag_is_in_its_own_component_folder() -> None:
    misplaced = {
        t: places
        for t, places in TAGS.items()
        if t in REQS and not all(p.startswith(REQS[t].component + "/") for p in places)
    }
    assert misplaced == {}


@pytest.mark.parametrize("manifest", sorted(FEATURES.glob("*/spec/manifest.yaml")), ids=str)
def test_seed_requirements_are_the_seed_scenarios(manifest: Path) -> None:
    """A generated scenario's requirement text is its title, word for word, at level MUST."""
    for source, prefix in read_manifest(manifest):
        doc = parse(source.read_text(), source.name)
        for s_index, section in enumerate(doc.sections, 1):
            for c_index, scenario in enumerate(section.scenarios, 1):
                req = REQS[f"{prefix}-{s_index}.{c_index}"]
                assert (req.text, req.level) == (scenario.title, "MUST")


@pytest.mark.parametrize("feature", sorted(FEATURES.rglob("*.feature")), ids=str)
def test_feature_parses_and_names_scenarios_uniquely(feature: Path) -> None:
    """pytest-bdd turns titles into test names: two equal titles would hide one scenario."""
    doc = Parser().parse(feature.read_text())
    names = [c["scenario"]["name"] for c in _children(doc["feature"]) if "scenario" in c]
    assert [n for n, k in Counter(names).items() if k > 1] == []


def _children(node: dict) -> list[dict]:  # type: ignore[type-arg]
    out = []
    for child in node.get("children", []):
        out.append(child)
        if "rule" in child:
            out += _children(child["rule"])
    return out


def test_component_titles_are_unique_across_its_files() -> None:
    for folder in (p for p in FEATURES.iterdir() if p.is_dir()):
        names = [
            c["scenario"]["name"]
            for f in folder.glob("*.feature")
            for c in _children(Parser().parse(f.read_text())["feature"])
            if "scenario" in c
        ]
        assert [n for n, k in Counter(names).items() if k > 1] == [], folder.name


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{}", "expected a list of requirements"),
        (
            "- {id: X, level: MAY, text: t, source: s}",
            "level 'MAY' is not one of ('MUST', 'SHOULD')",
        ),
        (
            "- {id: X, level: MUST, text: t}",
            "needs the fields ['id', 'level', 'source', 'text'], optionally ['backends', "
            "'hazards']",
        ),
        (
            "- {id: X, level: MUST, text: t, source: s, hazards: [{url: "
            "'https://github.com/o/r/issues/0', what: w}]}",
            "(X): hazard url 'https://github.com/o/r/issues/0' is neither a GitHub issue",
        ),
        (
            "- {id: X, level: MUST, text: t, source: s, hazards: [{url: "
            "'https://example.com/o/r/issues/3', what: w}]}",
            "hazard url 'https://example.com/o/r/issues/3' is neither",
        ),
        (
            "- {id: X, level: MUST, text: t, source: s, hazards: [{url: "
            "'https://github.com/o/r/pull/3'}]}",
            "needs a url and a what, both text",
        ),
        (
            "- {id: X, level: MUST, text: t, source: s, hazards: {url: u, what: w}}",
            "is not a list",
        ),
        (
            "- {id: X, level: MUST, text: t, source: s, backends: [claude, acme]}",
            "backends ['claude', 'acme'] is not a list of ('claude', 'codex', 'gemini', "
            "'claude-acp', 'codex-acp', 'gemini-acp')",
        ),
        (
            "- {id: X, level: MUST, text: t, source: s, backends: claude}",
            "backends 'claude' is not a list",
        ),
    ],
)
def test_bad_registry_is_refused_with_its_place(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "comp").mkdir()
    (tmp_path / "comp" / "requirements.yaml").write_text(text)
    with pytest.raises(RegistryError, match=r"comp/requirements\.yaml") as caught:
        registry.load(tmp_path)
    assert message in str(caught.value)


def test_duplicate_requirement_is_refused(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "requirements.yaml").write_text(
            "- {id: X-1, level: MUST, text: t, source: s}"
        )
    with pytest.raises(RegistryError, match="requirement X-1 is defined twice"):
        registry.load(tmp_path)


def test_a_hazard_listed_twice_under_one_requirement_is_refused(tmp_path: Path) -> None:
    """A hazard caught by two requirements is listed under each; twice under one, refused."""
    (tmp_path / "comp").mkdir()
    hazard = "{url: 'https://github.com/o/r/issues/12', what: it hung}"
    (tmp_path / "comp" / "requirements.yaml").write_text(
        f"- {{id: X-1, level: MUST, text: t, source: s, hazards: [{hazard}]}}\n"
        f"- {{id: X-2, level: MUST, text: t, source: s, hazards: [{hazard}]}}\n")
    assert registry.load(tmp_path)["X-2"].hazards == (
        registry.Hazard("https://github.com/o/r/issues/12", "it hung"),)
    (tmp_path / "comp" / "requirements.yaml").write_text(
        f"- {{id: X-1, level: MUST, text: t, source: s, hazards: [{hazard}, {hazard}]}}\n")
    with pytest.raises(RegistryError, match=r"\(X-1\): hazard https://github.com/o/r/issues/12 "
                                            "is listed twice"):
        registry.load(tmp_path)


SEED = re.compile(r"\bfeatures/[\w-]+/spec/\d{3}_\w+\.txt\b")
GENESIS_ROW = re.compile(r"docs/genesis\.md G\d{2}\.\d+")
DECISION = re.compile(r"\bdocs/decisions\.md D-\d+")
PROTOCOL = re.compile(r"https://(agentclientprotocol\.com/protocol/|www\.jsonrpc\.org/specification)")
SCENARIO = re.compile(r"^\s*(Scenario|Scenario Outline|Example):")


def test_every_scenario_is_tagged_with_a_requirement() -> None:
    untagged = []
    for path in sorted(FEATURES.rglob("*.feature")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if SCENARIO.match(line) and "@req:" not in lines[number - 1]:
                untagged.append(f"{path.relative_to(FEATURES)}:{number + 1}")
    assert untagged == []


def test_musts_cite_a_seed_and_shoulds_a_seed_or_a_decision() -> None:
    """A SHOULD may instead cite a row of the GENESIS map (the chapters beyond our seeds). A
    MUST of an ACP wrapper alone may cite the protocol's own normative text instead (the ACP
    specification, or JSON-RPC 2.0's, which ACP is built on): issue 61 asks for it so."""
    musts = [r.id for r in REQS.values() if r.level == "MUST" and not SEED.search(r.source)
             and not (PROTOCOL.search(r.source)
                      and set(r.backends) <= set(registry.ACP_BACKENDS) and r.backends)]
    shoulds = [r.id for r in REQS.values() if r.level == "SHOULD"
               and not (SEED.search(r.source) or DECISION.search(r.source)
                        or GENESIS_ROW.search(r.source))]
    assert (musts, shoulds) == ([], [])


def test_every_agent_must_says_which_backends_it_runs_for() -> None:
    """A codex-only and a claude-only implementation can each be conformant: every MUST of
    the agent component names the backends its scenarios run for (issue: real SDKs)."""
    silent = [r.id for r in REQS.values()
              if r.component == "agent" and r.level == "MUST" and not r.backends]
    assert silent == []
    for backend in registry.KNOWN_BACKENDS:
        musts = [r for r in REQS.values() if r.component == "agent" and r.level == "MUST"]
        assert any(backend in r.backends for r in musts), backend


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'a: &a ["x","x"]\nb: &b [*a,*a]\nc: [*b,*b]\n',
         ":1:4: anchors and aliases are not allowed"),
        (b"- {id: X, level: MUST, text: caf\xe9, source: s}\n", "not UTF-8 (invalid continuation"),
        (b"x" * (1024 * 1024 + 1), "over the limit of 1048576"),
        (b"- {id: [RP-1.1], reason: r}\n", "id ['RP-1.1'] is not a requirement ID"),
        # an entry without its reason, or with a word more, is not taken as an excuse
        (b"- {id: RP-1.1}\n", "entry 0: needs exactly 'id' and 'reason'"),
        (b"- {id: RP-1.1, reason: r, until: never}\n", "entry 0: needs exactly 'id' and 'reason'"),
        (b"- {id: RP-1.1, reason: '  '}\n", "entry 0: RP-1.1 has an empty reason"),
        (b"- {id: NO-SUCH.1, reason: r}\n", "entry 0: unknown requirement 'NO-SUCH.1'"),
        (b"{RP-1.1: r}\n", "expected a list of {id, reason}"),
    ],
)
def test_a_hostile_baseline_is_refused_naming_the_file(
    tmp_path: Path, data: bytes, message: str
) -> None:
    path = tmp_path / "baseline.yaml"
    path.write_bytes(data)
    with pytest.raises(RegistryError, match="baseline ") as caught:
        reports.load_baseline(path, REQS)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_the_acp_backends_are_the_clis_the_fake_plays_as_acp_agents() -> None:
    """kit/registry.py names them (the kit imports nothing of the doubles); the profiles say
    which CLIs the fake harness can play as an ACP agent."""
    from agent_tck.doubles.backends import PROFILES

    played = tuple(f"{name}-acp" for name, p in PROFILES.items() if p.acp_agent)
    assert played == registry.ACP_BACKENDS
    assert all(any(b in r.backends for r in REQS.values() if r.level == "MUST")
               for b in registry.ACP_BACKENDS)
