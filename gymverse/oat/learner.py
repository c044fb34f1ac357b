"""The OAT learner: PPO on the actors' turns with PERPO's per-environment advantages, owner of the curriculum.

* Advantages: each turn's return (the transition's ``turn_return``, from the environment its ``env_id``
  names), normalized with its environment's mean and std over the learning batch of *all* ranks (moments
  summed per environment with one all-reduce), not one global mean.
* Curriculum: after every step, group rank 0 collects each actor's tally, the ranks sum them, rank 0
  advances the one curriculum, and the levels it chose are broadcast and sent to every actor.
* Evaluation: the native trainer's plan (``gymverse.run.eval_plan``: the same games, cells and metric names),
  each cell's ``--eval_n`` episodes shared by the actors; every rank returns the same metric keys.
* Run folder: besides the actors' lines, ``config.json``, the curriculum state and the training curves
  (``figures/training_curves.png``, after each evaluation and at the end).
"""

import functools
import json
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from oat.algorithms.ppo import PPOLearner
from oat.utils.ops import masked_sum
from torch.utils.data import Dataset
from typing_extensions import override

from gymverse.curriculum import CurriculumDriver
from gymverse.oat.records import GameTransitionDataset
from gymverse.oat.settings import prompt_slots
from gymverse.run.checkpoints import ResumePoint, resume_point, save_run_state
from gymverse.run.config import train_env_ids
from gymverse.run.env_table import TALLY_COLUMNS, EnvTable, per_env_advantages
from gymverse.run.eval_plan import eval_metrics, eval_plan, eval_rounds, metric_keys
from gymverse.run.figures import plot_training_curves
from gymverse.run.files import RunFiles
from gymverse.run.finite import require_finite


class PromptSlots(Dataset):
    """OAT's learner loop walks a prompt dataset; the games need no prompts, so each item is an empty
    slot (how many: :func:`gymverse.oat.settings.prompt_slots`)."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[str, str, str]:
        return "", "", ""


class Learner(PPOLearner):
    save_path: str  # OAT's run folder, or the resumed run's (continue_run)

    @override
    def _init(self, args, actors):
        super()._init(args, actors)
        if args.critic_type == "drgrpo" and args.length_norm_constant:
            self.masked_aggregator = functools.partial(masked_sum, constant_normalizer=args.length_norm_constant)
        self.dataset_builder = GameTransitionDataset
        self.curriculum = CurriculumDriver.from_config(train_env_ids(args), args, args.seed)  # advanced by rank 0 only
        self.table = EnvTable(train_env_ids(args))
        self.trajectory = {}  # the batch being learned (OAT's learning_step hands on only its rewards)
        self.step_offset = 0  # steps of the run before this process started (a resumed run)
        if args.resume_dir:
            self.continue_run(resume_point(args.resume_dir, args.resume_tag))
        self.run_files = None
        if self.strategy.is_rank_0():
            self.run_files = RunFiles(self.save_path)
            config = json.dumps(vars(args), indent=1, default=str)  # algo is an enum by now
            (Path(self.save_path) / "config.json").write_text(config)
        self.share_levels(self.curriculum.levels() if self.strategy.is_rank_0() else None)

    def continue_run(self, point: ResumePoint) -> None:
        """Go on with the resumed run: its folder (not the new one OAT made), step count, query count and
        curriculum, as saved with the checkpoint OAT loads; log lines of later steps are dropped."""
        if self.strategy.is_rank_0():
            shutil.rmtree(self.save_path, ignore_errors=True)  # OAT's fresh, still empty, timestamped folder
            RunFiles(point.run_dir).keep_through(point.step)
        self.save_path = str(point.run_dir)
        self.step_offset, self.query_step = point.step, point.query_step
        self.curriculum.load_state_dict(point.curriculum)
        if self.strategy.is_group_rank_0():
            for future in [actor.futures.continue_run(self.save_path, point.step) for actor in self.actors]:
                future.result()
        self.strategy.print(f"Resumed from step {point.step} ({point.checkpoint}); the run goes on in {self.save_path}")

    @property
    def run_step(self) -> int:
        """The step being played or trained, counted over the whole run (resumes included)."""
        return self.steps + self.step_offset

    @override
    def prepare_data(self, strategy, tokenizer):
        self.prompts_dataset = PromptSlots(prompt_slots(self.args))
        self.eval_prompts_dataset = PromptSlots(1)
        self.prompts_dataloader = strategy.setup_dataloader(
            self.prompts_dataset,
            strategy.args.rollout_batch_size_per_device,
            shuffle=False,
        )
        self.eval_prompts_dataloader = strategy.setup_dataloader(
            self.eval_prompts_dataset,
            1,
            shuffle=False,
            drop_last=False,
        )

    @override
    def process_feedback_data(self, data_list):
        self.pi_buffer.extend(data_list)
        if self.args.dump_all_buffer:
            self.all_buffer.extend(data_list)
        self.query_step += len(data_list)
        levels = self.advance_curriculum()
        self.actor_info.update({f"curriculum/{env_id}": level for env_id, level in levels.items()})

    def advance_curriculum(self) -> dict[str, int]:
        """One curriculum step from every actor's episodes; every actor gets the resulting levels."""
        tally = np.zeros((len(self.table.env_ids), len(TALLY_COLUMNS)))
        if self.strategy.is_group_rank_0():
            for future in [actor.futures.take_tally(self.run_step) for actor in self.actors]:
                tally += future.result()
        tally = self.sum_across_ranks(tally)
        levels = None
        if self.strategy.is_rank_0():
            levels = self.curriculum.advance(self.table.success_rates(tally))
        return self.share_levels(levels, self.run_step)

    def share_levels(self, levels: dict[str, int] | None, step: int = 0) -> dict[str, int]:
        """Rank 0's ``levels`` after step ``step`` (None elsewhere) to every rank, and from each group's rank 0
        to its actors."""
        driver = self.curriculum
        chosen = driver.levels_to_array(levels) if levels is not None else np.zeros(len(self.table.env_ids))
        levels = driver.levels_from_array(self.strategy.broadcast(torch.from_numpy(chosen)).numpy())
        if self.strategy.is_group_rank_0():
            for future in [actor.futures.apply_levels(levels, step) for actor in self.actors]:
                future.result()
        return levels

    def sum_across_ranks(self, array: np.ndarray) -> np.ndarray:
        return self.strategy.all_reduce(torch.from_numpy(array), op="sum").numpy()

    @override
    def learning_step(self, trajectory):
        self.trajectory = trajectory
        return super().learning_step(trajectory)

    @override
    def compute_monte_carlo_advantages(self, rewards, response_masks):
        del response_masks
        env_ids = self.trajectory["env_ids"]
        returns = torch.tensor(self.trajectory["turn_returns"], dtype=rewards.dtype, device=rewards.device)
        returns = returns * self.args.reward_scale  # as OAT scales the reward it puts on the reply's last token
        if self.args.kl_penalty_coef > 0:
            # OAT adds a KL reward to every token: the sum of its rewards, the scaled return and those, is normalized
            returns = rewards.sum(-1)
        require_finite("return", returns.tolist(), env_ids)
        advantages = per_env_advantages(
            returns.detach().cpu().numpy(),
            env_ids,
            self.table,
            self.sum_across_ranks,
            normalize=self.args.norm_return,
        )
        require_finite("advantage", list(advantages), env_ids)
        return torch.as_tensor(advantages, dtype=returns.dtype, device=returns.device)

    @override
    def evaluate(self, dataloader, steps):
        del dataloader  # evaluation plays games, not prompts
        self._pre_evaluate()
        plan = eval_plan(self.args)
        metrics = dict.fromkeys(metric_keys(plan), 0.0)
        if self.strategy.is_rank_0():
            played = defaultdict(lambda: defaultdict(list))
            for shares in eval_rounds(plan, len(self.actors)):
                # one call per actor at a time: an actor's engine generates for one caller
                futures = [(share.cell, self.actors[share.actor].futures.play_eval(share)) for share in shares]
                for cell, future in futures:
                    played[cell.env_id][cell.level] += future.result()
            records = [
                r for env_id, by_level in played.items() for r in self.run_files.log_eval(steps, env_id, by_level)
            ]
            metrics = eval_metrics(records, plan)
            plot_training_curves(self.save_path)
        dist.barrier()
        metrics = self.strategy.broadcast(metrics)
        self._post_evaluate()
        return metrics

    @override
    def eval_and_log(self, train_info, eval=False, save=False):
        if self.steps == 0 and self.step_offset:
            return  # OAT's evaluation before training: a resumed run did it when it started
        self.steps += self.step_offset  # OAT counts from 1 in every process; tags and logs count the whole run
        try:
            super().eval_and_log(train_info, eval=eval, save=save)
            checkpoint = Path(self.save_path) / "checkpoints" / f"step_{self.steps:05d}"
            if self.strategy.is_rank_0() and self.args.save_ckpt and checkpoint.is_dir():
                save_run_state(checkpoint, self.steps, self.query_step, self.curriculum.state_dict())
            if save and self.strategy.is_rank_0():  # OAT asks to save at the end of the run
                plot_training_curves(self.save_path)
        finally:
            self.steps -= self.step_offset
