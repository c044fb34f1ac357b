"""The native trainer: flags, run files, curricula reaching the games, checkpoints, and exact resume."""

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from runs import child, flags, interrupted

import gymverse  # noqa: F401  (registers the built-in games)
from gymverse.curriculum import CONTROLLERS, Curriculum, CurriculumDriver, Level
from gymverse.errors import BadInput
from gymverse.run.checkpoints import STATE_FILE, load_trainer_state, saved_steps
from gymverse.run.config import validate_loop_config
from gymverse.run.files import RunFiles
from gymverse.run.plan import turn_samples
from gymverse.run.prepare import prepare
from gymverse.train.args import TrainArgs, ignored_flags
from gymverse.train.cli import parse_train_args, train_from_argv
from gymverse.train.loop import Trainer

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
        *flags(env_id=ENVS, pretrain=model, save_path=save_path, wb_run_name="t", num_env=4, rollout_batch_size=8),
        *flags(max_train=48, train_batch_size=4, train_batch_size_per_device=2, generate_max_length=8),
        *flags(learning_rate="1e-3", prompt_template="no", eval_n=2, eval_steps=3, eval_generate_max_length=8),
        *flags(save_steps=2, max_save_num=2, up_threshold=0, up_steps=1, max_difficulty=4, gamma=0.9, sft_episodes=0),
        *flags(max_idle_steps=0),  # an untrained model whose 8-token replies are all cut
        *flags(before_after_n=0),  # no table of what RL added (tests/test_train_signal.py's runs make one)
        "--evolve",
        *extra,
    ]


# -- flags ------------------------------------------------------------------------------------------
def test_the_gymverse_readme_command_parses_and_lists_the_gpu_only_flags_it_ignores():
    args = parse_train_args(README_COMMAND)
    validate_loop_config(args)
    assert (args.env_id, args.evolve, args.gamma, args.norm_return, args.num_ppo_epochs) == (ENVS, True, 0.9, True, 2)
    assert (args.pretrain, args.use_wb, args.max_model_len) == ("tiny", True, 30000)
    assert args.wb_run_name == "gymverse-perpo-multienv"
    assert ignored_flags(README_COMMAND) == [
        "--gpus",
        "--rollout_batch_size_per_device",
        "--pi_buffer_maxlen_per_device",
        "--enable_prefix_caching",
        "--collocate",
        "--vllm_sleep",
        "--vllm_gpu_ratio",
    ]


def test_the_readme_command_starts_on_cpu(micro_model, tmp_path, monkeypatch):
    """Everything up to the first step: model, reference, optimizer, envs, wandb (offline, no network)."""
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    monkeypatch.setenv("WANDB_MODE", "offline")
    argv = [a if a != "tiny" else str(micro_model) for a in README_COMMAND] + ["--save_path", str(tmp_path)]
    trainer = Trainer(parse_train_args(argv), progress=False)
    trainer.setup()
    assert trainer.total_steps() == 9000 // 128
    assert trainer.curriculum.levels() == {"gymverse:GridCourier": 1, "gymverse:MailSorter": 1}
    assert (trainer.run_dir / "wandb").is_dir()
    trainer.wandb.finish()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"env_id": " | "}, "--env_id is empty"),  # the run configuration's checks (tests/test_run.py) run too
        ({"train_batch_size": 6, "train_batch_size_per_device": 4}, "multiple"),
        ({"max_train": 10, "rollout_batch_size": 20}, "--max_train"),
    ],
)
def test_bad_flag_values_get_clear_errors(change, message):
    with pytest.raises(BadInput, match=message):
        validate_loop_config(TrainArgs(**change))


def test_every_flag_has_its_own_help_line():
    import tyro

    actions = [a for a in tyro.extras.get_parser(TrainArgs)._actions if a.option_strings and a.dest != "help"]
    helps = [a.help.split(" (default")[0].strip() for a in actions]
    assert len(actions) > 90 and all(helps), [a.option_strings for a, h in zip(actions, helps) if not h]
    assert len(set(helps)) == len(helps)  # no flag borrows another's text
    by_flag = {a.option_strings[0]: h for a, h in zip(actions, helps)}
    assert by_flag["--gamma"].startswith("Discount of the PERPO returns")
    assert by_flag["--seed"].startswith("Seed of the games")
    assert by_flag["--async-env"].startswith("Step each vector env")


def test_a_mistyped_value_is_refused_before_torch_is_imported_naming_the_flag_as_typed():
    code = (
        "import sys; from gymverse.train.cli import main; status = main(['--max-difficulty', '0']); "
        "print(status, 'torch' in sys.modules, 'transformers' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["2", "False", "False"], done.stderr
    assert "--max-difficulty" in done.stderr and "--max_difficulty" not in done.stderr
    assert "Traceback" not in done.stderr


def test_gymverse_train_and_the_example_script_run_the_same_trainer(tmp_path, capsys):
    import importlib.util

    from gymverse.cli import main as gymverse_main

    with pytest.raises(SystemExit) as exited:
        gymverse_main(["train", "--env_id", "gymverse:NoSuchGame"])
    assert exited.value.code == 2 and "unknown environment id 'gymverse:NoSuchGame'" in capsys.readouterr().err
    script = Path(__file__).resolve().parents[1] / "examples" / "train_oat" / "train_oat_perpo.py"
    spec = importlib.util.spec_from_file_location("train_oat_perpo", script)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(["--env_id", "gymverse:NoSuchGame"]) == 2
    assert "unknown environment id 'gymverse:NoSuchGame'" in capsys.readouterr().err


def test_bad_input_on_the_command_line_prints_an_error_and_no_traceback(tmp_path, capsys):
    assert train_from_argv(["--env_id", "gymverse:NoSuchGame", "--save_path", str(tmp_path)]) is None
    assert "unknown environment id 'gymverse:NoSuchGame'" in capsys.readouterr().err
    assert train_from_argv(["--resume", "--save_path", str(tmp_path), "--wb_run_name", "never"]) is None
    assert "nothing to resume" in capsys.readouterr().err
    assert train_from_argv(["--env_id", "gymverse:PeakFindr", "--save_path", str(tmp_path)]) is None
    assert "did you mean gymverse:PeakFinder?" in capsys.readouterr().err
    assert (
        train_from_argv(
            [
                "--env_id",
                "gymverse:LightsOut",
                "--train_difficulty",
                "72",
                "--max_difficulty",
                "80",
                "--save_path",
                str(tmp_path),
            ]
        )
        is None
    )
    assert "--train_difficulty 72 is above gymverse:LightsOut's highest complexity, 71" in capsys.readouterr().err


def test_the_curriculum_stops_at_each_games_highest_complexity():
    args = TrainArgs(
        env_id="gymverse:LightsOut|gymverse:PeakFinder",
        evolve=True,
        curriculum="ratchet",
        train_difficulty=70,
        max_difficulty=500,
        ratchet_min_episodes=1,
    )
    driver = CurriculumDriver.from_config(["gymverse:LightsOut", "gymverse:PeakFinder"], args, args.seed)
    for _ in range(5):
        driver.curriculum.update("gymverse:LightsOut", 1.0, 4)
        driver.curriculum.update("gymverse:PeakFinder", 1.0, 4)
    assert driver.levels() == {"gymverse:LightsOut": 71, "gymverse:PeakFinder": 75}


@pytest.fixture
def controllers():
    """The controller registry, as it was before the test."""
    saved = dict(CONTROLLERS)
    yield CONTROLLERS
    CONTROLLERS.clear()
    CONTROLLERS.update(saved)


def test_a_new_controller_is_one_class_whose_flags_and_checks_follow(controllers):
    class HoldCurriculum(Curriculum):
        """Up one level every --hold_batches batches, whatever the success."""

        name = "hold"

        @dataclass
        class Params:
            hold_batches: int = 2
            """hold curriculum: batches at a level before the next one."""

            def validate(self):
                if self.hold_batches < 1:
                    raise BadInput(f"--hold_batches must be at least 1, got {self.hold_batches}")

        @dataclass
        class State(Level):
            batches: int = 0

        def _next_complexity(self, env_id, state, rate, episodes, ceiling):
            state.batches += 1
            return state.complexity + (state.batches % self.params.hold_batches == 0)

    args = parse_train_args(["--curriculum", "hold", "--hold_batches", "3", "--max_difficulty", "3"])
    validate_loop_config(args)
    driver = CurriculumDriver.from_config(["a"], args, args.seed)
    assert [driver.advance({"a": (0.0, 4)})["a"] for _ in range(8)] == [1, 1, 2, 2, 2, 3, 3, 3]
    assert driver.state_dict() == {"a": {"complexity": 3, "batches": 8}}
    with pytest.raises(BadInput, match="--hold_batches must be at least 1, got 0"):
        validate_loop_config(parse_train_args(["--curriculum", "hold", "--hold_batches", "0"]))
    del controllers["hold"]
    with pytest.raises(BadInput, match="invalid choice 'hold' for argument '--curriculum'"):
        parse_train_args(["--curriculum", "hold"])
    assert parse_train_args([]).__class__ is TrainArgs  # the built-in controllers' flags are TrainArgs' own


def test_the_readmes_curriculum_example_runs_as_written(controllers, capsys):
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    example = readme[readme.index("**Your own curriculum**") :]
    exec(example[example.index("```python\n") + 10 : example.index("```\n\n")], {"__name__": "readme_example"})
    assert capsys.readouterr().out.split() == ["3"] and "hold" in controllers


INSTALLED_CONTROLLER = """
from dataclasses import dataclass

from gymverse.curriculum import Curriculum


class StairsCurriculum(Curriculum):
    name = "stairs"

    @dataclass
    class Params:
        stair_every: int = 2
        \"\"\"stairs curriculum: batches per level.\"\"\"

        def validate(self):
            pass

    def _next_complexity(self, env_id, state, rate, episodes, ceiling):
        return state.complexity + 1
"""


def test_an_installed_packages_controller_is_a_curriculum_choice_and_a_broken_one_a_warning(tmp_path):
    """A package declares its controllers in the entry-point group ``gymverse.curricula`` (here a distribution's
    metadata on the path, as pip would install it): ``import gymverse`` imports them, so ``gymverse train`` offers
    the controller and its flags; a plugin that fails to import is one warning, and the rest still work."""
    (tmp_path / "stairs_plugin.py").write_text(INSTALLED_CONTROLLER)
    dist = tmp_path / "stairs_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: stairs-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[gymverse.curricula]\nstairs = stairs_plugin\nbroken = no_such_module_here\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    parse = (
        "from gymverse.train.cli import parse_train_args\n"
        "args = parse_train_args(['--curriculum', 'stairs', '--stair_every', '3'])\n"
        "print(args.curriculum, args.stair_every)"
    )
    done = subprocess.run([sys.executable, "-c", parse], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["stairs", "3"]
    assert "curriculum plugin broken was not registered" in done.stderr and "no_such_module_here" in done.stderr
    assert "Traceback" not in done.stderr


# -- a run ---------------------------------------------------------------------------------------
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


# A game in GymVerse's style (parameters from complexity, module-level random, no info["success"]): in a folder
# named example it registers as example:RunicPotionGame.
EXAMPLE_GAMES = Path(__file__).parent / "fixtures" / "gymverse_layout" / "gem" / "envs" / "example"
RUNIC = EXAMPLE_GAMES / "game_RunicPotionGame_LongestTwoDistinctSubstringEnv_GEM_env.py"


def test_env_dir_registers_a_folder_of_games_under_its_name(micro_model, tmp_path):
    folder = tmp_path / "example"
    folder.mkdir()
    shutil.copy(RUNIC, folder)
    argv = short_run(
        micro_model,
        tmp_path / "runs",
        "--env_id",
        "example:RunicPotionGame",
        "--env_dir",
        str(folder),
        "--max_train",
        "16",
        "--eval_steps",
        "0",
    )
    run_dir = train_from_argv(argv)
    metrics = RunFiles(run_dir).read("actor_env_metrics.jsonl")
    assert {r["env_id"] for r in metrics} == {"example:RunicPotionGame"} and len(metrics) == 2
    assert [r["complexity"] for r in metrics] == [1, 2]  # the curriculum reaches a constructor-only game


# GymVerse's two README training commands, as its README prints them.
GYMVERSE_COMMON = """
--evolve --prompt_template qwen3_game --wrappers concat --gamma 0.9 --norm_return --gpus 4 --gradient-checkpointing
--num_samples 1 --num_env 4 --rollout_batch_size 128 --rollout_batch_size_per_device 16
--pi_buffer_maxlen_per_device 16 --pretrain Qwen/Qwen3-4B-Base --enable_prefix_caching --collocate --vllm_sleep
--vllm_gpu_ratio 0.45 --rnd-seed --learning_rate 0.000001 --lr_scheduler constant --lr_warmup_ratio 0
--num_ppo_epochs 2 --train_batch_size 128 --train_batch_size_per_device 1 --beta 0 --max_model_len 30000
--generate_max_length 8192 --temperature 1.0 --top_p 1 --eval_steps -1 --save_steps -1 --eval_temperature 0.6
--eval_top_p 0.95 --eval_generate_max_length 4096 --max_train 9000 --max_save_num 30 --use-wb
""".split()
GYMVERSE_COMMANDS = {
    "single": [
        "--env_id",
        "example:RunicPotionGame",
        *GYMVERSE_COMMON,
        "--wb-run-name",
        "gymverse-perpo-singleenv-RunicPotionGame",
        "--wb_project",
        "gymverse-singleenv",
    ],
    "multi": [
        "--env_id",
        "example:RunicPotionGame|example:RaidPartyPlanner|example:RuneRingPuzzle|example:GuildRegionsGame",
        *GYMVERSE_COMMON,
        "--wb-run-name",
        "gymverse-perpo-multienv-4envs",
        "--wb_project",
        "gymverse-multienv",
    ],
}


@pytest.mark.parametrize("name", GYMVERSE_COMMANDS)
def test_gymverses_readme_commands_start_on_cpu_with_env_dir_and_pretrain_tiny(
    name, gymverse_folder, tiny_dir, tmp_path, monkeypatch, capsys
):
    """Only the model and the folder change; its games have no solver, so RL starts from the untrained model."""
    monkeypatch.setenv("GYMVERSE_CACHE", str(tiny_dir.parent))
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    monkeypatch.setenv("WANDB_MODE", "offline")
    argv = [a if a != "Qwen/Qwen3-4B-Base" else "tiny" for a in GYMVERSE_COMMANDS[name]]
    argv += ["--env_dir", str(gymverse_folder), "--trusted", "--save_path", str(tmp_path)]
    args = parse_train_args(argv)
    prepare(args, argv, validate_loop_config)
    trainer = Trainer(args, progress=False)
    trainer.setup()
    assert "RL starts from the untrained tiny model" in capsys.readouterr().out
    assert trainer.total_steps() == 9000 // 128
    assert set(trainer.curriculum.levels()) == set(args.env_id.split("|"))
    trainer.wandb.finish()


def test_gymverses_four_games_train_on_cpu_from_the_untrained_tiny_model(
    gymverse_folder, tiny_dir, tmp_path, monkeypatch
):
    monkeypatch.setenv("GYMVERSE_CACHE", str(tiny_dir.parent))
    ids = GYMVERSE_COMMANDS["multi"][1]
    argv = short_run(
        Path("tiny"),
        tmp_path,
        "--env_id",
        ids,
        "--env_dir",
        str(gymverse_folder),
        "--trusted",
        *flags(rollout_batch_size=4, max_train=16, sft_episodes=-1),  # four steps of four turns
        *flags(eval_steps=0, eval_n=1),  # evaluated once, after training
        "--no-eval_before_train",
        "--prompt_template",
        "qwen3_game",
        "--wrappers",
        "concat",
        "--max_model_len",  # concat grows the prompt each turn: GymVerse's command caps it at 30000
        "4096",
    )
    metrics = RunFiles(train_from_argv(argv)).read("actor_env_metrics.jsonl")
    assert [r["env_id"] for r in metrics] == ids.split("|")  # round robin: one game per step


def test_a_missing_env_dir_is_named_in_the_error(tmp_path, capsys):
    assert train_from_argv(["--env-dir", str(tmp_path / "nowhere")]) is None
    assert f"--env-dir {tmp_path / 'nowhere'}: no such env folder" in capsys.readouterr().err


# -- resume ----------------------------------------------------------------------------------------
def logged_past_the_saved_state(run_dir: Path, last: int) -> bool:
    """True once the logs hold a step that the saved state does not (lines a resume must drop), with the state two
    or more steps short of ``last``: a kill now cannot land after the final save, however slow the machine. The
    state is read once, so a save in between cannot mislead."""
    if not (run_dir / STATE_FILE).exists():
        return False
    saved = load_trainer_state(run_dir)["step"]
    if saved > last - 2:
        return False
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
    process = child("train", argv, stdout=subprocess.DEVNULL)
    state = tmp_path / "b" / "t" / STATE_FILE
    deadline = time.time() + 120
    while not logged_past_the_saved_state(state.parent, 6) and process.poll() is None:
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


def test_ctrl_c_stops_at_the_end_of_a_step_with_a_checkpoint_and_resume_says_from_where(micro_model, tmp_path, capsys):
    argv = short_run(micro_model, tmp_path, "--save_steps", "100")  # no checkpoint before the end, but for Ctrl-C
    run_dir = tmp_path / "t"
    out = interrupted("train", argv, run_dir / "actor_env_metrics.jsonl")  # (RunFiles would make the folder first)
    stopped = load_trainer_state(run_dir)["step"]
    assert 1 <= stopped < 6 and saved_steps(run_dir) == [stopped]
    assert f"Stopped at step {stopped} of 6: the last checkpoint is {run_dir}/saved_models/step_{stopped:05d}" in out
    assert "with --resume continues from it" in out
    assert train_from_argv(argv + ["--resume"]) == run_dir
    assert f"Resumed from step {stopped} " in capsys.readouterr().out
    assert load_trainer_state(run_dir)["step"] == 6


# -- the RL update ---------------------------------------------------------------------------------
def test_one_update_on_a_sampled_batch_moves_each_reply_in_the_direction_of_its_advantage(micro_model, tmp_path):
    from gymverse.run.logprobs import sequence_logprobs

    args = parse_train_args(
        short_run(
            micro_model,
            tmp_path,
            *flags(rollout_batch_size=16, train_batch_size=16, train_batch_size_per_device=8, generate_max_length=6),
        )
    )
    trainer = Trainer(args, progress=False)
    trainer.setup()
    samples = turn_samples([e for eps in trainer.collect(1).values() for e in eps], args.gamma)[:16]
    prompts, responses = [s.turn.prompt_ids for s in samples], [s.turn.response_ids for s in samples]

    def rescored():
        with torch.no_grad():
            return sequence_logprobs(
                trainer.policy.model, prompts, responses, args.temperature, trainer.tokenizer.pad_token_id
            )

    before = rescored()
    for i, s in enumerate(samples):  # the first PPO ratio is 1: training scores tokens as sampling drew them
        assert before[i, : len(s.turn.logprobs)] == pytest.approx(torch.tensor(s.turn.logprobs), abs=1e-5)
    advantages = [1.0 if i % 2 == 0 else -1.0 for i in range(len(samples))]
    stats = trainer.agent_step.learn(samples, advantages, step=1)
    assert stats["ratio_mean"] == pytest.approx(1.0, abs=1e-5) and stats["clip_fraction"] == 0.0
    change = (rescored() - before).sum(-1)  # the sampling policy itself was updated, not a copy
    assert change[0::2].mean() > 0 > change[1::2].mean()


NAN_FROM_LEVEL_3 = """
from gem.core import Env


class NanLater(Env):
    def __init__(self, complexity=1, **_):
        super().__init__()
        self.complexity = complexity

    def reset(self, seed=None):
        return "Say \\\\boxed{go}.", {}

    def step(self, action):
        reward = 1.0 if "go" in str(action) else 0.0
        return "done", float("nan") if self.complexity >= 3 else reward, True, False, {"success": reward == 1.0}
"""


def test_a_game_that_pays_nan_stops_the_step_before_the_optimizer_moves_and_keeps_the_last_checkpoint(
    micro_model, tmp_path, capsys
):
    from safetensors.torch import load_file

    from gymverse.train.cli import main

    folder = tmp_path / "nan_folder"
    folder.mkdir()
    (folder / "nan_later.py").write_text(NAN_FROM_LEVEL_3)
    argv = short_run(micro_model, tmp_path / "runs", "--env_id", "nan_folder:NanLater", "--env_dir", str(folder))
    argv += ["--trusted", *flags(save_steps=1, max_train=40, eval_steps=0, eval_difficulty=1)]
    assert main(argv) == 1  # the curriculum plays level 3 at step 3
    err = capsys.readouterr().err
    assert "error: step 3 met a non-finite return (nan) from nan_folder:NanLater and learned nothing from it" in err
    assert "stopped at step 2 of 5" in err and "Traceback" not in err
    run_dir = tmp_path / "runs" / "t"
    assert saved_steps(run_dir) == [1, 2] and load_trainer_state(run_dir)["step"] == 2
    weights = load_file(next((run_dir / "saved_models" / "step_00002").glob("*.safetensors")))
    assert all(torch.isfinite(tensor).all() for tensor in weights.values())
