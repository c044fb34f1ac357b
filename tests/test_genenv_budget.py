"""Games mode on a budget of agent episodes (``--max_agent_episodes``) and with the PERPO trainer's online evaluation."""

import json
import re

import pytest

from gymverse.genenv.cli import main as genenv_main
from gymverse.genenv.figures import held_out_success
from gymverse.run.files import RunFiles
from tests.test_genenv_loop import games_argv


def scripted_specs(valid_games):
    """A script whose environment model writes a valid spec for ``valid_games`` and refuses the others."""
    from gymverse.testing.scripted_server import Script

    rules = [
        {
            "name": game,
            "when": [f"game: gymverse:{game};"],
            "answers": [f'{{"game": "{game}", "complexity": 1, "seed": 7}}' if game in valid_games else "No."],
        }
        for game in ("GridCourier", "MailSorter")
    ]
    return Script.load({"model": "scripted", "rules": rules})


def run_records(run):
    files = RunFiles(run)
    return files.read("genenv_metrics.jsonl"), files.read("episode_details.jsonl")


def test_the_run_ends_once_the_budget_is_spent_whatever_a_step_plays(micro_model, tmp_path, capsys):
    from gymverse.testing.scripted_server import ScriptedServer

    budget = ["--max_agent_episodes", "12", "--total_epochs", "9", "--eval_steps", "0", "--eval_n", "1"]
    assert genenv_main(games_argv(micro_model, "uniform", tmp_path / "u", *budget)) == 0
    metrics, episodes = run_records(tmp_path / "u" / "t")
    assert [r["total_episodes"] for r in metrics] == [8, 16]  # 4 valid specs x 2 attempts a step
    assert len(episodes) == 16
    assert re.search(r"GenEnv: 100%.* 12/12 .*episodes/s", capsys.readouterr().out)  # the bar counts episodes
    with ScriptedServer(scripted_specs({"GridCourier"})) as server:  # half the specs are garbage: 4 episodes a step
        argv = games_argv(
            micro_model, f"openai:{server.url}#scripted", tmp_path / "s", "--env_prompt_template", "no", *budget
        )
        assert genenv_main(argv) == 0
    metrics, episodes = run_records(tmp_path / "s" / "t")
    assert [r["episodes"] for r in metrics] == [4, 4, 4]
    assert [r["total_episodes"] for r in metrics] == [4, 8, 12] and len(episodes) == 12


def test_schedules_are_sized_for_the_budget_and_hold_their_last_rate(micro_model, tmp_path):
    from gymverse.testing.scripted_server import ScriptedServer

    flags = [
        "--max_agent_episodes",
        "16",
        "--lr_scheduler",
        "cosine_with_min_lr",
        "--learning_rate",
        "0.001",
        "--eval_steps",
        "0",
        "--eval_n",
        "1",
    ]
    # 8 episodes a step when every spec is valid: a schedule of 2 steps, one update each (16 turns a batch)
    assert genenv_main(games_argv(micro_model, "uniform", tmp_path / "u", *flags)) == 0
    rates = [r["agent_update"]["learning_rate"] for r in run_records(tmp_path / "u" / "t")[0]]
    assert rates == pytest.approx([0.00055, 0.0001])  # halfway down the cosine, then its floor (10%)
    with ScriptedServer(scripted_specs({"GridCourier"})) as server:
        argv = games_argv(
            micro_model, f"openai:{server.url}#scripted", tmp_path / "s", "--env_prompt_template", "no", *flags
        )
        assert genenv_main(argv) == 0
    rates = [r["agent_update"]["learning_rate"] for r in run_records(tmp_path / "s" / "t")[0]]
    assert rates == pytest.approx([0.00055, 0.0001, 0.0001, 0.0001])  # 4 steps: the floor holds past the plan


def test_a_writer_that_never_writes_a_valid_spec_ends_the_run_after_an_epoch(tmp_path, capsys):
    from gymverse.testing.scripted_server import ScriptedServer

    with ScriptedServer(scripted_specs(set())) as server:
        argv = games_argv(
            "oracle",
            f"openai:{server.url}#scripted",
            tmp_path,
            "--env_prompt_template",
            "no",
            "--max_agent_episodes",
            "100",
            "--steps_per_epoch",
            "3",
            "--eval_n",
            "1",
        )
        assert genenv_main(argv) == 0
    metrics, episodes = run_records(tmp_path / "t")
    assert len(metrics) == 3 and not episodes and all(r["total_episodes"] == 0 for r in metrics)
    assert (
        "Stopped early at step 3: the environment policy wrote no valid task in 3 steps in a row; "
        "the agent played 0 of the 100 episodes of --max_agent_episodes" in capsys.readouterr().out
    )


def test_with_alternate_epoch_the_environment_policy_also_learns_when_the_budget_ends_the_run_mid_epoch():
    from gymverse.genenv.config import GenEnvArgs
    from gymverse.genenv.game_space import GameSpace

    space = GameSpace(
        GenEnvArgs(env_id="gymverse:GridCourier", alternate="epoch", steps_per_epoch=4, max_agent_episodes=40), seed=0
    )
    space.played = 32
    assert [space.env_updates_now(step) for step in (1, 2, 3, 4)] == [False, False, False, True]
    space.played = 48
    assert space.env_updates_now(6)  # the budget is spent after step 6, mid-epoch


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--max_agent_episodes", "-1"], "--max_agent_episodes must be 0 (off) or more"),
        (
            ["--max_agent_episodes", "10", "--task_space", "datasets", "--train_files", "x.parquet"],
            "--max_agent_episodes is a budget of game episodes",
        ),
    ],
)
def test_a_bad_budget_is_refused_by_name(argv, message, tmp_path, capsys):
    assert genenv_main(games_argv("oracle", "uniform", tmp_path, *argv)) == 2
    assert message in capsys.readouterr().err


# -- online evaluation -----------------------------------------------------------------------------
def test_games_runs_evaluate_the_agent_online_as_the_perpo_trainer_does(micro_model, tmp_path):
    argv = games_argv(
        micro_model,
        "uniform",
        tmp_path,
        "--steps_per_epoch",
        "3",
        "--eval_steps",
        "2",
        "--eval_envs",
        "gymverse:GridCourier",
        "--eval_difficulty",
        "1|2",
        "--eval_n",
        "3",
    )
    assert genenv_main(argv) == 0
    run = tmp_path / "t"
    evaluations = RunFiles(run).read("eval_env_metrics.jsonl")
    assert [(r["step"], r["complexity"]) for r in evaluations] == [(s, c) for s in (0, 2, 3) for c in (1, 2)]
    assert all(r["env_id"] == "gymverse:GridCourier" and r["num_episodes"] == 3 for r in evaluations)
    played = json.loads((run / "eval_results" / "3_gymverse:GridCourier.json").read_text())
    assert sorted(e["complexity"] for e in played) == [1, 1, 1, 2, 2, 2]
    assert (run / "figures" / "genenv_curves.png").is_file()


def test_the_solver_agent_scores_every_held_out_game(tmp_path):
    argv = games_argv("oracle", "uniform", tmp_path, "--eval_difficulty", "2|3", "--eval_n", "2")
    assert genenv_main(argv) == 0
    evaluations = RunFiles(tmp_path / "t").read("eval_env_metrics.jsonl")
    assert len(evaluations) == 2 * 2 * 2 and all(r["accuracy"] == 1.0 for r in evaluations)  # steps 0, 2; 2 games


def test_held_out_success_averages_the_environments_per_complexity_and_step():
    records = [
        {"step": s, "env_id": e, "complexity": c, "accuracy": a}
        for s, e, c, a in [
            (0, "a", 1, 0.5),
            (0, "b", 1, 1.0),
            (0, "a", 3, 0.0),
            (4, "a", 1, 0.25),
            (4, "b", 1, 0.25),
            (4, "a", 3, 1.0),
        ]
    ]
    assert held_out_success(records) == {1: [(0, 0.75), (4, 0.25)], 3: [(0, 0.0), (4, 1.0)]}
