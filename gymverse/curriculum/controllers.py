"""Curriculum controllers: success statistics in, next complexity out, per environment.

Each controller is a small state machine over plain data, so its state can be saved in a
checkpoint (``state_dict``) and restored (``load_state_dict``) to continue the same curriculum.
``update`` is called once per batch with that batch's episode outcomes for one environment.
A controller never asks an environment for more than its highest complexity (``highest``, from
``gymverse.env.highest_complexity``), nor for more than ``max_complexity``.
"""

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from gymverse.env import highest_complexity, registered_ids
from gymverse.env.evolve import Streaks, Thresholds, check_success_rate, threshold_step
from gymverse.seeds import keyed_rng


@dataclass
class _EnvState(Streaks):
    successes: float = 0.0
    episodes: int = 0


@dataclass
class Curriculum:
    """Shared bookkeeping; subclasses implement ``_next_complexity``.

    ``highest`` maps an environment id to the highest complexity that game declares; an id it does not
    name is bounded by ``max_complexity`` alone.
    """

    start: int = 1
    min_complexity: int = 1
    max_complexity: int = 10
    highest: dict[str, int] = field(default_factory=dict)
    states: dict[str, _EnvState] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.min_complexity <= self.start <= self.max_complexity:
            raise ValueError(f"start complexity {self.start} is outside [{self.min_complexity}, {self.max_complexity}]")

    def complexity(self, env_id: str) -> int:
        return self._state(env_id).complexity

    def ceiling(self, env_id: str) -> int:
        """The highest complexity this curriculum gives ``env_id``."""
        return min(self.max_complexity, self.highest.get(env_id, self.max_complexity))

    def update(self, env_id: str, success_rate: float, episodes: int = 1) -> int:
        """Record one batch (``episodes`` episodes at ``success_rate``) of ``env_id``; return its next complexity."""
        check_success_rate(success_rate)
        state = self._state(env_id)
        if episodes > 0:
            complexity = self._next_complexity(env_id, state, success_rate, episodes, self.ceiling(env_id))
            state.complexity = max(self.min_complexity, min(self.ceiling(env_id), complexity))
        return state.complexity

    def state_dict(self) -> dict[str, Any]:
        return {env_id: asdict(state) for env_id, state in self.states.items()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s output (also from checkpoints written when the field was ``level``)."""
        self.states = {}
        for env_id, fields in state.items():
            fields = dict(fields)
            if "level" in fields:
                fields["complexity"] = fields.pop("level")
            self.states[env_id] = _EnvState(**fields)

    def _state(self, env_id: str) -> _EnvState:
        if env_id not in self.states:
            self.states[env_id] = _EnvState(complexity=max(self.min_complexity, min(self.ceiling(env_id), self.start)))
        return self.states[env_id]

    def _next_complexity(self, env_id: str, state: _EnvState, rate: float, episodes: int, ceiling: int) -> int:
        raise NotImplementedError


@dataclass
class ThresholdCurriculum(Curriculum):
    """GymVerse's evolve rule (:func:`gymverse.env.evolve.threshold_step`) for every environment: +1 after
    ``up_steps`` batches in a row with success >= ``up_threshold``, -1 after ``down_steps`` in a row with success
    <= ``down_threshold``. A move resets both streaks."""

    up_threshold: float = 0.8
    down_threshold: float = 0.1
    up_steps: int = 3
    down_steps: int = 3

    def _next_complexity(self, env_id: str, state: _EnvState, rate: float, episodes: int, ceiling: int) -> int:
        rule = Thresholds(self.up_threshold, self.down_threshold, self.up_steps, self.down_steps)
        return threshold_step(state, rate, rule, self.min_complexity, ceiling)


def alpha_reward(success_rate: float, alpha: float = 0.5, beta: float = 10.0) -> float:
    """GenEnv's environment reward ``exp(-beta * (p - alpha)^2)``: 1 at the target rate."""
    return math.exp(-beta * (success_rate - alpha) ** 2)


def is_informative(success_rate: float, alpha: float = 0.5, k_min: float = 0.1) -> bool:
    """GenEnv's filter: batches within ``k_min`` of the target carry no update signal."""
    return abs(success_rate - alpha) > k_min


@dataclass
class AlphaCurriculum(Curriculum):
    """GenEnv's target: keep each environment's success near ``alpha``.

    Above ``alpha + k_min`` the game gets one complexity harder, below ``alpha - k_min`` one easier;
    inside that band (where GenEnv would not update its environment policy) the complexity stays.
    """

    alpha: float = 0.5
    k_min: float = 0.1

    def _next_complexity(self, env_id: str, state: _EnvState, rate: float, episodes: int, ceiling: int) -> int:
        if not is_informative(rate, self.alpha, self.k_min):
            return state.complexity
        return state.complexity + (1 if rate > self.alpha else -1)


@dataclass
class RatchetCurriculum(Curriculum):
    """RLVE's ratchet: only ever goes up, once ``min_episodes`` episodes at the current complexity
    reach accuracy >= ``accuracy``; the count starts over at each new complexity. It stops at the ceiling."""

    accuracy: float = 0.9
    min_episodes: int = 32

    def _next_complexity(self, env_id: str, state: _EnvState, rate: float, episodes: int, ceiling: int) -> int:
        if state.complexity >= ceiling:
            return state.complexity
        state.successes += rate * episodes
        state.episodes += episodes
        if state.episodes >= self.min_episodes and state.successes >= self.accuracy * state.episodes:
            state.successes = state.episodes = 0
            return state.complexity + 1
        return state.complexity


@dataclass
class UniformCurriculum(Curriculum):
    """A static schedule, the baseline the adaptive ones are measured against (GenEnv's static data): after
    every batch the game's next complexity is drawn uniformly from [min_complexity, ceiling], whatever its
    success. A draw depends only on ``seed``, the game and its batch count, so a resumed run repeats it."""

    seed: int = 0

    def _next_complexity(self, env_id: str, state: _EnvState, rate: float, episodes: int, ceiling: int) -> int:
        state.episodes += 1  # here: batches drawn for this game
        return keyed_rng(self.seed, env_id, state.episodes).randint(self.min_complexity, ceiling)


def highest_complexities(env_ids: list[str]) -> dict[str, int]:
    """Each registered game's highest complexity, for a curriculum's ``highest`` (games that declare none, and
    names that are not registered, are left out: ``max_complexity`` alone bounds them)."""
    known = set(registered_ids())
    return {
        env_id: limit for env_id in env_ids if env_id in known and (limit := highest_complexity(env_id)) is not None
    }


CURRICULA: dict[str, type[Curriculum]] = {
    "threshold": ThresholdCurriculum,
    "alpha": AlphaCurriculum,
    "ratchet": RatchetCurriculum,
    "uniform": UniformCurriculum,
}


def make_curriculum(name: str, **params: Any) -> Curriculum:
    if name not in CURRICULA:
        raise ValueError(f"unknown curriculum {name!r}; choose one of {sorted(CURRICULA)}")
    return CURRICULA[name](**params)
