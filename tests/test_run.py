"""The run core every trainer stands on: configuration, one step's plan, the curriculum driver, run files."""

import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gymverse  # noqa: F401  (registers the built-in games)
from gymverse import register_env_dir
from gymverse.curriculum import (
    AlphaCurriculum,
    AlphaParams,
    CurriculumDriver,
    RatchetCurriculum,
    RatchetParams,
    ThresholdCurriculum,
    UniformCurriculum,
    apply_levels,
    make_controller,
)
from gymverse.env import get_env_complexity
from gymverse.env.evolve import Thresholds
from gymverse.env.groups import make_env_group
from gymverse.episodes import Episode, Turn
from gymverse.errors import BadInput
from gymverse.perpo import normalize_per_env
from gymverse.run.checkpoints import STATE_FILE, resolve_run_dir, resume_point, save_run_state
from gymverse.run.config import RunConfig, eval_settings, validate_run_config
from gymverse.run.env_table import TALLY_COLUMNS, EnvTable, advantages_of, per_env_advantages
from gymverse.run.files import RunFiles
from gymverse.run.plan import (
    group_seeds,
    plan_step,
    play_until,
    step_env_ids,
    take,
    trainable,
    turn_samples,
)
from gymverse.seeds import actor_envs_seed

ENVS = "gymverse:GridCourier|gymverse:MailSorter"


def make_episode(env_id, rewards, ended_by="terminated", lengths=None, success=None, complexity=1):
    lengths = lengths or [2] * len(rewards)
    turns = [Turn("p", "r", [1], [5] * n, [-0.5] * n, r, False) for r, n in zip(rewards, lengths)]
    success = rewards[-1] == 1.0 if success is None and rewards else bool(success)
    return Episode(
        env_id, complexity, turns, success=success, episode_return=sum(rewards), length=len(turns), ended_by=ended_by
    )


# -- configuration ---------------------------------------------------------------------------------
def test_the_chosen_controller_takes_its_flags():
    config = RunConfig(curriculum="ratchet", train_difficulty=2, ratchet_min_episodes=8)
    validate_run_config(config)
    curriculum = make_controller(config, config.seed, {})
    assert isinstance(curriculum, RatchetCurriculum)
    assert (curriculum.start, curriculum.params.ratchet_min_episodes, curriculum.max_complexity) == (2, 8, 10)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"env_id": " | "}, "--env_id is empty"),
        ({"gamma": 1.5}, "--gamma"),
        ({"train_difficulty": 5, "max_difficulty": 3}, "--max_difficulty"),
        ({"eval_difficulty": "1|x"}, "--eval_difficulty"),
        ({"eval_wrappers": "concat|concat|concat"}, "--eval_wrappers has 3 values"),
        ({"up_threshold": 1.5}, "--up_threshold must lie in \\[0, 1\\]"),
        ({"curriculum": "alpha", "k_min": -0.1}, "--k_min"),
        ({"curriculum": "ratchet", "ratchet_min_episodes": 0}, "--ratchet_min_episodes"),
    ],
)
def test_bad_run_config_values_name_their_flag(change, message):
    with pytest.raises(BadInput, match=message):
        validate_run_config(RunConfig(**change))


def test_eval_settings_default_to_the_training_ones():
    config = RunConfig(env_id="a|b", wrappers="concat", prompt_template="qwen3_game")
    assert eval_settings(config) == {"a": ("concat", "qwen3_game"), "b": ("concat", "qwen3_game")}
    config.eval_envs, config.eval_wrappers, config.eval_prompt_templates = "x|y", "none|concat", "no"
    assert eval_settings(config) == {"x": ("", "no"), "y": ("concat", "no")}


# -- curricula and the driver ----------------------------------------------------------------------
def test_threshold_curriculum_moves_after_three_batches_in_a_row():
    c = ThresholdCurriculum(start=2, max_complexity=4)
    assert [c.update("e", r) for r in (0.9, 0.9, 0.5, 0.9, 0.9, 0.9)] == [2, 2, 2, 2, 2, 3]
    assert [c.update("e", r) for r in (0.0, 0.1, 0.05)] == [3, 3, 2]
    assert [c.update("e", 1.0) for _ in range(9)][-1] == 4  # capped at max_complexity
    assert [ThresholdCurriculum().update("e", 0.0) for _ in range(5)] == [1] * 5  # never below min


def test_alpha_curriculum_keeps_success_near_alpha_with_a_dead_band():
    c = AlphaCurriculum(AlphaParams(alpha=0.5, k_min=0.1), start=3)
    assert [c.update("e", r) for r in (0.55, 0.45, 0.9, 0.9, 0.2, 0.61)] == [3, 3, 4, 5, 4, 5]


def test_ratchet_curriculum_only_goes_up_after_enough_accurate_episodes():
    c = RatchetCurriculum(RatchetParams(ratchet_accuracy=0.9, ratchet_min_episodes=8))
    assert c.update("e", 1.0, 4) == 1  # too few episodes yet
    assert c.update("e", 1.0, 4) == 2
    assert c.update("e", 0.0, 100) == 2  # never down
    assert c.update("e", 1.0, 100) == 2  # the failures at this level still count
    c.load_state_dict(c.state_dict())
    assert c.complexity("e") == 2


def test_uniform_schedule_ignores_success_covers_its_range_and_replays_on_resume():
    def draws(curriculum, env_id, rates):
        return [curriculum.update(env_id, r) for r in rates]

    losing, winning = UniformCurriculum(seed=3, max_complexity=5), UniformCurriculum(seed=3, max_complexity=5)
    assert draws(losing, "e", [0.0] * 60) == draws(winning, "e", [1.0] * 60)
    assert set(draws(losing, "e", [0.5] * 60)) == {1, 2, 3, 4, 5}
    assert draws(UniformCurriculum(seed=3), "f", [0.5] * 20) != draws(UniformCurriculum(seed=3), "e", [0.5] * 20)
    resumed = UniformCurriculum(seed=3, max_complexity=5)
    resumed.load_state_dict(losing.state_dict())
    assert draws(resumed, "e", [0.5] * 10) == draws(losing, "e", [0.5] * 10)
    config = RunConfig(curriculum="uniform", seed=3, max_difficulty=5)
    assert make_controller(config, config.seed, {}) == UniformCurriculum(seed=3, max_complexity=5)


def evolve_config(**overrides) -> RunConfig:
    return RunConfig(env_id="a|b", evolve=True, up_steps=2, down_steps=2, **overrides)


def tally_of(table: EnvTable, **rates: tuple[int, int]) -> np.ndarray:
    """rates: env -> (episodes, successes)."""
    tally = np.zeros((len(table.env_ids), len(TALLY_COLUMNS)))
    for env_id, (episodes, successes) in rates.items():
        tally[table.row[env_id], :2] = episodes, successes
    return tally


def rates_of(**rates: tuple[int, int]) -> dict[str, tuple[float, int]]:
    """What ``EnvTable.success_rates`` makes of a tally. rates: env -> (episodes, successes)."""
    table = EnvTable(list(rates))
    return table.success_rates(tally_of(table, **rates))


def test_the_driver_moves_each_env_on_the_summed_tally_of_all_actors():
    driver = CurriculumDriver.from_config(["a", "b"], evolve_config(), 0)
    table = EnvTable(driver.env_ids)
    actor0 = tally_of(table, a=(4, 4), b=(4, 0))
    actor1 = tally_of(table, a=(4, 3), b=(4, 1))
    assert driver.advance(table.success_rates(actor0 + actor1)) == {"a": 1, "b": 1}  # a: 7/8 >= 0.8 once
    assert driver.advance(table.success_rates(actor0 + actor1)) == {"a": 2, "b": 1}  # twice: up; b at the floor
    # An env no actor played this step keeps its streak and level.
    assert driver.advance(rates_of(b=(4, 4))) == {"a": 2, "b": 1}
    assert driver.advance(rates_of(b=(4, 4))) == {"a": 2, "b": 2}


def test_the_driver_without_evolve_keeps_the_train_difficulty():
    driver = CurriculumDriver.from_config(
        ["a", "b"], RunConfig(env_id="a|b", evolve=False, train_difficulty=3, max_difficulty=5), 0
    )
    assert driver.advance(rates_of(a=(10, 10))) == {"a": 3, "b": 3}
    assert driver.state_dict() == {}


def test_the_driver_state_survives_a_restart():
    first = CurriculumDriver.from_config(["a", "b"], evolve_config(), 0)
    first.advance(rates_of(a=(5, 5)))
    second = CurriculumDriver.from_config(["a", "b"], evolve_config(), 0)
    second.load_state_dict(json.loads(json.dumps(first.state_dict())))  # as run_state.json carries it
    assert second.advance(rates_of(a=(5, 5)))["a"] == 2  # the streak carried over


def test_levels_cross_a_broadcast_as_an_array():
    driver = CurriculumDriver.from_config(["a", "b", "c"], RunConfig(), 0)
    levels = {"a": 3, "b": 1, "c": 12}
    array = driver.levels_to_array(levels)
    assert array.shape == (3,)
    assert driver.levels_from_array(array) == levels


def test_driven_levels_reach_wrapped_vector_envs_and_unplayed_envs_keep_theirs():
    groups = {e: make_env_group(e, 2, "concat", complexity=1) for e in ENVS.split("|")}
    driver = CurriculumDriver(list(groups), ThresholdCurriculum(Thresholds(up_threshold=0.5, up_steps=1)), start=1)
    played = [make_episode("gymverse:GridCourier", [1.0]), make_episode("gymverse:GridCourier", [1.0])]
    table = EnvTable(list(groups))
    levels = driver.advance(table.success_rates(table.tally(played)))
    assert levels == {"gymverse:GridCourier": 2, "gymverse:MailSorter": 1}
    apply_levels(groups, levels)
    groups["gymverse:GridCourier"].reset(seed=0)
    assert [env.unwrapped.complexity for env in groups["gymverse:GridCourier"].envs] == [2, 2]
    assert get_env_complexity(groups["gymverse:MailSorter"].envs[0]) == 1


CONSTRUCTOR_ONLY = '''
import gem

class SizedCounter(gem.Env):
    """A third-party env that reads its complexity once, in the constructor."""
    def __init__(self, complexity=1, **_):
        self.size = complexity
    def reset(self, seed=None):
        return f"size {self.size}", {}
    def step(self, action):
        return "done", 1.0, True, False, {"success": True}
'''


def test_driven_levels_rebuild_third_party_envs_that_read_complexity_only_in_their_constructor(tmp_path):
    (tmp_path / "sized.py").write_text(CONSTRUCTOR_ONLY)
    assert register_env_dir(tmp_path, prefix="t2third").registered == ["t2third:SizedCounter"]
    group = make_env_group("t2third:SizedCounter", 2, complexity=1)
    apply_levels({"x": group}, {"x": 2})
    observations, _ = group.reset(seed=0)
    assert observations == ["size 2", "size 2"]


# -- per-environment statistics --------------------------------------------------------------------
def test_env_table_rows_follow_the_training_order_whatever_was_played():
    table = EnvTable(["a", "b", "c"])
    moments = table.moments([1.0, 3.0], ["c", "c"])
    assert moments.shape == (3, 3)
    assert moments[:2].tolist() == [[0, 0, 0], [0, 0, 0]]
    assert moments[2].tolist() == [2, 4.0, 10.0]
    assert table.moments_dict(moments) == {"c": (2, 4.0, 10.0)}
    with pytest.raises(KeyError, match="not one of the training environments"):
        table.moments([1.0], ["z"])
    with pytest.raises(ValueError, match="unique"):
        EnvTable(["a", "a"])


def test_advantages_use_each_environments_moments_summed_over_ranks():
    table = EnvTable(["easy", "hard"])
    rank0 = ([1.0, 1.0, 0.0, 0.2], ["easy", "easy", "easy", "hard"])
    rank1 = ([1.0, 0.0, 0.0, 0.0], ["easy", "hard", "hard", "hard"])

    def all_reduce_from(other):
        return lambda moments: moments + table.moments(*other)

    adv0 = per_env_advantages(*rank0, table, all_reduce_from(rank1))
    adv1 = per_env_advantages(*rank1, table, all_reduce_from(rank0))
    whole_batch = normalize_per_env(rank0[0] + rank1[0], rank0[1] + rank1[1])
    np.testing.assert_allclose(np.concatenate([adv0, adv1]), whole_batch)
    # Not one global mean: normalizing the batch as a single group gives other values.
    global_norm = normalize_per_env(rank0[0] + rank1[0], ["all"] * 8)
    assert not np.allclose(whole_batch, global_norm)
    # Nor each rank on its own.
    assert not np.allclose(adv0, normalize_per_env(*rank0))


def test_advantages_without_norm_return_are_the_returns():
    table = EnvTable(["a"])
    reduce_calls = []
    out = per_env_advantages([0.5, 2.0], ["a", "a"], table, reduce_calls.append, normalize=False)
    assert out.tolist() == [0.5, 2.0]
    assert reduce_calls == []


def test_advantages_are_normalized_within_each_environment_of_a_mixed_batch():
    batch = [make_episode("a", [0.0, 1.0]), make_episode("b", [5.0]), make_episode("b", [7.0])]
    samples = turn_samples(batch, 1.0)
    returns, ids = [s.ret for s in samples], [s.env_id for s in samples]
    adv = per_env_advantages(returns, ids, EnvTable(["a", "b"]))
    assert adv.tolist() == pytest.approx([0.0, 0.0, -1.0, 1.0], abs=1e-6)  # "a": returns 1, 1; "b": 5, 7


def test_the_three_normalization_scopes_share_a_mean_over_env_batch_and_group():
    episodes = [make_episode("a", [0.0]), make_episode("a", [10.0]), make_episode("b", [0.0]), make_episode("b", [1.0])]
    for copy, episode in enumerate(episodes):
        episode.copy = copy % 2 * 2 + copy // 2  # a: copies 0 and 2, b: copies 1 and 3
    samples, table = turn_samples(episodes, 1.0), EnvTable(["a", "b"])
    per_env = advantages_of(samples, table, scope="env")
    assert per_env == pytest.approx([-1, 1, -1, 1], abs=1e-6)  # each game's own scale
    batch = advantages_of(samples, table, scope="batch")
    assert batch[3] - batch[2] < 0.3 < per_env[3] - per_env[2]  # b's win is lost beside a's larger returns
    # groups of two copies: {a's copy 0, b's copy 1} is not a group, since a group is one game's
    group = advantages_of(samples, table, scope="group", group_size=2)
    assert group == pytest.approx([0, 0, 0, 0], abs=1e-6)  # every (game, block) holds one episode here
    assert advantages_of(samples, table, scope="group", group_size=4) == pytest.approx(per_env, abs=1e-6)
    assert advantages_of(samples, table, normalize=False, scope="batch") == [0.0, 10.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="env, batch or group"):
        advantages_of(samples, table, scope="rank")


def test_copies_in_one_block_of_group_size_share_their_reset_seed():
    assert group_seeds(100, 6, 1) == 100  # copy i gets 100 + i
    assert group_seeds(100, 6, 3) == [100, 100, 100, 101, 101, 101]


def test_group_flags_are_checked():
    from gymverse.train.args import TrainArgs, validate_train_args

    validate_train_args(TrainArgs(norm_scope="group", group_size=4, num_env=8))
    with pytest.raises(BadInput, match="--group_size of 2 or more"):
        validate_train_args(TrainArgs(norm_scope="group"))
    with pytest.raises(BadInput, match=r"--group_size must lie in \[1, --num_env \(8\)\]"):
        validate_train_args(TrainArgs(group_size=9, num_env=8))


# -- one step's plan -------------------------------------------------------------------------------
def test_round_robin_plays_one_env_per_step_and_mixed_all():
    ids = ["a", "b", "c"]
    assert [step_env_ids(ids, s, "round_robin") for s in (1, 2, 3, 4)] == [["a"], ["b"], ["c"], ["a"]]
    assert step_env_ids(ids, 7, "mixed") == ids
    with pytest.raises(ValueError, match="round_robin or mixed"):
        step_env_ids(ids, 1, "random")


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 8), st.integers(1, 5), st.integers(1, 16))
def test_every_game_copy_on_every_actor_gets_its_own_seed(seed, actors, groups, num_env):
    seeds = [
        actor_envs_seed(seed, a, g, groups, num_env) + i
        for a in range(actors)
        for g in range(groups)
        for i in range(num_env)
    ]
    assert len(set(seeds)) == len(seeds)


def test_turn_samples_carry_discounted_returns_and_skip_overflowed_episodes():
    kept = make_episode("a", [0.0, -0.1, 1.0])
    dropped = make_episode("a", [0.0], ended_by="context_overflow")
    samples = turn_samples([kept, dropped], gamma=0.5)
    assert [s.ret for s in samples] == pytest.approx([-0.1 * 0.5 + 0.25, -0.1 + 0.5, 1.0])
    assert samples[0].turn is kept.turns[0] and samples[0].env_id == "a"
    assert len(turn_samples([kept, dropped], 0.5, keep_generation_failed=True)) == 4
    assert turn_samples([make_episode("a", [1.0], lengths=[0])], 1.0) == []  # nothing to train on


def test_cut_replies_take_the_non_stop_reward_and_penalty():
    cut = Turn("p", "r", [1], [5, 5], [-0.5, -0.5], -0.1, True)  # cut at the length limit
    ep = Episode("a", 1, [cut, Turn("p", "r", [1], [5], [-0.5], 1.0, False)], True, 0.9, 2)
    assert [s.ret for s in turn_samples([ep], 1.0)] == pytest.approx([0.9, 1.0])
    assert [s.ret for s in turn_samples([ep], 1.0, non_stop_penalty=-0.5)] == pytest.approx([0.4, 1.0])
    assert [s.ret for s in turn_samples([ep], 1.0, non_stop_fixed_reward=-1.0)] == pytest.approx([0.0, 1.0])
    both = turn_samples([ep], 0.5, non_stop_penalty=-0.5, non_stop_fixed_reward=0.0)
    assert [s.ret for s in both] == pytest.approx([-0.5 + 0.5, 1.0])


def test_trainable_drops_context_overflow_unless_kept():
    overflow = make_episode("g", [0.0], ended_by="context_overflow")
    assert not trainable(overflow) and trainable(overflow, keep_generation_failed=True)
    assert trainable(make_episode("g", [0.0], ended_by="truncated"))


def test_play_until_plays_each_env_of_the_step_until_its_share_of_trainable_turns():
    calls = []

    def play(env_id, call):
        calls.append((env_id, call))
        return [make_episode(env_id, [0.0, 1.0]), make_episode(env_id, [0.0] * 5, ended_by="context_overflow")]

    played = play_until(plan_step(["a", "b"], 1, "mixed", turns=10), play)  # 5 turns each, 2 trainable per call
    assert calls == [("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1), ("b", 2)]
    assert list(played) == ["a", "b"] and len(played["a"]) == 6
    calls.clear()
    play_until(plan_step(["a", "b"], 2, "round_robin", turns=5, keep_generation_failed=True), play)
    assert calls == [("b", 0)]  # overflowed episodes count when kept: 7 turns
    calls.clear()
    overflowing = play_until(
        plan_step(["a"], 1, "mixed", 4),
        lambda e, c: calls.append(c) or [make_episode(e, [0.0] * 3, ended_by="context_overflow")],
    )
    assert calls == [0] and len(overflowing["a"]) == 1  # nothing to learn from: the next call would add nothing either
    calls.clear()
    replyless = play_until(
        plan_step(["a"], 1, "mixed", 1), lambda e, c: calls.append(c) or [make_episode(e, [0.0], lengths=[0])]
    )
    assert calls == [0] and len(replyless["a"]) == 1


def test_take_draws_distinct_samples_in_order():
    records = [{"i": i} for i in range(10)]
    chosen = take(records, 4, random.Random(0))
    assert len(chosen) == 4 and len({r["i"] for r in chosen}) == 4
    assert chosen == sorted(chosen, key=lambda r: r["i"])
    assert take(records, 11, random.Random(0)) == records


# -- run folder ------------------------------------------------------------------------------------
def test_run_folders_are_new_unless_resuming(tmp_path):
    first = resolve_run_dir(tmp_path, "run", resume=False)
    second = resolve_run_dir(tmp_path, "run", resume=False)
    assert first.name == "run" and second.name.startswith("run_") and second != first
    (second / STATE_FILE).write_bytes(b"")
    assert resolve_run_dir(tmp_path, "run", resume=True) == second
    with pytest.raises(FileNotFoundError, match="nothing to resume"):
        resolve_run_dir(tmp_path, "other", resume=True)


def test_an_oat_checkpoint_carries_the_run_state_a_resume_continues(tmp_path):
    checkpoints = tmp_path / "run_0101T10:00:00" / "checkpoints"
    for step, queries in ((4, 256), (8, 512)):
        (checkpoints / f"step_{step:05d}").mkdir(parents=True)
        save_run_state(checkpoints / f"step_{step:05d}", step, queries, {"a": {"level": step // 4}})
    (checkpoints / "latest").write_text("step_00008")  # DeepSpeed's pointer to the newest tag
    point = resume_point(checkpoints)
    assert (point.run_dir, point.step, point.query_step) == (checkpoints.parent, 8, 512)
    assert point.curriculum == {"a": {"level": 2}}  # the curriculum saved with these weights, not a later one
    assert resume_point(checkpoints, "step_00004").step == 4
    (checkpoints / "step_00012").mkdir()
    with pytest.raises(BadInput, match="no run_state.json beside the checkpoint"):
        resume_point(checkpoints, "step_00012")
    with pytest.raises(BadInput, match="holds no checkpoint"):
        resume_point(tmp_path)


def test_a_resumed_run_drops_the_log_lines_of_steps_it_plays_again(tmp_path):
    files = RunFiles(tmp_path, actor_id=1)
    for step in (1, 2, 3):
        files.log_episodes(step, [make_episode("a", [1.0])])
        files.log_env_metrics(step, "a", [make_episode("a", [1.0])], complexity=1)
    files.keep_through(2)
    assert [r["step"] for r in files.read("episode_details.jsonl")] == [1, 2]
    assert [r["step"] for r in files.read("actor_env_metrics.jsonl")] == [1, 2]
    assert not (tmp_path / "eval_env_metrics.jsonl").exists()


def test_run_files_records_and_truncation(tmp_path):
    files = RunFiles(tmp_path, actor_id=3)
    eps = [make_episode("a", [0.0, 1.0]), make_episode("a", [0.0])]
    record = files.log_env_metrics(1, "a", eps, complexity=2, next_complexity=3)
    assert record["mean_episode_success"] == 0.5 and record["mean_episode_len"] == 1.5 and record["actor_id"] == 3
    offsets = files.offsets()
    files.log_episodes(1, eps)
    files.log_env_metrics(2, "a", eps, complexity=3)
    files.truncate(offsets)
    assert [r["step"] for r in files.read("actor_env_metrics.jsonl")] == [1]
    assert files.read("episode_details.jsonl") == []
    files.log_eval(4, "gymverse:X", {1: eps, 3: eps[:1]})
    assert [(r["complexity"], r["accuracy"]) for r in files.read("eval_env_metrics.jsonl")] == [(1, 0.5), (3, 1.0)]
    assert len(json.loads((tmp_path / "eval_results" / "4_gymverse:X.json").read_text())) == 3


def test_an_online_evaluation_plays_alike_whatever_the_policy_drew_before(tmp_path):
    from gymverse.policy import EpsilonOraclePolicy
    from gymverse.run.online_eval import online_eval

    config = RunConfig(env_id="gymverse:GridCourier", eval_n=6, eval_difficulty="2|4")
    agent = EpsilonOraclePolicy(0.5, seed=0)
    files = RunFiles(tmp_path)
    first = online_eval(agent, config, 3, files, step=1)
    agent.rng.random()  # training draws from the policy's own stream between two evaluations
    second = online_eval(agent, config, 3, files, step=2)
    assert [{**r, "step": 0} for r in first] == [{**r, "step": 0} for r in second]
    assert 0 < first[1]["accuracy"] < 1  # the random moves decide games
    played = [(tmp_path / "eval_results" / f"{step}_gymverse:GridCourier.json").read_text() for step in (1, 2)]
    assert played[0] == played[1]
