"""Multi-turn episodes between a policy and a group of GEM vector envs (``gymverse.env.groups``).

``collect_episodes`` plays a group with a policy until the requested number of episodes has finished and
returns one :class:`Episode` record per episode, each turn with the token ids and log-probabilities that a
trainer needs.
"""

import random
from dataclasses import dataclass, field
from typing import Any, Sequence

import gem

from gymverse.env.success import episode_success
from gymverse.policy.base import Generation, Policy
from gymverse.prompts import BOXED_ANSWER_TEMPLATES, apply_template

ENDED_BY = ("terminated", "truncated", "context_overflow", "turn_limit", "game_error")


@dataclass
class Turn:
    prompt: str
    response: str
    prompt_ids: list[int]
    response_ids: list[int]
    logprobs: list[float]
    reward: float
    truncated_reply: bool  # the reply was cut by the generation length limit (the env got ``invalid_action``)


@dataclass
class Episode:
    env_id: str
    complexity: int | None  # the env's complexity when the episode began
    turns: list[Turn] = field(default_factory=list)
    success: bool = False
    episode_return: float = 0.0
    length: int = 0  # number of turns
    ended_by: str = "terminated"  # one of ENDED_BY
    copy: int = 0  # the copy of the env group that played it
    overflow_tokens: int = 0  # with ended_by "context_overflow": the tokens of the prompt that outgrew the context


def collect_episodes(
    policy: Policy,
    env_group: gem.Env,
    env_id: str,
    num_episodes: int,
    template: str = "qwen3_game",
    max_model_len: int | None = None,
    tokenizer: Any = None,
    seed: int | Sequence[int] | None = None,
    stop_at_box: bool | None = None,
    invalid_action: str = "",
    max_turns: int | None = None,
    sample_seeds: Sequence[int] | None = None,
) -> list[Episode]:
    """Play ``num_episodes`` whole episodes on ``env_group`` and return them in the order they began.

    The group is reset first, so complexity changes apply (``seed``: one int, copy ``i`` gets
    ``seed + i``, or one seed per copy; None continues each copy's own random stream). Copy ``i``
    plays the ``i``-th episode and each copy plays on until ``num_episodes`` episodes have begun;
    all of them are played to the end. Each round, the policy answers every running episode in
    one batch.

    * A prompt of ``max_model_len`` tokens or more (default: the policy's ``max_model_len``; counted
      with ``tokenizer``, default the policy's) ends its episode as a failure with
      ``ended_by="context_overflow"``; it may have no turns at all.
    * A reply cut by the generation length limit is sent to the env as ``invalid_action`` (an
      empty reply) and marked ``truncated_reply``: the env applies its own rule for malformed replies.
    * ``stop_at_box`` ends replies once their ``\\boxed{...}`` command closes. By default it is on
      for the templates in :data:`BOXED_ANSWER_TEMPLATES`; other templates keep the policy's setting.
    * ``max_turns`` ends an episode that the game has not ended after that many turns, as a failure with
      ``ended_by="turn_limit"`` (games written elsewhere may never end one).
    * ``sample_seeds``, one per episode in the order they begin: episode ``n`` draws every reply from
      ``random.Random(sample_seeds[n])`` (the policy's ``rngs``), so its draws do not depend on the
      other episodes or on the order they are played in. None: the policy's own random stream.
    """
    if num_episodes < 1:
        return []
    tokenizer = tokenizer or getattr(policy, "tokenizer", None)
    apply_template(template, "", tokenizer)  # fail before playing on a bad template
    if max_model_len is None:
        max_model_len = getattr(policy, "max_model_len", None)
    if max_model_len is not None and tokenizer is None:
        raise ValueError("max_model_len needs a tokenizer to count prompt tokens")
    if stop_at_box is None and template in BOXED_ANSWER_TEMPLATES:
        stop_at_box = True
    if sample_seeds is not None and len(sample_seeds) < num_episodes:
        raise ValueError(f"sample_seeds holds {len(sample_seeds)} seeds for {num_episodes} episodes")
    envs = env_group.envs
    observations, _ = env_group.reset(seed=seed)
    running: dict[int, Episode] = {}
    streams: dict[int, random.Random] = {}  # copy -> its episode's rng, with sample_seeds
    begun: list[Episode] = []

    def begin(i: int) -> None:
        episode = Episode(env_id=env_id, complexity=getattr(envs[i].unwrapped, "complexity", None), copy=i)
        if sample_seeds is not None:
            streams[i] = random.Random(sample_seeds[len(begun)])
        running[i] = episode
        begun.append(episode)

    def finish(i: int, ended_by: str, success: bool) -> None:
        episode = running.pop(i)
        episode.ended_by, episode.success = ended_by, success
        if len(begun) < num_episodes:
            begin(i)

    for i in range(min(len(envs), num_episodes)):
        begin(i)
    while running:
        prompts = {i: apply_template(template, observations[i], tokenizer) for i in sorted(running)}
        if max_model_len is not None:
            for i, prompt in list(prompts.items()):
                tokens = len(tokenizer.encode(prompt, add_special_tokens=False))
                if tokens >= max_model_len:
                    del prompts[i]
                    observations[i], _ = envs[i].reset()
                    running[i].overflow_tokens = tokens
                    finish(i, "context_overflow", success=False)
            if not prompts:
                continue
        indices = list(prompts)
        generations = policy.generate(
            [prompts[i] for i in indices],
            envs=[envs[i].unwrapped for i in indices],
            stop_at_box=stop_at_box,
            rngs=[streams[i] for i in indices] if sample_seeds is not None else None,
        )
        actions = {i: invalid_action if g.truncated else g.text for i, g in zip(indices, generations)}
        next_observations, rewards, terminated, truncated, infos = env_group.step(actions)
        for k, (i, generation) in enumerate(zip(indices, generations)):
            observations[i] = next_observations[k]
            episode = running[i]
            episode.turns.append(_turn(prompts[i], generation, float(rewards[k])))
            episode.episode_return += float(rewards[k])
            episode.length += 1
            if terminated[k] or truncated[k]:
                success = episode_success(infos[k].get("final_info"), float(rewards[k]))
                finish(i, "terminated" if terminated[k] else "truncated", success)
            elif max_turns is not None and episode.length >= max_turns:
                observations[i], _ = envs[i].reset()
                finish(i, "turn_limit", success=False)
    return begun


def _turn(prompt: str, generation: Generation, reward: float) -> Turn:
    return Turn(
        prompt=prompt,
        response=generation.text,
        prompt_ids=list(generation.prompt_ids),
        response_ids=list(generation.response_ids),
        logprobs=list(generation.logprobs),
        reward=reward,
        truncated_reply=generation.truncated,
    )
