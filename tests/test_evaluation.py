"""Agent evaluation: the pass@k estimator, the progressive schedule, sweeps, their resumption and reports."""

import csv
import importlib.util
import json
import math
import re
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_cli import run  # the command line, its exit status and output

import gymverse  # noqa: F401  (registers the library)
from gymverse import cli
from gymverse.errors import BadInput
from gymverse.evaluation import SweepConfig, difficulty_band, pass_at_k, progressive_levels, run_sweep
from gymverse.evaluation.checkpoints import checkpoint_name, find_checkpoints, read_checkpoint_list
from gymverse.evaluation.compare import compare_runs
from gymverse.evaluation.options import EnvSelection, SweepOptions
from gymverse.evaluation.report import write_sweep_report
from gymverse.evaluation.summary import summarize
from gymverse.evaluation.sweep import load, play_instances
from gymverse.policy import Generation, OraclePolicy, RandomPolicy

ENV = "gymverse:PeakFinder"
ROOT = Path(__file__).parents[1]


@pytest.mark.parametrize(
    "n, c, k, expected",
    [
        (5, 2, 1, 2 / 5),
        (5, 2, 2, 1 - 3 / 10),  # C(3,2) / C(5,2)
        (10, 3, 5, 1 - 21 / 252),  # C(7,5) / C(10,5)
        (4, 0, 2, 0.0),
        (4, 4, 1, 1.0),
        (4, 2, 3, 1.0),  # fewer failures than draws: a success is certain
    ],
)
def test_pass_at_k_matches_hand_computed_values(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize("n, c, k", [(3, 1, 4), (3, 4, 1), (3, 1, 0), (3, -1, 1)])
def test_pass_at_k_rejects_impossible_counts(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_at_1_is_the_success_rate_and_pass_at_k_grows_with_k(nc):
    n, c = nc
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)
    values = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    assert all(a <= b + 1e-12 for a, b in zip(values, values[1:]))


def test_progressive_levels_follow_gymverse_mapping():
    assert progressive_levels(4) == [1, 4, 7, 10]
    assert progressive_levels(3) == [1, 5, 10]
    assert progressive_levels(10) == list(range(1, 11))
    assert progressive_levels(1) == [1]


def test_difficulty_bands_split_at_0_7_and_0_3():
    assert [difficulty_band(x) for x in (0.71, 0.7, 0.31, 0.3, 0.0)] == ["easy", "medium", "medium", "hard", "hard"]


def attempt(instance, success, turns=2, format_errors=0, ended_by="terminated"):
    return {
        "env_id": "e",
        "domain": "d",
        "level": 1,
        "instance": instance,
        "success": success,
        "return": float(success),
        "turns": turns,
        "format_errors": format_errors,
        "ended_by": ended_by,
    }


def test_summary_averages_pass_at_k_over_instances():
    rows = [attempt(0, True), attempt(0, False), attempt(1, False, format_errors=2), attempt(1, False)]
    stats = summarize(rows, ks=[1, 2])
    assert stats["success_rate"] == 0.25
    assert stats["pass@1"] == pytest.approx((0.5 + 0.0) / 2)
    assert stats["pass@2"] == pytest.approx((1.0 + 0.0) / 2)
    assert stats["format_error_rate"] == pytest.approx(2 / 8)


def small_config(policy="oracle", **overrides):
    settings = dict(env_ids=[ENV], policy=policy, levels=[1, 6], instances=3, attempts=2, batch_instances=2)
    return SweepConfig(**{**settings, **overrides})


def test_attempts_of_an_instance_replay_that_instance():
    config = small_config()
    episodes = play_instances(OraclePolicy(), config, ENV, level=3, instances=[0, 1])
    plays = [[(t.prompt, t.response) for t in e.turns] for e in episodes]  # the solver's reads follow the array
    assert plays[0] == plays[1] and plays[2] == plays[3]
    assert plays[0] != plays[2]


def test_oracle_sweep_succeeds_everywhere_and_writes_every_record(tmp_path):
    summary = run_sweep(small_config(), tmp_path)
    assert summary["overall"]["success_rate"] == 1.0
    assert summary["overall"]["pass@2"] == 1.0
    assert set(summary["envs"][ENV]["levels"]) == {1, 6}
    kinds = [json.loads(line)["type"] for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert kinds[0] == "config"
    assert (kinds.count("attempt"), kinds.count("instance"), kinds.count("level"), kinds.count("env")) == (12, 6, 2, 1)


def test_random_play_fails_more_often_at_a_high_level(tmp_path):
    # 50 episodes per level: random play wins about one level-1 episode in eight, far fewer at level 10
    summary = run_sweep(
        small_config("random", levels=[1, 10], instances=25, seed=3), tmp_path, policy=RandomPolicy(seed=0)
    )
    levels = summary["envs"][ENV]["levels"]
    assert levels[1]["success_rate"] > levels[10]["success_rate"]


class Interrupting:
    """A policy stopped (like Ctrl-C, or a machine going down) at its ``stop_at``-th batch of replies."""

    def __init__(self, policy, stop_at=None):
        self.policy, self.stop_at, self.calls = policy, stop_at, 0

    def __getattr__(self, name):  # the tokenizer and limits of a model
        return getattr(self.policy, name)

    def generate(self, prompts, envs=None, stop_at_box=None, rngs=None):
        self.calls += 1
        if self.stop_at is not None and self.calls >= self.stop_at:
            raise KeyboardInterrupt
        return self.policy.generate(prompts, envs, stop_at_box, rngs)


def test_an_interrupted_sweep_resumes_where_it_stopped(tmp_path):
    config = small_config()
    with pytest.raises(KeyboardInterrupt):
        run_sweep(config, tmp_path / "cut", policy=Interrupting(OraclePolicy(), stop_at=13))
    log = tmp_path / "cut" / "records.jsonl"
    saved = [json.loads(line) for line in log.read_text().splitlines()]
    finished = {(r["level"], r["instance"]) for r in saved if r["type"] == "instance"}
    assert 0 < len(finished) < 6
    with open(log, "a") as file:
        file.write('{"type": "attempt", "env_id": "gymverse:Pea')  # a record cut by the interruption

    resumed_policy = Interrupting(OraclePolicy())
    resumed = run_sweep(config, tmp_path / "cut", policy=resumed_policy)
    full_policy = Interrupting(OraclePolicy())
    full = run_sweep(config, tmp_path / "full", policy=full_policy)

    assert resumed_policy.calls < full_policy.calls  # the finished instances were not played again
    records = [json.loads(line) for line in log.read_text().splitlines()]
    instances = [(r["level"], r["instance"]) for r in records if r["type"] == "instance"]
    assert sorted(instances) == sorted(set(instances)) and len(instances) == 6
    assert len([r for r in records if r["type"] == "attempt"]) == 12
    assert resumed["envs"] == full["envs"]


def logged(folder):
    """The records of a sweep's log, in a fixed order (a resumed log may hold them in another)."""
    return sorted((folder / "records.jsonl").read_text().splitlines())


def resumed_after_stops(config, folder, stops, policy_of):
    """``config`` run into ``folder``, stopped at each batch count of ``stops`` in turn, then run to its end;
    every run with a fresh policy, as a new process would load it."""
    for stop in stops:
        with pytest.raises(KeyboardInterrupt):
            run_sweep(config, folder, policy=Interrupting(policy_of(config), stop_at=stop))
    return run_sweep(config, folder, policy=policy_of(config))


def resumed_after_cut(config, full, folder, offset, policy_of):
    """``config`` resumed from the first ``offset`` bytes of the log in ``full``: what a SIGKILL while the
    log was being written leaves (a run writes what an uninterrupted one does, up to where it stops)."""
    folder.mkdir()
    (folder / "records.jsonl").write_bytes((full / "records.jsonl").read_bytes()[:offset])
    return run_sweep(config, folder, policy=policy_of(config))


def cut_points(full):
    """Offsets where a kill leaves a log: mid-line, between batches, and inside a batch, after the first of its
    instance records (the batch is played again, and only its missing instances logged)."""
    text = (full / "records.jsonl").read_bytes()
    lines = text.splitlines(keepends=True)
    ends = [sum(map(len, lines[: n + 1])) for n in range(len(lines))]
    kinds = [json.loads(line)["type"] for line in lines]
    inside = next(ends[n] for n in range(len(lines) - 1) if kinds[n] == kinds[n + 1] == "instance")
    between = next(ends[n] for n in range(len(lines) - 1) if kinds[n] == "instance" and kinds[n + 1] == "attempt")
    return [len(text) // 3 + 5, between, inside, len(text) - 40]


RESUMABLE_EPSILON = dict(
    env_ids=[ENV, "gymverse:GridCourier"],
    policy="epsilon:0.3",
    levels=[1, 6],
    instances=5,
    attempts=3,
    batch_instances=2,
    seed=7,
)


def load_for(config):
    return load(config.policy, config)


@pytest.mark.parametrize("stops", [[9], [15], [40], [4, 25, 3]])
def test_a_sampling_sweep_stopped_and_resumed_logs_what_an_uninterrupted_one_does(tmp_path, stops):
    config = SweepConfig(**RESUMABLE_EPSILON)
    full = run_sweep(config, tmp_path / "full")
    resumed = resumed_after_stops(config, tmp_path / "resumed", stops, load_for)
    assert logged(tmp_path / "resumed") == logged(tmp_path / "full")
    assert resumed == full
    assert 0 < full["overall"]["success_rate"] < 1  # the random moves decide games


def test_a_sampling_sweep_killed_while_writing_resumes_to_the_uninterrupted_log(tmp_path):
    config = SweepConfig(**RESUMABLE_EPSILON)
    full = run_sweep(config, tmp_path / "full")
    for k, offset in enumerate(cut_points(tmp_path / "full")):
        assert resumed_after_cut(config, tmp_path / "full", tmp_path / f"cut{k}", offset, load_for) == full
        assert logged(tmp_path / f"cut{k}") == logged(tmp_path / "full")


def test_an_attempt_plays_alike_whatever_else_is_in_its_batch(tmp_path):
    one = run_sweep(SweepConfig(**{**RESUMABLE_EPSILON, "batch_instances": 1}), tmp_path / "one")
    five = run_sweep(SweepConfig(**{**RESUMABLE_EPSILON, "batch_instances": 5}), tmp_path / "five")
    assert one["envs"] == five["envs"]
    attempts = [[r for r in logged(tmp_path / name) if '"type": "attempt"' in r] for name in ("one", "five")]
    assert attempts[0] == attempts[1]


class ModelPicksMoves:
    """A model whose sampled tokens pick its moves: the solver's when the reply's first token is even, else a
    random move drawn from the reply's tokens. The tiny model never writes a command, so its games would end
    alike whatever it sampled; this way the records show every draw."""

    def __init__(self, model):
        self.model = model
        self.tokenizer, self.max_model_len = model.tokenizer, model.max_model_len

    def generate(self, prompts, envs=None, stop_at_box=None, rngs=None):
        import random

        from gymverse.env.players import random_move

        replies = self.model.generate(prompts, envs, stop_at_box, rngs)
        return [
            Generation(
                env.oracle_action()
                if r.response_ids[0] % 2 == 0
                else random_move(env, random.Random(sum(r.response_ids))),
                r.prompt_ids,
                r.response_ids,
                r.logprobs,
            )
            for r, env in zip(replies, envs)
        ]


def tiny_config(tiny_dir):
    return SweepConfig(
        env_ids=[ENV],
        policy=str(tiny_dir),
        levels=[1, 4],
        instances=3,
        attempts=2,
        batch_instances=2,
        template="no",
        wrappers="",
        generate_max_length=4,
        seed=5,
    )


def tiny_picks_moves(config):
    return ModelPicksMoves(load_for(config))


def test_a_tiny_model_sweep_stopped_and_resumed_logs_what_an_uninterrupted_one_does(tmp_path, tiny_dir):
    config = tiny_config(tiny_dir)
    full = run_sweep(config, tmp_path / "full", policy=tiny_picks_moves(config))
    assert 0 < full["overall"]["success_rate"] < 1  # the model's draws decide games
    resumed_after_stops(config, tmp_path / "stopped", [2, 7], tiny_picks_moves)
    assert logged(tmp_path / "stopped") == logged(tmp_path / "full")
    for k, offset in enumerate(cut_points(tmp_path / "full")[1:3]):  # between batches, inside one
        resumed_after_cut(config, tmp_path / "full", tmp_path / f"cut{k}", offset, tiny_picks_moves)
        assert logged(tmp_path / f"cut{k}") == logged(tmp_path / "full")


def test_a_sweep_resumed_with_other_batches_is_refused(tmp_path):
    run_sweep(small_config(), tmp_path)
    with pytest.raises(BadInput, match="batch_instances: 2 there, 3 now"):
        run_sweep(small_config(batch_instances=3), tmp_path)


def test_resuming_with_other_settings_is_refused_and_keeps_the_records(tmp_path):
    run_sweep(small_config(), tmp_path)
    before = (tmp_path / "records.jsonl").read_text()
    with pytest.raises(BadInput, match="instances"):
        run_sweep(small_config(instances=5), tmp_path)
    assert (tmp_path / "records.jsonl").read_text() == before


def test_report_files_hold_the_tables_and_figures(tmp_path):
    summary = run_sweep(small_config(), tmp_path)
    paths = write_sweep_report(summary, tmp_path / "again")
    assert (tmp_path / "report.md").read_text() == paths["markdown"].read_text()  # run_sweep wrote it too
    with open(paths["levels_csv"]) as file:
        rows = list(csv.DictReader(file))
    assert [(r["env_id"], r["level"]) for r in rows] == [(ENV, "1"), (ENV, "6")]
    assert "| gymverse:PeakFinder | 1 |" in paths["markdown"].read_text()
    assert paths["success_vs_complexity"].stat().st_size > 1000
    saved = json.loads(paths["json"].read_text())
    assert saved["overall"]["success_rate"] == 1.0 and not math.isnan(saved["overall"]["pass@1"])


def test_compare_ranks_the_solver_above_random_play(tmp_path):
    run_sweep(small_config(), tmp_path / "oracle")
    run_sweep(small_config("random"), tmp_path / "random")
    paths = compare_runs({"oracle": tmp_path / "oracle", "random": tmp_path / "random"}, tmp_path / "cmp")
    with open(paths["csv"]) as file:
        rows = {r["model"]: float(r["success_rate"]) for r in csv.DictReader(file)}
    assert rows["oracle"] == 1.0 > rows["random"]
    assert paths["overall"].is_file() and paths["per_env"].is_file()


def evaluate_checkpoints():
    """The module of ``Evaluation/evaluate_checkpoints.py`` (a script, not a package module)."""
    spec = importlib.util.spec_from_file_location(
        "evaluate_checkpoints", ROOT / "Evaluation" / "evaluate_checkpoints.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


@pytest.mark.parametrize(
    "arguments, message",
    [
        ([ENV + "x"], "unknown environment id 'gymverse:PeakFinderx' (did you mean gymverse:PeakFinder?)"),
        ([ENV, "--policy", "epsilon:lots"], "--policy 'epsilon:lots': write epsilon:P"),
        ([ENV, "--policy", "/no/such/model"], "--policy '/no/such/model' is not a Hugging Face model folder"),
        ([ENV, "--attempts", "2", "--k", "4"], "pass@k needs 1 <= k <= --attempts (2), got --k 4"),
        ([ENV, "--levels", "0", "3"], "--levels must be integers >= 1"),
        ([ENV, "--num-levels", "0"], "--num-levels must be >= 1"),
        ([ENV, "--instances", "0"], "--instances must be >= 1"),
        (
            [ENV, "--template", "qwen3-game"],
            "--template: unknown prompt template 'qwen3-game' (did you mean qwen3_game?)",
        ),
        ([ENV, "--wrappers", "concat,nope"], "--wrappers: unknown wrapper 'nope'; GEM has"),
        ([ENV, "--top-p", "0"], "--top-p must be in (0, 1]"),
        ([ENV, "--cpu-threads", "-1"], "--cpu-threads must be >= 0"),
        ([ENV, "--device", "gpu"], "--device 'gpu': write cpu, cuda or cuda:N"),
        ([], "--all"),
    ],
)
def test_eval_refuses_bad_input_in_one_line_naming_the_flag(tmp_path, capsys, arguments, message):
    argv = ["eval", "--policy", "oracle", "--output", str(tmp_path / "out"), *arguments]
    code, out = run(argv, capsys)
    assert code == 2 and message in out and len(out.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_eval_and_evaluate_checkpoints_share_one_declaration_of_the_sweep_flags(capsys):
    import tyro

    script = evaluate_checkpoints()
    helps = []
    for command in (lambda: cli.main(["eval", "--help"]), lambda: tyro.cli(script.main, args=["--help"])):
        try:
            command()
        except SystemExit as exit_:  # tyro's --help; `gymverse eval --help` ends with status 0
            assert not exit_.code
        helps.append(" ".join(capsys.readouterr().out.split()))
    for option in [f.name for f in fields(EnvSelection)][1:] + [f.name for f in fields(SweepOptions)]:
        flag = "--k" if option == "ks" else "--" + option.replace("_", "-")
        assert all(re.search(rf"{flag}[ ,]", text) for text in helps), flag
    for text in helps:  # one help text each, the same in both commands
        assert text.count("Instances (distinct seeds) per env and level.") == 1
        assert text.count("Torch threads on a CPU (0: torch's default)") == 1


def test_evaluate_checkpoints_refuses_a_bad_list_entry_before_loading_anything(tmp_path, capsys):
    listing = tmp_path / "list.txt"
    listing.write_text("oracle\nruns/nowhere/step_1\n")
    script = evaluate_checkpoints()
    with pytest.raises(SystemExit) as exit_info:
        script.main(envs=EnvSelection([ENV]), checkpoints=listing, output=tmp_path / "out")
    assert exit_info.value.code == 2
    assert (
        f"--checkpoints {listing}: 'runs/nowhere/step_1' is not a Hugging Face model folder" in capsys.readouterr().err
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("threads", [1, 2])
def test_the_cpu_thread_setting_reaches_torch_while_the_model_samples(tmp_path, micro_model, threads):
    import torch

    from gymverse.evaluation.sweep import load

    config = SweepConfig(
        [ENV], str(micro_model), levels=[1], instances=1, attempts=1, generate_max_length=4, cpu_threads=threads
    )
    policy = load(config.policy, config)
    seen = []
    policy.model.register_forward_hook(lambda *_: seen.append(torch.get_num_threads()))
    before = torch.get_num_threads()
    torch.set_num_threads(3)  # a setting the sweep must override while sampling, then restore
    try:
        run_sweep(config, tmp_path, policy=policy)
        assert torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)
    assert seen and set(seen) == {threads}


def test_checkpoints_of_a_run_are_found_in_step_order(tmp_path):
    for step in (10, 2, 100):
        folder = tmp_path / "run" / "saved_models" / f"step_{step:05d}"
        folder.mkdir(parents=True)
        (folder / "config.json").write_text("{}")
        (folder / "model.safetensors").write_bytes(b"")
    (tmp_path / "run" / "config.json").write_text("{}")  # the run's own settings, not a model
    (tmp_path / "run" / "notes").mkdir()
    found = find_checkpoints(tmp_path / "run")
    assert [p.name for p in found] == ["step_00002", "step_00010", "step_00100"]
    listing = tmp_path / "list.txt"
    listing.write_text(f"# trained\n{found[0]}  # first\n\ntiny\n")
    assert read_checkpoint_list(listing) == [found[0], Path("tiny")]
    with pytest.raises(BadInput, match="no saved model"):
        find_checkpoints(tmp_path / "run" / "notes")


def test_a_model_checkpoint_is_scored_for_format_errors_and_context_overflow(tmp_path):
    from gymverse.policy.tiny import build_tiny_model

    model = str(build_tiny_model(tmp_path / "model"))
    cramped = run_sweep(
        SweepConfig([ENV], model, levels=[1], instances=1, attempts=2, max_model_len=32, generate_max_length=4),
        tmp_path / "cramped",
    )
    assert cramped["overall"]["context_overflow_rate"] == 1.0 and cramped["overall"]["success_rate"] == 0.0
    terse = run_sweep(
        SweepConfig(
            [ENV], model, levels=[1], instances=1, attempts=1, template="no", wrappers="", generate_max_length=4
        ),
        tmp_path / "terse",
    )
    assert terse["overall"]["format_error_rate"] == 1.0  # four tokens cannot hold a \boxed{} command
    assert terse["overall"]["mean_turns"] > 1 and terse["overall"]["mean_return"] < 0


def test_checkpoint_result_folders_get_short_unique_names():
    taken: set[str] = set()
    names = [
        checkpoint_name(Path(p), taken)
        for p in ("runs/a/saved_models/step_00002", "runs/b/saved_models/step_00002", "epsilon:0.3", "tiny", "tiny")
    ]
    assert names == ["step_00002", "saved_models_step_00002", "epsilon_0.3", "tiny", "tiny-2"]
