"""A model served in-process by vLLM (GPU machines): fast batched sampling with log-probabilities."""

import dataclasses
import random
from pathlib import Path
from typing import Any, Sequence, cast

from gymverse.policy.base import Generation, ModelPolicy, Sampling
from gymverse.policy.stopping import closing_token_ids, tokens_through_box
from gymverse.policy.tiny import resolve_pretrain


class VLLMPolicy(ModelPolicy):
    """Same sampling contract as :class:`gymverse.policy.hf.HFPolicy`, run by ``vllm.LLM``.

    Prompts are tokenized here and sent as token ids, so ``prompt_ids`` are exactly what the model
    saw and each prompt's ``max_tokens`` keeps prompt + reply within ``max_model_len``. Log-probs
    are those of the sampled tokens; vLLM versions that have ``logprobs_mode`` are asked for the
    processed distribution (after temperature and top-p), older ones report their default. vLLM
    cannot stop on a closed box, so ``stop_at_box`` cuts the reply afterwards.
    Extra keyword arguments go to ``vllm.LLM`` (e.g. ``tensor_parallel_size``).
    """

    def __init__(
        self,
        path: str | Path,
        sampling: Sampling = Sampling(),
        gpu_memory_utilization: float = 0.9,
        enable_prefix_caching: bool = True,
        **engine_kwargs: Any,
    ) -> None:
        try:
            import vllm
        except ImportError:
            raise ImportError(
                "VLLMPolicy needs vLLM, which is not installed (it runs on GPU machines: pip install vllm). "
                "On a CPU use the Hugging Face policy instead (a model folder, or `tiny`)."
            ) from None
        self.path = resolve_pretrain(str(path), flag="model")
        if "logprobs_mode" in {f.name for f in dataclasses.fields(vllm.EngineArgs)}:
            engine_kwargs.setdefault("logprobs_mode", "processed_logprobs")
        self.llm = vllm.LLM(
            model=str(self.path),
            max_model_len=sampling.max_model_len,
            seed=0 if sampling.seed is None else sampling.seed,
            gpu_memory_utilization=gpu_memory_utilization,
            enable_prefix_caching=enable_prefix_caching,
            **engine_kwargs,
        )
        self.tokenizer = self.llm.get_tokenizer()
        self.max_model_len = self.llm.llm_engine.model_config.max_model_len
        self.use(sampling)
        self.closing_ids = closing_token_ids(self.tokenizer)

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def sample_replies(
        self, prompts: Sequence[str], stop_at_box: bool, rngs: Sequence[random.Random] | None
    ) -> list[Generation]:
        """With ``rngs``, each request carries a seed drawn from its prompt's rng (vLLM's per-request seed)."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        encoded = [self.tokenizer.encode(p, add_special_tokens=False) for p in prompts]
        budgets = [min(self.generate_max_length, self.max_model_len - len(ids)) for ids in encoded]
        results: list[Generation | None] = [
            Generation("", prompt_ids=ids, truncated=True) if budget < 1 else None
            for ids, budget in zip(encoded, budgets)
        ]
        todo = [i for i, result in enumerate(results) if result is None]
        if todo:
            outputs = self.llm.generate(
                [TokensPrompt(prompt_token_ids=encoded[i]) for i in todo],
                sampling_params=[
                    SamplingParams(
                        temperature=self.temperature,
                        top_p=self.top_p,
                        max_tokens=budgets[i],
                        logprobs=0,
                        seed=None if rngs is None else rngs[i].getrandbits(31),
                    )
                    for i in todo
                ],
                use_tqdm=False,
            )
            for i, output in zip(todo, outputs):
                results[i] = self._generation(encoded[i], output.outputs[0], stop_at_box)
        return cast(list[Generation], results)  # every row is filled by now

    def _generation(self, prompt_ids: list[int], completion: Any, stop_at_box: bool) -> Generation:
        response_ids = list(completion.token_ids)
        logprobs = [step[token].logprob for step, token in zip(completion.logprobs, response_ids)]
        truncated = completion.finish_reason == "length"
        if stop_at_box:
            count = tokens_through_box(self.tokenizer, response_ids, self.closing_ids)
            if count is not None:
                response_ids, logprobs, truncated = response_ids[:count], logprobs[:count], False
        text = self.tokenizer.decode(response_ids, skip_special_tokens=True)
        return Generation(text, prompt_ids, response_ids, logprobs, truncated)
