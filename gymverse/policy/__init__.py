"""Policies that play games: language models, the games' own solvers, and baselines.

``load_policy(spec)`` builds one from a short spec:

==========================  =====================================================
``tiny``                    the built-in tiny model (Hugging Face format, CPU)
``PATH``                    a Hugging Face causal-LM folder
``oracle``                  each game's reference solver
``epsilon:0.3``             the solver, with 30% random well-formed commands
``random``                  random well-formed commands
``openai:URL#MODEL``        an OpenAI-compatible endpoint (completions API)
``vllm:PATH``               a model folder (or ``tiny``) served by vLLM in-process
==========================  =====================================================
"""

import re
from typing import Any, Protocol

from gymverse.errors import BadInput
from gymverse.policy.base import Generation, Policy, Sampling
from gymverse.policy.baselines import EpsilonOraclePolicy, OraclePolicy, RandomPolicy
from gymverse.policy.tiny import not_a_model_folder

POLICY_SPECS = ("tiny", "PATH", "oracle", "epsilon:P", "random", "openai:URL#MODEL", "vllm:PATH")

__all__ = [
    "EpsilonOraclePolicy",
    "Generation",
    "OraclePolicy",
    "POLICY_SPECS",
    "Policy",
    "RandomPolicy",
    "Sampling",
    "check_device",
    "check_policy",
    "load_policy",
]


def check_policy(spec: str, flag: str = "policy") -> None:
    """Raise :class:`BadInput` (naming ``flag``, e.g. ``--policy``) if ``spec`` names no policy.

    Reads the disk only, so a command refuses a bad spec before it imports torch or loads anything.
    """
    kind, _, rest = spec.partition(":")
    if kind == "epsilon":
        try:
            epsilon = float(rest)
        except ValueError:
            epsilon = -1.0
        if not 0 <= epsilon <= 1:
            raise BadInput(f"{flag} {spec!r}: write epsilon:P with P a number in [0, 1], e.g. epsilon:0.3")
    elif kind == "openai":
        base_url, _, model = rest.partition("#")
        if not base_url or not model:
            raise BadInput(f"{flag} {spec!r}: write openai:BASE_URL#MODEL, e.g. openai:http://127.0.0.1:8000/v1#qwen")
    elif spec not in ("oracle", "random"):
        problem = not_a_model_folder(rest if kind == "vllm" else spec)
        if problem:
            raise BadInput(f"{flag} {problem}; other policies: {', '.join(POLICY_SPECS[2:])}")


def check_device(device: str, flag: str = "--device") -> None:
    """Raise :class:`BadInput` (naming ``flag``) unless ``device`` reads as a torch device, without importing torch."""
    if not re.fullmatch(r"(cpu|cuda|mps|xpu)(:\d+)?", device):
        raise BadInput(f"{flag} {device!r}: write cpu, cuda or cuda:N (also mps, xpu)")


class SamplingFlags(Protocol):
    """The sampling flags a command line gives (the run's generation settings, the sweep's options)."""

    temperature: float
    top_p: float
    max_model_len: int | None
    generate_max_length: int


def sampling_flags(flags: SamplingFlags) -> dict[str, Any]:
    """The sampling keywords of :func:`load_policy` (and of the model policies) from flags of the same names."""
    return {name: getattr(flags, name) for name in ("temperature", "top_p", "max_model_len", "generate_max_length")}


def load_policy(
    spec: str,
    temperature: float = 1.0,
    top_p: float = 1.0,
    max_model_len: int | None = None,
    generate_max_length: int = 512,
    seed: int | None = None,
    device: str = "cpu",
    stop_at_box: bool = False,
    api_key: str | None = None,
    num_threads: int | None = None,
    chat: bool = False,
    timeout_s: float = 120.0,
    retries: int = 3,
) -> Policy:
    """The policy that ``spec`` names (see the module docstring); sampling settings apply to models.

    ``num_threads`` caps torch's CPU threads while a Hugging Face model samples (None: torch's default).
    ``chat``, ``timeout_s`` and ``retries`` apply to ``openai:`` endpoints: the chat API instead of completions,
    how long one request may take, and how often a failed request is tried again.
    """
    check_policy(spec)
    kind, _, rest = spec.partition(":")
    if spec == "oracle":
        return OraclePolicy()
    if spec == "random":
        return RandomPolicy(seed)
    if kind == "epsilon":
        return EpsilonOraclePolicy(float(rest), seed)
    if kind == "openai":
        base_url, _, model = rest.partition("#")
        from gymverse.policy.openai_compat import OpenAICompatiblePolicy

        return OpenAICompatiblePolicy(
            base_url,
            model,
            api_key=api_key,
            temperature=temperature,
            top_p=top_p,
            max_tokens=generate_max_length,
            stop_at_box=stop_at_box,
            chat=chat,
            timeout=timeout_s,
            retries=retries,
        )
    sampling = Sampling(temperature, top_p, max_model_len, generate_max_length, seed, stop_at_box)
    if kind == "vllm":
        from gymverse.policy.vllm_policy import VLLMPolicy

        return VLLMPolicy(rest, sampling)
    from gymverse.policy.hf import HFPolicy

    return HFPolicy(spec, sampling, device=device, num_threads=num_threads)
