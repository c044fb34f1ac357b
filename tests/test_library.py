"""The env contract, checked on every built-in game: one parametrized test per rule of the contract.

What is particular to one game (its own rules) is tested in ``test_envs_<domain>.py``.
"""

import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import gem
import pytest
from episodes import play
from gymverse.envs import DOMAINS

import gymverse  # noqa: F401  (registers the library)
from gymverse import cli
from gymverse.env import builtin_env_classes
from gymverse.env.checker import check_env

GAMES = builtin_env_classes()
ROOT = Path(__file__).parents[1]
FINGERPRINTS = ROOT / "tests" / "fixtures" / "game_fingerprints.json"
LEVELS_PAST_20 = [25, 30, 40, 50, 60, 75, 100, 150, 200]

# Commands that break one game's syntax or range at level 1, on top of the generic ones every game gets.
OWN_BAD_COMMANDS = {
    "PeakFinder": ["read", "read 1 2", "read 8", "answer -1", "read x"],
    "ShortestPath": ["neighbors", "neighbors 999", "neighbors -1", "answer", "answer -5", "answer 1 2"],
    "CounterfeitCoin": ["weigh 1 2", "weigh 1 vs 1", "weigh 1 2 vs 3", "weigh vs", "weigh 0 vs 1", "answer 99"],
    "SortedMatrixSearch": ["read 0", "read 0 99", "read -1 0", "answer nowhere", "answer none 1", "read a b"],
    "BuildOrder": ["prereqs", "build 999", "build -1", "prereqs 1 2", "build one"],
    "ExpressionTree": ["inspect", "inspect 999", "inspect -1", "answer", "answer 1.5", "answer 99999999999"],
    "GridCourier": ["fly", "up 3"],
    "MailSorter": ["bin", "bin Z", "bin AB", "bin 1"],
    "BooleanSatisfiability": ["set x1 maybe", "set x99 true", "set x1"],
}


def generic_bad_commands(game: type) -> list[str]:
    verb, *args = game.example_command.split()
    bad = [
        "",
        "no box here",
        "\\boxed{}",
        "\\boxed{dance wildly}",
        "\\boxed{answer}",
        f"\\boxed{{{verb} 1 2 3 4 5 6 7}}",
        "\\boxed{ünï ☃ {nested {x}}}",
        "\\boxed{" + "é{}" * 20_000 + "}",
    ]
    if any(arg.isdigit() for arg in args):  # a command that takes numbers, given numbers out of any range
        bad += [f"\\boxed{{{verb} 99999999999999999999 -5}}", f"\\boxed{{{verb} ☃ {'9' * 5000}}}"]
    return bad


def solver_levels(game: type) -> list[int]:
    return list(range(1, 21)) + [level for level in LEVELS_PAST_20 if 20 < level <= game.max_complexity]


def epsilon_solver_success(game: type, level: int, episodes: int = 60) -> float:
    env = game(complexity=level)
    return sum(play(env, 1000 + seed, epsilon=0.3, agent_seed=seed).success for seed in range(episodes)) / episodes


def test_library_has_six_games_in_each_domain():
    by_domain = {d: [c.__name__ for c in GAMES if c.domain == d] for d in DOMAINS}
    assert all(len(names) >= 6 for names in by_domain.values()), by_domain
    assert {c.domain for c in GAMES} <= set(DOMAINS)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_game_passes_the_checker_at_levels_1_to_20(game):
    report = check_env(f"gymverse:{game.__name__}", levels=range(1, 21), seeds=20)
    # Built-in games earn no warning either, but for speed: a step's wall time here depends on what else runs
    # (the suite's parallel workers); benchmarks/probe_complexity.py measures it on a quiet machine.
    warnings = [w.warning for w in report.warnings() if not w.warning.startswith("slow")]
    assert report.passed and warnings == [], str(report)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_solver_wins_every_level_up_to_the_highest_without_a_wasted_reply(game):
    env = game()
    for level in solver_levels(game):
        env.set_complexity(level)
        for seed in range(3):
            episode = play(env, seed)
            rewards = [step.reward for step in episode.steps]
            assert episode.success, f"level {level}, seed {seed}: {episode.steps[-1].observation[:300]}"
            assert rewards == [0.0] * (len(rewards) - 1) + [1.0], f"level {level}, seed {seed}"
            assert env.oracle_action() is None  # the episode is over: no next move


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_complexity_above_the_highest_is_refused_with_the_limit_named(game):
    assert game.max_complexity >= 20
    with pytest.raises(ValueError, match=f"highest complexity, {game.max_complexity}"):
        gem.make(f"gymverse:{game.__name__}", complexity=game.max_complexity + 1)
    env = game(complexity=game.max_complexity)
    with pytest.raises(ValueError, match=str(game.max_complexity)):
        env.set_complexity(game.max_complexity + 1)
    assert env.get_complexity() == game.max_complexity


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_epsilon_solver_wins_clearly_less_at_level_10_than_at_level_1(game):
    easy, hard = epsilon_solver_success(game, 1), epsilon_solver_success(game, 10)
    assert easy - hard >= 0.2, f"epsilon-solver success: level 1 {easy:.2f}, level 10 {hard:.2f}"


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_same_seed_and_replies_give_the_same_trace_and_another_seed_another_game(game):
    for level in (3, 12):
        first = play(game(complexity=level), seed=11, epsilon=0.4, agent_seed=3)
        assert play(game(complexity=level), seed=11, epsilon=0.4, agent_seed=3) == first
        assert play(game(complexity=level), seed=12, epsilon=0.4, agent_seed=3) != first


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_bad_replies_cost_a_little_change_nothing_and_the_game_goes_on(game):
    env = game(complexity=1, max_turns=100)
    env.reset(seed=0)
    for reply in generic_bad_commands(game) + ["\\boxed{%s}" % c for c in OWN_BAD_COMMANDS.get(game.__name__, [])]:
        status = env.status()
        observation, reward, terminated, truncated, info = env.step(reply)
        assert (reward, terminated, truncated) == (game.invalid_reward, False, False), (reply[:40], observation)
        assert observation and "success" not in info
        assert env.status().replace(f"Turn {env.turn}/", f"Turn {env.turn - 1}/") == status  # only the turn moved
    while not env.done:
        *_, info = env.step(env.oracle_action())
    assert info["success"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_random_replies_are_well_formed(game):
    env = game(complexity=3)
    picker = random.Random(0)
    for seed in range(10):
        env.reset(seed=seed)
        for _ in range(5):
            _, reward, terminated, truncated, _ = env.step(env.random_action(picker))
            assert reward >= 0
            if terminated or truncated:
                break


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_running_out_of_turns_loses_and_reveals_the_answer(game):
    env = game(complexity=2)
    env.reset(seed=5)
    for _ in range(env.max_turns):
        observation, reward, terminated, truncated, info = env.step("\\boxed{}")
    assert truncated and not terminated and info["success"] is False
    assert env._reveal() in observation
    assert env.oracle_action() is None


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_opening_observation_teaches_the_commands(game):
    observation, info = game(complexity=3).reset(seed=0)
    assert "\\boxed{" in observation and len(observation) > 80
    assert isinstance(info["suffix"], str)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_chosen_parameters_within_the_declared_ranges_start_games_the_solver_wins(game):
    ranges = game.param_ranges()
    chooser = random.Random(game.__name__)
    env = game()
    for seed in range(20):
        chosen = {
            name: chooser.randint(low, high) if isinstance(low, int) else chooser.uniform(low, high)
            for name, (low, high) in ranges.items()
            if chooser.random() < 0.7
        }
        env.set_complexity(chooser.choice([1, 5, 10, 20]))
        env.set_params(chosen)
        episode = play(env, seed)
        assert env.params.items() >= chosen.items()
        assert episode.success, (chosen, env.complexity, episode.steps[-1].observation[:300])
    env.set_params({})
    env.reset(seed=0)
    drawn = dict(env.params)
    env.reset(seed=0)
    assert env.params == drawn


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_parameters_outside_the_declared_ranges_are_refused(game):
    env = game()
    name, (low, high) = next(iter(game.param_ranges().items()))
    with pytest.raises(ValueError, match=f"no parameter 'nonsense'.*{name}"):
        env.set_params({"nonsense": 1})
    with pytest.raises(ValueError, match=rf"{name}.*\[{low}, {high}\]"):
        env.set_params({name: high + 1})
    env.reset(seed=0)  # a refused choice leaves the game drawing its parameters


def test_envs_command_shows_each_games_highest_complexity(capsys, monkeypatch):
    monkeypatch.setattr(cli.console, "width", 200)
    cli.main(["envs"])
    out = capsys.readouterr().out
    assert "highest" in out
    row = next(line for line in out.splitlines() if "gymverse:LightsOut" in line)
    assert " 71 " in row


@pytest.fixture(scope="module")
def transcripts():
    """benchmarks/transcripts.py, which takes the fingerprints (a script, not a package module)."""
    spec = importlib.util.spec_from_file_location("transcripts", ROOT / "benchmarks" / "transcripts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_play_is_unchanged_since_the_fingerprints_were_taken(game, transcripts):
    """The game's solver and random play at levels 1 to 20 (seed 0) as fingerprinted before the base class took
    over command parsing, draws and turn budgets. A game added since has none and is reported as new. A
    deliberate change to a game's play (or a new game's first fingerprints) renews them with
    ``python benchmarks/transcripts.py write tests/fixtures/game_fingerprints.json --seeds 1``."""
    taken = json.loads(FINGERPRINTS.read_text())
    mine = {key: value for key, value in taken.items() if transcripts.game_of(key) == game.__name__}
    if not mine:
        pytest.skip(f"{game.__name__} is new: no fingerprints of its play yet")
    now = transcripts.game_fingerprints(game.__name__, levels=range(1, 21), seeds=range(1))
    assert mine.keys() == now.keys()
    assert [key for key in now if now[key] != mine[key]] == []


# The tests that cover every game without being parametrized by it, each as FILE::NAME.
WHOLE_LIBRARY_TESTS = [
    "tests/test_library.py::test_library_has_six_games_in_each_domain",
    "tests/test_cli.py::test_envs_lists_every_parameter_name_whole_when_piped",
    "tests/test_gymverse_evaluation.py::test_env_categories_lists_every_built_in_game_once_in_gymverses_four_categories",
    "tests/test_registration.py::test_the_library_registers_by_module_class_entries_without_importing_games",
]


def test_a_new_game_is_one_file_that_every_game_test_accepts(tmp_path):
    """What a newcomer does, in a copy of the project: one module in a domain folder of envs/ (here a game of ours
    under a new name), then the tests that cover every game; the fingerprint check reports it as new."""
    copy = tmp_path / "project"
    for folder in ("gymverse", "envs", "tests", "benchmarks", "Evaluation"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pytest.ini", copy)
    (copy / "gymverse" / "envs").symlink_to("../envs")  # where the installed package has it
    source = (ROOT / "envs" / "games" / "lights_out.py").read_text()
    (copy / "envs" / "games" / "lamp_grid.py").write_text(source.replace("class LightsOut(", "class LampGrid("))

    report = tmp_path / "report.xml"
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GYMVERSE_TEST"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
        + [*{name.split("::")[0] for name in WHOLE_LIBRARY_TESTS}, "tests/test_env_contract.py"]
        + ["-k", " or ".join(["LampGrid"] + [name.split("::")[1] for name in WHOLE_LIBRARY_TESTS])],
        cwd=copy,
        env=dict(environ, PYTHONPATH=str(copy)),  # gymverse (and its envs) imported from the copy
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    cases = {case.get("name"): case for case in ElementTree.parse(report).iter("testcase")}
    per_game = {
        f"{name}[LampGrid]"
        for name, test in globals().items()
        if any(mark.args[:1] == ("game",) for mark in getattr(test, "pytestmark", []))
    }
    per_game.add("test_under_gems_concat_wrapper_every_prompt_shows_the_status_once[gymverse:LampGrid]")
    assert per_game | {name.split("::")[1] for name in WHOLE_LIBRARY_TESTS} <= set(cases), sorted(cases)
    skipped = cases["test_play_is_unchanged_since_the_fingerprints_were_taken[LampGrid]"].find("skipped")
    assert skipped is not None and "LampGrid is new" in skipped.get("message")
    assert [name for name, case in cases.items() if case.find("skipped") is not None] == [
        "test_play_is_unchanged_since_the_fingerprints_were_taken[LampGrid]"
    ]
