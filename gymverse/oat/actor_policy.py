"""The policy an OAT actor plays games with: its own vLLM engine, whose weights the learners sync.

It is :class:`gymverse.policy.vllm_policy.VLLMPolicy` minus the engine construction: replies are
sampled by the actor's ``generate`` (OAT's, which knows the current sampling settings and LoRA
state), and each vLLM output becomes a ``Generation`` exactly as ``VLLMPolicy`` makes it, box
cutting included. ``gymverse.episodes.collect_episodes`` then plays the episodes as in the native trainer.
"""

import random
from collections.abc import Callable, Sequence
from typing import Any

from gymverse.policy.base import Generation
from gymverse.policy.stopping import closing_token_ids
from gymverse.policy.vllm_policy import VLLMPolicy


class ActorPolicy(VLLMPolicy):
    def __init__(self, generate: Callable[[list[str]], list[Any]], tokenizer: Any, stop_at_box: bool = False) -> None:
        # The engine belongs to the OAT actor; only what VLLMPolicy's output conversion reads is set here.
        self.sample = generate
        self.tokenizer = tokenizer
        self.closing_ids = closing_token_ids(tokenizer)
        self.stop_at_box = stop_at_box

    def sample_replies(
        self, prompts: Sequence[str], stop_at_box: bool, rngs: Sequence[random.Random] | None
    ) -> list[Generation]:
        if rngs is not None:
            raise ValueError("an OAT actor samples with its engine's own seed; it takes no per-prompt rngs")
        outputs = self.sample(list(prompts))
        return [self._generation(list(o.prompt_token_ids), o.outputs[0], stop_at_box) for o in outputs]
