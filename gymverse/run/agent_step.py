"""The PERPO step of the agent, one for every in-process trainer: the native trainer's step and the agent's
half of GenEnv's co-evolution on games both call :class:`AgentStep`.

A step, top to bottom: play the step's games; give the curriculum each played game's success rate; log the
episodes; draw the step's turns with their discounted returns; count a step that teaches nothing (and stop
the run after ``max_idle_steps`` of them in a row); normalize the returns into advantages; update the policy
with PPO-clip. What the trainers do differently is theirs, passed in as three functions: how the games are
played (the native trainer's env groups by the step's plan, or GenEnv's written tasks), what the curriculum
does with the success rates, and what the step logs and records.

    agent_step = AgentStep(args, EnvTable(env_ids), update.learn, seed, args.max_idle_steps)
    played = agent_step(step, play, advance, record)   # played.record, played.stats
"""

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gymverse.errors import BadInput
from gymverse.run.config import RunConfig
from gymverse.run.env_table import EnvTable, advantages_of
from gymverse.run.no_signal import nothing_to_learn
from gymverse.run.plan import TurnSample, step_samples
from gymverse.seeds import Purpose, derive_seed

Learn = Callable[[Sequence[TurnSample], Sequence[float], random.Random], dict[str, float]]


@dataclass
class PlayedStep:
    """What one agent step played and learned."""

    episodes: list[Any]
    samples: list[TurnSample]  # the turns it learned from
    record: dict[str, Any]  # the trainer's record of the step (its ``record`` function's answer)
    stats: dict[str, float]  # the update's statistics; {} when there was no turn to learn from


class AgentStep:
    """PERPO on the games one step plays. ``settings`` holds the flags the step reads (--gamma,
    --keep_generation_failed, --non_stop_penalty, --non_stop_fixed_reward, --rollout_batch_size, --norm_return,
    --norm_scope, --group_size, and for :func:`gymverse.run.no_signal.nothing_to_learn` --max_model_len and
    --generate_max_length); ``learn`` is the policy's update; ``max_idle_steps`` > 0 stops the run after that
    many steps in a row with nothing to learn."""

    def __init__(
        self,
        settings: RunConfig,
        table: EnvTable,
        learn: Learn,
        seed: int,
        max_idle_steps: int = 0,
    ) -> None:
        self.settings, self.table, self.update, self.seed = settings, table, learn, seed
        self.max_idle_steps = max_idle_steps
        self.idle_steps = 0  # steps in a row with nothing to learn from

    def __call__(
        self,
        step: int,
        play: Callable[[], list[Any]],
        advance: Callable[[dict[str, tuple[float, int]]], None],
        record: Callable[[list[Any]], dict[str, Any]],
    ) -> PlayedStep:
        """Step ``step``: ``play()`` its episodes, ``advance`` the curriculum with each played game's (success
        rate, episodes), ``record`` them (log them; the step's record), and learn from their turns."""
        args = self.settings
        episodes = play()
        advance(self.table.success_rates(self.table.tally(episodes)))
        step_record = record(episodes)
        samples = step_samples(
            args, episodes, args.rollout_batch_size, random.Random(derive_seed(self.seed, Purpose.BATCH, step))
        )
        if self.max_idle_steps > 0:
            self.stop_when_idle(step, episodes, samples)
        advantages = advantages_of(samples, self.table, args.norm_return, args.norm_scope, args.group_size)
        stats = self.learn(samples, advantages, step) if samples else {}
        return PlayedStep(episodes, samples, step_record, stats)

    def learn(self, samples: Sequence[TurnSample], advantages: Sequence[float], step: int) -> dict[str, float]:
        """The update of step ``step`` (its shuffles drawn from the step's own seed)."""
        return self.update(samples, advantages, random.Random(derive_seed(self.seed, Purpose.AGENT_UPDATE, step)))

    def stop_when_idle(self, step: int, episodes: Sequence[Any], samples: Sequence[TurnSample]) -> None:
        """Stop the run, saying why and what to change, after ``max_idle_steps`` steps in a row that teach nothing."""
        why = nothing_to_learn(episodes, samples, self.settings)
        self.idle_steps = self.idle_steps + 1 if why else 0
        if why and self.max_idle_steps <= self.idle_steps:
            raise BadInput(
                f"nothing to learn: in steps {step - self.idle_steps + 1}-{step} {why}. "
                f"Stopped without saving a checkpoint (--max_idle_steps {self.max_idle_steps})"
            )
