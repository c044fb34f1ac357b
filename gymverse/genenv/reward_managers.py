"""The agent's reward on a dataset task, with GenEnv's interface: ``compute_reward(generated_text, ground_truth)``.

:class:`RewardManager`, :class:`ToolCallingRewardManager` and :class:`ActionRewardManager` are GenEnv's classes
(``genenv.utils``, importable as ``gymverse.genenv.utils``): the same constructor ``(tokenizer, num_examine=0)``,
the same rules and the same helper methods, so a subclass written for GenEnv runs here once its import line
names ``gymverse.genenv.utils``. ``generated_text`` is the agent's reply (GenEnv's veRL decodes the prompt
before it too; a rule that reads the last answer of the text sees the same one).

Managers, by name (``--reward_manager``):

* ``math``: the last ``\\boxed{}`` of the reply against the ground truth, equal when math-verify says so
  (``1/2``, ``\\frac{2}{4}`` and ``0.5`` are one answer);
* ``genenv``: GenEnv's default rule (:class:`RewardManager`): the last ``\\boxed{}`` (the reply itself when it has
  none) equal to the gold answer once both are normalized (trimmed, unquoted, spaces collapsed, lower case);
* ``tool_call``: every ``<tool_call>{"name": ..., "parameters" | "arguments": ...}</tool_call>`` of the reply
  against those of the ground truth, exact on names and arguments, blind to key order and whitespace
  (GenEnv's own :class:`ToolCallingRewardManager` is more lenient: one matching call, extra arguments allowed);
* ``action``: GenEnv's :class:`ActionRewardManager` for web actions (``click(bid=...)``, ``type(...)``, ...);
* ``token_f1``: token-level F1 between the reply and the ground truth (free text);
* ``embedding``: cosine similarity of all-MiniLM-L6-v2 embeddings (the model the audit ships), clipped at 0;
* ``paper``: GenEnv's agent reward, exact match when the ground truth is a structured action (a tool call or
  a JSON value) and token F1 otherwise;
* ``module:Class``: a user's own class with a ``compute_reward`` method (a subclass of ours or of GenEnv's).

A ground truth may be a string (JSON holding ``answer`` counts as that answer), a number, a list (any of its
items may match) or a dict holding ``answer``, ``ground_truth`` or ``target``.
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

GOLD_KEYS = ("ground_truth", "answer", "target")


def gold_answers(ground_truth: Any) -> list[str]:
    """The acceptable answers a ground truth holds, as strings."""
    if isinstance(ground_truth, dict):
        for key in GOLD_KEYS:
            if key in ground_truth:
                return gold_answers(ground_truth[key])
        return [json.dumps(ground_truth, sort_keys=True)]
    if isinstance(ground_truth, (list, tuple)):
        return [answer for item in ground_truth for answer in gold_answers(item)]
    if ground_truth is None:
        return []
    if isinstance(ground_truth, str) and ground_truth.lstrip().startswith("{"):
        try:
            parsed = json.loads(ground_truth)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and any(key in parsed for key in GOLD_KEYS):
            return gold_answers(parsed)
    return [str(ground_truth)]


class RewardManager:
    """GenEnv's reward manager. Subclasses override :meth:`compute_reward`; the default is GenEnv's math rule: the
    reply's last ``\\boxed{}`` (the reply itself when it has none) equals a gold answer once both are normalized.
    ``tokenizer`` is the agent's; ``num_examine`` replies of each scored batch are printed, for debugging."""

    def __init__(self, tokenizer: Any = None, num_examine: int = 0) -> None:
        self.tokenizer, self.num_examine = tokenizer, num_examine

    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        answer = self._normalize_answer(self._extract_boxed_answer(generated_text))
        golds = [self._normalize_answer(gold) for gold in gold_answers(ground_truth)]
        return float(bool(answer) and answer in golds)

    @staticmethod
    def _extract_boxed_answer(text: str) -> str:
        """The content of the last ``\\boxed{...}`` (braces may nest); without one the text, less ``$...$``."""
        if not isinstance(text, str):
            return ""
        boxed = extract_boxed(text)
        if boxed is not None:
            return boxed
        text = text.strip()
        return text[1:-1].strip() if len(text) >= 2 and text[0] == text[-1] == "$" else text

    @staticmethod
    def _get_gold_answer(ground_truth: Any) -> str:
        """The first gold answer of a ground truth (a string, a JSON string or dict holding ``answer``, ...)."""
        answers = gold_answers(ground_truth)
        return answers[0] if answers else ""

    @staticmethod
    def _normalize_answer(text: str) -> str:
        """Trimmed of spaces, backticks and quotes, inner spaces collapsed, lower case."""
        if not isinstance(text, str):
            return ""
        return re.sub(r"\s+", " ", text.strip().strip("`").strip('"').strip("'")).lower()


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


def _call(value: Any) -> dict[str, Any] | None:
    """A decoded tool call as ``{"name", "arguments"}`` (arguments under ``arguments`` or ``parameters``, as an
    object or a JSON string), or None when it is not one."""
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return None
    return {"name": value["name"].strip(), "arguments": arguments} if isinstance(arguments, dict) else None


def _block_call(block: str) -> dict[str, Any] | None:
    try:
        return _call(json.loads(block))
    except json.JSONDecodeError:
        return None


def parse_tool_calls(text: str) -> list[dict[str, Any]] | None:
    """``[{"name", "arguments"}]`` for each ``<tool_call>`` block of ``text``; None if any block is malformed."""
    calls = [_block_call(block) for block in _TOOL_CALL.findall(text)]
    read = [call for call in calls if call is not None]
    return read if len(read) == len(calls) else None


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
    """GenEnv's rule for tool calls: 1.0 when a call of the reply matches a gold call (the same name, and every gold
    argument that is not empty given with the same value; more arguments are allowed), else 0.0."""

    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        golds = [call for gold in gold_answers(ground_truth) for call in (_gold_calls(gold) or [])]
        return float(any(self._match_tool_call(call, golds) for call in self._extract_tool_calls(generated_text)))

    @staticmethod
    def _extract_tool_calls(text: str) -> list[dict[str, Any]]:
        """The well-formed ``<tool_call>`` blocks of ``text`` as ``{"name", "arguments"}`` (malformed ones skipped)."""
        if not isinstance(text, str):
            return []
        return [call for call in map(_block_call, _TOOL_CALL.findall(text)) if call is not None]

    @staticmethod
    def _match_tool_call(pred: Any, gold: Any) -> bool:
        """Whether the call ``pred`` matches ``gold``, a call or a list of calls (raw JSON shapes accepted)."""
        call = _call(pred)
        for expected in map(_call, gold if isinstance(gold, list) else [gold]):
            if (
                call
                and expected
                and call["name"] == expected["name"]
                and all(
                    call["arguments"].get(key) == value
                    for key, value in expected["arguments"].items()
                    if value not in (None, "", [])
                )
            ):
                return True
        return False


class ExactToolCallRewardManager(ToolCallingRewardManager):
    """1.0 when the reply makes exactly the gold calls (same names and arguments, same order), else 0.0."""

    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        calls = parse_tool_calls(generated_text)
        if not calls:
            return 0.0
        return float(any(calls == gold for gold in map(_gold_calls, gold_answers(ground_truth)) if gold))


# -- web actions --------------------------------------------------------------------------------
_ACTION = re.compile(r"\b(?:type|click|select_option)\s*\([^)]+\)|\bgo_back\s*\(\s*\)")


class ActionRewardManager(RewardManager):
    """GenEnv's rule for web actions: 1.0 when the reply holds at least one action (``click(bid=...)``,
    ``type(bid=..., value=...)``, ``select_option(...)``, ``go_back()``) and every one, normalized, is expected."""

    def compute_reward(self, generated_text: str, ground_truth: Any) -> float:
        found, expected = self._extract_actions(generated_text), self._parse_ground_truth(ground_truth)
        return float(bool(found) and bool(expected) and self._compare_actions(found, expected))

    @staticmethod
    def _extract_actions(text: str) -> list[str]:
        """The actions ``text`` holds, in order, inner whitespace collapsed."""
        if not isinstance(text, str):
            return []
        return [re.sub(r"\s+", " ", match.group(0)) for match in _ACTION.finditer(text)]

    @staticmethod
    def _parse_ground_truth(ground_truth: Any) -> list[str]:
        """The expected actions: those each gold answer holds, or the answer itself when it holds none."""
        expected = []
        for gold in gold_answers(ground_truth):
            expected += ActionRewardManager._extract_actions(gold) or ([gold.strip()] if gold.strip() else [])
        return expected

    @staticmethod
    def _normalize_action(action: str) -> str:
        """Without spaces around ``=``, ``,`` and the parentheses."""
        return re.sub(r"\s*([=,()])\s*", r"\1", action.strip())

    def _compare_actions(self, extracted: list[str], expected: list[str]) -> bool:
        allowed = {self._normalize_action(action) for action in expected}
        return all(self._normalize_action(action) in allowed for action in extracted)


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

    _model: Any = None  # the sentence embedder, loaded once

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
    "genenv": RewardManager,
    "tool_call": ExactToolCallRewardManager,
    "action": ActionRewardManager,
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
