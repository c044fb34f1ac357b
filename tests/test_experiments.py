"""The studies' wrappers (buggy twins, feedback designs) and the experiment harness on smoke budgets."""

import json

import gem
import pytest

import gymverse  # noqa: F401  (registers the built-in games)
from experiments import complexity, correctness, data_efficiency, feedback, normalization, scale
from experiments.harness import QUICK, Budget, curve, episodes_to_reach, main, mean_curve, mean_std
from gymverse.env import registered_ids
from gymverse.env.success import episode_success
from gymverse.evaluation.audit import AuditConfig, run_audit
from gymverse.evaluation.targets import target_for
from gymverse.wrappers import BuggyTwin, FeedbackDesign, RewardScale, register_variant


def solve(env, seed: int = 0):
    """Play the solver to the end; the last step's (observation, reward, info)."""
    env.reset(seed=seed)
    while True:
        observation, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        if terminated or truncated:
            return observation, reward, info


# -- BuggyTwin --------------------------------------------------------------------------------------
def test_an_unwinnable_twin_scores_the_solvers_win_as_a_loss():
    _, reward, info = solve(BuggyTwin(gem.make("gymverse:MailSorter"), unwinnable=1.0, reward_flip=0.0, lie=0.0))
    assert (reward, info["success"]) == (0.0, False)


def test_a_flipped_reward_contradicts_success():
    _, reward, info = solve(BuggyTwin(gem.make("gymverse:MailSorter"), unwinnable=0.0, reward_flip=1.0, lie=0.0))
    assert info["success"] is True and reward == 0.0


def test_lying_feedback_changes_the_numbers_and_nothing_else():
    honest, twin = gem.make("gymverse:GridCourier"), BuggyTwin(gem.make("gymverse:GridCourier"), 0.0, 0.0, lie=1.0)
    honest.reset(seed=3), twin.reset(seed=3)
    move = honest.unwrapped.oracle_action()

    def seen(step):  # the observation and the status line after it
        return step[0] + "\n" + step[4]["suffix"]

    truth, lie = seen(honest.step(move)), seen(twin.step(move))
    assert truth != lie
    assert [c for c in truth if not c.isdigit()] == [c for c in lie if not c.isdigit()]


def test_a_correct_twin_is_the_game_itself():
    observation, reward, info = solve(BuggyTwin(gem.make("gymverse:MailSorter"), 0.0, 0.0, 0.0))
    assert (reward, info["success"]) == (1.0, True) and "You win" in observation


def test_twin_bugs_replay_with_the_seed():
    def trace(seed):
        twin = BuggyTwin(gem.make("gymverse:GridCourier", complexity=3), 0.5, 0.5, 0.5)
        twin.reset(seed=seed)
        steps = []
        while True:
            observation, reward, terminated, truncated, _ = twin.step(twin.unwrapped.oracle_action())
            steps.append((observation, reward))
            if terminated or truncated:
                return steps

    assert trace(5) == trace(5)


def test_bug_probabilities_outside_0_1_are_refused():
    with pytest.raises(ValueError, match="reward_flip"):
        BuggyTwin(gem.make("gymverse:MailSorter"), reward_flip=1.5)


def test_the_audit_flags_the_buggy_twin_of_every_builtin_game():
    twins = [register_variant(env_id, "buggy") for env_id in registered_ids("gymverse")]
    config = AuditConfig(
        levels=[1, 2, 3], episodes=4, solver_episodes=4, checker_max_level=2, checker_seeds=1, sections=["correctness"]
    )
    result = run_audit([target_for(twin) for twin in twins], config)
    flagged = {p.env_id for p in result.problems if p.reason in ("success_mismatch", "solver_fails")}
    assert flagged == set(twins)


def test_the_audit_flags_each_bug_alone():
    reasons = {}
    for kind, params in (
        ("unwinnable", dict(unwinnable=0.5, reward_flip=0.0, lie=0.0)),
        ("flip", dict(unwinnable=0.0, reward_flip=0.5, lie=0.0)),
    ):

        class Twin(BuggyTwin):  # an env class, as the audit takes one
            domain = "games"

            def __init__(self, complexity=1, **kwargs):
                super().__init__(gem.make("gymverse:MailSorter", complexity=complexity), **params)

        Twin.__name__ = f"MailSorter_{kind}"
        result = run_audit([target_for(Twin)], AuditConfig(levels=[1, 2], sections=["correctness"]))
        reasons[kind] = {p.reason for p in result.problems}
    assert "solver_fails" in reasons["unwinnable"]
    assert "success_mismatch" in reasons["flip"]


def test_a_variant_id_builds_the_wrapped_game_and_keeps_its_domain_and_complexity():
    twin_id = register_variant("gymverse:PeakFinder", "buggy")
    assert register_variant("gymverse:PeakFinder", "buggy") == twin_id == "buggy:gymverse:PeakFinder"
    env = gem.make(twin_id, complexity=4)
    assert isinstance(env, BuggyTwin) and env.unwrapped.get_complexity() == 4
    assert target_for(twin_id).domain == target_for("gymverse:PeakFinder").domain
    with pytest.raises(ValueError, match="other parameters"):
        register_variant("gymverse:PeakFinder", "buggy", lie=0.9)
    with pytest.raises(ValueError, match="unknown variant"):
        register_variant("gymverse:PeakFinder", "noisy")


# -- FeedbackDesign ---------------------------------------------------------------------------------
@pytest.mark.parametrize("design", ["process", "plain", "none"])
def test_feedback_designs_keep_the_rewards_and_the_first_observation(design):
    plain = FeedbackDesign(gem.make("gymverse:GridCourier"), design)
    game = gem.make("gymverse:GridCourier")
    assert plain.reset(seed=1)[0] == game.reset(seed=1)[0]
    for move in ("garbage", game.unwrapped.oracle_action()):
        mine, theirs = plain.step(move), game.step(move)
        assert mine[1:4] == theirs[1:4]
        expected = {"process": theirs[0], "none": ""}.get(design)
        assert mine[0] == expected if expected is not None else mine[0] in ("Invalid move.", "Valid move.")
        assert ("suffix" in mine[4]) == (design == "process")


def test_plain_feedback_says_valid_invalid_won_lost():
    env = FeedbackDesign(gem.make("gymverse:MailSorter"), "plain")
    env.reset(seed=0)
    assert env.step("\\boxed{Nowhere}")[0] == "Invalid move."
    observation, reward, *_, info = solve(env)
    assert observation == "Valid move. You won." and episode_success(info, reward)


def test_an_unknown_feedback_design_is_refused():
    with pytest.raises(ValueError, match="process, plain, none"):
        FeedbackDesign(gem.make("gymverse:MailSorter"), "rich")


# -- harness ----------------------------------------------------------------------------------------
def test_a_scaled_reward_is_the_games_reward_times_the_factor_and_nothing_else():
    plain, scaled = gem.make("gymverse:MailSorter"), RewardScale(gem.make("gymverse:MailSorter"), 10.0)
    assert plain.reset(seed=3) == scaled.reset(seed=3)
    penalty = plain.step("\\boxed{nonsense}")[1]
    assert penalty < 0 and scaled.step("\\boxed{nonsense}")[1] == pytest.approx(10 * penalty)
    for _ in range(3):
        action = plain.unwrapped.oracle_action()
        mine, theirs = plain.step(action), scaled.step(action)
        assert theirs[1] == pytest.approx(10 * mine[1])
        assert (mine[0], *mine[2:]) == (theirs[0], *theirs[2:])


def test_budget_levels_thin_to_the_first_and_last():
    assert Budget(max_levels=2).levels(list(range(1, 11))) == [1, 10]
    assert Budget(max_levels=3).levels([1, 2, 3, 4, 5]) == [1, 3, 5]
    assert Budget().levels([1, 4]) == [1, 4]


def test_mean_std_over_seeds():
    assert mean_std([1.0]) == (1.0, 0.0)
    mean, std = mean_std([0.0, 1.0])
    assert mean == 0.5 and std == pytest.approx(0.7071, abs=1e-4)


def test_curve_counts_the_training_episodes_before_each_evaluation():
    train = [{"step": 1, "num_episodes": 4}, {"step": 2, "num_episodes": 6}]
    evals = [{"step": 0, "accuracy": 0.0}, {"step": 2, "accuracy": 0.5}, {"step": 2, "accuracy": 1.0}]
    assert curve(train, evals) == [
        {"step": 0, "episodes": 0, "success": 0.0},
        {"step": 2, "episodes": 10, "success": 0.75},
    ]


def test_episodes_to_reach_interpolates_between_evaluations():
    points = [{"episodes": 0, "success": 0.2}, {"episodes": 40, "success": 0.2}, {"episodes": 80, "success": 0.6}]
    assert episodes_to_reach(points, 0.4) == pytest.approx(60.0)
    assert episodes_to_reach(points, 0.1) == 0
    assert episodes_to_reach(points, 0.2) == 0
    assert episodes_to_reach(points, 0.7) is None


def test_data_efficiency_reads_the_episodes_each_schedule_needs():
    def run(arm, successes):
        return {"arm": arm, "curve": [{"episodes": 50 * i, "success": s} for i, s in enumerate(successes)]}

    results = [
        run(data_efficiency.STATIC, [0.0, 0.1, 0.2, 0.4]),
        run(data_efficiency.STATIC, [0.0, 0.1, 0.2, 0.2]),
        run(data_efficiency.ALIGNED, [0.0, 0.3, 0.4, 0.4]),
        run(data_efficiency.ALIGNED, [0.0, 0.3, 0.4, 0.4]),
    ]
    assert [p["success"] for p in mean_curve(results, data_efficiency.STATIC)] == pytest.approx([0.0, 0.1, 0.2, 0.3])
    findings = data_efficiency.data_efficiency({}, results)
    assert findings["episodes to reach it"] == {data_efficiency.STATIC: 150.0, data_efficiency.ALIGNED: 50.0}
    assert findings["data-efficiency ratio (static / aligned)"] == 3.0
    flat = [run(data_efficiency.STATIC, [0.3, 0.4, 0.3]), run(data_efficiency.ALIGNED, [0.3, 0.5, 0.6])]
    assert "no gain to match" in data_efficiency.data_efficiency({}, flat)["reading"]


@pytest.mark.parametrize(
    "study",
    [
        complexity.complexity_study,
        correctness.correctness_study,
        feedback.feedback_study,
        scale.scale_study,
        data_efficiency.data_efficiency_study,
        normalization.normalization_study,
    ],
)
def test_every_study_names_registered_games_and_arms_with_the_same_budget(study):
    from experiments.harness import ensure_registered

    built = study(QUICK)
    ids = built.eval_env_ids + [
        i for arm in built.arms for i in arm.flags.get("env_id", built.flags.get("env_id", "")).split("|")
    ]
    ensure_registered(ids)
    assert set(ids) <= set(gem.envs.registration.ENV_REGISTRY)
    assert len({arm.name for arm in built.arms}) == len(built.arms) >= 2
    assert not any("max_train" in arm.flags for arm in built.arms)


def test_a_quick_study_writes_its_table_figure_and_results_then_skips_what_is_done(micro_model, tmp_path, capsys):
    argv = [
        "--quick",
        "--steps",
        "1",
        "--seeds",
        "0",
        "--jobs",
        "2",
        "--pretrain",
        str(micro_model),
        "--root",
        str(tmp_path / "runs"),
        "--out",
        str(tmp_path / "fig"),
    ]
    assert main(correctness.correctness_study, argv) == 0
    data = json.loads((tmp_path / "fig" / "results.json").read_text())
    assert set(data["arms"]) == {"correct only", "correct + buggy twins"}
    assert data["command"].startswith("python -m experiments.correctness --quick")
    assert all(run["command"].startswith("python examples/train_oat/train_oat_perpo.py") for run in data["runs"])
    assert (tmp_path / "fig" / "figure.png").stat().st_size > 0
    assert "| correct + buggy twins |" in (tmp_path / "fig" / "table.md").read_text()
    run_dirs = [
        tmp_path / "runs" / "correctness" / name / "seed0" for name in ("correct_only", "correct___buggy_twins")
    ]
    stamps = [(d / "result.json").stat().st_mtime_ns for d in run_dirs]
    assert main(correctness.correctness_study, argv) == 0  # everything done: nothing runs again
    assert [(d / "result.json").stat().st_mtime_ns for d in run_dirs] == stamps


def test_bad_study_options_are_refused_with_a_message(capsys):
    assert main(correctness.correctness_study, ["--steps", "0"]) == 2
    assert main(correctness.correctness_study, ["--jobs", "0"]) == 2
    assert "--steps must be >= 1" in capsys.readouterr().err


def test_a_half_finished_run_resumes_from_its_checkpoint(micro_model, tmp_path):
    from dataclasses import replace

    from experiments.harness import run_arm

    study = correctness.correctness_study(replace(QUICK, steps=1))
    study.flags["pretrain"] = str(micro_model)
    arm = study.arms[0]
    first = run_arm(study, arm, 0, tmp_path)
    run_dir = tmp_path / "correctness" / "correct_only" / "seed0"
    (run_dir / "result.json").unlink()  # as if killed after its step-1 checkpoint
    study.budget = replace(QUICK, steps=2)
    second = run_arm(study, arm, 0, tmp_path)
    assert [r["step"] for r in second["training"]] == [1, 2]
    assert second["training"][0] == first["training"][0]


@pytest.mark.parametrize(
    "study",
    [complexity.complexity_study, feedback.feedback_study, scale.scale_study, normalization.normalization_study],
)
def test_every_study_runs_end_to_end_on_the_smoke_budget(study, micro_model, tmp_path):
    argv = ["--quick", "--steps", "1", "--seeds", "0", "--pretrain", str(micro_model)]
    assert main(study, [*argv, "--root", str(tmp_path), "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    built = study(QUICK)
    assert list(data["arms"]) == [arm.name for arm in built.arms]
    assert all(len(run["curve"]) == 2 for run in data["runs"])  # before training and after its one step
    assert (tmp_path / "figure.png").is_file()
