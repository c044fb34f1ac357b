"""GenEnv's claims in miniature, on CPU with tiny models: does a trained environment policy write tasks at the
agent's edge, and does an agent trained on its tasks do better than one trained on random or curriculum tasks
after the same number of agent episodes?

    python examples/genenv/demo.py [--seeds 3] [--episodes 192] [--jobs 2] [--output oat-output/genenv-demo]

1. Warm starts, shared by every run (made once, side by side, and reused by a rerun): the tiny agent on solver
   demonstrations of GridCourier and MailSorter at level 1 (as the PERPO demo), the tiny environment policy on
   800 uniformly random valid specs.
2. For each seed, the agent trains until it has played ``--episodes`` episodes (``--max_agent_episodes``) on tasks
   written by (a) uniformly random specs, (b) the alpha curriculum as a task writer, (c) the co-evolved
   environment policy (trained with R_env as it writes); ``--jobs`` runs at a time, one CPU thread each.
3. Held-out success: the runs' own online evaluation (the PERPO trainer's) at complexities 1 to 3 of both games,
   fresh seeds, temperature 1, before training (the warm start) and after.
4. Edge: the share of ``--edge_tasks`` written tasks whose p, over ``--edge_attempts`` attempts by the co-evolved
   run's final agent, lies within alpha +- k_min (0.5 +- 0.1; with 5 attempts p = 0.4, 0.5 and 0.6 do), for the
   trained environment policy, its warm start and uniform specs.

Prints progress and both tables, writes ``<output>/summary.json`` and the figure (``fig/genenv_demo.png``).
Everything at this scale varies with the seed.
"""

import argparse
import json
import statistics
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

GAMES = "gymverse:GridCourier|gymverse:MailSorter"
LEVELS = "1|2|3"  # the held-out evaluation's complexities
ARMS = {"uniform specs": "uniform", "alpha curriculum": "curriculum", "co-evolved": None}
WRITERS = ("co-evolved", "warm start", "uniform specs")  # whose tasks the edge measurement scores
COLORS = {"warm start": "#bbbbbb", "uniform specs": "#999999", "alpha curriculum": "#6699cc", "co-evolved": "#cc6633"}
ENV_WARM_START_SPECS = 800


def run_args(options, **changes):
    from gymverse.genenv.config import GenEnvArgs

    base = dict(
        env_id=GAMES,
        save_path=options.output,
        max_difficulty=options.max_difficulty,
        curriculum="alpha",
        max_agent_episodes=options.episodes,
        steps_per_epoch=4,
        sft_episodes=0,
        env_sft_episodes=0,
        attempts=options.attempts,
        env_prompts_per_step=2,
        num_generations_per_prompt=2,
        env_temperature=options.env_temperature,
        eval_difficulty=LEVELS,
        eval_n=options.eval_instances,
        eval_temperature=1.0,
        eval_steps=0,
        cpu_threads=1,
    )
    return GenEnvArgs(**{**base, **changes})


def warm_starts(options) -> tuple[Path, Path]:
    out = Path(options.output)
    return out / "agent_warm_start", out / "env_warm_start"


def make_warm_start(options, side: str) -> str:
    """The agent's (``side="agent"``) or the environment policy's warm start, unless a previous run made it."""
    from gymverse.env.id_lists import split_env_ids
    from gymverse.genenv.game_space import warm_start_environment
    from gymverse.genenv.specs import game_info
    from gymverse.policy.tiny import resolve_pretrain
    from gymverse.run.sft import warm_start
    from gymverse.run.update import prepare_torch

    path = warm_starts(options)[0 if side == "agent" else 1]
    if (path / "config.json").is_file():
        return f"{side} warm start: reused {path}"
    prepare_torch("cpu", 1, 0)
    base = run_args(options, pretrain="tiny", sft_episodes=100, env_model="tiny")
    if side == "agent":
        warm_start(base, resolve_pretrain("tiny"), path, 0, progress=False)
    else:
        infos = {game: game_info(game, options.max_difficulty) for game in split_env_ids(GAMES)}
        warm_start_environment(base, infos, ENV_WARM_START_SPECS, path, 0, progress=False)
    return f"{side} warm start: made {path}"


def train_arm(options, seed: int, arm: str) -> dict:
    """One run: the agent trained on ``arm``'s tasks to the episode budget; its held-out success before and after,
    and for the co-evolved arm the edge share of each writer."""
    from gymverse.genenv.loop import GenEnvRun
    from gymverse.run.files import RunFiles

    started = time.time()
    writer = ARMS[arm]
    agent_start, env_start = warm_starts(options)
    args = run_args(
        options,
        pretrain=str(agent_start),
        env_model=writer or str(env_start),
        seed=seed,
        wb_run_name=f"{writer or 'coevolved'}-seed{seed}",
    )
    run_dir = GenEnvRun(args, progress=False).run()
    files = RunFiles(run_dir)
    steps = files.read("genenv_metrics.jsonl")
    evaluations = files.read("eval_env_metrics.jsonl")
    result = {
        "seed": seed,
        "arm": arm,
        "steps": len(steps),
        "episodes": steps[-1]["total_episodes"],
        "valid_rate": statistics.mean(r["valid_rate"] for r in steps),
        "before": held_out(evaluations, 0),
        "after": held_out(evaluations, len(steps)),
    }
    if writer is None:
        trained_env = run_dir / "env_policy" / "saved_models" / f"step_{len(steps):05d}"
        result["edge"] = {
            label: edge_share(options, run_dir, model, seed)
            for label, model in zip(WRITERS, (str(trained_env), str(env_start), "uniform"))
        }
    result["seconds"] = time.time() - started
    return result


def held_out(evaluations: list[dict], step: int) -> float:
    """Mean success of the online evaluation at ``step`` (every game and complexity has --eval_n episodes)."""
    return statistics.mean(r["accuracy"] for r in evaluations if r["step"] == step)


def edge_share(options, run_dir: Path, env_model: str, seed: int) -> dict:
    """The share of ``--edge_tasks`` tasks ``env_model`` writes whose p (over ``--edge_attempts`` attempts by the
    run's final agent) lies within alpha +- k_min, invalid tasks counted as not; and the share that is valid."""
    from gymverse.genenv.game_space import GameSpace
    from gymverse.genenv.rewards import within_band
    from gymverse.genenv.sides import env_settings, load_side
    from gymverse.run.checkpoints import load_trainer_state

    args = run_args(
        options,
        env_model=env_model,
        seed=seed,
        attempts=options.edge_attempts,
        num_generations_per_prompt=options.edge_tasks // 2,
    )
    state = load_trainer_state(run_dir)
    space = GameSpace(args, seed)
    space.success = state["space"]["success"]  # the prompts show the agent's latest success, as in training
    agent = load_side("agent", str(run_dir / state["models"]["agent"][1]), args, 1, False, "no", seed, stop_at_box=True)
    env = (
        None
        if env_model == "uniform"
        else load_side("environment", env_model, env_settings(args), 1, False, "chat", seed)
    )
    tasks = space.write(env, 1000)
    space.attempt(agent, tasks)
    at_edge = [t for t in tasks if t.valid and t.p is not None and within_band(t.p, args.alpha, args.k_min)]
    return {"share": len(at_edge) / len(tasks), "valid": sum(t.valid for t in tasks) / len(tasks)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=192, help="agent episodes per run (every arm the same)")
    parser.add_argument("--jobs", type=int, default=2, help="runs side by side, one CPU thread each")
    parser.add_argument("--attempts", type=int, default=4, help="the agent's attempts at each task in training")
    parser.add_argument("--max_difficulty", type=int, default=6)
    parser.add_argument("--env_temperature", type=float, default=0.7)
    parser.add_argument("--eval_instances", type=int, default=16, help="held-out games per game and complexity")
    parser.add_argument("--edge_tasks", type=int, default=24, help="tasks each writer writes for the edge share")
    parser.add_argument("--edge_attempts", type=int, default=5, help="attempts at each of them (p's resolution)")
    parser.add_argument("--output", default="oat-output/genenv-demo")
    parser.add_argument("--figure", default="fig/genenv_demo.png")
    options = parser.parse_args()
    if min(options.seeds, options.episodes, options.jobs) < 1 or options.edge_tasks < 2 or options.edge_tasks % 2:
        parser.error("--seeds, --episodes and --jobs must be at least 1, --edge_tasks an even number (2 prompts)")
    started = time.time()
    Path(options.output).mkdir(parents=True, exist_ok=True)
    # the co-evolved runs take longest (they also measure the edge): first, so the last two finish together
    runs = [(seed, arm) for arm in reversed(ARMS) for seed in range(options.seeds)]
    results = []
    with ProcessPoolExecutor(options.jobs, mp_context=get_context("spawn")) as pool:
        for warm in as_completed([pool.submit(make_warm_start, options, side) for side in ("agent", "env")]):
            print(f"{warm.result()} ({time.time() - started:.0f} s)", flush=True)
        futures = {pool.submit(train_arm, options, seed, arm): (seed, arm) for seed, arm in runs}
        for future in as_completed(futures):
            result = future.result()
            results.append(result)
            print(
                f"[{len(results)}/{len(runs)}] seed {result['seed']} {result['arm']}: {result['episodes']} episodes "
                f"in {result['steps']} steps, held-out {result['before']:.3f} -> {result['after']:.3f} "
                f"({result['seconds']:.0f} s; {time.time() - started:.0f} s in all)",
                flush=True,
            )
    results.sort(key=lambda r: (list(ARMS).index(r["arm"]), r["seed"]))
    summary = summarize(results)
    (Path(options.output) / "summary.json").write_text(
        json.dumps({"options": vars(options), "runs": results, "summary": summary}, indent=1)
    )
    print_tables(options, results, summary)
    plot(summary, results, Path(options.figure))
    print(f"\nfigure: {options.figure}; {time.time() - started:.0f} s in all")


def spread(values: list[float]) -> list[float]:
    return [statistics.mean(values), statistics.pstdev(values)]


def summarize(results: list[dict]) -> dict:
    """Mean and spread over seeds: held-out success per arm (and of the warm start), edge share per writer."""
    held = {"warm start": spread([r["before"] for r in results if r["arm"] == "co-evolved"])}
    held.update({arm: spread([r["after"] for r in results if r["arm"] == arm]) for arm in ARMS})
    coevolved = [r for r in results if r["arm"] == "co-evolved"]
    edge = {label: spread([r["edge"][label]["share"] for r in coevolved]) for label in WRITERS}
    return {"held_out": held, "edge": edge}


def print_tables(options, results: list[dict], summary: dict) -> None:
    print(
        f"\nHeld-out success (complexity 1-3 of both games, {options.eval_instances} games each, temperature 1; "
        f"mean +- std over {options.seeds} seeds; budget {options.episodes} agent episodes):"
    )
    for arm, (mean, std) in summary["held_out"].items():
        runs = [r for r in results if r["arm"] == arm]
        played = (
            f"   agent episodes {[r['episodes'] for r in runs]}, steps {[r['steps'] for r in runs]}" if runs else ""
        )
        print(f"  {arm:17s} {mean:.3f} +- {std:.3f}{played}")
    print(
        f"\nTasks at the agent's edge (|p - 0.5| <= 0.1 over {options.edge_attempts} attempts; share of "
        f"{options.edge_tasks} written tasks, invalid ones counted as not):"
    )
    coevolved = [r for r in results if r["arm"] == "co-evolved"]
    for label, (mean, std) in summary["edge"].items():
        valid = statistics.mean(r["edge"][label]["valid"] for r in coevolved)
        print(f"  {label:17s} {mean:.3f} +- {std:.3f}   (valid {valid:.2f})")


def plot(summary: dict, results: list[dict], path: Path) -> None:
    from gymverse.run.figures import pyplot, save_figure

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    seeds = {"warm start": [r["before"] for r in results if r["arm"] == "co-evolved"]}
    seeds.update({arm: [r["after"] for r in results if r["arm"] == arm] for arm in ARMS})
    edge_seeds = {label: [r["edge"][label]["share"] for r in results if r["arm"] == "co-evolved"] for label in WRITERS}
    for axis, stats, dots, title in (
        (left, summary["held_out"], seeds, "held-out success, complexity 1-3 (same agent episodes)"),
        (right, summary["edge"], edge_seeds, "share of written tasks at the agent's edge"),
    ):
        names = list(stats)
        axis.bar(
            names,
            [m for m, _ in stats.values()],
            yerr=[s for _, s in stats.values()],
            capsize=4,
            color=[COLORS[name] for name in names],
        )
        for k, name in enumerate(names):
            axis.plot([k] * len(dots[name]), dots[name], "k.", alpha=0.6)
        axis.set_title(title, fontsize=10)
        axis.set_ylim(0, 1)
        axis.grid(axis="y", alpha=0.3)
    fig.suptitle("GenEnv in miniature: tiny agent and environment policy on two games (dots: seeds)")
    fig.tight_layout()
    save_figure(fig, path)


if __name__ == "__main__":
    main()
