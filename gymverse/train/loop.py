"""The native PERPO trainer: one process, Hugging Face models, any device (a CPU by default).

Each step is the run core's PERPO agent step (``gymverse.run.agent_step``): it plays episodes (one
environment per step in ``round_robin``, all of them in ``mixed``), lets the curriculum move each played
environment's complexity, turns every turn's discounted return into a per-environment normalized advantage,
and trains with PPO-clip on the sampled tokens: ``num_ppo_epochs`` passes over the step's turns in optimizer
batches of ``train_batch_size`` turns, accumulated over micro-batches of ``train_batch_size_per_device``.
This module supplies the games (env groups, played by the step's plan) and the logs. The run loop
(``gymverse.run.loop``) does the rest: resume, evaluation and save cadence, Ctrl-C. Seeds of the games are
derived from (seed, step), so a resumed run replays exactly what an uninterrupted one would have done.
"""

from pathlib import Path
from typing import Any

from gymverse.curriculum import CurriculumDriver, apply_levels
from gymverse.policy.hf import load_causal_lm
from gymverse.run.agent_step import AgentStep
from gymverse.run.before_after import (
    before_after,
    curriculum_path,
    print_before_after,
    save_results,
    table_workers,
)
from gymverse.run.checkpoints import save_checkpoint, step_dir_name
from gymverse.run.config import train_env_ids, wrappers_spec
from gymverse.run.env_table import EnvTable
from gymverse.run.eval_plan import eval_metrics, eval_plan
from gymverse.run.figures import plot_training_curves, print_summary
from gymverse.run.loop import RunLoop
from gymverse.run.online_eval import online_eval
from gymverse.run.plan import group_seeds, plan_step, play_until, step_env_ids
from gymverse.run.sft import warm_start
from gymverse.run.update import PolicyUpdate
from gymverse.seeds import Purpose, derive_seed
from gymverse.train.args import TrainArgs


class Trainer(RunLoop):
    name = "PERPO"
    args: TrainArgs

    def __init__(self, args: TrainArgs, progress: bool = True) -> None:
        super().__init__(args, progress)
        self.env_ids = train_env_ids(args)

    def total_steps(self) -> int:
        return self.args.max_train // self.args.rollout_batch_size

    def finished(self) -> bool:
        return self.step >= self.total_steps()

    # -- models and games -----------------------------------------------------------------------
    def build(self) -> None:
        from gymverse.env.groups import make_env_group
        from gymverse.policy import Sampling, sampling_flags
        from gymverse.policy.hf import HFPolicy
        from gymverse.policy.tiny import resolve_pretrain

        args = self.args
        if self.state:
            start_model, self.reference_path = self.run_dir / self.state["checkpoint"], self.state["reference"]
        else:
            start_model = self.reference_path = str(
                warm_start(
                    args,
                    resolve_pretrain(args.pretrain),
                    self.run_dir / "sft_model",
                    self.seed,
                    args.device,
                    self.progress,
                )
            )
        self.sampling = Sampling(**sampling_flags(args), seed=self.seed, stop_at_box=True)
        self.policy = HFPolicy(start_model, self.sampling, device=args.device)
        self.model, self.tokenizer = self.policy.model, self.policy.tokenizer
        if args.gradient_checkpointing:  # renamed activation checkpointing in newer transformers
            enable = getattr(self.model, "activation_checkpointing_enable", None)
            (enable or self.model.gradient_checkpointing_enable)()
        self.reference = None
        if args.beta > 0:
            ref_path = resolve_pretrain(args.ref_pretrain) if args.ref_pretrain else self.reference_path
            self.reference = load_causal_lm(ref_path, self.model.dtype, args.device)
            self.reference.eval().requires_grad_(False)
        updates = self.total_steps() * PolicyUpdate.updates_per_call(args, args.rollout_batch_size)
        self.update = PolicyUpdate(
            self.model, self.tokenizer.pad_token_id, args, args, updates, self.reference, args.kl_loss_type
        )
        self.curriculum = CurriculumDriver.from_config(self.env_ids, args, args.seed)
        self.table = EnvTable(self.env_ids)
        self.agent_step = AgentStep(args, self.table, self.update.learn, self.seed, args.max_idle_steps)
        wrappers = wrappers_spec(args.wrappers)
        self.groups = {
            env_id: make_env_group(
                env_id,
                args.num_env,
                wrappers,
                complexity=args.train_difficulty,
                seed=derive_seed(self.seed, Purpose.TRAIN_ENVS, k),
                tokenizer=self.tokenizer,
                async_mode=args.async_env,
            )
            for k, env_id in enumerate(self.env_ids)
        }
        apply_levels(self.groups, self.curriculum.levels())

    # -- one step -------------------------------------------------------------------------------
    def collect(self, step: int) -> dict[str, list[Any]]:
        """Step ``step``'s episodes, per environment played (see ``gymverse.run.plan``)."""
        from gymverse.episodes import collect_episodes

        args = self.args
        plan = plan_step(self.env_ids, step, args.env_sampling, args.rollout_batch_size, args.keep_generation_failed)

        def play(env_id: str, call: int) -> list[Any]:
            return collect_episodes(
                self.policy,
                self.groups[env_id],
                env_id,
                args.num_env,
                template=args.prompt_template,
                max_model_len=args.max_model_len,
                seed=group_seeds(
                    derive_seed(self.seed, Purpose.TRAIN_GAMES, step, self.env_ids.index(env_id), call),
                    args.num_env,
                    args.group_size,
                ),
            )

        return play_until(plan, play)

    def train_step(self, step: int) -> dict[str, Any]:
        played = self.agent_step(
            step,
            play=lambda: [e for eps in self.collect(step).values() for e in eps],
            advance=lambda success_rates: apply_levels(self.groups, self.curriculum.advance(success_rates)),
            record=lambda episodes: self.log_played(step, episodes),
        )
        stats = played.stats
        stats["generated_tokens"] = sum(len(t.response_ids) for e in played.episodes for t in e.turns)
        stats["trained_tokens"] = sum(len(s.turn.response_ids) for s in played.samples) * self.args.num_ppo_epochs
        stats["episodes"] = len(played.episodes)
        return {"envs": played.record, "train": stats}

    def log_played(self, step: int, episodes: list[Any]) -> dict[str, Any]:
        """Log step ``step``'s episodes (with each environment's level after the step); each one's metrics."""
        args, levels = self.args, self.curriculum.levels()
        metrics: dict[str, Any] = {}
        for env_id in step_env_ids(self.env_ids, step, args.env_sampling):
            eps = [e for e in episodes if e.env_id == env_id]
            played_at = eps[0].complexity if eps else None
            metrics[env_id] = self.files.log_env_metrics(step, env_id, eps, played_at, levels[env_id])
            self.files.log_episodes(step, eps)
        if args.dump_experience_every > 0 and step % args.dump_experience_every == 0:
            self.files.save_trajectories(step, episodes)
        return metrics

    # -- evaluation, checkpoints, state ---------------------------------------------------------
    def evaluate(self, step: int) -> dict[str, float]:
        return eval_metrics(online_eval(self.policy, self.args, self.seed, self.files, step), eval_plan(self.args))

    def save_models(self, step: int) -> dict[str, Any]:
        save_checkpoint(self.run_dir, step, self.model, self.tokenizer)
        return {"checkpoint": f"saved_models/{step_dir_name(step)}"}

    def state_dict(self) -> dict[str, Any]:
        return {
            "reference": str(self.reference_path),
            **self.update.state_dict(),
            "curriculum": self.curriculum.state_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.update.load_state_dict(state)
        self.curriculum.load_state_dict(state["curriculum"])
        apply_levels(self.groups, self.curriculum.levels())

    def generators(self) -> dict[str, Any]:
        return {"policy": self.policy.generator}

    # -- what the run shows ---------------------------------------------------------------------
    def postfix(self, result: dict[str, Any]) -> str:
        levels = self.curriculum.levels()
        return " | ".join(
            f"{env_id.split(':')[-1]} {levels[env_id]}:{record['mean_episode_success']:.2f}"
            for env_id, record in result["envs"].items()
        )

    def wandb_metrics(self, result: dict[str, Any]) -> dict[str, float]:
        flat = {f"train/{key}": value for key, value in result["train"].items()}
        for env_id, record in result["envs"].items():
            for key in ("mean_episode_success", "mean_episode_len", "mean_episode_return", "complexity"):
                flat[f"actor/{env_id}/{key}"] = record[key]
        return flat

    def plot(self) -> Path | None:
        return plot_training_curves(self.run_dir)

    def report(self) -> None:
        if self.args.before_after_n <= 0:
            print_summary(self.files, self.env_ids)
            return
        from gymverse.policy.hf import HFPolicy

        metrics = self.files.read("actor_env_metrics.jsonl")
        paths = {env_id: curriculum_path(metrics, env_id) for env_id in self.env_ids}
        start = HFPolicy(self.reference_path, self.sampling, device=self.args.device)
        jailed = bool(self.args.env_dir) and not self.args.trusted
        jobs = table_workers(self.args.jobs, self.args.device, jailed)
        rows = before_after(
            start, self.policy, self.args, self.args.before_after_n, self.seed, paths, self.progress, jobs
        )
        print_before_after(rows)
        print(f"Table: {save_results(self.run_dir, rows)}")
