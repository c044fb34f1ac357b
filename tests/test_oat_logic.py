"""The logic the OAT actor and learner use, run without OAT (which needs GPUs and Python 3.10)."""

import json
import multiprocessing
import random
import socket
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gymverse  # noqa: F401  (registers the built-in games)
from gymverse.env.groups import make_env_group
from gymverse.episodes import Episode, Turn, collect_episodes
from gymverse.errors import BadInput
from gymverse.oat.actor_policy import ActorPolicy
from gymverse.oat.flags import OatSettings
from gymverse.oat.ledger import ActorLedger
from gymverse.oat.settings import global_actor_id, gpu_split, learner_world_size, prepare_args, prompt_slots
from gymverse.oat.transitions import (
    GAME_FIELDS,
    STEP_INFO_KEYS,
    TRANSITION_FIELDS,
    play_step,
    step_info,
    transition_fields,
)
from gymverse.perpo import normalize_per_env
from gymverse.policy.tiny import build_tiny_tokenizer
from gymverse.run.config import RunConfig
from gymverse.run.env_table import EnvTable, per_env_advantages
from gymverse.run.eval_plan import EvalCell, eval_metrics, eval_plan, eval_rounds, metric_keys, split_evenly
from gymverse.run.files import RunFiles
from gymverse.run.plan import plan_step, play_until, take, turn_samples
from gymverse.run.prepare import prepare
from gymverse.seeds import actor_envs_seed

ENV = "gymverse:PeakFinder"


def turn(reward: float, n_tokens: int = 3, truncated_reply: bool = False) -> Turn:
    return Turn(
        prompt="p",
        response="r",
        prompt_ids=[1, 2],
        response_ids=list(range(n_tokens)),
        logprobs=[-0.5] * n_tokens,
        reward=reward,
        truncated_reply=truncated_reply,
    )


def episode(
    env_id: str, rewards: list[float], success: bool = False, complexity: int = 1, ended_by: str = "terminated"
) -> Episode:
    turns = [turn(r) for r in rewards]
    return Episode(env_id, complexity, turns, success, float(sum(rewards)), len(turns), ended_by)


# ---------------------------------------------------------------- per-environment advantages across processes


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
    processes = [
        fork.Process(target=_gloo_rank, args=(r, port, *batches[r], str(tmp_path / f"{r}.json"))) for r in range(2)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    got = sum((json.loads((tmp_path / f"{r}.json").read_text()) for r in range(2)), [])
    expected = normalize_per_env(batches[0][0] + batches[1][0], batches[0][1] + batches[1][1])
    np.testing.assert_allclose(got, expected)


# ---------------------------------------------------------------- turn records


def records_of(ep: Episode, gamma: float, ignore_no_eos: bool = False) -> list[dict]:
    return [transition_fields(s, ignore_no_eos) for s in turn_samples([ep], gamma)]


def test_transition_fields_carry_the_discounted_return_and_put_it_on_the_last_token():
    records = records_of(episode("g", [0.0, -0.1, 1.0]), gamma=0.5)
    returns = [0.5 * -0.1 + 0.25, -0.1 + 0.5, 1.0]
    assert [r["turn_return"] for r in records] == returns
    assert [r["rewards"] for r in records] == [[0.0, 0.0, g] for g in returns]
    assert all(set(r) == {*TRANSITION_FIELDS, *GAME_FIELDS} and r["env_id"] == "g" for r in records)
    assert records[0]["response_logprobs"] == [-0.5] * 3 and records[0]["prompt_ids"] == [1, 2]


def test_transition_fields_skip_empty_replies_and_mask_cut_ones_on_request():
    ep = Episode("g", 1, [turn(0.0, n_tokens=0), turn(1.0, truncated_reply=True)], True, 1.0, 2)
    assert len(records_of(ep, 1.0)) == 1
    assert records_of(ep, 1.0)[0]["loss_mask"] is True
    assert records_of(ep, 1.0, ignore_no_eos=True)[0]["loss_mask"] is False


def test_step_info_has_the_same_keys_whatever_was_played():
    assert tuple(step_info([])) == STEP_INFO_KEYS
    info = step_info(
        [
            episode("a", [0.0, 1.0], success=True, complexity=3),
            episode("b", [0.0], complexity=1, ended_by="context_overflow"),
        ]
    )
    assert tuple(info) == STEP_INFO_KEYS
    assert info["actor/mean_episode_success"] == 0.5
    assert info["actor/mean_complexity"] == 2.0
    assert info["actor/context_overflow_rate"] == 0.5
    assert info["actor/mean_episode_len"] == 1.5


# ---------------------------------------------------------------- schedule and evaluation plan


@given(st.integers(0, 1000), st.integers(1, 9))
def test_split_evenly_shares_everything_fairly(total, parts):
    shares = split_evenly(total, parts)
    assert sum(shares) == total and len(shares) == parts and max(shares) - min(shares) <= 1


def test_eval_rounds_give_each_actor_one_share_per_round():
    plan = eval_plan(RunConfig(env_id="a|b", eval_difficulty="1|5", eval_n=5))
    rounds = eval_rounds(plan, num_actors=2)
    assert len(rounds) == 4
    for shares in rounds:
        assert len({share.actor for share in shares}) == len(shares)
        assert sum(share.count for share in shares) == 5
    assert [(s.actor, s.cell.env_id, s.cell.level, s.first, s.count) for s in rounds[1]] == [
        (0, "a", 5, 0, 3),
        (1, "a", 5, 3, 2),
    ]
    one_episode = eval_plan(RunConfig(env_id="a", eval_n=1))
    assert all(len(shares) == 1 for shares in eval_rounds(one_episode, num_actors=4))


@pytest.mark.parametrize("episodes, actors", [(5, 2), (32, 3), (70, 2)])
def test_actors_sharing_a_cell_play_the_native_evaluations_first_games(episodes, actors):
    cell, seed = EvalCell(1, "a", 4, "", "no", episodes), 42
    starts = [
        game for [*shares] in eval_rounds([cell], actors) for s in shares for game in s.reset_seeds(seed)[: s.count]
    ]
    assert len(set(starts)) == len(starts)  # no two copies of a cell start from the same game
    assert sorted(starts)[: cell.copies] == [cell.games_seed(seed) + i for i in range(cell.copies)]  # the native's


def test_eval_metrics_have_fixed_keys_on_every_rank():
    plan = eval_plan(RunConfig(env_id="a|b", eval_difficulty="1|3"))
    keys = metric_keys(plan)
    assert list(eval_metrics([], plan)) == keys
    records = [{"env_id": "a", "complexity": 3, "accuracy": 0.5, "mean_episode_len": 4.0}]
    metrics = eval_metrics(records, plan)
    assert list(metrics) == keys
    assert metrics["eval/a/c3/accuracy"] == 0.5 and metrics["eval/average/accuracy"] == 0.125
    with pytest.raises(KeyError, match="outside the evaluation plan"):
        eval_metrics([{**records[0], "complexity": 2}], plan)


# ---------------------------------------------------------------- flags


@dataclass
class FlagsStandIn(OatSettings, RunConfig):
    """RunConfig and OatSettings plus the flags of OAT's own that prepare_args reads (the real class needs OAT
    installed)."""

    group_rank: int = 0
    ignore_no_eos: bool = False
    resume_dir: str = ""
    resume_tag: str | None = None
    algo: str = "DPO"
    oracle: str = "pairrm"
    prompt_data: str = "lkevinzc/tldr-with-sft-reference"


def gymverse_flags(**changes) -> FlagsStandIn:
    """GymVerse's documented layout: 4 collocated GPUs, 16 turns per device, 128 asked."""
    return FlagsStandIn(
        **{
            "env_id": ENV,
            "gpus": 4,
            "collocate": True,
            "rollout_batch_size": 128,
            "rollout_batch_size_per_device": 16,
            "pi_buffer_maxlen_per_device": 16,
            **changes,
        }
    )


def prepared(**changes) -> FlagsStandIn:
    return prepare_args(gymverse_flags(**changes), visible_gpus="")


def test_prepare_args_switches_off_prompt_data_and_oracle_and_sizes_the_rollout():
    args = prepared()
    assert (args.algo, args.oracle, args.prompt_data) == ("PPO", "", "")
    assert args.rollout_batch_size == 64  # 16 per device on 4 collocated learners, as in GymVerse
    assert prepared(collocate=False).rollout_batch_size == 32
    assert learner_world_size(FlagsStandIn(gpus=3, collocate=False, num_groups=2)) == 4


def test_without_a_per_device_size_the_rollout_is_shared_by_the_learners():
    args = prepared(rollout_batch_size=48, rollout_batch_size_per_device=None, pi_buffer_maxlen_per_device=None)
    assert (args.rollout_batch_size, args.rollout_batch_size_per_device) == (48, 12)
    with pytest.raises(BadInput, match="must divide among the 4 learner GPUs"):
        prepared(rollout_batch_size=50, rollout_batch_size_per_device=None)


def test_the_learner_buffer_holds_exactly_one_step():
    assert prepared(pi_buffer_maxlen_per_device=None).pi_buffer_maxlen_per_device == 16
    for other in (8, 32):  # fewer drops turns, more trains old turns again
        with pytest.raises(BadInput, match="--pi_buffer_maxlen_per_device .* must equal"):
            prepared(pi_buffer_maxlen_per_device=other)


def test_the_learner_count_is_the_one_oat_starts():
    # OAT places its processes on every GPU CUDA_VISIBLE_DEVICES lists: a --gpus that disagrees is refused.
    with pytest.raises(BadInput, match="--gpus is 4 but CUDA_VISIBLE_DEVICES lists 8 GPUs"):
        prepare_args(gymverse_flags(), visible_gpus="0,1,2,3,4,5,6,7")
    assert prepare_args(gymverse_flags(gpus=8), visible_gpus="0,1,2,3,4,5,6,7").rollout_batch_size == 128
    # OAT's split (get_program): the first half acts, the second learns; an odd count shares its middle GPU.
    assert gpu_split(4, collocate=False) == ([0, 1], [2, 3])
    assert gpu_split(3, collocate=False) == ([0, 1], [1, 2])
    assert gpu_split(2, collocate=True) == ([0, 1], [0, 1])
    assert learner_world_size(FlagsStandIn(gpus=1)) == 1  # the demo: one GPU acts and learns


@pytest.mark.parametrize(
    "gpus, collocate, per_actor, ok",
    [
        (4, True, 2, True),
        (4, True, 4, True),
        (4, False, 2, True),
        (4, False, 4, False),
        (8, True, 3, False),
    ],
)
def test_gpus_per_actor_must_divide_the_actor_gpus(gpus, collocate, per_actor, ok):
    flags = dict(
        gpus=gpus,
        collocate=collocate,
        num_gpus_per_actor=per_actor,
        rollout_batch_size_per_device=None,
        pi_buffer_maxlen_per_device=None,
    )
    if ok:
        prepared(**flags)
    else:
        with pytest.raises(BadInput, match="--num_gpus_per_actor must be 1, 2, 4 or 8 and divide"):
            prepared(**flags)


def test_actor_ids_are_unique_across_groups():
    args = FlagsStandIn(gpus=4, collocate=False, num_groups=3, num_gpus_per_actor=1)
    ids = [
        global_actor_id(FlagsStandIn(**{**vars(args), "group_rank": group}), local)
        for group in range(3)
        for local in range(2)
    ]  # 2 actor GPUs per group
    assert ids == [0, 1, 2, 3, 4, 5]


def test_a_resume_without_the_run_state_is_refused_before_launch(tmp_path):
    (tmp_path / "checkpoints" / "step_00004").mkdir(parents=True)
    (tmp_path / "checkpoints" / "latest").write_text("step_00004")
    with pytest.raises(BadInput, match="no run_state.json beside the checkpoint"):
        prepared(resume_dir=str(tmp_path / "checkpoints"))


def test_prepare_args_draws_the_random_seed_once_for_all_processes():
    args = prepare_args(gymverse_flags(rnd_seed=True), now_ns=lambda: 2**32 + 7, visible_gpus="")
    assert (args.seed, args.rnd_seed) == (7, False)


@pytest.mark.parametrize(
    "flags, message",
    [
        (dict(env_id="gymverse:NoSuchGame"), "unknown environment id"),
        (dict(eval_envs="nope:Game"), "unknown environment id"),
        (dict(critic_type="ppo"), "value critic"),
        (dict(num_samples=4), "num_samples must be 1"),
        (dict(eval_wrappers="concat|concat"), "2 values for 1 evaluation"),
        (dict(env_id=""), "env_id is empty"),
    ],
)
def test_the_launcher_rejects_what_cannot_run(flags, message):
    with pytest.raises(BadInput, match=message):
        prepare(gymverse_flags(**flags), [], lambda args: prepare_args(args, visible_gpus=""))


def test_both_backends_start_from_the_same_defaults():
    """The demo and the short command run on OAT with the native trainer's defaults (OAT's own would stop them:
    num_samples 2, 8 GPUs, beta 0.1 loading a reference model, learning rate 5e-7)."""
    from gymverse.train.args import TrainArgs

    args, native = prepare_args(FlagsStandIn(), visible_gpus=""), TrainArgs()
    shared = (
        "num_samples",
        "beta",
        "learning_rate",
        "eval_steps",
        "gamma",
        "evolve",
        "pretrain",
        "rollout_batch_size",
        "max_train",
        "generate_max_length",
        "lr_scheduler",
        "num_env",
        "wb_run_name",
    )
    assert {f: getattr(args, f) for f in shared} == {f: getattr(native, f) for f in shared}
    assert (args.num_samples, args.beta, args.gpus, args.rollout_batch_size_per_device) == (1, 0.0, 1, 48)


def test_the_learning_rate_schedule_spans_the_runs_optimizer_steps():
    args = SimpleNamespace(max_train=9000, num_ppo_epochs=2, max_epochs=1, train_batch_size=128)
    # OAT schedules len(prompts) * max_epochs // train_batch_size optimizer steps:
    scheduled = prompt_slots(args) * args.max_epochs // args.train_batch_size
    rollout, per_round = 64, 64 * args.num_ppo_epochs / args.train_batch_size  # optimizer steps per step
    assert scheduled == int(args.max_train / rollout * per_round)


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

    tally = ledger.take_tally(1) + ledger.take_tally(2)
    assert tally[table.row["a"]].tolist() == [2, 1, 2, 1.0] and tally[table.row["b"]].tolist() == [1, 1, 2, 1.0]
    assert not ledger.take_tally(1).any()

    ledger.close_steps({"a": 3, "b": 1}, step=2)
    metrics = RunFiles(tmp_path).read("actor_env_metrics.jsonl")
    assert [(m["step"], m["env_id"], m["complexity"], m["next_complexity"], m["actor_id"]) for m in metrics] == [
        (1, "a", 2, 3, 3),
        (2, "b", 1, 1, 3),
    ]
    assert metrics[0]["mean_episode_success"] == 0.5
    ledger.close_steps({"a": 3, "b": 1}, step=2)
    assert len(RunFiles(tmp_path).read("actor_env_metrics.jsonl")) == 2


def test_with_asynchronous_actors_the_curriculum_answers_one_step_and_applies_between_steps(tmp_path):
    """OAT's asynchronous collector starts step 2 before the learner answers step 1: step 1's tally and
    summary stay step 1's, and the answer's levels wait until the actor starts its next step."""
    table = EnvTable(["a"])
    ledger = ActorLedger(table, RunFiles(tmp_path, actor_id=0))
    ledger.record(1, [episode("a", [1.0], success=True)])
    ledger.record(2, [episode("a", [0.0]), episode("a", [0.0])])  # played before the learner took step 1
    assert ledger.take_tally(1)[0, :2].tolist() == [1, 1]
    assert ledger.due_levels() is None
    ledger.close_steps({"a": 2}, step=1)
    assert [(m["step"], m["next_complexity"]) for m in RunFiles(tmp_path).read("actor_env_metrics.jsonl")] == [(1, 2)]
    assert ledger.due_levels() == {"a": 2} and ledger.due_levels() is None  # applied once, by the next step
    assert ledger.take_tally(2)[0, :2].tolist() == [2, 0]


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
                text=self.reply,
                token_ids=ids,
                finish_reason=self.finish_reason,
                logprobs=[{t: SimpleNamespace(logprob=-0.1 * (k + 1))} for k, t in enumerate(ids)],
            )
            outputs.append(
                SimpleNamespace(
                    prompt_token_ids=self.tokenizer.encode(prompt, add_special_tokens=False), outputs=[completion]
                )
            )
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


def test_an_actor_serving_several_learner_ranks_returns_one_record_per_prompt(tokenizer, tmp_path):
    """With --num_gpus_per_actor 2, OAT gives the actor the prompts of 2 learner ranks and splits the records
    back in that proportion (oat/collectors/base.py): the step must return one record per prompt."""
    policy = ActorPolicy(FakeVLLM(tokenizer, "\\boxed{read 0}"), tokenizer)
    group = make_env_group(ENV, 2, complexity=1, seed=0)
    args = FlagsStandIn(env_id=ENV, rollout_batch_size_per_device=8, num_gpus_per_actor=2)
    ledger = ActorLedger(EnvTable([ENV]), RunFiles(tmp_path, actor_id=0))
    gathered = [[""] * 8, [""] * 8]  # the prompt slots of the two ranks
    prompts = [p for rank in gathered for p in rank]
    records = play_step(
        args,
        [ENV],
        1,
        len(prompts),
        lambda e, c: collect_episodes(policy, group, e, 2, tokenizer=tokenizer),
        ledger,
        random.Random(0),
    )
    assert len(records) % len(prompts) == 0  # OAT's assertions, as its collector makes them
    assert len(records) == sum(len(rank) * (len(records) // len(prompts)) for rank in gathered)
    assert all(set(r) == {*TRANSITION_FIELDS, *GAME_FIELDS, "info"} for r in records)
    assert ledger.take_tally(1)[0, 0] > 0


def test_actor_step_logic_on_a_real_game(tokenizer):
    """What Actor.step does, minus OAT: play, record, pick exactly one per-device batch of turns."""
    fake = FakeVLLM(tokenizer, "\\boxed{read 0}")
    policy = ActorPolicy(fake, tokenizer)
    group = make_env_group(ENV, 2, complexity=1, seed=actor_envs_seed(0, 1, 0, 1, 2))

    def play(env_id, call):
        return collect_episodes(policy, group, env_id, num_episodes=2, tokenizer=tokenizer)

    episodes = play_until(plan_step([ENV], 1, "round_robin", turns=20), play)[ENV]
    samples = take(turn_samples(episodes, gamma=0.9), 20, random.Random(0))
    batch = [transition_fields(s) for s in samples]
    assert len(batch) == 20 and {r["env_id"] for r in batch} == {ENV}
    assert all(r["rewards"][-1] <= 0 for r in batch)  # re-reading one cell never wins
    assert all(len(r["rewards"]) == len(r["response_ids"]) == len(r["response_logprobs"]) for r in batch)
    assert all(e.ended_by in ("terminated", "truncated") and e.complexity == 1 for e in episodes)
