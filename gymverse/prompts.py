"""Prompt templates: how an observation becomes the text a policy continues."""

from typing import Any

_IM_USER = "<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n"

# Prompt templates: observation -> the text the policy continues. qwen3_game is GymVerse's wording;
# the others are ours, in the same spirit.
TEMPLATES: dict[str, str | None] = {
    "qwen3_game": _IM_USER.format(
        "You are playing language games. Make valid actions to win.\nObservation: {observation}"
        "\nPlease reason step by step, and put your final answer within \\boxed{{}}."
    ),
    "qwen3_general": _IM_USER.format(
        "Question: {observation}\nPlease reason step by step, and put your final answer within \\boxed{{}}."
    ),
    "qwen3_tool": _IM_USER.format(
        "You can use the tools described below as often as you need before answering.\n{observation}"
        "\nThink step by step, call a tool whenever it helps, and put your final answer within \\boxed{{}}."
    ),
    "code": _IM_USER.format(
        "Solve the following programming task. Write your complete solution in one Python code block "
        "(```python ... ```).\n{observation}"
    ),
    "no": "{observation}",
    "chat": None,  # the tokenizer's own chat template, one user turn
}
# Templates that ask for the answer in \boxed{}: replies there stop once the box closes (by default).
BOXED_ANSWER_TEMPLATES = frozenset({"qwen3_game", "qwen3_general", "qwen3_tool"})


def apply_template(name: str, observation: str, tokenizer: Any = None) -> str:
    """The prompt for ``observation`` under template ``name`` (see :data:`TEMPLATES`)."""
    if name not in TEMPLATES:
        raise ValueError(f"unknown prompt template {name!r}; choose one of {', '.join(TEMPLATES)}")
    if name == "chat":
        if tokenizer is None or not getattr(tokenizer, "chat_template", None):
            raise ValueError("the 'chat' prompt template needs a tokenizer that has a chat template")
        return tokenizer.apply_chat_template(
            [{"role": "user", "content": observation}],
            tokenize=False,
            add_generation_prompt=True,
        )
    return str(TEMPLATES[name]).format(observation=observation)
