"""``--seeds N``: the same run over N seeds, ``--jobs`` of them at a time in child processes, and their closing
tables as mean and spread per cell (``gymverse.run.seeds``).

Seed ``s`` runs as ``--seed s --wb_run_name <name>-seed<s>`` (seeds ``--seed`` to ``--seed + N - 1``), its output
in ``<name>-seeds/seed<s>.log``; a run's numbers depend only on its seed, never on what runs beside it, so the
table is the same whatever ``--jobs``.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from gymverse.errors import ResourceError
from gymverse.run.seeds import aggregate, print_aggregate
from gymverse.run.settings import RunFileSettings
from gymverse.train.args import TrainArgs

CHILD = "import sys; from gymverse.train.cli import main; sys.exit(main(sys.argv[1:]))"


def run_seeds(args: TrainArgs, argv: list[str]) -> Path:
    """Run ``argv`` once per seed; the folder of the seeds' logs and of the aggregated ``results.json``."""
    from tqdm import tqdm

    seeds = [args.seed + i for i in range(args.seeds)]
    folder = Path(args.save_path) / f"{args.wb_run_name}-seeds"
    folder.mkdir(parents=True, exist_ok=True)
    jobs = args.jobs or min(len(seeds), os.cpu_count() or 1)
    waiting, failed = list(seeds), list[int]()
    running: dict[int, tuple[subprocess.Popen, IO[str]]] = {}
    print(f"{len(seeds)} seeds ({', '.join(map(str, seeds))}), {jobs} at a time; each one's output in {folder}")
    with tqdm(total=len(seeds), desc="seeds", unit="run", dynamic_ncols=True, file=sys.stdout) as bar:
        while waiting or running:
            while waiting and len(running) < jobs:
                seed = waiting.pop(0)
                child_argv = [*argv, "--seeds", "1", "--jobs", "1", "--seed", str(seed)]
                child_argv += ["--wb_run_name", run_name(args, seed)]
                log = open(folder / f"seed{seed}.log", "w")
                running[seed] = (
                    subprocess.Popen([sys.executable, "-c", CHILD, *child_argv], stdout=log, stderr=log),
                    log,
                )
            finished = wait_any(running)
            process, output = running.pop(finished)
            output.close()
            if process.returncode != 0:
                failed.append(finished)
            bar.update()
    if failed:
        raise ResourceError(f"seeds {', '.join(map(str, failed))} failed: see {folder}/seed<seed>.log")
    runs = [
        json.loads((Path(args.save_path) / run_name(args, seed) / "results.json").read_text())["rows"] for seed in seeds
    ]
    rows = aggregate(runs)
    print_aggregate(rows)
    (folder / "results.json").write_text(json.dumps({"seeds": seeds, "rows": rows}, indent=1) + "\n")
    print(f"Table: {folder / 'results.json'}")
    return folder


def run_name(args: RunFileSettings, seed: int) -> str:
    return f"{args.wb_run_name}-seed{seed}"


def wait_any(running: dict[int, Any]) -> int:
    """The seed of the first of ``running``'s processes to end."""
    while True:
        for seed, (process, _) in running.items():
            if process.poll() is not None:
                return seed
        time.sleep(0.5)
