"""The one interface every policy implements: prompts in, replies out."""

import random
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence


@dataclass
class Generation:
    text: str
    prompt_ids: list[int] = field(default_factory=list)
    response_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)  # one per response token, under the sampling policy
    truncated: bool = False  # stopped by the generation length limit before it finished
    token_counts: tuple[int, int] | None = None  # (prompt, reply) tokens, where a server counts them without ids


@dataclass(frozen=True)
class Sampling:
    """How a model policy samples: ``temperature`` (0: greedy) and ``top_p``; each reply at most
    ``generate_max_length`` tokens and prompt + reply at most ``max_model_len`` (None: the model's own limit);
    ``seed`` (None: fresh); ``stop_at_box`` ends a reply once it holds a complete ``\\boxed{...}`` command."""

    temperature: float = 1.0
    top_p: float = 1.0
    max_model_len: int | None = None
    generate_max_length: int = 512
    seed: int | None = None
    stop_at_box: bool = False

    def __post_init__(self) -> None:
        if self.temperature < 0 or not 0 < self.top_p <= 1:
            raise ValueError(f"need temperature >= 0 and 0 < top_p <= 1, got {self.temperature} and {self.top_p}")
        if self.generate_max_length < 1:
            raise ValueError("generate_max_length must be at least 1")


class Policy(Protocol):
    def generate(
        self,
        prompts: Sequence[str],
        envs: Sequence[Any] | None = None,
        stop_at_box: bool | None = None,
        rngs: Sequence[random.Random] | None = None,
    ) -> list[Generation]:
        """One reply per prompt. ``prompts`` are final text (templates already applied).

        ``envs`` are the unwrapped games the prompts come from, for policies that read the
        game state (the oracle); model policies ignore them. ``stop_at_box`` ends each reply once
        it holds a complete ``\\boxed{...}`` command (None: the policy's own setting). ``rngs``, one
        per prompt, are where each reply's random draws come from, so a reply does not depend on
        the draws of the others (None: the policy's own random stream).
        """
        ...


class ModelPolicy:
    """A policy that samples from a model: :meth:`generate` settles ``stop_at_box`` (None: the policy's own
    setting) and leaves the replies to :meth:`sample_replies`; the game states are not read."""

    temperature: float
    top_p: float
    generate_max_length: int
    stop_at_box: bool

    def use(self, sampling: Sampling) -> None:
        """Sample with ``sampling``'s temperature, top-p, reply length and ``stop_at_box`` from now on."""
        self.temperature, self.top_p = sampling.temperature, sampling.top_p
        self.generate_max_length, self.stop_at_box = sampling.generate_max_length, sampling.stop_at_box

    def generate(
        self, prompts: Sequence[str], envs: Any = None, stop_at_box: bool | None = None, rngs: Any = None
    ) -> list[Generation]:
        return self.sample_replies(prompts, self.stop_at_box if stop_at_box is None else stop_at_box, rngs)

    def sample_replies(
        self, prompts: Sequence[str], stop_at_box: bool, rngs: Sequence[random.Random] | None
    ) -> list[Generation]:
        raise NotImplementedError
