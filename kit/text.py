"""Text that came from an implementation, made safe for where the kit shows it.

An adapter's messages and stderr, an implementation's name and its evidence can hold anything:
ANSI and OSC escapes that rewrite a terminal, characters XML 1.0 forbids, Markdown that forges
a heading or hides the verdict in a comment. Each function keeps the text readable and makes
it inert for one destination.
"""

from __future__ import annotations

import html
import re

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
NOT_XML = re.compile(r"[\ud800-\udfff\ufffe\uffff]")
MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~-])")


def printable(text: str) -> str:
    """Control characters (escape sequences among them) shown as `\\xNN`; tabs and newlines
    kept."""
    return CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", text)


def xml_safe(text: str) -> str:
    """`printable`, without the characters XML 1.0 cannot carry (lone surrogates, U+FFFE,
    U+FFFF), each replaced by U+FFFD."""
    return NOT_XML.sub("\ufffd", printable(text))


def markdown_inline(text: str) -> str:
    """One line of Markdown that renders as the literal text: no heading, link, table cell,
    HTML comment or tag can come out of it."""
    flat = " ".join(xml_safe(text).split())
    return MARKDOWN.sub(r"\\\1", html.escape(flat, quote=False))
