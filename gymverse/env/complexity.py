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


def validate_complexity(level: object, highest: int | None = None, game: str = "this game") -> int:
    """``level`` as an integer complexity, or a ValueError; ``highest`` (when the game declares one) is the
    highest complexity allowed, and the error names it."""
    if isinstance(level, bool) or not isinstance(level, int):
        if isinstance(level, float) and level.is_integer():
            level = int(level)
        else:
            raise ValueError(f"complexity must be an integer >= 1, got {level!r}")
    if level < 1:
        raise ValueError(f"complexity must be an integer >= 1, got {level}")
    if highest is not None and level > highest:
        raise ValueError(f"complexity {level} is above {game}'s highest complexity, {highest}")
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


def param_ranges(spec: ParamSpec, highest: int) -> dict[str, tuple[int | float, int | float]]:
    """``{name: (low, high)}``: every value a parameter takes on its noise-free line from level 1 to ``highest``
    (never below zero, as drawn), the values a caller may choose for an episode."""
    ranges = {}
    for name, (first, tenth) in spec.items():
        integer = isinstance(first, int) and isinstance(tenth, int)
        ends = [max(0, round(v)) if integer else max(0.0, float(v)) for v in (first, line_value(first, tenth, highest))]
        ranges[name] = (min(ends), max(ends))
    return ranges


def check_params(values: Mapping[str, object], ranges: Mapping[str, tuple[float, float]], game: str) -> dict:
    """``values`` if every name is a parameter of ``ranges`` and every value lies in its range
    (an integer where the range is of integers), else a ValueError that says which and what is allowed."""
    for name, value in values.items():
        if name not in ranges:
            raise ValueError(f"{game} has no parameter {name!r}; its parameters are {sorted(ranges)}")
        low, high = ranges[name]
        integer = isinstance(low, int) and isinstance(high, int)
        if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
            kind = "an integer" if integer else "a number"
            raise ValueError(f"{game}'s parameter {name!r} must be {kind} in [{low}, {high}], got {value!r}")
        if not low <= value <= high:
            raise ValueError(f"{game}'s parameter {name!r} must lie in [{low}, {high}], got {value}")
    return dict(values)


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
