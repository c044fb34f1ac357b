"""The writer model: any chat-capable policy spec, asked one prompt at a time from many threads."""

import threading
import time
from dataclasses import dataclass

from gymverse.errors import BadInput

SCRIPTED_SPECS = ("oracle", "random", "epsilon")


@dataclass
class Answer:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float


class Writer:
    """``openai:URL#MODEL`` (chat API, requests in parallel), ``vllm:PATH`` or a Hugging Face folder.

    Local models apply their tokenizer's chat template and answer one request at a time.
    """

    def __init__(
        self,
        spec: str,
        temperature: float = 0.7,
        max_tokens: int = 8192,
        timeout_s: float = 600.0,
        api_key: str | None = None,
    ) -> None:
        from gymverse.policy import load_policy

        if spec.partition(":")[0] in SCRIPTED_SPECS:
            raise BadInput(
                f"--model {spec}: a writer must be a language model (openai:URL#MODEL, vllm:PATH "
                "or a Hugging Face folder)"
            )
        self.remote = spec.startswith("openai:")
        self.policy = load_policy(
            spec,
            temperature=temperature,
            generate_max_length=max_tokens,
            api_key=api_key,
            chat=True,
            timeout_s=timeout_s,
        )
        self.lock = None if self.remote else threading.Lock()
        self.tokenizer = getattr(self.policy, "tokenizer", None)  # a local model's; an endpoint applies its own
        if not self.remote and not getattr(self.tokenizer, "chat_template", None):
            raise BadInput(f"--model {spec}: its tokenizer has no chat template; a writer must be a chat model")

    def ask(self, prompt: str) -> Answer:
        start = time.perf_counter()
        if self.lock is None:
            generation = self.policy.generate([prompt])[0]
        else:
            from gymverse.prompts import apply_template

            with self.lock:
                generation = self.policy.generate([apply_template("chat", prompt, self.tokenizer)])[0]
        counts = generation.token_counts or (len(generation.prompt_ids), len(generation.response_ids))
        return Answer(generation.text, counts[0], counts[1], time.perf_counter() - start)
