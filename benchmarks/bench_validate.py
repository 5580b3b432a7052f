"""Benchmark: validate 1,000 metadata files with agent-tck and with the check-jsonschema CLI.

Run on demand (not part of the test suite), from the repository root:

    PYTHONPATH=. python benchmarks/bench_validate.py [--files 1000] [--repeat 3]

Both tools check the same files against the same schema (`metadata.schema.json`, bundled with
the definitions it references into one file, since check-jsonschema would try to download
`https://agent-tck.example/...`). agent-tck also runs its semantic rules and records source
positions, which check-jsonschema does not. Timings are wall-clock, best of `--repeat`, for:
agent-tck in-process (`reference.pipeline.cli.main`), agent-tck as a CLI (`python -m
agent_tck.reference.pipeline validate`, one process for all files, as pre-commit runs it),
and `check-jsonschema --schemafile bundle.json FILES...` (one process for all files).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from agent_tck.reference.pipeline import cli
from agent_tck.reference.pipeline.schemas import SCHEMA_DIR, schemas

ROOT = Path(__file__).resolve().parent.parent


def make_files(directory: Path, count: int) -> tuple[list[str], int]:
    """`count` metadata files derived from the seed's; every tenth has an off-seed zone (a
    schema error both tools see). Returns the paths and how many are invalid."""
    seed = yaml.safe_load((SCHEMA_DIR / "examples" / "metadata.seed.yml").read_text())
    paths, invalid = [], 0
    for i in range(count):
        data = json.loads(json.dumps(seed))
        data["source_file"] = f"app/services/payment_processor_{i}.rb"
        data["slug"] = f"app_services_payment_processor_{i}"
        data["source_mtime"] = 1699351530 + i
        if i % 10 == 9:
            data["complexity"]["zone"] = "orange"
            invalid += 1
        path = directory / f"{data['slug']}.yml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        paths.append(str(path))
    return paths, invalid


def bundle(directory: Path) -> Path:
    """metadata.schema.json with the schemas it references embedded in `$defs` (2020-12
    embedded resources, resolved by their `$id`)."""
    all_schemas = schemas()
    root = dict(all_schemas["metadata"])
    root["$defs"] = {**root.get("$defs", {}), "__defs": all_schemas["defs"],
                     "__error": all_schemas["error"]}
    path = directory / "metadata.bundle.schema.json"
    path.write_text(json.dumps(root), encoding="utf-8")
    return path


def best(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def ours_in_process(files: list[str]) -> int:
    out = io.StringIO()
    cli.main(["--contract", "metadata", "--format", "json", *files], out, io.StringIO())
    return sum(1 for f in json.loads(out.getvalue())["files"] if not f["valid"])


def ours_cli(files: list[str]) -> int:
    argv = [sys.executable, "-m", "agent_tck.reference.pipeline", "validate", "--contract",
            "metadata", "--format", "json", *files]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return sum(1 for f in json.loads(done.stdout)["files"] if not f["valid"])


def theirs_cli(files: list[str], schema: Path, exe: str) -> int:
    done = subprocess.run([exe, "--schemafile", str(schema), "-o", "json", *files],
                          capture_output=True, text=True, check=False)
    report = json.loads(done.stdout)
    return len({e["filename"] for e in report.get("errors", [])})


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()},"
            f" Python {platform.python_version()}, PyYAML {yaml.__version__}"
            f" (libyaml: {yaml.__with_libyaml__})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    exe = shutil.which("check-jsonschema", path=f"{Path(sys.executable).parent}:{os.defpath}")
    if exe is None:
        print("check-jsonschema not found: pip install 'agent-tck[bench]'", file=sys.stderr)
        return 2
    version = subprocess.run([exe, "--version"], capture_output=True, text=True,
                             check=False).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        files, invalid = make_files(Path(tmp), args.files)
        schema = bundle(Path(tmp))
        rows = [("agent-tck, in-process", *best(args.repeat, lambda: ours_in_process(files))),
                ("agent-tck validate (CLI)", *best(args.repeat, lambda: ours_cli(files))),
                (version, *best(args.repeat, lambda: theirs_cli(files, schema, exe)))]
    reference = rows[2][1]
    print(f"machine: {machine()}")
    print(f"{args.files} metadata files ({invalid} invalid), best of {args.repeat}\n")
    print("| validator | seconds | files/s | invalid found | check-jsonschema time / this |")
    print("|---|---:|---:|---:|---:|")
    for name, seconds, found in rows:
        print(f"| {name} | {seconds:.2f} | {args.files / seconds:,.0f} | {found} |"
              f" {reference / seconds:.1f}x |")
    return 0 if all(found == invalid for _, _, found in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
