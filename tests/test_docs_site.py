"""`agent-tck docs --out DIR`: the spec as a static site. Every requirement has its anchor,
every scenario of every feature file is on its component's page linked to its requirements
and its source line, every internal link lands on an anchor that exists, nothing is loaded
from anywhere, hostile text stays text, and a folder the command did not write is refused."""

from __future__ import annotations

import io
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_tck.kit import registry
from agent_tck.kit.cli import main
from agent_tck.kit.docs_site import MARKER, build
from agent_tck.kit.errors import SpecError
from agent_tck.kit.gherkin import parse_document
from agent_tck.kit.paths import DOCS, FEATURES
from tests.test_html_report import LOADERS, Tree

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


@dataclass
class Site:
    code: int
    out: str
    err: str
    pages: dict[str, Tree]


def docs(out_dir: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["docs", "--out", str(out_dir)], out, err)
    return code, out.getvalue(), err.getvalue()


def read_site(out_dir: Path) -> dict[str, Tree]:
    return {p.name: Tree(p.read_text(encoding="utf-8")) for p in sorted(out_dir.glob("*.html"))}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    out_dir = tmp_path_factory.mktemp("docs") / "site"
    code, out, err = docs(out_dir)
    return Site(code, out, err, read_site(out_dir))


def scenarios_of(path: Path) -> Iterator[dict[str, Any]]:
    """Every scenario of a feature file, those inside rules too, by the official parser."""
    document = parse_document(path.read_text(encoding="utf-8"), str(path))
    children = list(document["feature"]["children"])
    while children:
        child = children.pop(0)
        if "rule" in child:
            children += child["rule"]["children"]
        elif "scenario" in child:
            yield child["scenario"]


def slug(value: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")


def test_the_site_has_its_pages_and_says_how_many(site: Site) -> None:
    assert site.code == 0, site.err
    assert site.err == ""
    assert site.out.startswith(f"{len(site.pages)} pages, ")
    expected = {"index.html", "requirements.html", "decisions.html",
                *(f"{c}.html" for c in registry.COMPONENTS),
                *(f"source-{slug(p.parent.name)}-{slug(p.stem)}.html"
                  for p in FEATURES.glob("*/*.feature"))}
    if (DOCS / "genesis.md").is_file():
        expected.add("genesis.html")
    assert set(site.pages) == expected


def test_every_requirement_is_on_the_index_with_its_anchor(site: Site) -> None:
    page = site.pages["requirements.html"]
    for req in registry.load().values():
        row = page.by_id(req.id)
        cells = [c.text() for c in page.find("td", under=row)]
        assert cells[:4] == [req.id, req.level, req.component + (
            f" ({', '.join(req.backends)})" if req.backends else ""), req.text], req.id
        hazards = "".join(f"{h.url.removeprefix('https://github.com/')}: {h.what}"
                          for h in req.hazards)
        assert cells[4] == req.source + (f"guards against:{hazards}" if hazards else ""), req.id


def test_every_scenario_is_on_its_components_page_linked_to_its_requirements_and_source(
        site: Site) -> None:
    count = 0
    for path in sorted(FEATURES.glob("*/*.feature")):
        page = site.pages[f"{path.parent.name}.html"]
        for scenario in scenarios_of(path):
            line = scenario["location"]["line"]
            section = page.by_id(f"{slug(path.stem)}-L{line}")
            [heading] = page.find("h4", under=section)
            assert heading.text() == f"{scenario['keyword']}: {scenario['name']}"
            hrefs = {a.attrs["href"] for a in page.find("a", under=section)}
            reqs = [t["name"].removeprefix("@req:") for t in scenario["tags"]
                    if t["name"].startswith("@req:")]
            assert reqs, f"{path}:{line} checks no requirement"
            assert {f"requirements.html#{r}" for r in reqs} <= hrefs, f"{path}:{line}"
            source = f"source-{slug(path.parent.name)}-{slug(path.stem)}.html#L{line}"
            assert source in hrefs, f"{path}:{line}"
            count += 1
    assert count >= 200


def test_every_internal_link_lands_on_an_anchor_that_exists(site: Site) -> None:
    ids = {name: {n.attrs["id"] for n in tree.all if "id" in n.attrs}
           for name, tree in site.pages.items()}
    broken, followed = [], 0
    for name, tree in site.pages.items():
        for node in tree.find("a"):
            href = node.attrs["href"]
            if re.match(r"https?://", href):
                continue
            target, _, fragment = href.partition("#")
            target = target or name
            if target not in ids or (fragment and fragment not in ids[target]):
                broken.append(f"{name}: {href}")
            followed += bool(fragment)
    assert broken == []
    assert followed > 1000


def test_a_source_line_is_the_line_of_the_file(site: Site) -> None:
    path = FEATURES / "agent" / "hostile.feature"
    lines = path.read_text(encoding="utf-8").splitlines()
    page = site.pages["source-agent-hostile.html"]
    for number in (1, 20, len(lines)):
        assert page.by_id(f"L{number}").text() == lines[number - 1]


def test_the_decisions_page_has_an_anchor_per_decision(site: Site) -> None:
    decisions = re.findall(r"^## (D-\d+):", (DOCS / "decisions.md").read_text(), re.M)
    page = site.pages["decisions.html"]
    assert len(decisions) >= 19
    for decision in decisions:
        assert page.by_id(decision).tag == "h2"
    assert "requirements.html#AG-D4.1" in {a.attrs["href"] for a in page.find("a")}


@pytest.mark.parametrize("name", ["index.html", "agent.html", "requirements.html",
                                  "decisions.html", "source-agent-hostile.html"])
def test_a_page_loads_nothing_and_runs_nothing(site: Site, name: str) -> None:
    tree = site.pages[name]
    assert not [n.tag for n in tree.all if n.tag in LOADERS]
    assert not [n.attrs for n in tree.all if {"src", "srcset", "style"} & set(n.attrs)
                or any(k.startswith("on") for k in n.attrs)]
    [style] = tree.find("style")
    assert not re.search(r"@import|url\(|//", style.text())


def hostile_spec(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the features with a hostile feature file, and documents with hostile text
    and a GENESIS mapping."""
    features, docs_dir = tmp_path / "features", tmp_path / "docs"
    shutil.copytree(FEATURES, features)
    (features / "agent" / "zz_hostile.feature").write_text(
        f"Feature: {HOSTILE}\n  A description with {HOSTILE} and `AG-H1`.\n\n"
        f"  @req:RP-1.1 @{HOSTILE.split()[0]}\n  Scenario Outline: {HOSTILE}\n"
        f"    Given a step {HOSTILE}\n      \"\"\"\n      {HOSTILE}\n      \"\"\"\n"
        f"    Then <x>\n\n    Examples:\n      | x |\n      | {HOSTILE} |\n",
        encoding="utf-8")
    with (features / "agent" / "requirements.yaml").open("a", encoding="utf-8") as file:
        file.write(f"- {{id: ZZ-1, level: SHOULD, text: '{HOSTILE}', source: '{HOSTILE}', "
                   "hazards: [{url: 'https://github.com/o/r/issues/5', what: "
                   f"'{HOSTILE}'}}, {{url: fixtures/transcripts/x.jsonl, what: seen}}]}}\n")
    docs_dir.mkdir()
    (docs_dir / "decisions.md").write_text(
        f"# Decisions\n\n## D-1: {HOSTILE}\n\n{HOSTILE} [x](javascript:alert(3)) `RP-1.1` "
        '[y](https://example.org/"onmouseover="alert(4))\n',
        encoding="utf-8")
    (docs_dir / "genesis.md").write_text("# GENESIS\n\n| chapter | ours |\n|---|---|\n"
                                         "| commands | `RP-1.1` |\n", encoding="utf-8")
    return features, docs_dir


def test_hostile_text_in_a_feature_and_a_document_stays_text(tmp_path: Path) -> None:
    features, docs_dir = hostile_spec(tmp_path)
    site = build(tmp_path / "site", features, docs_dir)
    assert [name for name, page in site.items() if re.search("<(script|img)", page)] == []
    agent, decisions = site["agent.html"], site["decisions.html"]
    index = Tree(site["requirements.html"])
    assert [c.text() for c in index.find("td", under=index.by_id("ZZ-1"))][3:] == [
        HOSTILE, f"{HOSTILE}guards against:o/r/issues/5: {HOSTILE}fixtures/transcripts/x.jsonl: "
        "seen", "none"]
    assert {a.attrs["href"] for a in index.find("a", under=index.by_id("ZZ-1"))} >= {
        "https://github.com/o/r/issues/5"}
    source = Tree(site["source-agent-zz-hostile.html"])
    assert source.by_id("L1").text() == f"Feature: {HOSTILE}"
    tree = Tree(agent)
    section = tree.by_id("zz-hostile")
    assert tree.find("h2", under=section)[0].text() == f"Feature: {HOSTILE}"
    assert HOSTILE in tree.find("div", "description", section)[0].text()
    assert tree.find("pre", "docstring", section)[0].text() == HOSTILE
    assert [c.text() for c in tree.find("td", under=section)] == [HOSTILE]
    links = {a.text(): a.attrs for a in Tree(decisions).find("a")}
    assert links["y"] == {"href": 'https://example.org/"onmouseover="alert(4'}
    assert not [a for a in links.values() if "javascript" in a["href"]]
    assert "[x](javascript:alert(3))" in Tree(decisions).find("main")[0].text()


def test_the_genesis_mapping_is_a_page_when_its_document_exists(tmp_path: Path) -> None:
    features, docs_dir = hostile_spec(tmp_path)
    site = build(tmp_path / "with", features, docs_dir)
    (docs_dir / "genesis.md").unlink()
    without = build(tmp_path / "without", features, docs_dir)
    assert set(site) - set(without) == {"genesis.html"}
    links = {a.attrs["href"] for a in Tree(site["index.html"]).find("a")}
    assert "genesis.html" in links
    assert "genesis.html" not in {a.attrs["href"] for a in Tree(without["index.html"]).find("a")}
    assert "requirements.html#RP-1.1" in {a.attrs["href"] for a in Tree(site["genesis.html"])
                                          .find("a")}


def test_a_folder_the_command_did_not_write_is_refused_by_name(tmp_path: Path) -> None:
    taken = tmp_path / "my stuff"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    code, out, err = docs(taken)
    assert (code, out) == (2, "")
    assert f"--out {taken} is not empty and was not written by `agent-tck docs`" in err
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]
    a_file = tmp_path / "site.html"
    a_file.write_text("mine")
    code, _, err = docs(a_file)
    assert code == 2 and f"--out {a_file} exists and is not a directory" in err
    assert a_file.read_text() == "mine"


def test_out_is_required() -> None:
    err = io.StringIO()
    assert main(["docs"], io.StringIO(), err) == 2
    assert "the following arguments are required: --out" in err.getvalue()


def test_a_rebuild_replaces_only_its_own_files(tmp_path: Path) -> None:
    features, docs_dir = hostile_spec(tmp_path)
    out_dir = tmp_path / "site"
    build(out_dir, features, docs_dir)
    (out_dir / "CNAME").write_text("spec.example.org")
    (tmp_path / "outside.html").write_text("mine")
    marker = out_dir / MARKER
    marker.write_text(marker.read_text() + "../outside.html\nCNAME\n")
    (docs_dir / "genesis.md").unlink()
    (features / "agent" / "zz_hostile.feature").unlink()
    site = build(out_dir, features, docs_dir)
    assert sorted(p.name for p in out_dir.glob("*.html")) == sorted(site)
    assert "genesis.html" not in site and "source-agent-zz-hostile.html" not in site
    assert (out_dir / "CNAME").read_text() == "spec.example.org"
    assert (tmp_path / "outside.html").read_text() == "mine"
    assert sorted(marker.read_text().split()) == sorted(site)
    assert docs(out_dir)[0] == 0


@pytest.mark.parametrize(("text", "says"), [
    ("Feature: x\n  Scenario: y\n    Given a\n  Scenario Outline\n", "not Gherkin the official"),
    ("# only a comment\n", "no Feature in it"),
])
def test_a_feature_file_that_is_not_one_is_named(tmp_path: Path, text: str, says: str) -> None:
    features = tmp_path / "features"
    shutil.copytree(FEATURES, features)
    (features / "runner" / "broken.feature").write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match=rf"^features/runner/broken\.feature: {says}"):
        build(tmp_path / "site", features, DOCS)
    assert not (tmp_path / "site").exists()


def test_a_scenario_checks_the_requirements_of_its_rule_and_feature_too(tmp_path: Path) -> None:
    features = tmp_path / "features"
    shutil.copytree(FEATURES, features)
    (features / "runner" / "zz.feature").write_text(
        "@req:RUN-SIG-1\nFeature: tagged\n\n  @req:RUN-SIG-2\n  Rule: tagged too\n\n"
        "    @req:RUN-SIG-3\n    Scenario: inherits\n      Given a step\n", encoding="utf-8")
    site = build(tmp_path / "site", features, DOCS)
    tree = Tree(site["runner.html"])
    [where, *_] = tree.find("p", "meta", tree.by_id("zz-L8"))
    assert [a.text() for a in tree.find("a", under=where)] == [
        "features/runner/zz.feature:8", "RUN-SIG-1", "RUN-SIG-2", "RUN-SIG-3"]
    index = Tree(site["requirements.html"])
    assert "zz.feature:8" in index.by_id("RUN-SIG-1").text()
