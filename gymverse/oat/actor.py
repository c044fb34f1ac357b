"""The OAT actor: plays multi-turn GymVerse episodes with its vLLM engine and sends the turns to a learner.

Each ``step`` plays the step's environments (``--env_sampling``) on this actor's env groups until
the trainable episodes hold ``--rollout_batch_size_per_device`` turns, logs them (with this actor's
id), and returns exactly that many turn records. The curriculum is not decided here: the learner
collects every actor's tally (:meth:`Actor.take_tally`) and sends back the next level of each game
(:meth:`Actor.apply_levels`), which is set on every copy through wrappers and vector envs.
"""

import logging
import random
from typing import Any

import numpy as np
import vllm
from oat.algorithms.ppo import PPOActor
from typing_extensions import override

from gymverse.curriculum import apply_levels
from gymverse.env.groups import make_env_group
from gymverse.episodes import Episode, collect_episodes
from gymverse.oat.actor_policy import ActorPolicy
from gymverse.oat.ledger import ActorLedger
from gymverse.oat.records import GameTransition
from gymverse.oat.settings import global_actor_id
from gymverse.oat.transitions import play_step
from gymverse.run.config import train_env_ids, wrappers_spec
from gymverse.run.env_table import EnvTable
from gymverse.run.eval_plan import EvalShare
from gymverse.run.files import RunFiles
from gymverse.run.prepare import register_env_dirs
from gymverse.seeds import actor_envs_seed, actor_seed


class Actor(PPOActor):
    @override
    def init(self, actor_id, save_path):
        super().init(global_actor_id(self.args, actor_id), save_path)  # ids unique over --num_groups
        actor_id = self.actor_id
        args = self.args
        register_env_dirs(args, log=logging.warning)  # --env_dir games, in this process too

        def sampling(temperature: float, top_p: float, top_k: int, max_tokens: int) -> Any:
            return vllm.SamplingParams(
                temperature=temperature, top_p=top_p, top_k=top_k, max_tokens=max_tokens, n=1, logprobs=1
            )

        self.sampling_params = sampling(args.temperature, args.top_p, args.top_k, args.generate_max_length)
        self.eval_sampling_params = sampling(
            args.eval_temperature, args.eval_top_p, args.eval_top_k, args.eval_generate_max_length
        )
        self.policy = ActorPolicy(self.sample, self.tokenizer)
        # Episodes whose prompt outgrows the context end as failures instead of failing the engine.
        self.max_model_len = args.max_model_len or self.llm.llm_engine.model_config.max_model_len
        self.table = EnvTable(train_env_ids(args))
        self.env_groups = {
            env_id: make_env_group(
                env_id,
                args.num_env,
                wrappers_spec(args.wrappers),
                complexity=args.train_difficulty,
                seed=actor_envs_seed(args.seed, actor_id, i, len(self.table.env_ids), args.num_env),
                tokenizer=self.tokenizer,
                async_mode=args.async_env,
            )
            for i, env_id in enumerate(self.table.env_ids)
        }
        self.eval_groups = {}  # evaluation cell -> its env group, built at first use
        self.ledger = ActorLedger(self.table, RunFiles(save_path, actor_id=actor_id), args.dump_experience_every)
        self.rng = random.Random(actor_seed(args.seed, actor_id))
        self.step_count = 0

    def sample(self, prompts: list[str]) -> list:
        """vLLM outputs for ``prompts`` with the training or (between notify_eval_*) evaluation settings."""
        return self.generate(prompts, self.eval_sampling_params if self.eval_mode else self.sampling_params)

    def play(self, env_id: str, call: int = 0) -> list[Episode]:
        """One episode on each copy of ``env_id``'s group, continuing its random stream."""
        return collect_episodes(
            self.policy,
            self.env_groups[env_id],
            env_id,
            num_episodes=self.args.num_env,
            template=self.args.prompt_template,
            max_model_len=self.max_model_len,
            tokenizer=self.tokenizer,
        )

    @override
    def step(self, prompts=None, formatted_prompts=None, references=None):
        del formatted_prompts, references  # the games are the prompts; one turn per prompt slot
        args = self.args
        levels = self.ledger.due_levels()  # the curriculum's answer to an earlier step, applied between steps
        if levels is not None:
            apply_levels(self.env_groups, levels)
        self.step_count += 1  # the learner's steps count from 1 too
        records = play_step(args, self.table.env_ids, self.step_count, len(prompts), self.play, self.ledger, self.rng)
        return self.ipc_client.serialize_ipc([GameTransition(**record) for record in records])

    def continue_run(self, run_dir: str, step: int) -> None:
        """A resumed run: log to its folder, and number the steps after the ``step`` it resumes from."""
        self.save_path = run_dir
        self.ledger.run_files = RunFiles(run_dir, actor_id=self.actor_id)
        self.step_count = step

    def take_tally(self, step: int) -> np.ndarray:
        return self.ledger.take_tally(step)

    def apply_levels(self, levels: dict[str, int], step: int) -> None:
        """The curriculum's levels after step ``step``: logged with the steps they follow, and set on every
        game copy when the next step starts."""
        self.ledger.close_steps(levels, step)

    def play_eval(self, share: EvalShare) -> list[Episode]:
        """This actor's share of an evaluation cell (``gymverse.run.eval_plan``): the same games at every
        evaluation of the run, so that scores compare across steps."""
        cell, seed = share.cell, self.args.seed
        if cell not in self.eval_groups:
            self.eval_groups[cell] = make_env_group(
                cell.env_id,
                cell.copies,
                cell.wrappers,
                complexity=cell.level,
                seed=cell.envs_seed(seed),
                tokenizer=self.tokenizer,
            )
        return collect_episodes(
            self.policy,
            self.eval_groups[cell],
            cell.env_id,
            num_episodes=share.count,
            template=cell.template,
            max_model_len=self.max_model_len,
            tokenizer=self.tokenizer,
            seed=share.reset_seeds(seed),
        )
