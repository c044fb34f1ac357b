"""What the sandbox costs, and what `gymverse check --dir` gives on a folder of third-party games.

Prints the fork server's start time, the round trip of one job (a child forked, a small file imported,
the result sent back), and, per file of the folder, the verdicts and the seconds each took. The default
folder is tests/fixtures/gymverse_style (GymVerse-style games, some of them crashing, hanging or exiting).

    python benchmarks/bench_sandbox.py [--folder tests/fixtures/gymverse_style] [--jobs 50] [--max-level 10] [--seeds 3]
"""

import statistics
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import tyro
from rich.console import Console

from gymverse.sandbox import Limits, Sandbox, judge_folder
from gymverse.sandbox.jobs import list_games

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures"


@dataclass
class Args:
    folder: Path = FIXTURES / "gymverse_style"
    jobs: int = 50
    max_level: int = 10
    seeds: int = 3
    time_limit: float = 120.0


def main(args: Args) -> None:
    console = Console()
    start = time.perf_counter()
    with Sandbox(Limits(seconds=args.time_limit)) as sandbox:
        sandbox.start()
        console.print(f"fork server ready in {time.perf_counter() - start:.2f} s")
        small = str((FIXTURES / "hostile_envs" / "tally.py").resolve())
        trips = []
        for _ in range(args.jobs):
            began = time.perf_counter()
            assert sandbox.run(list_games, small).ok
            trips.append(time.perf_counter() - began)
        console.print(f"one job (fork, import a small file, send back the result): median "
                      f"{statistics.median(trips) * 1000:.1f} ms over {args.jobs}")
        began = time.perf_counter()
        verdicts = judge_folder(args.folder, sandbox=sandbox, levels=list(range(1, args.max_level + 1)),
                                seeds=args.seeds)
        took = time.perf_counter() - began
    counts = Counter()
    for verdict in verdicts:
        if verdict.error:
            counts["file did not import"] += 1
            console.print(f"{Path(verdict.file).name}: {verdict.error}", markup=False)
        for game in verdict.games:
            counts[game.verdict] += 1
            console.print(f"{game.env_id}: {game.verdict} in {game.seconds:.1f} s", markup=False)
    console.print(f"{args.folder.name}: {len(verdicts)} files, {sum(len(v.games) for v in verdicts)} games, "
                  + ", ".join(f"{n} {what}" for what, n in counts.most_common()) + f"; {took:.1f} s in all")


if __name__ == "__main__":
    main(tyro.cli(Args))
