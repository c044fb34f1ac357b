"""Rollouts: templates, env groups, and episode records over GEM's autoresetting vector envs."""

import contextlib
import io

import gem
import pytest
from gem.envs.registration import ENV_REGISTRY

import gymverse  # noqa: F401  (registers the games)
from gymverse.env import EvolvableEnv, Feedback, set_env_complexity
from gymverse.env.groups import make_env_group
from gymverse.env.id_lists import split_env_ids
from gymverse.episodes import Episode, collect_episodes
from gymverse.policy import OraclePolicy
from gymverse.policy.base import Generation, Sampling
from gymverse.policy.hf import HFPolicy
from gymverse.prompts import TEMPLATES, apply_template

COUNTDOWN = "test:Countdown"


class Countdown(EvolvableEnv):
    """Each episode has a random tag; ``win`` wins (reward 0.5, so success must come from info)."""

    complexity_params = {"turns": (2, 11)}
    example_command = "wait"

    def _new_episode(self) -> str:
        self.tag = self.rng.randrange(10**9)
        return f"Episode {self.tag} begins."

    def turn_limit(self) -> int:
        return self.params["turns"]

    def _play(self, command: str) -> Feedback:
        if command == "win":
            return Feedback(f"Episode {self.tag} won.", reward=0.5, done=True, success=True)
        return Feedback(f"Episode {self.tag}, turn {self.turn}.")

    def oracle_action(self) -> str:
        return "\\boxed{win}"


if COUNTDOWN not in ENV_REGISTRY:
    gem.register(COUNTDOWN, Countdown)


class Scripted:
    """Waits until a per-episode turn (from the tag) and then wins; records what it was asked."""

    def __init__(self, tokenizer=None, truncate=False):
        self.tokenizer = tokenizer
        self.truncate = truncate
        self.batches = []

    def generate(self, prompts, envs=None, stop_at_box=None, rngs=None):
        self.batches.append((list(prompts), stop_at_box))
        replies = []
        for env in envs:
            win = env.turn + 1 >= 1 + env.tag % env.params["turns"]
            replies.append(Generation("\\boxed{win}" if win else "\\boxed{wait}", truncated=self.truncate))
        return replies


def tag_of(text: str) -> str:
    return text.split("Episode ")[-1].split()[0].rstrip(".,")


# -- templates ---------------------------------------------------------------------------------------
def test_qwen3_game_template():
    assert apply_template("qwen3_game", "Board: 1 2 3") == (
        "<|im_start|>user\nYou are playing language games. Make valid actions to win.\n"
        "Observation: Board: 1 2 3\nPlease reason step by step, and put your final answer within \\boxed{}."
        "<|im_end|>\n<|im_start|>assistant\n"
    )


def test_every_template_shows_the_observation(tokenizer):
    for name in TEMPLATES:
        prompt = apply_template(name, "OBS {with braces}", tokenizer)
        assert "OBS {with braces}" in prompt
    assert apply_template("no", "x") == "x"
    assert apply_template("chat", "x", tokenizer) == tokenizer.apply_chat_template(
        [{"role": "user", "content": "x"}],
        tokenize=False,
        add_generation_prompt=True,
    )


def test_template_errors():
    with pytest.raises(ValueError, match="unknown prompt template 'qwen9'"):
        apply_template("qwen9", "x")
    with pytest.raises(ValueError, match="needs a tokenizer"):
        apply_template("chat", "x")


# -- env groups --------------------------------------------------------------------------------------
def test_make_env_group_builds_seeded_copies_at_a_complexity():
    group = make_env_group(COUNTDOWN, 3, complexity=4, seed=10)
    observations, _ = group.reset()
    assert len(group.envs) == 3 and len(set(observations)) == 3
    assert all(env.unwrapped.complexity == 4 for env in group.envs)
    again, _ = make_env_group(COUNTDOWN, 3, complexity=4, seed=10).reset()
    assert again == observations


def test_make_env_group_rejects_bad_input():
    with pytest.raises(ValueError, match="unknown environment id"):
        make_env_group("nope:Nothing", 2)
    with pytest.raises(ValueError, match="unknown wrapper"):
        make_env_group(COUNTDOWN, 2, wrappers="concat,sparkle")
    with pytest.raises(ValueError, match="tokenizer"):
        make_env_group(COUNTDOWN, 2, wrappers="concat_chat")
    with pytest.raises(ValueError, match="num_env"):
        make_env_group(COUNTDOWN, 0)


def test_split_env_ids():
    assert split_env_ids("a|b| c |a|") == ["a", "b", "c"]
    assert split_env_ids(["x", "y"]) == ["x", "y"]


# -- episodes ----------------------------------------------------------------------------------------
def test_episodes_stay_whole_across_autoresets():
    group = make_env_group(COUNTDOWN, 3, complexity=5, seed=0)
    agent = Scripted()
    episodes = collect_episodes(agent, group, COUNTDOWN, 8, template="no", seed=1)
    assert len(episodes) == 8
    tags = []
    for episode in episodes:
        episode_tags = {tag_of(turn.prompt) for turn in episode.turns}
        assert len(episode_tags) == 1, "an episode's turns came from two games"
        tags += episode_tags
        assert episode.length == len(episode.turns) > 0
        assert episode.episode_return == pytest.approx(sum(t.reward for t in episode.turns))
        assert episode.success and episode.ended_by == "terminated"
        assert episode.turns[-1].reward == 0.5 and episode.complexity == 5
    assert len(set(tags)) == 8
    assert len({e.length for e in episodes}) > 1  # copies finished at different rounds
    assert max(len(prompts) for prompts, _ in agent.batches) == 3


def test_fewer_episodes_than_copies():
    group = make_env_group(COUNTDOWN, 4, seed=0)
    agent = Scripted()
    assert len(collect_episodes(agent, group, COUNTDOWN, 2, template="no")) == 2
    assert all(len(prompts) <= 2 for prompts, _ in agent.batches)


def test_complexity_is_recorded_per_episode_and_changes_apply_at_the_next_call():
    group = make_env_group(COUNTDOWN, 2, complexity=1, seed=0)
    assert {e.complexity for e in collect_episodes(Scripted(), group, COUNTDOWN, 3, template="no")} == {1}
    set_env_complexity(group, 6)
    episodes = collect_episodes(Scripted(), group, COUNTDOWN, 3, template="no")
    assert {e.complexity for e in episodes} == {6}


def test_truncated_replies_are_sent_as_invalid_actions():
    group = make_env_group(COUNTDOWN, 2, complexity=3, seed=0)
    episodes = collect_episodes(Scripted(truncate=True), group, COUNTDOWN, 2, template="no")
    probe = Countdown(complexity=3)
    probe.reset()
    for episode in episodes:  # "win" was never delivered: every turn was a format error
        assert episode.ended_by == "truncated" and not episode.success
        assert all(turn.truncated_reply and turn.reward == Countdown.invalid_reward for turn in episode.turns)
        assert episode.length == probe.max_turns


def test_boxed_answer_templates_stop_at_the_box_and_others_leave_it_to_the_policy():
    group = make_env_group(COUNTDOWN, 1, seed=0)
    for template, expected in [("qwen3_game", True), ("qwen3_general", True), ("no", None)]:
        agent = Scripted()
        collect_episodes(agent, group, COUNTDOWN, 1, template=template)
        assert {stop for _, stop in agent.batches} == {expected}


def test_a_prompt_past_max_model_len_ends_its_episode(tokenizer):
    group = make_env_group(COUNTDOWN, 2, wrappers="concat", complexity=10, seed=0)
    first, _ = make_env_group(COUNTDOWN, 2, wrappers="concat", complexity=10, seed=0).reset()
    limit = max(len(tokenizer.encode(apply_template("qwen3_game", o))) for o in first) + 40
    episodes = collect_episodes(
        Scripted(tokenizer),
        group,
        COUNTDOWN,
        6,
        template="qwen3_game",
        max_model_len=limit,
    )
    assert len(episodes) == 6
    overflowed = [e for e in episodes if e.ended_by == "context_overflow"]
    assert overflowed and not any(e.success for e in overflowed)
    for episode in episodes:
        assert all(len(t.prompt_ids or tokenizer.encode(t.prompt)) < limit for t in episode.turns)
        assert "Episode" in episode.turns[0].prompt and len({tag_of(t.prompt) for t in episode.turns}) == 1
    assert len(overflowed[0].turns[-1].prompt) > len(overflowed[0].turns[0].prompt)  # concat made it grow


def test_a_first_prompt_past_max_model_len_gives_an_empty_failed_episode(tokenizer):
    group = make_env_group(COUNTDOWN, 2, seed=0)
    episodes = collect_episodes(Scripted(tokenizer), group, COUNTDOWN, 3, template="no", max_model_len=5)
    assert [(e.length, e.ended_by, e.success) for e in episodes] == [(0, "context_overflow", False)] * 3


def test_max_model_len_needs_a_tokenizer():
    with pytest.raises(ValueError, match="tokenizer"):
        collect_episodes(Scripted(), make_env_group(COUNTDOWN, 1), COUNTDOWN, 1, max_model_len=100)


def test_oracle_wins_a_real_game_and_success_falls_back_to_reward_without_final_info():
    group = make_env_group("gymverse:PeakFinder", 3, wrappers="concat", complexity=2, seed=0)
    episodes = collect_episodes(OraclePolicy(), group, "gymverse:PeakFinder", 5)
    assert all(e.success and e.ended_by == "terminated" and e.complexity == 2 for e in episodes)
    with contextlib.redirect_stdout(io.StringIO()):
        plain = gem.make_vec(["gymverse:PeakFinder"] * 2, seed=0)
    assert all(e.success for e in collect_episodes(OraclePolicy(), plain, "gymverse:PeakFinder", 3))


def test_tiny_model_plays_whole_episodes(tiny_dir):
    policy = HFPolicy(tiny_dir, Sampling(generate_max_length=8, seed=0), num_threads=1)
    group = make_env_group(COUNTDOWN, 2, complexity=2, seed=0)
    episodes = collect_episodes(policy, group, COUNTDOWN, 3, template="qwen3_game")
    assert len(episodes) == 3 and all(isinstance(e, Episode) for e in episodes)
    for episode in episodes:
        for turn in episode.turns:
            assert len(turn.response_ids) == len(turn.logprobs) > 0
            assert turn.prompt_ids == policy.encode(turn.prompt)
            assert turn.truncated_reply == (len(turn.response_ids) == 8 and turn.response_ids[-1] not in policy.eos_ids)
