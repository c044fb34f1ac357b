"""The logic the OAT actor and learner use, run without OAT (which needs GPUs and Python 3.10)."""

import json
import multiprocessing
import random
import socket
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gymverse  # noqa: F401  (registers the built-in games)
from gymverse.oat.actor_policy import ActorPolicy
from gymverse.oat.curriculum_sync import CurriculumOwner, levels_from_array, levels_to_array
from gymverse.oat.env_table import TALLY_COLUMNS, EnvTable, per_env_advantages
from gymverse.oat.eval_plan import eval_metrics, eval_rounds, metric_keys
from gymverse.oat.ledger import ActorLedger
from gymverse.oat.schedule import env_group_seed, split_evenly, step_env_ids
from gymverse.oat.settings import eval_settings, learner_world_size, prepare_args, prompt_slots
from gymverse.oat.transitions import (
    STEP_INFO_KEYS, TRANSITION_FIELDS, play_until, step_info, take, trainable, turn_records,
)
from gymverse.perpo import normalize_per_env
from gymverse.policy.tiny import build_tiny_tokenizer
from gymverse.rollout import Episode, Turn, collect_episodes, make_env_group
from gymverse.errors import BadInput
from gymverse.train.args import EnvArgs
from gymverse.train.run_files import RunFiles

ENV = "gymverse:PeakFinder"


def turn(reward: float, n_tokens: int = 3, invalid: bool = False) -> Turn:
    return Turn(prompt="p", response="r", prompt_ids=[1, 2], response_ids=list(range(n_tokens)),
                logprobs=[-0.5] * n_tokens, reward=reward, invalid=invalid)


def episode(env_id: str, rewards: list[float], success: bool = False, complexity: int = 1,
            ended_by: str = "terminated") -> Episode:
    turns = [turn(r) for r in rewards]
    return Episode(env_id, complexity, turns, success, float(sum(rewards)), len(turns), ended_by)


# ---------------------------------------------------------------- per-environment advantages

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


def _gloo_rank(rank: int, port: int, values, env_ids, out_path: str) -> None:
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    table = EnvTable(["easy", "hard"])

    def all_reduce(array):
        tensor = torch.from_numpy(array)
        dist.all_reduce(tensor)
        return tensor.numpy()

    advantages = per_env_advantages(values, env_ids, table, all_reduce)
    dist.destroy_process_group()
    with open(out_path, "w") as file:
        json.dump(advantages.tolist(), file)


def test_advantages_with_a_real_all_reduce_across_two_processes(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    batches = [([1.0, 0.0, 0.3], ["easy", "easy", "hard"]), ([1.0, 0.9, 0.1], ["easy", "hard", "hard"])]
    fork = multiprocessing.get_context("fork")  # fast: the children need not import anything again
    processes = [fork.Process(target=_gloo_rank, args=(r, port, *batches[r], str(tmp_path / f"{r}.json")))
                 for r in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    got = sum((json.loads((tmp_path / f"{r}.json").read_text()) for r in range(2)), [])
    expected = normalize_per_env(batches[0][0] + batches[1][0], batches[0][1] + batches[1][1])
    np.testing.assert_allclose(got, expected)


# ---------------------------------------------------------------- curriculum

def evolve_args(**overrides) -> EnvArgs:
    return EnvArgs(env_id="a|b", evolve=True, up_steps=2, down_steps=2, **overrides)


def tally_of(table: EnvTable, **rates: tuple[int, int]) -> np.ndarray:
    """rates: env -> (episodes, successes)."""
    tally = np.zeros((len(table.env_ids), len(TALLY_COLUMNS)))
    for env_id, (episodes, successes) in rates.items():
        tally[table.row[env_id], :2] = episodes, successes
    return tally


def test_curriculum_owner_moves_each_env_on_the_summed_tally_of_all_actors():
    table = EnvTable(["a", "b"])
    owner = CurriculumOwner.from_args(table, evolve_args())
    actor0 = tally_of(table, a=(4, 4), b=(4, 0))
    actor1 = tally_of(table, a=(4, 3), b=(4, 1))
    assert owner.advance(actor0 + actor1) == {"a": 1, "b": 1}  # a: 7/8 >= 0.8 once
    assert owner.advance(actor0 + actor1) == {"a": 2, "b": 1}  # twice: up; b stays at the floor
    # An env no actor played this step keeps its streak and level.
    assert owner.advance(tally_of(table, b=(4, 4))) == {"a": 2, "b": 1}
    assert owner.advance(tally_of(table, b=(4, 4))) == {"a": 2, "b": 2}


def test_curriculum_owner_without_evolve_keeps_the_train_difficulty(tmp_path):
    table = EnvTable(["a", "b"])
    owner = CurriculumOwner.from_args(table, EnvArgs(env_id="a|b", train_difficulty=3, max_difficulty=5))
    assert owner.advance(tally_of(table, a=(10, 10))) == {"a": 3, "b": 3}
    owner.save(tmp_path)
    assert not (tmp_path / "curriculum_state.json").exists()
    assert owner.load(tmp_path) is False


def test_curriculum_state_survives_a_restart(tmp_path):
    table = EnvTable(["a", "b"])
    first = CurriculumOwner.from_args(table, evolve_args())
    first.advance(tally_of(table, a=(5, 5)))
    first.save(tmp_path)
    second = CurriculumOwner.from_args(table, evolve_args())
    assert second.load(tmp_path)
    assert second.advance(tally_of(table, a=(5, 5)))["a"] == 2  # the streak carried over


def test_levels_cross_a_broadcast_as_an_array():
    table = EnvTable(["a", "b", "c"])
    levels = {"a": 3, "b": 1, "c": 12}
    array = levels_to_array(table, levels)
    assert array.shape == (3,)
    assert levels_from_array(table, array) == levels


# ---------------------------------------------------------------- turn records

def test_turn_records_put_the_discounted_return_on_the_last_token():
    records = turn_records(episode("g", [0.0, -0.1, 1.0]), gamma=0.5)
    assert [r["rewards"] for r in records] == [
        [0.0, 0.0, 0.5 * -0.1 + 0.25],
        [0.0, 0.0, -0.1 + 0.5],
        [0.0, 0.0, 1.0],
    ]
    assert all(set(r) == {*TRANSITION_FIELDS, "env_id"} and r["env_id"] == "g" for r in records)
    assert records[0]["response_logprobs"] == [-0.5] * 3 and records[0]["prompt_ids"] == [1, 2]


def test_turn_records_skip_empty_replies_and_mask_cut_ones_on_request():
    ep = Episode("g", 1, [turn(0.0, n_tokens=0), turn(1.0, invalid=True)], True, 1.0, 2)
    assert len(turn_records(ep, 1.0)) == 1
    assert turn_records(ep, 1.0)[0]["loss_mask"] is True
    assert turn_records(ep, 1.0, ignore_no_eos=True)[0]["loss_mask"] is False


def test_play_until_cycles_the_envs_until_enough_trainable_turns():
    calls = []

    def play(env_id):
        calls.append(env_id)
        return [episode(env_id, [0.0, 1.0]), episode(env_id, [0.0] * 5, ended_by="context_overflow")]

    episodes = play_until(["a", "b"], play, min_turns=5)
    assert calls == ["a", "b", "a"]  # 2 trainable turns per call
    assert len(episodes) == 6
    assert play_until(["a", "b"], play, min_turns=5, keep_generation_failed=True) and calls[-2:] == ["a", "b"]
    with pytest.raises(RuntimeError, match="fewer than the 1 a step needs"):
        play_until(["a"], lambda e: [episode(e, [], ended_by="truncated")], min_turns=1, max_rounds=3)


def test_trainable_drops_context_overflow_unless_kept():
    overflow = episode("g", [0.0], ended_by="context_overflow")
    assert not trainable(overflow) and trainable(overflow, keep_generation_failed=True)
    assert trainable(episode("g", [0.0], ended_by="truncated"))


def test_take_returns_exactly_count_distinct_records():
    records = [{"i": i} for i in range(10)]
    chosen = take(records, 4, random.Random(0))
    assert len(chosen) == 4 and len({r["i"] for r in chosen}) == 4
    assert chosen == sorted(chosen, key=lambda r: r["i"])
    with pytest.raises(ValueError, match="need 11 turns"):
        take(records, 11, random.Random(0))


def test_step_info_has_the_same_keys_whatever_was_played():
    assert tuple(step_info([])) == STEP_INFO_KEYS
    info = step_info([episode("a", [0.0, 1.0], success=True, complexity=3),
                      episode("b", [0.0], complexity=1, ended_by="context_overflow")])
    assert tuple(info) == STEP_INFO_KEYS
    assert info["actor/mean_episode_success"] == 0.5
    assert info["actor/mean_complexity"] == 2.0
    assert info["actor/context_overflow_rate"] == 0.5
    assert info["actor/mean_episode_len"] == 1.5


# ---------------------------------------------------------------- schedule and evaluation plan

def test_round_robin_plays_one_env_per_step_and_mixed_all():
    ids = ["a", "b", "c"]
    assert [step_env_ids(ids, s, "round_robin") for s in range(4)] == [["a"], ["b"], ["c"], ["a"]]
    assert step_env_ids(ids, 7, "mixed") == ids
    with pytest.raises(ValueError, match="round_robin or mixed"):
        step_env_ids(ids, 0, "random")


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 8), st.integers(1, 5), st.integers(1, 16))
def test_every_game_copy_on_every_actor_gets_its_own_seed(seed, actors, groups, num_env):
    seeds = [env_group_seed(seed, a, g, groups, num_env) + i
             for a in range(actors) for g in range(groups) for i in range(num_env)]
    assert len(set(seeds)) == len(seeds)


@given(st.integers(0, 1000), st.integers(1, 9))
def test_split_evenly_shares_everything_fairly(total, parts):
    shares = split_evenly(total, parts)
    assert sum(shares) == total and len(shares) == parts and max(shares) - min(shares) <= 1


def test_eval_rounds_give_each_actor_one_share_per_round():
    rounds = eval_rounds(["a", "b"], [1, 5], episodes=5, num_actors=2)
    assert len(rounds) == 4
    for jobs in rounds:
        assert len({actor for actor, *_ in jobs}) == len(jobs)
        assert sum(count for *_, count in jobs) == 5
    assert rounds[1] == [(0, "a", 5, 3), (1, "a", 5, 2)]
    assert all(len(jobs) == 1 for jobs in eval_rounds(["a"], [1], episodes=1, num_actors=4))


def test_eval_metrics_have_fixed_keys_on_every_rank():
    keys = metric_keys(["a", "b"], [1, 3])
    assert list(eval_metrics([], ["a", "b"], [1, 3])) == keys
    records = [{"env_id": "a", "complexity": 3, "accuracy": 0.5, "mean_episode_len": 4.0}]
    metrics = eval_metrics(records, ["a", "b"], [1, 3])
    assert list(metrics) == keys
    assert metrics["eval/a/c3/accuracy"] == 0.5 and metrics["eval/average/accuracy"] == 0.125
    with pytest.raises(KeyError, match="outside the evaluation plan"):
        eval_metrics([{**records[0], "complexity": 2}], ["a", "b"], [1, 3])


# ---------------------------------------------------------------- flags

@dataclass
class FlagsStandIn(EnvArgs):
    """EnvArgs plus the OAT flags prepare_args reads (the real class needs OAT installed)."""

    critic_type: str = "drgrpo"
    num_samples: int = 1
    gpus: int = 4
    collocate: bool = True
    num_groups: int = 1
    rollout_batch_size: int = 128
    rollout_batch_size_per_device: int = 16
    rnd_seed: bool = False
    seed: int = 42
    algo: str = "DPO"
    oracle: str = "pairrm"
    prompt_data: str = "lkevinzc/tldr-with-sft-reference"


def test_prepare_args_switches_off_prompt_data_and_oracle_and_sizes_the_rollout():
    args = prepare_args(FlagsStandIn(env_id=ENV))
    assert (args.algo, args.oracle, args.prompt_data) == ("PPO", "", "")
    assert args.rollout_batch_size == 64  # 16 per device on 4 collocated learners, as in GymVerse
    assert prepare_args(FlagsStandIn(env_id=ENV, collocate=False)).rollout_batch_size == 32
    assert learner_world_size(FlagsStandIn(gpus=3, collocate=False, num_groups=2)) == 4


def test_prepare_args_draws_the_random_seed_once_for_all_processes():
    args = prepare_args(FlagsStandIn(env_id=ENV, rnd_seed=True), now_ns=lambda: 2**32 + 7)
    assert (args.seed, args.rnd_seed) == (7, False)


@pytest.mark.parametrize("flags, message", [
    (dict(env_id="gymverse:NoSuchGame"), "unknown environment id"),
    (dict(env_id=ENV, eval_envs="nope:Game"), "unknown environment id"),
    (dict(env_id=ENV, critic_type="ppo"), "value critic"),
    (dict(env_id=ENV, num_samples=4), "num_samples must be 1"),
    (dict(env_id=ENV, eval_wrappers="concat|concat"), "2 values for 1 evaluation"),
    (dict(env_id=""), "env_id is empty"),
])
def test_prepare_args_rejects_what_cannot_run(flags, message):
    with pytest.raises(BadInput, match=message):
        prepare_args(FlagsStandIn(**flags))


def test_the_learning_rate_schedule_spans_the_runs_optimizer_steps():
    args = SimpleNamespace(max_train=9000, num_ppo_epochs=2, max_epochs=1, train_batch_size=128)
    # OAT schedules len(prompts) * max_epochs // train_batch_size optimizer steps:
    scheduled = prompt_slots(args) * args.max_epochs // args.train_batch_size
    rollout, per_round = 64, 64 * args.num_ppo_epochs / args.train_batch_size  # optimizer steps per step
    assert scheduled == int(args.max_train / rollout * per_round)


def test_eval_settings_default_to_the_training_ones():
    args = FlagsStandIn(env_id="a|b", wrappers="concat", prompt_template="qwen3_game")
    assert eval_settings(args) == {"a": ("concat", "qwen3_game"), "b": ("concat", "qwen3_game")}
    args.eval_envs, args.eval_wrappers, args.eval_prompt_templates = "x|y", "none|concat", "no"
    assert eval_settings(args) == {"x": ("", "no"), "y": ("concat", "no")}


# ---------------------------------------------------------------- the actor's ledger

def test_ledger_writes_actor_lines_and_waits_for_the_next_levels(tmp_path):
    table = EnvTable(["a", "b"])
    ledger = ActorLedger(table, RunFiles(tmp_path, actor_id=3), dump_experience_every=2)
    ledger.record(1, [episode("a", [1.0], success=True, complexity=2), episode("a", [0.0], complexity=2)])
    ledger.record(2, [episode("b", [0.0, 1.0], success=True)])
    details = RunFiles(tmp_path).read("episode_details.jsonl")
    assert [(d["step"], d["env_id"], d["actor_id"]) for d in details] == [(1, "a", 3), (1, "a", 3), (2, "b", 3)]
    assert not (tmp_path / "actor_env_metrics.jsonl").exists()  # waits for the curriculum's answer
    assert sorted(p.name for p in (tmp_path / "trajectories").iterdir()) == ["actor3_step_00002.json"]

    tally = ledger.take_tally()
    assert tally[table.row["a"]].tolist() == [2, 1, 2, 1.0] and tally[table.row["b"]].tolist() == [1, 1, 2, 1.0]
    assert not ledger.take_tally().any()

    ledger.close_steps({"a": 3, "b": 1})
    metrics = RunFiles(tmp_path).read("actor_env_metrics.jsonl")
    assert [(m["step"], m["env_id"], m["complexity"], m["next_complexity"], m["actor_id"]) for m in metrics] == [
        (1, "a", 2, 3, 3), (2, "b", 1, 1, 3)]
    assert metrics[0]["mean_episode_success"] == 0.5
    ledger.close_steps({"a": 3, "b": 1})
    assert len(RunFiles(tmp_path).read("actor_env_metrics.jsonl")) == 2


# ---------------------------------------------------------------- the actor's policy

class FakeVLLM:
    """Answers every prompt with ``reply`` in vLLM's output layout (tokens = bytes, as the tiny tokenizer)."""

    def __init__(self, tokenizer, reply: str, finish_reason: str = "stop") -> None:
        self.tokenizer, self.reply, self.finish_reason = tokenizer, reply, finish_reason
        self.calls = 0

    def __call__(self, prompts):
        self.calls += 1
        outputs = []
        for prompt in prompts:
            ids = self.tokenizer.encode(self.reply, add_special_tokens=False)
            completion = SimpleNamespace(
                text=self.reply, token_ids=ids, finish_reason=self.finish_reason,
                logprobs=[{t: SimpleNamespace(logprob=-0.1 * (k + 1))} for k, t in enumerate(ids)],
            )
            outputs.append(SimpleNamespace(prompt_token_ids=self.tokenizer.encode(prompt, add_special_tokens=False),
                                           outputs=[completion]))
        return outputs


@pytest.fixture(scope="module")
def tokenizer():
    return build_tiny_tokenizer()


def test_actor_policy_turns_vllm_outputs_into_generations(tokenizer):
    policy = ActorPolicy(FakeVLLM(tokenizer, "go \\boxed{read 1} and more"), tokenizer)
    [full] = policy.generate(["hi"])
    assert full.text == "go \\boxed{read 1} and more" and not full.truncated
    assert full.prompt_ids == tokenizer.encode("hi", add_special_tokens=False)
    assert full.logprobs[:2] == pytest.approx([-0.1, -0.2]) and len(full.logprobs) == len(full.response_ids)
    [cut] = policy.generate(["hi"], stop_at_box=True)
    assert cut.text == "go \\boxed{read 1}" and len(cut.response_ids) == len(cut.logprobs) == len(cut.text)
    [long] = ActorPolicy(FakeVLLM(tokenizer, "no box", "length"), tokenizer).generate(["hi"])
    assert long.truncated


def test_actor_step_logic_on_a_real_game(tokenizer):
    """What Actor.step does, minus OAT: play, record, pick exactly one per-device batch of turns."""
    fake = FakeVLLM(tokenizer, "\\boxed{read 0}")
    policy = ActorPolicy(fake, tokenizer)
    group = make_env_group(ENV, 2, complexity=1, seed=env_group_seed(0, 1, 0, 1, 2))

    def play(env_id):
        return collect_episodes(policy, group, env_id, num_episodes=2, tokenizer=tokenizer)

    episodes = play_until([ENV], play, min_turns=20)
    records = [r for e in episodes if trainable(e) for r in turn_records(e, gamma=0.9)]
    batch = take(records, 20, random.Random(0))
    assert len(batch) == 20 and {r["env_id"] for r in batch} == {ENV}
    assert all(r["rewards"][-1] <= 0 for r in batch)  # re-reading one cell never wins
    assert all(len(r["rewards"]) == len(r["response_ids"]) == len(r["response_logprobs"]) for r in batch)
    assert all(e.ended_by in ("terminated", "truncated") and e.complexity == 1 for e in episodes)
