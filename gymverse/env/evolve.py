"""GymVerse's evolve rule: success streaks move the complexity one level at a time.

It is the env's own rule (``EvolvableEnv.evolve``, for GymVerse code) and the step of the threshold
controller (``gymverse.curriculum.ThresholdCurriculum``), which applies it to every environment of a run;
:class:`Thresholds` is that controller's parameters, so its fields are the ``--up_threshold``, ... flags.
It lives here, in the env contract, because the contract may not import the curriculum above it.
"""

from dataclasses import dataclass

from gymverse.errors import require_at_least_one, require_rate


@dataclass
class Streaks:
    complexity: int
    up_streak: int = 0
    down_streak: int = 0


@dataclass
class Thresholds:
    """+1 after ``up_steps`` batches in a row with success >= ``up_threshold``, -1 after ``down_steps`` in a row
    with success <= ``down_threshold``."""

    up_threshold: float = 0.8
    """threshold curriculum: success rate that counts a batch towards a level up."""
    down_threshold: float = 0.1
    """threshold curriculum: success rate that counts a batch towards a level down."""
    up_steps: int = 3
    """threshold curriculum: batches in a row at or above --up_threshold before a level up."""
    down_steps: int = 3
    """threshold curriculum: batches in a row at or below --down_threshold before a level down."""

    def validate(self) -> None:
        require_rate(self, "up_threshold", "down_threshold")
        require_at_least_one(self, "up_steps", "down_steps")


def check_success_rate(rate: float) -> float:
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"success rate must lie in [0, 1], got {rate}")
    return rate


def threshold_step(state: Streaks, rate: float, rule: Thresholds, floor: int, ceiling: int) -> int:
    """Record one batch's success ``rate`` in ``state``'s streaks; the next complexity, within [floor, ceiling].
    A move resets both streaks."""
    state.up_streak = state.up_streak + 1 if rate >= rule.up_threshold else 0
    state.down_streak = state.down_streak + 1 if rate <= rule.down_threshold else 0
    if state.up_streak >= rule.up_steps and state.complexity < ceiling:
        state.up_streak = state.down_streak = 0
        return state.complexity + 1
    if state.down_streak >= rule.down_steps and state.complexity > floor:
        state.up_streak = state.down_streak = 0
        return state.complexity - 1
    return state.complexity
