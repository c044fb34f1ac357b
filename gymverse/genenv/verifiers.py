"""Checks on a generated dataset task before it joins the dataset: ``verify(prompt, task, answer) -> reason | None``.

* ``math``: the answer must be a value math-verify can read; when the task is plain arithmetic
  (``What is 12 * (3 + 4)?``) the answer is re-derived exactly and must be equivalent to it.
* ``tool_call``: the answer must be well-formed ``<tool_call>`` JSON; when the prompt lists tools (JSON
  objects with ``name`` and ``parameters``, e.g. in a ``<tools>`` block), each call must name one of them,
  give every required argument and no argument the tool does not declare.
* ``none``: every parsed task is accepted.

``auto`` picks the verifier that matches the reward manager (math -> math, tool_call -> tool_call).
"""

import ast
import operator
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from gymverse.env.gymverse_ids import parse_expression
from gymverse.errors import BadInput
from gymverse.genenv.reward_managers import math_equivalent, parse_tool_calls
from gymverse.genenv.specs import json_values

Verifier = Callable[[str, str, str], "str | None"]  # (full prompt text, new task, new answer) -> reason

# -- math ---------------------------------------------------------------------------------------
_ARITHMETIC = re.compile(r"[\d(][\d\s.+\-*/^×÷()]*[\d)]")
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _evaluate(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, exponent = _evaluate(node.left), _evaluate(node.right)
        if exponent.denominator != 1 or abs(exponent) > 64:
            raise ValueError("exponent out of range")
        return base ** int(exponent)
    raise ValueError("not arithmetic")


def arithmetic_value(task: str) -> Fraction | None:
    """The exact value of the longest arithmetic expression in ``task`` with an operator; None if there is none."""
    candidates = sorted(_ARITHMETIC.findall(task), key=len, reverse=True)
    for text in candidates:
        expression = text.replace("×", "*").replace("÷", "/").replace("^", "**")
        if not re.search(r"\d\s*[-+*/]", expression):
            continue
        try:
            return _evaluate(parse_expression(expression.strip()))
        except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
            continue
    return None


_WORD = re.compile(r"(?<!\\)\b[A-Za-z]{3,}")  # a word of three letters or more, not a LaTeX command


def reads_as_math(answer: str) -> bool:
    """math-verify reads a value in ``answer`` (words such as ``banana`` are not a value)."""
    from math_verify import parse

    return bool(parse(answer)) or (not _WORD.search(answer) and bool(parse(f"${answer}$")))


def verify_math(prompt: str, task: str, answer: str) -> str | None:
    if not reads_as_math(answer):
        return f"math: the answer {answer[:60]!r} is not a value math-verify can read"
    value = arithmetic_value(task)
    if value is not None:
        derived = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
        if not math_equivalent(answer, derived):
            return f"math: the task's arithmetic gives {derived}, not {answer[:60]!r}"
    return None


# -- tool calls ---------------------------------------------------------------------------------
def listed_tools(prompt: str) -> dict[str, dict[str, Any]]:
    """Tools a prompt declares: name -> JSON-schema ``parameters`` (OpenAI's ``{"type": "function"}`` form too)."""
    tools: dict[str, dict[str, Any]] = {}
    for value in json_values(prompt):
        tool = value.get("function", value)
        if isinstance(tool, dict) and isinstance(tool.get("name"), str) and isinstance(tool.get("parameters"), dict):
            tools[tool["name"]] = tool["parameters"]
    return tools


def verify_tool_call(prompt: str, task: str, answer: str) -> str | None:
    calls = parse_tool_calls(answer)
    if not calls:
        return 'tool_call: the answer holds no well-formed <tool_call>{"name": ..., "arguments": ...}</tool_call>'
    tools = listed_tools(prompt)
    if not tools:
        return None
    for call in calls:
        schema = tools.get(call["name"])
        if schema is None:
            return f"tool_call: {call['name']!r} is not one of the prompt's tools ({', '.join(sorted(tools))})"
        declared = schema.get("properties")
        missing = [name for name in schema.get("required", []) if name not in call["arguments"]]
        if missing:
            return f"tool_call: {call['name']} misses required argument(s) {', '.join(missing)}"
        if isinstance(declared, dict):
            unknown = [name for name in call["arguments"] if name not in declared]
            if unknown:
                return f"tool_call: {call['name']} has no argument(s) {', '.join(unknown)}"
    return None


VERIFIERS: dict[str, Verifier | None] = {"none": None, "math": verify_math, "tool_call": verify_tool_call}


def select_verifier(name: str, reward_manager: str) -> Verifier | None:
    """The verifier ``name`` (``auto``: the one matching ``reward_manager``, or none)."""
    if name == "auto":
        return VERIFIERS.get(reward_manager)
    if name not in VERIFIERS:
        raise BadInput(f"--verifier {name!r} is not one of auto, {', '.join(VERIFIERS)}")
    return VERIFIERS[name]
