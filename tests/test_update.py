"""The shared update step: micro-batches hold the replies to one prompt together, the gradient unchanged."""

import random

import pytest
import torch

import gymverse.run.logprobs as scorer
from gymverse.episodes import Turn
from gymverse.policy.base import Sampling
from gymverse.policy.hf import HFPolicy
from gymverse.run.plan import TurnSample
from gymverse.run.settings import GenerationSettings, UpdateSettings
from gymverse.run.update import PolicyUpdate


@pytest.fixture
def samples(micro_model):
    """Four replies to each of two prompts, in the order the sampler wrote them."""
    sampler = HFPolicy(micro_model, Sampling(generate_max_length=6, seed=0), num_threads=1)
    prompts = ["What is 2 + 3?"] * 4 + ["Name a colour."] * 4
    return [
        TurnSample(str(k // 4), Turn(p, g.text, g.prompt_ids, g.response_ids, g.logprobs, 0.0, g.truncated), 0.0)
        for k, (p, g) in enumerate(zip(prompts, sampler.generate(prompts)))
    ]


def trained(micro_model, samples, per_device):
    """The gradient the optimizer stepped with, and the update's statistics."""
    model = HFPolicy(micro_model, Sampling(seed=0), num_threads=1).model
    settings = UpdateSettings(train_batch_size=8, train_batch_size_per_device=per_device)
    update = PolicyUpdate(model, 256, settings, GenerationSettings(generate_max_length=6), total_updates=1)
    stepped = []
    update.optimizer.register_step_pre_hook(lambda *_: stepped.append([p.grad.clone() for p in model.parameters()]))
    advantages = [1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 0.0, 1.0]
    stats = update.learn(samples, advantages, random.Random(1))
    assert len(stepped) == 1
    return stepped[0], stats


def test_how_a_batch_splits_into_micro_batches_leaves_the_update_unchanged(micro_model, samples):
    whole, whole_stats = trained(micro_model, samples, per_device=8)
    split, split_stats = trained(micro_model, samples, per_device=2)
    assert any(g.abs().sum() > 0 for g in whole)
    for a, b in zip(whole, split):
        assert torch.allclose(a, b, atol=1e-6, rtol=1e-4)
    assert split_stats == pytest.approx(whole_stats, rel=1e-4, abs=1e-6)


def test_each_micro_batch_holds_the_replies_to_one_prompt(micro_model, samples, monkeypatch):
    seen, score = [], scorer.sequence_logprobs

    def spy(model, prompt_ids, response_ids, *args):
        seen.append({tuple(p) for p in prompt_ids})
        return score(model, prompt_ids, response_ids, *args)

    monkeypatch.setattr(scorer, "sequence_logprobs", spy)
    trained(micro_model, samples, per_device=4)
    assert [len(prompts) for prompts in seen] == [1, 1]


def test_reference_kl_sums_the_per_token_kl_of_each_reply(micro_model, samples):
    from gymverse.perpo import kl_penalty

    model = HFPolicy(micro_model, Sampling(seed=0), num_threads=1).model
    settings, generation = UpdateSettings(train_batch_size=8, train_batch_size_per_device=3), GenerationSettings()
    same = PolicyUpdate(model, 256, settings, generation, 1, reference=model).reference_kl(samples, "low_var_kl")
    assert same == pytest.approx([0.0] * 8, abs=1e-5)  # sampled by the reference itself
    other = HFPolicy(micro_model, Sampling(seed=0), num_threads=1).model
    with torch.no_grad():
        for parameter in other.parameters():
            parameter.add_(0.05 * torch.randn_like(parameter))
    kls = PolicyUpdate(model, 256, settings, generation, 1, reference=other).reference_kl(samples, "kl")
    for sample, kl in zip(samples, kls):
        ref = scorer.sequence_logprobs(other, [sample.turn.prompt_ids], [sample.turn.response_ids], 1.0, 256)
        expected = kl_penalty(torch.tensor([sample.turn.logprobs]), ref, torch.ones_like(ref), "kl").sum().item()
        assert kl == pytest.approx(expected, abs=1e-4)
    assert any(abs(kl) > 1e-3 for kl in kls)


@pytest.mark.parametrize("poison", ["advantage", "loss"])
def test_a_non_finite_advantage_or_loss_stops_the_update_before_the_optimizer_moves(micro_model, samples, poison):
    from gymverse.run.finite import NonFinite

    model = HFPolicy(micro_model, Sampling(seed=0), num_threads=1).model
    settings = UpdateSettings(train_batch_size=4, train_batch_size_per_device=2)
    update = PolicyUpdate(model, 256, settings, GenerationSettings(), total_updates=2)
    stepped = []
    update.optimizer.register_step_pre_hook(lambda *_: stepped.append(1))
    advantages = [1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 0.0, 1.0]
    if poison == "advantage":
        advantages[5] = float("inf")
    else:
        with torch.no_grad():
            next(model.parameters()).fill_(float("nan"))  # what a NaN that got into the weights does
    with pytest.raises(NonFinite, match=f"a non-finite {poison} \\((inf|nan)\\) from [01]"):
        update.learn(samples, advantages, random.Random(1))
    assert stepped == []
