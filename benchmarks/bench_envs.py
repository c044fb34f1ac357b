"""Reset+step calls per second for every gymverse game, beside GEM's own games, in one run.

Random play at one level (3 by default): each game runs for ``--seconds`` and we count
calls of reset and step; the first reset is seeded and later ones are not, as in training, where
GEM's vector envs autoreset finished episodes with ``reset()``. Every game is timed ``--rounds`` times, the games taking turns, and its
best round counts: other work on a shared machine only ever slows a round down, so the best round
is the least disturbed one, for both libraries alike. Prints one row per game and the median,
p10 and minimum per library. On a loaded machine ``--clock cpu`` counts calls per second of this process's
own CPU time, which other processes disturb far less than the wall clock (compare two versions of the code
that way, one run after the other).

    python benchmarks/bench_envs.py [--level 3] [--seconds 0.5] [--rounds 3] [--clock cpu]
"""

import random
import statistics
import time
from dataclasses import dataclass
from typing import Literal

import gem
import tyro
from gem.envs.registration import ENV_REGISTRY
from rich.console import Console
from rich.progress import track
from rich.table import Table

import gymverse  # noqa: F401
from gymverse.env import registered_ids


@dataclass
class Args:
    level: int = 3
    seconds: float = 0.5
    """seconds of play per game and round"""
    rounds: int = 3
    """rounds of timing; each game's best round counts"""
    clock: Literal["wall", "cpu"] = "wall"
    """wall: seconds as they pass; cpu: seconds of this process's CPU time (steadier on a shared machine)"""


def random_move(env: gem.Env, rng: random.Random) -> str:
    """The game's own random action; for GEM games that have none, a boxed triple of small numbers."""
    if hasattr(env, "random_action"):
        return env.random_action(rng)
    try:
        return env.sample_random_action()
    except NotImplementedError:
        return "\\boxed{%d %d %d}" % (rng.randint(0, 9), rng.randint(0, 9), rng.randint(0, 9))


def calls_per_second(env: gem.Env, seconds: float, clock=time.perf_counter) -> float:
    """Seeded once, then reset without a seed after each episode, as GEM's vector envs autoreset."""
    rng = random.Random(0)
    start = clock()
    deadline = start + seconds
    env.reset(seed=0)
    calls = 1
    while clock() < deadline:
        *_, terminated, truncated, _ = env.step(random_move(env, rng))
        calls += 1
        if terminated or truncated:
            env.reset()
            calls += 1
    return calls / (clock() - start)


def summary(rates: list[float]) -> tuple[float, float, float]:
    ordered = sorted(rates)
    p10 = ordered[max(0, int(round(0.1 * (len(ordered) - 1))))]
    return statistics.median(ordered), p10, ordered[0]


def main(args: Args) -> None:
    ours = registered_ids("gymverse")
    gems = sorted(i for i in ENV_REGISTRY if i.startswith("game:") and i.endswith("-easy"))
    best = dict.fromkeys(ours + gems, 0.0)
    skipped: dict[str, str] = {}
    turns = [env_id for _ in range(args.rounds) for env_id in best]  # every game once per round
    for env_id in track(turns, description="timing", auto_refresh=False):
        if env_id in skipped:
            continue
        kwargs = {"complexity": args.level} if env_id in ours else {}
        try:
            clock = time.process_time if args.clock == "cpu" else time.perf_counter
            rate = calls_per_second(gem.make(env_id, **kwargs), args.seconds, clock)
        except Exception as error:  # a GEM game may need data we cannot download
            skipped[env_id] = f"skipped ({type(error).__name__})"
            continue
        best[env_id] = max(best[env_id], rate)
    table = Table(title=f"reset+step calls per {args.clock} second, random play at level {args.level}")
    table.add_column("env")
    table.add_column("calls/s", justify="right")
    rates: dict[str, list[float]] = {"gymverse": [], "GEM game:*-easy": []}
    for env_id in ours + gems:
        if env_id in skipped:
            table.add_row(env_id, skipped[env_id])
            continue
        rates["gymverse" if env_id in ours else "GEM game:*-easy"].append(best[env_id])
        table.add_row(env_id, f"{best[env_id]:,.0f}")
    Console().print(table)
    totals = Table(title="summary")
    for column in ("library", "games", "median", "p10", "min"):
        totals.add_column(column, justify="right")
    for name, values in rates.items():
        if values:
            totals.add_row(name, str(len(values)), *(f"{v:,.0f}" for v in summary(values)))
    Console().print(totals)
    if rates["gymverse"] and rates["GEM game:*-easy"]:
        ratio = statistics.median(rates["gymverse"]) / statistics.median(rates["GEM game:*-easy"])
        print(f"median ratio gymverse / GEM: {ratio:.1f}x")


if __name__ == "__main__":
    main(tyro.cli(Args))
