"""What a game may hand a trainer: the value rules of the env contract, one function per rule.

A reward is a finite real number (not a bool: a bool in the reward's place is a misplaced tuple more often
than a reward, and Gymnasium's checker does not count it as one either); ``terminated`` and ``truncated`` are
bools; ``info["success"]``, when present, is a bool; every string can be encoded as UTF-8 (a lone surrogate
cannot, and it ends a tokenizer with a traceback). The checker holds every game to these rules and the jail's
proxy holds a jailed game's replies to them. Each function returns what is wrong, or "" when nothing is.
"""

import math
import numbers
from typing import Any


def is_bool(value: Any) -> bool:
    """A Python or numpy bool (a game played in this process may return numpy's)."""
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def reward_problem(reward: Any) -> str:
    """Why ``reward`` is not a finite real number a trainer can use ("" when it is)."""
    if is_bool(reward) or not isinstance(reward, numbers.Real):
        return f"the reward is a {type(reward).__name__}, not a number"
    try:
        value = float(reward)
    except OverflowError:
        size = f"an integer of {reward.bit_length()} bits" if isinstance(reward, int) else "a number"
        return f"the reward is {size}, outside float range"
    if not math.isfinite(value):
        return f"the reward is {value}, not a finite number"
    return ""


def text_problem(text: str) -> str:
    """Why ``text`` cannot be encoded as UTF-8 ("" when it can)."""
    if text.isascii():
        return ""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"text that is not valid UTF-8 ({text[error.start : error.end]!a} at character {error.start})"
    return ""


def info_problem(info: Any) -> str:
    if not isinstance(info, dict):
        return f"info is a {type(info).__name__}, not a dict"
    if "success" in info and not is_bool(info["success"]):
        return f"info['success'] is {_short(info['success'])}, not a bool"
    return ""


def reset_problem(out: Any) -> str:
    """Why a ``reset`` reply is not ``(str, dict)`` with a valid info ("" when it is)."""
    if not (isinstance(out, tuple) and len(out) == 2):
        return f"reset must return (observation, info), got {_short(out)}"
    if not isinstance(out[0], str):
        return f"the observation is a {type(out[0]).__name__}, not a str"
    return text_problem(out[0]) or info_problem(out[1])


def step_problem(out: Any) -> str:
    """Why a ``step`` reply breaks the contract's value rules ("" when it keeps them)."""
    if not (isinstance(out, tuple) and len(out) == 5):
        return f"step must return a 5-tuple, got {type(out).__name__}"
    observation, reward, terminated, truncated, info = out
    if not isinstance(observation, str):
        return f"the observation is a {type(observation).__name__}, not a str"
    if not (is_bool(terminated) and is_bool(truncated)):
        return f"terminated and truncated must be bools, got {type(terminated).__name__}, {type(truncated).__name__}"
    return reward_problem(reward) or text_problem(observation) or info_problem(info)


def _short(value: Any) -> str:
    try:
        text = ascii(value)
    except ValueError:  # an integer of too many digits to print
        text = f"a {type(value).__name__} too long to print"
    return text if len(text) <= 40 else text[:37] + "..."
