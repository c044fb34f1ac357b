"""GenEnv's pure pieces: environment rewards, the two filters, and the agent's reward managers."""

import math
import sys
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gymverse.errors import BadInput
from gymverse.genenv.reward_managers import (
    EmbeddingSimilarityRewardManager,
    ExactToolCallRewardManager,
    MathRewardManager,
    PaperRewardManager,
    TokenF1RewardManager,
    load_reward_manager,
    parse_tool_calls,
    safe_reward,
    token_f1,
)
from gymverse.genenv.rewards import (
    env_reward_fn,
    filter_prompts,
    learnability_reward,
    uncertainty_reward,
    within_band,
)

rates = st.floats(0, 1)


# -- environment rewards ------------------------------------------------------------------------
@given(st.floats(0.05, 0.95), st.floats(0.5, 50), rates)
def test_gaussian_peaks_at_alpha(alpha, beta, p):
    reward = env_reward_fn("gaussian", alpha, beta)
    assert reward(alpha) == 1.0
    assert 0 < reward(p) <= 1.0
    assert reward(p) <= reward(alpha)


@given(st.floats(0.2, 0.8), st.floats(0.5, 50), st.floats(0, 0.2))
def test_gaussian_is_symmetric_around_alpha(alpha, beta, d):
    reward = env_reward_fn("gaussian", alpha, beta)
    assert reward(alpha + d) == pytest.approx(reward(alpha - d))


def test_gaussian_beta_sets_the_width():
    narrow, wide = env_reward_fn("gaussian", 0.5, 40.0), env_reward_fn("gaussian", 0.5, 2.0)
    assert narrow(0.8) < wide(0.8)
    assert narrow(0.8) == pytest.approx(math.exp(-40 * 0.09))
    # The reward falls to 1/e at |p - alpha| = 1 / sqrt(beta).
    assert env_reward_fn("gaussian", 0.5, 25.0)(0.7) == pytest.approx(math.exp(-1))


def test_gaussian_refuses_a_non_positive_beta():
    with pytest.raises(BadInput, match="beta"):
        env_reward_fn("gaussian", 0.5, 0.0)


def test_learnability_and_uncertainty_rewards():
    assert [learnability_reward(p) for p in (0.0, 0.25, 0.5, 1.0)] == [0.0, 0.75, 0.5, 0.0]
    assert [uncertainty_reward(p) for p in (0.0, 0.25, 0.5, 1.0)] == [0.0, 0.5, 1.0, 0.0]
    assert env_reward_fn("learnability")(0.25) == 0.75
    with pytest.raises(BadInput, match="--env_reward"):
        env_reward_fn("gauss")


# -- filters ------------------------------------------------------------------------------------
def test_band_keeps_tasks_near_alpha_only():
    assert within_band(0.5) and within_band(0.6) and within_band(0.4)
    assert not within_band(0.75) and not within_band(0.0) and not within_band(1.0)
    assert within_band(0.3, alpha=0.3, k_min=0.0)
    assert not within_band(0.5, alpha=0.3, k_min=0.15)


def test_filtering_k_drops_the_easiest_and_hardest_fraction():
    success = [0.9, 0.0, 0.5, 1.0, 0.2, 0.6, 0.3, 0.7, 0.1, 0.4]
    kept = filter_prompts(success, 0.1)
    assert kept == [0, 2, 4, 5, 6, 7, 8, 9]  # 1.0 (easiest) and one of the 0.0 (hardest) are gone
    assert filter_prompts(success, 0.2) == [2, 4, 5, 6, 7, 9]  # 0.9, 1.0 and 0.0, 0.1 are gone
    assert filter_prompts(success, 0.0) == list(range(10))
    assert filter_prompts([0.5, 0.5, 0.5], 0.1) == [0, 1, 2]  # floor(0.3) = 0 dropped
    with pytest.raises(BadInput, match="filtering_k"):
        filter_prompts(success, 0.5)


@given(st.lists(rates, max_size=40), st.floats(0, 0.49))
def test_filtering_k_keeps_the_middle(success, k):
    kept = filter_prompts(success, k)
    dropped = math.floor(k * len(success) + 1e-9)
    assert len(kept) == len(success) - 2 * dropped
    if kept:
        low, high = min(success[i] for i in kept), max(success[i] for i in kept)
        dropped_rates = [success[i] for i in range(len(success)) if i not in kept]
        assert sum(r <= low for r in dropped_rates) >= dropped and sum(r >= high for r in dropped_rates) >= dropped


# -- reward managers ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply, gold, expected",
    [
        (r"The answer is \boxed{\frac{2}{4}}.", "1/2", 1.0),
        (r"\boxed{0.5}", r"\frac{1}{2}", 1.0),
        (r"\boxed{\dfrac{1}{2}}", "0.5", 1.0),
        (r"first \boxed{3} then \boxed{ 4 }", 4, 1.0),  # the last box counts, whitespace aside
        (r"\boxed{4} no wait \boxed{3}", "4", 0.0),
        (r"\boxed{(x+1)^2}", "x^2+2x+1", 1.0),
        (r"\boxed{\sqrt{4}}", r"\boxed{2}", 1.0),
        ("4", "4", 0.0),  # no box, no answer
        (r"\boxed{5}", ["4", "5"], 1.0),  # any of several gold answers
        (r"\boxed{5}", {"answer": "5"}, 1.0),
    ],
)
def test_math_reward(reply, gold, expected):
    assert MathRewardManager().compute_reward(reply, gold) == expected


CALL = '<tool_call>{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}</tool_call>'


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('<tool_call>\n  {"arguments": {"days": 3,  "city": "Paris"},\n "name": "get_weather"}\n</tool_call>', 1.0),
        (
            '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\", \\"days\\": 3}"}</tool_call>',
            1.0,
        ),
        ('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 4}}</tool_call>', 0.0),
        ('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>', 0.0),
        ('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3,}}</tool_call>', 0.0),  # bad JSON
        ("<tool_call>{name: get_weather}</tool_call>", 0.0),
        ('get_weather(city="Paris", days=3)', 0.0),
        (CALL + CALL, 0.0),  # one call too many
    ],
)
def test_exact_tool_call_reward(reply, expected):
    assert ExactToolCallRewardManager().compute_reward(reply, CALL) == expected
    assert load_reward_manager("tool_call").compute_reward(reply, CALL) == expected


def test_tool_call_reward_reads_a_bare_json_ground_truth():
    gold = '{"name": "f", "arguments": {"a": [1, 2]}}'
    assert (
        ExactToolCallRewardManager().compute_reward(
            '<tool_call>{"name":"f","parameters":{"a":[1,2]}}</tool_call>', gold
        )
        == 1.0
    )
    assert parse_tool_calls('<tool_call>{"name": "f", "arguments": [1]}</tool_call>') is None


def test_token_f1():
    assert token_f1("The cat sat.", "the cat  sat") == 1.0
    assert token_f1("the cat sat", "the cat sat on the mat") == pytest.approx(2 * 1 * 0.5 / 1.5)
    assert token_f1("dog", "cat") == 0.0
    assert token_f1("", "") == 1.0 and token_f1("", "cat") == 0.0
    assert TokenF1RewardManager().compute_reward("Paris", ["London", "paris!"]) == 1.0


def test_paper_rule_is_exact_for_actions_and_soft_for_text():
    manager = PaperRewardManager()
    assert manager.compute_reward(CALL.replace('"days": 3', '"days": 3 '), CALL) == 1.0
    assert manager.compute_reward(CALL.replace("3", "2"), CALL) == 0.0  # close is not enough for an action
    assert manager.compute_reward('{"b": 2, "a": 1}', '{"a": 1, "b": 2}') == 1.0
    assert manager.compute_reward('{"a": 1}', '{"a": 1, "b": 2}') == 0.0
    assert manager.compute_reward("a sunny day in Paris", "sunny in Paris") == pytest.approx(
        token_f1("a sunny day in Paris", "sunny in Paris")
    )


def test_embedding_similarity_ranks_paraphrases_above_unrelated_text():
    manager = EmbeddingSimilarityRewardManager()
    same = manager.compute_reward("The weather in Paris is sunny today.", "It is sunny in Paris today.")
    other = manager.compute_reward("Quarterly revenue grew by four percent.", "It is sunny in Paris today.")
    assert 0 <= other < same <= 1
    assert manager.compute_reward("identical words", "identical words") == pytest.approx(1.0)


def test_user_reward_manager_by_module_and_class(tmp_path, monkeypatch):
    (tmp_path / "my_rewards.py").write_text(
        textwrap.dedent("""
        class Length:
            def compute_reward(self, generated_text, ground_truth):
                return float(len(generated_text) == int(ground_truth))

        class Broken:
            def compute_reward(self, generated_text, ground_truth):
                raise RuntimeError("lookup table missing")

        class NotAManager:
            pass
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    manager = load_reward_manager("my_rewards:Length")
    assert manager.compute_reward("abc", "3") == 1.0
    reward, reason = safe_reward(load_reward_manager("my_rewards:Broken"), "abc", "3")
    assert reward == 0.0 and "RuntimeError: lookup table missing" in reason
    with pytest.raises(BadInput, match="compute_reward"):
        load_reward_manager("my_rewards:NotAManager")
    with pytest.raises(BadInput, match="no_such_module"):
        load_reward_manager("no_such_module:Class")
    with pytest.raises(BadInput, match="math"):
        load_reward_manager("maths")
    sys.modules.pop("my_rewards", None)


class _Returns:
    def __init__(self, value):
        self.value = value

    def compute_reward(self, generated_text, ground_truth):
        return self.value


def test_safe_reward_refuses_what_is_not_a_finite_number():
    assert safe_reward(_Returns(True), "", "") == (1.0, None)
    assert safe_reward(_Returns("high"), "", "")[1].endswith("not a number")
    assert "nan" in safe_reward(_Returns(float("nan")), "", "")[1]


# -- GenEnv's Python API (gymverse.genenv.utils) ------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply, gold, expected",
    [
        (r"so \boxed{ 42 }", "42", 1.0),
        (r"\boxed{\frac{1}{2}}", r"\frac{1}{2}", 1.0),  # braces nest
        (r"\boxed{Paris}", '"paris"', 1.0),  # quotes and case aside
        ("$7$", "7", 1.0),  # no box: the reply itself, less $...$
        (r"\boxed{4}", {"answer": "4"}, 1.0),
        (r"\boxed{4}", '{"answer": "4", "explanation": "2 + 2"}', 1.0),  # JSON holding the answer
        (r"\boxed{0.5}", "1/2", 0.0),  # GenEnv's rule compares text; math-verify is the math manager's
        (r"\boxed{}", "", 0.0),
    ],
)
def test_genenvs_reward_manager(reply, gold, expected):
    from gymverse.genenv.utils import RewardManager

    assert RewardManager(tokenizer=None, num_examine=0).compute_reward(reply, gold) == expected
    assert load_reward_manager("genenv").compute_reward(reply, gold) == expected


def test_genenvs_tool_calling_rule_takes_one_matching_call_with_the_gold_arguments():
    from gymverse.genenv.utils import ToolCallingRewardManager

    manager = ToolCallingRewardManager(None)
    gold = {"name": "get_weather", "parameters": {"city": "Paris", "unit": ""}}
    extra = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>'
    assert manager.compute_reward(extra, gold) == 1.0  # more arguments, and the empty gold one, are fine
    assert manager.compute_reward("<tool_call>{bad}</tool_call>" + extra, [gold]) == 1.0  # a malformed block is skipped
    assert manager.compute_reward(extra.replace("Paris", "Oslo"), gold) == 0.0
    assert manager.compute_reward("get_weather(city='Paris')", gold) == 0.0
    assert manager._match_tool_call(
        {"name": "f", "parameters": {"a": 1, "b": 2}}, [{"name": "f", "parameters": {"a": 1}}]
    )
    exact = ExactToolCallRewardManager()
    assert exact.compute_reward(extra, '{"name": "get_weather", "arguments": {"city": "Paris"}}') == 0.0


@pytest.mark.parametrize(
    "reply, gold, expected",
    [
        ("I will click(bid=12) now.", "click(bid=12)", 1.0),
        ("type( bid = 7 , value = hello )", "type(bid=7, value=hello)", 1.0),  # normalized
        ("go_back()", {"answer": "go_back()"}, 1.0),
        ('select_option(bid=3, options="Red")', '{"answer": "select_option(bid=3, options=\\"Red\\")"}', 1.0),
        ("click(bid=12) then click(bid=13)", "click(bid=12)", 0.0),  # every action must be expected
        ("click(bid=12) then click(bid=13)", ["click(bid=12)", "click(bid=13)"], 1.0),
        ("prototype(bid=12)", "type(bid=12)", 0.0),
        ("nothing to do", "click(bid=12)", 0.0),
    ],
)
def test_genenvs_action_reward_manager(reply, gold, expected):
    from gymverse.genenv.utils import ActionRewardManager

    assert ActionRewardManager(None).compute_reward(reply, gold) == expected
    assert load_reward_manager("action").compute_reward(reply, gold) == expected


GENENV_REWARD_FILE = '''
from genenv.utils import RewardManager


class ShortAnswer(RewardManager):
    """A GenEnv user's manager: it leans on GenEnv's helpers."""

    def compute_reward(self, generated_text, ground_truth):
        pred = self._normalize_answer(self._extract_boxed_answer(generated_text))
        gold = self._normalize_answer(self._get_gold_answer(ground_truth))
        return 1.0 if pred and pred == gold and len(pred) < 10 else 0.0
'''


def test_a_genenv_reward_file_runs_once_its_import_line_is_changed(tmp_path, monkeypatch):
    ported = GENENV_REWARD_FILE.replace("from genenv.utils import", "from gymverse.genenv.utils import")
    assert ported.count("\n") == GENENV_REWARD_FILE.count("\n")  # that line and nothing else
    (tmp_path / "ported_rewards.py").write_text(ported)
    monkeypatch.syspath_prepend(str(tmp_path))
    manager = load_reward_manager("ported_rewards:ShortAnswer", tokenizer="the agent's tokenizer")
    assert manager.tokenizer == "the agent's tokenizer" and manager.num_examine == 0
    assert manager.compute_reward(r"\boxed{ Paris }", {"answer": "paris"}) == 1.0
    assert manager.compute_reward(r"\boxed{Constantinople}", "Constantinople") == 0.0
    sys.modules.pop("ported_rewards", None)


def test_a_subclass_of_genenvs_own_class_works_where_genenv_is_installed(tmp_path, monkeypatch):
    """GenEnv's RewardManager takes a tokenizer with no default; a stand-in ``genenv`` package has that signature."""
    package = tmp_path / "genenv" / "utils"
    package.mkdir(parents=True)
    (tmp_path / "genenv" / "__init__.py").write_text("")
    (package / "__init__.py").write_text(
        textwrap.dedent("""
        class RewardManager:
            def __init__(self, tokenizer, num_examine: int = 0):
                self.tokenizer, self.num_examine = tokenizer, num_examine
    """)
    )
    (tmp_path / "their_rewards.py").write_text(
        textwrap.dedent("""
        from genenv.utils import RewardManager

        class Echo(RewardManager):
            def compute_reward(self, generated_text, ground_truth):
                return float(generated_text.strip() == str(ground_truth))
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    manager = load_reward_manager("their_rewards:Echo", tokenizer="tok")
    assert manager.tokenizer == "tok" and manager.compute_reward(" 4 ", 4) == 1.0
    for name in ("their_rewards", "genenv.utils", "genenv"):
        sys.modules.pop(name, None)


def test_num_examine_prints_that_many_scored_replies(capsys):
    from gymverse.genenv.attempts import answer_tasks
    from gymverse.genenv.utils import RewardManager
    from gymverse.policy.base import Generation

    class Echo:
        def generate(self, prompts, stop_at_box=None):
            return [Generation(rf"\boxed{{{p}}}") for p in prompts]

    replies = answer_tasks(Echo(), ["1", "2"], ["1", "3"], 2, RewardManager(None, num_examine=3))
    assert [[r.reward for r in group] for group in replies] == [[1.0, 1.0], [0.0, 0.0]]
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3 and printed[0].startswith("[reward] reply '\\\\boxed{1}'")
