"""GenEnv's command keys with veRL's meaning: every key of its launch script translated or named as hardware-only."""

import re
from pathlib import Path

import pytest
import tyro

from gymverse.errors import BadInput
from gymverse.genenv.config import GenEnvArgs
from gymverse.genenv.keys import DERIVED_KEYS, FLAG_KEYS, HARDWARE_KEYS, SWITCH_KEYS, genenv_argv

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "run_genenv.sh"


def script_overrides() -> list[str]:
    """The ``key=value`` tokens the launch script passes, its variables filled in."""
    filled = {
        "$ENV_MODEL_PATH": "env",
        "$MODEL_PATH": "agent",
        "$TRAIN_DATA": "train.parquet",
        "$VAL_DATA": "val.parquet",
        "$OUTPUT_DIR": "out",
    }
    pairs = re.findall(r'^\s+"?([a-z][\w.]*)=(.*?)"?\s*\\$', SCRIPT.read_text(), re.M)
    values = [value.strip('"') for _, value in pairs]
    return [f"{key}={filled.get(value, value)}" for (key, _), value in zip(pairs, values)]


def parsed(argv: list[str]) -> GenEnvArgs:
    return tyro.cli(GenEnvArgs, args=genenv_argv(argv)[0])


def test_every_key_of_the_launch_script_is_translated_or_named_as_hardware_only():
    keys = [token.split("=", 1)[0] for token in script_overrides()]
    assert len(keys) == 46 and len(set(keys)) == 46
    known = set(FLAG_KEYS) | set(SWITCH_KEYS) | set(DERIVED_KEYS)
    assert set(keys) <= known | set(HARDWARE_KEYS)
    _, hardware, unknown = genenv_argv(script_overrides())
    assert unknown == [] and set(hardware) == set(keys) - known
    readme = (ROOT / "README.md").read_text()
    assert [key for key in keys if f"| `{key}`" not in readme] == []  # the README's table has a row for each


def test_the_launch_scripts_settings_arrive_with_verls_meaning():
    args = parsed(script_overrides())
    assert (args.beta, args.kl_loss_type, args.kl_penalty_coef) == (0.001, "low_var_kl", 0.001)
    assert (args.cliprange, args.num_ppo_epochs, args.learning_rate) == (0.2, 1, 1e-6)
    assert (args.prompts_per_step, args.attempts) == (64, 8)
    assert (args.train_batch_size, args.train_batch_size_per_device) == (16 * 8, 8)  # mini-batch of 16 prompts
    assert (args.max_prompt_length, args.generate_max_length, args.truncation) == (4096, 512, "error")
    assert (args.val_batch_size, args.val_n, args.eval_temperature) == (500, 1, 0.0)
    assert (args.eval_before_train, args.eval_steps, args.save_steps, args.total_epochs) == (True, 10, 100, 20)
    assert args.gradient_checkpointing and not args.use_wb and args.genenv_enable
    assert (args.task_space, args.pretrain, args.env_model, args.wb_run_name) == (
        "datasets",
        "agent",
        "env",
        "genenv_training",
    )


def test_a_kl_loss_needs_use_kl_loss_as_in_verl():
    assert parsed(["actor_rollout_ref.actor.kl_loss_coef=0.05"]).beta == 0.0
    assert parsed(["actor_rollout_ref.actor.use_kl_loss=True"]).beta == 0.001  # veRL's default coefficient
    both = ["actor_rollout_ref.actor.use_kl_loss=True", "actor_rollout_ref.actor.kl_loss_coef=0.05"]
    assert parsed(both).beta == 0.05
    assert parsed(["actor_rollout_ref.actor.kl_loss_type=mse"]).kl_loss_type == "mse"


def test_later_keys_win_and_flags_win_over_keys():
    assert parsed(["trainer.total_epochs=20", "trainer.total_epochs=1"]).total_epochs == 1
    assert parsed(["--total_epochs", "3", "trainer.total_epochs=1"]).total_epochs == 3
    # the mini-batch counts prompts: their replies are n each, whichever of key or flag gives n
    assert parsed(["actor_rollout_ref.actor.ppo_mini_batch_size=2", "--attempts", "3"]).train_batch_size == 6
    assert parsed(["actor_rollout_ref.actor.ppo_mini_batch_size=2"]).train_batch_size == 2 * GenEnvArgs().attempts
    assert parsed(["trainer.logger=['console','wandb']"]).use_wb


@pytest.mark.parametrize(
    "token, message",
    [
        ("algorithm.adv_estimator=gae", "GRPO"),
        ("actor_rollout_ref.actor.use_kl_loss=yes", "True or False"),
        ("actor_rollout_ref.actor.ppo_mini_batch_size=0", "at least 1"),
        ("genenv.filterin_k=0.1", "not a GenEnv key"),
    ],
)
def test_keys_that_cannot_mean_anything_here_are_refused(token, message):
    with pytest.raises(BadInput, match=message):
        genenv_argv([token])


def test_other_verl_keys_are_named_and_ignored():
    flags, hardware, unknown = genenv_argv(["trainer.nnodes=2", "critic.optim.lr=1e-5", "--seed", "3"])
    assert flags == ["--seed", "3"] and hardware == ["trainer.nnodes"] and unknown == ["critic.optim.lr"]


def test_genenvs_launch_script_runs_with_its_keys_and_overrides(micro_model, tmp_path):
    """GenEnv's command, the models and paths changed, sizes shrunk by overrides: the run honours GenEnv's KL loss."""
    import json
    import os
    import subprocess
    import sys

    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [
        {"prompt": [{"role": "user", "content": f"What is {k} + {k}?"}], "reward_model": {"ground_truth": str(2 * k)}}
        for k in range(6)
    ]
    for name in ("train", "val"):
        pq.write_table(pa.Table.from_pylist(rows), tmp_path / f"{name}.parquet")
    env = {
        **os.environ,
        "TRAIN_DATA": str(tmp_path / "train.parquet"),
        "VAL_DATA": str(tmp_path / "val.parquet"),
        "OUTPUT_DIR": str(tmp_path / "out"),
        "PYTHON": sys.executable,
    }
    done = subprocess.run(
        [
            "bash",
            str(SCRIPT),
            "--model",
            str(micro_model),
            "--env-model",
            str(micro_model),
            "trainer.total_epochs=1",
            "data.train_batch_size=3",
            "actor_rollout_ref.rollout.n=2",
            "actor_rollout_ref.actor.ppo_mini_batch_size=3",
            "actor_rollout_ref.actor.ppo_micro_batch_size=2",
            "data.max_response_length=6",
            "data.max_prompt_length=200",
            "--env_generate_max_length",
            "8",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ignoring hardware-only keys: actor_rollout_ref.model.use_remove_padding" in done.stdout
    run = tmp_path / "out" / "genenv_training"
    config = json.loads((run / "config.json").read_text())
    assert (config["beta"], config["kl_loss_type"], config["train_batch_size"], config["alternate"]) == (
        0.001,
        "low_var_kl",
        6,
        "epoch",
    )
    metrics = [json.loads(line) for line in (run / "genenv_metrics.jsonl").read_text().splitlines()]
    assert len(metrics) == 2 and all("kl" in r["agent_update"] for r in metrics)  # the KL loss is computed
    evaluations = [json.loads(line)["step"] for line in (run / "eval_metrics.jsonl").read_text().splitlines()]
    assert evaluations == [0, 2]  # val_before_train, and at the end
