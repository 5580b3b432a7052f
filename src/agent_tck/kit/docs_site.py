"""`agent-tck docs --out DIR`: the specification alone, as a small static site to publish.

The pages: `index.html` (what the site holds), one page per component with its feature files
as Gherkin (kit/docs_features.py), `requirements.html` (every requirement with its anchor,
level, component, text and source, linked to the scenarios that check it), `decisions.html`
(docs/decisions.md), `genesis.html` when docs/genesis.md exists (the GENESIS mapping), and a
source page per feature file, every line anchored. Everything is read as package data
(kit/paths.py), so the site is the same from a checkout and from a wheel, and byte for byte
the same on every build. Each page is self-contained: one small inline stylesheet, no script,
nothing loaded from anywhere, every piece of text escaped.

`--out` must be new, empty, or a folder this command wrote (it leaves `.agent-tck-docs`,
the list of its files): there only its own files are replaced, and pages it no longer writes
are removed; anything else in the folder is left alone. Any other folder is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from agent_tck.kit import docs_features, docs_markdown, registry
from agent_tck.kit.docs_features import Feature, ScenarioRef
from agent_tck.kit.errors import SpecError, UsageError
from agent_tck.kit.files import write_atomically
from agent_tck.kit.html_report import BASE_CSS, escape, hazards_html, page_head, slug
from agent_tck.kit.paths import DOCS, FEATURES

MARKER = ".agent-tck-docs"
PAGE_NAME = re.compile(r"[a-z0-9][a-z0-9.-]*\.html")  # the only names a marker may list


class Document(NamedTuple):
    """A document of docs/ that the site renders as a page of its own."""

    page: str
    file: str
    title: str
    required: bool  # else skipped when it does not exist (yet)


DOCUMENTS = (Document("decisions", "decisions.md", "Decisions", True),
             Document("genesis", "genesis.md", "GENESIS mapping", False))
SITE_CSS = """
nav.site{border-bottom:1px solid #ccc;padding:.3em 0}nav.site a{margin-right:.7em}
table.reqs td,table.doc td,table.gherkin-table td,table.gherkin-table th{text-align:left;
vertical-align:top}table.reqs td:first-child{white-space:nowrap}
section.feature{margin-top:2em}section.rule{margin:1em 0 1em .5em}
section.scenario{border-left:3px solid #ddd;margin:1em 0;padding-left:.8em}
section.examples{margin-left:1em}h3.head,h4.head{margin:.3em 0}
.tags{color:#666;font-family:monospace;font-size:.9em}.description{color:#333}
pre.docstring{margin:.2em 0}table.gherkin-table{font-size:.9em;margin:.2em 0}
pre.source{counter-reset:l;white-space:pre}pre.source span{display:block}
pre.source span::before{counter-increment:l;content:counter(l);display:inline-block;
width:3.5em;margin-right:1em;color:#999;text-align:right}:target{background:#fff4d6}
"""


@dataclass(frozen=True)
class Spec:
    """Everything the site shows, read once."""

    features: dict[str, list[Feature]]  # by component, in the kit's order
    requirements: dict[str, registry.Requirement]
    documents: dict[str, str]  # page name -> its Markdown, for the documents that exist

    def link(self, rid: str) -> str | None:
        """A requirement ID's anchor on the requirement index; None for anything else."""
        return f"requirements.html#{rid}" if rid in self.requirements else None


def read_spec(features: Path = FEATURES, docs: Path = DOCS) -> Spec:
    known = [c for c in registry.COMPONENTS if (features / c).is_dir()]
    others = sorted(p.name for p in features.iterdir() if p.is_dir() and p.name not in known)
    return Spec({c: docs_features.read(features, c) for c in [*known, *others]},
                registry.load(features), _documents(docs))


def _documents(docs: Path) -> dict[str, str]:
    found = {}
    for doc in DOCUMENTS:
        path = docs / doc.file
        if path.is_file():
            found[doc.page] = path.read_text(encoding="utf-8")
        elif doc.required:
            raise SpecError(f"{path}: missing; the site renders it (is it package data?)")
    return found


def pages(spec: Spec) -> dict[str, str]:
    """Every page of the site: file name -> HTML."""
    nav = _nav(spec)
    rendered = {page: docs_markdown.render(text, spec.link)
                for page, text in spec.documents.items()}
    site = {"index.html": _page("agent-tck: the specification", _index(spec, rendered), nav),
            "requirements.html": _page("Requirements", _requirements(spec, rendered), nav)}
    for component, features in spec.features.items():
        body = _component(component, features, spec)
        site[f"{slug(component)}.html"] = _page(f"Component {component}", body, nav)
        site |= {f.source_page: _page(f.uri, _source(f), nav) for f in features}
    for doc in DOCUMENTS:
        if doc.page in rendered:
            site[f"{doc.page}.html"] = _page(doc.title, rendered[doc.page].html, nav)
    return site


def _page(title: str, body: str, nav: str) -> str:
    return "\n".join([page_head(title, BASE_CSS + SITE_CSS), nav, "<main>", body,
                      "</main></body></html>", ""])


def _nav(spec: Spec) -> str:
    links = [("index.html", "Overview"), ("requirements.html", "Requirements"),
             *((f"{slug(c)}.html", c) for c in spec.features),
             *((f"{d.page}.html", d.title) for d in DOCUMENTS if d.page in spec.documents)]
    return ('<nav class="site" aria-label="site">'
            + "".join(f'<a href="{escape(h)}">{escape(t)}</a>' for h, t in links) + "</nav>")


def _index(spec: Spec, rendered: dict[str, docs_markdown.Rendered]) -> str:
    rows = "".join(_component_row(c, fs, spec) for c, fs in spec.features.items())
    items = [f'<li><a href="requirements.html">Requirements</a>: all {len(spec.requirements)}, '
             "each with its level, source and the scenarios that check it</li>"]
    items += [f'<li><a href="{d.page}.html">{escape(d.title)}</a>: docs/{d.file}, '
              f"{len(rendered[d.page].anchors)} sections</li>"
              for d in DOCUMENTS if d.page in rendered]
    return "\n".join([
        "<h1>agent-tck: the specification</h1>",
        "<p>The conformance spec for coding-agent wrappers: Gherkin feature files by component, "
        "every scenario tagged with the requirements it checks. This site holds:</p>",
        '<table class="reqs"><tr><th>component</th><th>feature files</th><th>scenarios</th>'
        f"<th>requirements (MUST / SHOULD)</th></tr>{rows}</table>",
        f"<ul>{''.join(items)}</ul>",
        '<p class="meta">and each feature file as written, line by line, linked from its '
        "component's page.</p>",
    ])


def _component_row(component: str, features: list[Feature], spec: Spec) -> str:
    count = sum(1 for f in features for _ in docs_features.scenarios(f))
    levels = [r.level for r in spec.requirements.values() if r.component == component]
    return (f'<tr><td><a href="{slug(component)}.html">{escape(component)}</a></td>'
            f"<td>{len(features)}</td><td>{count}</td>"
            f'<td>{levels.count("MUST")} / {levels.count("SHOULD")}</td></tr>')


def _component(component: str, features: list[Feature], spec: Spec) -> str:
    contents = "".join(f'<li><a href="#{escape(f.anchor)}">{escape(f.uri)}</a></li>'
                       for f in features)
    return "\n".join([f"<h1>Component {escape(component)}</h1>", f"<ul>{contents}</ul>",
                      *(docs_features.render(f, spec.link) for f in features)])


def _source(feature: Feature) -> str:
    return (f'<h1>{escape(feature.uri)}</h1><p class="meta">rendered on '
            f'<a href="{escape(feature.page)}#{escape(feature.anchor)}">'
            f"{escape(feature.component)}</a></p>\n{docs_features.source(feature)}")


def _requirements(spec: Spec, rendered: dict[str, docs_markdown.Rendered]) -> str:
    checking: dict[str, list[ScenarioRef]] = {}
    for features in spec.features.values():
        for feature in features:
            for rid, ref in docs_features.refs(feature):
                checking.setdefault(rid, []).append(ref)
    decisions = rendered["decisions"].anchors if "decisions" in rendered else ()
    head = ("<tr><th>id</th><th>level</th><th>component</th><th>text</th><th>source</th>"
            "<th>checked by</th></tr>")
    parts = [f"<h1>Requirements</h1><p>{len(spec.requirements)} requirements; a MUST comes "
             "from a seed document, a SHOULD from a decision.</p>"]
    for component in spec.features:
        rows = [_requirement(r, checking.get(r.id, []), decisions)
                for r in spec.requirements.values() if r.component == component]
        parts += [f'<h2 id="component-{slug(component)}">{escape(component)}</h2>',
                  f'<table class="reqs">{head}', *rows, "</table>"]
    return "\n".join(parts)


def _requirement(req: registry.Requirement, refs: list[ScenarioRef],
                 decisions: tuple[str, ...]) -> str:
    checked = ", ".join(f'<a href="{escape(r.href)}" title="{escape(r.name)}">'
                        f"{escape(r.label)}</a>" for r in refs) or "none"
    backends = f' <span class="meta">({escape(", ".join(req.backends))})</span>' \
        if req.backends else ""
    return (f'<tr id="{escape(req.id)}"><td><a href="#{escape(req.id)}">{escape(req.id)}</a>'
            f"</td><td>{escape(req.level)}</td><td><a href=\"{slug(req.component)}.html\">"
            f"{escape(req.component)}</a>{backends}</td><td>{escape(req.text)}</td>"
            f"<td>{_cited(req.source, decisions)}{hazards_html(req.hazards)}</td>"
            f"<td>{checked}</td></tr>")


def _cited(source: str, decisions: tuple[str, ...]) -> str:
    """A requirement's source, each decision it names linked to the decisions page."""
    before, found, after = source.partition("docs/decisions.md")
    if not found:
        return escape(source)

    def link(match: re.Match[str]) -> str:
        name = match.group(0)
        return f'<a href="decisions.html#{name}">{name}</a>' if name in decisions else name

    return (escape(before) + '<a href="decisions.html">docs/decisions.md</a>'
            + re.sub(r"\bD-\d+\b", link, escape(after)))


def build(out: Path, features: Path = FEATURES, docs: Path = DOCS) -> dict[str, str]:
    """Write the site into `out` (see the module's docstring); returns the pages written."""
    site = pages(read_spec(features, docs))
    before = _earlier(out)
    try:
        write_atomically(out / MARKER, "".join(f"{n}\n" for n in sorted({*before, *site})))
        for name, html in site.items():
            write_atomically(out / name, html)
        for name in set(before) - set(site):
            (out / name).unlink(missing_ok=True)
        write_atomically(out / MARKER, "".join(f"{n}\n" for n in sorted(site)))
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write the site: {exc}") from exc
    return site


def _earlier(out: Path) -> list[str]:
    """The pages an earlier build wrote to `out`; refuses any `out` that is not new, empty,
    or such a build."""
    if not out.exists() and not out.is_symlink():
        return []
    if not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory")
    marker = out / MARKER
    if marker.is_file():
        listed = marker.read_text(encoding="utf-8", errors="replace").split()
        return [name for name in listed if PAGE_NAME.fullmatch(name)]
    if any(out.iterdir()):
        raise UsageError(f"--out {out} is not empty and was not written by `agent-tck docs` "
                         f"(it has no {MARKER}): give a new or empty directory")
    return []
