"""``EvolvableEnv``: the base every gymverse game builds on.

A game subclass declares its complexity parameters and implements three hooks:

* ``_new_episode()`` builds an instance from ``self.params`` using ``self.rng`` and returns
  the opening observation (rules, legal commands, an example);
* ``_play(command)`` applies one parsed command and returns a :class:`Feedback`
  (raise :class:`InvalidAction` for a command that breaks the syntax or is out of range);
* ``oracle_action()`` returns a correct next reply, boxed, from the current state.

The base does everything else: seeding, complexity, parsing ``\\boxed{...}``, the turn
limit, rewards for malformed replies and ``info["success"]`` on the last step.
"""

import random
from dataclasses import dataclass
from typing import Any, ClassVar

import gem

from gymverse.curriculum import ThresholdCurriculum
from gymverse.env.complexity import ParamLine, draw_params, param_lines, validate_complexity
from gymverse.env.parsing import InvalidAction, extract_boxed

FORMAT_HINT = "Reply with exactly one command inside \\boxed{...}, for example \\boxed{%s}."


@dataclass(slots=True)
class Feedback:
    text: str
    reward: float = 0.0
    done: bool = False
    success: bool = False


def win(text: str) -> Feedback:
    return Feedback(text, reward=1.0, done=True, success=True)


def lose(text: str) -> Feedback:
    return Feedback(text, reward=0.0, done=True, success=False)


class ComplexityKnob:
    """A complexity that changes at the next ``reset``, never in the running episode."""

    _complexity: int
    _next_complexity: int

    def set_complexity(self, complexity: int) -> None:
        """Use ``complexity`` from the next ``reset`` on; the running episode is unchanged."""
        self._next_complexity = validate_complexity(complexity)

    def get_complexity(self) -> int:
        """The complexity the next episode will use."""
        return self._next_complexity

    @property
    def complexity(self) -> int:
        """The complexity of the current episode."""
        return self._complexity


class EvolvableEnv(ComplexityKnob, gem.Env):
    domain: ClassVar[str] = "misc"
    complexity_params: ClassVar[dict[str, tuple[float, float]]] = {}
    param_variance: ClassVar[dict[str, float]] = {}
    example_command: ClassVar[str] = "command"
    invalid_reward: ClassVar[float] = -0.1

    def __init__(
        self,
        complexity: int = 1,
        enable_param_randomization: bool = True,
        max_turns: int | None = None,
        seed: int | None = None,
        **_: Any,
    ) -> None:
        self._complexity = validate_complexity(complexity)
        self._next_complexity = self._complexity
        self.enable_param_randomization = enable_param_randomization
        self._max_turns_override = max_turns
        self.max_turns = max_turns or 30
        self.rng = random.Random(seed)
        self.params: dict[str, Any] = {}
        self.turn = 0
        self.done = True
        self._evolver: ThresholdCurriculum | None = None
        # The parameters' lines depend on the level only, so they are worked out once per level.
        self._lines: list[ParamLine] = []
        self._lines_level = 0

    # -- complexity ---------------------------------------------------------------------------
    def evolve(
        self,
        step_success_rate: float,
        up_threshold: float = 0.8,
        down_threshold: float = 0.1,
        up_steps: int = 3,
        down_steps: int = 3,
        max_complexity: int = 10,
        min_complexity: int = 1,
    ) -> int:
        """GymVerse's ``evolve``: feed one step's success rate to a threshold curriculum."""
        settings = dict(
            up_threshold=up_threshold, down_threshold=down_threshold, up_steps=up_steps,
            down_steps=down_steps, max_complexity=max_complexity, min_complexity=min_complexity,
        )
        if self._evolver is None or any(getattr(self._evolver, k) != v for k, v in settings.items()):
            start = min(max(self._next_complexity, min_complexity), max_complexity)
            self._evolver = ThresholdCurriculum(start=start, **settings)
        level = self._evolver.update("self", step_success_rate)
        self.set_complexity(level)
        return level

    # -- episode ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        if seed is not None:
            self.rng.seed(seed)
        self._complexity = self._next_complexity
        if self._lines_level != self._complexity:
            self._lines = param_lines(self.complexity_params, self.param_variance, self._complexity)
            self._lines_level = self._complexity
        self.params = draw_params(self._lines, self.rng if self.enable_param_randomization else None)
        self.turn = 0
        self.done = False
        observation = self._new_episode()
        self.max_turns = self._max_turns_override or self.turn_limit()
        return observation, self._info()

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.done:
            return "The episode is over. Call reset() to start a new one.", 0.0, True, False, self._info(False)
        self.turn += 1
        command = extract_boxed(action)
        if not command:
            feedback = Feedback(
                "Format error: no command found. " + FORMAT_HINT % self.example_command,
                reward=self.invalid_reward,
            )
        else:
            try:
                feedback = self._play(command)
            except InvalidAction as error:
                feedback = Feedback(f"Invalid action: {error}", reward=self.invalid_reward)
        truncated = not feedback.done and self.turn >= self.max_turns
        text = feedback.text
        if truncated:
            text += f"\nOut of turns ({self.max_turns}). " + self._reveal()
        self.done = feedback.done or truncated
        info = self._info(feedback.success if self.done else None)
        return text.strip(), float(feedback.reward), feedback.done, truncated, info

    def _info(self, success: bool | None = None) -> dict[str, Any]:
        """The step's info; ``success`` is given on the last step of an episode only."""
        info = {"suffix": self.status(), "complexity": self._complexity, "turn": self.turn}
        if success is not None:
            info["success"] = success
        return info

    def sample_random_action(self) -> str:
        return self.random_action(random.Random())

    def random_action(self, rng: random.Random) -> str:
        """A random well-formed command for the current state (not necessarily a good one).

        Drawn from ``rng``, never from ``self.rng``, so random play does not disturb the game's
        own random stream. Baseline agents (random, epsilon-solver) are made of this.
        """
        return "\\boxed{%s}" % self.example_command

    # -- what games implement -----------------------------------------------------------------
    def _new_episode(self) -> str:
        raise NotImplementedError

    def _play(self, command: str) -> Feedback:
        raise NotImplementedError

    def oracle_action(self) -> str:
        raise NotImplementedError

    def turn_limit(self) -> int:
        """Turns allowed this episode; games scale it with their parameters."""
        return 30

    def status(self) -> str:
        """A short line about the current state, shown after each observation."""
        return f"Turn {self.turn}/{self.max_turns}."

    def _reveal(self) -> str:
        """What the agent is told when it runs out of turns (e.g. the hidden answer)."""
        return ""
