"""The training-time scorer: log-probabilities of sampled replies under the model being trained (or a reference),
for the update step (``gymverse.run.update``) and SFT.

It reads a batch as the sampler does (``gymverse.policy.hf``: left-padded prompts, a prompt that several rows
share read once), so the scores match the sampling log-probabilities of the same weights.
"""

from typing import Any, Sequence

from gymverse.policy.hf import cache_argument, distinct_rows, left_padded, prompt_forward


def right_padded(rows: Sequence[Sequence[int]], width: int, pad_id: int, device: Any):
    """``(batch, width)`` ids, each row padded on the right."""
    import torch

    return torch.tensor([list(row) + [pad_id] * (width - len(row)) for row in rows], dtype=torch.long, device=device)


def sequence_logprobs(model, prompt_ids, response_ids, temperature: float = 1.0, pad_id: int = 0):
    """Per-token log-probabilities of each response given its prompt under ``model``.

    Returns a ``(batch, longest response)`` float32 tensor (zeros past each response's end, see
    :func:`response_mask`), with gradients when called outside ``torch.no_grad``. ``temperature``
    divides the logits as during sampling. A prompt that several rows share is read once
    (:func:`prompt_forward`) and the responses continue from its key-value cache; otherwise (or
    under activation checkpointing, which turns the cache off) each row is read whole.
    """
    import torch

    width = max(len(r) for r in response_ids)
    if width == 0:
        return torch.zeros((len(response_ids), 0), device=model.device)
    shared = len(distinct_rows(prompt_ids)[0]) < len(prompt_ids) and not activation_checkpointing(model)
    if shared:
        logits = _continued_logits(model, prompt_ids, response_ids, width, pad_id)
    else:
        logits = _whole_row_logits(model, prompt_ids, response_ids, width, pad_id)
    logits = logits.float() / temperature
    targets = right_padded(response_ids, width, pad_id, model.device)
    logprobs = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - logits.logsumexp(-1)
    return logprobs * response_mask(response_ids, model.device)


def _whole_row_logits(model, prompt_ids, response_ids, width: int, pad_id: int):
    """Logits predicting each response token, ``(batch, width, vocab)``, from one pass over prompt + response.

    Prompts are padded on the left so every response starts in the same column, and logits are
    computed for the response positions only.
    """
    rows = [list(p) + list(r) + [pad_id] * (width - len(r)) for p, r in zip(prompt_ids, response_ids)]
    ids, mask, positions = left_padded(rows, pad_id, model.device)
    for i, r in enumerate(response_ids):  # the right padding is not attended to
        mask[i, mask.shape[1] - (width - len(r)) :] = 0
    # Logits at positions -width-1 .. -2 predict the response tokens at -width .. -1.
    logits = model(
        input_ids=ids,
        attention_mask=mask,
        position_ids=positions,
        logits_to_keep=width + 1,
        use_cache=False,
    ).logits
    return logits[:, :-1]


def _continued_logits(model, prompt_ids, response_ids, width: int, pad_id: int):
    """The same logits as :func:`_whole_row_logits`, each distinct prompt read once and its cache shared."""
    import torch

    cache_name = cache_argument(model)
    first, cache, mask, positions = prompt_forward(model, prompt_ids, pad_id, cache_name)
    if width == 1:
        return first[:, None]
    ids = right_padded(response_ids, width, pad_id, model.device)[:, :-1]  # each but the last predicts the next
    mask = torch.cat([mask, response_mask(response_ids, model.device)[:, : width - 1].to(mask.dtype)], dim=-1)
    positions = positions[:, -1:] + 1 + torch.arange(width - 1, device=model.device)
    rest = model(
        input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True, **{cache_name: cache}
    ).logits
    return torch.cat([first[:, None], rest], dim=1)


def activation_checkpointing(model) -> bool:
    """Whether ``model`` recomputes activations in training (transformers then turns its cache off)."""
    return model.training and any(getattr(m, "gradient_checkpointing", False) for m in model.modules())


def response_mask(response_ids, device: Any = "cpu"):
    """``(batch, longest response)`` float mask: 1 on real response tokens, 0 on padding."""
    import torch

    width = max((len(r) for r in response_ids), default=0)
    lengths = torch.tensor([len(r) for r in response_ids], device=device)
    return (torch.arange(width, device=device)[None, :] < lengths[:, None]).float()
