"""Any OpenAI-compatible HTTP endpoint (a vLLM or SGLang server, a hosted model) as a policy."""

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from gymverse.policy.base import Generation
from gymverse.policy.stopping import first_box_end


class OpenAICompatiblePolicy:
    """Sends each prompt to ``base_url`` and returns the model's text.

    With ``chat=False`` (the default) the prompt, already templated, goes to the completions API
    as it is; with ``chat=True`` it is sent as one user message to the chat API (use the ``no``
    template then, the server applies its own chat template). Requests run ``concurrency`` at a
    time. The server's tokens are not returned, so generations carry text only. ``stop_at_box``
    cuts a reply after its first complete ``\\boxed{...}``.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 512,
        chat: bool = False,
        concurrency: int = 8,
        timeout: float = 120.0,
        stop_at_box: bool = False,
    ) -> None:
        from openai import OpenAI

        # Local servers take any key; the client refuses to start without one.
        self.client = OpenAI(base_url=base_url, api_key=api_key or "EMPTY", timeout=timeout)
        self.model = model
        self.temperature, self.top_p, self.max_tokens = temperature, top_p, max_tokens
        self.chat = chat
        self.concurrency = concurrency
        self.stop_at_box = stop_at_box

    def generate(
        self,
        prompts: Sequence[str],
        envs: Sequence[Any] | None = None,
        stop_at_box: bool | None = None,
        rngs: Sequence[random.Random] | None = None,
    ) -> list[Generation]:
        """With ``rngs``, each request carries a ``seed`` drawn from its prompt's rng (servers that honour it
        then answer alike every time)."""
        stop_at_box = self.stop_at_box if stop_at_box is None else stop_at_box
        seeds = [None] * len(prompts) if rngs is None else [rng.getrandbits(31) for rng in rngs]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            replies = list(pool.map(self._ask, prompts, seeds))
        generations = []
        for text, finish_reason, counts in replies:
            end = first_box_end(text) if stop_at_box else None
            if end is not None:
                generations.append(Generation(text[:end], token_counts=counts))
            else:
                generations.append(Generation(text, truncated=finish_reason == "length", token_counts=counts))
        return generations

    def _ask(self, prompt: str, seed: int | None) -> tuple[str, str | None, tuple[int, int] | None]:
        settings = dict(model=self.model, temperature=self.temperature, top_p=self.top_p, max_tokens=self.max_tokens)
        if seed is not None:
            settings["seed"] = seed
        if self.chat:
            response = self.client.chat.completions.create(messages=[{"role": "user", "content": prompt}], **settings)
            choice = response.choices[0]
            return choice.message.content or "", choice.finish_reason, _counts(response)
        response = self.client.completions.create(prompt=prompt, **settings)
        choice = response.choices[0]
        return choice.text, choice.finish_reason, _counts(response)


def _counts(response: Any) -> tuple[int, int] | None:
    usage = getattr(response, "usage", None)
    return (usage.prompt_tokens, usage.completion_tokens) if usage else None
