"""The co-evolution loop end to end on tiny models: both task spaces, records, the environment update, resume, bad input."""

import json
import os
import shutil
import signal
import subprocess
import time

import pytest
import torch

pa = pytest.importorskip("pyarrow", reason="GenEnv's parquet datasets need pyarrow (a dependency in pyproject.toml)")
import pyarrow.parquet as pq  # noqa: E402
from runs import child, interrupted  # noqa: E402

from gymverse.cli import main as gymverse_main  # noqa: E402
from gymverse.genenv.cli import main as genenv_main  # noqa: E402
from gymverse.run.checkpoints import STATE_FILE, load_trainer_state  # noqa: E402
from gymverse.run.files import RunFiles  # noqa: E402

GAMES = "gymverse:GridCourier|gymverse:MailSorter"


def toy_rows(count):
    return [
        {
            "data_source": "toy",
            "prompt": [{"role": "user", "content": f"What is {k} + {k + 1}?"}],
            "reward_model": {"ground_truth": str(2 * k + 1), "style": "rule"},
            "extra_info": {"index": k},
        }
        for k in range(count)
    ]


@pytest.fixture
def toy_data(tmp_path):
    train, val = tmp_path / "train.parquet", tmp_path / "val.parquet"
    pq.write_table(pa.Table.from_pylist(toy_rows(12)), train)
    pq.write_table(pa.Table.from_pylist(toy_rows(4)), val)
    return train, val


def dataset_argv(model, data, out, *extra):
    train, val = data
    return [
        f"data.train_files={train}",
        f"data.val_files={val}",
        f"actor_rollout_ref.model.path={model}",
        f"env_model_path={model}",
        f"trainer.default_local_dir={out}",
        "genenv.num_generations_per_prompt=2",
        "genenv.filtering_k=0.25",
        "data.train_batch_size=4",
        "actor_rollout_ref.rollout.n=2",
        "trainer.total_epochs=2",
        "--generate_max_length",
        "8",
        "--env_generate_max_length",
        "12",
        "--wb_run_name",
        "t",
        "--seed",
        "3",
        *extra,
    ]


def games_argv(agent, env_model, out, *extra):
    return [
        "--env_id",
        GAMES,
        "--pretrain",
        str(agent),
        "--env_model",
        str(env_model),
        "--save_path",
        str(out),
        "--wb_run_name",
        "t",
        "--sft_episodes",
        "0",
        "--env_sft_episodes",
        "0",
        "--max_difficulty",
        "3",
        "--steps_per_epoch",
        "2",
        "--total_epochs",
        "1",
        "--env_prompts_per_step",
        "2",
        "--num_generations_per_prompt",
        "2",
        "--attempts",
        "2",
        "--num_env",
        "4",
        "--rollout_batch_size",
        "16",
        "--generate_max_length",
        "8",
        "--env_generate_max_length",
        "24",
        "--max_model_len",
        "1024",
        *extra,
    ]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["genenv.filterin_k=0.1"], "genenv.filterin_k: not a GenEnv key"),
        (["genenv.filtering_k=0.7"], "filtering_k"),
        (["--task_space", "datasets"], "--train_files"),
        (["genenv.enable=maybe"], "True or False"),
    ],
)
def test_bad_keys_are_one_line_and_exit_2(argv, message, capsys):
    assert genenv_main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_a_parquet_without_genenv_columns_is_refused_by_name(tmp_path, capsys):
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist([{"question": "q", "answer": "a"}]), bad)
    with pytest.raises(SystemExit) as exit_:
        gymverse_main(["genenv", f"data.train_files={bad}", f"trainer.default_local_dir={tmp_path}"])
    assert exit_.value.code == 2
    out = capsys.readouterr().err
    assert "data.train_files" in out and str(bad) in out and "missing column(s) prompt, reward_model" in out


def test_dataset_space_end_to_end(micro_model, toy_data, tmp_path):
    assert genenv_main(dataset_argv(micro_model, toy_data, tmp_path, "--alternate", "epoch")) == 0
    run = tmp_path / "t"
    files = RunFiles(run)
    metrics = files.read("genenv_metrics.jsonl")
    assert [r["step"] for r in metrics] == list(range(1, len(metrics) + 1))
    assert [r["epoch"] for r in metrics].count(0) == 3  # 12 rows in batches of 4
    phases = [r for r in metrics if "mean_r_env" in r]
    assert len(phases) == 2  # --alternate epoch: one environment phase per epoch
    # filtering_k 0.25 keeps 6 of the 12 prompts, 2 tasks from each
    assert phases[0]["tasks"] == 12 and len(files.read("generated_tasks.jsonl")) == 12 + phases[1]["tasks"]
    assert all(r["reason"] for r in files.read("generated_tasks.jsonl") if not r["valid"])
    for epoch in (1, 2):
        table = pq.read_table(run / "data" / f"train_epoch_{epoch:03d}.parquet")
        assert table.schema.equals(pq.read_table(toy_data[0]).schema)
        assert table.num_rows >= 12 and table.to_pylist()[:12] == toy_rows(12)
    assert [r["step"] for r in files.read("eval_metrics.jsonl")] == [0, len(metrics)]
    last = len(metrics)
    for folder in (run / "saved_models", run / "env_policy" / "saved_models"):
        assert (folder / f"step_{last:05d}" / "model.safetensors").is_file()
    assert (run / "figures" / "genenv_curves.png").stat().st_size > 10_000


class _Raiser:
    def compute_reward(self, generated_text, ground_truth):
        raise KeyError("no such answer key")


def test_a_reward_manager_that_raises_is_logged_and_the_run_goes_on(micro_model, toy_data, tmp_path):
    assert (
        genenv_main(
            dataset_argv(
                micro_model,
                toy_data,
                tmp_path,
                "--reward_manager",
                "test_genenv_loop:_Raiser",
                "trainer.total_epochs=1",
            )
        )
        == 0
    )
    metrics = RunFiles(tmp_path / "t").read("genenv_metrics.jsonl")
    assert all(r["reward_errors"] == 8 for r in metrics)
    assert "_Raiser.compute_reward raised KeyError" in metrics[0]["reward_error"]


def test_game_space_end_to_end_with_a_garbage_writing_environment_policy(micro_model, tmp_path):
    assert genenv_main(games_argv(micro_model, micro_model, tmp_path)) == 0
    run = tmp_path / "t"
    files = RunFiles(run)
    metrics = files.read("genenv_metrics.jsonl")
    assert [r["step"] for r in metrics] == [1, 2]
    assert all(r["tasks"] == 4 for r in metrics)
    tasks = files.read("generated_tasks.jsonl")
    assert len(tasks) == 8 and all(t["reason"] and t["r_env"] == -1.0 for t in tasks if not t["valid"])
    assert (run / "env_policy" / "saved_models" / "step_00002" / "model.safetensors").is_file()


def test_uniform_specs_train_the_agent_with_perpo(micro_model, tmp_path):
    assert genenv_main(games_argv(micro_model, "uniform", tmp_path, "--max_difficulty", "2")) == 0
    run = tmp_path / "t"
    files = RunFiles(run)
    metrics = files.read("genenv_metrics.jsonl")
    assert all(r["valid_rate"] == 1.0 and r["episodes"] == 8 for r in metrics)  # 4 specs x 2 attempts
    assert all(r["agent_update"]["learning_rate"] > 0 for r in metrics)
    episodes = files.read("episode_details.jsonl")
    tasks = files.read("generated_tasks.jsonl")
    assert len(episodes) == 16 and {e["complexity"] for e in episodes} <= {1, 2}
    assert all(1 <= json.loads(t["task"])["complexity"] <= 2 for t in tasks)
    assert all(sum(r["p_histogram"]) == 4 for r in metrics)
    assert (run / "saved_models" / "step_00002").is_dir() and not (run / "env_policy").exists()


# -- resume ----------------------------------------------------------------------------------------
def killable_mid_run(run_dir, last):
    """A saved state from step 2 on, short of the last step, with logs already written past it: a kill now
    loses work that the resume must redo. The state is read once, so a save in between cannot mislead."""
    if not (run_dir / STATE_FILE).exists():
        return False
    saved = load_trainer_state(run_dir)["step"]
    if not 2 <= saved < last:
        return False
    try:
        return any(r["step"] > saved for r in RunFiles(run_dir).read("genenv_metrics.jsonl"))
    except ValueError:  # caught a line half-written
        return False


def weights(path):
    from safetensors.torch import load_file

    return load_file(path / "model.safetensors")


def test_a_run_killed_and_resumed_ends_like_an_uninterrupted_one(micro_model, toy_data, tmp_path):
    argv = dataset_argv(micro_model, toy_data, tmp_path / "a", "--save_steps", "1")
    assert genenv_main(argv) == 0
    straight = tmp_path / "a" / "t"
    last = len(RunFiles(straight).read("genenv_metrics.jsonl"))
    argv = dataset_argv(micro_model, toy_data, tmp_path / "b", "--save_steps", "1")
    run = tmp_path / "b" / "t"
    kill_mid_run(argv, run, last)
    assert genenv_main(argv + ["--resume"]) == 0
    for name in ("genenv_metrics.jsonl", "generated_tasks.jsonl", "eval_metrics.jsonl"):
        assert (run / name).read_text() == (straight / name).read_text(), name
    for folder in ("saved_models", "env_policy/saved_models"):
        a, b = weights(straight / folder / f"step_{last:05d}"), weights(run / folder / f"step_{last:05d}")
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a), folder
    assert (run / "data" / "train_epoch_002.parquet").read_bytes() == (
        straight / "data" / "train_epoch_002.parquet"
    ).read_bytes()


def kill_mid_run(argv, run, last):
    """Run ``argv`` in a child process and SIGKILL it once ``killable_mid_run``."""
    process = child("genenv", argv, stdout=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not killable_mid_run(run, last) and process.poll() is None:
        assert time.time() < deadline, "the run never saved a state"
        time.sleep(0.01)
    assert process.poll() is None, f"the run ended before it could be killed: {process.stderr.read()[-2000:]}"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert load_trainer_state(run)["step"] < last


def test_a_games_run_on_an_episode_budget_killed_and_resumed_ends_like_an_uninterrupted_one(micro_model, tmp_path):
    def argv(out):
        return games_argv(
            micro_model,
            "uniform",
            out,
            "--max_agent_episodes",
            "44",
            "--save_steps",
            "1",
            "--eval_steps",
            "2",
            "--eval_n",
            "2",
            "--eval_difficulty",
            "1|2",
        )

    assert genenv_main(argv(tmp_path / "a")) == 0
    straight, run = tmp_path / "a" / "t", tmp_path / "b" / "t"
    assert [r["total_episodes"] for r in RunFiles(straight).read("genenv_metrics.jsonl")] == [8, 16, 24, 32, 40, 48]
    kill_mid_run(argv(tmp_path / "b"), run, 6)
    assert genenv_main(argv(tmp_path / "b") + ["--resume"]) == 0
    for name in ("genenv_metrics.jsonl", "generated_tasks.jsonl", "episode_details.jsonl", "eval_env_metrics.jsonl"):
        assert (run / name).read_text() == (straight / name).read_text(), name
    a, b = weights(straight / "saved_models" / "step_00006"), weights(run / "saved_models" / "step_00006")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_ctrl_c_finishes_the_step_saves_and_resume_ends_like_an_uninterrupted_run(micro_model, tmp_path):
    def argv(out):
        return games_argv(micro_model, "uniform", out, "--steps_per_epoch", "4", "--save_steps", "100", "--eval_n", "1")

    assert genenv_main(argv(tmp_path / "a")) == 0
    straight, run = tmp_path / "a" / "t", tmp_path / "b" / "t"
    out = interrupted("genenv", argv(tmp_path / "b"), run / "genenv_metrics.jsonl")
    stopped = load_trainer_state(run)["step"]
    assert 1 <= stopped < 4
    assert f"Stopped at step {stopped} of 4: the last checkpoint is {run}/saved_models/step_{stopped:05d}" in out
    assert genenv_main(argv(tmp_path / "b") + ["--resume"]) == 0
    for name in ("genenv_metrics.jsonl", "generated_tasks.jsonl", "episode_details.jsonl", "eval_env_metrics.jsonl"):
        assert (run / name).read_text() == (straight / name).read_text(), name


def test_env_dir_registers_a_folder_of_games_for_the_run(micro_model, tmp_path, capsys):
    from tests.test_train import RUNIC

    folder = tmp_path / "example"
    folder.mkdir()
    shutil.copy(RUNIC, folder)

    def argv(env_dir):
        return games_argv(
            micro_model,
            "uniform",
            tmp_path / "runs",
            "--env_id",
            "example:RunicPotionGame",
            "--env-dir",
            str(env_dir),
            "--eval_n",
            "1",
        )

    assert genenv_main(argv(folder)) == 0
    episodes = RunFiles(tmp_path / "runs" / "t").read("episode_details.jsonl")
    assert episodes and {e["env_id"] for e in episodes} == {"example:RunicPotionGame"}
    assert genenv_main(argv(tmp_path / "nowhere")) == 2
    assert f"--env-dir {tmp_path / 'nowhere'}: no such env folder" in capsys.readouterr().err


def test_the_curriculum_writer_raises_complexity_while_a_scripted_agent_always_wins(tmp_path):
    argv = games_argv("oracle", "curriculum", tmp_path, "--curriculum", "alpha", "--steps_per_epoch", "4")
    assert genenv_main(argv) == 0
    metrics = RunFiles(tmp_path / "t").read("genenv_metrics.jsonl")
    assert [r["complexities"] for r in metrics] == [
        {"gymverse:GridCourier": [c, c], "gymverse:MailSorter": [c, c]} for c in (1, 2, 3, 3)
    ]  # up to --max_difficulty
    assert all(r["agent_success"] == 1.0 and r["mean_p"] == 1.0 for r in metrics)


def test_genenv_enable_false_trains_the_agent_on_the_dataset_alone(micro_model, toy_data, tmp_path):
    assert (
        genenv_main(dataset_argv(micro_model, toy_data, tmp_path, "genenv.enable=False", "trainer.total_epochs=1")) == 0
    )
    run = tmp_path / "t"
    metrics = RunFiles(run).read("genenv_metrics.jsonl")
    assert len(metrics) == 3 and not any("mean_r_env" in r for r in metrics)
    assert not (run / "generated_tasks.jsonl").exists() and not (run / "env_policy").exists()
    assert pq.read_table(run / "data" / "train_epoch_001.parquet").to_pylist() == toy_rows(12)


# -- a prompted endpoint ---------------------------------------------------------------------------
def test_a_prompted_endpoint_writes_specs_and_earns_the_same_reward(tmp_path):
    import math

    from gymverse.testing.scripted_server import Script, ScriptedServer

    script = Script.load(
        {
            "model": "scripted",
            "rules": [
                {
                    "name": "courier",
                    "when": ["game: gymverse:GridCourier;"],
                    "answers": ['Here: {"game": "GridCourier", "complexity": 2, "seed": 5}'],
                },
                {"name": "sorter", "when": ["game: gymverse:MailSorter;"], "answers": ["I would rather not."]},
            ],
        }
    )
    with ScriptedServer(script) as server:
        argv = games_argv("epsilon:0.5", f"openai:{server.url}#scripted", tmp_path, "--env_prompt_template", "no")
        assert genenv_main(argv) == 0
    run = tmp_path / "t"
    tasks = RunFiles(run).read("generated_tasks.jsonl")
    valid = [t for t in tasks if t["valid"]]
    assert len(valid) == 4 and all(json.loads(t["task"])["game"] == "gymverse:GridCourier" for t in valid)
    assert all(t["r_env"] == pytest.approx(math.exp(-10 * (t["p"] - 0.5) ** 2)) for t in valid)
    assert all(t["r_env"] == -1.0 and t["reason"] == "no JSON object in the reply" for t in tasks if not t["valid"])
    assert all(r["env_update"] == {} for r in RunFiles(run).read("genenv_metrics.jsonl"))  # prompted, not trained
    assert not (run / "env_policy").exists() and len(script.log) == 8


def test_a_prompted_endpoint_with_the_chat_template_is_asked_through_the_chat_api():
    from gymverse.genenv.config import GenEnvArgs
    from gymverse.genenv.sides import env_settings, load_side, prompt_text

    settings = env_settings(GenEnvArgs())
    chat = load_side("environment", "openai:http://127.0.0.1:9/v1#m", settings, 1, True, "chat", seed=0)
    plain = load_side("environment", "openai:http://127.0.0.1:9/v1#m", settings, 1, True, "no", seed=0)
    assert chat.policy.chat and not plain.policy.chat and not chat.trainable
    assert prompt_text("chat", "write a spec", chat.tokenizer) == "write a spec"  # the server templates it


class FakeVLLMPolicy:
    """Stands in for ``gymverse.policy.vllm_policy.VLLMPolicy`` (vLLM needs a GPU): the model folder's tokenizer,
    token ids in its replies (as vLLM gives), a valid spec for GridCourier and garbage for the other game."""

    made: list = []

    def __init__(self, path, sampling):
        from transformers import AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(path)
        FakeVLLMPolicy.made.append((path, sampling))

    def generate(self, prompts, envs=None, stop_at_box=None, rngs=None):
        from gymverse.policy.base import Generation

        texts = [
            '{"game": "GridCourier", "complexity": 1}' if "game: gymverse:GridCourier;" in p else "garbage"
            for p in prompts
        ]
        return [
            Generation(t, self.tokenizer.encode(p), self.tokenizer.encode(t), [-1.0] * len(self.tokenizer.encode(t)))
            for p, t in zip(prompts, texts)
        ]


def test_a_vllm_environment_model_is_loaded_by_the_projects_loader_and_prompted_only(
    micro_model, tmp_path, monkeypatch
):
    import gymverse.policy.vllm_policy

    monkeypatch.setattr(gymverse.policy.vllm_policy, "VLLMPolicy", FakeVLLMPolicy)
    FakeVLLMPolicy.made.clear()
    argv = games_argv(micro_model, f"vllm:{micro_model}", tmp_path, "--env_temperature", "0.5", "--eval_n", "1")
    assert genenv_main(argv) == 0
    [(path, sampling)] = FakeVLLMPolicy.made
    assert path == str(micro_model) and sampling.temperature == 0.5 and sampling.generate_max_length == 24
    run = tmp_path / "t"
    tasks = RunFiles(run).read("generated_tasks.jsonl")
    assert sum(t["valid"] for t in tasks) == 4 and all(t["r_env"] == -1.0 for t in tasks if not t["valid"])
    assert all(r["env_update"] == {} for r in RunFiles(run).read("genenv_metrics.jsonl"))  # prompted, not trained
    assert not (run / "env_policy").exists()


def test_an_env_model_that_names_no_policy_is_refused_by_its_flag(tmp_path, capsys):
    assert genenv_main(games_argv("oracle", "vllm:/no/such/folder", tmp_path)) == 2
    assert "--env_model" in capsys.readouterr().err
