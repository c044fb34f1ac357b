"""The native trainer: flags, run files, curricula reaching the games, checkpoints, and exact resume."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

import gymverse  # noqa: F401  (registers the built-in games)
from gymverse.curriculum import AlphaCurriculum, RatchetCurriculum, ThresholdCurriculum, make_curriculum
from gymverse.env import get_env_complexity, register_env_dir
from gymverse.rollout import Episode, Turn, make_env_group
from gymverse.errors import BadInput
from gymverse.train.args import (
    EnvArgs, TrainArgs, curriculum_params, ignored_flags, validate_env_args, validate_train_args,
)
from gymverse.train.checkpoints import STATE_FILE, load_trainer_state, resolve_run_dir, saved_steps
from gymverse.train.cli import check_env_ids, parse_train_args, train_from_argv
from gymverse.train.curriculum_hooks import apply_curriculum
from gymverse.train.loop import Trainer, advantages_of, turn_samples
from gymverse.train.run_files import RunFiles

README_COMMAND = """
--env_id gymverse:GridCourier|gymverse:MailSorter --evolve --prompt_template qwen3_game --wrappers concat
--gamma 0.9 --norm_return --gpus 4 --gradient-checkpointing --num_samples 1 --num_env 4
--rollout_batch_size 128 --rollout_batch_size_per_device 16 --pi_buffer_maxlen_per_device 16 --pretrain tiny
--enable_prefix_caching --collocate --vllm_sleep --vllm_gpu_ratio 0.45 --rnd-seed --learning_rate 0.000001
--lr_scheduler constant --lr_warmup_ratio 0 --num_ppo_epochs 2 --train_batch_size 128
--train_batch_size_per_device 1 --beta 0 --max_model_len 30000 --generate_max_length 8192 --temperature 1.0
--top_p 1 --eval_steps -1 --save_steps -1 --eval_temperature 0.6 --eval_top_p 0.95 --eval_generate_max_length 4096
--max_train 9000 --max_save_num 30 --use-wb --wb-run-name gymverse-perpo-multienv --wb_project gymverse-multienv
""".split()
ENVS = "gymverse:GridCourier|gymverse:MailSorter"


def short_run(model: Path, save_path: Path, *extra: str) -> list[str]:
    return [
        "--env_id", ENVS, "--pretrain", str(model), "--save_path", str(save_path), "--wb_run_name", "t",
        "--num_env", "4", "--rollout_batch_size", "8", "--max_train", "48", "--train_batch_size", "4",
        "--train_batch_size_per_device", "2", "--generate_max_length", "8", "--learning_rate", "1e-3",
        "--prompt_template", "no", "--eval_n", "2", "--eval_steps", "3", "--eval_generate_max_length", "8",
        "--save_steps", "2", "--max_save_num", "2", "--evolve", "--up_threshold", "0", "--up_steps", "1",
        "--max_difficulty", "4", "--gamma", "0.9", "--sft_episodes", "0", *extra,
    ]


# -- flags ------------------------------------------------------------------------------------------
def test_the_gymverse_readme_command_parses_and_lists_the_gpu_only_flags_it_ignores():
    args = parse_train_args(README_COMMAND)
    validate_train_args(args)
    assert (args.env_id, args.evolve, args.gamma, args.norm_return, args.num_ppo_epochs) == (ENVS, True, 0.9, True, 2)
    assert (args.pretrain, args.use_wb, args.max_model_len) == ("tiny", True, 30000)
    assert args.wb_run_name == "gymverse-perpo-multienv"
    assert ignored_flags(README_COMMAND) == [
        "--gpus", "--rollout_batch_size_per_device", "--pi_buffer_maxlen_per_device", "--enable_prefix_caching",
        "--collocate", "--vllm_sleep", "--vllm_gpu_ratio",
    ]


def test_the_readme_command_starts_on_cpu(micro_model, tmp_path, monkeypatch):
    """Everything up to the first step: model, reference, optimizer, envs, wandb (offline, no network)."""
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    monkeypatch.setenv("WANDB_MODE", "offline")
    argv = [a if a != "tiny" else str(micro_model) for a in README_COMMAND] + ["--save_path", str(tmp_path)]
    trainer = Trainer(parse_train_args(argv), progress=False)
    trainer.setup()
    assert trainer.total_steps == 9000 // 128
    assert {e: trainer.complexity(e) for e in trainer.env_ids} == {"gymverse:GridCourier": 1, "gymverse:MailSorter": 1}
    assert (trainer.run_dir / "wandb").is_dir()
    trainer.wandb.finish()


@pytest.mark.parametrize("change, message", [
    ({"env_id": " | "}, "--env_id is empty"),
    ({"gamma": 1.5}, "--gamma"),
    ({"train_difficulty": 5, "max_difficulty": 3}, "--max_difficulty"),
    ({"eval_difficulty": "1|x"}, "--eval_difficulty"),
    ({"train_batch_size": 6, "train_batch_size_per_device": 4}, "multiple"),
    ({"max_train": 10, "rollout_batch_size": 20}, "--max_train"),
])
def test_bad_flag_values_get_clear_errors(change, message):
    with pytest.raises(BadInput, match=message):
        validate_train_args(TrainArgs(**change))


def test_bad_input_on_the_command_line_prints_an_error_and_no_traceback(tmp_path, capsys):
    assert train_from_argv(["--env_id", "gymverse:NoSuchGame", "--save_path", str(tmp_path)]) is None
    assert "unknown environment id(s) gymverse:NoSuchGame" in capsys.readouterr().err
    assert train_from_argv(["--resume", "--save_path", str(tmp_path), "--wb_run_name", "never"]) is None
    assert "nothing to resume" in capsys.readouterr().err
    with pytest.raises(BadInput):
        check_env_ids(["nope:Nope"])


def test_curriculum_params_follow_the_chosen_curriculum():
    args = EnvArgs(curriculum="ratchet", train_difficulty=2, ratchet_min_episodes=8)
    validate_env_args(args)
    curriculum = make_curriculum(args.curriculum, **curriculum_params(args))
    assert isinstance(curriculum, RatchetCurriculum)
    assert (curriculum.start, curriculum.min_episodes, curriculum.max_complexity) == (2, 8, 10)


# -- curricula and the games they reach -------------------------------------------------------------
def episodes(env_id, successes):
    return [SimpleNamespace(env_id=env_id, success=s) for s in successes]


def test_threshold_curriculum_moves_after_three_batches_in_a_row():
    c = ThresholdCurriculum(start=2, max_complexity=4)
    assert [c.update("e", r) for r in (0.9, 0.9, 0.5, 0.9, 0.9, 0.9)] == [2, 2, 2, 2, 2, 3]
    assert [c.update("e", r) for r in (0.0, 0.1, 0.05)] == [3, 3, 2]
    assert [c.update("e", 1.0) for _ in range(9)][-1] == 4  # capped at max_complexity
    assert [ThresholdCurriculum().update("e", 0.0) for _ in range(5)] == [1] * 5  # never below min


def test_alpha_curriculum_keeps_success_near_alpha_with_a_dead_band():
    c = AlphaCurriculum(start=3, alpha=0.5, k_min=0.1)
    assert [c.update("e", r) for r in (0.55, 0.45, 0.9, 0.9, 0.2, 0.61)] == [3, 3, 4, 5, 4, 5]


def test_ratchet_curriculum_only_goes_up_after_enough_accurate_episodes():
    c = RatchetCurriculum(accuracy=0.9, min_episodes=8)
    assert c.update("e", 1.0, 4) == 1  # too few episodes yet
    assert c.update("e", 1.0, 4) == 2
    assert c.update("e", 0.0, 100) == 2  # never down
    assert c.update("e", 1.0, 100) == 2  # the failures at this level still count
    c.load_state_dict(c.state_dict())
    assert c.complexity("e") == 2


def test_apply_curriculum_reaches_wrapped_vector_envs_and_skips_unplayed_ones():
    groups = {e: make_env_group(e, 2, "concat", complexity=1) for e in ENVS.split("|")}
    curriculum = ThresholdCurriculum(up_threshold=0.5, up_steps=1)
    levels = apply_curriculum(curriculum, {"gymverse:GridCourier": episodes("gymverse:GridCourier", [1, 1])}, groups)
    assert levels == {"gymverse:GridCourier": 2}
    groups["gymverse:GridCourier"].reset(seed=0)
    assert [env.unwrapped.complexity for env in groups["gymverse:GridCourier"].envs] == [2, 2]
    assert get_env_complexity(groups["gymverse:MailSorter"].envs[0]) == 1


CONSTRUCTOR_ONLY = '''
import gem

class SizedCounter(gem.Env):
    """A third-party env that reads its complexity once, in the constructor."""
    def __init__(self, complexity=1, **_):
        self.size = complexity
    def reset(self, seed=None):
        return f"size {self.size}", {}
    def step(self, action):
        return "done", 1.0, True, False, {"success": True}
'''


def test_apply_curriculum_rebuilds_third_party_envs_that_read_complexity_only_in_their_constructor(tmp_path):
    (tmp_path / "sized.py").write_text(CONSTRUCTOR_ONLY)
    assert register_env_dir(tmp_path, prefix="t2third").registered == ["t2third:SizedCounter"]
    group = make_env_group("t2third:SizedCounter", 2, complexity=1)
    apply_curriculum(ThresholdCurriculum(up_threshold=0.5, up_steps=1), {"x": episodes("x", [1])}, {"x": group})
    observations, _ = group.reset(seed=0)
    assert observations == ["size 2", "size 2"]


# -- returns and advantages -------------------------------------------------------------------------
def make_episode(env_id, rewards, ended_by="terminated", lengths=None):
    lengths = lengths or [2] * len(rewards)
    turns = [Turn("p", "r", [1], [5] * n, [-0.5] * n, r, False) for r, n in zip(rewards, lengths)]
    return Episode(env_id, 1, turns, success=rewards[-1] == 1.0, episode_return=sum(rewards), length=len(turns),
                   ended_by=ended_by)


def test_turn_samples_carry_discounted_returns_and_skip_overflowed_episodes():
    kept = make_episode("a", [0.0, -0.1, 1.0])
    dropped = make_episode("a", [0.0], ended_by="context_overflow")
    samples = turn_samples([kept, dropped], gamma=0.5, keep_generation_failed=False)
    assert [s.ret for s in samples] == pytest.approx([-0.1 * 0.5 + 0.25, -0.1 + 0.5, 1.0])
    assert len(turn_samples([kept, dropped], 0.5, keep_generation_failed=True)) == 4
    assert turn_samples([make_episode("a", [1.0], lengths=[0])], 1.0, False) == []  # nothing to train on


def test_advantages_are_normalized_within_each_environment_of_a_mixed_batch():
    batch = [make_episode("a", [0.0, 1.0]), make_episode("b", [5.0]), make_episode("b", [7.0])]
    samples = turn_samples(batch, 1.0, False)
    adv = advantages_of(samples, norm_return=True)
    assert adv == pytest.approx([0.0, 0.0, -1.0, 1.0], abs=1e-6)  # "a": returns 1, 1; "b": 5, 7
    assert advantages_of(samples, norm_return=False) == [1.0, 1.0, 5.0, 7.0]


# -- run folder ------------------------------------------------------------------------------------
def test_run_folders_are_new_unless_resuming(tmp_path):
    first = resolve_run_dir(tmp_path, "run", resume=False)
    second = resolve_run_dir(tmp_path, "run", resume=False)
    assert first.name == "run" and second.name.startswith("run_") and second != first
    (second / STATE_FILE).write_bytes(b"")
    assert resolve_run_dir(tmp_path, "run", resume=True) == second
    with pytest.raises(FileNotFoundError, match="nothing to resume"):
        resolve_run_dir(tmp_path, "other", resume=True)


def test_run_files_records_and_truncation(tmp_path):
    files = RunFiles(tmp_path, actor_id=3)
    eps = [make_episode("a", [0.0, 1.0]), make_episode("a", [0.0])]
    record = files.log_env_metrics(1, "a", eps, complexity=2, next_complexity=3)
    assert record["mean_episode_success"] == 0.5 and record["mean_episode_len"] == 1.5 and record["actor_id"] == 3
    offsets = files.offsets()
    files.log_episodes(1, eps)
    files.log_env_metrics(2, "a", eps, complexity=3)
    files.truncate(offsets)
    assert [r["step"] for r in files.read("actor_env_metrics.jsonl")] == [1]
    assert files.read("episode_details.jsonl") == []
    files.log_eval(4, "gymverse:X", {1: eps, 3: eps[:1]})
    assert [(r["complexity"], r["accuracy"]) for r in files.read("eval_env_metrics.jsonl")] == [(1, 0.5), (3, 1.0)]
    assert len(json.loads((tmp_path / "eval_results" / "4_gymverse:X.json").read_text())) == 3


def test_a_short_run_leaves_logs_checkpoints_state_and_figure(micro_model, tmp_path):
    run_dir = train_from_argv(short_run(micro_model, tmp_path, "--env_sampling", "mixed"))
    files = RunFiles(run_dir)
    metrics = files.read("actor_env_metrics.jsonl")
    assert [(r["step"], r["env_id"]) for r in metrics][:2] == [(1, "gymverse:GridCourier"), (1, "gymverse:MailSorter")]
    assert {"step", "env_id", "mean_episode_len", "mean_episode_success", "complexity"} <= metrics[0].keys()
    # up_threshold 0 and up_steps 1 raise every played env by one level per step, up to max_difficulty
    assert [r["complexity"] for r in metrics if r["env_id"] == "gymverse:MailSorter"] == [1, 2, 3, 4, 4, 4]
    details = files.read("episode_details.jsonl")
    assert {"step", "env_id", "episode_length", "episode_success", "episode_return", "complexity"} <= details[0].keys()
    assert {r["complexity"] for r in details if r["step"] == 3} == {3}  # the new complexity reached the games
    assert saved_steps(run_dir) == [4, 6]  # every 2 steps, the newest 2 kept
    assert (run_dir / "saved_models" / "step_00006" / "config.json").is_file()
    assert load_trainer_state(run_dir)["step"] == 6
    assert sorted({r["step"] for r in files.read("eval_env_metrics.jsonl")}) == [0, 3, 6]
    assert (run_dir / "eval_results" / "6_gymverse:MailSorter.json").is_file()
    assert (run_dir / "figures" / "training_curves.png").stat().st_size > 10_000
    assert len(list((run_dir / "trajectories").glob("step_*.json"))) == 6


def test_round_robin_plays_one_environment_per_step(micro_model, tmp_path):
    trainer = Trainer(parse_train_args(short_run(micro_model, tmp_path)), progress=False)
    assert [trainer.envs_for_step(s) for s in (1, 2, 3)] == [[e] for e in ENVS.split("|") + ENVS.split("|")[:1]]


# -- resume ----------------------------------------------------------------------------------------
def run_in_subprocess(argv: list[str]) -> subprocess.Popen:
    code = "import sys; from gymverse.train.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.Popen([sys.executable, "-c", code, *argv], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def logged_past_the_saved_state(run_dir: Path) -> bool:
    """True once the logs hold a step that the saved state does not (lines a resume must drop)."""
    if not (run_dir / STATE_FILE).exists():
        return False
    saved = load_trainer_state(run_dir)["step"]
    try:
        return any(r["step"] > saved for r in RunFiles(run_dir).read("actor_env_metrics.jsonl"))
    except ValueError:  # caught a line half-written
        return False


def weights(run_dir: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(run_dir / "saved_models" / "step_00006" / "model.safetensors")


def test_a_run_killed_and_resumed_ends_like_an_uninterrupted_one(micro_model, tmp_path):
    straight = train_from_argv(short_run(micro_model, tmp_path / "a"))
    argv = short_run(micro_model, tmp_path / "b")
    process = run_in_subprocess(argv)
    state = tmp_path / "b" / "t" / STATE_FILE
    deadline = time.time() + 120
    while not logged_past_the_saved_state(state.parent) and process.poll() is None:
        assert time.time() < deadline, "the run never saved a state"
        time.sleep(0.02)
    assert process.poll() is None, f"the run ended before it could be killed: {process.stderr.read()[-2000:]}"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert load_trainer_state(state.parent)["step"] < 6
    resumed = train_from_argv(argv + ["--resume"])
    assert resumed == tmp_path / "b" / "t"
    for name in ("actor_env_metrics.jsonl", "episode_details.jsonl", "eval_env_metrics.jsonl"):
        assert (resumed / name).read_text() == (straight / name).read_text(), name
    assert load_trainer_state(resumed)["curriculum"] == load_trainer_state(straight)["curriculum"]
    a, b = weights(straight), weights(resumed)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# -- the RL update ---------------------------------------------------------------------------------
def test_one_update_on_a_sampled_batch_moves_each_reply_in_the_direction_of_its_advantage(micro_model, tmp_path):
    from gymverse.policy.hf import sequence_logprobs

    args = parse_train_args(short_run(micro_model, tmp_path, "--rollout_batch_size", "16", "--train_batch_size", "16",
                                      "--train_batch_size_per_device", "8", "--generate_max_length", "6"))
    trainer = Trainer(args, progress=False)
    trainer.setup()
    samples = turn_samples([e for eps in trainer.collect(1).values() for e in eps], args.gamma, False)[:16]
    prompts, responses = [s.prompt_ids for s in samples], [s.response_ids for s in samples]

    def rescored():
        with torch.no_grad():
            return sequence_logprobs(trainer.policy.model, prompts, responses, args.temperature,
                                     trainer.tokenizer.pad_token_id)

    before = rescored()
    for i, s in enumerate(samples):  # the first PPO ratio is 1: training scores tokens as sampling drew them
        assert before[i, : len(s.logprobs)] == pytest.approx(torch.tensor(s.logprobs), abs=1e-5)
    advantages = [1.0 if i % 2 == 0 else -1.0 for i in range(len(samples))]
    stats = trainer.learn(samples, advantages, step=1)
    assert stats["ratio_mean"] == pytest.approx(1.0, abs=1e-5) and stats["clip_fraction"] == 0.0
    change = (rescored() - before).sum(-1)  # the sampling policy itself was updated, not a copy
    assert change[0::2].mean() > 0 > change[1::2].mean()
