"""What the environment policy is asked, in each task space, and the uniform-random spec writer.

Games: one prompt per game names the game, its complexity range and declared parameters, and the agent's
latest success per complexity, and asks for a JSON spec. Datasets: the rewrite template filled with a
boundary task and its answer. ``UniformSpecs`` (``--env_model uniform``) writes uniformly random valid
specs: the warm start's demonstrations and the baseline a trained environment policy must beat;
``CurriculumSpecs`` (``--env_model curriculum``) writes each game at the complexity a curriculum gives it.
"""

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

from gymverse.curriculum import CurriculumDriver
from gymverse.genenv.specs import GameInfo, GameSpec
from gymverse.policy.base import Generation

UNIFORM = "uniform"
CURRICULUM = "curriculum"
SHOWN_LEVELS = 6  # a prompt shows the agent's success at this many complexities at most (the highest ones seen)


def spec_text(spec: GameSpec, short: bool = False) -> str:
    """A spec as compact JSON (params and seed only when set; ``short``: the game's name without its namespace)."""
    value: dict[str, Any] = {"game": spec.game.split(":")[-1] if short else spec.game, "complexity": spec.complexity}
    if spec.params:
        value["params"] = spec.params
    if spec.seed is not None:
        value["seed"] = spec.seed
    return json.dumps(value)


def game_prompt(game: str, info: GameInfo, success: Mapping[int, float]) -> str:
    """The environment policy's prompt for one game; ``success``: the agent's latest rate per complexity."""
    params = ", ".join(f"{name} {low}..{high}" for name, (low, high) in info.ranges.items()) or "none"
    seen = ", ".join(f"c{level} {rate:.2f}" for level, rate in sorted(success.items())[-SHOWN_LEVELS:]) or "none yet"
    return (
        f"Task JSON (game, complexity; optional seed, params)\ngame: {game}; complexity: 1..{info.highest}\n"
        f"params: {params}\nagent success: {seen}\n"
    )


def random_spec(rng: random.Random, game: str, info: GameInfo) -> GameSpec:
    """A uniformly random valid spec of ``game``: complexity in [1, highest], no parameter fixed, no seed (the
    loop derives one)."""
    return GameSpec(game, rng.randint(1, info.highest))


def prompt_game(prompt: str, games: Sequence[str]) -> str:
    """The game a :func:`game_prompt` is about."""
    return next(game for game in games if f"game: {game};" in prompt)


class SpecWriter:
    """A policy that answers every game prompt with a spec of the prompt's game, written by :meth:`spec` from the
    prompt's rng (``rngs``, else the writer's own)."""

    def __init__(self, games: Sequence[str], seed: int | None = None) -> None:
        self.game_names = list(games)
        self.rng = random.Random(seed)

    def generate(
        self,
        prompts: Sequence[str],
        envs: Any = None,
        stop_at_box: bool | None = None,
        rngs: Sequence[random.Random] | None = None,
    ) -> list[Generation]:
        streams = [self.rng] * len(prompts) if rngs is None else rngs
        return [
            Generation(spec_text(self.spec(prompt_game(p, self.game_names), rng))) for p, rng in zip(prompts, streams)
        ]

    def spec(self, game: str, rng: random.Random) -> GameSpec:
        raise NotImplementedError


class UniformSpecs(SpecWriter):
    """Uniformly random valid specs (``--env_model uniform``)."""

    def __init__(self, games: Mapping[str, GameInfo], seed: int | None = None) -> None:
        super().__init__(list(games), seed)
        self.games = dict(games)

    def spec(self, game: str, rng: random.Random) -> GameSpec:
        return random_spec(rng, game, self.games[game])


class CurriculumSpecs(SpecWriter):
    """Specs at the complexity ``curriculum`` gives the prompt's game (``--env_model curriculum``: the
    ``--curriculum`` controller, e.g. GenEnv's alpha target, as a task writer)."""

    def __init__(self, games: Sequence[str], curriculum: CurriculumDriver) -> None:
        super().__init__(games)
        self.curriculum = curriculum

    def spec(self, game: str, rng: random.Random) -> GameSpec:
        return GameSpec(game, self.curriculum.levels()[game])


def warm_start_pairs(games: Mapping[str, GameInfo], count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` (prompt content, random valid spec) pairs over the games, with success lines as varied as a run's
    (none to every complexity shown, any rate), so that the warm start still writes specs once the agent's
    success fills its prompts."""
    rng = random.Random(seed)
    names = list(games)
    pairs = []
    for k in range(count):
        game = names[k % len(names)]
        levels = rng.sample(range(1, games[game].highest + 1), rng.randint(0, min(SHOWN_LEVELS, games[game].highest)))
        success = {level: rng.random() for level in levels}
        pairs.append(
            (game_prompt(game, games[game], success), spec_text(random_spec(rng, game, games[game]), short=True))
        )
    return pairs
