"""Supervised warm start: solver-labelled demonstrations, and training that imitates them."""

import random

import pytest
import torch
from gymverse.envs.games.mail_sorter import CITIES, MailSorter

import gymverse  # noqa: F401  (registers the built-in games)
from gymverse.env.groups import make_env_group
from gymverse.episodes import collect_episodes
from gymverse.errors import BadInput
from gymverse.run.sft import (
    Demonstrator,
    collect_demonstrations,
    games_with_solver,
    sft_command,
    train_on_demonstrations,
    warm_start,
)

ENVS = ["gymverse:GridCourier", "gymverse:MailSorter"]


def test_labels_are_the_solver_moves_even_when_the_played_move_is_random():
    env = MailSorter(complexity=5)
    env.reset(seed=1)
    demonstrator = Demonstrator(epsilon=1.0, seed=0)
    played = [demonstrator.generate(["p"], [env])[0].text for _ in range(30)]
    assert [label for _, label in demonstrator.pairs] == [env.oracle_action()] * 30
    assert len(set(played)) > 1  # random moves were played instead


def test_without_noise_the_demonstrator_wins_every_episode():
    demonstrator = Demonstrator(epsilon=0.0, seed=0)
    group = make_env_group("gymverse:GridCourier", 4, complexity=3, seed=0)
    episodes = collect_episodes(demonstrator, group, "gymverse:GridCourier", 8, template="no", seed=0)
    assert all(e.success for e in episodes)
    assert len(demonstrator.pairs) == sum(e.length for e in episodes)


def test_demonstrations_cover_every_game_and_level_and_are_reproducible():
    pairs = collect_demonstrations(ENVS, episodes_per_env=6, levels=[1, 4], template="no", seed=3)
    assert pairs == collect_demonstrations(ENVS, episodes_per_env=6, levels=[1, 4], template="no", seed=3)
    openings = [prompt for prompt, _ in pairs if "Courier on a" in prompt or "Post office" in prompt]
    assert len(openings) == 12  # one opening observation per episode
    assert any("3x3 grid" in p for p in openings) and any("Essen" in p for p in openings)  # 5+ bins: level 4
    assert {label[len("\\boxed{") : -1] for _, label in pairs} & set(CITIES)
    chat = collect_demonstrations(ENVS[:1], 2, [1], template="qwen3_game", seed=0)
    assert all(prompt.startswith("<|im_start|>user") for prompt, _ in chat)


def test_training_makes_the_demonstrated_moves_likelier(micro_model):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from gymverse.run.logprobs import sequence_logprobs

    tokenizer = AutoTokenizer.from_pretrained(micro_model)
    model = AutoModelForCausalLM.from_pretrained(micro_model)
    pairs = collect_demonstrations(ENVS[1:], 10, [1], template="no", seed=0)
    prompts = [tokenizer.encode(p) for p, _ in pairs[:8]]
    moves = [tokenizer.encode(m) + [tokenizer.eos_token_id] for _, m in pairs[:8]]

    def likelihood():
        with torch.no_grad():
            return sequence_logprobs(model, prompts, moves, pad_id=tokenizer.pad_token_id).sum().item()

    before = likelihood()
    result = train_on_demonstrations(
        model, tokenizer, pairs, epochs=10, batch_size=8, learning_rate=1e-2, progress=False
    )
    assert result.last_loss < result.first_loss / 2
    assert likelihood() > before + 50  # nats over 8 replies of ~10 tokens
    with pytest.raises(ValueError, match="no demonstrations"):
        train_on_demonstrations(model, tokenizer, [], progress=False)


def test_sft_command_saves_a_loadable_model(micro_model, tmp_path, capsys):
    from transformers import AutoModelForCausalLM

    out = sft_command(
        env_id="gymverse:MailSorter",
        pretrain=str(micro_model),
        output=str(tmp_path / "warm"),
        episodes=4,
        difficulty="1",
        epochs=1,
        batch_size=4,
    )
    assert "demonstrated moves" in capsys.readouterr().out
    assert AutoModelForCausalLM.from_pretrained(out).config.hidden_size == 32
    assert (out / "tokenizer_config.json").is_file()


def test_random_module_is_untouched_by_demonstrations():
    state = random.getstate()
    collect_demonstrations(ENVS, 2, [1], seed=0)
    assert random.getstate() == state


def warm_start_config(env_id: str, pretrain: str, sft_episodes: int):
    from gymverse.train.args import TrainArgs

    return TrainArgs(env_id=env_id, pretrain=pretrain, sft_episodes=sft_episodes, sft_epochs=1, prompt_template="no")


def test_the_warm_start_learns_from_the_games_that_have_a_solver_and_names_the_others(
    micro_model, gymverse_folder, tmp_path, capsys
):
    gymverse.register_env_dir(gymverse_folder, trusted=True)
    config = warm_start_config("gymverse:MailSorter|example:RunicPotionGame", str(micro_model), 4)
    assert games_with_solver(["gymverse:MailSorter", "example:RunicPotionGame"]) == ["gymverse:MailSorter"]
    out = warm_start(config, micro_model, tmp_path / "warm", seed=0, progress=False)
    printed = capsys.readouterr().out
    assert out == tmp_path / "warm" and (out / "config.json").is_file()
    assert "on gymverse:MailSorter only; no solver (oracle_action) in example:RunicPotionGame" in printed


def test_without_a_solver_anywhere_rl_starts_from_the_untrained_model_and_says_so(
    tiny_dir, gymverse_folder, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("GYMVERSE_CACHE", str(tiny_dir.parent))
    gymverse.register_env_dir(gymverse_folder, trusted=True)
    config = warm_start_config("example:RunicPotionGame|example:TruthLedger", "tiny", -1)
    assert warm_start(config, tiny_dir, tmp_path / "warm", seed=0, progress=False) == tiny_dir
    assert (
        "none of the games has a solver (oracle_action) to learn from, so RL starts from the untrained tiny model"
        in capsys.readouterr().out
    )
    assert not (tmp_path / "warm").exists()


def test_sft_command_refuses_games_without_a_solver(micro_model, gymverse_folder, tmp_path):
    gymverse.register_env_dir(gymverse_folder, trusted=True)
    with pytest.raises(BadInput, match="no solver .* in example:RunicPotionGame"):
        sft_command(env_id="example:RunicPotionGame", pretrain=str(micro_model), output=str(tmp_path / "warm"))
