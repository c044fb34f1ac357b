"""A run says what it trains and when it learns nothing: its default folder is named after its games, a run whose
steps carry no signal stops with the reason and what to change, and the same run gives the same logs whatever
runs beside it."""

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from runs import flags

from gymverse.episodes import Episode, Turn
from gymverse.run.config import validate_loop_config
from gymverse.run.no_signal import nothing_to_learn
from gymverse.run.plan import TurnSample
from gymverse.run.prepare import prepare
from gymverse.train.cli import parse_train_args, train_from_argv

CONFIG = SimpleNamespace(max_model_len=512, generate_max_length=16, norm_return=True, norm_scope="env", group_size=1)


def turn(reward: float = 0.0, cut: bool = False) -> Turn:
    return Turn("p", "r", [1], [2], [-0.1], reward, cut)


def episode(*turns: Turn, ended_by: str = "terminated", overflow: int = 0) -> Episode:
    return Episode("g:A", 1, list(turns), ended_by=ended_by, overflow_tokens=overflow)


def samples(*returns: float, cut: bool = False, env_id: str = "g:A") -> list[TurnSample]:
    return [TurnSample(env_id, turn(cut=cut), ret) for ret in returns]


def test_every_prompt_outgrowing_the_context_names_the_size_it_needs():
    played = [episode(ended_by="context_overflow", overflow=n) for n in (700, 913)]
    why = nothing_to_learn(played, [], CONFIG)
    assert "--max_model_len 929 or more" in why and "913 tokens" in why


def test_every_reply_cut_names_the_generation_length():
    why = nothing_to_learn([episode(turn(cut=True))], samples(0.0, 1.0, cut=True), CONFIG)
    assert "--generate_max_length 16" in why


def test_equal_returns_name_the_zero_advantages_and_a_spread_is_a_signal():
    assert "same return (g:A -1)" in nothing_to_learn([episode(turn())], samples(-1.0, -1.0), CONFIG)
    assert nothing_to_learn([episode(turn())], samples(-1.0, 0.5), CONFIG) is None
    raw = SimpleNamespace(**{**vars(CONFIG), "norm_return": False})
    assert nothing_to_learn([episode(turn())], samples(-1.0, -1.0), raw) is None  # raw returns still push


def test_equal_returns_are_judged_over_the_turns_normalized_together():
    each_game_flat = samples(0.0, 0.0) + samples(1.0, 1.0, env_id="g:B")
    assert "every game's turns had the same return (g:A 0, g:B 1)" in nothing_to_learn(
        [episode(turn())], each_game_flat, CONFIG
    )
    batch = SimpleNamespace(**{**vars(CONFIG), "norm_scope": "batch"})
    assert nothing_to_learn([episode(turn())], each_game_flat, batch) is None  # the batch spreads 0 against 1
    assert "every batch's turns had the same return (batch 1)" in nothing_to_learn(
        [episode(turn())], samples(1.0, 1.0, env_id="g:B"), batch
    )


def test_the_default_run_folder_is_named_after_the_games(tmp_path):
    argv = ["--env_id", "gymverse:GridCourier|gymverse:MailSorter", "--save_path", str(tmp_path)]
    args = parse_train_args(argv)
    prepare(args, argv, validate_loop_config)
    assert args.wb_run_name == "perpo-GridCourier-MailSorter"
    many = parse_train_args(
        ["--env_id", "|".join(f"gymverse:{name}" for name in ["GridCourier"] * 2 + ["LightsOut"] * 9)]
    )
    prepare(many, [], validate_loop_config)
    assert len(many.wb_run_name) < 70


def test_a_run_whose_prompts_never_fit_stops_saying_why_and_saves_nothing(micro_model, tmp_path, capsys):
    argv = flags(env_id="gymverse:GridCourier", pretrain=micro_model, save_path=tmp_path, num_env=2, sft_episodes=0)
    argv += flags(max_model_len=40, rollout_batch_size=4, max_train=40, train_batch_size=4, eval_steps=0)
    argv += flags(train_batch_size_per_device=4)
    assert train_from_argv(argv) is None
    error = capsys.readouterr().err
    assert "nothing to learn: in steps 1-3 every episode (2) ended at its first prompt" in error
    assert "give --max_model_len" in error and "Traceback" not in error
    run_dir = tmp_path / "perpo-GridCourier"
    assert not (run_dir / "saved_models").exists()


def test_the_same_run_gives_the_same_logs_beside_a_busy_process_another_hash_seed_and_more_workers(
    micro_model, tmp_path
):
    """Nothing in a run may hang on thread timing, the order parallel work finishes in, or set order: the closing
    table played in this process and by two forked workers is the same."""
    base = flags(env_id="gymverse:GridCourier|gymverse:MailSorter", pretrain=micro_model, num_env=4, seed=3)
    base += flags(rollout_batch_size=8, max_train=24, train_batch_size=4, generate_max_length=8, prompt_template="no")
    base += flags(train_batch_size_per_device=4)
    base += flags(learning_rate="1e-3", eval_n=3, eval_steps=2, sft_episodes=4, sft_epochs=1, before_after_n=3)
    base += flags(up_threshold=0, up_steps=1, max_idle_steps=0)
    code = "import sys; from gymverse.train.cli import main; sys.exit(main(sys.argv[1:]))"

    def run(folder: str, hash_seed: str, jobs: int) -> Path:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        argv = [*base, "--save_path", str(tmp_path / folder), "--jobs", str(jobs)]
        done = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        return tmp_path / folder / "perpo-GridCourier-MailSorter"

    alone = run("alone", "0", jobs=1)
    # at the lowest priority: it takes whatever core the run leaves idle, without slowing the rest of the suite
    spinner = subprocess.Popen([sys.executable, "-c", "import os\nos.nice(19)\nwhile True: pass"])
    try:
        busy = run("busy", "12345", jobs=2)
    finally:
        spinner.kill()
        spinner.wait()
    for name in ("actor_env_metrics.jsonl", "episode_details.jsonl", "eval_env_metrics.jsonl", "results.json"):
        assert (alone / name).read_text() == (busy / name).read_text(), name


def test_seeds_are_matched_by_start_and_end_level_and_give_mean_and_spread():
    from gymverse.run.seeds import aggregate

    def rows(end: int, after: float) -> list[dict]:
        cell = dict(env_id="g:A", episodes=10, curriculum_start=1, curriculum_end=end)
        cells = dict(sampled_before=0.5, sampled_after=after, greedy_before=0.5, greedy_after=0.5)
        return [{**cell, **cells, "level": 1}, {**cell, **cells, "level": end}]

    start, end = aggregate([rows(3, 0.7), rows(2, 0.9)])
    assert (start["role"], end["role"], end["levels"]) == ("start", "end", [3, 2])
    assert start["sampled_gain"][0] == 0.3 and round(start["sampled_gain"][1], 4) == round(0.2 / 2**0.5, 4)


def test_seeds_flag_runs_each_seed_and_saves_the_aggregate(micro_model, tmp_path):
    import json

    argv = flags(env_id="gymverse:MailSorter", pretrain=micro_model, save_path=tmp_path, num_env=2, sft_episodes=0)
    argv += flags(rollout_batch_size=4, max_train=4, train_batch_size=4, train_batch_size_per_device=4)
    argv += flags(generate_max_length=8, eval_steps=0, eval_n=1, before_after_n=2, max_idle_steps=0, seeds=2, jobs=1)
    folder = train_from_argv(argv)
    assert folder == tmp_path / "perpo-MailSorter-seeds"
    saved = json.loads((folder / "results.json").read_text())
    assert saved["seeds"] == [42, 43] and {row["role"] for row in saved["rows"]} == {"start", "end"}
    assert (tmp_path / "perpo-MailSorter-seed43" / "results.json").is_file()


def test_the_closing_table_forks_only_on_a_cpu_and_never_with_jailed_games():
    from gymverse.run.before_after import table_workers

    assert table_workers(3, "cpu", jailed=False) == 3
    assert table_workers(0, "cpu", jailed=False) == (os.cpu_count() or 1)
    assert table_workers(3, "cpu", jailed=True) == 1  # a fork would share the jails' pipes and watch threads
    assert table_workers(3, "cuda", jailed=False) == 1
