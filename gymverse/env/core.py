"""``EvolvableEnv``: the base every gymverse game builds on.

A game subclass declares its complexity parameters and the highest complexity it plays correctly and
fast at (``max_complexity``), and implements three hooks:

* ``_new_episode()`` builds an instance from ``self.params`` using ``self.rng`` and returns
  the opening observation (rules, legal commands, an example);
* ``_play(command)`` applies one parsed command and returns a :class:`Feedback`
  (raise :class:`InvalidAction` for a command that breaks the syntax or is out of range);
* ``_solve()`` returns a correct next reply, boxed, from the current state.

The base does everything else: seeding, complexity and its limit, parameters chosen by a caller,
parsing ``\\boxed{...}``, the turn limit (from ``self.budget`` when the game sets one), rewards for
malformed replies, ``info["success"]`` on the last step, and no solver move once the episode is over.
"""

import random
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

import gem

from gymverse.env.complexity import ParamLine, check_params, draw_params, param_lines, param_ranges, validate_complexity
from gymverse.env.evolve import Streaks, Thresholds, check_success_rate, threshold_step
from gymverse.env.parsing import InvalidAction, extract_boxed

LIBRARY_PACKAGE = "gymverse.envs"  # the built-in games: gymverse.envs.<domain>.<module>

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
    """A complexity that changes at the next ``reset``, never in the running episode.

    ``max_complexity``, where a game declares it, is the highest complexity it accepts; ``None``
    (third-party games that declare nothing) accepts any.
    """

    _complexity: int
    _next_complexity: int
    max_complexity: ClassVar[int | None] = None

    def set_complexity(self, complexity: int) -> None:
        """Use ``complexity`` from the next ``reset`` on; the running episode is unchanged.

        Raises ValueError for anything but an integer from 1 to ``max_complexity``."""
        self._next_complexity = validate_complexity(complexity, self.max_complexity, type(self).__name__)

    def get_complexity(self) -> int:
        """The complexity the next episode will use."""
        return self._next_complexity

    @property
    def complexity(self) -> int:
        """The complexity of the current episode."""
        return self._complexity


class EvolvableEnv(ComplexityKnob, gem.Env):
    """A complexity-controlled text game on GEM's ``Env``.

    Contract, beyond GEM's ``reset``/``step``:

    * ``set_complexity(c)`` / ``get_complexity()``: ``c`` takes effect at the next ``reset``. A built-in game
      declares ``max_complexity`` (at least 20), the highest complexity it plays correctly and fast at;
      ``set_complexity`` or the constructor above it raise a ValueError naming the limit.
    * ``set_params(values)``: start the following episodes with given parameter values instead of drawn ones
      (for example a generated task: ``{"towns": 12}``), each within :meth:`param_ranges`, the values the
      game's parameters take from level 1 to its highest complexity, so its solver still wins. Parameters not
      given are drawn as usual at the episode's complexity. It takes effect at the next ``reset`` and holds
      until changed; ``set_params({})`` goes back to drawing every parameter. A name the game does not
      have, or a value outside its range (or not an integer where the range is of integers), raises a
      ValueError saying what is allowed.
    * ``oracle_action()``: a correct next reply from the current state, boxed; ``None`` once the episode is over.
    * ``random_action(rng)``: a random well-formed reply, drawn from ``rng`` (never the game's own ``self.rng``).
    * ``evolve(success_rate, ...)``: GymVerse's threshold rule, for GymVerse code (see :meth:`evolve`).

    ``domain`` is what the game is about; a built-in game's is the name of its folder in ``envs/``.
    """

    domain: ClassVar[str] = "misc"
    complexity_params: ClassVar[dict[str, tuple[float, float]]] = {}
    param_variance: ClassVar[dict[str, float]] = {}
    example_command: ClassVar[str] = "command"
    invalid_reward: ClassVar[float] = -0.1

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        package = cls.__module__.rpartition(".")[0]
        if "domain" not in vars(cls) and package.startswith(f"{LIBRARY_PACKAGE}."):
            cls.domain = package.rpartition(".")[2]

    def __init__(
        self,
        complexity: int = 1,
        enable_param_randomization: bool = True,
        max_turns: int | None = None,
        seed: int | None = None,
        **_: Any,
    ) -> None:
        self._complexity = validate_complexity(complexity, self.max_complexity, type(self).__name__)
        self._next_complexity = self._complexity
        self.enable_param_randomization = enable_param_randomization
        self._max_turns_override = max_turns
        self.max_turns = max_turns or 30
        self.rng = random.Random(seed)
        self.params: dict[str, Any] = {}
        self._chosen_params: dict[str, Any] = {}  # set_params's values, used at every reset
        self.budget: int | None = None  # the moves the game's rules allow this episode, when it counts them
        self.turn = 0
        self.done = True
        self.evolver: tuple[tuple[Thresholds, int, int], Streaks] | None = None  # evolve()'s settings and streaks
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
        """GymVerse's ``evolve``: feed one step's success rate to the threshold rule (capped at the game's
        ``max_complexity``) and use the complexity it returns from the next ``reset`` on. The rule's streaks
        start over whenever the settings change."""
        thresholds = Thresholds(up_threshold, down_threshold, up_steps, down_steps)
        settings = (thresholds, min_complexity, max_complexity)
        ceiling = min(max_complexity, self.max_complexity or max_complexity)
        if self.evolver is None or self.evolver[0] != settings:
            start = min(max(self.get_complexity(), min_complexity), ceiling)
            if start < min_complexity:
                raise ValueError(f"start complexity {start} is outside [{min_complexity}, {max_complexity}]")
            self.evolver = (settings, Streaks(start))
        state = self.evolver[1]
        complexity = threshold_step(state, check_success_rate(step_success_rate), thresholds, min_complexity, ceiling)
        state.complexity = complexity
        self.set_complexity(complexity)
        return complexity

    @classmethod
    def param_ranges(cls) -> dict[str, tuple[int | float, int | float]]:
        """``{name: (low, high)}``: the values :meth:`set_params` accepts, those each parameter takes from level 1
        to the game's highest complexity (level 20 for a game that declares none)."""
        return param_ranges(cls.complexity_params, cls.max_complexity or 20)

    def set_params(self, values: Mapping[str, int | float]) -> None:
        """Start every episode from the next ``reset`` on with these parameter values (see the class docstring)."""
        self._chosen_params = check_params(values, self.param_ranges(), type(self).__name__)

    # -- episode ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        if seed is not None:
            self.rng.seed(seed)
        self._complexity = self._next_complexity
        if self._lines_level != self._complexity:
            self._lines = param_lines(self.complexity_params, self.param_variance, self._complexity)
            self._lines_level = self._complexity
        self.params = draw_params(self._lines, self.rng if self.enable_param_randomization else None)
        if self._chosen_params:
            self.params.update(self._chosen_params)
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

    def _solve(self) -> str:
        raise NotImplementedError

    def oracle_action(self) -> str | None:
        """The solver's next reply, boxed; None once the episode is over (there is no next move)."""
        return None if self.done else self._solve()

    extra_turns: ClassVar[int] = 3

    def turn_limit(self) -> int:
        """Turns allowed this episode: the game's ``budget`` of moves, when it sets one in ``_new_episode``,
        plus ``extra_turns`` for replies that break the syntax; 30 otherwise. Games may count it their own way."""
        return 30 if self.budget is None else self.budget + self.extra_turns

    def _within_budget(self, text: str, used: int, moves: str) -> Feedback:
        """``text`` as a move's feedback, or a loss once ``used`` moves have spent the budget ("No ``moves``
        left"), on a line of its own after a text of several lines (a board)."""
        if self.budget is None or used < self.budget:
            return Feedback(text)
        end = "\n" if "\n" in text else " "
        return lose(f"{text}{end}No {moves} left. You lost. {self._reveal()}")

    def status(self) -> str:
        """A short line about the current state, shown after each observation."""
        return f"Turn {self.turn}/{self.max_turns}."

    def _reveal(self) -> str:
        """What the agent is told when it runs out of turns (e.g. the hidden answer)."""
        return ""
