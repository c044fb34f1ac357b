"""GymVerse's evolve rule: success streaks move the complexity one level at a time.

It is the env's own rule (``EvolvableEnv.evolve``, for GymVerse code) and the step of the threshold
controller (``gymverse.curriculum.ThresholdCurriculum``), which applies it to every environment of a run.
"""

from dataclasses import dataclass


@dataclass
class Streaks:
    complexity: int
    up_streak: int = 0
    down_streak: int = 0


@dataclass(frozen=True)
class Thresholds:
    """+1 after ``up_steps`` batches in a row with success >= ``up_threshold``, -1 after ``down_steps`` in a row
    with success <= ``down_threshold``."""

    up_threshold: float
    down_threshold: float
    up_steps: int
    down_steps: int


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
