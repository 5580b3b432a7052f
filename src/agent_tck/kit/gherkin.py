"""Convert GIVEN/WHEN/THEN documents (the seeds' format) into Gherkin feature files.

The format: `;` starts a comment line. A block between two `;====` lines opens a section: its
first line is the title, the rest its description; it becomes a `Rule:`. A block between two
`;----` lines names a scenario; it becomes a `Scenario:`. Every GIVEN/WHEN/THEN (and AND/BUT)
line is a step, kept word for word, in order, wherever it stands. Anything else that is not
blank is an error naming its line: no step is ever dropped silently.

A description line that Gherkin would read as syntax (it begins with a keyword such as
"When ..." or "Scenario:", a tag, a table, a comment or a doc string) is kept word for word
behind the marker `> `, which makes it plain description: the same rule for every such line,
so the output is deterministic, and a reader sees the words of the source.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tck.kit.errors import SpecError, UsageError
from agent_tck.kit.files import read_bounded, write_atomically

MAX_SOURCE_BYTES = 1 << 20  # a seed document: the largest is a few KB
KEYWORDS = {"GIVEN": "Given", "WHEN": "When", "THEN": "Then", "AND": "And", "BUT": "But"}
STEP = re.compile(r"^(GIVEN|WHEN|THEN|AND|BUT)\s+(\S.*)$")
RULER = re.compile(r"^;\s*(=|-)\1{3,}\s*$")
# A description line that Gherkin would read as a keyword, a tag, a table or a doc string
# (keywords are matched as the official parser does: case-sensitive, before any text).
ESCAPE = "> "  # put before a description line that GHERKIN_SPECIAL matches
GHERKIN_SPECIAL = re.compile(
    r"^\s*(Feature|Rule|Background|Scenario|Scenario Outline|Example|Examples|Scenarios)\s*:"
    r"|^\s*(Given|When|Then|And|But|\*)\s|^\s*[@|#]|^\s*(\"\"\"|```)"
)


@dataclass
class Scenario:
    title: str
    line: int
    steps: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Section:
    title: str
    line: int
    description: list[str] = field(default_factory=list)
    scenarios: list[Scenario] = field(default_factory=list)


@dataclass
class Document:
    source: str
    sections: list[Section] = field(default_factory=list)


def _blocks(lines: list[str], source: str) -> Iterator[tuple[int, str, list[str] | str]]:
    """(line number, kind, payload): kind is '=' or '-' with the block's comment lines,
    'step' with the line, or 'comment'."""
    i = 0
    while i < len(lines):
        text = lines[i].strip()
        number = i + 1
        ruler = RULER.match(text)
        if ruler:
            end = next((j for j in range(i + 1, len(lines)) if RULER.match(lines[j].strip())), None)
            if end is None or RULER.match(lines[end].strip()).group(1) != ruler.group(1):  # type: ignore[union-attr]
                raise SpecError(f"{source}:{number}: block opened by {text!r} is never closed")
            body = [_uncomment(lines[j], source, j + 1) for j in range(i + 1, end)]
            yield number, ruler.group(1), body
            i = end + 1
            continue
        if text and not text.startswith(";"):
            yield number, "step", text
        i += 1


def _uncomment(line: str, source: str, number: int) -> str:
    text = line.strip()
    if not text.startswith(";"):
        raise SpecError(
            f"{source}:{number}: expected a ';' comment line inside a block, got {text!r}"
        )
    return text[1:].strip()


def parse(text: str, source: str = "<string>") -> Document:
    """Read a document; raises SpecError naming source:line for anything it cannot place."""
    doc = Document(source)
    current: Scenario | None = None
    for number, kind, payload in _blocks(text.splitlines(), source):
        if kind == "=":
            assert isinstance(payload, list)
            doc.sections.append(_section(payload, number, len(doc.sections) + 1))
            current = None
        elif kind == "-":
            assert isinstance(payload, list)
            current = _scenario(doc, payload, number, source)
        else:
            assert isinstance(payload, str)
            _add_step(current, payload, number, source)
    _check_nonempty(doc)
    return doc


def _section(body: list[str], line: int, ordinal: int) -> Section:
    lines = _trim(body)
    title = lines[0] if lines else f"Section {ordinal}"
    return Section(title, line, _trim(lines[1:]))


def _scenario(doc: Document, body: list[str], line: int, source: str) -> Scenario:
    if not doc.sections:
        doc.sections.append(Section("", line))
    section = doc.sections[-1]
    lines = _trim(body)
    title = " ".join(lines) if lines else f"Untitled scenario {len(section.scenarios) + 1}"
    scenario = Scenario(title, line)
    section.scenarios.append(scenario)
    return scenario


def _add_step(current: Scenario | None, text: str, line: int, source: str) -> None:
    match = STEP.match(text)
    if match is None:
        raise SpecError(
            f"{source}:{line}: {text!r} is neither a comment nor a GIVEN/WHEN/THEN step"
        )
    if current is None:
        raise SpecError(f"{source}:{line}: step {text!r} comes before any ';----' scenario block")
    current.steps.append((KEYWORDS[match.group(1)], match.group(2)))


def _check_nonempty(doc: Document) -> None:
    for section in doc.sections:
        for scenario in section.scenarios:
            if not scenario.steps:
                raise SpecError(
                    f"{doc.source}:{scenario.line}: scenario {scenario.title!r} has no steps"
                )
    if not any(s.scenarios for s in doc.sections):
        raise SpecError(f"{doc.source}: no scenarios found")


def _trim(lines: list[str]) -> list[str]:
    """Drop blank lines at both ends."""
    start = next((i for i, s in enumerate(lines) if s), len(lines))
    end = next((i for i in range(len(lines), 0, -1) if lines[i - 1]), start)
    return lines[start:end]


def render(doc: Document, *, feature: str, id_prefix: str, origin: str) -> str:
    """Gherkin text; each scenario tagged `@req:<id_prefix>-<section>.<scenario>`."""
    out = [
        f"# Generated by `agent-tck gherkin` from {origin}. Do not edit: edit the source.",
        f"Feature: {feature}",
        f"  Converted word for word from {origin}.",
    ]
    for s_index, section in enumerate(doc.sections, 1):
        indent = "  "
        if section.title:
            out += ["", f"  Rule: {section.title}"]
            out += [f"    {_description(d)}" if d else "" for d in section.description]
            indent = "    "
        for c_index, scenario in enumerate(section.scenarios, 1):
            out += ["", f"{indent}@req:{id_prefix}-{s_index}.{c_index}"]
            out.append(f"{indent}Scenario: {scenario.title}")
            out += [f"{indent}  {keyword} {text}" for keyword, text in scenario.steps]
    return "\n".join(out) + "\n"


def _description(line: str) -> str:
    """The line as Gherkin description: word for word, behind `ESCAPE` when Gherkin would
    read it as syntax, or when it begins with the marker itself (so the marker is never
    ambiguous)."""
    return ESCAPE + line if GHERKIN_SPECIAL.match(line) or line.startswith(ESCAPE) else line


def feature_name(doc: Document, fallback: str) -> str:
    """The title prefix every section shares ('Request Processing: ...'), else `fallback`."""
    prefixes = {s.title.split(":", 1)[0].strip() for s in doc.sections if ":" in s.title}
    titled = [s for s in doc.sections if s.title]
    if len(prefixes) == 1 and all(":" in s.title for s in titled):
        return prefixes.pop()
    return fallback


def convert_file(src: Path, out_dir: Path, id_prefix: str, origin: str | None = None) -> Path:
    """Convert `src` into `out_dir/<stem>.feature`, written atomically; returns its path."""
    try:
        text = read_bounded(src, MAX_SOURCE_BYTES, "source").decode("utf-8")
    except UsageError as exc:
        raise SpecError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise SpecError(f"{src}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    doc = parse(text, str(src))
    fallback = src.stem.split("_", 1)[-1].replace("_", " ").capitalize()
    gherkin = render(
        doc, feature=feature_name(doc, fallback), id_prefix=id_prefix, origin=origin or src.name
    )
    check_gherkin(gherkin, str(src))
    target = out_dir / f"{src.stem}.feature"
    write_atomically(target, gherkin)
    return target


def check_gherkin(text: str, source: str) -> None:
    """Parse with the official Gherkin parser; a failure is a SpecError, not a traceback."""
    from gherkin.parser import Parser

    try:
        Parser().parse(text)
    except Exception as exc:  # the parser raises its own composite error types
        raise SpecError(f"{source}: generated Gherkin does not parse: {exc}") from exc


def parse_document(text: str, uri: str, ids: Any = None) -> dict[str, Any]:
    """The Gherkin document of a feature file as the official parser builds it (node ids from
    `ids`, a gherkin IdGenerator, when given); a file it cannot parse is a SpecError naming
    `uri`."""
    from gherkin.ast_builder import AstBuilder
    from gherkin.parser import Parser

    try:
        return dict(Parser(AstBuilder(ids)).parse(text))
    except Exception as exc:  # the parser raises its own composite error types
        raise SpecError(f"{uri}: not Gherkin the official parser reads: {exc}") from exc


def read_manifest(path: Path) -> list[tuple[Path, str]]:
    """The (source, id_prefix) pairs a manifest lists, sources relative to the manifest."""
    from agent_tck.kit import plainyaml

    try:
        entries = plainyaml.load(path, "manifest")
    except plainyaml.PlainYamlError as exc:
        raise SpecError(str(exc)) from None
    if not isinstance(entries, list):
        raise SpecError(f"{path}: a manifest is a list of {{source, id_prefix}}")
    pairs = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) != {"source", "id_prefix"}:
            raise SpecError(f"{path}: entry {index} needs exactly 'source' and 'id_prefix'")
        pairs.append((path.parent / str(entry["source"]), str(entry["id_prefix"])))
    return pairs
