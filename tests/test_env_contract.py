"""The environment contract: parsing, the complexity model, the base class and the checker."""

import collections
import math
import random
import re
from pathlib import Path

import gem
import pytest
from gymverse.envs.games.lights_out import LightsOut
from hypothesis import given
from hypothesis import strategies as st

import gymverse
from gymverse.curriculum import CONTROLLERS, RatchetParams, highest_complexities, make_curriculum
from gymverse.env import (
    EvolvableEnv,
    Feedback,
    InvalidAction,
    command_table,
    distinct_draws,
    extract_boxed,
    highest_complexity,
    lose,
    parse_int,
    sample_params,
    split_command,
    win,
)
from gymverse.env.checker import check_env
from gymverse.env.complexity import line_value, validate_complexity
from gymverse.env.evolve import Thresholds
from gymverse.env.success import episode_success


# -- parsing ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, command",
    [
        ("\\boxed{read 3}", "read 3"),
        ("think... \\boxed{a} then \\boxed{ b }", "b"),
        ("\\boxed{set {x, {y}}}", "set {x, {y}}"),
        ("\\boxed{a} and an unclosed \\boxed{b", None),
        ("\\boxed{outer \\boxed{inner}}", "outer \\boxed{inner}"),
        ("no box", None),
        ("", None),
        (None, None),
        (42, None),
        ("}}}\\boxed{ok}{{", "ok"),
    ],
)
def test_extract_boxed(text, command):
    assert extract_boxed(text) == command


@given(st.text(alphabet=st.characters(blacklist_characters="{}\\"), max_size=50))
def test_extract_boxed_round_trips_plain_commands(command):
    assert extract_boxed("reasoning \\boxed{%s} more text" % command) == command.strip()


@given(st.text(alphabet="{}\\boxed ab", max_size=200))
def test_extract_boxed_never_raises(text):
    result = extract_boxed(text)
    assert result is None or result in text


def test_parse_int_messages():
    assert parse_int("7", 0, 9) == 7
    with pytest.raises(InvalidAction, match="between 0 and 9"):
        parse_int("10", 0, 9)
    with pytest.raises(InvalidAction, match="integer"):
        parse_int("seven", 0, 9)


# -- complexity model ---------------------------------------------------------------------------
def test_line_spans_level_1_to_10_and_continues():
    assert line_value(4, 40, 1) == 4
    assert line_value(4, 40, 10) == 40
    assert line_value(4, 40, 19) == 76


@given(st.integers(1, 30), st.integers(0, 1000), st.integers(0, 50), st.integers(0, 50), st.integers(0, 5))
def test_noisy_params_stay_between_level_1_and_the_line(level, seed, first, tenth, spread):
    spec = {"p": (first, tenth)}
    value = sample_params(spec, {"p": spread}, level, random.Random(seed))["p"]
    center = line_value(first, tenth, level)
    assert min(first, center) - 0.5 <= value <= max(first, center) + 0.5
    assert isinstance(value, int)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3", True, None])
def test_invalid_complexity_is_rejected(bad):
    with pytest.raises(ValueError, match="complexity"):
        validate_complexity(bad)


# -- base class ---------------------------------------------------------------------------------
class Countdown(EvolvableEnv):
    """Say numbers from n down to 1; n grows with complexity."""

    complexity_params = {"n": (2, 20)}
    example_command = "say 1"

    def _new_episode(self):
        self.next = self.params["n"]
        self.secret = self.rng.random()
        return f"Count down from {self.next}: \\boxed{{say k}}."

    def _play(self, command):
        verb, args = command.split()[0], command.split()[1:]
        if verb != "say" or len(args) != 1:
            raise InvalidAction("use 'say k'")
        if parse_int(args[0], 0, 10**6) != self.next:
            return lose("wrong number")
        self.next -= 1
        return win("done") if self.next == 0 else Feedback("good")

    def _solve(self):
        return "\\boxed{say %d}" % self.next

    def turn_limit(self):
        return self.params["n"] + 2


def test_base_handles_format_errors_and_sets_success_only_at_the_end():
    env = Countdown(complexity=1)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("no box here")
    assert (reward, terminated, truncated) == (-0.1, False, False)
    assert "success" not in info and "Format error" in obs
    obs, reward, *_ = env.step("\\boxed{shout 2}")
    assert reward == -0.1 and "Invalid action" in obs
    *_, info = env.step(env.oracle_action())
    assert "success" not in info
    _, reward, terminated, _, info = env.step(env.oracle_action())
    assert terminated and reward == 1.0 and info["success"] is True


def test_turn_limit_truncates_with_failure():
    env = Countdown(complexity=1)
    env.reset(seed=0)
    outs = [env.step("x") for _ in range(env.max_turns)]
    assert outs[-1][3] is True and outs[-1][4]["success"] is False
    assert all(not o[3] for o in outs[:-1])


def test_reset_seed_controls_the_instance_and_global_random_is_untouched():
    env = Countdown(complexity=5)
    random.seed(123)
    expected = random.random()
    random.seed(123)
    env.reset(seed=1)
    first = env.secret
    env.reset(seed=1)
    assert env.secret == first
    assert random.random() == expected


def test_complexity_waits_for_reset_and_evolve_uses_thresholds():
    env = Countdown(complexity=1, enable_param_randomization=False)
    env.reset(seed=0)
    env.set_complexity(10)
    assert env.complexity == 1 and env.params["n"] == 2 and env.get_complexity() == 10
    env.reset(seed=0)
    assert env.complexity == 10 and env.params["n"] == 20
    levels = [env.evolve(0.9, up_steps=2) for _ in range(4)]
    assert levels == [10, 10, 10, 10]  # max_complexity=10 caps it
    levels = [env.evolve(0.0, down_steps=2) for _ in range(4)]
    assert levels == [10, 9, 9, 8]


def test_checker_passes_a_good_env_and_names_what_is_wrong_with_bad_ones():
    assert check_env(Countdown, levels=range(1, 6), seeds=3).passed

    class Unsolvable(Countdown):
        def _solve(self):
            return "\\boxed{say 0}" if self.complexity == 4 else super()._solve()

    class Crashy(Countdown):
        def _play(self, command):
            if len(command) > 1000:
                raise RuntimeError("boom")
            return super()._play(command)

    class Flaky(Countdown):
        def _new_episode(self):
            return super()._new_episode() + str(random.random())

    class Eager(Countdown):  # rebuilds the running episode at once
        def set_complexity(self, complexity):
            super().set_complexity(complexity)
            self.params["n"] = 99
            self._new_episode()

    cases = {Unsolvable: "solver", Crashy: "bad actions", Flaky: "determinism", Eager: "complexity timing"}
    for cls, failing in cases.items():
        report = check_env(cls, levels=range(1, 6), seeds=3)
        assert failing in [r.name for r in report.failures()], str(report)


POISONS = {
    "nan": (lambda out: (out[0], math.nan, *out[2:]), "the reward is nan"),
    "+inf on a win": (lambda out: (out[0], math.inf if out[1] == 1.0 else out[1], *out[2:]), "the reward is inf"),
    "-inf": (lambda out: (out[0], -math.inf, *out[2:]), "the reward is -inf"),
    "4,000 digits": (lambda out: (out[0], 10**4000, *out[2:]), "outside float range"),
    "a string": (lambda out: (out[0], "1.0", *out[2:]), "the reward is a str"),
    "a bool": (lambda out: (out[0], out[1] == 1.0, *out[2:]), "the reward is a bool"),
    "terminated 1": (lambda out: (*out[:2], int(out[2]), *out[3:]), "terminated and truncated must be bools"),
    "success 'no'": (lambda out: (*out[:4], {**out[4], "success": "no"}), "info['success'] is 'no', not a bool"),
    "a lone surrogate": (lambda out: (out[0] + "\ud800", *out[1:]), "not valid UTF-8 ('\\ud800'"),
}


@pytest.mark.parametrize("poison", POISONS)
def test_the_checker_refuses_values_a_trainer_cannot_use_from_a_game_in_this_process(poison):
    change, said = POISONS[poison]

    class Poisoned(Countdown):
        def step(self, action):
            return change(super().step(action))

    report = check_env(Poisoned, levels=range(1, 4), seeds=2)
    assert report.verdict == "FAIL" and said in " ".join(report.problems()), str(report)


def test_a_game_that_hangs_fails_once_and_the_checks_after_it_are_not_run():
    """Each check would wait out its whole time limit on a game that hangs: the first hang is the finding."""

    class Stuck(Countdown):
        def step(self, action):
            while True:
                pass

    report = check_env(Stuck, levels=[1, 2], seeds=1, hang_limit_s=0.3)
    failed = report.failures()
    assert [r.name for r in failed] == ["api"] and failed[0].detail.startswith("hang: no answer within")
    after = report.results[[r.name for r in report.results].index("api") + 1 :]
    assert after and all(r.passed is None and r.detail == "not run: the game hung in the api check" for r in after)
    assert report.verdict == "FAIL"


def test_a_success_that_is_not_a_bool_is_never_a_win():
    assert not episode_success({"success": "no"}, 0.0) and not episode_success({"success": 1}, 1.0)
    assert episode_success({"success": True}, 0.0) and not episode_success({"success": False}, 1.0)


# -- where complexity ends ----------------------------------------------------------------------
class Capped(Countdown):
    max_complexity = 3


def test_a_declared_limit_is_enforced_and_evolve_stops_there():
    with pytest.raises(ValueError, match="Capped's highest complexity, 3"):
        Capped(complexity=4)
    env = Capped(complexity=3)
    env.reset(seed=0)
    assert [env.evolve(1.0, up_steps=1) for _ in range(3)] == [3, 3, 3]
    assert Countdown(complexity=10**6).get_complexity() == 10**6  # no declared limit: any complexity is taken


def test_the_checker_stops_at_a_games_declared_limit():
    assert check_env(Capped, levels=range(1, 21), seeds=2).passed
    assert check_env(Capped, levels=[7, 9], seeds=2).passed  # only levels past the limit: the limit itself


def test_oracle_action_is_none_once_the_episode_is_over():
    env = Countdown(complexity=1)
    assert env.oracle_action() is None  # before the first reset there is no episode either
    env.reset(seed=0)
    while not env.done:
        env.step(env.oracle_action())
    assert env.oracle_action() is None


@pytest.mark.parametrize("name", list(CONTROLLERS))
def test_curricula_never_ask_past_a_games_highest_complexity(name):
    curriculum = make_curriculum(
        name,
        start=2,
        max_complexity=50,
        highest={"capped": 4},
        params={"ratchet": RatchetParams(ratchet_min_episodes=1), "threshold": Thresholds(up_steps=1)}.get(name),
    )
    capped, free = zip(*[(curriculum.update("capped", 1.0), curriculum.update("free", 1.0)) for _ in range(20)])
    assert max(capped) == 4 and max(free) > 4
    assert make_curriculum(name, start=9, highest={"capped": 4}).complexity("capped") == 4


def test_highest_complexity_of_an_env_id():
    assert highest_complexity("gymverse:LightsOut") == LightsOut.max_complexity
    gem.register("contract-test:Countdown", Countdown)
    assert highest_complexity("contract-test:Countdown") is None
    ids = ["gymverse:LightsOut", "contract-test:Countdown"]
    assert highest_complexities(ids) == {"gymverse:LightsOut": LightsOut.max_complexity}


def test_curriculum_state_from_before_the_rename_still_loads():
    curriculum = make_curriculum("threshold")
    curriculum.load_state_dict({"a": {"level": 3, "up_streak": 1, "down_streak": 0, "successes": 0.0, "episodes": 0}})
    assert curriculum.complexity("a") == 3
    assert curriculum.state_dict()["a"]["complexity"] == 3


def test_the_env_contract_imports_nothing_from_the_layers_above_it():
    imported = re.compile(r"^\s*(?:from|import) (gymverse[\w.]*)", re.M)
    for path in Path(gymverse.env.__file__).parent.glob("*.py"):
        for module in imported.findall(path.read_text()):
            assert module.startswith(("gymverse.env", "gymverse.errors")), f"{path.name} imports {module}"


# -- GEM integration ----------------------------------------------------------------------------
def test_builtin_games_work_through_gem_make_vec_and_wrappers():
    from gem.wrappers.wrapper_factory import get_wrapper_fns

    env_id = "gymverse:PeakFinder"
    vec = gem.make_vec([env_id] * 2, wrappers=get_wrapper_fns("concat"), complexity=4)
    observations, infos = vec.reset(seed=3)
    assert len(observations) == 2 and all("Reads used" in o for o in observations)
    gymverse.set_env_complexity(vec, 7)
    assert [e.unwrapped.get_complexity() for e in vec.envs] == [7, 7]
    vec.reset(seed=3)
    assert [e.unwrapped.complexity for e in vec.envs] == [7, 7]


@pytest.mark.parametrize("env_id", gymverse.env.registered_ids("gymverse"))
def test_under_gems_concat_wrapper_every_prompt_shows_the_status_once(env_id):
    """The status is info["suffix"], which GEM's wrappers append; no game also writes it into its observation."""
    from gem.wrappers.wrapper_factory import get_wrapper_fns

    env = gem.make(env_id, complexity=3)
    for wrap in get_wrapper_fns("concat"):
        env = wrap(env)
    rng = random.Random(0)
    prompt, info = env.reset(seed=1)
    for _ in range(12):
        sentences = [s for s in re.split(r"(?<=\.) ", info["suffix"]) if len(s.split()) > 1]
        assert prompt.endswith(info["suffix"]) and all(prompt.count(s) == 1 for s in sentences), (prompt, sentences)
        game = env.unwrapped
        reply = game.oracle_action() if rng.random() < 0.7 else game.random_action(rng)
        prompt, _, terminated, truncated, info = env.step(reply)
        if terminated or truncated:
            break


def test_split_command_reads_verb_and_arguments():
    assert split_command("Move 3,4") == ("move", ("3", "4"))
    assert split_command("  ") == ("", ())


def test_command_table_parses_each_short_valid_command_once():
    calls = []

    def parse(command: str, limit: int) -> int:
        calls.append(command)
        return parse_int(command.strip(), 0, limit)

    table = command_table(parse, 9)
    long_command = " " * 100 + "7"
    for command in ["7", "7", long_command, long_command]:
        assert table[command] == 7
    assert calls == ["7", long_command, long_command]  # a long command is parsed afresh: the table stays small
    assert command_table(parse, 9) is table  # every episode of the same sizes shares it
    for _ in range(2):
        with pytest.raises(InvalidAction, match="between 0 and 5"):
            command_table(parse, 5)["7"]  # other sizes, another table
    assert calls[-2:] == ["7", "7"]  # an error is never kept
    for n in range(table.SIZE + 10):  # a flood of distinct replies: the table starts afresh when full
        with pytest.raises(InvalidAction):
            table[str(10 + n)]
        table[str(n % 10)]
    assert len(table) <= table.SIZE


@pytest.mark.parametrize("size, k", [(6, 2), (6, 5)])  # drawn one at a time, and through rng.sample
def test_distinct_draws_gives_every_ordered_pick_alike(size, k):
    rng = random.Random(0)
    counts = collections.Counter(tuple(distinct_draws(rng, "abcdefgh"[:size], k)) for _ in range(20_000))
    orders = math.perm(size, k)
    assert len(counts) == orders and all(len(set(pick)) == k for pick in counts)
    expected = 20_000 / orders
    chi_square = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi_square < orders + 5 * math.sqrt(2 * orders)  # far in the tail of chi2(orders - 1)


def test_distinct_draws_refuses_more_than_the_population():
    with pytest.raises(ValueError):
        distinct_draws(random.Random(0), range(3), 4)
