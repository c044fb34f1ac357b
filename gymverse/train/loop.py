"""The native PERPO trainer: one process, Hugging Face models, any device (a CPU by default).

Each step plays episodes (one environment per step in ``round_robin``, all of them in ``mixed``),
lets the curriculum move each played environment's complexity, turns every turn's discounted return
into a per-environment normalized advantage, and trains with PPO-clip on the sampled tokens:
``num_ppo_epochs`` passes over the step's turns in optimizer batches of ``train_batch_size`` turns,
accumulated over micro-batches of ``train_batch_size_per_device``. Everything a resumed run needs is
saved with each checkpoint; seeds of the games are derived from (seed, step), so a resumed run
replays exactly what an uninterrupted one would have done.
"""

import json
import random
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gymverse.policy.hf import load_causal_lm
from gymverse.run.checkpoints import (
    MODELS_DIR, load_trainer_state, prune_checkpoints, resolve_run_dir, restore_rng_states, rng_states, run_seed,
    save_checkpoint, save_trainer_state, saved_steps, step_dir_name,
)
from gymverse.run.config import train_env_ids, wrappers_spec
from gymverse.run.curriculum import CurriculumDriver, apply_levels
from gymverse.run.env_table import per_env_advantages
from gymverse.run.files import RunFiles
from gymverse.run.figures import plot_training_curves, print_summary
from gymverse.run.interrupt import StopRequest
from gymverse.run.online_eval import eval_wandb_metrics, online_eval
from gymverse.run.plan import TurnSample, derive_seed, play_until, plan_step, step_samples
from gymverse.run.sft import warm_start
from gymverse.train.args import TrainArgs
from gymverse.train.update import PolicyUpdate, prepare_torch


def advantages_of(samples: list[TurnSample], table, norm_return: bool) -> list[float]:
    """PERPO advantages of one process's batch: returns normalized per environment (``table``: an EnvTable)."""
    return per_env_advantages([s.ret for s in samples], [s.env_id for s in samples], table,
                              normalize=norm_return).tolist()


class Trainer:
    def __init__(self, args: TrainArgs, progress: bool = True) -> None:
        self.args = args
        self.progress = progress
        self.env_ids = train_env_ids(args)
        self.total_steps = args.max_train // args.rollout_batch_size
        self.run_dir = resolve_run_dir(args.save_path, args.wb_run_name, args.resume)
        self.files = RunFiles(self.run_dir)
        self.state = load_trainer_state(self.run_dir) if args.resume else None
        self.seed = run_seed(args, self.state)
        self.step = self.state["step"] if self.state else 0
        self.wandb = None

    # -- setup ----------------------------------------------------------------------------------
    def setup(self) -> None:
        from gymverse.policy.hf import HFPolicy
        from gymverse.policy.tiny import resolve_pretrain
        from gymverse.rollout import make_env_group

        args = self.args
        prepare_torch(args.device, args.cpu_threads, self.seed)
        if self.state:
            start_model, self.reference_path = self.run_dir / self.state["checkpoint"], self.state["reference"]
        else:
            self._write_config()
            start_model = self.reference_path = str(warm_start(
                args, resolve_pretrain(args.pretrain), self.run_dir / "sft_model", self.seed, args.device, self.progress,
            ))
        self.policy = HFPolicy(
            start_model, temperature=args.temperature, top_p=args.top_p, max_model_len=args.max_model_len,
            generate_max_length=args.generate_max_length, device=args.device, seed=self.seed, stop_at_box=True,
        )
        self.model, self.tokenizer = self.policy.model, self.policy.tokenizer
        if args.gradient_checkpointing:  # renamed activation checkpointing in newer transformers
            enable = getattr(self.model, "activation_checkpointing_enable", None)
            (enable or self.model.gradient_checkpointing_enable)()
        self.reference = None
        if args.beta > 0:
            ref_path = resolve_pretrain(args.ref_pretrain) if args.ref_pretrain else self.reference_path
            self.reference = load_causal_lm(ref_path, self.model.dtype, args.device)
            self.reference.eval().requires_grad_(False)
        updates = self.total_steps * PolicyUpdate.updates_per_call(args, args.rollout_batch_size)
        self.update = PolicyUpdate(self.model, self.tokenizer.pad_token_id, args, updates, self.reference)
        self.curriculum = CurriculumDriver.from_config(self.env_ids, args)
        wrappers = wrappers_spec(args.wrappers)
        self.groups = {
            env_id: make_env_group(env_id, args.num_env, wrappers, complexity=args.train_difficulty,
                                   seed=derive_seed(self.seed, k), tokenizer=self.tokenizer, async_mode=args.async_env)
            for k, env_id in enumerate(self.env_ids)
        }
        if self.state:
            self.update.load_state_dict(self.state)
            self.curriculum.load_state_dict(self.state["curriculum"])
            restore_rng_states(self.state["rng"], {"policy": self.policy.generator})
            self.files.truncate(self.state["log_offsets"])
        apply_levels(self.groups, self.curriculum.levels())
        if args.use_wb:
            self.wandb = start_wandb(args, self.run_dir, self.state["wandb_id"] if self.state else None)

    def _write_config(self) -> None:
        config = {**asdict(self.args), "seed": self.seed}
        (self.run_dir / "config.json").write_text(json.dumps(config, indent=1))

    # -- one step -------------------------------------------------------------------------------
    def collect(self, step: int) -> dict[str, list[Any]]:
        """Step ``step``'s episodes, per environment played (see ``gymverse.run.plan``)."""
        from gymverse.rollout import collect_episodes

        args = self.args
        plan = plan_step(self.env_ids, step, args.env_sampling, args.rollout_batch_size, args.keep_generation_failed)

        def play(env_id: str, call: int) -> list[Any]:
            return collect_episodes(
                self.policy, self.groups[env_id], env_id, args.num_env, template=args.prompt_template,
                max_model_len=args.max_model_len, seed=derive_seed(self.seed, step, self.env_ids.index(env_id), call),
            )

        return play_until(plan, play)

    def learn(self, samples: list[TurnSample], advantages: list[float], step: int) -> dict[str, float]:
        return self.update.learn(samples, advantages, random.Random(derive_seed(self.seed, step, 99)))

    def train_step(self, step: int) -> dict[str, Any]:
        args = self.args
        episodes = self.collect(step)
        all_episodes = [e for eps in episodes.values() for e in eps]
        levels = self.curriculum.advance(self.curriculum.table.tally(all_episodes))
        apply_levels(self.groups, levels)
        metrics: dict[str, Any] = {}
        for env_id, eps in episodes.items():
            played_at = eps[0].complexity if eps else None
            metrics[env_id] = self.files.log_env_metrics(step, env_id, eps, played_at, levels[env_id])
            self.files.log_episodes(step, eps)
        if args.dump_experience_every > 0 and step % args.dump_experience_every == 0:
            self.files.save_trajectories(step, all_episodes)
        samples = step_samples(args, all_episodes, args.rollout_batch_size, random.Random(derive_seed(self.seed, step, 98)))
        advantages = advantages_of(samples, self.curriculum.table, args.norm_return)
        stats = self.learn(samples, advantages, step) if samples else {}
        stats["generated_tokens"] = sum(len(t.response_ids) for e in all_episodes for t in e.turns)
        stats["trained_tokens"] = sum(len(s.turn.response_ids) for s in samples) * args.num_ppo_epochs
        stats["episodes"] = len(all_episodes)
        return {"envs": metrics, "train": stats}

    # -- evaluation, checkpoints, logging -------------------------------------------------------
    def evaluate(self, step: int) -> list[dict[str, Any]]:
        records = online_eval(self.policy, self.args, self.seed, self.files, step)
        if self.wandb is not None:
            self.wandb.log(eval_wandb_metrics(records), step=step)
        return records

    def save(self, step: int) -> None:
        args = self.args
        save_checkpoint(self.run_dir, step, self.model, self.tokenizer)
        save_trainer_state(self.run_dir, {
            "step": step,
            "seed": self.seed,
            "checkpoint": f"saved_models/{step_dir_name(step)}",
            "reference": str(self.reference_path),
            **self.update.state_dict(),
            "curriculum": self.curriculum.state_dict(),
            "rng": rng_states({"policy": self.policy.generator}),
            "log_offsets": self.files.offsets(),
            "wandb_id": self.wandb.id if self.wandb is not None else None,
        })
        prune_checkpoints(self.run_dir, args.max_save_num)

    # -- the run --------------------------------------------------------------------------------
    def run(self) -> Path:
        """Train to the end, or until Ctrl-C: the step under way finishes, is saved, and KeyboardInterrupt
        is raised after saying which checkpoint ``--resume`` continues from."""
        try:
            with StopRequest() as stop:
                return self._run(stop)
        except KeyboardInterrupt:
            steps = saved_steps(self.run_dir)
            last = (f"the last checkpoint is {self.run_dir / MODELS_DIR / step_dir_name(steps[-1])} (step {steps[-1]}); "
                    "the same command with --resume continues from it") if steps else "no checkpoint was saved yet"
            print(f"Stopped at step {self.step} of {self.total_steps}: {last}", flush=True)
            raise

    def _run(self, stop: StopRequest) -> Path:
        from tqdm import tqdm

        args = self.args
        self.setup()
        if self.state:
            print(f"Resumed from step {self.step} ({self.run_dir / self.state['checkpoint']})")
        if self.step == 0:
            self.evaluate(0)
        bar = tqdm(total=self.total_steps, initial=self.step, desc="PERPO", disable=not self.progress,
                   dynamic_ncols=True, file=sys.stdout)
        started = time.time()
        while self.step < self.total_steps:
            step = self.step + 1
            result = self.train_step(step)
            self.step = step
            if args.eval_steps > 0 and step % args.eval_steps == 0 and step < self.total_steps:
                self.evaluate(step)
            if step == self.total_steps:
                self.evaluate(step)
            if self.wandb is not None:
                self.wandb.log(_flat_metrics(result), step=step)
            if (args.save_steps > 0 and step % args.save_steps == 0) or step == self.total_steps or stop.requested:
                self.save(step)
                plot_training_curves(self.run_dir)
            bar.update()
            levels = self.curriculum.levels()
            bar.set_postfix_str(" | ".join(
                f"{env_id.split(':')[-1]} {levels[env_id]}:{record['mean_episode_success']:.2f}"
                for env_id, record in result["envs"].items()
            ))
            if stop.requested and step < self.total_steps:
                bar.close()
                raise KeyboardInterrupt
        bar.close()
        if self.wandb is not None:
            self.wandb.finish()
        figure = plot_training_curves(self.run_dir)
        print(f"Run folder: {self.run_dir} ({time.time() - started:.0f} s of training)")
        if figure is not None:
            print(f"Training curves: {figure}")
        print_summary(self.files, self.env_ids)
        return self.run_dir


def start_wandb(args: Any, run_dir: Path, run_id: str | None) -> Any:
    """A Weights & Biases run for ``args`` (offline without an API key); ``run_id`` continues a resumed one."""
    import os

    import wandb

    mode = os.environ.get("WANDB_MODE") or ("online" if os.environ.get("WANDB_API_KEY") else "offline")
    return wandb.init(
        project=args.wb_project, entity=args.wb_org, group=args.wb_group, name=args.wb_run_name, dir=str(run_dir),
        id=run_id, resume="allow", mode=mode, config=asdict(args),
    )


def _flat_metrics(result: dict[str, Any]) -> dict[str, float]:
    flat = {f"train/{key}": value for key, value in result["train"].items()}
    for env_id, record in result["envs"].items():
        for key in ("mean_episode_success", "mean_episode_len", "mean_episode_return", "complexity"):
            flat[f"actor/{env_id}/{key}"] = record[key]
    return flat
