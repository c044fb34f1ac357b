"""Stage 1's output: a game design as JSON, read out of a model's answer and validated.

Validation returns every reason a design is refused (not just the first), so the model can fix
them all in one round.
"""

import json
import keyword
import re
from collections.abc import Set as AbstractSet
from typing import Any

NAME = re.compile(r"^[A-Z][A-Za-z0-9]{2,47}$")
IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
TEXT_FIELDS = ("domain", "summary", "rules", "hidden_state", "win", "loss", "solver")
MAX_TEXT = 4000

# What the abstraction prompt asks for, shown to the model beside validation failures.
SCHEMA_HINT = (
    '{"name": "CamelCaseName", "domain": "games|tool_use|algorithms|logic|...", "summary": "...", '
    '"rules": "...", "hidden_state": "...", "commands": [{"syntax": "verb ARG", "effect": "..."}], '
    '"win": "...", "loss": "...", "complexity_params": [{"name": "snake_case", "level_1": 4, "level_10": 40, '
    '"harder_because": "..."}], "solver": "the reference solver\'s strategy"}'
)


def extract_json(text: str) -> Any:
    """The JSON object in ``text``: a fenced ```json block, else the outermost ``{...}``.

    Raises ``ValueError`` saying what was wrong.
    """
    fenced = re.findall(r"```(?:json)?\s*\n(.*?)```", text, flags=re.DOTALL)
    candidates = [block for block in fenced if block.strip().startswith("{")]
    if not candidates:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("the answer holds no JSON object")
        candidates = [text[start : end + 1]]
    try:
        return json.loads(candidates[-1])
    except json.JSONDecodeError as error:
        raise ValueError(f"the design is not valid JSON: {error}") from None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def design_errors(design: Any, taken_names: AbstractSet[str] = frozenset()) -> list[str]:
    """Why ``design`` is refused (empty when it is valid); ``taken_names`` are game names in use."""
    if not isinstance(design, dict):
        return ["the design must be a JSON object"]
    errors = []
    name = design.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        errors.append("name: a CamelCase Python class name of 3 to 48 letters and digits, e.g. LanternMaze")
    elif name in taken_names:
        errors.append(f"name: {name} is already a game; choose another name")
    for key in TEXT_FIELDS:
        value = design.get(key)
        if not isinstance(value, str) or not value.strip():
            errors.append(f"{key}: a non-empty string")
        elif len(value) > MAX_TEXT:
            errors.append(f"{key}: at most {MAX_TEXT} characters")
    if isinstance(design.get("domain"), str) and not IDENTIFIER.match(design["domain"]):
        errors.append("domain: one lowercase word such as games, tool_use, algorithms or logic")
    commands = design.get("commands")
    if not isinstance(commands, list) or not commands:
        errors.append('commands: a non-empty list of {"syntax", "effect"}')
    else:
        for i, command in enumerate(commands):
            if not (
                isinstance(command, dict)
                and all(isinstance(command.get(k), str) and command[k].strip() for k in ("syntax", "effect"))
            ):
                errors.append(f"commands[{i}]: an object with non-empty strings 'syntax' and 'effect'")
    params = design.get("complexity_params")
    if not isinstance(params, list) or not params:
        errors.append("complexity_params: a non-empty list of {name, level_1, level_10, harder_because}")
    else:
        seen = set()
        for i, param in enumerate(params):
            where = f"complexity_params[{i}]"
            if not isinstance(param, dict):
                errors.append(f"{where}: an object")
                continue
            pname = param.get("name")
            if not isinstance(pname, str) or not IDENTIFIER.match(pname) or keyword.iskeyword(pname):
                errors.append(f"{where}.name: a snake_case identifier")
            elif pname in seen:
                errors.append(f"{where}.name: {pname} appears twice")
            seen.add(pname)
            first, tenth = param.get("level_1"), param.get("level_10")
            if not (_is_number(first) and _is_number(tenth)):
                errors.append(f"{where}: level_1 and level_10 must be numbers")
            elif first == tenth:
                errors.append(f"{where}: level_1 and level_10 are equal, so complexity would not change it")
            if not isinstance(param.get("harder_because"), str) or not param["harder_because"].strip():
                errors.append(f"{where}.harder_because: say what a larger/smaller value makes harder")
    return errors


def parse_design(text: str, taken_names: AbstractSet[str] = frozenset()) -> tuple[dict | None, list[str]]:
    """``(design, [])`` for a valid design in ``text``, else ``(whatever was read, reasons)``."""
    try:
        design = extract_json(text)
    except ValueError as error:
        return None, [str(error)]
    errors = design_errors(design, taken_names)
    return design, errors
