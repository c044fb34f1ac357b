"""The curriculum driver: the one place a run's complexity comes from.

A run has one :class:`CurriculumDriver` (the native trainer's, or the OAT learner's rank 0). After
each step it takes each played environment's success rate and episode count (from the step's tally,
``gymverse.run.env_table.EnvTable.success_rates``, arrays that ranks and actors can sum), feeds them
to the curriculum chosen by the flags, and returns the next level of every training environment;
:func:`apply_levels` sets them on the games (through wrappers and vector envs; games that read
complexity only in their constructor are rebuilt), effective at each game's next reset. Without ``--evolve``
every level stays at ``--train_difficulty``. Every trainer goes through it: the native one, the OAT learner
and ``genenv``'s curriculum writer (``--env_model curriculum``, on whatever ``--evolve`` says). Its ``state_dict`` goes into the checkpoint it belongs to (the native
trainer's ``trainer_state.pt``, or ``run_state.json`` beside an OAT checkpoint).

    driver = CurriculumDriver.from_config(env_ids, config, config.seed)
    apply_levels(groups, driver.levels())
    ...                                               # after each step:
    apply_levels(groups, driver.advance(table.success_rates(table.tally(episodes))))
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gymverse.curriculum.controllers import Curriculum
from gymverse.curriculum.settings import CurriculumSettings, make_controller
from gymverse.env import highest_complexity, registered_ids, set_env_complexity


def highest_complexities(env_ids: Sequence[str]) -> dict[str, int]:
    """Each registered game's highest complexity, for a curriculum's ``highest`` (games that declare none, and
    names that are not registered, are left out: ``max_complexity`` alone bounds them)."""
    known = set(registered_ids())
    return {
        env_id: limit for env_id in env_ids if env_id in known and (limit := highest_complexity(env_id)) is not None
    }


class CurriculumDriver:
    def __init__(self, env_ids: Sequence[str], curriculum: Curriculum | None, start: int) -> None:
        self.env_ids = list(env_ids)
        self.curriculum = curriculum
        self.start = start

    @classmethod
    def from_config(
        cls, env_ids: Sequence[str], settings: CurriculumSettings, seed: int, evolve: bool | None = None
    ) -> "CurriculumDriver":
        """The controller ``--curriculum`` names with its flags when ``evolve`` (default: ``--evolve``) is on, else
        fixed levels; ``seed`` is the ``--seed`` a drawing controller draws from."""
        curriculum = None
        if settings.evolve if evolve is None else evolve:  # never past a game's highest complexity
            curriculum = make_controller(settings, seed, highest_complexities(env_ids))
        return cls(env_ids, curriculum, settings.train_difficulty)

    def levels(self) -> dict[str, int]:
        """The level every training environment plays next."""
        if self.curriculum is None:
            return dict.fromkeys(self.env_ids, self.start)
        return {env_id: self.curriculum.complexity(env_id) for env_id in self.env_ids}

    def advance(self, success_rates: Mapping[str, tuple[float, int]]) -> dict[str, int]:
        """Feed one step's success rate and episode count of each played environment (summed over every actor
        and rank) to the curriculum; the next levels. Environments not played keep their level and streaks."""
        if self.curriculum is not None:
            for env_id, (rate, episodes) in success_rates.items():
                self.curriculum.update(env_id, rate, episodes)
        return self.levels()

    def state_dict(self) -> dict[str, Any]:
        return self.curriculum.state_dict() if self.curriculum is not None else {}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        if self.curriculum is not None:
            self.curriculum.load_state_dict(dict(state))

    def levels_to_array(self, levels: Mapping[str, int]) -> np.ndarray:
        """Levels in table order (for a broadcast, which needs the same shape on every rank)."""
        return np.array([levels[env_id] for env_id in self.env_ids], dtype=np.float64)

    def levels_from_array(self, array: np.ndarray) -> dict[str, int]:
        return {env_id: int(round(value)) for env_id, value in zip(self.env_ids, np.asarray(array).ravel())}


def apply_levels(env_groups: Mapping[str, Any], levels: Mapping[str, int]) -> None:
    """Set each group's next complexity (a game whose level did not change is left as it is)."""
    for env_id, group in env_groups.items():
        set_env_complexity(group, levels[env_id])
