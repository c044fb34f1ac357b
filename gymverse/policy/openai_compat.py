"""Any OpenAI-compatible HTTP endpoint (a vLLM or SGLang server, a hosted model) as a policy."""

import json
import logging
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from gymverse.errors import ResourceError
from gymverse.policy.base import Generation, ModelPolicy
from gymverse.policy.stopping import first_box_end

Reply = tuple[str, str | None, tuple[int, int] | None]  # text, finish reason, (prompt, completion) tokens
RETRIED_STATUSES = (408, 409, 429)  # and every 5xx: what a busy or restarting server answers


class OpenAICompatiblePolicy(ModelPolicy):
    """Sends each prompt to ``base_url`` and returns the model's text.

    With ``chat=False`` (the default) the prompt, already templated, goes to the completions API
    as it is; with ``chat=True`` it is sent as one user message to the chat API (use the ``no``
    template then, the server applies its own chat template). Requests run ``concurrency`` at a
    time. The server's tokens are not returned, so generations carry text only. ``stop_at_box``
    cuts a reply after its first complete ``\\boxed{...}``.

    A request that gets no answer within ``timeout`` seconds, an HTTP error a server may recover from (5xx,
    408, 409, 429), a body that is not JSON or an answer without choices is tried again, ``retries`` times,
    after ``backoff`` seconds and then twice as long each time; then :class:`ResourceError` names the endpoint
    and what it answered. Other HTTP errors (a wrong model name, a refused key) fail at once.
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
        retries: int = 3,
        backoff: float = 1.0,
        stop_at_box: bool = False,
    ) -> None:
        from openai import OpenAI

        # No log line per request (a filter: imported packages reset levels); the client logs through httpx or,
        # in some versions, httpx2.
        for name in ("httpx", "httpx2"):
            logging.getLogger(name).addFilter(_warnings_only)
        # Local servers take any key; the client refuses to start without one. Retries are ours (all failures alike).
        self.client = OpenAI(base_url=base_url, api_key=api_key or "EMPTY", timeout=timeout, max_retries=0)
        self.base_url, self.model = base_url, model
        self.temperature, self.top_p, self.max_tokens = temperature, top_p, max_tokens
        self.chat = chat
        self.concurrency = concurrency
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self.stop_at_box = stop_at_box

    def sample_replies(
        self, prompts: Sequence[str], stop_at_box: bool, rngs: Sequence[random.Random] | None
    ) -> list[Generation]:
        """With ``rngs``, each request carries a ``seed`` drawn from its prompt's rng (servers that honour it
        then answer alike every time)."""
        seeds = [None] * len(prompts) if rngs is None else [rng.getrandbits(31) for rng in rngs]
        verdict = _Verdict()  # once one request has failed for good, the others stop retrying and report it
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            replies = list(pool.map(lambda prompt, seed: self._ask(prompt, seed, verdict), prompts, seeds))
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        generations = []
        for text, finish_reason, counts in replies:
            end = first_box_end(text) if stop_at_box else None
            if end is not None:
                generations.append(Generation(text[:end], token_counts=counts))
            else:
                generations.append(Generation(text, truncated=finish_reason == "length", token_counts=counts))
        return generations

    def _ask(self, prompt: str, seed: int | None, verdict: "_Verdict") -> Reply:
        tries = 0
        while True:
            tries += 1
            try:
                return self._request(prompt, seed)
            except _Failure as failure:
                if failure.transient and tries <= self.retries:
                    if not verdict.failed.wait(self.backoff * 2 ** (tries - 1)):
                        continue
                else:
                    verdict.give(
                        ResourceError(
                            f"endpoint {self.base_url} (model {self.model}): {failure} "
                            f"({tries} {'try' if tries == 1 else 'tries'})"
                        )
                    )
                error = verdict.error
                assert error is not None  # given above, or by the request of the batch that failed first
                raise error from None

    def _request(self, prompt: str, seed: int | None) -> Reply:
        import openai

        settings: dict[str, Any] = dict(
            model=self.model, temperature=self.temperature, top_p=self.top_p, max_tokens=self.max_tokens
        )
        if seed is not None:
            settings["seed"] = seed
        try:
            if self.chat:
                response = self.client.chat.completions.create(
                    messages=[{"role": "user", "content": prompt}], **settings
                )
            else:
                response = self.client.completions.create(prompt=prompt, **settings)
        except openai.APITimeoutError:
            raise _Failure(f"no answer within {self.timeout:g} s", transient=True) from None
        except openai.APIConnectionError as error:
            raise _Failure(f"cannot connect ({error})", transient=True) from None
        except openai.APIStatusError as error:
            code = error.status_code
            raise _Failure(f"HTTP {code}{_said(error)}", transient=code >= 500 or code in RETRIED_STATUSES) from None
        except (json.JSONDecodeError, openai.APIResponseValidationError):
            raise _Failure("an answer that is not the API's JSON", transient=True) from None
        choices = getattr(response, "choices", None)
        if not choices:
            raise _Failure("an answer without choices", transient=True)
        choice = choices[0]
        text = (choice.message.content if self.chat and choice.message else getattr(choice, "text", None)) or ""
        return text, choice.finish_reason, _counts(response)


class _Verdict:
    """The first request of a batch that failed for good: the others stop retrying and report it."""

    def __init__(self) -> None:
        self.failed, self.lock = threading.Event(), threading.Lock()
        self.error: ResourceError | None = None

    def give(self, error: ResourceError) -> None:
        with self.lock:
            if self.error is None:
                self.error = error
                self.failed.set()


def _warnings_only(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.WARNING


class _Failure(Exception):
    def __init__(self, what: str, transient: bool) -> None:
        super().__init__(what)
        self.transient = transient


def _said(error: Any) -> str:
    """``: <the server's message>``, short, when it gave one."""
    body = getattr(error, "body", None)
    message = body.get("message") if isinstance(body, dict) else None
    return f": {str(message)[:160]}" if message else ""


def _counts(response: Any) -> tuple[int, int] | None:
    usage = getattr(response, "usage", None)
    return (usage.prompt_tokens, usage.completion_tokens) if usage else None
