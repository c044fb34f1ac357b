"""Variants of a game for the studies of what makes an environment good to learn from.

All are GEM wrappers (``gem.core.EnvWrapper``) that change what the agent sees or earns, never the
game underneath, so the solver (``env.unwrapped.oracle_action()``) and complexity
(``gymverse.set_env_complexity``) reach the game as usual:

* :class:`BuggyTwin`: a deliberately wrong copy of a game, for the correctness study. Per episode, the
  instance is unwinnable with probability ``unwinnable`` (the winning move is scored as a loss), and
  the final reward contradicts ``info["success"]`` with probability ``reward_flip`` (a win pays 0, a
  loss pays 1); per step, the feedback lies with probability ``lie``: every number in the observation
  and in ``info["suffix"]`` is replaced by another one. The audit flags such twins
  (``success_mismatch``, ``solver_fails``).
* :class:`FeedbackDesign`: what the game says after each move, for the feedback study. ``process``
  keeps the game's own feedback (what the move did, the new state); ``plain`` reduces it to
  "valid / invalid move" and, at the end, "won / lost"; ``none`` removes it. The first observation
  (rules and task) and the rewards stay as they are; with ``plain`` and ``none`` the agent has to
  remember the game itself, so use them with a history wrapper such as GEM's ``concat_with_action``.
* :class:`RewardScale`: every reward multiplied by a constant (``reward-x10``), for the normalization study:
  the same game, its returns on another scale.

:func:`register_variant` registers a wrapped copy of a registered id under its own id
(``buggy:gymverse:MailSorter``, ``feedback-plain:gymverse:MailSorter``, ...), so trainers, sweeps and the
audit take it like any game. Registration lives in the process that calls it.
"""

import random
import re
from typing import Any, Callable

import gem
from gem.envs.registration import ENV_REGISTRY

from gymverse.env.success import episode_success

INVALID_REWARD = -0.1  # the contract's reward for a malformed or illegal command
FEEDBACK_DESIGNS = ("process", "plain", "none")
_NUMBER = re.compile(r"\d+")
Info = dict[str, Any]
Step = tuple[Any, float, bool, bool, Info]  # what a GEM env's step returns


class BuggyTwin(gem.core.EnvWrapper):
    """A game whose rewards and feedback are sometimes wrong (see the module's docstring).

    The twin draws its bugs from its own generator, re-seeded by ``reset(seed)``, so the same seed and
    replies give the same bugs (the twin stays deterministic: its bugs are wrong, not random noise
    an audit could blame on nondeterminism).
    """

    def __init__(self, env: gem.Env, unwinnable: float = 0.1, reward_flip: float = 0.2, lie: float = 0.2) -> None:
        super().__init__(env)
        for name, p in (("unwinnable", unwinnable), ("reward_flip", reward_flip), ("lie", lie)):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must be a probability in [0, 1], got {p}")
        self.p_unwinnable, self.p_reward_flip, self.p_lie = unwinnable, reward_flip, lie
        self.rng = random.Random()
        self.unwinnable = False

    def reset(self, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self.rng.seed(f"buggy/{seed}")
        self.unwinnable = self.rng.random() < self.p_unwinnable
        return self.env.reset(seed=seed)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        if terminated or truncated:
            won = episode_success(info, reward)
            if won and self.unwinnable:
                won, reward, info["success"] = False, 0.0, False
                observation = "You lose: this instance cannot be won."
            if self.rng.random() < self.p_reward_flip:
                reward = 0.0 if won else 1.0
        if self.rng.random() < self.p_lie:
            observation = self._lie(observation)
            if isinstance(info.get("suffix"), str):
                info["suffix"] = self._lie(info["suffix"])
        return observation, reward, terminated, truncated, info

    def _lie(self, text: str) -> str:
        def other(match: re.Match) -> str:
            true = int(match.group())
            other = self.rng.randrange(true + 3)  # any of 0 .. true + 3 but the true one
            return str(other if other < true else other + 1)

        return _NUMBER.sub(other, text)


class StepTransform(gem.core.EnvWrapper):
    """A wrapper that leaves ``reset`` to the game and changes what each step returns (:meth:`transform`)."""

    def reset(self, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        return self.env.reset(seed=seed)

    def step(self, action: Any) -> Step:
        return self.transform(*self.env.step(action))

    def transform(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: Info) -> Step:
        raise NotImplementedError


class FeedbackDesign(StepTransform):
    """The game's step feedback kept (``process``), reduced to valid/invalid and won/lost (``plain``),
    or removed (``none``)."""

    def __init__(self, env: gem.Env, design: str = "process") -> None:
        if design not in FEEDBACK_DESIGNS:
            raise ValueError(f"unknown feedback design {design!r}; choose one of {', '.join(FEEDBACK_DESIGNS)}")
        super().__init__(env)
        self.design = design

    def transform(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: Info) -> Step:
        if self.design == "process":
            return observation, reward, terminated, truncated, info
        info = {k: v for k, v in info.items() if k != "suffix"}
        observation = "" if self.design == "none" else plain_feedback(reward, terminated or truncated, info)
        return observation, reward, terminated, truncated, info


def plain_feedback(reward: float, done: bool, info: dict[str, Any]) -> str:
    """ "Valid move." or "Invalid move.", and at the end of the episode "You won." or "You lost."."""
    text = "Invalid move." if reward <= INVALID_REWARD + 1e-9 and not info.get("success") else "Valid move."
    if done:
        text += " You won." if episode_success(info, reward) else " You lost."
    return text


class RewardScale(StepTransform):
    """Every reward times ``factor``; observations, success and the game itself unchanged."""

    def __init__(self, env: gem.Env, factor: float) -> None:
        super().__init__(env)
        self.factor = factor

    def transform(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: Info) -> Step:
        return observation, reward * self.factor, terminated, truncated, info


VARIANTS: dict[str, Callable[..., gem.Env]] = {
    "buggy": BuggyTwin,
    "reward-x10": lambda env: RewardScale(env, 10.0),
    **{f"feedback-{design}": (lambda env, d=design: FeedbackDesign(env, d)) for design in FEEDBACK_DESIGNS},
}


def variant_id(env_id: str, kind: str) -> str:
    return f"{kind}:{env_id}"


def register_variant(env_id: str, kind: str, **params: Any) -> str:
    """Register ``env_id`` wrapped as ``kind`` (see :data:`VARIANTS`) and return the new id.

    ``params`` go to the wrapper (e.g. ``reward_flip=0.5`` for ``buggy``). Registering the same
    variant again is harmless; the same id with other ``params`` is refused.
    """
    if kind not in VARIANTS:
        raise ValueError(f"unknown variant {kind!r}; choose one of {', '.join(VARIANTS)}")
    if env_id not in ENV_REGISTRY:
        raise ValueError(f"unknown environment id {env_id!r}; see `gymverse envs` for the registered ones")
    new_id = variant_id(env_id, kind)
    if new_id in ENV_REGISTRY:
        if getattr(ENV_REGISTRY[new_id].entry_point, "params", None) != params:
            raise ValueError(f"{new_id} is already registered with other parameters")
        return new_id

    def build(**kwargs: Any) -> gem.Env:
        return VARIANTS[kind](gem.make(env_id, **kwargs), **params)

    from gymverse.env import env_class

    factory: Any = build  # a function that carries what it builds, for the registry's readers
    factory.params = params
    factory.domain = getattr(env_class(env_id), "domain", "misc")
    factory.__name__ = factory.__qualname__ = new_id.replace(":", "_")
    gem.register(new_id, factory)
    return new_id
