"""Text that came from an implementation, made safe: once where it enters, and again for each
place the kit shows or writes it.

An adapter's messages and stderr, an implementation's name and its evidence can hold anything:
lone surrogates, ANSI and OSC escapes that rewrite a terminal, characters XML 1.0 forbids,
Markdown that forges a heading or hides the verdict in a comment. The work is split by what
the characters are:

- A lone surrogate (U+D800 to U+DFFF, half of a UTF-16 pair; JSON carries one as the escape
  `\\ud800`) is no character: no UTF-8 encoder writes it, so it would crash whatever prints,
  writes or sends it (a report, the terminal, a pytest-xdist worker's report to its
  controller). It is replaced by U+FFFD where text enters the kit (`well_formed_json` on each
  line an adapter sends, and on a report read back), so the steps judge a value that can be
  shown; and, as the last guard before an encoder, by `printable`, `xml_safe` and the file
  writer (`kit.files.write_atomically`).
- A control character (ESC, BEL, NUL, ...) is a real character, and may be just what a
  scenario checks (an answer's `message` kept byte for byte): it enters unchanged and is made
  inert at every exit, by the function for that destination: `printable` for a terminal,
  `xml_safe` for XML and HTML, `markdown_inline` for Markdown, `json_written` for JSON that
  keeps its other characters as they are (the JSON report is ASCII with escapes; YAML escapes
  them itself).
"""

from __future__ import annotations

import html
import re

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
C1 = re.compile(r"[\x7f-\x9f]")  # DEL and the C1 controls: JSON writes them as they are
SURROGATE = re.compile("[\ud800-\udfff]")
# In JSON text: an escaped backslash (kept, so the `\u` after it is not taken for an escape),
# a pair of surrogate escapes that make one character (kept), or a lone surrogate's escape.
SURROGATE_ESCAPE = re.compile(r"(\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                              r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]")  # without one, no escape to look at
NOT_XML = re.compile(r"[\ud800-\udfff\ufffe\uffff]")
MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~-])")


def well_formed(text: str) -> str:
    """Each lone surrogate replaced by U+FFFD: text that UTF-8 can encode."""
    return text if text.isascii() else SURROGATE.sub("\ufffd", text)


def well_formed_json(text: str) -> str:
    """JSON text whose strings, once decoded, hold no lone surrogate: the escape of one
    (`\\ud800`, without its other half) becomes `\\ufffd`, and a raw one U+FFFD; everything
    else is left as it is."""
    text = well_formed(text)
    if not SURROGATE_HINT.search(text):
        return text
    return SURROGATE_ESCAPE.sub(lambda m: m[1] or "\\ufffd", text)


def json_written(text: str) -> str:
    """JSON text written with its characters as they are (`ensure_ascii=False`) made inert:
    no lone surrogate (`well_formed_json`), and DEL and the C1 controls as escapes, as JSON
    writes the others itself. Still the same JSON: such characters stand only in strings."""
    return C1.sub(lambda m: f"\\u{ord(m[0]):04x}", well_formed_json(text))


def printable(text: str) -> str:
    """Control characters (escape sequences among them) shown as `\\xNN`; tabs and newlines
    kept; a lone surrogate as U+FFFD (a terminal's encoder refuses it)."""
    return CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", well_formed(text))


def xml_safe(text: str) -> str:
    """`printable`, without the characters XML 1.0 cannot carry (lone surrogates, U+FFFE,
    U+FFFF), each replaced by U+FFFD."""
    return NOT_XML.sub("\ufffd", printable(text))


def markdown_inline(text: str) -> str:
    """One line of Markdown that renders as the literal text: no heading, link, table cell,
    HTML comment or tag can come out of it."""
    flat = " ".join(xml_safe(text).split())
    return MARKDOWN.sub(r"\\\1", html.escape(flat, quote=False))
