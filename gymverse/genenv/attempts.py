"""The agent's ``n`` attempts at each generated task, and its success rate ``p`` on it.

Games: every attempt at a spec replays the same instance (same game, complexity, parameters and seed),
as one episode of the existing multi-turn rollout; ``p`` is the fraction of those episodes won.
Datasets: ``n`` sampled replies to the task's prompt, each scored by the reward manager; ``p`` is the
mean reward clipped to [0, 1] (the success rate when rewards are 0 or 1).
"""

from dataclasses import dataclass
from typing import Any, Sequence

from gymverse.episodes import Episode, Turn
from gymverse.genenv.reward_managers import safe_reward
from gymverse.genenv.specs import GameSpec


def play_specs(
    policy: Any,
    specs: Sequence[GameSpec],
    attempts: int,
    template: str,
    wrappers: str = "",
    tokenizer: Any = None,
    max_model_len: int | None = None,
) -> list[list[Episode]]:
    """``attempts`` episodes of each spec (every spec must carry its seed), grouped by spec, in order."""
    from gymverse.env.groups import make_env_group
    from gymverse.episodes import collect_episodes

    played: list[list[Episode]] = [[] for _ in specs]
    for game in dict.fromkeys(spec.game for spec in specs):
        indices = [k for k, spec in enumerate(specs) if spec.game == game]
        group = make_env_group(game, len(indices) * attempts, wrappers, complexity=1, tokenizer=tokenizer)
        seeds: list[int] = []
        for j, k in enumerate(indices):
            for copy in group.envs[j * attempts : (j + 1) * attempts]:
                start_with(copy.unwrapped, specs[k])
            seed = specs[k].seed
            assert seed is not None, "play_specs plays specs that carry their seed"
            seeds += [seed] * attempts
        episodes = collect_episodes(
            policy,
            group,
            game,
            len(seeds),
            template=template,
            tokenizer=tokenizer,
            max_model_len=max_model_len,
            seed=seeds,
        )
        for j, k in enumerate(indices):
            played[k] = episodes[j * attempts : (j + 1) * attempts]
    return played


def start_with(env: Any, spec: GameSpec) -> None:
    """Make ``env``'s next episode the one ``spec`` describes (its seed is given at reset)."""
    env.set_complexity(spec.complexity)
    if hasattr(env, "set_params"):
        env.set_params(spec.params)


def success_rate(episodes: Sequence[Episode]) -> float:
    return sum(e.success for e in episodes) / len(episodes) if episodes else 0.0


@dataclass
class Reply:
    """One attempt at a dataset task: the reply as a turn (tokens for training) and its reward."""

    turn: Turn
    reward: float
    reason: str | None = None  # why the reward manager gave no reward (it raised, or returned no number)


def answer_tasks(
    policy: Any, prompts: Sequence[str], truths: Sequence[Any], attempts: int, manager: Any
) -> list[list[Reply]]:
    """``attempts`` replies to each templated prompt, scored against its ground truth, grouped by prompt; the
    first ``manager.num_examine`` of them are printed (GenEnv's debugging switch)."""
    generations = policy.generate([p for p in prompts for _ in range(attempts)], stop_at_box=False)
    grouped = []
    examine = getattr(manager, "num_examine", 0) or 0
    for k, (prompt, truth) in enumerate(zip(prompts, truths)):
        replies = []
        for g in generations[k * attempts : (k + 1) * attempts]:
            reward, reason = safe_reward(manager, g.text, truth)
            turn = Turn(prompt, g.text, list(g.prompt_ids), list(g.response_ids), list(g.logprobs), reward, g.truncated)
            replies.append(Reply(turn, reward, reason))
            if examine > 0:
                examine -= 1
                print(f"[reward] reply {g.text!r} | ground truth {truth!r} | reward {reward}")
        grouped.append(replies)
    return grouped


def mean_reward_rate(replies: Sequence[Reply]) -> float:
    return sum(min(max(r.reward, 0.0), 1.0) for r in replies) / len(replies) if replies else 0.0
