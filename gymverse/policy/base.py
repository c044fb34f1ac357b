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

    stop_at_box: bool

    def generate(
        self, prompts: Sequence[str], envs: Any = None, stop_at_box: bool | None = None, rngs: Any = None
    ) -> list[Generation]:
        return self.sample_replies(prompts, self.stop_at_box if stop_at_box is None else stop_at_box, rngs)

    def sample_replies(
        self, prompts: Sequence[str], stop_at_box: bool, rngs: Sequence[random.Random] | None
    ) -> list[Generation]:
        raise NotImplementedError
