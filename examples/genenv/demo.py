"""GenEnv's claims in miniature, on CPU with tiny models: does a trained environment policy write tasks at the
agent's edge, and does an agent trained on its tasks do better than one trained on random or curriculum tasks?

    python examples/genenv/demo.py [--seeds 3] [--steps 12] [--output oat-output/genenv-demo]

1. Warm starts, shared by every run: the tiny agent on solver demonstrations of GridCourier and MailSorter at
   level 1 (as the PERPO demo), the tiny environment policy on uniformly random valid specs.
2. For each seed, ``--steps`` steps of agent training on (a) uniformly random specs, (b) the alpha curriculum
   as a task writer, (c) the co-evolved environment policy (trained with R_env as it writes).
3. Held-out sweep: each final agent's success at complexities 1 to 3 of both games (fresh seeds, temperature 1).
4. Edge: the fraction of written tasks with |p - alpha| <= k_min, p measured by the co-evolved agent, for the
   trained environment policy, its warm start and uniform specs.

Prints both tables and saves ``fig/genenv_demo.png``. Everything at this scale varies with the seed.
"""

import argparse
import json
import statistics
import time
from pathlib import Path

GAMES = "gymverse:GridCourier|gymverse:MailSorter"
LEVELS = [1, 2, 3]  # the held-out sweep's complexities
ARMS = {"uniform specs": "uniform", "alpha curriculum": "curriculum", "co-evolved": None}


def run_args(options, **changes):
    from gymverse.genenv.config import GenEnvArgs

    base = dict(env_id=GAMES, save_path=options.output, max_difficulty=options.max_difficulty, curriculum="alpha",
                steps_per_epoch=options.steps, total_epochs=1, sft_episodes=0, env_sft_episodes=0, attempts=4,
                env_prompts_per_step=2, num_generations_per_prompt=2, env_temperature=options.env_temperature)
    return GenEnvArgs(**{**base, **changes})


def held_out_success(agent_path: str, output: Path, instances: int, seed: int) -> float:
    """Success of ``agent_path`` over complexities 1-3 of both games (the project's sweep, temperature 1)."""
    from gymverse.evaluation.sweep import SweepConfig, run_sweep
    from gymverse.rollout import split_env_ids

    config = SweepConfig(env_ids=split_env_ids(GAMES), policy=agent_path, levels=LEVELS, instances=instances,
                         attempts=1, template="no", wrappers="", temperature=1.0, max_model_len=512,
                         generate_max_length=16, seed=10_000 + seed)
    return run_sweep(config, output)["overall"]["success_rate"]


def edge_fraction(options, run_dir: Path, env_model: str, seed: int) -> float:
    """The fraction of the tasks ``env_model`` writes in two steps (8) that the run's final agent wins 2 times out of 4."""
    from gymverse.genenv.game_space import GameSpace
    from gymverse.genenv.rewards import within_band
    from gymverse.genenv.sides import env_settings, load_side
    from gymverse.run.checkpoints import load_trainer_state

    args = run_args(options, env_model=env_model, steps_per_epoch=2, seed=seed)
    state = load_trainer_state(run_dir)
    space = GameSpace(args, seed)
    space.success = state["space"]["success"]
    agent = load_side("agent", str(run_dir / state["models"]["agent"][1]), args, 1, False, "no", seed, stop_at_box=True)
    env = None if env_model == "uniform" else load_side("environment", env_model, env_settings(args), 1, False,
                                                       "chat", seed)
    tasks = [t for step in (1, 2) for t in space.write(env, 1000 + step)]
    space.attempt(agent, tasks)
    valid = [t for t in tasks if t.valid]
    return sum(within_band(t.p, args.alpha, args.k_min) for t in valid) / len(tasks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--max_difficulty", type=int, default=6)
    parser.add_argument("--env_temperature", type=float, default=0.7)
    parser.add_argument("--eval_instances", type=int, default=8)
    parser.add_argument("--output", default="oat-output/genenv-demo")
    options = parser.parse_args()
    started = time.time()
    from gymverse.genenv.loop import GenEnvRun, warm_start_environment
    from gymverse.genenv.specs import game_info
    from gymverse.policy.tiny import resolve_pretrain
    from gymverse.rollout import split_env_ids
    from gymverse.run.sft import warm_start
    from gymverse.train.update import prepare_torch

    out = Path(options.output)
    out.mkdir(parents=True, exist_ok=True)
    prepare_torch("cpu", 1, 0)
    base = run_args(options, pretrain="tiny", sft_episodes=100, env_model="tiny")
    agent_start, env_start = out / "agent_warm_start", out / "env_warm_start"  # made once, reused by a rerun
    if not (agent_start / "config.json").is_file():
        warm_start(base, resolve_pretrain("tiny"), agent_start, 0)
    if not (env_start / "config.json").is_file():
        infos = {game: game_info(game, options.max_difficulty) for game in split_env_ids(GAMES)}
        warm_start_environment(base, infos, 800, env_start, 0)

    held_out: dict[str, list[float]] = {arm: [] for arm in ARMS}
    edge: dict[str, list[float]] = {"co-evolved": [], "warm start": [], "uniform specs": []}
    episodes: dict[str, list[int]] = {arm: [] for arm in ARMS}
    for seed in range(options.seeds):
        for arm, writer in ARMS.items():
            name = f"{writer or 'coevolved'}-seed{seed}"
            args = run_args(options, pretrain=str(agent_start), env_model=writer or str(env_start), seed=seed,
                            wb_run_name=name)
            run_dir = GenEnvRun(args, progress=False).run()
            records = [json.loads(line) for line in (run_dir / "genenv_metrics.jsonl").read_text().splitlines()]
            episodes[arm].append(sum(r["episodes"] for r in records))
            held_out[arm].append(held_out_success(str(run_dir / "saved_models" / f"step_{options.steps:05d}"),
                                                  run_dir / "held_out", options.eval_instances, seed))
            if writer is None:
                trained_env = str(run_dir / "env_policy" / "saved_models" / f"step_{options.steps:05d}")
                for label, model in (("co-evolved", trained_env), ("warm start", str(env_start)),
                                     ("uniform specs", "uniform")):
                    edge[label].append(edge_fraction(options, run_dir, model, seed))
            print(f"seed {seed} {arm}: done ({time.time() - started:.0f} s)", flush=True)

    def spread(values: list[float]) -> str:
        return f"{statistics.mean(values):.3f} +- {statistics.pstdev(values):.3f}"

    print(f"\nHeld-out success (complexity 1-3 of both games, {options.eval_instances} instances each, "
          f"{options.seeds} seeds, {options.steps} steps each):")
    for arm, values in held_out.items():
        print(f"  {arm:17s} {spread(values)}   (agent episodes per run: {episodes[arm]})")
    print("\nTasks at the agent's edge (|p - 0.5| <= 0.1, share of 8 written tasks, invalid ones counted as not):")
    for label, values in edge.items():
        print(f"  {label:17s} {spread(values)}")
    plot(held_out, edge, Path("fig/genenv_demo.png"))
    print(f"\nfigure: fig/genenv_demo.png; {time.time() - started:.0f} s in all")


def plot(held_out, edge, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for axis, data, title in (
        (left, held_out, "held-out success, complexity 1-3"),
        (right, edge, "tasks at the agent's edge"),
    ):
        names = list(data)
        means = [statistics.mean(v) for v in data.values()]
        errors = [statistics.pstdev(v) for v in data.values()]
        axis.bar(names, means, yerr=errors, capsize=4, color=["#999999", "#6699cc", "#cc6633"][: len(names)])
        for k, values in enumerate(data.values()):
            axis.plot([k] * len(values), values, "k.", alpha=0.6)
        axis.set_title(title)
        axis.set_ylim(0, 1)
        axis.grid(axis="y", alpha=0.3)
    fig.suptitle("GenEnv in miniature: tiny agent and environment policy on two games (dots: seeds)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
