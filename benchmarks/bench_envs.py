"""Reset+step calls per second for every gymverse game, beside GEM's own games, in one run.

Random play at one level (3 by default): each game runs for ``--seconds`` and we count
calls of reset and step. Prints one row per game and the median, p10 and minimum per library.

    python benchmarks/bench_envs.py [--level 3] [--seconds 0.5]
"""

import random
import statistics
import time
from dataclasses import dataclass

import gem
import tyro
from gem.envs.registration import ENV_REGISTRY
from rich.console import Console
from rich.table import Table

import gymverse  # noqa: F401
from gymverse.env import registered_ids


@dataclass
class Args:
    level: int = 3
    seconds: float = 0.5


def random_move(env: gem.Env, rng: random.Random) -> str:
    """The game's own random action; for GEM games that have none, a boxed triple of small numbers."""
    if hasattr(env, "random_action"):
        return env.random_action(rng)
    try:
        return env.sample_random_action()
    except NotImplementedError:
        return "\\boxed{%d %d %d}" % (rng.randint(0, 9), rng.randint(0, 9), rng.randint(0, 9))


def calls_per_second(env: gem.Env, seconds: float) -> float:
    rng = random.Random(0)
    calls, seed = 0, 0
    start = time.perf_counter()
    deadline = start + seconds
    env.reset(seed=seed)
    calls += 1
    while time.perf_counter() < deadline:
        *_, terminated, truncated, _ = env.step(random_move(env, rng))
        calls += 1
        if terminated or truncated:
            seed += 1
            env.reset(seed=seed)
            calls += 1
    return calls / (time.perf_counter() - start)


def summary(rates: list[float]) -> tuple[float, float, float]:
    ordered = sorted(rates)
    p10 = ordered[max(0, int(round(0.1 * (len(ordered) - 1))))]
    return statistics.median(ordered), p10, ordered[0]


def main(args: Args) -> None:
    ours = registered_ids("gymverse")
    gems = sorted(i for i in ENV_REGISTRY if i.startswith("game:") and i.endswith("-easy"))
    table = Table(title=f"reset+step calls per second, random play at level {args.level}")
    table.add_column("env")
    table.add_column("calls/s", justify="right")
    rates: dict[str, list[float]] = {"gymverse": [], "GEM game:*-easy": []}
    for env_id in ours + gems:
        kwargs = {"complexity": args.level} if env_id in ours else {}
        try:
            env = gem.make(env_id, **kwargs)
            rate = calls_per_second(env, args.seconds)
        except Exception as error:  # a GEM game may need data we cannot download
            table.add_row(env_id, f"skipped ({type(error).__name__})")
            continue
        rates["gymverse" if env_id in ours else "GEM game:*-easy"].append(rate)
        table.add_row(env_id, f"{rate:,.0f}")
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
