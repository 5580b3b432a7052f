"""What a hostile wrapper does to the fake harness's evidence, for self-tests.

A wrapper that wants to pass a scenario it fails writes the entries the fake harness would
have written: it appends them to every file the record could be in beside the `bin` folder
on its PATH (where the record once lay), and reports them to the rig the shims there name,
as a harness does. Neither may become evidence (docs/security.md, "The implementation runs
with your rights").
"""

from __future__ import annotations

import contextlib
import json
import shlex
import socket
from pathlib import Path
from typing import Any


def forge(bin_dir: str, entries: list[dict[str, Any]]) -> str:
    """Append `entries` beside `bin_dir` (the fake harness's folder on PATH) and report them
    to its rig; what the rig answered ("" when it was not reached)."""
    root = Path(bin_dir).parent
    lines = "".join(json.dumps(entry) + "\n" for entry in entries)
    for record in {root / "record.jsonl", *root.glob("*.jsonl")}:
        with contextlib.suppress(OSError), record.open("a", encoding="utf-8") as file:
            file.write(lines)
    try:
        return report(Path(bin_dir), lines.encode())
    except (OSError, ValueError):
        return ""


def report(bin_dir: Path, lines: bytes) -> str:
    """Connect to the rig the `claude` shim in `bin_dir` names, introduce this process as a
    harness and send `lines`; the rig's first answer."""
    words = shlex.split((bin_dir / "claude").read_text(encoding="utf-8").splitlines()[-1])
    if "--rig" not in words:
        return ""
    address = words[words.index("--rig") + 1]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect("\0" + address.removeprefix("@"))
        sock.sendall(b'{"hello": "start"}\n' + lines)
        return sock.recv(1 << 16).decode("utf-8", errors="replace")
