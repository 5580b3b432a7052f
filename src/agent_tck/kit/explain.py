"""`agent-tck explain REQ-ID`: one requirement as a reader needs it, without opening a file:
its level, component and backends, its text and source, the scenarios that check it (where
each is written, and its title), and the real failures it guards against (its hazards)."""

from __future__ import annotations

import difflib
import textwrap
from typing import TextIO

from agent_tck.kit import registry
from agent_tck.kit.errors import UsageError
from agent_tck.kit.paths import FEATURES
from agent_tck.kit.text import printable


def explain(req_id: str, out: TextIO) -> int:
    reqs = registry.load()
    req = reqs.get(req_id) or reqs.get(req_id.upper())
    if req is None:
        near = difflib.get_close_matches(req_id.upper(), reqs, n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise UsageError(f"no requirement {printable(req_id)!r}{hint}")
    backends = f"; backends {', '.join(req.backends)}" if req.backends else ""
    lines = [f"{req.id} ({req.level}, component {req.component}{backends})",
             *_wrapped(req.text), f"Source: {req.source}", "Scenarios:"]
    lines += [f"  {where}  {title}" for where, title in scenarios(req.id)] or ["  none"]
    lines.append("Hazards (real failures it guards against):")
    lines += [f"  {h.url}\n{textwrap.indent(chr(10).join(_wrapped(h.what)), '  ')}"
              for h in req.hazards] or ["  none listed"]
    print("\n".join(lines), file=out)
    return 0


def scenarios(req_id: str) -> list[tuple[str, str]]:
    """(where, title) of each scenario tagged `req_id`: the file and line of its tag."""
    found = []
    for where in registry.tags_in().get(req_id, []):
        path, _, number = where.rpartition(":")
        text = (FEATURES / path).read_text(encoding="utf-8").splitlines()[int(number):]
        title = next((line.strip() for line in text if not line.strip().startswith("@")), "")
        found.append((f"features/{where}", title))
    return found


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, 96, initial_indent="  ", subsequent_indent="  ")
