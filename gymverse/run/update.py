"""The update step of the in-process run loop: one model, its optimizer and schedule, PPO-clip on sampled replies.

``PolicyUpdate.learn(samples, advantages, order)`` makes ``num_ppo_epochs`` passes over the samples (each
one sampled reply with its prompt, token ids and sampling log-probabilities, as ``sample.turn``) in
optimizer batches of ``train_batch_size``, accumulated over micro-batches of ``train_batch_size_per_device``;
every token of a reply carries its advantage. Where the advantages come from is the caller's business
(PERPO's per-environment returns, GRPO's per-prompt rewards, GenEnv's R_env), so the PERPO trainer and
both policies of the co-evolution loop share this one step.
"""

import math
import random
from typing import Any, Sequence

from gymverse.perpo import aggregate_tokens, kl_penalty, ppo_clip_loss
from gymverse.run.finite import require_finite
from gymverse.run.settings import GenerationSettings, UpdateSettings


def prepare_torch(device: str, cpu_threads: int, seed: int) -> None:
    """Seed torch, cap its CPU threads (``cpu_threads`` > 0 on a CPU) and quiet transformers' progress bars."""
    import torch
    import transformers

    transformers.utils.logging.disable_progress_bar()
    if device == "cpu" and cpu_threads > 0:
        torch.set_num_threads(cpu_threads)
    torch.manual_seed(seed)


class PolicyUpdate:
    """PPO-clip updates of ``model`` with the ``update`` settings, on replies sampled with the ``generation``
    settings (their temperature scores the replies again; their length limit is the loss's normalizer unless
    --length_norm_constant gives one); ``total_updates`` sizes the schedule; ``reference`` (a frozen model) adds
    ``update.beta`` times the KL penalty, estimated by ``kl_estimator`` (--kl_loss_type)."""

    def __init__(
        self,
        model: Any,
        pad_id: int,
        update: UpdateSettings,
        generation: GenerationSettings,
        total_updates: int,
        reference: Any = None,
        kl_estimator: str = "low_var_kl",
    ) -> None:
        import torch

        self.model, self.pad_id, self.reference = model, pad_id, reference
        self.settings, self.temperature, self.kl_estimator = update, generation.temperature, kl_estimator
        self.normalizer = update.length_norm_constant or generation.generate_max_length
        self.optimizer = torch.optim.AdamW(
            model.parameters(),
            lr=update.learning_rate,
            betas=(update.adam_beta_1, update.adam_beta_2),
            weight_decay=update.l2,
        )
        self.scheduler = _scheduler(self.optimizer, update.lr_scheduler, total_updates, update.lr_warmup_ratio)

    @staticmethod
    def updates_per_call(update: UpdateSettings, samples: int) -> int:
        """Optimizer steps one ``learn`` call on ``samples`` samples makes (to size the schedule)."""
        return update.num_ppo_epochs * math.ceil(samples / update.train_batch_size)

    def state_dict(self) -> dict[str, Any]:
        return {"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])

    def reference_kl(self, samples: Sequence[Any], estimator: str) -> list[float]:
        """Each sample's per-token KL (``estimator``) between the reply's sampling log-probabilities and the
        reference model's, summed over the reply (what veRL subtracts from a reply's reward with kl_ctrl)."""
        import torch

        from gymverse.run.logprobs import response_mask, sequence_logprobs

        args, sums = self.settings, []
        with torch.no_grad():
            for start in range(0, len(samples), args.train_batch_size_per_device):
                micro = samples[start : start + args.train_batch_size_per_device]
                responses = [s.turn.response_ids for s in micro]
                ref = sequence_logprobs(
                    self.reference, [s.turn.prompt_ids for s in micro], responses, self.temperature, self.pad_id
                )
                mask = response_mask(responses, ref.device)
                sampled = _padded([s.turn.logprobs for s in micro], ref)
                sums += kl_penalty(sampled, ref, mask, estimator).sum(-1).tolist()
        return sums

    def learn(self, samples: Sequence[Any], advantages: Sequence[float], order: random.Random) -> dict[str, float]:
        """One update on ``samples`` (``order`` shuffles them); mean loss statistics, grad norm, learning rate.

        A non-finite return, advantage, loss or gradient raises :class:`~gymverse.run.finite.NonFinite` before
        the optimizer takes it."""
        import torch

        from gymverse.policy.hf import distinct_rows
        from gymverse.run.logprobs import response_mask, sequence_logprobs

        args, model, pad = self.settings, self.model, self.pad_id
        temperature, normalizer = self.temperature, self.normalizer
        games = [s.env_id for s in samples]
        require_finite("return", [s.ret for s in samples], games)
        require_finite("advantage", advantages, games)
        totals: dict[str, float] = {}
        updates = 0
        model.train()
        for _ in range(args.num_ppo_epochs):
            indices = list(range(len(samples)))
            order.shuffle(indices)
            for start in range(0, len(indices), args.train_batch_size):
                batch = indices[start : start + args.train_batch_size]
                # Replies to one prompt side by side: a micro-batch reads a prompt they share once. The
                # gradient is the batch's sum, so how the batch splits into micro-batches does not change it.
                group = distinct_rows([samples[i].turn.prompt_ids for i in batch])[1]
                batch = [i for _, i in sorted(zip(group, batch), key=lambda pair: pair[0])]
                for micro_start in range(0, len(batch), args.train_batch_size_per_device):
                    micro = [samples[i] for i in batch[micro_start : micro_start + args.train_batch_size_per_device]]
                    prompts, responses = [s.turn.prompt_ids for s in micro], [s.turn.response_ids for s in micro]
                    logprobs = sequence_logprobs(model, prompts, responses, temperature, pad)
                    mask = response_mask(responses, logprobs.device)
                    old = _padded([s.turn.logprobs for s in micro], logprobs)
                    adv = torch.tensor(
                        [advantages[i] for i in batch[micro_start : micro_start + len(micro)]],
                        dtype=logprobs.dtype,
                        device=logprobs.device,
                    )
                    loss, stats = ppo_clip_loss(logprobs, old, adv, mask, args.cliprange, normalizer)
                    if self.reference is not None:
                        with torch.no_grad():
                            ref = sequence_logprobs(self.reference, prompts, responses, temperature, pad)
                        kl = aggregate_tokens(kl_penalty(logprobs, ref, mask, self.kl_estimator), mask, normalizer)
                        loss = loss + args.beta * kl
                        stats["kl"] = kl.item()
                    require_finite("loss", [loss.item()], [s.env_id for s in micro])
                    (loss * len(micro) / len(batch)).backward()
                    for key, value in {"loss": loss.item(), **stats}.items():
                        totals[key] = totals.get(key, 0.0) + value * len(micro)
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_norm)
                require_finite("gradient norm", [float(grad_norm)], [games[i] for i in batch])
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad(set_to_none=True)
                totals["grad_norm"] = totals.get("grad_norm", 0.0) + float(grad_norm) * len(samples)
                updates += 1
        model.eval()
        seen = len(samples) * args.num_ppo_epochs
        stats = {key: value / seen for key, value in totals.items()}
        stats["grad_norm"] = totals.get("grad_norm", 0.0) / max(updates * len(samples), 1)
        stats["learning_rate"] = self.scheduler.get_last_lr()[0]
        return stats


def _padded(rows: list[list[float]], like: Any) -> Any:
    import torch

    out = torch.zeros_like(like)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row, dtype=like.dtype)
    return out


def _scheduler(optimizer: Any, name: str, total: int, warmup_ratio: float) -> Any:
    from transformers import get_scheduler

    extra = {"min_lr_rate": 0.1} if name == "cosine_with_min_lr" else {}
    total = max(total, 1)
    scheduler = get_scheduler(
        name,
        optimizer,
        num_warmup_steps=int(total * warmup_ratio),
        num_training_steps=total,
        scheduler_specific_kwargs=extra,
    )
    # past ``total`` updates (a GenEnv run on an episode budget whose tasks were not all valid) the rate stays at
    # its last value, where a cosine would climb back up
    scheduler.lr_lambdas = [lambda update, rate=rate: rate(min(update, total)) for rate in scheduler.lr_lambdas]
    return scheduler
