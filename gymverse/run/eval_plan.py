"""The online evaluation's plan, the same on both backends: what is played, with which seeds, and the metrics.

The plan (:func:`eval_plan`) has one :class:`EvalCell` per evaluation environment (``--eval_envs``, the training
ones when empty) and complexity (``--eval_difficulty``): ``--eval_n`` episodes with the environment's wrappers and
prompt template, on at most :data:`MOST_COPIES` game copies at a time. Episode ``n`` of a cell starts from game
``games_seed + n`` (for the first :data:`MOST_COPIES`; later ones continue a copy's stream) and the native
trainer draws its replies from ``draw_seeds()[n]``, all derived from the run's seed: every evaluation of a run
plays the same games, whatever was played before it. OAT's actors share a cell's episodes (:func:`eval_rounds`),
each from the game of its first episode's number on; their vLLM engines sample with their own seed.
:func:`eval_metrics` names what both backends log (``eval/<env>/c<complexity>/accuracy``, ``.../mean_episode_len``
and ``eval/average/accuracy``), the same keys on every rank whatever was played.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gymverse.run.config import RunConfig, eval_levels, eval_settings
from gymverse.seeds import Purpose, derive_seed

MOST_COPIES = 32  # game copies of one evaluation cell played side by side


def copies_for(episodes: int) -> int:
    """Game copies that play ``episodes`` evaluation episodes side by side."""
    return min(episodes, MOST_COPIES)


@dataclass(frozen=True)
class EvalCell:
    """``episodes`` evaluation episodes of ``env_id`` (the ``k``-th evaluation environment) at ``level``."""

    k: int
    env_id: str
    level: int
    wrappers: str
    template: str
    episodes: int

    @property
    def copies(self) -> int:
        return copies_for(self.episodes)

    def envs_seed(self, seed: int) -> int:
        """The seed the cell's game copies are built with."""
        return derive_seed(seed, Purpose.EVAL_ENVS, self.k)

    def games_seed(self, seed: int) -> int:
        """The reset seed of the cell's first game (copy ``i`` starts from ``+ i``)."""
        return derive_seed(seed, Purpose.EVAL_GAMES, self.k, self.level)

    def draw_seeds(self, seed: int) -> list[int]:
        """One seed per episode for the policy's draws (``collect_episodes``' ``sample_seeds``)."""
        return [derive_seed(seed, Purpose.EVAL_DRAWS, self.k, self.level, n) for n in range(self.episodes)]


def eval_plan(config: RunConfig) -> list[EvalCell]:
    """Every cell the online evaluation plays, environment by environment, each at every level."""
    return [
        EvalCell(k, env_id, level, wrappers, template, config.eval_n)
        for k, (env_id, (wrappers, template)) in enumerate(eval_settings(config).items())
        for level in eval_levels(config)
    ]


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` items shared by ``parts`` workers, the first ones taking one more when it does not divide."""
    if parts < 1:
        raise ValueError(f"need at least one worker, got {parts}")
    return [total // parts + (i < total % parts) for i in range(parts)]


@dataclass(frozen=True)
class EvalShare:
    """Actor ``actor``'s share of a cell: ``count`` episodes from episode number ``first`` on."""

    actor: int
    cell: EvalCell
    first: int
    count: int

    def reset_seeds(self, seed: int) -> list[int]:
        """One reset seed per game copy: copy ``i`` starts from the cell's game ``first + i``."""
        start = self.cell.games_seed(seed) + self.first
        return [start + i for i in range(self.cell.copies)]


def eval_rounds(plan: Sequence[EvalCell], num_actors: int) -> list[list[EvalShare]]:
    """One round per cell: the actors' shares of its episodes, each actor at most once, adding up to
    ``cell.episodes``."""
    rounds = []
    for cell in plan:
        counts = split_evenly(cell.episodes, num_actors)
        firsts = [sum(counts[:actor]) for actor in range(num_actors)]
        rounds.append([EvalShare(a, cell, firsts[a], count) for a, count in enumerate(counts) if count])
    return rounds


def metric_keys(plan: Sequence[EvalCell]) -> list[str]:
    keys = [f"eval/{cell.env_id}/c{cell.level}/{name}" for cell in plan for name in ("accuracy", "mean_episode_len")]
    return keys + ["eval/average/accuracy"]


def eval_metrics(records: Sequence[Mapping], plan: Sequence[EvalCell]) -> dict[str, float]:
    """Metrics under :func:`metric_keys` from ``RunFiles.log_eval`` records (cells without a record count 0)."""
    metrics = dict.fromkeys(metric_keys(plan), 0.0)
    for record in records:
        prefix = f"eval/{record['env_id']}/c{record['complexity']}"
        if f"{prefix}/accuracy" not in metrics:
            raise KeyError(f"evaluation record for {prefix} is outside the evaluation plan")
        metrics[f"{prefix}/accuracy"] = float(record["accuracy"])
        metrics[f"{prefix}/mean_episode_len"] = float(record["mean_episode_len"])
    accuracies = [metrics[f"eval/{cell.env_id}/c{cell.level}/accuracy"] for cell in plan]
    metrics["eval/average/accuracy"] = sum(accuracies) / len(accuracies) if accuracies else 0.0
    return metrics
