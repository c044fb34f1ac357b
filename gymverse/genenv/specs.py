"""GenEnv's game task space: the environment policy writes a task spec, a JSON object such as

    {"game": "gymverse:LightsOut", "complexity": 3, "params": {"size": 4}, "seed": 17}

naming a game of the chosen set (its full id, or its name when that is unambiguous), a complexity from 1 to
the game's highest, optionally values for some of the game's declared parameters, and optionally a seed.
:func:`read_spec` turns a reply into a :class:`GameSpec` or a reason it is not one; a refused spec earns
the validity penalty and never stops the run. Every valid spec is solvable: the game's solver wins it.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gymverse.env import env_class, highest_complexity
from gymverse.env.complexity import check_params


@dataclass(frozen=True)
class GameSpec:
    game: str
    complexity: int
    params: dict[str, int | float] = field(default_factory=dict)
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "complexity": self.complexity, "params": dict(self.params), "seed": self.seed}


@dataclass(frozen=True)
class GameInfo:
    """What a spec may ask of one game: its highest complexity here and each declared parameter's range."""

    highest: int
    ranges: dict[str, tuple[int | float, int | float]]


@dataclass(frozen=True)
class SpecCheck:
    spec: GameSpec | None
    reason: str | None = None  # why the reply is not a valid spec


def json_values(text: str) -> Iterator[Any]:
    """Every JSON value that starts at a ``{`` of ``text`` and is not inside an earlier one, in order."""
    decoder = json.JSONDecoder()
    index = text.find("{")
    while index >= 0:
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        yield value
        index = text.find("{", end)


def last_json_object(text: str) -> dict[str, Any] | None:
    """The last JSON object in ``text`` (code fences and surrounding prose allowed), or None."""
    found = None
    for value in json_values(text):
        if isinstance(value, dict):
            found = value
    return found


def resolve_game(name: Any, games: list[str]) -> str | None:
    """The chosen game ``name`` denotes: an id of ``games``, or the part after ``:`` of exactly one."""
    if not isinstance(name, str):
        return None
    if name in games:
        return name
    matches = [game for game in games if game.split(":", 1)[-1].lower() == name.strip().lower()]
    return matches[0] if len(matches) == 1 else None


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def check_spec(value: Any, games: dict[str, GameInfo]) -> SpecCheck:
    """Validate a decoded spec against the chosen ``games``."""
    if not isinstance(value, dict):
        return SpecCheck(None, "the spec is not a JSON object")
    game = resolve_game(value.get("game"), list(games))
    if game is None:
        return SpecCheck(None, f"game {value.get('game')!r} is not one of {', '.join(games)}")
    complexity = _integer(value.get("complexity"))
    highest = games[game].highest
    if complexity is None or not 1 <= complexity <= highest:
        return SpecCheck(None, f"complexity {value.get('complexity')!r} of {game} is not an integer in [1, {highest}]")
    seed = value.get("seed")
    seed_value = _integer(seed)
    if seed is not None and (seed_value is None or seed_value < 0):
        return SpecCheck(None, f"seed {seed!r} is not a non-negative integer")
    params = value.get("params", {}) or {}
    if not isinstance(params, dict):
        return SpecCheck(None, f"params {params!r} is not a JSON object")
    try:
        checked = check_params(params, games[game].ranges, game)
    except ValueError as error:
        return SpecCheck(None, str(error))
    return SpecCheck(GameSpec(game, complexity, checked, seed_value))


def read_spec(text: str, games: dict[str, GameInfo]) -> SpecCheck:
    """The spec a reply of the environment policy writes, or the reason it writes none."""
    value = last_json_object(text if isinstance(text, str) else "")
    if value is None:
        return SpecCheck(None, "no JSON object in the reply")
    return check_spec(value, games)


def game_info(game: str, cap: int) -> GameInfo:
    """A registered game's highest complexity (at most ``cap``, the run's --max_difficulty) and the parameter
    ranges its ``set_params`` accepts (none for a game that has no ``set_params``)."""
    cls: Any = env_class(game)  # a game with set_params declares param_ranges
    highest = min(highest_complexity(game) or cap, cap)
    ranges = cls.param_ranges() if hasattr(cls, "set_params") else {}
    return GameInfo(highest, ranges)
