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


ParamLine = tuple[str, float, float, float, float, bool]  # name, center, spread, low, high, integer


def param_lines(spec: ParamSpec, variance: Mapping[str, float], level: int) -> list[ParamLine]:
    """What :func:`draw_params` needs for every parameter at ``level``; depends on the level only,
    so a game computes it once per level instead of once per episode."""
    lines = []
    for name, (first, tenth) in spec.items():
        center = line_value(first, tenth, level)
        integer = isinstance(first, int) and isinstance(tenth, int)
        lines.append((name, center, variance.get(name, 0), min(first, center), max(first, center), integer))
    return lines


def draw_params(lines: list[ParamLine], rng: random.Random | None = None) -> dict[str, int | float]:
    """One episode's parameters from :func:`param_lines`; ``rng=None`` gives the noise-free line values."""
    params: dict[str, int | float] = {}
    for name, center, spread, low, high, integer in lines:  # inline arithmetic: this runs on every reset
        value = center
        if rng is not None and spread:
            value += spread * (2 * rng.random() - 1)
            value = low if value < low else high if value > high else value
        if integer:
            value = round(value)
        params[name] = value if value > 0 else 0
    return params


def sample_params(
    spec: ParamSpec,
    variance: Mapping[str, float],
    level: int,
    rng: random.Random | None = None,
) -> dict[str, int | float]:
    """Parameters for one episode at ``level``; ``rng=None`` gives the noise-free line values.

    Integer endpoints give integer values (rounded). Values never go below zero.
    """
    return draw_params(param_lines(spec, variance, level), rng)
