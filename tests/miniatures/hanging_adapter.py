"""An adapter whose every request hangs: the reference's adapter, except that it never
answers `agent.request` (what a wrapper that leaves the CLI's stdin open does)."""

from __future__ import annotations

import json
import sys
import time

from agent_tck.reference.adapter import Adapter


def main() -> int:
    adapter = Adapter()
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "agent.request":
            time.sleep(3600)
        print(json.dumps(adapter.handle(request)), flush=True)
        if request.get("cmd") == "stop":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
