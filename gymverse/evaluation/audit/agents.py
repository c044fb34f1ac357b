"""Scripted agents for the audit (solver, epsilon-solver, random) and the record of their play.

The audit drives games straight through their hooks, like the env checker: no prompts, no model.
One pass of play per (agent, level) feeds correctness (rewards, ``info["success"]``, replay),
difficulty (success against complexity) and diversity (texts, commands, lengths).
"""

from dataclasses import dataclass, field

from gymverse.env.checker import CheckFailure, EpisodeNeverEnds, play, steps, time_limit, won
from gymverse.env.parsing import extract_boxed, split_command
from gymverse.env.players import Moves, RandomMoves, ScriptedMoves, SolverMoves
from gymverse.env.success import success_is_reported
from gymverse.evaluation.targets import EnvTarget
from gymverse.sandbox import JailBroken
from gymverse.seeds import keyed_rng

SOLVER = "solver"
RANDOM = "random"


def epsilon_name(epsilon: float) -> str:
    return f"epsilon-{epsilon:g}"


def make_chooser(agent: str, seed: int) -> Moves:
    """``solver``, ``random`` or ``epsilon-<e>``: the solver's move, or with probability e a random one.

    The agent's generator is seeded apart from the game's (which ``reset(seed)`` seeds with the same
    number), so the agent's draws never mirror the game's hidden choices. A jailed game plays the moves inside
    its jail, a run of steps a request.
    """
    rng = keyed_rng(agent, seed)
    if agent == SOLVER:
        return SolverMoves(rng)
    if agent == RANDOM:
        return RandomMoves(rng)
    return SolverMoves(rng, float(agent.removeprefix("epsilon-")))


@dataclass
class EpisodeSummary:
    seed: int
    success: bool
    episode_return: float
    final_reward: float
    turns: int
    reward_outside_win: float  # everything but the winning step's reward: step rewards a game should not pay
    success_reported: bool = True  # False: the game set no info["success"]; success is inferred from the reward


@dataclass
class Transcript:
    """One whole episode, kept for replay and for the diversity section."""

    seed: int
    actions: list[str]
    trace: list[tuple]  # (observation,) after reset, then (observation, reward, terminated, truncated)


@dataclass
class LevelPlay:
    agent: str
    level: int
    episodes: list[EpisodeSummary] = field(default_factory=list)
    transcript: Transcript | None = None  # the first episode in full
    failure: tuple[str, str] | None = None  # (reason, detail) that stopped play at this level
    jail_broken: bool = False  # the failure ended the game's jail: it exited, hung, or broke a limit or the protocol

    @property
    def success_rate(self) -> float:
        return sum(e.success for e in self.episodes) / len(self.episodes) if self.episodes else 0.0

    @property
    def stopped_the_game(self) -> bool:
        """The game hung or broke its jail here: playing it again at this level or above would find the same fault
        again, at the cost of a time limit or a new jail each time."""
        return self.jail_broken or (self.failure is not None and self.failure[0] == "hang")

    @property
    def mismatches(self) -> list[EpisodeSummary]:
        """Episodes whose final reward and the game's own ``info["success"]`` disagree."""
        return [e for e in self.episodes if e.success_reported and (e.final_reward > 0) != e.success]


def play_level(target: EnvTarget, agent: str, level: int, seeds: list[int], episode_time_s: float = 10.0) -> LevelPlay:
    """Play one episode per seed; stop at the first crash, hang or episode that never ends."""
    record = LevelPlay(agent, level)
    try:
        env = target.make(level)
        for seed in seeds:
            actions: list[str] = []
            with time_limit(episode_time_s):
                trace, info = play(env, make_chooser(agent, seed), seed, actions=actions)
            rewards = [step[1] for step in trace[1:]]
            success = won(trace, info)
            record.episodes.append(
                EpisodeSummary(
                    seed,
                    success,
                    sum(rewards),
                    rewards[-1],
                    len(rewards),
                    sum(rewards) - (rewards[-1] if success else 0.0),
                    success_is_reported(info),
                )
            )
            if record.transcript is None:
                record.transcript = Transcript(seed, actions, trace)
    except EpisodeNeverEnds as failure:
        record.failure = ("episode_does_not_end", str(failure))
    except CheckFailure as failure:
        record.failure = ("bad_api", str(failure))
    except TimeoutError as failure:
        record.failure = ("hang", str(failure))
    except Exception as error:
        record.jail_broken = isinstance(error, JailBroken)
        record.failure = (
            error.reason if isinstance(error, JailBroken) else "crash",
            f"{type(error).__name__}: {error}",
        )
    return record


def replay(target: EnvTarget, level: int, transcript: Transcript) -> list[tuple]:
    """The trace of ``transcript.actions`` played on a fresh env with the same seed and level."""
    env = target.make(level)
    trace: list[tuple] = [(env.reset(seed=transcript.seed)[0],)]
    return trace + [out[:4] for _, out in steps(env, ScriptedMoves(transcript.actions), len(transcript.actions))]


def command_verbs(actions: list[str]) -> set[str]:
    """The first word of each boxed command: a game's command vocabulary as agents use it."""
    verbs = set()
    for action in actions:
        command = extract_boxed(action)
        if command:
            verbs.add(split_command(command)[0])
    return verbs
