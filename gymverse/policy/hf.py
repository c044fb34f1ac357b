"""Hugging Face causal LMs as policies: batched sampling with per-token log-probabilities.

The sampling loop is written out (rather than calling ``model.generate``) so that the reported
log-probability of each token comes from the very distribution it was drawn from (logits after
temperature and top-p), every prompt gets its own length budget under ``max_model_len``, finished
rows leave the batch, and replies can stop once their ``\\boxed{...}`` command closes.
"""

import random
from pathlib import Path
from typing import Any, Sequence, cast

from gymverse.policy.base import Generation, ModelPolicy, Sampling
from gymverse.policy.stopping import closing_token_ids, first_box_end
from gymverse.policy.tiny import resolve_pretrain


def left_padded(rows: Sequence[Sequence[int]], pad_id: int, device: Any):
    """``(ids, attention_mask, position_ids)`` for rows padded on the left to one length."""
    import torch

    width = max(len(row) for row in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        if row:
            ids[i, width - len(row) :] = torch.tensor(row, dtype=torch.long)
            mask[i, width - len(row) :] = 1
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    return ids.to(device), mask.to(device), positions.to(device)


def distinct_rows(rows: Sequence[Sequence[int]]) -> tuple[list[list[int]], list[int]]:
    """The distinct rows in order of first appearance, and for each row the index of its copy among them."""
    first: dict[tuple[int, ...], int] = {}
    index = [first.setdefault(tuple(row), len(first)) for row in rows]
    return [list(row) for row in first], index


def prompt_forward(model, prompts: Sequence[Sequence[int]], pad_id: int, cache_name: str, cache: Any = None):
    """One forward pass per distinct prompt, its results copied to every row that repeats it.

    GRPO's groups and repeated game instances hold the same prompt many times; it is read once.
    Returns ``(logits, cache, mask, positions)`` per row: the logits after the last prompt token
    ``(rows, vocab)``, the key-value cache (``cache`` if given, else the model's own), and the
    left-padded attention mask and positions.
    """
    import torch

    distinct, index = distinct_rows(prompts)
    ids, mask, positions = left_padded(distinct, pad_id, model.device)
    given = {} if cache is None else {cache_name: cache}
    out = model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True, logits_to_keep=1, **given)
    cache = getattr(out, cache_name)
    rows = torch.tensor(index, device=model.device)
    if len(distinct) < len(prompts):
        cache.batch_select_indices(rows)
    return out.logits[rows, -1], cache, mask[rows], positions[rows]


def inverse_cdf_draw(probs, uniforms):
    """One token per row of ``probs`` ``(rows, vocab)``, drawn with that row's number in ``uniforms`` ``[0, 1)``.

    The token is the first whose cumulative probability exceeds ``uniform * total``: a draw from the row's
    distribution that reads one number and no other row. A token of probability zero is never drawn (the
    cumulative sum does not grow there, and ``uniform < 1`` keeps ``uniform * total`` below the total).
    """
    import torch

    cdf = probs.double().cumsum(-1)
    return torch.searchsorted(cdf, (uniforms * cdf[:, -1])[:, None], right=True).squeeze(-1)


def load_causal_lm(path: Any, dtype: Any, device: Any) -> Any:
    """A causal LM from a Hugging Face folder, in ``dtype``, on ``device``.

    transformers 4.56 renamed ``torch_dtype`` to ``dtype``; OAT's GPU stack pins 4.51, so use the
    name this version understands (the other one would be silently ignored there). The loading
    progress bar shows on a terminal only: in a log file it is noise.
    """
    import sys

    import transformers
    from transformers import AutoModelForCausalLM

    if not sys.stderr.isatty():
        transformers.utils.logging.disable_progress_bar()

    major, minor = (int(part) for part in transformers.__version__.split(".")[:2])
    name = "dtype" if (major, minor) >= (4, 56) else "torch_dtype"
    return AutoModelForCausalLM.from_pretrained(path, **{name: dtype}).to(device)


def cache_argument(model: Any) -> str:
    """The name under which ``model.forward`` takes and returns its key-value cache.

    transformers 5 renamed ``past_key_values`` to ``cache`` (the old name warns, and goes in 5.40);
    OAT's GPU stack pins 4.51, which knows only the old one.
    """
    import inspect

    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


class HFPolicy(ModelPolicy):
    """A Hugging Face causal LM folder (or ``"tiny"``) that samples replies with their log-probabilities.

    Each reply may use at most ``generate_max_length`` tokens, and prompt + reply at most
    ``max_model_len`` (default: the model's ``max_position_embeddings``). A prompt that leaves no
    room gets an empty, truncated reply. ``temperature=0`` decodes greedily (log-probabilities are
    then those of the untempered model). ``stop_at_box`` ends a reply once it holds a complete
    ``\\boxed{...}`` command; ``generate`` can override it per call. ``num_threads`` caps torch's
    CPU threads while sampling: small models sample fastest on one thread, and far slower when
    their threads compete with other processes for the cores.
    """

    def __init__(
        self,
        path: str | Path,
        sampling: Sampling = Sampling(),
        device: str = "cpu",
        batch_size: int = 64,
        dtype: str = "auto",
        num_threads: int | None = None,
    ) -> None:
        import torch
        from transformers import AutoTokenizer

        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.path = resolve_pretrain(str(path), flag="model")
        self.device = torch.device(device)
        # Full precision on CPU: bf16 matmuls there are slow and imprecise.
        torch_dtype = torch.float32 if self.device.type == "cpu" else dtype
        self.model = load_causal_lm(self.path, torch_dtype, self.device)
        self.tokenizer = AutoTokenizer.from_pretrained(self.path)
        self.use(sampling)
        self.max_model_len = sampling.max_model_len or self.model.config.max_position_embeddings
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.cache_name = cache_argument(self.model)
        self.eos_ids = self._stop_token_ids()
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else min(self.eos_ids)
        self.closing_ids = closing_token_ids(self.tokenizer)
        self.generator = torch.Generator(device=self.device)
        if sampling.seed is None:
            self.generator.seed()
        else:
            self.generator.manual_seed(sampling.seed)

    def _stop_token_ids(self) -> frozenset[int]:
        ids = set()
        for source in (self.model.generation_config.eos_token_id, self.tokenizer.eos_token_id):
            if source is not None:
                ids.update(source if isinstance(source, list) else [source])
        if not ids:
            raise ValueError(f"the model in {self.path} defines no end-of-sequence token")
        return frozenset(ids)

    def count_tokens(self, text: str) -> int:
        return len(self.encode(text))

    def encode(self, text: str) -> list[int]:
        # Prompts arrive fully templated (special tokens written out), so no tokens are added.
        return self.tokenizer.encode(text, add_special_tokens=False)

    def sample_replies(
        self, prompts: Sequence[str], stop_at_box: bool, rngs: Sequence[random.Random] | None
    ) -> list[Generation]:
        """Replies drawn from ``self.generator``, or with ``rngs`` one uniform number per token from the row's own rng.

        A row's draws then do not depend on the other rows; its logits still may, in the last bits of
        floating point, so the same rows in the same batches give the same replies.
        """
        if rngs is not None and len(rngs) != len(prompts):
            raise ValueError(f"pass one rng per prompt: {len(prompts)} prompts, {len(rngs)} rngs")
        encoded = [self.encode(p) for p in prompts]
        budgets = [min(self.generate_max_length, self.max_model_len - len(ids)) for ids in encoded]
        results: list[Generation | None] = [None] * len(prompts)
        for i, budget in enumerate(budgets):
            if budget < 1:
                results[i] = Generation(text="", prompt_ids=encoded[i], truncated=True)
        # Similar lengths together: less padding.
        order = sorted((i for i in range(len(prompts)) if results[i] is None), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            replies = self._sample(
                [encoded[i] for i in chunk],
                [budgets[i] for i in chunk],
                stop_at_box,
                None if rngs is None else [rngs[i] for i in chunk],
            )
            for i, (response_ids, logprobs, truncated) in zip(chunk, replies):
                text = str(self.tokenizer.decode(response_ids, skip_special_tokens=True))
                results[i] = Generation(text, encoded[i], response_ids, logprobs, truncated)
        return cast(list[Generation], results)  # every row is filled by now

    def _draw(self, logits, rngs: Sequence[random.Random] | None):
        """Draw one token per row: ``(tokens, their log-probabilities)`` under the sampling distribution.

        The distribution is the logits after temperature, then top-p; ``temperature=0`` takes the
        most likely token, scored under the untempered model. Rows draw from ``self.generator``, or
        each from its own rng in ``rngs``.
        """
        import torch

        if self.temperature == 0:
            logprobs = torch.log_softmax(logits, dim=-1)
            tokens = logprobs.argmax(-1)
        else:
            logits = logits / self.temperature
            if self.top_p < 1:
                from transformers import TopPLogitsWarper

                logits = TopPLogitsWarper(self.top_p)(None, logits)
            logprobs = torch.log_softmax(logits, dim=-1)
            if rngs is None:
                tokens = torch.multinomial(logprobs.exp(), 1, generator=self.generator).squeeze(-1)
            else:
                uniforms = torch.tensor([rng.random() for rng in rngs], dtype=torch.float64, device=logits.device)
                tokens = inverse_cdf_draw(logprobs.exp(), uniforms)
        return tokens, logprobs.gather(-1, tokens[:, None]).squeeze(-1)

    def _sample(
        self, prompts: list[list[int]], budgets: list[int], stop_at_box: bool, rngs: list[random.Random] | None
    ):
        """Sample one reply per prompt: ``[(response_ids, logprobs, truncated)]`` in prompt order."""
        import torch

        from gymverse.policy.kv_cache import reserved_cache

        was_training, threads = self.model.training, torch.get_num_threads()
        self.model.eval()
        if self.num_threads is not None:
            torch.set_num_threads(self.num_threads)
        replies: list[tuple[list[int], list[float]]] = [([], []) for _ in prompts]  # (token ids, log-probs) per prompt
        truncated = [False] * len(prompts)
        rows = list(range(len(prompts)))  # batch row -> prompt index, for the replies still growing
        try:
            with torch.inference_mode():
                cache = reserved_cache(self.model, max(budgets))
                logits, cache, mask, positions = prompt_forward(
                    self.model, prompts, self.pad_id, self.cache_name, cache
                )
                next_position = positions[:, -1] + 1
                while True:
                    tokens, logprobs = self._draw(logits.float(), None if rngs is None else [rngs[p] for p in rows])
                    keep = []  # rows whose reply goes on
                    for row, (p, token, logprob) in enumerate(zip(rows, tokens.tolist(), logprobs.tolist())):
                        response, response_logprobs = replies[p]
                        response.append(token)
                        response_logprobs.append(logprob)
                        if token in self.eos_ids or (stop_at_box and self._box_closed(token, response)):
                            continue
                        if len(response) >= budgets[p]:
                            truncated[p] = True
                            continue
                        keep.append(row)
                    if not keep:
                        break
                    if len(keep) < len(rows):  # finished replies leave the batch and the cache
                        index = torch.tensor(keep, device=self.device)
                        cache.batch_select_indices(index)
                        tokens, mask, next_position = tokens[index], mask[index], next_position[index]
                        rows = [rows[row] for row in keep]
                    mask = torch.cat([mask, mask.new_ones((len(rows), 1))], dim=-1)
                    logits = self.model(
                        input_ids=tokens[:, None],
                        attention_mask=mask,
                        position_ids=next_position[:, None],
                        use_cache=True,
                        **{self.cache_name: cache},
                    ).logits[:, -1]
                    next_position = next_position + 1
        finally:
            self.model.train(was_training)
            torch.set_num_threads(threads)
        return [(response, logprobs, cut) for (response, logprobs), cut in zip(replies, truncated)]

    def _box_closed(self, token: int, response: list[int]) -> bool:
        return token in self.closing_ids and first_box_end(str(self.tokenizer.decode(response))) is not None
