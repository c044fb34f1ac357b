"""The co-evolution loop behind ``gymverse genenv``: an agent and an environment policy trained in turn.

Each step the agent trains (games: PERPO on the episodes of the tasks just written; datasets: GRPO on a
batch of the dataset), and the environment phase (every step, or once per epoch with ``--alternate
epoch``) scores what the environment policy wrote by the agent's success ``p`` and updates it with the
same PPO step (:class:`gymverse.train.update.PolicyUpdate`), its advantages normalized over the tasks of
one environment prompt. It stands on the run core: run folder, logs, checkpoints and resume as the PERPO
trainer's.

The run folder ``<save_path>/<wb_run_name>`` holds ``genenv_metrics.jsonl`` (one line per step),
``generated_tasks.jsonl`` (every task written, valid or not, with its reason, ``p`` and ``R_env``),
``episode_details.jsonl`` (games), ``eval_env_metrics.jsonl`` and ``eval_results/`` (games: the PERPO trainer's
online evaluation, ``--eval_*`` flags), ``eval_metrics.jsonl`` (datasets with ``--val_files``),
``data/train_epoch_XXX.parquet`` (datasets), Hugging Face checkpoints of the agent in ``saved_models/``
and of the environment policy in ``env_policy/saved_models/``, ``trainer_state.pt`` and
``figures/genenv_curves.png``.
"""

import json
import random
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gymverse.genenv.config import GenEnvArgs
from gymverse.genenv.prompts import CURRICULUM, UNIFORM, warm_start_pairs
from gymverse.genenv.rewards import env_reward_fn
from gymverse.genenv.scoring import WrittenTask, group_advantages, score, summary
from gymverse.genenv.sides import Side, env_settings, load_side, prompt_text
from gymverse.run.checkpoints import (
    load_trainer_state, prune_checkpoints, resolve_run_dir, restore_rng_states, rng_states, run_seed,
    save_checkpoint, save_trainer_state, step_dir_name,
)
from gymverse.run.files import RunFiles
from gymverse.run.online_eval import eval_wandb_metrics, evaluation_copy, online_eval
from gymverse.run.plan import derive_seed
from gymverse.train.update import PolicyUpdate, prepare_torch

LOGS = ("genenv_metrics.jsonl", "generated_tasks.jsonl", "eval_metrics.jsonl")
ENV_DIR = "env_policy"
ENV_SFT_FOR_TINY = 800


class GenEnvRun:
    def __init__(self, args: GenEnvArgs, progress: bool = True) -> None:
        self.args, self.progress = args, progress
        self.run_dir = resolve_run_dir(args.save_path, args.wb_run_name, args.resume)
        self.files = RunFiles(self.run_dir, extra_logs=LOGS)
        self.state = load_trainer_state(self.run_dir) if args.resume else None
        self.seed = run_seed(args, self.state)
        self.step = self.state["step"] if self.state else 0
        self.reward_fn = env_reward_fn(args.env_reward, args.alpha, args.env_beta)
        self.pending: list[Any] = []  # the environment policy's samples waiting for the epoch's update
        self.wandb = None

    # -- setup ----------------------------------------------------------------------------------
    def setup(self) -> None:
        from gymverse.genenv.dataset_space import DatasetSpace
        from gymverse.genenv.game_space import GameSpace

        args = self.args
        prepare_torch(args.device, args.cpu_threads, self.seed)
        games = args.task_space == "games"
        self.space = GameSpace(args, self.seed) if games else DatasetSpace(args, self.seed)
        if not self.state:
            (self.run_dir / "config.json").write_text(json.dumps({**asdict(args), "seed": self.seed}, indent=1))
        agent_start, env_start = self._starts()
        self.starts = {"agent": agent_start, "env": env_start}
        self.reference_path = self.state["reference"] if self.state else agent_start
        steps = self.space.total_steps() if games else args.total_epochs * self.space.steps_in_epoch()
        agent_updates = steps * PolicyUpdate.updates_per_call(args, args.rollout_batch_size if games else
                                                             args.prompts_per_step * args.attempts)
        self.agent = load_side("agent", agent_start, args, agent_updates, True, args.prompt_template, self.seed,
                               stop_at_box=games, reference=self.reference_path)
        if not games:
            self.space.use_reward_manager(self.agent.tokenizer)
        settings = env_settings(args)
        env_tasks = args.env_prompts_per_step * args.num_generations_per_prompt
        self.env = None if env_start is None else load_side(
            "environment", env_start, settings, steps * PolicyUpdate.updates_per_call(settings, env_tasks),
            args.env_train, args.env_prompt_template, derive_seed(self.seed, 21),
        )
        if self.state:
            self.agent.load_state_dict(self.state["agent"])
            if self.env is not None:
                self.env.load_state_dict(self.state["env"])
            self.space.load_state_dict(self.state["space"])
            self.pending = self.state["pending"]
            restore_rng_states(self.state["rng"])
            self.files.truncate(self.state["log_offsets"])
        if args.use_wb:
            from gymverse.train.loop import start_wandb

            self.wandb = start_wandb(args, self.run_dir, self.state["wandb_id"] if self.state else None)

    def _starts(self) -> tuple[str, str | None]:
        """What the agent and the environment policy start from: on resume what the state names, else their
        specs, warm-started when they are the untrained tiny model (None: no environment model is used)."""
        from gymverse.policy.tiny import TINY, resolve_pretrain
        from gymverse.run.sft import warm_start

        args = self.args
        if self.state:
            return self._saved_model("agent"), self._saved_model("env")
        agent = args.pretrain
        if args.task_space == "games" and (args.pretrain == TINY or Path(args.pretrain).is_dir()):
            agent = str(warm_start(args, resolve_pretrain(args.pretrain), self.run_dir / "sft_model", self.seed,
                                   args.device, self.progress))
        if not args.genenv_enable or (args.task_space == "games" and args.env_model in (UNIFORM, CURRICULUM)):
            return agent, None
        episodes = args.env_sft_episodes if args.env_sft_episodes >= 0 else (
            ENV_SFT_FOR_TINY if args.env_model == TINY else 0)
        if args.task_space == "games" and episodes > 0:
            return agent, str(warm_start_environment(args, self.space.infos, episodes, self.run_dir / "env_sft_model",
                                                     self.seed, self.progress))
        return agent, args.env_model

    def _saved_model(self, side: str) -> str | None:
        """The model a saved state names for ``side``: a checkpoint in the run folder, or a spec."""
        saved = self.state["models"][side]
        if saved is None:
            return None
        kind, where = saved
        return str(self.run_dir / where) if kind == "checkpoint" else where


    # -- one step -------------------------------------------------------------------------------
    def train_step(self, step: int) -> dict[str, Any]:
        return self._games_step(step) if self.args.task_space == "games" else self._datasets_step(step)

    def _games_step(self, step: int) -> dict[str, Any]:
        space = self.space
        tasks = space.write(self.env, step)
        episodes = space.attempt(self.agent, tasks)
        self.files.log_episodes(step, episodes)
        samples, advantages = space.agent_batch(episodes, step)
        agent_stats = self.agent.learn(samples, advantages, random.Random(derive_seed(self.seed, step, 99)))
        record = {"epoch": space.epoch_of(step), **space.agent_metrics(tasks, episodes)}
        env_stats = self._environment_phase(step, tasks, space.record, space.env_updates_now(step))
        return {**record, **env_stats, "agent_update": agent_stats}

    def _datasets_step(self, step: int) -> dict[str, Any]:
        space = self.space
        samples, advantages, record = space.agent_step(self.agent, step)
        agent_stats = self.agent.learn(samples, advantages, random.Random(derive_seed(self.seed, step, 99)))
        result = {**record, "agent_update": agent_stats}
        if space.env_phase_now():
            tasks = space.write(self.env, step)
            space.attempt(self.agent, tasks)
            result.update(self._environment_phase(step, tasks, space.record, True))
            result["rejection_rate"] = space.rejections / len(tasks) if tasks else 0.0
            result["added_tasks"] = space.adopt(tasks)
            result["dataset_size"] = len(space.rows)
        space.end_step(self.run_dir)
        return result

    def _environment_phase(self, step: int, tasks: list[WrittenTask], record, update_now: bool) -> dict[str, Any]:
        """Score the written tasks, log them, and update the environment policy when it is time."""
        args = self.args
        self.pending += score(tasks, self.reward_fn, args.invalid_reward, args.alpha, args.k_min, args.band_filter)
        for task in tasks:
            self.files.append("generated_tasks.jsonl", record(step, task))
        env_stats: dict[str, Any] = {}
        if update_now:
            if self.env is not None and self.env.trainable:
                env_stats = self.env.learn(self.pending, group_advantages(self.pending),
                                           random.Random(derive_seed(self.seed, step, 97)))
            self.pending = []
        return {**summary(tasks), "env_update": env_stats}

    # -- evaluation, checkpoints, logging -------------------------------------------------------
    def evaluate(self, step: int) -> None:
        """games: the PERPO trainer's online evaluation; datasets with --val_files: the agent's mean reward on the
        validation set."""
        if self.args.task_space == "games":
            records = online_eval(self.agent.policy, self.args, self.seed, self.files, step)
            if self.wandb is not None:
                self.wandb.log(eval_wandb_metrics(records), step=step)
            return
        judge = self.agent
        if hasattr(self.agent.policy, "generator"):  # a model: the eval temperature; answers keep their full length
            policy = evaluation_copy(self.agent.policy, self.seed, temperature=self.args.eval_temperature)
            judge = Side("judge", policy, None, self.agent.template)
        result = self.space.evaluate(judge)
        if result is not None:
            self.files.append("eval_metrics.jsonl", {"step": step, **result})

    def save(self, step: int) -> None:
        args = self.args
        models = {}
        for name, side, folder in (("agent", self.agent, self.run_dir), ("env", self.env, self.run_dir / ENV_DIR)):
            if side is not None and side.trainable:
                save_checkpoint(folder, step, side.policy.model, side.tokenizer)
                models[name] = ("checkpoint", str((folder / "saved_models" / step_dir_name(step)).relative_to(self.run_dir)))
            else:
                models[name] = None if side is None else ("spec", self.starts[name])
        save_trainer_state(self.run_dir, {
            "step": step,
            "seed": self.seed,
            "models": models,
            "reference": str(self.reference_path),
            "agent": self.agent.state_dict(),
            "env": self.env.state_dict() if self.env is not None else {},
            "space": self.space.state_dict(),
            "pending": self.pending,
            "rng": rng_states(),
            "log_offsets": self.files.offsets(),
            "wandb_id": self.wandb.id if self.wandb is not None else None,
        })
        prune_checkpoints(self.run_dir, args.max_save_num)
        prune_checkpoints(self.run_dir / ENV_DIR, args.max_save_num)

    def finished(self) -> bool:
        if self.args.task_space == "games":
            return self.space.finished(self.step)
        return self.space.finished()

    def bar_position(self) -> int:
        """Progress: episodes played with --max_agent_episodes (at most the budget), else steps."""
        budget = self.args.max_agent_episodes
        return min(self.space.played, budget) if budget else self.step

    # -- the run --------------------------------------------------------------------------------
    def run(self) -> Path:
        from tqdm import tqdm

        from gymverse.genenv.figures import plot_genenv

        args = self.args
        self.setup()
        if self.step == 0:
            self.evaluate(0)
        budget = args.max_agent_episodes
        total = budget or (self.space.total_steps() if args.task_space == "games" else None)
        bar = tqdm(total=total, initial=self.bar_position(), desc="GenEnv", unit=" episodes" if budget else " steps",
                   disable=not self.progress, dynamic_ncols=True, file=sys.stdout)
        started = time.time()
        while not self.finished():
            step = self.step + 1
            result = self.train_step(step)
            self.step = step
            self.files.append("genenv_metrics.jsonl", {"step": step, **result})
            done = self.finished()
            if (args.eval_steps > 0 and step % args.eval_steps == 0) or done:
                self.evaluate(step)
            if self.wandb is not None:
                self.wandb.log(flat_metrics(result), step=step)
            if (args.save_steps > 0 and step % args.save_steps == 0) or done:
                self.save(step)
            bar.update(self.bar_position() - bar.n)
            bar.set_postfix_str(f"R_env {result.get('mean_r_env', 0):.2f} band {result.get('band_fraction', 0):.2f} "
                                f"agent {result.get('agent_success') or 0:.2f}")
        bar.close()
        if budget and self.space.played < budget:
            print(f"Stopped early at step {self.step}: the environment policy wrote no valid task in "
                  f"{args.steps_per_epoch} steps in a row; the agent played {self.space.played} of the "
                  f"{budget} episodes of --max_agent_episodes")
        if self.wandb is not None:
            self.wandb.finish()
        figure = plot_genenv(self.run_dir)
        print(f"Run folder: {self.run_dir} ({time.time() - started:.0f} s)")
        if figure is not None:
            print(f"GenEnv curves: {figure}")
        return self.run_dir


def warm_start_environment(args: GenEnvArgs, infos: dict, count: int, out: Path, seed: int,
                           progress: bool = True) -> Path:
    """SFT of ``--env_model`` on ``count`` uniformly random valid specs of the games ``infos`` describes, saved to
    ``out`` (with the agent's --sft_epochs, --sft_batch_size and --sft_learning_rate)."""
    from gymverse.policy.tiny import resolve_pretrain
    from gymverse.run.sft import fit_and_save

    pairs = warm_start_pairs(infos, count, derive_seed(seed, 22))
    result = fit_and_save(resolve_pretrain(args.env_model), lambda tokenizer: [
        (prompt_text(args.env_prompt_template, content, tokenizer), spec) for content, spec in pairs
    ], args, out, seed, args.device, progress)
    print(f"Environment warm start: SFT on {result.pairs} random valid specs, "
          f"loss {result.first_loss:.3f} -> {result.last_loss:.3f}")
    return Path(out)


def flat_metrics(result: dict[str, Any]) -> dict[str, float]:
    """The numbers of a step's record, for wandb (``env_update/loss``, ``agent_update/loss``, ...)."""
    flat = {}
    for key, value in result.items():
        if isinstance(value, dict) and key.endswith("_update"):
            flat.update({f"{key}/{k}": v for k, v in value.items()})
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            flat[f"genenv/{key}"] = value
    return flat
