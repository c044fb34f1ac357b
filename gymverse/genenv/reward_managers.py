"""The agent's reward on a dataset task, with GenEnv's interface: ``compute_reward(generated_text, ground_truth)``.

Managers, by name (``--reward_manager``):

* ``math``: the last ``\\boxed{}`` of the reply against the ground truth, equal when math-verify says so
  (``1/2``, ``\\frac{2}{4}`` and ``0.5`` are one answer);
* ``tool_call``: every ``<tool_call>{"name": ..., "parameters" | "arguments": ...}</tool_call>`` of the reply
  against those of the ground truth, exact on names and arguments, blind to key order and whitespace;
* ``token_f1``: token-level F1 between the reply and the ground truth (free text);
* ``embedding``: cosine similarity of all-MiniLM-L6-v2 embeddings (the model the audit ships), clipped at 0;
* ``paper``: GenEnv's agent reward, exact match when the ground truth is a structured action (a tool call or
  a JSON value) and token F1 otherwise;
* ``module:Class``: a user's own class with a ``compute_reward`` method.

A ground truth may be a string, a number, a list (any of its items may match) or a dict holding ``answer``
or ``ground_truth``.
"""

import importlib
import json
import math
import re
import string
from collections import Counter
from typing import Any

from gymverse.env.parsing import extract_boxed
from gymverse.errors import BadInput


def gold_answers(ground_truth: Any) -> list[str]:
    """The acceptable answers a ground truth holds, as strings."""
    if isinstance(ground_truth, dict):
        for key in ("ground_truth", "answer", "target"):
            if key in ground_truth:
                return gold_answers(ground_truth[key])
        return [json.dumps(ground_truth, sort_keys=True)]
    if isinstance(ground_truth, (list, tuple)):
        return [answer for item in ground_truth for answer in gold_answers(item)]
    if ground_truth is None:
        return []
    return [str(ground_truth)]


class RewardManager:
    """GenEnv's interface. ``tokenizer`` is accepted (GenEnv's managers take one) and unused here."""

    def __init__(self, tokenizer: Any = None) -> None:
        self.tokenizer = tokenizer

    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        raise NotImplementedError

    def __call__(self, generated_text: str, ground_truth: Any) -> float:
        return self.compute_reward(generated_text, ground_truth)


# -- math ---------------------------------------------------------------------------------------
def math_equivalent(answer: str, gold: str) -> bool:
    """``answer`` and ``gold`` denote the same value according to math-verify (exact text also counts)."""
    if answer.strip() == gold.strip():
        return True
    from math_verify import parse, verify

    parsed_gold, parsed_answer = parse(_as_latex(gold)), parse(_as_latex(answer))
    return bool(parsed_gold and parsed_answer and verify(parsed_gold, parsed_answer))


def _as_latex(text: str) -> str:
    """Wrap bare text in ``$...$`` so math-verify reads LaTeX such as ``\\frac{2}{4}`` as maths."""
    text = text.strip()
    return text if "$" in text or "\\boxed" in text else f"${text}$"


class MathRewardManager(RewardManager):
    """1.0 when the reply's last ``\\boxed{}`` is equivalent to a gold answer, else 0.0."""

    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        answer = extract_boxed(generated_text)
        if not answer:
            return 0.0
        golds = [extract_boxed(g) or g for g in gold_answers(ground_truth)]
        return float(any(math_equivalent(answer, gold) for gold in golds))


# -- tool calls ---------------------------------------------------------------------------------
_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


def parse_tool_calls(text: str) -> list[dict[str, Any]] | None:
    """``[{"name", "arguments"}]`` for each ``<tool_call>`` block of ``text``; None if any block is malformed.

    Arguments may be given as ``parameters`` or ``arguments``, as an object or as a JSON string.
    """
    calls = []
    for block in _TOOL_CALL.findall(text):
        try:
            call = json.loads(block)
        except json.JSONDecodeError:
            return None
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            return None
        arguments = call.get("arguments", call.get("parameters", {}))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError:
                return None
        if not isinstance(arguments, dict):
            return None
        calls.append({"name": call["name"].strip(), "arguments": arguments})
    return calls


def _gold_calls(gold: str) -> list[dict[str, Any]] | None:
    """The calls of a gold answer: tagged, or a bare JSON call (or list of calls)."""
    if "<tool_call>" in gold:
        return parse_tool_calls(gold)
    try:
        value = json.loads(gold)
    except json.JSONDecodeError:
        return None
    items = value if isinstance(value, list) else [value]
    return parse_tool_calls("".join(f"<tool_call>{json.dumps(item)}</tool_call>" for item in items))


class ToolCallingRewardManager(RewardManager):
    """1.0 when the reply makes exactly the gold calls (same names and arguments, same order), else 0.0."""

    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        calls = parse_tool_calls(generated_text)
        if not calls:
            return 0.0
        return float(any(calls == gold for gold in map(_gold_calls, gold_answers(ground_truth)) if gold))


# -- free text ----------------------------------------------------------------------------------
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def text_tokens(text: str) -> list[str]:
    """Lower-cased words without punctuation (the usual normalization for token F1)."""
    return text.lower().translate(_PUNCTUATION).split()


def token_f1(prediction: str, gold: str) -> float:
    """Harmonic mean of token precision and recall; 1.0 when both are empty."""
    predicted, expected = text_tokens(prediction), text_tokens(gold)
    if not predicted or not expected:
        return float(predicted == expected)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


class TokenF1RewardManager(RewardManager):
    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        return max((token_f1(generated_text, gold) for gold in gold_answers(ground_truth)), default=0.0)


class EmbeddingSimilarityRewardManager(RewardManager):
    """Cosine similarity of sentence embeddings (all-MiniLM-L6-v2, loaded once, offline), clipped to [0, 1]."""

    _model = None

    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        from gymverse.evaluation.audit.diversity import embed, load_embedder

        golds = gold_answers(ground_truth)
        if not golds:
            return 0.0
        if EmbeddingSimilarityRewardManager._model is None:
            EmbeddingSimilarityRewardManager._model = load_embedder()
        vectors = embed(EmbeddingSimilarityRewardManager._model, [generated_text, *golds])
        return float(min(max(float((vectors[1:] @ vectors[0]).max()), 0.0), 1.0))


# -- the paper's rule ---------------------------------------------------------------------------
def structured_value(text: str) -> Any:
    """The structured action ``text`` holds (tool calls, or a JSON object or list), or None for free text."""
    if "<tool_call>" in text:
        return parse_tool_calls(text)
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return json.loads(stripped)
        except json.JSONDecodeError:
            return None
    return None


class PaperRewardManager(RewardManager):
    """GenEnv's ``R_agent``: exact match for a structured gold action, token F1 for free text."""

    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        best = 0.0
        for gold in gold_answers(ground_truth):
            expected = structured_value(gold)
            if expected is None:
                best = max(best, token_f1(generated_text, gold))
            elif "<tool_call>" in gold:
                best = max(best, float(parse_tool_calls(generated_text) == expected))
            else:
                best = max(best, float(structured_value(generated_text) == expected))
        return best


REWARD_MANAGERS: dict[str, type[RewardManager]] = {
    "math": MathRewardManager,
    "tool_call": ToolCallingRewardManager,
    "token_f1": TokenF1RewardManager,
    "embedding": EmbeddingSimilarityRewardManager,
    "paper": PaperRewardManager,
}


def load_reward_manager(spec: str, tokenizer: Any = None) -> Any:
    """The manager ``spec`` names: one of :data:`REWARD_MANAGERS` or ``module:Class``."""
    if spec in REWARD_MANAGERS:
        return REWARD_MANAGERS[spec](tokenizer=tokenizer)
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise BadInput(f"--reward_manager {spec!r}: use one of {', '.join(REWARD_MANAGERS)} or module:Class")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise BadInput(f"--reward_manager {spec!r}: cannot load it ({error})") from None
    try:
        manager = cls(tokenizer=tokenizer)
    except TypeError:
        manager = cls()
    if not callable(getattr(manager, "compute_reward", None)):
        raise BadInput(f"--reward_manager {spec!r}: {class_name} has no compute_reward(generated_text, ground_truth)")
    return manager


def safe_reward(manager: Any, generated_text: str, ground_truth: Any) -> tuple[float, str | None]:
    """``(reward, None)``, or ``(0.0, reason)`` when the manager raises or returns no finite number."""
    try:
        reward = manager.compute_reward(generated_text, ground_truth)
    except Exception as error:  # a user's manager may raise anything; the run goes on
        return 0.0, f"{type(manager).__name__}.compute_reward raised {type(error).__name__}: {error}"
    try:
        reward = float(reward)
    except (TypeError, ValueError):
        return 0.0, f"{type(manager).__name__}.compute_reward returned {reward!r}, not a number"
    if not math.isfinite(reward):
        return 0.0, f"{type(manager).__name__}.compute_reward returned {reward}"
    return reward, None
