"""How far up each built-in game stays correct and fast: the probe behind every game's ``max_complexity``.

At each probed level, a few seeded episodes are played by the solver; a level passes when every reset and
the solver's win come without an error, the slowest reset takes under 1 s and the slowest step under 50 ms.
A cell that runs past ``--timeout`` seconds is cut off and counts as a hang. The declared limit is
ignored here (the game is built at level 1 and its complexity set directly), so levels past it can be probed.
The last column runs the env checker at the three highest levels the game declares (``--no-check`` skips it).
``--clock cpu`` times resets and steps in this process's CPU time rather than wall-clock time: steadier while
other work shares the cores, where a process waiting for its turn shows as a slow step.

    python benchmarks/probe_complexity.py [--levels 20 30 50 75 100 150 200] [--seeds 3] [--games LightsOut ...]
"""

import gc
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal

import gem
import tyro
from rich.console import Console
from rich.progress import track
from rich.table import Table

import gymverse  # noqa: F401  (registers the library)
from gymverse.env import builtin_env_classes
from gymverse.env.checker import check_env

RESET_LIMIT_S, STEP_LIMIT_S = 1.0, 0.05
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass
class Args:
    levels: list[int] = field(default_factory=lambda: [20, 30, 50, 75, 100, 150, 200])
    seeds: int = 3
    """seeded episodes per game and level"""
    timeout: float = 20.0
    """seconds a game and level may take in all before it counts as a hang"""
    games: list[str] = field(default_factory=list)
    """class names to probe (all built-in games when empty)"""
    check: bool = True
    """also run the env checker at the three highest declared levels"""
    clock: Literal["wall", "cpu"] = "wall"
    """time resets and steps by the wall clock, or by this process's CPU time"""


class Hang(Exception):
    pass


def _alarm(*_):
    raise Hang


def probe(env, level: int, seeds: int, clock: Callable[[], float] = time.perf_counter) -> str:
    """'ok' or what went wrong at ``level``, with the slowest reset and step."""
    env._next_complexity = level  # past any declared limit: this probe is how the limit is found
    slowest_reset = slowest_step = 0.0
    for seed in range(seeds):
        start = clock()
        env.reset(seed=seed)
        slowest_reset = max(slowest_reset, clock() - start)
        while True:
            start = clock()
            *_, terminated, truncated, info = env.step(env.oracle_action())
            slowest_step = max(slowest_step, clock() - start)
            if terminated or truncated:
                break
        if not info["success"]:
            return f"solver lost (seed {seed})"
    timing = f"reset {slowest_reset * 1e3:.0f} ms, step {slowest_step * 1e3:.1f} ms"
    if slowest_reset > RESET_LIMIT_S or slowest_step > STEP_LIMIT_S:
        return "slow: " + timing
    return "ok: " + timing


def main(args: Args) -> None:
    gc.freeze()  # the imports' objects: otherwise the first game probed pays for collecting them in one step
    classes = [c for c in builtin_env_classes() if not args.games or c.__name__ in args.games]
    columns = ["game", "declared", *map(str, args.levels)] + (["checker at the top"] if args.check else [])
    table = Table(*columns, title="solver at each level")
    signal.signal(signal.SIGALRM, _alarm)
    for cls in track(classes, description="probing", auto_refresh=False):
        row = []
        for level in args.levels:
            env = gem.make(f"gymverse:{cls.__name__}").unwrapped
            signal.setitimer(signal.ITIMER_REAL, args.timeout)
            try:
                verdict = probe(env, level, args.seeds, CLOCKS[args.clock])
            except Hang:
                verdict = f"hang (> {args.timeout:g} s)"
            except Exception as error:  # a crash is a verdict
                verdict = f"{type(error).__name__}: {str(error)[:60]}"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            row.append(verdict if verdict.startswith("ok") else f"[red]{verdict}")
        top = cls.max_complexity
        if args.check and top:
            report = check_env(f"gymverse:{cls.__name__}", levels=range(top - 2, top + 1), seeds=1)
            failed = [result.name for result in report.results if result.passed is False]
            row.append(f"[red]fails: {', '.join(failed)}" if failed else "pass")
        table.add_row(cls.__name__, str(top), *row)
    Console(width=300).print(table)
    print(f"{args.clock} clock; load average:", " ".join(Path("/proc/loadavg").read_text().split()[:3]))


if __name__ == "__main__":
    main(tyro.cli(Args))
