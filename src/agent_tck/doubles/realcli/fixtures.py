"""Recording fixtures/transcripts/ anew (doubles/backends/transcripts.py reads them).

    python -m agent_tck.doubles.realcli.fixtures [NAME ...]

re-records the named entries of fixtures/transcripts/index.yaml (all by default) with the
pinned CLIs. Run it after changing a pin in clis/package.json: tests/test_transcripts.py then
names every line and field the new version prints that the schemas (schemas/cli/) do not know,
and `git diff` shows the rest; rebuild the schemas with
`python -m agent_tck.doubles.realcli.shapes` once the differences are understood
(docs/real-clis.md).
"""

from __future__ import annotations

import sys

from agent_tck.doubles.backends.transcripts import chosen, index


def main(argv: list[str]) -> int:
    from agent_tck.doubles.realcli.record import record
    from agent_tck.kit.files import write_atomically

    wanted = chosen(index(), argv, "transcripts")
    if wanted is None:
        return 2
    for t in wanted:
        done = record(t.backend, {"turns": t.turns}, t.prompt, args=t.args)
        problems = [r["problem"] for r in done.requests if r.get("problem")]
        if done.returncode is None:
            problems.append("the CLI did not finish before the timeout")
        if problems:
            print(f"{t.name}: the model script did not play: {problems}", file=sys.stderr)
            return 1
        write_atomically(t.path, done.stdout)
        lines = done.stdout.count(b"\n")
        print(f"{t.name}: {lines} lines, exit {done.returncode}")
    print("now: pytest tests/test_transcripts.py; then python -m agent_tck.doubles.realcli.shapes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
