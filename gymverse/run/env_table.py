"""Per-environment statistics as fixed-shape arrays, so that ranks can sum them with one all-reduce.

Collective operations need the same shape on every rank, whichever environments a rank happened
to play: rows follow the training env ids in command-line order, and an environment a rank did not
see contributes a row of zeros. ``sum_across_ranks`` is any function that sums an array over all
ranks (the OAT learner passes its DeepSpeed strategy's all-reduce; one process passes ``None``).
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gymverse.perpo import env_moments, normalize_per_env

SumAcrossRanks = Callable[[np.ndarray], np.ndarray] | None
TALLY_COLUMNS = ("episodes", "successes", "length_sum", "return_sum")


class EnvTable:
    def __init__(self, env_ids: Sequence[str]) -> None:
        if len(set(env_ids)) != len(env_ids):
            raise ValueError(f"environment ids must be unique, got {list(env_ids)}")
        self.env_ids = list(env_ids)
        self.row = {env_id: i for i, env_id in enumerate(self.env_ids)}

    def _row(self, env_id: str) -> int:
        if env_id not in self.row:
            raise KeyError(f"{env_id!r} is not one of the training environments {self.env_ids}")
        return self.row[env_id]

    def moments(self, values: Sequence[float] | np.ndarray, env_ids: Sequence[str]) -> np.ndarray:
        """(count, sum, sum of squares) of ``values`` per environment, one row per training env."""
        table = np.zeros((len(self.env_ids), 3))
        for env_id, moment in env_moments(values, env_ids).items():
            table[self._row(env_id)] = moment
        return table

    def moments_dict(self, table: np.ndarray) -> dict[str, tuple[int, float, float]]:
        return {
            env_id: (int(round(row[0])), float(row[1]), float(row[2]))
            for env_id, row in zip(self.env_ids, table)
            if row[0] > 0
        }

    def tally(self, episodes: Sequence) -> np.ndarray:
        """Episodes, successes, summed lengths and summed returns per environment (columns ``TALLY_COLUMNS``)."""
        table = np.zeros((len(self.env_ids), len(TALLY_COLUMNS)))
        for episode in episodes:
            table[self._row(episode.env_id)] += (1, float(episode.success), episode.length, episode.episode_return)
        return table

    def success_rates(self, tally: np.ndarray) -> dict[str, tuple[float, int]]:
        """Success rate and episode count of every environment with at least one episode in ``tally``."""
        return {env_id: (row[1] / row[0], int(row[0])) for env_id, row in zip(self.env_ids, tally) if row[0] > 0}


def per_env_advantages(
    returns: Sequence[float],
    env_ids: Sequence[str],
    table: EnvTable,
    sum_across_ranks: SumAcrossRanks = None,
    normalize: bool = True,
    eps: float = 1e-9,
) -> np.ndarray:
    """PERPO advantages of this rank's turns: returns normalized with each environment's moments
    summed over all ranks (``normalize=False`` gives the raw returns, GymVerse's ``--no-norm_return``).

    Every rank must call this the same number of times, since it runs one collective.
    """
    values = np.asarray(returns, dtype=np.float64)
    if not normalize:
        return values
    moments = table.moments(values, env_ids)
    if sum_across_ranks is not None:
        moments = np.asarray(sum_across_ranks(moments), dtype=np.float64)
    return normalize_per_env(values, env_ids, table.moments_dict(moments), eps=eps)


def advantages_of(
    samples: Sequence[Any], table: EnvTable, normalize: bool = True, scope: str = "env", group_size: int = 1
) -> list[float]:
    """Advantages of one process's batch of ``TurnSample`` s: returns normalized per environment (PERPO), or
    with ``scope`` over the whole batch or per group (the episodes of ``group_size`` copies begun from one seed)."""
    returns = [s.ret for s in samples]
    if scope == "env" or not normalize:
        return per_env_advantages(returns, [s.env_id for s in samples], table, normalize=normalize).tolist()
    return normalize_per_env(returns, normalization_keys(samples, scope, group_size)).tolist()


def normalization_keys(samples: Sequence[Any], scope: str, group_size: int = 1) -> list[str]:
    """The key of each sample whose turns share one mean and std: its environment, the batch, or its group."""
    if scope == "env":
        return [s.env_id for s in samples]
    if scope == "batch":
        return ["batch"] * len(samples)
    if scope == "group":
        return [f"{s.env_id}#{s.copy // group_size}" for s in samples]
    raise ValueError(f"unknown normalization scope {scope!r}; choose env, batch or group")
