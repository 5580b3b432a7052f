"""The feature files as HTML, for the spec's site: each feature as Gherkin, and its source.

A feature is read with the official Gherkin parser (kit/gherkin.py's `parse_document`, as the
Cucumber Messages are) and rendered as written: its tags and description, the Background,
each Rule, each scenario with its tags, steps, doc strings, data tables and Examples. Every
scenario has an anchor (`agent.html#hostile-L12`, its file and line), a link to its line in
the source page (the file as written, every line anchored), and a link to each requirement
it checks, its feature's and rule's `@req:` tags included. Every piece of text is escaped.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tck.kit.docs_markdown import render as markdown
from agent_tck.kit.errors import SpecError
from agent_tck.kit.gherkin import parse_document
from agent_tck.kit.html_report import escape, slug
from agent_tck.kit.registry import TAG

Node = dict[str, Any]
Link = Callable[[str], str | None]  # a requirement ID -> its href, or None if unknown


@dataclass(frozen=True)
class Feature:
    component: str
    uri: str  # `features/<component>/<file>.feature`, as the run's reports name it
    text: str
    document: Node

    @property
    def anchor(self) -> str:
        return slug(Path(self.uri).stem)

    @property
    def page(self) -> str:
        """The component's page, where this feature is rendered."""
        return f"{slug(self.component)}.html"

    @property
    def source_page(self) -> str:
        return f"source-{slug(self.component)}-{self.anchor}.html"


@dataclass(frozen=True)
class ScenarioRef:
    """Where a scenario is on the site, for the requirements it checks to link to."""

    href: str
    label: str  # `hostile.feature:12`
    name: str


def read(features: Path, component: str) -> list[Feature]:
    """The component's feature files, parsed, in the order of their names; a file that is not
    a feature is a SpecError naming it."""
    found = []
    for path in sorted((features / component).glob("*.feature")):
        uri = f"features/{component}/{path.name}"
        text = path.read_text(encoding="utf-8")
        document = parse_document(text, uri)
        if "feature" not in document:
            raise SpecError(f"{uri}: no Feature in it")
        found.append(Feature(component, uri, text, document))
    return found


def scenarios(feature: Feature) -> Iterator[tuple[Node, tuple[str, ...]]]:
    """Each scenario with the requirement IDs it checks (its own tags, its Examples', its
    rule's and its feature's)."""
    top = feature.document["feature"]
    yield from _walk(top["children"], _reqs(top["tags"]))


def _walk(children: list[Node], above: tuple[str, ...]) -> Iterator[tuple[Node, tuple[str, ...]]]:
    for child in children:
        if "scenario" in child:
            node = child["scenario"]
            tags = [*node["tags"], *(t for e in node["examples"] for t in e["tags"])]
            yield node, tuple(dict.fromkeys([*above, *_reqs(tags)]))
        elif "rule" in child:
            yield from _walk(child["rule"]["children"], above + _reqs(child["rule"]["tags"]))


def _reqs(tags: list[Node]) -> tuple[str, ...]:
    return tuple(m.group(1) for t in tags if (m := TAG.fullmatch(t["name"])))


def anchor(feature: Feature, node: Node) -> str:
    return f"{feature.anchor}-L{node['location']['line']}"


def refs(feature: Feature) -> Iterator[tuple[str, ScenarioRef]]:
    """(requirement ID, where a scenario checking it is) for every scenario's requirements."""
    for node, reqs in scenarios(feature):
        line = node["location"]["line"]
        ref = ScenarioRef(f"{feature.page}#{anchor(feature, node)}",
                          f"{Path(feature.uri).name}:{line}", node["name"])
        for rid in reqs:
            yield rid, ref


def render(feature: Feature, link: Link) -> str:
    """The feature as Gherkin in HTML, a section with the feature's anchor."""
    top = feature.document["feature"]
    checks = {id(node): reqs for node, reqs in scenarios(feature)}
    return "\n".join([
        f'<section class="feature" id="{escape(feature.anchor)}">',
        _head(feature, top, link, "h2"),
        *(_child(feature, c, checks, link) for c in top["children"]),
        "</section>",
    ])


def _child(feature: Feature, child: Node, checks: dict[int, tuple[str, ...]], link: Link) -> str:
    """A Background, a Rule (with its own children) or a scenario."""
    if "background" in child:
        node = child["background"]
        return "\n".join(['<section class="background">', _head(feature, node, link, "div"),
                          _steps(node["steps"]), "</section>"])
    if "rule" in child:
        rule = child["rule"]
        return "\n".join(['<section class="rule">', _head(feature, rule, link, "h3"),
                          *(_child(feature, c, checks, link) for c in rule["children"]),
                          "</section>"])
    node = child["scenario"]
    return "\n".join([
        f'<section class="scenario" id="{escape(anchor(feature, node))}">',
        _head(feature, node, link, "h4", checks[id(node)]),
        _steps(node["steps"]),
        *(_examples(e, feature, link) for e in node["examples"]),
        "</section>",
    ])


def _head(feature: Feature, node: Node, link: Link, tag: str,
          reqs: tuple[str, ...] = ()) -> str:
    """A node's tags, keyword and name, where it is (and what it checks), and description."""
    checked = ", ".join(_req(rid, link) for rid in reqs)
    line = node["location"]["line"]
    where = (f'<a href="{escape(feature.source_page)}#L{line}">{escape(feature.uri)}:{line}</a>'
             + (f"; checks {checked}" if checked else ""))
    return "\n".join(p for p in [
        _tags(node.get("tags", []), link),
        f'<{tag} class="head"><span class="kw">{escape(node["keyword"])}:</span> '
        f'{escape(node["name"])}</{tag}>',
        f'<p class="meta">{where}</p>',
        _description(node["description"], link),
    ] if p)


def _req(rid: str, link: Link) -> str:
    href = link(rid)
    return f'<a href="{escape(href)}">{escape(rid)}</a>' if href else escape(rid)


def _tags(tags: list[Node], link: Link) -> str:
    """The tags as written, each `@req:` tag linked to its requirement."""
    shown = []
    for tag in tags:
        match = TAG.fullmatch(tag["name"])
        shown.append(f"@req:{_req(match.group(1), link)}" if match else escape(tag["name"]))
    return f'<div class="tags">{" ".join(shown)}</div>' if shown else ""


def _description(text: str, link: Link) -> str:
    """A description, read as the Markdown it is written in (paragraphs, lists, code)."""
    body = markdown(textwrap.dedent(text).strip(), link).html
    return f'<div class="description">{body}</div>' if body else ""


def _steps(steps: list[Node]) -> str:
    items = "".join(f"<li>{_step(s)}</li>" for s in steps)
    return f'<ol class="steps gherkin">{items}</ol>' if items else ""


def _step(step: Node) -> str:
    text = f'<span class="kw">{escape(step["keyword"].strip())}</span> {escape(step["text"])}'
    if step.get("docString"):
        doc = step["docString"]
        media = f'<span class="meta">{escape(doc["mediaType"])}</span>' if doc.get(
            "mediaType") else ""
        text += f'{media}<pre class="docstring">{escape(doc["content"])}</pre>'
    if step.get("dataTable"):
        text += _table(step["dataTable"]["rows"])
    return text


def _examples(examples: Node, feature: Feature, link: Link) -> str:
    header = examples.get("tableHeader")
    rows = ([header] if header else []) + examples.get("tableBody", [])
    return "\n".join(['<section class="examples">', _head(feature, examples, link, "div"),
                      _table(rows, head=header is not None), "</section>"])


def _table(rows: list[Node], head: bool = False) -> str:
    """A Gherkin table; with `head`, its first row is the Examples' header."""
    html = []
    for index, row in enumerate(rows):
        cell = "th" if head and index == 0 else "td"
        html.append("<tr>" + "".join(f"<{cell}>{escape(c['value'])}</{cell}>"
                                     for c in row["cells"]) + "</tr>")
    return f'<table class="gherkin-table">{"".join(html)}</table>' if html else ""


def source(feature: Feature) -> str:
    """The file as written, every line anchored (`#L12`) and numbered by the stylesheet."""
    lines = "".join(f'<span id="L{n}">{escape(text)}</span>\n'
                    for n, text in enumerate(feature.text.splitlines(), 1))
    return f'<pre class="source">{lines}</pre>'
