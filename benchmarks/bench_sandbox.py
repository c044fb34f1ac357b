"""What the jail costs: its start, one proxied step, and `gymverse check --dir` on a folder of games.

Prints bubblewrap's own start (``bwrap ... true``), a jail's start with a small game file imported, the
round trip of one proxied ``step`` against the same step in this process, and the judgement of a folder:
seconds per file and in all, with the verdicts. ``--copies N`` judges N copies of every file of the
folder (each copy a distinct file), to measure a folder of hundreds of files from a sample of them;
``--adopt`` also times ``gymverse synthesize --adopt`` on it (every gate and the audit report). Both start
from an empty cache.

    python benchmarks/bench_sandbox.py [--folder tests/fixtures/gymverse_style] [--copies 1] [--workers 2] [--adopt]
"""

import os
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import tyro
from rich.console import Console

from gymverse.env.registry import folder_entries
from gymverse.sandbox import JailedFile, ProxyEnv, judge_folder
from gymverse.sandbox.jail import jail_problem, readonly_paths
from gymverse.synthesis.gates import GateSettings, JailGates
from gymverse.synthesis.run import adopt

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures"
SMALL = FIXTURES / "hostile_envs" / "tally.py"


@dataclass
class Args:
    folder: Path = FIXTURES / "gymverse_style"
    copies: int = 1
    workers: int | None = None
    adopt: bool = False
    starts: int = 10
    steps: int = 2000


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.1f} ms"


def copied(folder: Path, copies: int, into: Path) -> Path:
    """``copies`` distinct copies of each file of ``folder`` (a comment line makes each copy its own file)."""
    into.mkdir()
    for file in folder_entries(folder).files:
        for i in range(copies):
            target = into / (f"{file.stem}_copy{i}.py" if copies > 1 else file.name)
            target.write_text(file.read_text(errors="replace") + f"\n# copy {i}\n")
    return into


def main(args: Args) -> None:
    console = Console()
    problem = jail_problem()
    if problem:
        console.print(f"no jail here: {problem}")
        return
    binds = [arg for path in readonly_paths() for arg in ("--ro-bind", path, path)]
    bare = []
    for _ in range(args.starts):
        began = time.perf_counter()
        subprocess.run(
            ["bwrap", "--unshare-all", "--die-with-parent", *binds, "--proc", "/proc", "--dev", "/dev", "true"],
            check=True,
        )
        bare.append(time.perf_counter() - began)
    console.print(f"bubblewrap start (all namespaces, nothing run): median {median_ms(bare)} over {args.starts}")
    starts = []
    for _ in range(args.starts):
        began = time.perf_counter()
        with JailedFile(SMALL) as jail:
            jail.games()
        starts.append(time.perf_counter() - began)
    console.print(f"jail start with a small game imported and listed: median {median_ms(starts)}")

    with JailedFile(SMALL) as jail:
        env = ProxyEnv(jail, "TallyGame", complexity=1)
        env.reset(seed=0)
        proxied = []
        for _ in range(args.steps):
            began = time.perf_counter()
            if env.step("\\boxed{1}")[2]:
                env.reset(seed=0)
            proxied.append(time.perf_counter() - began)
    console.print(f"one proxied step: median {statistics.median(proxied) * 1e6:.0f} us over {args.steps}")

    with tempfile.TemporaryDirectory() as scratch:
        os.environ["GYMVERSE_CACHE"] = str(Path(scratch) / "cache")  # no listing or verdict from an earlier run
        folder = copied(args.folder, args.copies, Path(scratch) / args.folder.name)
        began = time.perf_counter()
        judgement = judge_folder(folder, workers=args.workers, resume=False)
        took = time.perf_counter() - began
        counts: Counter = Counter()
        for verdict in judgement.verdicts:
            counts[
                "not a game (script)" if verdict.skipped else "file did not import" if verdict.error else "files"
            ] += 1
            counts.update(game.verdict for game in verdict.games)
        files = len(judgement.verdicts)
        console.print(
            f"{args.folder.name} x {args.copies}: {files} files judged in {took:.1f} s "
            f"({took / max(files, 1):.2f} s a file, {args.workers or 'one per CPU'} at a time); "
            + ", ".join(f"{n} {what}" for what, n in counts.most_common())
        )
        if args.adopt:
            output = Path(scratch) / "adopted"
            began = time.perf_counter()
            summary = adopt(folder, output, JailGates(GateSettings(prefix=output.name)), console=Console(quiet=True))
            took = time.perf_counter() - began
            console.print(
                f"--adopt of the same {files} files: {took:.1f} s ({took / max(files, 1):.2f} s a file); "
                + ", ".join(f"{n} {status}" for status, n in summary.counts().items())
            )


if __name__ == "__main__":
    main(tyro.cli(Args))
