"""Curriculum controllers: success statistics in, next complexity out, per environment.

Each controller is a small state machine over plain data, so its state can be saved in a
checkpoint (``state_dict``) and restored (``load_state_dict``) to continue the same curriculum.
``update`` is called once per batch with that batch's episode outcomes for one environment.
"""

import math
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class _EnvState:
    level: int
    up_streak: int = 0
    down_streak: int = 0
    successes: float = 0.0
    episodes: int = 0


@dataclass
class Curriculum:
    """Shared bookkeeping; subclasses implement ``_next_level``."""

    start: int = 1
    min_complexity: int = 1
    max_complexity: int = 10
    states: dict[str, _EnvState] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.min_complexity <= self.start <= self.max_complexity:
            raise ValueError(
                f"start complexity {self.start} is outside [{self.min_complexity}, {self.max_complexity}]"
            )

    def complexity(self, env_id: str) -> int:
        return self._state(env_id).level

    def update(self, env_id: str, success_rate: float, episodes: int = 1) -> int:
        """Record one batch (``episodes`` episodes at ``success_rate``) of ``env_id``; return its next complexity."""
        if not 0.0 <= success_rate <= 1.0:
            raise ValueError(f"success rate must lie in [0, 1], got {success_rate}")
        state = self._state(env_id)
        if episodes > 0:
            level = self._next_level(state, success_rate, episodes)
            state.level = max(self.min_complexity, min(self.max_complexity, level))
        return state.level

    def state_dict(self) -> dict[str, Any]:
        return {env_id: asdict(state) for env_id, state in self.states.items()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.states = {env_id: _EnvState(**fields) for env_id, fields in state.items()}

    def _state(self, env_id: str) -> _EnvState:
        if env_id not in self.states:
            self.states[env_id] = _EnvState(level=self.start)
        return self.states[env_id]

    def _next_level(self, state: _EnvState, rate: float, episodes: int) -> int:
        raise NotImplementedError


@dataclass
class ThresholdCurriculum(Curriculum):
    """GymVerse's evolve: +1 after ``up_steps`` batches in a row with success >= ``up_threshold``,
    -1 after ``down_steps`` in a row with success <= ``down_threshold``. A move resets both streaks."""

    up_threshold: float = 0.8
    down_threshold: float = 0.1
    up_steps: int = 3
    down_steps: int = 3

    def _next_level(self, state: _EnvState, rate: float, episodes: int) -> int:
        state.up_streak = state.up_streak + 1 if rate >= self.up_threshold else 0
        state.down_streak = state.down_streak + 1 if rate <= self.down_threshold else 0
        if state.up_streak >= self.up_steps and state.level < self.max_complexity:
            state.up_streak = state.down_streak = 0
            return state.level + 1
        if state.down_streak >= self.down_steps and state.level > self.min_complexity:
            state.up_streak = state.down_streak = 0
            return state.level - 1
        return state.level


def alpha_reward(success_rate: float, alpha: float = 0.5, beta: float = 10.0) -> float:
    """GenEnv's environment reward ``exp(-beta * (p - alpha)^2)``: 1 at the target rate."""
    return math.exp(-beta * (success_rate - alpha) ** 2)


def is_informative(success_rate: float, alpha: float = 0.5, k_min: float = 0.1) -> bool:
    """GenEnv's filter: batches within ``k_min`` of the target carry no update signal."""
    return abs(success_rate - alpha) > k_min


@dataclass
class AlphaCurriculum(Curriculum):
    """GenEnv's target: keep each environment's success near ``alpha``.

    Above ``alpha + k_min`` the game gets one level harder, below ``alpha - k_min`` one easier;
    inside that band (where GenEnv would not update its environment policy) the level stays.
    """

    alpha: float = 0.5
    k_min: float = 0.1

    def _next_level(self, state: _EnvState, rate: float, episodes: int) -> int:
        if not is_informative(rate, self.alpha, self.k_min):
            return state.level
        return state.level + (1 if rate > self.alpha else -1)


@dataclass
class RatchetCurriculum(Curriculum):
    """RLVE's ratchet: only ever goes up, once ``min_episodes`` episodes at the current level
    reach accuracy >= ``accuracy``; the count starts over at each new level."""

    accuracy: float = 0.9
    min_episodes: int = 32

    def _next_level(self, state: _EnvState, rate: float, episodes: int) -> int:
        state.successes += rate * episodes
        state.episodes += episodes
        if state.episodes >= self.min_episodes and state.successes >= self.accuracy * state.episodes:
            state.successes = state.episodes = 0
            return state.level + 1
        return state.level


CURRICULA: dict[str, type[Curriculum]] = {
    "threshold": ThresholdCurriculum,
    "alpha": AlphaCurriculum,
    "ratchet": RatchetCurriculum,
}


def make_curriculum(name: str, **params: Any) -> Curriculum:
    if name not in CURRICULA:
        raise ValueError(f"unknown curriculum {name!r}; choose one of {sorted(CURRICULA)}")
    return CURRICULA[name](**params)
