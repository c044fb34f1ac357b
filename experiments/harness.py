"""The one harness every study runs on: train each arm with the native PERPO trainer, sweep it, report.

A :class:`Study` is a claim and its arms; an :class:`Arm` is one training configuration (the
trainer's flags: games, complexity schedule, wrappers as variant ids, budget). For every seed the
harness

1. warm-starts the tiny model on solver demonstrations of the arm's warm-start games (``gymverse
   sft``'s function; one model per distinct set of games and seed, shared by the arms that name it,
   so they start from the same weights);
2. trains the arm with :class:`gymverse.train.loop.Trainer` into ``<root>/<study>/<arm>/seed<k>``,
   its online evaluation playing the held-out games (the curve of success against episodes);
3. sweeps the warm start and the final checkpoint over the held-out games and levels with
   :func:`gymverse.evaluation.sweep.run_sweep` (same instances for every arm of a seed).

Everything is resumable: a run with ``result.json`` is skipped, a run with a trainer state continues
with the trainer's ``--resume``, a warm start or sweep that is there is reused. ``write_report`` puts
``results.json`` (every number, the study's command and each run's trainer command), ``table.md`` and
``figure.png`` in ``experiments-output/<budget>/fig/<study>/`` (the README's copies are in ``fig/experiments/``).
"""

import contextlib
import json
import math
import os
import shutil
import sys
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, fields, replace
from functools import partial
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # gymverse is imported inside the functions that use it, as everywhere in this module
    from gymverse.train.args import TrainArgs

REPO = Path(__file__).resolve().parents[1]
RESULT = "result.json"
GAMES = ["gymverse:GridCourier", "gymverse:MailSorter"]  # the games a study trains on and sweeps unless it names others
# How the studies train unless they say otherwise: the recipe their README results were measured with (a warm start
# on solver-labelled demonstrations, a PERPO learning rate of 3e-5), pinned so that the trainer's defaults (the
# CPU demo's) can change without changing what a study command gives.
STUDY_RECIPE = {"learning_rate": 3e-5, "sft_epochs": 3, "sft_epsilon": 0.2, "sft_label": "solver"}
# The CPU demo's recipe: a warm start on the epsilon-solver's own moves, half of them random, and lr 1e-4.
DEMO_RECIPE = {"learning_rate": 1e-4, "sft_epochs": 6, "sft_epsilon": 0.5, "sft_label": "played"}


@dataclass(frozen=True)
class Budget:
    """How much each run trains and how much the sweeps play."""

    steps: int = 24  # PERPO steps
    turns: int = 32  # turns per step (--rollout_batch_size)
    num_env: int = 8
    sft_episodes: int = 100  # solver episodes per warm-start game (60 leave the tiny model unable to write a command)
    eval_every: int = 8  # online evaluation every this many steps (the curve)
    eval_n: int = 8  # online evaluation episodes per game and level
    instances: int = 6  # held-out sweep: instances per game and level (one attempt each)
    save_every: int = 4  # checkpoints, so a killed run loses at most this many steps
    max_levels: int | None = None  # sweep and curve play at most this many of the study's levels (smoke runs)

    def levels(self, levels: list[int]) -> list[int]:
        """``levels``, thinned to ``max_levels`` spread from the first to the last."""
        n = self.max_levels
        if n is None or len(levels) <= n:
            return list(levels)
        return [levels[round(i * (len(levels) - 1) / max(n - 1, 1))] for i in range(n)]


FULL = Budget()
QUICK = Budget(
    steps=2, turns=8, num_env=4, sft_episodes=4, eval_every=1, eval_n=2, instances=1, save_every=1, max_levels=2
)


@dataclass(frozen=True)
class Arm:
    """One training configuration: a row of the study's table."""

    name: str
    flags: dict[str, Any]  # TrainArgs fields (env_id, evolve, curriculum, train_difficulty, wrappers, ...)
    warm_env_id: str | None = None  # games of the warm start ("" none; None: the arm's env_id)


@dataclass
class Study:
    name: str
    claim: str  # what the paper reports, for the README
    arms: list[Arm]
    eval_env_ids: list[str] = field(default_factory=lambda: list(GAMES))  # the held-out sweep's games (variants too)
    eval_levels: list[int] = field(default_factory=lambda: [1, 2, 3, 4])
    curve_levels: list[int] = field(default_factory=lambda: [1, 3])  # levels of the online evaluation during training
    flags: dict[str, Any] = field(default_factory=dict)  # TrainArgs fields shared by every arm
    budget: Budget = FULL
    table_by: str = ""  # the table's columns: "levels" or "envs" (default: levels when there are several)
    # the study's own reading of its results: (aggregated arms, runs) -> findings for results.json and the table
    findings: Callable[[dict, list[dict]], dict] | None = None


# -- the trainer's arguments ------------------------------------------------------------------------
def slug(text: str) -> str:
    """A folder name for ``text`` (letters, digits, '-' and '_')."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text).strip("_")[:120]


def ensure_registered(env_ids: list[str]) -> None:
    """Register the variant ids (``buggy:gymverse:X``, ``feedback-plain:gymverse:X``) this process will use."""
    from gem.envs.registration import ENV_REGISTRY

    import gymverse  # noqa: F401  (registers the built-in games)
    from gymverse.wrappers import VARIANTS, register_variant

    for env_id in env_ids:
        kind, _, inner = env_id.partition(":")
        if env_id not in ENV_REGISTRY and kind in VARIANTS:
            ensure_registered([inner])
            register_variant(inner, kind)


def train_args(study: Study, arm: Arm, seed: int, root: Path, warm: Path | None) -> "TrainArgs":
    """The trainer's arguments of one run (``warm``: the warm-start model, None: the trainer's own)."""
    from gymverse.train.args import TrainArgs

    b = study.budget
    flags = {
        "num_env": b.num_env,
        "rollout_batch_size": b.turns,
        "max_train": b.steps * b.turns,
        "eval_envs": "|".join(study.eval_env_ids),
        "eval_difficulty": "|".join(map(str, b.levels(study.curve_levels))),
        "eval_n": b.eval_n,
        "eval_steps": b.eval_every,
        "eval_temperature": 1.0,
        "eval_top_p": 1.0,
        "save_steps": b.save_every,
        "max_save_num": 1,
        "dump_experience_every": 0,
        "before_after_n": 0,  # the study's own table compares the arms
        "max_idle_steps": 0,  # an arm that learns nothing (a fixed hard level) is a result, not an error
        "seed": seed,
        **STUDY_RECIPE,
        **study.flags,
        **arm.flags,
        "save_path": str(root / study.name / slug(arm.name)),
        "wb_run_name": f"seed{seed}",
    }
    if warm is not None:
        flags.update(pretrain=str(warm), sft_episodes=0)
    return TrainArgs(**flags)


def command_line(args: "TrainArgs") -> str:
    """The trainer command that runs ``args`` (flags that differ from the defaults)."""
    from gymverse.train.args import TrainArgs

    default, words = TrainArgs(), ["python", "examples/train_oat/train_oat_perpo.py"]
    for f in fields(args):
        value = getattr(args, f.name)
        if value == getattr(default, f.name):
            continue
        if isinstance(value, bool):
            words.append(f"--{f.name}" if value else f"--no-{f.name}")
        else:
            text = str(value)
            words += [f"--{f.name}", f'"{text}"' if "|" in text or " " in text or not text else text]
    return " ".join(words)


# -- one run --------------------------------------------------------------------------------------
def warm_path(study: Study, arm: Arm, seed: int, root: Path) -> tuple[str, Path] | None:
    """The arm's warm-start games and model folder for ``seed`` (None: the arm starts from --pretrain).
    Registers the variant ids the arm and the sweep use, in this process."""
    base = train_args(study, arm, seed, root, None)
    ensure_registered(base.env_id.split("|") + (arm.warm_env_id or "").split("|") + study.eval_env_ids)
    env_id = base.env_id if arm.warm_env_id is None else arm.warm_env_id
    if not env_id:
        return None
    recipe = "" if base.sft_label == "solver" else f"-{base.sft_label}{base.sft_epsilon:g}-{base.sft_epochs}"
    key = slug(f"{env_id}-{base.wrappers}-{base.prompt_template}-{study.budget.sft_episodes}{recipe}")
    return env_id, root / study.name / "warm" / f"{key}-seed{seed}"


def warm_start(study: Study, arm: Arm, seed: int, root: Path) -> tuple[Path, dict] | None:
    """The arm's warm-start model and its held-out sweep summary: SFT on solver demonstrations at level 1,
    built and swept once, and shared by the arms of the same games, so they start from the same weights."""
    from gymverse.run.sft import sft_command

    target = warm_path(study, arm, seed, root)
    if target is None:
        return None
    env_id, out = target
    base = train_args(study, arm, seed, root, None)
    if not (out / "config.json").is_file():
        partial = out.with_name(out.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        with quiet():
            sft_command(
                env_id=env_id,
                pretrain=base.pretrain,
                output=str(partial),
                episodes=study.budget.sft_episodes,
                difficulty="1",
                epochs=base.sft_epochs,
                batch_size=base.sft_batch_size,
                learning_rate=base.sft_learning_rate,
                prompt_template=base.prompt_template,
                wrappers=base.wrappers,
                epsilon=base.sft_epsilon,
                label=base.sft_label,
                seed=seed,
            )
        partial.rename(out)
    swept = out.with_name(out.name + "-heldout")
    if (swept / "summary.json").is_file():  # read, not re-run: arms running side by side share it
        return out, json.loads((swept / "summary.json").read_text())
    return out, sweep(study, base, out, swept, seed)


def sweep(study: Study, args: "TrainArgs", policy: Path, output: Path, seed: int) -> dict:
    """The held-out sweep of ``policy`` (a model folder), resumed if ``output`` holds part of it."""
    from gymverse.evaluation.sweep import SweepConfig, run_sweep
    from gymverse.run.config import eval_settings

    wrappers, template = next(iter(eval_settings(args).values()))
    config = SweepConfig(
        env_ids=list(study.eval_env_ids),
        policy=str(policy),
        levels=study.budget.levels(study.eval_levels),
        instances=study.budget.instances,
        attempts=1,
        template=template,
        wrappers=wrappers,
        temperature=1.0,
        max_model_len=args.max_model_len,
        generate_max_length=args.eval_generate_max_length,
        seed=seed,
    )
    return run_sweep(config, output)


def run_arm(study: Study, arm: Arm, seed: int, root: Path) -> dict:
    """Train, sweep and summarize one (arm, seed); the saved result when it is already done."""
    from gymverse.run.checkpoints import MODELS_DIR, STATE_FILE, saved_steps, step_dir_name
    from gymverse.run.files import RunFiles
    from gymverse.train.loop import Trainer

    warm, before = warm_start(study, arm, seed, root) or (None, None)
    args = train_args(study, arm, seed, root, warm)
    run_dir = Path(args.save_path) / args.wb_run_name
    if (run_dir / RESULT).is_file():
        return json.loads((run_dir / RESULT).read_text())
    resume = (run_dir / STATE_FILE).is_file()
    if run_dir.exists() and not resume:
        shutil.rmtree(run_dir)  # killed before its first checkpoint: start again
    started = time.time()
    trainer = Trainer(replace(args, resume=resume), progress=False)
    if trainer.step < trainer.total_steps() or not resume:
        with quiet():
            trainer.run()
    final = run_dir / MODELS_DIR / step_dir_name(saved_steps(run_dir)[-1])
    after = sweep(study, args, final, run_dir / "heldout" / final.name, seed)
    files = RunFiles(run_dir)
    result = {
        "arm": arm.name,
        "seed": seed,
        "run_dir": str(run_dir),
        "command": command_line(args),
        "seconds": round(time.time() - started, 1),
        "after": brief(after),
        "before": brief(before) if before else None,
        "curve": curve(files.read("actor_env_metrics.jsonl"), files.read("eval_env_metrics.jsonl")),
        "training": [
            {k: r[k] for k in ("step", "env_id", "mean_episode_success", "complexity", "num_episodes")}
            for r in files.read("actor_env_metrics.jsonl")
        ],
    }
    (run_dir / RESULT).write_text(json.dumps(result, indent=1))
    return result


@contextlib.contextmanager
def quiet():
    """Silence the trainer's and SFT's chatter and progress bars (results come back as data)."""
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield


def brief(summary: dict) -> dict:
    """A sweep summary's numbers the study reads: overall, per level, per game (success and format errors)."""

    def two(stats: dict) -> dict:
        return {"success": stats.get("success_rate", 0.0), "format_errors": stats.get("format_error_rate", 0.0)}

    return {
        "overall": two(summary["overall"]),
        "levels": {str(k): two(v) for k, v in summary["levels"].items()},
        "envs": {k: two(v) for k, v in summary["envs"].items()},
    }


def curve(train: list[dict], evals: list[dict]) -> list[dict]:
    """Held-out success of the online evaluation against the training episodes played before it."""
    played, total = {0: 0}, 0
    for record in sorted(train, key=lambda r: r["step"]):
        total += record["num_episodes"]
        played[record["step"]] = total
    by_step: dict[int, list[float]] = {}
    for record in evals:
        by_step.setdefault(record["step"], []).append(record["accuracy"])
    return [
        {"step": s, "episodes": played.get(s, total), "success": sum(v) / len(v)} for s, v in sorted(by_step.items())
    ]


# -- the study --------------------------------------------------------------------------------------
def run_study(
    study: Study, seeds: list[int], root: Path, jobs: int = 1, on_result: Callable[[dict], None] | None = None
) -> list[dict]:
    """Every (arm, seed) of ``study``, ``jobs`` at a time; warm starts first, one per game set and seed."""
    tasks = [(arm, seed) for seed in seeds for arm in study.arms]
    if jobs <= 1:
        results = []
        for arm, seed in tasks:
            results.append(run_arm(study, arm, seed, root))
            if on_result:
                on_result(results[-1])
        return results
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
        firsts: dict[
            tuple[str, Path] | None, tuple[Arm, int]
        ] = {}  # one arm per distinct warm start first, so no two processes build the same one
        for arm, seed in tasks:
            firsts.setdefault(warm_path(study, arm, seed, root), (arm, seed))
        for future in [pool.submit(warm_start, study, arm, seed, root) for arm, seed in firsts.values()]:
            future.result()
        futures = [pool.submit(run_arm, study, arm, seed, root) for arm, seed in tasks]
        results = []
        for run in futures:
            results.append(run.result())
            if on_result:
                on_result(results[-1])
    return results


def success_of(section: str, key: str, evaluation: dict) -> float:
    """The held-out success an evaluation gives for one level (``section`` "levels") or game ("envs")."""
    return evaluation[section][key]["success"]


def mean_std(values: list[float]) -> tuple[float, float]:
    if not values:
        return float("nan"), float("nan")
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0


def aggregate(study: Study, results: list[dict]) -> dict:
    """Per arm: mean and standard deviation over seeds of every held-out number."""
    arms = {}
    for arm in study.arms:
        runs = [r for r in results if r["arm"] == arm.name]

        def stat(get: Callable[[dict], float], which: str = "after") -> list[float]:
            m, s = mean_std([get(r[which]) for r in runs if r[which]])
            return [m, s]

        arms[arm.name] = {
            "flags": arm.flags,
            "seeds": [r["seed"] for r in runs],
            "success": stat(lambda x: x["overall"]["success"]),
            "format_errors": stat(lambda x: x["overall"]["format_errors"]),
            "before_success": stat(lambda x: x["overall"]["success"], "before"),
            "levels": {
                str(level): stat(partial(success_of, "levels", str(level)))
                for level in study.budget.levels(study.eval_levels)
            },
            "envs": {env_id: stat(partial(success_of, "envs", env_id)) for env_id in study.eval_env_ids},
            "minutes": round(sum(r["seconds"] for r in runs) / 60, 1),
        }
    return arms


def mean_curve(results: list[dict], arm: str) -> list[dict]:
    """The arm's online-evaluation curve averaged over its seeds (episodes and success per evaluation)."""
    runs = [r["curve"] for r in results if r["arm"] == arm and r["curve"]]
    length = min((len(c) for c in runs), default=0)
    return [
        {
            "episodes": sum(c[i]["episodes"] for c in runs) / len(runs),
            "success": sum(c[i]["success"] for c in runs) / len(runs),
        }
        for i in range(length)
    ]


def episodes_to_reach(curve: list[dict], target: float) -> float | None:
    """Training episodes at which ``curve`` first reaches held-out success ``target``, interpolated linearly
    between two evaluations (None: it never does)."""
    for before, after in zip([None, *curve], curve):
        if after["success"] >= target:
            if before is None or after["success"] == before["success"]:
                return after["episodes"]
            share = (target - before["success"]) / (after["success"] - before["success"])
            return before["episodes"] + share * (after["episodes"] - before["episodes"])
    return None


def uptime_load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write_report(
    study: Study,
    results: list[dict],
    seeds: list[int],
    command: str,
    seconds: float,
    load: dict[str, str],
    out: Path,
) -> Path:
    """``results.json``, ``table.md`` and ``figure.png`` of the study in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    arms = aggregate(study, results)
    findings = study.findings(arms, results) if study.findings else {}
    data = {
        "study": study.name,
        "claim": study.claim,
        "command": command,
        "seeds": seeds,
        "budget": asdict(study.budget),
        "eval_env_ids": study.eval_env_ids,
        "eval_levels": study.budget.levels(study.eval_levels),
        "wall_seconds": round(seconds, 1),
        "load_average": load,
        "arms": arms,
        "findings": findings,
        "runs": results,
    }
    (out / "results.json").write_text(json.dumps(data, indent=1))
    notes = "".join(f"\n{key}: {value}\n" for key, value in findings.items())
    (out / "table.md").write_text(table(study, arms, len(seeds)) + notes)
    plot(study, arms, results, out / "figure.png")
    return out


def table(study: Study, arms: dict, n_seeds: int) -> str:
    """Markdown: one row per arm, held-out success mean ± std over seeds, overall and per level or game."""
    key = columns_of(study)
    columns = list(next(iter(arms.values()))[key]) if arms else []
    names = [f"level {c}" for c in columns] if key == "levels" else [c.split(":")[-1] for c in columns]
    lines = [
        f"| arm ({n_seeds} seeds) | warm start | after PERPO | format errors | " + " | ".join(names) + " |",
        "|---" * (4 + len(columns)) + "|",
    ]
    for name, arm in arms.items():
        cells = [f"{m:.2f} ± {s:.2f}" for m, s in (arm["before_success"], arm["success"], arm["format_errors"])]
        cells += [f"{arm[key][c][0]:.2f} ± {arm[key][c][1]:.2f}" for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def columns_of(study: Study) -> str:
    return study.table_by or ("levels" if len(study.eval_levels) > 1 else "envs")


def training_curves(results: list[dict], arm: str) -> dict[str, list[tuple[int, float]]]:
    """Per training game: (step, success while training) of the arm, averaged over its seeds."""
    points: dict[str, dict[int, list[float]]] = {}
    for run in results:
        if run["arm"] == arm:
            for record in run["training"]:
                points.setdefault(record["env_id"], {}).setdefault(record["step"], []).append(
                    record["mean_episode_success"]
                )
    return {env: [(s, sum(v) / len(v)) for s, v in sorted(steps.items())] for env, steps in points.items()}


def plot(study: Study, arms: dict, results: list[dict], path: Path) -> None:
    """Top: held-out success per level (or game) after training, and held-out success against episodes;
    below: success while training, one panel per training game."""
    from gymverse.run.figures import pyplot, save_figure

    plt = pyplot()
    games = sorted({record["env_id"] for run in results for record in run["training"]})
    fig = plt.figure(figsize=(11, 8 if games else 4))
    grid = fig.add_gridspec(2 if games else 1, max(len(games), 2))
    half = max(len(games), 2) // 2
    left, right = fig.add_subplot(grid[0, :half]), fig.add_subplot(grid[0, half:])
    curves = {name: training_curves(results, name) for name in arms}
    for i, game in enumerate(games):
        panel = fig.add_subplot(grid[1, i])
        for name in arms:
            line = curves[name].get(game, [])
            panel.plot([s for s, _ in line], [v for _, v in line], label=name)
        panel.set_title(game, fontsize=9)
        panel.set_xlabel("training step")
        panel.set_ylabel("success while training (sampled)")
        panel.legend(fontsize=7)
    key = columns_of(study)
    columns = list(next(iter(arms.values()))[key]) if arms else []
    for name, arm in arms.items():
        means, stds = zip(*(arm[key][c] for c in columns)) if columns else ((), ())
        left.errorbar(range(len(columns)), means, yerr=stds, marker="o", capsize=3, label=name)
        points = mean_curve(results, name)
        if points:
            right.plot([p["episodes"] for p in points], [p["success"] for p in points], marker=".", label=name)
    left.set_xticks(range(len(columns)), [c.split(":")[-1] for c in columns], rotation=30 if key == "envs" else 0)
    left.set_xlabel("complexity" if key == "levels" else "held-out game")
    left.set_ylabel("held-out success (mean ± std over seeds)")
    right.set_xlabel("training episodes")
    right.set_ylabel("held-out success (online evaluation)")
    left.legend(fontsize=8)
    right.legend(fontsize=8)
    fig.suptitle(textwrap.fill(f"{study.name}: {study.claim}", 150), fontsize=9)
    fig.tight_layout()
    save_figure(fig, path)


# -- the command line every study script shares ---------------------------------------------------------
def main(make_study: Callable[[Budget], Study], argv: list[str] | None = None) -> int:
    """``python -m experiments.<study> [--quick] [--seeds 0 1 2] [--jobs 2] [--steps N] [--root DIR] [--out DIR]``."""
    import argparse

    from gymverse.errors import BadInput

    parser = argparse.ArgumentParser(description=(make_study.__doc__ or "").strip().splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke budget: checks the pipeline, measures nothing; writes everything under experiments-output/quick",
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="training seeds")
    parser.add_argument("--jobs", type=int, default=1, help="runs trained side by side (one CPU core each)")
    parser.add_argument("--root", type=Path, default=None, help="run folders (default experiments-output/)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results.json, table.md, figure.png (default <root>/fig/<study>; fig/experiments/ holds the README's copies)",
    )
    parser.add_argument("--pretrain", default=None, help="model to warm-start (default the built-in tiny)")
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="PERPO steps per run instead of the study's own "
        "(runs go to experiments-output/full-steps<N>, results to experiments-output/full-steps<N>/fig/<study>-steps<N>)",
    )
    options = parser.parse_args(argv)
    study = make_study(QUICK if options.quick else FULL)
    if options.pretrain:
        study.flags = {**study.flags, "pretrain": options.pretrain}
    if options.steps is not None:
        if options.steps < 1:
            print("error: --steps must be >= 1", file=sys.stderr)
            return 2
        study.budget = replace(study.budget, steps=options.steps)
    budget_name = ("quick" if options.quick else "full") + ("" if options.steps is None else f"-steps{options.steps}")
    root = options.root or REPO / "experiments-output" / budget_name
    folder = study.name + ("" if options.steps is None else f"-steps{options.steps}")
    out = options.out or root / "fig" / folder  # never the committed copy in fig/experiments
    if options.jobs < 1 or not options.seeds:
        print("error: --jobs must be >= 1 and --seeds needs at least one seed", file=sys.stderr)
        return 2
    command = " ".join(["python", "-m", f"experiments.{study.name}", *(sys.argv[1:] if argv is None else argv)])
    load = {"start": uptime_load()}
    started = time.time()
    total = len(study.arms) * len(options.seeds)
    done = []

    def report(result: dict) -> None:
        done.append(result)
        after = result["after"]["overall"]["success"]
        print(
            f"[{len(done)}/{total}] {study.name} {result['arm']} seed {result['seed']}: held-out success "
            f"{after:.2f} ({result['seconds']:.0f} s)",
            flush=True,
        )

    try:
        results = run_study(study, options.seeds, root, options.jobs, on_result=report)
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    load["end"] = uptime_load()
    written = write_report(study, results, options.seeds, command, time.time() - started, load, out)
    print((written / "table.md").read_text())
    print(
        f"{study.name}: {time.time() - started:.0f} s, load average {load['start']} -> {load['end']}; "
        f"results in {written}"
    )
    return 0
