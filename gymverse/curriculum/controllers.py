"""Curriculum controllers: success statistics in, next complexity out, per environment.

A controller is one class, a subclass of :class:`Curriculum` that declares

* ``name``: its ``--curriculum`` value; defining the class registers it in :data:`CONTROLLERS`;
* ``Params``: a dataclass of its flags (field names are the flag names, defaults and docstrings the flags'),
  with a ``validate()`` that raises :class:`~gymverse.errors.BadInput` naming the flag;
* ``State``: a dataclass of plain data kept per environment (``complexity`` first), saved in checkpoints
  (``state_dict``) and restored (``load_state_dict``) to continue the same curriculum;
* ``_next_complexity``: one batch's success rate in, the environment's next complexity out.

The flags, their validation and the driver follow from that (``gymverse.curriculum.settings``, ``driver``).
An installed package offers its own controllers through the entry-point group ``gymverse.curricula`` (a module
that defines them); ``import gymverse`` imports those modules, so their names are ``--curriculum`` choices.
``update`` is called once per batch with that batch's episode outcomes for one environment. A controller never
asks an environment for more than its highest complexity (``highest``) nor for more than ``max_complexity``.
"""

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from gymverse.env.evolve import Streaks, Thresholds, check_success_rate, threshold_step
from gymverse.errors import BadInput, require_at_least_one, require_rate
from gymverse.seeds import keyed_rng

CONTROLLERS: dict[str, type["Curriculum"]] = {}
"""Every controller by its ``--curriculum`` name, in the order they were defined."""


@dataclass
class NoParams:
    """The parameters of a controller without flags of its own."""

    def validate(self) -> None:
        pass


@dataclass
class Level:
    """The state every controller keeps per environment: the complexity it plays next."""

    complexity: int


@dataclass
class Curriculum:
    """Shared bookkeeping; a subclass declares ``name``, ``Params``, ``State`` and ``_next_complexity``.

    ``highest`` maps an environment id to the highest complexity that game declares; an id it does not
    name is bounded by ``max_complexity`` alone. ``seed`` is the run's, for controllers that draw.
    """

    name: ClassVar[str] = ""
    Params: ClassVar[type] = NoParams
    State: ClassVar[type] = Level

    params: Any = None  # an instance of Params; None: Params' defaults
    start: int = 1
    min_complexity: int = 1
    max_complexity: int = 10
    highest: dict[str, int] = field(default_factory=dict)
    seed: int = 0
    states: dict[str, Any] = field(default_factory=dict, repr=False)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in vars(cls):
            if cls.name in CONTROLLERS:
                raise ValueError(f"curriculum {cls.name!r} is already {CONTROLLERS[cls.name].__qualname__}")
            CONTROLLERS[cls.name] = cls

    def __post_init__(self) -> None:
        if self.params is None:
            self.params = self.Params()
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
        """Restore :meth:`state_dict`'s output (also from checkpoints written when the field was ``level``, or when
        every controller saved every controller's fields)."""
        own = {f.name for f in fields(self.State)}
        self.states = {}
        for env_id, saved in state.items():
            saved = dict(saved)
            if "level" in saved:
                saved["complexity"] = saved.pop("level")
            self.states[env_id] = self.State(**{key: value for key, value in saved.items() if key in own})

    def _state(self, env_id: str) -> Any:
        if env_id not in self.states:
            self.states[env_id] = self.State(complexity=max(self.min_complexity, min(self.ceiling(env_id), self.start)))
        return self.states[env_id]

    def _next_complexity(self, env_id: str, state: Any, rate: float, episodes: int, ceiling: int) -> int:
        raise NotImplementedError


class ThresholdCurriculum(Curriculum):
    """GymVerse's evolve rule (:func:`gymverse.env.evolve.threshold_step`) for every environment: +1 after
    ``up_steps`` batches in a row with success >= ``up_threshold``, -1 after ``down_steps`` in a row with success
    <= ``down_threshold``. A move resets both streaks."""

    name = "threshold"
    Params = Thresholds
    State = Streaks
    params: Thresholds

    def _next_complexity(self, env_id: str, state: Streaks, rate: float, episodes: int, ceiling: int) -> int:
        return threshold_step(state, rate, self.params, self.min_complexity, ceiling)


def alpha_reward(success_rate: float, alpha: float = 0.5, beta: float = 10.0) -> float:
    """GenEnv's environment reward ``exp(-beta * (p - alpha)^2)``: 1 at the target rate."""
    return math.exp(-beta * (success_rate - alpha) ** 2)


def is_informative(success_rate: float, alpha: float = 0.5, k_min: float = 0.1) -> bool:
    """GenEnv's filter: batches within ``k_min`` of the target carry no update signal."""
    return abs(success_rate - alpha) > k_min


@dataclass
class AlphaParams:
    alpha: float = 0.5
    """alpha curriculum: the success rate to keep each environment at."""
    k_min: float = 0.1
    """alpha curriculum: the level moves only when success is further than this from --alpha."""

    def validate(self) -> None:
        require_rate(self, "alpha")
        if self.k_min < 0:
            raise BadInput(f"--k_min must be >= 0, got {self.k_min}")


class AlphaCurriculum(Curriculum):
    """GenEnv's target: keep each environment's success near ``alpha``.

    Above ``alpha + k_min`` the game gets one complexity harder, below ``alpha - k_min`` one easier;
    inside that band (where GenEnv would not update its environment policy) the complexity stays.
    """

    name = "alpha"
    Params = AlphaParams
    params: AlphaParams

    def _next_complexity(self, env_id: str, state: Level, rate: float, episodes: int, ceiling: int) -> int:
        if not is_informative(rate, self.params.alpha, self.params.k_min):
            return state.complexity
        return state.complexity + (1 if rate > self.params.alpha else -1)


@dataclass
class RatchetParams:
    ratchet_accuracy: float = 0.9
    """ratchet curriculum: accuracy at the current level that moves one level up."""
    ratchet_min_episodes: int = 32
    """ratchet curriculum: episodes at the current level before a move is considered."""

    def validate(self) -> None:
        require_rate(self, "ratchet_accuracy")
        require_at_least_one(self, "ratchet_min_episodes")


@dataclass
class Accuracy(Level):
    successes: float = 0.0
    episodes: int = 0


class RatchetCurriculum(Curriculum):
    """RLVE's ratchet: only ever goes up, once ``ratchet_min_episodes`` episodes at the current complexity
    reach accuracy >= ``ratchet_accuracy``; the count starts over at each new complexity. It stops at the ceiling."""

    name = "ratchet"
    Params = RatchetParams
    State = Accuracy
    params: RatchetParams

    def _next_complexity(self, env_id: str, state: Accuracy, rate: float, episodes: int, ceiling: int) -> int:
        if state.complexity >= ceiling:
            return state.complexity
        state.successes += rate * episodes
        state.episodes += episodes
        if state.episodes >= self.params.ratchet_min_episodes and state.successes >= (
            self.params.ratchet_accuracy * state.episodes
        ):
            state.successes = state.episodes = 0
            return state.complexity + 1
        return state.complexity


@dataclass
class Draws(Level):
    episodes: int = 0  # batches drawn for this game (the name older checkpoints saved it under)


class UniformCurriculum(Curriculum):
    """A static schedule, the baseline the adaptive ones are measured against (GenEnv's static data): after
    every batch the game's next complexity is drawn uniformly from [min_complexity, ceiling], whatever its
    success. A draw depends only on ``seed``, the game and its batch count, so a resumed run repeats it."""

    name = "uniform"
    State = Draws

    def _next_complexity(self, env_id: str, state: Draws, rate: float, episodes: int, ceiling: int) -> int:
        state.episodes += 1
        return keyed_rng(self.seed, env_id, state.episodes).randint(self.min_complexity, ceiling)


def make_curriculum(name: str, params: Any = None, **bounds: Any) -> Curriculum:
    """The controller registered as ``name`` with ``params`` (None: its defaults) and ``bounds`` (start,
    min_complexity, max_complexity, highest, seed)."""
    if name not in CONTROLLERS:
        raise ValueError(f"unknown curriculum {name!r}; choose one of {sorted(CONTROLLERS)}")
    return CONTROLLERS[name](params, **bounds)
