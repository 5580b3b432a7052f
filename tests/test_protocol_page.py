"""The protocol page is enough to write an adapter, and the pages a user starts from hold.

docs/adapter-protocol.md has a section for every adapter command; each says what the suite
checks and ends with a "Judged by:" block that names, each as a link to the feature file that
holds its scenarios, the requirements whose scenarios send the command. Every requirement of
the components an adapter can implement is named under one, so a new requirement cannot be
left off the page. The links of the page, of docs/gate-your-wrapper.md and of docs/index.md
land on files (and headings) that exist, and the index lists every page of docs/.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from agent_tck.kit import registry
from agent_tck.kit.drivers.schemas import commands
from agent_tck.kit.paths import ROOT

DOCS = ROOT / "docs"
PAGE = DOCS / "adapter-protocol.md"
LINKED = ("adapter-protocol.md", "gate-your-wrapper.md", "index.md")
# The components whose every requirement the page must name under a command.
COVERED = ("agent", "backends", "responses", "runner", "pipeline", "transport")

HEADING = re.compile(r"^(#{1,6}) +(.+?) *$", re.M)
INLINE = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
REFERENCE = re.compile(r"\[([^\]\n]+)\]\[([^\]\n]+)\]")
DEFINITION = re.compile(r"^\[([^\]\n]+)\]:[ \t]*(\S+)", re.M)
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.M | re.S)
INDENTED = re.compile(r"^(?: {4}|\t).*$", re.M)
JUDGED = "Judged by:"
CHECKS = "**What the suite checks.**"


def prose(text: str) -> str:
    """`text` without its code blocks (fenced, or indented by four spaces), whose brackets
    are JSON, not links."""
    return INDENTED.sub("", FENCE.sub("", text))


def links(text: str, defined_in: str | None = None) -> list[tuple[str, str | None]]:
    """(text, target) of every link of `text`, inline or by reference to a label that
    `defined_in` (by default `text` itself) defines; target None: a label it does not."""
    text = prose(text)
    definitions = DEFINITION.findall(prose(text if defined_in is None else defined_in))
    defined = {label.lower(): target for label, target in definitions}
    found: list[tuple[str, str | None]] = list(INLINE.findall(text))
    found += [(shown, defined.get(label.lower())) for shown, label in REFERENCE.findall(text)]
    return found


def sections(page: str) -> dict[str, str]:
    """Each `### ` section's prose up to the next heading, by the first word of its title."""
    page = prose(page)
    heads = list(HEADING.finditer(page))
    found = {}
    for head, after in zip(heads, [*heads[1:], None], strict=True):
        if head[1] == "###":
            end = after.start() if after else len(page)
            found[head[2].split(" ")[0]] = page[head.end():end]
    return found


def judged_by(section: str) -> str:
    """The section's "Judged by:" block: from that line to the section's end ("" if none)."""
    at = re.search(rf"^{JUDGED}", section, re.M)
    return section[at.start():] if at else ""


def id_problems(block: str, page: str | None = None, features: Path = ROOT / "features",
                requirements: dict[str, registry.Requirement] | None = None,
                tags: dict[str, list[str]] | None = None) -> list[str]:
    """What is wrong with one "Judged by:" block of `page` (a page in docs/, which defines
    the labels the block's links use): a link that names no requirement, or lands elsewhere
    than a feature file holding one of its scenarios; a requirement named without a link."""
    reqs = registry.load() if requirements is None else requirements
    tagged = registry.tags_in() if tags is None else tags
    wrong = []
    for shown, target in links(block, page):
        holders = {where.split(":")[0] for where in tagged.get(shown, [])}
        if shown not in reqs:
            wrong.append(f"{shown}: no such requirement")
        elif target is None or _landing(DOCS / target, features) not in holders:
            wrong.append(f"{shown} links to {target}, not to one of {sorted(holders)}")
    bare = INLINE.sub("", REFERENCE.sub("", prose(block)))
    wrong += [f"{rid}: named without a link" for rid in reqs
              if re.search(rf"(?<![\w.-]){re.escape(rid)}(?![\w-]|\.\w)", bare)]
    return wrong


def _landing(target: Path, features: Path) -> str:
    """`target`, as a path under `features` (as registry.tags_in names the files)."""
    plain = Path(os.path.normpath(target))
    return plain.relative_to(features).as_posix() if plain.is_relative_to(features) else str(plain)


def named(page: str) -> set[str]:
    """Every requirement a "Judged by:" block of the page links."""
    return {shown for section in sections(page).values()
            for shown, _ in links(judged_by(section))}


def anchor(title: str) -> str:
    """The anchor a heading gets (GitHub's rule): lower case, punctuation dropped, spaces
    as hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def broken_links(path: Path) -> list[str]:
    """Every link of the page at `path` to a local file that does not exist, or to a heading
    that file does not have."""
    broken = []
    for shown, target in links(path.read_text(encoding="utf-8")):
        if target is None:
            broken.append(f"[{shown}]: a reference to an undefined label")
            continue
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not a local file
            continue
        file, _, fragment = target.partition("#")
        landing = (path.parent / file) if file else path
        if not landing.exists():
            broken.append(f"[{shown}]({target}): no such file")
        elif fragment and landing.suffix == ".md":
            heads = {anchor(title) for _, title in HEADING.findall(
                prose(landing.read_text(encoding="utf-8")))}
            if fragment not in heads:
                broken.append(f"[{shown}]({target}): no such heading")
    return broken


def test_every_command_has_a_section_saying_what_the_suite_checks_and_what_judges_it() -> None:
    found = sections(PAGE.read_text(encoding="utf-8"))
    missing = [cmd for cmd in commands() if cmd not in found]
    assert missing == [], "commands of schemas/adapter/ without a `### ` section"
    unsaid = [cmd for cmd in commands() if CHECKS not in found[cmd]]
    unjudged = [cmd for cmd in commands() if not judged_by(found[cmd])]
    assert (unsaid, unjudged) == ([], [])


def test_every_judged_by_id_is_a_requirement_linked_to_a_feature_file_holding_its_scenarios(
) -> None:
    page = PAGE.read_text(encoding="utf-8")
    wrong = {title: id_problems(judged_by(text), page)
             for title, text in sections(page).items()}
    assert {title: found for title, found in wrong.items() if found} == {}


def test_every_requirement_of_the_adapter_components_is_named_under_a_command() -> None:
    reqs = registry.load()
    expected = {rid for rid, req in reqs.items() if req.component in COVERED}
    assert sorted(expected - named(PAGE.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("name", LINKED)
def test_every_local_link_of_the_page_resolves(name: str) -> None:
    assert broken_links(DOCS / name) == []


def test_the_index_lists_every_page_of_docs() -> None:
    index = DOCS / "index.md"
    listed = {Path(os.path.normpath(DOCS / target)) for _, target in links(
        index.read_text(encoding="utf-8")) if target is not None}
    pages = set(DOCS.glob("*.md")) - {index}
    assert sorted(p.name for p in pages - listed) == []


# The checks above, shown to fail on what they exist to catch.

def test_a_wrong_unknown_or_unlinked_id_in_a_judged_by_block_is_reported() -> None:
    features = ROOT / "features"
    reqs = registry.load()
    tags = {"EH-1.1": ["agent/001_error_handling.feature:7"], "EH-1.2": ["agent/x.feature:1"]}
    block = ("Judged by: [EH-1.1][wrong], [EH-1.2](../features/agent/x.feature), "
             "[XX-9][wrong], and EH-1.3 in words\n\n"
             "[wrong]: ../features/agent/hostile.feature\n")
    assert id_problems(block, None, features, reqs, tags) == [
        "EH-1.1 links to ../features/agent/hostile.feature, "
        "not to one of ['agent/001_error_handling.feature']",
        "XX-9: no such requirement",
        "EH-1.3: named without a link",
    ]


def test_an_id_that_is_the_start_of_another_is_not_taken_for_it() -> None:
    reqs = {rid: registry.load()[rid] for rid in ("PL-1.1", "RC-1")}
    block = "Judged by: PL-1.10, PL-1.12, RC-10 and PL-1.1.\n"
    assert id_problems(block, requirements=reqs, tags={}) == ["PL-1.1: named without a link"]


def test_a_link_to_a_missing_file_heading_or_label_is_broken(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# Title\n\n## A section: `here`\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md#a-section-here), [gone](gone.md), [web](https://x.org/y), "
                    "[bad](there.md#nowhere), [undefined][label], [self](#title)\n\n"
                    "    [code](not-a-link.md)\n\n# Title\n", encoding="utf-8")
    assert broken_links(page) == ["[gone](gone.md): no such file",
                                  "[bad](there.md#nowhere): no such heading",
                                  "[undefined]: a reference to an undefined label"]


def test_a_section_without_its_judged_by_block_is_told_apart() -> None:
    page = ("## Commands\n\n### start\n\nAnswer.\n\nJudged by: [EH-1.1][x]\n\n"
            "### stop\n\nAnswer.\n\n## Next\n\nJudged by: [EH-1.2][x]\n")
    found = sections(page)
    assert sorted(found) == ["start", "stop"]
    assert judged_by(found["start"]).startswith(JUDGED) and judged_by(found["stop"]) == ""
    assert named(page) == {"EH-1.1"}
