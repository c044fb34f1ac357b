"""One actor's account of what it played: run-file lines tagged with its actor id, the tally of each
step that the learner collects to advance the shared curriculum, and the levels it answers with.

The per-step environment summary (``actor_env_metrics.jsonl``) records the level the episodes were
played at and the level the curriculum chose next, so it is written when the learner's answer for
that step (:meth:`ActorLedger.close_steps`) arrives. With OAT's ``--asynchronous`` the answer for
step ``s`` arrives while step ``s + 1`` is being played, from another thread: tallies are kept per
step, every method holds one lock, and the answer's levels wait in :meth:`ActorLedger.due_levels`
until the actor starts its next step, so a step never changes level half-way.
"""

import threading
from collections import defaultdict
from itertools import groupby

import numpy as np

from gymverse.episodes import Episode
from gymverse.run.env_table import TALLY_COLUMNS, EnvTable
from gymverse.run.files import RunFiles


class ActorLedger:
    def __init__(self, table: EnvTable, run_files: RunFiles, dump_experience_every: int = 0) -> None:
        self.table = table
        self.run_files = run_files
        self.dump_experience_every = dump_experience_every
        self._lock = threading.Lock()
        self._tallies: dict[int, np.ndarray] = defaultdict(lambda: np.zeros((len(table.env_ids), len(TALLY_COLUMNS))))
        self._open: list[tuple[int, str, int | None, list[Episode]]] = []
        self._due: dict[str, int] | None = None

    def record(self, step: int, episodes: list[Episode]) -> None:
        with self._lock:
            self.run_files.log_episodes(step, episodes)
            if self.dump_experience_every > 0 and step % self.dump_experience_every == 0:
                self.run_files.save_trajectories(step, episodes)

            def key(e: Episode) -> tuple[str, int]:
                return e.env_id, e.complexity or 0

            for (env_id, _), group in groupby(sorted(episodes, key=key), key=key):
                played = list(group)
                self._open.append((step, env_id, played[0].complexity, played))
            self._tallies[step] += self.table.tally(episodes)

    def take_tally(self, step: int) -> np.ndarray:
        """What step ``step`` played, per environment (columns ``TALLY_COLUMNS``); zeros once taken."""
        with self._lock:
            return self._tallies.pop(step, np.zeros((len(self.table.env_ids), len(TALLY_COLUMNS))))

    def close_steps(self, next_levels: dict[str, int], step: int) -> None:
        """The curriculum chose ``next_levels`` after step ``step``: write the summaries of the steps up to
        it, and keep the levels for the actor's next step."""
        with self._lock:
            for closed in [entry for entry in self._open if entry[0] <= step]:
                done, env_id, complexity, episodes = closed
                self.run_files.log_env_metrics(done, env_id, episodes, complexity, next_levels[env_id])
                self._open.remove(closed)
            self._due = dict(next_levels)

    def due_levels(self) -> dict[str, int] | None:
        """The levels the learner sent since the last call (None when none came)."""
        with self._lock:
            levels, self._due = self._due, None
            return levels
