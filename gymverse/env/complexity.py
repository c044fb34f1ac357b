"""The complexity model: every parameter moves on a line from its level-1 to its level-10 value.

Levels above 10 keep following the same line, so a game keeps getting harder past its
designed range. Randomization adds uniform noise of +-variance around the line's value,
and the result is kept between the level-1 value and the line's value at this level
(whichever way the parameter moves), so noise never makes a level easier than level 1
or harder than its own line allows at the far end.
"""

import random
from typing import Mapping

ParamSpec = Mapping[str, tuple[float, float]]


def validate_complexity(level: object) -> int:
    if isinstance(level, bool) or not isinstance(level, int):
        if isinstance(level, float) and level.is_integer():
            level = int(level)
        else:
            raise ValueError(f"complexity must be an integer >= 1, got {level!r}")
    if level < 1:
        raise ValueError(f"complexity must be an integer >= 1, got {level}")
    return level


def line_value(at_level_1: float, at_level_10: float, level: int) -> float:
    return at_level_1 + (at_level_10 - at_level_1) * (level - 1) / 9


def sample_params(
    spec: ParamSpec,
    variance: Mapping[str, float],
    level: int,
    rng: random.Random | None = None,
) -> dict[str, int | float]:
    """Parameters for one episode at ``level``; ``rng=None`` gives the noise-free line values.

    Integer endpoints give integer values (rounded). Values never go below zero.
    """
    params: dict[str, int | float] = {}
    for name, (first, tenth) in spec.items():
        center = line_value(first, tenth, level)
        value = center
        spread = variance.get(name, 0)
        if rng is not None and spread:
            value += rng.uniform(-spread, spread)
            value = min(max(value, min(first, center)), max(first, center))
        if isinstance(first, int) and isinstance(tenth, int):
            value = int(round(value))
        params[name] = max(value, 0)
    return params
