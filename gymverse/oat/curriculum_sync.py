"""One curriculum for every actor: the learner's rank 0 owns it, actors only report and obey.

After each step the learner sums every actor's episode tally (an :class:`EnvTable` array), rank 0
advances the curriculum once per environment with those totals, and the resulting levels go to
every actor, which sets them on every copy of the game (through wrappers and vector envs) for its
next episodes. Without ``--evolve`` the levels stay at ``--train_difficulty``.
"""

import json
from pathlib import Path

import numpy as np

from gymverse.curriculum import Curriculum, make_curriculum
from gymverse.oat.env_table import EnvTable
from gymverse.train.args import EnvArgs, curriculum_params

STATE_FILE = "curriculum_state.json"


class CurriculumOwner:
    def __init__(self, table: EnvTable, curriculum: Curriculum | None, start: int) -> None:
        self.table = table
        self.curriculum = curriculum
        self.start = start

    @classmethod
    def from_args(cls, table: EnvTable, args: EnvArgs) -> "CurriculumOwner":
        curriculum = make_curriculum(args.curriculum, **curriculum_params(args)) if args.evolve else None
        return cls(table, curriculum, args.train_difficulty)

    def levels(self) -> dict[str, int]:
        if self.curriculum is None:
            return {env_id: self.start for env_id in self.table.env_ids}
        return {env_id: self.curriculum.complexity(env_id) for env_id in self.table.env_ids}

    def advance(self, tally: np.ndarray) -> dict[str, int]:
        """Feed one step's summed tally (all actors) to the curriculum; the next level of every env."""
        if self.curriculum is not None:
            for env_id, (rate, episodes) in self.table.success_rates(tally).items():
                self.curriculum.update(env_id, rate, episodes)
        return self.levels()

    def save(self, run_dir: str | Path) -> None:
        if self.curriculum is not None:
            path = Path(run_dir) / STATE_FILE
            path.write_text(json.dumps(self.curriculum.state_dict(), indent=1))

    def load(self, run_dir: str | Path) -> bool:
        """Continue the curriculum saved in ``run_dir``; False when there is none."""
        path = Path(run_dir) / STATE_FILE
        if self.curriculum is None or not path.is_file():
            return False
        self.curriculum.load_state_dict(json.loads(path.read_text()))
        return True


def levels_to_array(table: EnvTable, levels: dict[str, int]) -> np.ndarray:
    """Levels in table order (for a broadcast, which needs the same shape on every rank)."""
    return np.array([levels[env_id] for env_id in table.env_ids], dtype=np.float64)


def levels_from_array(table: EnvTable, array: np.ndarray) -> dict[str, int]:
    return {env_id: int(round(value)) for env_id, value in zip(table.env_ids, np.asarray(array).ravel())}
