"""Env groups: GEM vector envs of one env id, with GEM's wrappers, as rollouts play them.

``make_env_group`` builds ``num_env`` copies of one env id. A game's status line is its ``info["suffix"]``,
which GEM's observation wrappers (``concat`` and the others) put after the observations; without one of
them, :class:`StatusAfterObservation` puts it after the latest observation, so every prompt shows the
status once.

GEM's vector envs reset an env in the same ``step`` that ends its episode, so the observation and
info they return then already belong to the next episode. The :class:`KeepFinalInfo` wrapper that
``make_env_group`` adds hands the last step's info to the following reset (as ``final_info``), which
is how ``gymverse.episodes.collect_episodes`` learns whether an episode was won.
"""

import contextlib
import io
from typing import Any, Sequence

import gem


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
