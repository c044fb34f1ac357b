"""One actor's account of what it played: run-file lines tagged with its actor id, and the tally
the learner collects after each step to advance the shared curriculum.

The per-step environment summary (``actor_env_metrics.jsonl``) records the level the episodes were
played at and the level the curriculum chose next, so it is written when the learner's answer
(:meth:`ActorLedger.close_steps`) arrives.
"""

from itertools import groupby

import numpy as np

from gymverse.rollout import Episode
from gymverse.run.env_table import TALLY_COLUMNS, EnvTable
from gymverse.run.files import RunFiles


class ActorLedger:
    def __init__(self, table: EnvTable, run_files: RunFiles, dump_experience_every: int = 0) -> None:
        self.table = table
        self.run_files = run_files
        self.dump_experience_every = dump_experience_every
        self._tally = np.zeros((len(table.env_ids), len(TALLY_COLUMNS)))
        self._open: list[tuple[int, str, int | None, list[Episode]]] = []

    def record(self, step: int, episodes: list[Episode]) -> None:
        self.run_files.log_episodes(step, episodes)
        if self.dump_experience_every > 0 and step % self.dump_experience_every == 0:
            self.run_files.save_trajectories(step, episodes)

        def key(e: Episode) -> tuple[str, int]:
            return e.env_id, e.complexity or 0

        for (env_id, _), group in groupby(sorted(episodes, key=key), key=key):
            group = list(group)
            self._open.append((step, env_id, group[0].complexity, group))
        self._tally += self.table.tally(episodes)

    def take_tally(self) -> np.ndarray:
        """Everything recorded since the last call, per environment (columns ``TALLY_COLUMNS``)."""
        tally, self._tally = self._tally, np.zeros_like(self._tally)
        return tally

    def close_steps(self, next_levels: dict[str, int]) -> None:
        """Write the summaries of the recorded steps, now that the curriculum chose ``next_levels``."""
        for step, env_id, complexity, episodes in self._open:
            self.run_files.log_env_metrics(step, env_id, episodes, complexity, next_levels[env_id])
        self._open.clear()
