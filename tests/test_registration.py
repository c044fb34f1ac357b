"""Bringing your own games: env folders (GymVerse-style files included), plugins, complexity reach."""

import textwrap
from importlib.metadata import EntryPoint

import gem
import pytest

import gymverse
from gymverse.env import RebuildOnComplexity, registry
from gymverse.env.checker import check_env

# GymVerse's pattern: parameters from complexity, module-level `random`, status in info["suffix"].
TALLY = """
import random
from gem.core import Env

class TallyGame(Env):
    def __init__(self, complexity=1, enable_param_randomization=True, max_turns=30, **_):
        super().__init__()
        self.complexity = complexity
        self.max_turns = max_turns
        self.target = 2 + complexity  # fixed at construction, as in many GymVerse tool games

    def reset(self, seed=None):
        super().reset(seed)
        self.count, self.turns, self.bonus = 0, 0, random.randint(0, 3)
        return (f"Say \\\\boxed{{tick}} {self.target} times, then \\\\boxed{{done}}.",
                {"suffix": f"count={self.count}"})

    def step(self, action):
        self.turns += 1
        if action.endswith("\\\\boxed{tick}"):
            self.count += 1
            return "tick", 0.0, False, self.turns >= self.max_turns, {"suffix": f"count={self.count}"}
        won = self.count == self.target
        return "end", float(won), True, False, {"suffix": "", "success": won}
"""

# Reads complexity on every reset, like a well-behaved GymVerse game with evolve().
ECHO = """
import random
from gem.core import Env

class EchoGame(Env):
    def __init__(self, complexity=1, enable_param_randomization=True, max_turns=30, **_):
        super().__init__()
        self.complexity = complexity

    def set_complexity(self, c):
        self.complexity = c

    def get_complexity(self):
        return self.complexity

    def reset(self, seed=None):
        super().reset(seed)
        self.word = random.choice(["red", "blue"]) * self.complexity
        return f"Repeat {self.word} inside \\\\boxed{{}}.", {"suffix": ""}

    def step(self, action):
        won = action.strip().endswith("\\\\boxed{%s}" % self.word)
        return "ok", float(won), True, False, {"success": won}
"""

BROKEN = """
import random
from gem.core import Env
import a_module_that_does_not_exist

class NeverImported(Env):
    pass
"""

UNBUILDABLE = """
from gem.core import Env

class NeedsAKey(Env):
    def __init__(self, api_key, **_):
        self.api_key = api_key
    def reset(self, seed=None):
        return "", {}
    def step(self, action):
        return "", 0.0, True, False, {"success": False}
"""


@pytest.fixture
def env_dir(tmp_path):
    folder = tmp_path / "mygames"
    folder.mkdir()
    for name, text in {"tally.py": TALLY, "echo.py": ECHO, "broken.py": BROKEN, "keyed.py": UNBUILDABLE}.items():
        (folder / name).write_text(textwrap.dedent(text))
    (folder / "_private.py").write_text("raise SystemExit('never imported')")
    yield folder
    for env_id in list(gem.envs.registration.ENV_REGISTRY):
        if env_id.startswith(("mygames:", "custom:")):
            del gem.envs.registration.ENV_REGISTRY[env_id]


def test_register_env_dir_registers_good_files_and_reports_bad_ones(env_dir):
    report = gymverse.register_env_dir(env_dir)
    assert sorted(report.registered) == ["mygames:EchoGame", "mygames:TallyGame"]
    assert "ModuleNotFoundError" in report.failed[str(env_dir / "broken.py")]
    assert "api_key" in report.failed["mygames:NeedsAKey"]
    assert not any("_private" in key for key in report.failed)

    env = gem.make("mygames:TallyGame", complexity=2)
    observation, info = env.reset(seed=0)
    assert "4 times" in observation and info["suffix"] == "count=0"
    for _ in range(4):
        env.step("\\boxed{tick}")
    assert env.step("\\boxed{done}")[4]["success"]


def test_prefix_and_repeat_registration(env_dir):
    assert gymverse.register_env_dir(env_dir, prefix="custom").registered == ["custom:EchoGame", "custom:TallyGame"]
    assert gymverse.register_env_dir(env_dir, prefix="custom").registered == []


def test_constructor_only_envs_still_follow_a_curriculum(env_dir):
    gymverse.register_env_dir(env_dir)
    env = gem.make("mygames:TallyGame", complexity=1)
    assert isinstance(env, RebuildOnComplexity)
    env.reset(seed=0)
    gymverse.set_env_complexity(env, 5)
    assert env.inner.target == 3  # the running episode keeps its game
    observation, _ = env.reset(seed=0)
    assert "7 times" in observation and env.complexity == 5


def test_a_rebuilt_env_keeps_its_classs_highest_complexity():
    class Capped(gem.Env):
        max_complexity = 4

        def __init__(self, complexity=1):
            self.complexity = complexity

        def reset(self, seed=None):
            return f"level {self.complexity}", {}

        def step(self, action):
            return "", 0.0, True, False, {}

    env = RebuildOnComplexity(Capped, complexity=4)
    with pytest.raises(ValueError, match="highest complexity, 4"):
        env.set_complexity(5)
    with pytest.raises(ValueError, match="Capped's highest complexity, 4"):
        RebuildOnComplexity(Capped, complexity=9)
    env.set_complexity(2)
    assert env.reset()[0] == "level 2"


def test_envs_with_their_own_set_complexity_are_played_with_it_and_a_change_waits_for_the_next_reset(env_dir):
    gymverse.register_env_dir(env_dir)
    env = gem.make("mygames:EchoGame", complexity=2)
    assert type(env.inner).__name__ == "ProxyEnv"  # its own set_complexity, played through its jail: no rebuilding
    env.reset(seed=0)
    gymverse.set_env_complexity(env, 3)  # EchoGame applies it at once: the wrapper holds it for the next reset
    assert (env.complexity, gymverse.get_env_complexity(env)) == (2, 3)
    env.reset(seed=0)
    assert env.complexity == 3


def test_checker_runs_on_third_party_envs_without_a_solver(env_dir):
    gymverse.register_env_dir(env_dir)
    report = check_env("mygames:TallyGame", levels=range(1, 4), seeds=2)
    solver = next(r for r in report.results if r.name == "solver")
    assert solver.passed is None and report.results[0].passed


def test_set_env_complexity_explains_plain_gem_envs():
    class Plain(gem.Env):
        def reset(self, seed=None):
            return "", {}

        def step(self, action):
            return "", 0.0, True, False, {}

    with pytest.raises(TypeError, match="RebuildOnComplexity"):
        gymverse.set_env_complexity(Plain(), 2)


def test_plugins_register_through_entry_points(monkeypatch, env_dir):
    calls = []

    def fake_entry_points(group):
        if group != "gymverse.envs":
            return []
        good = EntryPoint("good", "plugin_mod:register", group)
        bad = EntryPoint("bad", "no_such_plugin_module:register", group)
        return [good, bad]

    import sys
    import types

    module = types.ModuleType("plugin_mod")
    module.register = lambda: calls.append(1) or gymverse.register_env_dir(env_dir, prefix="custom")
    monkeypatch.setitem(sys.modules, "plugin_mod", module)
    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    report = gymverse.register_plugins()
    assert calls == [1] and "custom:TallyGame" in report.registered
    assert "no_such_plugin_module" in report.failed["plugin bad"]


def test_the_library_registers_by_module_class_entries_without_importing_games():
    import subprocess
    import sys

    from gem.envs.registration import ENV_REGISTRY

    ids = registry.registered_ids("gymverse")
    assert len(ids) >= 24
    for env_id in ids:
        module, name = ENV_REGISTRY[env_id].entry_point.split(":")
        cls = registry.env_class(env_id)  # each module holds the class its file names
        assert (cls.__module__, cls.__name__) == (module, env_id.split(":")[1])
    probe = (
        "import sys, gymverse; print(sum(m.count('.') == 3 and m.startswith('gymverse.envs.') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "0"


def test_gem_is_imported_without_reasoning_gym_once_its_names_are_saved_and_rg_ids_still_work(tmp_path):
    import json
    import subprocess
    import sys

    probe = (
        "import json, sys, gymverse, gem; ids = [i for i in gem.envs.registration.ENV_REGISTRY if i[:3] == 'rg:'];"
        "print(json.dumps(['reasoning_gym' in sys.modules, ids]))"
    )

    def child(code: str = probe) -> list:
        env = {"PATH": "/usr/bin:/bin", "GYMVERSE_CACHE": str(tmp_path)}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.splitlines()[-1])

    cold, warm = child(), child()
    assert cold[0] is True and warm[0] is False  # the first import reads the names from reasoning-gym and saves them
    assert warm[1] == cold[1] and len(cold[1]) > 50  # the same ids, in the same order
    [saved] = tmp_path.glob("reasoning-gym-*-datasets.json")
    saved.write_text("{not json")
    assert child() == cold and json.loads(saved.read_text()) == [i[3:] for i in cold[1]]  # a torn file is redone
    made = "import json, gymverse, gem; env = gem.make('rg:basic_arithmetic'); print(json.dumps([len(env.ds) > 0]))"
    assert child(made) == [True]  # a reasoning-gym game gets the real package


def test_random_moves_come_from_the_players_rng_and_leave_the_games_random_alone(tmp_path):
    import random
    from pathlib import Path

    from gymverse.env.players import random_move

    tally = Path(__file__).parent / "fixtures" / "hostile_envs" / "tally.py"  # sample_random_action uses `random`
    (tmp_path / "tally.py").write_text(tally.read_text())
    gymverse.register_env_dir(tmp_path, prefix="moves", trusted=True)
    env = gem.make("moves:TallyGame", complexity=1)
    env.reset(seed=3)
    before = random.getstate()
    moves = {seed: [random_move(env, random.Random(seed)) for _ in range(5)] for seed in range(6)}
    assert random.getstate() == before  # the game's module-level stream is untouched
    assert all(len(set(same)) == 1 for same in moves.values())  # the player's seed decides the move
    assert len({same[0] for same in moves.values()}) == 2  # and different seeds reach both commands
