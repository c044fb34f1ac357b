"""Multi-turn episodes between a policy and a group of GEM vector envs.

``make_env_group`` builds ``num_env`` copies of one env id (with GEM's wrappers); ``collect_episodes``
plays them with a policy until the requested number of episodes has finished and returns one
:class:`Episode` record per episode, each turn with the token ids and log-probabilities that a
trainer needs.

A game's status line is its ``info["suffix"]``, which GEM's observation wrappers (``concat`` and the
others) put after the observations; without one of them, :class:`StatusAfterObservation` puts it after
the latest observation, so every prompt shows the status once.

GEM's vector envs reset an env in the same ``step`` that ends its episode, so the observation and
info they return then already belong to the next episode. The :class:`KeepFinalInfo` wrapper that
``make_env_group`` adds hands the last step's info to the following reset (as ``final_info``), which
is how ``collect_episodes`` learns whether an episode was won.
"""

import contextlib
import io
import random
from dataclasses import dataclass, field
from typing import Any, Sequence

import gem

from gymverse.env.success import episode_success
from gymverse.policy.base import Generation, Policy

_IM_USER = "<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n"

# Prompt templates: observation -> the text the policy continues. qwen3_game is GymVerse's wording;
# the others are ours, in the same spirit.
TEMPLATES: dict[str, str | None] = {
    "qwen3_game": _IM_USER.format(
        "You are playing language games. Make valid actions to win.\nObservation: {observation}"
        "\nPlease reason step by step, and put your final answer within \\boxed{{}}."
    ),
    "qwen3_general": _IM_USER.format(
        "Question: {observation}\nPlease reason step by step, and put your final answer within \\boxed{{}}."
    ),
    "qwen3_tool": _IM_USER.format(
        "You can use the tools described below as often as you need before answering.\n{observation}"
        "\nThink step by step, call a tool whenever it helps, and put your final answer within \\boxed{{}}."
    ),
    "code": _IM_USER.format(
        "Solve the following programming task. Write your complete solution in one Python code block "
        "(```python ... ```).\n{observation}"
    ),
    "no": "{observation}",
    "chat": None,  # the tokenizer's own chat template, one user turn
}
# Templates that ask for the answer in \boxed{}: replies there stop once the box closes (by default).
BOXED_ANSWER_TEMPLATES = frozenset({"qwen3_game", "qwen3_general", "qwen3_tool"})

ENDED_BY = ("terminated", "truncated", "context_overflow", "turn_limit", "game_error")


def apply_template(name: str, observation: str, tokenizer: Any = None) -> str:
    """The prompt for ``observation`` under template ``name`` (see :data:`TEMPLATES`)."""
    if name not in TEMPLATES:
        raise ValueError(f"unknown prompt template {name!r}; choose one of {', '.join(TEMPLATES)}")
    if name == "chat":
        if tokenizer is None or not getattr(tokenizer, "chat_template", None):
            raise ValueError("the 'chat' prompt template needs a tokenizer that has a chat template")
        return tokenizer.apply_chat_template(
            [{"role": "user", "content": observation}],
            tokenize=False,
            add_generation_prompt=True,
        )
    return TEMPLATES[name].format(observation=observation)


class KeepFinalInfo(gem.core.EnvWrapper):
    """Passes the last step of an episode on to the next reset as ``info["final_info"]``.

    In SAME_STEP autoreset the vector env returns the reset's info in place of the last step's,
    which carries ``success``; this wrapper (outermost) keeps it reachable.
    """

    def __init__(self, env: gem.Env) -> None:
        super().__init__(env)
        self._final_info: dict[str, Any] | None = None

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._final_info = dict(info) if terminated or truncated else None
        return observation, reward, terminated, truncated, info

    def reset(self, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed)
        if self._final_info is not None:
            info = {**info, "final_info": self._final_info}
            self._final_info = None
        return observation, info


class StatusAfterObservation(gem.core.EnvWrapper):
    """Shows ``info["suffix"]`` after each observation, joined as GEM's observation wrappers join it (for
    envs played without one of those: the latest observation and its status)."""

    def reset(self, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed)
        return with_status(observation, info), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        return with_status(observation, info), reward, terminated, truncated, info


def with_status(observation: Any, info: dict[str, Any]) -> Any:
    from gem.wrappers.observation_wrapper import maybe_add_new_line

    suffix = info.get("suffix")
    if not (isinstance(observation, str) and isinstance(suffix, str) and suffix):
        return observation
    return maybe_add_new_line(observation) + suffix


def shows_history(wrapper_names: Sequence[str]) -> bool:
    """Whether GEM's wrappers ``wrapper_names`` include an observation wrapper (they show ``info["suffix"]``)."""
    from gem.wrappers.observation_wrapper import ObservationWrapper
    from gem.wrappers.wrapper_factory import WRAPPER_FACTORY

    return any(getattr(WRAPPER_FACTORY[name], "func", None) is ObservationWrapper for name in wrapper_names)


def make_env_group(
    env_id: str,
    num_env: int,
    wrappers: str = "",
    complexity: int | None = 1,
    seed: int = 0,
    tokenizer: Any = None,
    async_mode: bool = False,
) -> gem.Env:
    """A GEM vector env of ``num_env`` copies of ``env_id``, wrapped with GEM's ``wrappers``.

    ``wrappers`` is GEM's comma-separated list (``"concat"``, ``"concat_with_action"``,
    ``"concat_chat"`` (needs ``tokenizer``), ...); without an observation wrapper among them, each
    observation is followed by its status (:class:`StatusAfterObservation`). Copy ``i`` is seeded
    ``seed + i``. ``complexity`` is passed to the constructor (None: the env's own default, for envs
    without one).
    """
    from gem.envs.registration import ENV_REGISTRY
    from gem.wrappers.wrapper_factory import TOKENIZER_REQUIRED, WRAPPER_FACTORY, get_wrapper_fns

    if env_id not in ENV_REGISTRY:
        raise ValueError(f"unknown environment id {env_id!r}; see `gymverse envs` for the registered ones")
    if num_env < 1:
        raise ValueError(f"num_env must be at least 1, got {num_env}")
    names = [w for w in wrappers.split(",") if w]
    unknown = [w for w in names if w not in WRAPPER_FACTORY]
    if unknown:
        raise ValueError(f"unknown wrapper(s) {', '.join(unknown)}; GEM has {', '.join(WRAPPER_FACTORY)}")
    if tokenizer is None and any(w in TOKENIZER_REQUIRED for w in names):
        raise ValueError(f"wrappers {', '.join(TOKENIZER_REQUIRED)} need the policy's tokenizer")
    kwargs = {} if complexity is None else {"complexity": complexity}
    with contextlib.redirect_stdout(io.StringIO()):  # GEM prints a line per call here
        wrapper_fns = get_wrapper_fns(",".join(names), tokenizer=tokenizer)
        wrapper_fns += ([] if shows_history(names) else [StatusAfterObservation]) + [KeepFinalInfo]
        return gem.make_vec([env_id] * num_env, wrappers=wrapper_fns, async_mode=async_mode, seed=seed, **kwargs)


@dataclass
class Turn:
    prompt: str
    response: str
    prompt_ids: list[int]
    response_ids: list[int]
    logprobs: list[float]
    reward: float
    invalid: bool  # the reply was cut by the length limit and sent to the env as an invalid action


@dataclass
class Episode:
    env_id: str
    complexity: int | None  # the env's complexity when the episode began
    turns: list[Turn] = field(default_factory=list)
    success: bool = False
    episode_return: float = 0.0
    length: int = 0  # number of turns
    ended_by: str = "terminated"  # one of ENDED_BY


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
      empty reply) and marked ``invalid``: the env applies its own rule for malformed replies.
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
        episode = Episode(env_id=env_id, complexity=getattr(envs[i].unwrapped, "complexity", None))
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
                if len(tokenizer.encode(prompt, add_special_tokens=False)) >= max_model_len:
                    del prompts[i]
                    observations[i], _ = envs[i].reset()
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
        invalid=generation.truncated,
    )


def split_env_ids(spec: str | Sequence[str]) -> list[str]:
    """``"a|b|c"`` -> ``["a", "b", "c"]`` (a list is returned as it is), without blanks or repeats."""
    ids = spec.split("|") if isinstance(spec, str) else list(spec)
    return list(dict.fromkeys(i.strip() for i in ids if i.strip()))
