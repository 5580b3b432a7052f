"""One mutant's verdicts: `python -m mutation.judge --component C [...] [-k EXPR]`, run in a
worker's copy of the repository with the mutant applied. It runs `agent-tck run --strict` on
those components (and scenarios), and prints one JSON line for the session's record:
`{"code": 1, "failed": [["AG-D6", "MUST", "failed"], ...]}`. Its exit code is the run's: 0 (the
mutant survived) or not (killed)."""

from __future__ import annotations

import io
import json
import sys
import tempfile
from pathlib import Path


def main(argv: list[str]) -> int:
    from agent_tck.kit import cli

    with tempfile.TemporaryDirectory(prefix="agent-tck-mutant-") as tmp:
        report = Path(tmp) / "report.json"
        out, err = io.StringIO(), io.StringIO()
        code = cli.main(["run", "--strict", "--json", str(report), *argv], out, err)
        failed = []
        if report.exists():
            reqs = json.loads(report.read_text())["requirements"]
            failed = [[r["id"], r["level"], r["verdict"]] for r in reqs
                      if r["verdict"] in ("failed", "errored")]
    print(json.dumps({"code": code, "failed": failed, "error": err.getvalue()[-2000:]}))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
