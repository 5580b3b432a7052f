"""The little Markdown the project's documents use, as HTML for the spec's site.

Headings (each with an anchor: `## D-4: ...` is `#D-4`, other headings their slug),
paragraphs, `-` and `1.` lists, pipe tables, fenced code, and inline code, `**strong**` and
`[links](https://...)`. It is not CommonMark: what it does not know stays text, escaped, never
dropped. Every piece of text is escaped; only http(s) links become links (a relative link
names a file the site does not have), and an inline code span naming a requirement links to
it, through the `link` the caller passes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agent_tck.kit.html_report import escape, slug

Link = Callable[[str], str | None]  # a code span's text -> the href it links to, or None
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
ITEM = re.compile(r"^\s*(?:([-*+])|\d+[.)])\s+(.*)$")
FENCE = re.compile(r"^\s*(```|~~~)")
NAMED = re.compile(r"^([A-Za-z][\w.-]*\d[\w.-]*):")  # 'D-4: Failure ...' is anchored 'D-4'
INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|\[([^\]]+)\]\((https?://[^)\s]+)\)")


@dataclass(frozen=True)
class Rendered:
    html: str
    anchors: tuple[str, ...]  # the headings' ids, in order


def render(text: str, link: Link) -> Rendered:
    """The document as HTML, and the anchors of its headings."""
    anchors: list[str] = []
    parts = [_block(kind, lines, link, anchors) for kind, lines in _blocks(text.splitlines())]
    return Rendered("\n".join(parts), tuple(anchors))


def _blocks(lines: list[str]) -> Iterator[tuple[str, list[str]]]:
    """(kind, lines) of each block: 'heading', 'code', 'list', 'table' or 'para'."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif HEADING.match(line):
            yield "heading", [line]
            i += 1
        elif FENCE.match(line):
            end = next((j for j in range(i + 1, len(lines)) if FENCE.match(lines[j])), len(lines))
            yield "code", lines[i + 1:end]
            i = end + 1
        else:
            kind = _kind(line)
            end = next((j for j in range(i + 1, len(lines)) if _ends(kind, lines[j])), len(lines))
            yield kind, lines[i:end]
            i = end


def _kind(line: str) -> str:
    if ITEM.match(line):
        return "list"
    return "table" if line.lstrip().startswith("|") else "para"


def _ends(kind: str, line: str) -> bool:
    """Whether `line` ends a block of `kind` that it follows."""
    if not line.strip() or HEADING.match(line) or FENCE.match(line):
        return True
    if kind == "table":
        return not line.lstrip().startswith("|")
    return kind == "para" and bool(ITEM.match(line))


def _block(kind: str, lines: list[str], link: Link, anchors: list[str]) -> str:
    if kind == "heading":
        return _heading(lines[0], link, anchors)
    if kind == "code":
        return f"<pre><code>{escape(chr(10).join(lines))}</code></pre>"
    if kind == "list":
        return _list(lines, link)
    if kind == "table":
        return _table(lines, link)
    return f"<p>{inline(' '.join(s.strip() for s in lines), link)}</p>"


def _heading(line: str, link: Link, anchors: list[str]) -> str:
    match = HEADING.match(line)
    assert match is not None
    level, title = len(match.group(1)), match.group(2)
    named = NAMED.match(title)
    anchor = named.group(1) if named else slug(title) or "section"
    while anchor in anchors:  # a repeated heading gets the next free id
        anchor += "-"
    anchors.append(anchor)
    return f'<h{level} id="{escape(anchor)}">{inline(title, link)}</h{level}>'


def _list(lines: list[str], link: Link) -> str:
    """A list: each item with the indented lines that continue it."""
    items: list[str] = []
    for line in lines:
        match = ITEM.match(line)
        if match:
            items.append(match.group(2))
        else:
            items[-1] += " " + line.strip()
    first = ITEM.match(lines[0])
    tag = "ul" if first and first.group(1) else "ol"
    return f"<{tag}>" + "".join(f"<li>{inline(i, link)}</li>" for i in items) + f"</{tag}>"


def _table(lines: list[str], link: Link) -> str:
    """A pipe table: the first row is its head; a row of dashes after it is dropped."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
    body = [r for r in rows[1:] if not all(re.fullmatch(r":?-+:?", c) for c in r)]
    head = "".join(f"<th>{inline(c, link)}</th>" for c in rows[0])
    cells = "".join("<tr>" + "".join(f"<td>{inline(c, link)}</td>" for c in r) + "</tr>"
                    for r in body)
    return f'<table class="doc"><tr>{head}</tr>{cells}</table>'


def inline(text: str, link: Link) -> str:
    """One line of text as HTML: escaped, with its code spans, strong words and web links."""
    out, last = [], 0
    for match in INLINE.finditer(text):
        out += [escape(text[last:match.start()]), _span(match, link)]
        last = match.end()
    return "".join([*out, escape(text[last:])])


def _span(match: re.Match[str], link: Link) -> str:
    code, strong, label, url = match.groups()
    if code is not None:
        href = link(code)
        shown = f"<code>{escape(code)}</code>"
        return f'<a href="{escape(href)}">{shown}</a>' if href else shown
    if strong is not None:
        return f"<strong>{escape(strong)}</strong>"
    return f'<a href="{escape(url)}">{escape(label)}</a>'
