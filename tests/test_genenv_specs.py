"""The game task space: spec validation, playing a spec, the environment policy's scoring and update."""

import json
import random
import re

import gem
import pytest
import torch
import tyro

import gymverse  # noqa: F401  (registers the games)
from gymverse.errors import BadInput
from gymverse.genenv.attempts import play_specs, start_with
from gymverse.genenv.config import GenEnvArgs, validate_genenv_args
from gymverse.genenv.prompts import UniformSpecs, game_prompt, spec_text, warm_start_pairs
from gymverse.genenv.rewards import env_reward_fn
from gymverse.genenv.scoring import WrittenTask, group_advantages, p_histogram, score, summary
from gymverse.genenv.sides import env_settings, load_side
from gymverse.genenv.specs import GameSpec, game_info, read_spec
from gymverse.policy import load_policy
from gymverse.policy.base import Generation
from gymverse.run.env_table import normalization_keys
from gymverse.run.plan import TurnSample

GAMES = ["gymverse:GridCourier", "gymverse:MailSorter"]


@pytest.fixture(scope="module")
def infos():
    return {game: game_info(game, cap=10) for game in GAMES}


def test_a_valid_spec_reads_with_its_declared_parameters(infos):
    (name, (low, high)), *_ = infos["gymverse:MailSorter"].ranges.items()
    text = f'Sure! ```json\n{{"game": "MailSorter", "complexity": 4, "params": {{"{name}": {high}}}, "seed": 7}}\n```'
    check = read_spec(text, infos)
    assert check.reason is None
    assert check.spec == GameSpec("gymverse:MailSorter", 4, {name: high}, 7)
    assert infos["gymverse:MailSorter"].highest == 10  # the run's --max_difficulty caps the game's own 20+


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "no JSON object"),
        ("complexity three please", "no JSON object"),
        ('{"game": "gymverse:Chess", "complexity": 2}', "is not one of gymverse:GridCourier, gymverse:MailSorter"),
        ('{"game": "GridCourier", "complexity": 11}', "not an integer in [1, 10]"),
        ('{"game": "GridCourier", "complexity": 0}', "not an integer in [1, 10]"),
        ('{"game": "GridCourier", "complexity": 2.5}', "not an integer"),
        ('{"game": "GridCourier", "complexity": true}', "not an integer"),
        ('{"game": "GridCourier", "complexity": 2, "seed": -4}', "seed -4"),
        ('{"game": "GridCourier", "complexity": 2, "params": {"colour": 3}}', "colour"),
        ('{"game": "GridCourier", "complexity": 2, "params": [1, 2]}', "not a JSON object"),
        ('{"game": "GridCourier", "complexity": 2, "params": {"%s": 10000}}', "10000"),
        ('{"game": "GridCourier", "complexity": 2, "params": {"%s": "big"}}', "big"),
        ('["GridCourier", 2]', "no JSON object"),
    ],
)
def test_invalid_specs_say_why(infos, text, reason):
    first_param = next(iter(infos["gymverse:GridCourier"].ranges))
    check = read_spec(text.replace("%s", first_param), infos)
    assert check.spec is None and reason in check.reason


def test_the_attempts_at_a_spec_replay_one_instance_at_its_complexity_and_parameters(infos):
    (name, (low, high)), *_ = infos["gymverse:MailSorter"].ranges.items()
    specs = [
        GameSpec("gymverse:MailSorter", 3, {name: high}, 11),
        GameSpec("gymverse:GridCourier", 2, {}, 5),
        GameSpec("gymverse:MailSorter", 1, {}, 12),
    ]
    played = play_specs(load_policy("epsilon:0.5", seed=0), specs, 3, "no")
    assert [len(episodes) for episodes in played] == [3, 3, 3]
    for spec, episodes in zip(specs, played):
        assert {e.env_id for e in episodes} == {spec.game} and {e.complexity for e in episodes} == {spec.complexity}
        assert len({e.turns[0].prompt for e in episodes}) == 1  # the same instance every time
    oracle = play_specs(load_policy("oracle"), specs, 2, "no")
    assert all(e.success for episodes in oracle for e in episodes)  # a valid spec is solvable
    game = gem.make("gymverse:MailSorter")
    start_with(game.unwrapped, specs[0])
    game.reset(seed=11)
    assert game.unwrapped.params[name] == high and game.unwrapped.complexity == 3


def test_with_norm_scope_group_each_tasks_attempts_share_one_normalization(infos):
    """genenv's --norm_scope group: the game space gives AgentStep --group_size = --attempts, and the copies that
    play one task's attempts are one block of that size, so each task's turns are normalized together."""
    specs = [
        GameSpec("gymverse:MailSorter", 1, {}, 11),
        GameSpec("gymverse:MailSorter", 2, {}, 12),
        GameSpec("gymverse:GridCourier", 1, {}, 5),
    ]
    played = play_specs(load_policy("epsilon:0.5", seed=0), specs, 3, "no")
    groups = [
        {*normalization_keys([TurnSample(e.env_id, None, 0.0, e.copy) for e in episodes], "group", 3)}
        for episodes in played
    ]
    assert [len(keys) for keys in groups] == [1, 1, 1]  # one normalization per task
    assert groups[0] != groups[1]  # two tasks of one game are two groups


@pytest.mark.parametrize(
    "flags, error",
    [
        (["--group_size", "2"], "in genenv a group is the --attempts of one task"),
        (["--norm_scope", "group", "--attempts", "1"], "give --attempts 2 or more"),
        (["--task_space", "datasets", "--train_files", "x.parquet", "--norm_scope", "batch"], "datasets normalize"),
    ],
)
def test_genenv_refuses_normalization_flags_it_cannot_honour(flags, error):
    args = tyro.cli(GenEnvArgs, args=flags)
    with pytest.raises(BadInput, match=error):
        validate_genenv_args(args)


def test_uniform_specs_and_warm_start_pairs_are_valid(infos):
    writer = UniformSpecs(infos, seed=0)
    prompts = [game_prompt(game, infos[game], {1: 0.5}) for game in GAMES] * 20
    for prompt, generation in zip(prompts, writer.generate(prompts)):
        spec = read_spec(generation.text, infos).spec
        assert spec is not None and f"game: {spec.game};" in prompt
    levels = [json.loads(spec)["complexity"] for _, spec in warm_start_pairs(infos, 200, seed=1)]
    assert set(levels) == set(range(1, 11))
    assert all(read_spec(spec, infos).spec for _, spec in warm_start_pairs(infos, 20, seed=2))
    shown = [len(re.findall(r"\bc\d+ \d\.\d\d", prompt)) for prompt, _ in warm_start_pairs(infos, 200, seed=3)]
    assert set(shown) == set(range(0, 7))  # success lines as long as a run's prompts show (none to 6 complexities)


# -- scoring and the environment update ------------------------------------------------------------
def written(group, p, text="{}", valid=True, ids=(1, 2)):
    return WrittenTask(
        group,
        "prompt",
        Generation(text, [0], list(ids), [-1.0] * len(ids)),
        task=object() if valid else None,
        reason=None if valid else "no JSON object",
        p=p,
    )


def test_scoring_pays_r_env_penalizes_invalid_tasks_and_applies_the_band():
    reward = env_reward_fn("gaussian", 0.5, 10.0)
    tasks = [written("a", 0.5), written("a", 1.0), written("a", None, valid=False), written("b", 0.0, ids=())]
    samples = score(tasks, reward, -1.0, alpha=0.5, k_min=0.1, band_filter=True)
    assert [t.reward for t in tasks] == pytest.approx([1.0, reward(1.0), -1.0, reward(0.0)])
    assert [t.in_band for t in tasks] == [True, False, False, False]
    assert [t.trained for t in tasks] == [True, False, True, False]  # out of band; no tokens to train
    assert [s.ret for s in samples] == pytest.approx([1.0, -1.0])
    assert group_advantages(samples) == pytest.approx([1.0, -1.0])
    record = summary(tasks)
    assert record["valid_rate"] == 0.75 and record["band_fraction"] == pytest.approx(1 / 3)
    assert record["p_histogram"] == [1, 0, 1, 0, 1] and record["invalid_reasons"] == {"no JSON object": 1}
    assert p_histogram([0.19999, 0.2, 0.8, 1.0]) == [1, 1, 0, 0, 2]
    assert len(score(tasks, reward, -1.0, 0.5, 0.1, band_filter=False)) == 3


def test_one_environment_update_moves_probability_toward_specs_with_higher_r_env(micro_model, infos):
    from gymverse.run.logprobs import sequence_logprobs

    args = GenEnvArgs(env_model=str(micro_model))
    side = load_side("environment", str(micro_model), env_settings(args), 10, True, "chat", seed=0)
    prompt = side.prompt(game_prompt("gymverse:GridCourier", infos["gymverse:GridCourier"], {}))
    prompt_ids = side.policy.encode(prompt)
    texts = ['{"game": "GridCourier", "complexity": 3}', '{"game": "GridCourier", "complexity": 9}']
    responses = [side.policy.encode(t) + [side.tokenizer.eos_token_id] for t in texts]

    def logprobs():
        with torch.no_grad():
            return sequence_logprobs(
                side.policy.model, [prompt_ids] * 2, responses, args.env_temperature, side.tokenizer.pad_token_id
            )

    before = logprobs()
    rates = [0.5, 1.0]  # the agent wins the first task half of the time and the second always
    tasks = [
        WrittenTask(
            "g",
            prompt,
            Generation(t, prompt_ids, r, before[k, : len(r)].tolist()),
            GameSpec("gymverse:GridCourier", 3 + 6 * k),
            p=rates[k],
        )
        for k, (t, r) in enumerate(zip(texts, responses))
    ] * 2
    samples = score(tasks, env_reward_fn("gaussian"), -1.0, 0.5, 0.1, band_filter=False)
    stats = side.learn(samples, group_advantages(samples), random.Random(0))
    assert stats["ratio_mean"] == pytest.approx(1.0, abs=1e-5)
    change = (logprobs() - before).sum(-1)
    assert change[0] > 0 > change[1]


def test_spec_text_round_trips(infos):
    spec = GameSpec("gymverse:GridCourier", 4, {}, 99)
    assert read_spec(spec_text(spec), infos).spec == spec
    assert json.loads(spec_text(spec, short=True))["game"] == "GridCourier"


def test_the_environment_warm_start_fits_random_valid_specs(micro_model, infos, tmp_path, capsys):
    from gymverse.genenv.game_space import warm_start_environment

    args = GenEnvArgs(env_model=str(micro_model), sft_epochs=2, sft_batch_size=8, sft_learning_rate=2e-3)
    out = warm_start_environment(args, infos, 32, tmp_path / "env", seed=0, progress=False)
    assert (out / "model.safetensors").is_file() and (out / "tokenizer.json").is_file()
    first, last = map(float, capsys.readouterr().out.split("loss ")[1].split(" -> "))
    assert last < first
