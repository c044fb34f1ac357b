"""``check_env``: an env checker in the spirit of Gymnasium's, that also plays the game.

Beyond API shapes it checks determinism, that the reference solver wins at every level,
that hostile replies never raise, that a complexity change waits for the next reset, and
that every episode ends within its turn limit. Success is read by the contract's one rule
(:mod:`gymverse.env.success`).

A failed check refuses the game (a crash, a hang, nondeterminism, a reward for a hostile reply,
a win by an empty reply). A warning accepts it with a mark: a slow step, success inferred
from the reward, no solver to prove it solvable.
"""

import random
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import gem

from gymverse.env.core import EvolvableEnv
from gymverse.env.players import Moves, RandomMoves, RepeatedMove, ScriptedMoves, SolverMoves, random_move
from gymverse.env.registry import DeferComplexity, PlaysInner, env_class
from gymverse.env.success import INFERRED_NOTE, episode_success, success_is_reported
from gymverse.env.values import reset_problem, step_problem

STEP_BUDGET_S = 0.05
DETERMINISM_STEPS = 40
LONG_REPLY = 1000  # characters
LONGEST_REPLY = 8000  # characters: about what a 2,000-token reply can hold
PLAIN = (str, int, float, list, dict, type(None))  # what a text game's reply can be
HANG_LIMIT_S = 10.0

BAD_ACTIONS: list[Any] = [
    "",
    "   \n\t ",
    "garbage",
    "\\boxed{}",
    "\\boxed{   }",
    "\\boxed{xyzzy}",
    "\\boxed{" + "x" * 100_000 + "}",
    "a" * 100_000,
    "\\boxed{" * 5_000,
    "}" * 5_000 + "\\boxed{",
    "\\boxed{{{}",
    "\\boxed{a}}}}",
    "\\boxed{\\boxed{1}}",
    "\\boxed{{nested {braces}}}",
    "\\boxed{ünïcødé ☃ 日本語}",
    "\\boxed{\x00\x01\x02}",
    "\\boxed{1 2 3 4 5 6 7 8 9}",
    "\\boxed{-1}",
    "\\boxed{99999999999999999999999}",
    "\\boxed{1e308}",
    "\\boxed{nan}",
    None,
    123,
    4.5,
    b"\\boxed{1}",
    ["\\boxed{1}"],
    {"action": 1},
    object(),
]


def bad_actions_for(env: Any) -> list[Any]:
    """The generic hostile replies plus wrong-arity and out-of-range forms of the game's own command."""
    verb = getattr(env, "example_command", "").split(" ")[0] or "go"
    own = [
        f"\\boxed{{{verb}}}",
        f"\\boxed{{{verb} 1 2 3 4 5 6}}",
        f"\\boxed{{{verb} -1}}",
        f"\\boxed{{{verb} 1000000000}}",
        f"\\boxed{{{verb} abc}}",
        f"\\boxed{{{verb} 1.5}}",
    ]
    return BAD_ACTIONS + own


@dataclass
class CheckResult:
    name: str
    passed: bool | None  # None: not applicable (e.g. no solver)
    detail: str = ""
    warning: str = ""  # set on a check that accepts the game with a mark


@dataclass
class CheckReport:
    env_id: str
    results: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(r.passed is not False for r in self.results)

    @property
    def verdict(self) -> str:
        """``FAIL`` (refused), ``pass with warnings`` (accepted with a mark) or ``pass``."""
        return "FAIL" if not self.passed else "pass with warnings" if self.warnings() else "pass"

    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if r.passed is False]

    def warnings(self) -> list[CheckResult]:
        return [r for r in self.results if r.warning]

    def problems(self) -> list[str]:
        """One line per failure (checks that failed alike share it), then one per warning."""
        alike: dict[str, list[str]] = {}
        for r in self.failures():
            alike.setdefault(r.detail, []).append(r.name)
        return [f"{', '.join(names)}: {detail}" for detail, names in alike.items()] + [
            f"warning: {r.warning}" for r in self.warnings()
        ]

    def __str__(self) -> str:
        marks = {True: "ok", False: "FAIL", None: "n/a"}
        lines = [f"{self.env_id}: {self.verdict}"]
        for r in self.results:
            lines.append(
                f"  {marks[r.passed]:4} {r.name}: {r.detail}" + (f" [warning: {r.warning}]" if r.warning else "")
            )
        return "\n".join(lines)


class CheckFailure(Exception):
    pass


class EpisodeNeverEnds(CheckFailure):
    pass


class CheckWarning(Exception):
    """Raised by a check that passes with a mark; its message is the warning."""

    def __init__(self, warning: str, detail: str = "") -> None:
        super().__init__(warning)
        self.detail = detail


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``TimeoutError`` in the block after ``seconds`` (main thread on POSIX; else no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(*_: Any) -> None:
        raise TimeoutError(f"no answer within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _factory(env: str | type | Callable[..., gem.Env]) -> tuple[str, Callable[[int], gem.Env]]:
    if isinstance(env, str):
        env_class(env)  # a clear error for an unknown id
        return env, lambda level: gem.make(env, complexity=level)
    return getattr(env, "__name__", repr(env)), lambda level: env(complexity=level)


def last_reward(trace: list[tuple]) -> float:
    return trace[-1][1] if len(trace) > 1 else 0.0


def won(trace: list[tuple], info: dict) -> bool:
    """Whether the episode ``play`` returned was won, by the contract's success rule."""
    return episode_success(info, last_reward(trace))


def _check_types(out: Any) -> None:
    """A step's reply must keep the contract's value rules: a finite real reward, bool flags, text, ..."""
    if problem := step_problem(out):
        raise CheckFailure(problem)


def _reset(env: gem.Env, seed: int) -> str:
    out = env.reset(seed=seed)
    if problem := reset_problem(out):
        raise CheckFailure(problem)
    return out[0]


def play(
    env: gem.Env, choose: Callable[[gem.Env], Any], seed: int, prefix: int | None = None, actions: list | None = None
) -> tuple[list[tuple], dict]:
    """One episode with ``choose(env) -> action``; returns the trace and the last info, and appends the
    moves to ``actions`` if given.

    Fails if the episode has not ended within the env's ``max_turns`` (read after reset); with ``prefix``,
    stops after that many steps instead, whether it ended or not.
    """
    trace: list[tuple] = [(_reset(env, seed),)]
    limit = _turn_cap(env)
    out: tuple = ()
    for action, out in steps(env, choose, min(limit, prefix or limit)):
        if actions is not None:
            actions.append(action)
        trace.append(out[:4])
        if out[2] or out[3]:
            return trace, out[4]
    if prefix is not None:
        return trace, out[4] if out else {}
    raise EpisodeNeverEnds(f"episode did not end within {limit} steps")


def steps(env: gem.Env, choose: Callable[[gem.Env], Any], count: int) -> Iterator[tuple[Any, tuple]]:
    """Up to ``count`` steps of ``choose``'s moves from the env's state, each ``(move, step's reply)`` with
    its types checked, until the episode ends. A jailed game plays :class:`Moves` inside its jail."""
    jailed = env
    while isinstance(jailed, PlaysInner):
        jailed = jailed.inner
    if isinstance(choose, Moves) and hasattr(type(jailed), "play_on"):
        played = jailed.play_on(choose, count)
    else:
        played = _one_at_a_time(env, choose, count)
    for action, out in played:
        _check_types(out)
        yield action, out
        if out[2] or out[3]:
            return


def _one_at_a_time(env: gem.Env, choose: Callable[[gem.Env], Any], count: int) -> Iterator[tuple[Any, tuple]]:
    for _ in range(count):
        action = choose(env)
        yield action, env.step(action)


def _turn_cap(env: gem.Env) -> int:
    return int(getattr(env.unwrapped, "max_turns", 100) or 100) + 1


def _oracle(env: gem.Env) -> str:
    return env.unwrapped.oracle_action()


def check_api(make: Callable[[int], gem.Env]) -> str:
    env = make(1)
    base = env.unwrapped
    for name in ("set_complexity", "get_complexity"):
        if not callable(getattr(base, name, None)):
            raise CheckFailure(f"missing {name}()")
    _reset(env, 0)
    out = env.step(random_move(env, random.Random(0)))
    _check_types(out)
    return "reset/step shapes and types, complexity methods"


def check_success_flag(make: Callable[[int], gem.Env]) -> str:
    """Does the game say whether an episode was won? If not, success is inferred (a warning)."""
    _, info = play(make(1), RandomMoves(random.Random(0)), 0)
    if not success_is_reported(info):
        raise CheckWarning(INFERRED_NOTE, "the last step's info has no 'success'")
    return "info['success'] on the last step"


def check_determinism(make: Callable[[int], gem.Env], levels: Iterable[int], seeds: int) -> str:
    """Same seed, complexity and action sequence (solver moves mixed with random ones) -> same trace, over the
    first ``DETERMINISM_STEPS`` steps of each episode (whether an episode ends is the other checks' concern)."""
    for level in levels:
        for seed in range(seeds):
            traces = []
            for _ in range(2):
                env = make(level)
                picker = random.Random(seed)
                choose = SolverMoves(picker, 0.3) if hasattr(env.unwrapped, "oracle_action") else RandomMoves(picker)
                traces.append(play(env, choose, seed, DETERMINISM_STEPS)[0])
            if traces[0] != traces[1]:
                first = (
                    next(i for i, (a, b) in enumerate(zip(*traces)) if a != b)
                    if len(traces[0]) == len(traces[1])
                    else min(len(traces[0]), len(traces[1]))
                )
                raise CheckFailure(f"level {level}, seed {seed}: traces differ at step {first}")
    return f"levels {list(levels)}, {seeds} seeds, {DETERMINISM_STEPS} steps"


def check_solver(make: Callable[[int], gem.Env], levels: Iterable[int], seeds: int) -> str:
    lost = []
    for level in levels:
        env = make(level)
        for seed in range(seeds):
            if not won(*play(env, SolverMoves(random.Random(seed)), seed)):
                lost.append((level, seed))
    if lost:
        raise CheckFailure(f"solver lost {len(lost)} episodes, first at (level, seed) = {lost[:5]}")
    levels = list(levels)
    return f"won every episode at levels {levels[0]}..{levels[-1]} x {seeds} seeds"


def check_bad_actions(make: Callable[[int], gem.Env], levels: Iterable[int], text_contract: bool = False) -> str:
    """Hostile replies must not raise nor earn a reward; a slow answer to one is a warning.

    With ``text_contract`` (games written elsewhere, whose contract is text) a non-string reply that
    raises is a warning, not a failure, replies that are not even plain data (bytes, objects) are not sent,
    and the long replies are cut to ``LONGEST_REPLY`` characters and played at the lowest level only
    (parsers written elsewhere are often quadratic in them: seconds per full-length reply, whatever the level).
    """
    slowest, slow, refused = 0.0, "", set()
    for i, level in enumerate(levels):
        env = make(level)
        for action in bad_actions_for(env.unwrapped):
            if text_contract and (
                not isinstance(action, PLAIN) or i > 0 and isinstance(action, str) and len(action) > LONG_REPLY
            ):
                continue
            if text_contract and isinstance(action, str):
                action = action[:LONGEST_REPLY]
            _reset(env, level)
            start = time.perf_counter()
            try:
                out = env.step(action)
            except Exception as error:
                if text_contract and not isinstance(action, str):
                    refused.add(type(action).__name__)
                    continue
                raise CheckFailure(f"level {level}: {_short(action)} raised {type(error).__name__}: {error}") from None
            elapsed = time.perf_counter() - start
            _check_types(out)
            if elapsed > max(slowest, STEP_BUDGET_S):
                slow = f"level {level}: {_short(action)} took {elapsed * 1000:.0f} ms"
            slowest = max(slowest, elapsed)
            if out[1] > 0:
                raise CheckFailure(f"level {level}: {_short(action)} earned reward {out[1]}")
    detail = f"{len(bad_actions_for(env.unwrapped))} hostile replies, slowest step {slowest * 1000:.1f} ms"
    marks = ([f"slow on a pathological reply ({slow})"] if slow else []) + (
        [f"raises on replies that are not text ({', '.join(sorted(refused))})"] if refused else []
    )
    if marks:
        raise CheckWarning("; ".join(marks), detail)
    return detail


def check_step_time(make: Callable[[int], gem.Env], level: int, seeds: int) -> str:
    """Solver play at ``level``: no step may exceed the budget."""
    env = make(level)
    if not hasattr(env.unwrapped, "oracle_action"):
        return "no solver to drive the game"
    slowest = 0.0
    for seed in range(seeds):
        _reset(env, seed)
        for _ in range(_turn_cap(env)):
            action = _oracle(env)
            start = time.perf_counter()
            out = env.step(action)
            slowest = max(slowest, time.perf_counter() - start)
            if out[2] or out[3]:
                break
    detail = f"slowest step at level {level}: {slowest * 1000:.2f} ms"
    if slowest > STEP_BUDGET_S:
        raise CheckWarning(f"slow: a solver step at level {level} took {slowest * 1000:.0f} ms", detail)
    return detail


CHANGED_RUNNING_EPISODE = "set_complexity changed the running episode"


def check_complexity_timing(make: Callable[[int], gem.Env], start: int = 2, target: int = 6) -> str:
    """A change from ``start`` to ``target`` mid-episode leaves the episode as it was and shows at the next reset.

    The two episodes are played one after the other, never interleaved, so games that draw from
    the module-level ``random`` (which ``reset(seed)`` seeds) are judged fairly.
    """
    plain, changed = make(start), make(start)
    choose = (
        SolverMoves(random.Random(0)) if hasattr(plain.unwrapped, "oracle_action") else RandomMoves(random.Random(0))
    )
    actions: list[Any] = []
    expected, _ = play(plain, choose, 7, actions=actions)
    trace = [(_reset(changed, 7),)]
    if trace[0] != expected[0]:
        raise CheckFailure("two fresh envs with the same seed start differently")
    changed.unwrapped.set_complexity(target)
    trace += [out[:4] for _, out in steps(changed, ScriptedMoves(actions), len(actions))]
    if trace != expected:
        raise CheckFailure(CHANGED_RUNNING_EPISODE)
    _, info = changed.reset(seed=7)
    level = getattr(changed.unwrapped, "complexity", info.get("complexity"))
    if level != target:
        raise CheckFailure(f"after set_complexity({target}) the next episode runs at {level}")
    return "applied at the next reset only"


DEFERRED_NOTE = (
    "set_complexity takes effect at once: the game is played behind a wrapper that defers it to the next reset"
)


def check_deferred_complexity_timing(make: Callable[[int], gem.Env], start: int = 2, target: int = 6) -> str:
    """:func:`check_complexity_timing` for a game written elsewhere: one that applies a new complexity at once
    passes with a mark when, behind :class:`DeferComplexity` (as it is then played), the change waits."""
    try:
        return check_complexity_timing(make, start, target)
    except CheckFailure as failure:
        if str(failure) != CHANGED_RUNNING_EPISODE:
            raise
    detail = check_complexity_timing(lambda level: DeferComplexity(make(level)), start, target)
    raise CheckWarning(DEFERRED_NOTE, f"{detail}, behind the wrapper")


def timing_levels(highest: int | None) -> tuple[int, int]:
    """The change :func:`check_complexity_timing` makes: 2 -> 6, or within a lower declared limit."""
    target = 6 if highest is None else min(6, highest)
    return (2 if target > 2 else 1), target


def check_episode_ends(make: Callable[[int], gem.Env], levels: Iterable[int], seeds: int) -> str:
    """Replies that never win, and random play, must still end the episode within max_turns."""
    for level in levels:
        env = make(level)
        for action in ("\\boxed{}", "no box at all"):
            if won(*play(env, RepeatedMove(action), 0)):
                raise CheckFailure(f"level {level}: {action!r} won the game")
        for seed in range(seeds):
            try:
                play(env, RandomMoves(random.Random(seed)), seed)
            except EpisodeNeverEnds as never:
                raise EpisodeNeverEnds(f"random play at level {level}, seed {seed}: {never}") from None
    return f"format errors and random play ({seeds} seeds) end within max_turns"


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _short(action: Any) -> str:
    text = repr(action)
    return text if len(text) <= 40 else text[:37] + "..."


def check_env(
    env: str | type | Callable[..., gem.Env],
    levels: Iterable[int] = range(1, 21),
    seeds: int = 5,
    hang_limit_s: float = HANG_LIMIT_S,
    env_id: str | None = None,
    text_contract: bool | None = None,
) -> CheckReport:
    """Run every check on ``env`` (a registered id, an env class or a factory taking ``complexity``).

    ``env_id`` names the game in the report (default: the id, or the class's name). Levels above the
    game's declared ``max_complexity`` are left out: a game is checked up to its own limit.
    ``text_contract``: the game promises text only (see :func:`check_bad_actions`); by default, every game
    but an in-process :class:`EvolvableEnv`, whose contract also covers replies that are not text.
    """
    name, make = _factory(env)
    report = CheckReport(env_id or name)
    try:
        game = make(1).unwrapped
    except Exception as error:
        report.results.append(CheckResult("construct", False, _error_text(error)))
        return report
    has_solver = hasattr(game, "oracle_action")
    if text_contract is None:
        text_contract = not isinstance(getattr(game, "inner", game), EvolvableEnv)
    highest = getattr(game, "max_complexity", None)
    levels = [level for level in levels if highest is None or level <= highest] or [highest]  # type: ignore[list-item]
    edge_levels = sorted({levels[0], levels[len(levels) // 2], levels[-1]})
    timing = check_deferred_complexity_timing if text_contract else check_complexity_timing
    checks: list[tuple[str, Callable[[], str] | None]] = [
        ("api", lambda: check_api(make)),
        ("success flag", lambda: check_success_flag(make)),
        ("determinism", lambda: check_determinism(make, edge_levels, min(seeds, 3))),
        ("solver", (lambda: check_solver(make, levels, seeds)) if has_solver else None),
        ("step time", lambda: check_step_time(make, levels[-1], min(seeds, 3))),
        ("bad actions", lambda: check_bad_actions(make, edge_levels, text_contract)),
        ("complexity timing", lambda: timing(make, *timing_levels(highest))),
        ("episode ends", lambda: check_episode_ends(make, edge_levels, min(seeds, 3))),
    ]
    hung = ""  # the check a hang ended: a game that hangs fails once, not once per check at its time limit
    for name, run in checks:
        if run is None:
            report.results.append(
                CheckResult(name, None, "the env has no oracle_action()", "no solver: solvability is unproven")
            )
            continue
        if hung:
            report.results.append(CheckResult(name, None, f"not run: the game hung in the {hung} check"))
            continue
        try:
            with time_limit(hang_limit_s * max(1, len(levels) * seeds / 20)):
                report.results.append(CheckResult(name, True, run()))
        except CheckWarning as warning:
            report.results.append(CheckResult(name, True, warning.detail, str(warning)))
        except CheckFailure as failure:
            report.results.append(CheckResult(name, False, str(failure)))
        except TimeoutError as error:
            report.results.append(CheckResult(name, False, f"hang: {error}"))
            hung = name
        except Exception as error:
            report.results.append(CheckResult(name, False, f"raised {_error_text(error)}"))
    return report
