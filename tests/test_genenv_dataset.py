"""GenEnv's dataset task space: parquet in and out, the rewrite template and parser, the verifiers."""

import pytest

pa = pytest.importorskip("pyarrow", reason="GenEnv's parquet datasets need pyarrow (a dependency in pyproject.toml)")
import pyarrow.parquet as pq  # noqa: E402

from gymverse.errors import BadInput  # noqa: E402
from gymverse.genenv.dataset import derived_row, read_tasks, task_text, write_tasks
from gymverse.genenv.rewrite import DEFAULT_TASK_TEMPLATE, load_task_parser, load_task_template, parse_new_task
from gymverse.genenv.verifiers import arithmetic_value, listed_tools, select_verifier, verify_math, verify_tool_call

ROWS = [
    {
        "data_source": "toy_math",
        "prompt": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 2 + 2?"}],
        "ability": "math",
        "reward_model": {"ground_truth": "4", "style": "rule"},
        "extra_info": {"index": 0, "split": "train"},
    },
    {
        "data_source": "toy_math",
        "prompt": [{"role": "user", "content": "What is 3 * 5?"}],
        "ability": "math",
        "reward_model": {"ground_truth": "15", "style": "rule"},
        "extra_info": {"index": 1, "split": "train"},
    },
]


@pytest.fixture
def parquet(tmp_path):
    path = tmp_path / "train.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), path)
    return path


def test_parquet_round_trip_keeps_genenv_columns(parquet, tmp_path):
    table = read_tasks(parquet)
    assert table.rows == ROWS
    row, reason = derived_row(table.rows[0], "What is 6 + 7?", "13", table.schema)
    assert reason is None
    assert row["prompt"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 6 + 7?"}]
    assert row["reward_model"] == {"ground_truth": "13", "style": "rule"}
    assert row["extra_info"] == ROWS[0]["extra_info"] and row["data_source"] == "toy_math"
    out = write_tasks(tmp_path / "epoch_001.parquet", table.rows + [row], table.schema)
    written = pq.read_table(out)
    assert written.schema.equals(pq.read_table(parquet).schema)
    assert written.to_pylist() == ROWS + [row]
    assert not list(tmp_path.glob("*.partial"))
    assert table.rows == ROWS  # the parent row is untouched


def test_string_prompts_and_typed_ground_truths(tmp_path):
    path = tmp_path / "numbers.parquet"
    pq.write_table(pa.Table.from_pylist([{"prompt": "What is 1 + 1?", "reward_model": {"ground_truth": 2}}]), path)
    table = read_tasks(path)
    row, reason = derived_row(table.rows[0], "What is 2 + 5?", "7", table.schema)
    assert reason is None and row == {"prompt": "What is 2 + 5?", "reward_model": {"ground_truth": 7}}
    row, reason = derived_row(table.rows[0], "What is 2 + 5?", "seven", table.schema)
    assert row is None and "int64" in reason


@pytest.mark.parametrize(
    "rows, message",
    [
        ([{"prompt": "q", "answer": "a"}], "missing column.*reward_model"),
        ([{"question": "q", "reward_model": {"ground_truth": "a"}}], "missing column.*prompt"),
        ([{"prompt": "q", "reward_model": {"style": "rule"}}], "row 0: reward_model has no ground_truth"),
        ([{"prompt": [{"role": "system", "content": "s"}], "reward_model": {"ground_truth": "a"}}], "row 0: prompt"),
        (
            [
                {"prompt": "q", "reward_model": {"ground_truth": "a"}},
                {"prompt": "r", "reward_model": {"ground_truth": " "}},
            ],
            "row 1: reward_model.ground_truth is empty",
        ),
        ([{"prompt": "q", "reward_model": {"ground_truth": []}}], "row 0: reward_model.ground_truth is empty"),
    ],
)
def test_bad_parquet_files_are_named_with_the_reason(tmp_path, rows, message):
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    with pytest.raises(BadInput, match=message) as error:
        read_tasks(path, flag="data.train_files")
    assert str(path) in str(error.value) and "data.train_files" in str(error.value)


def test_empty_missing_and_unreadable_files(tmp_path):
    empty = tmp_path / "empty.parquet"
    schema = pa.schema([("prompt", pa.string()), ("reward_model", pa.struct([("ground_truth", pa.string())]))])
    pq.write_table(schema.empty_table(), empty)
    with pytest.raises(BadInput, match="empty"):
        read_tasks(empty)
    with pytest.raises(BadInput, match="no such file"):
        read_tasks(tmp_path / "nowhere.parquet")
    (tmp_path / "text.parquet").write_text("not parquet")
    with pytest.raises(BadInput, match="not a readable parquet"):
        read_tasks(tmp_path / "text.parquet")


def test_task_text_reads_the_last_user_message():
    assert task_text("plain") == "plain"
    assert (
        task_text(
            [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]
        )
        == "c"
    )
    assert task_text([{"role": "system", "content": "s"}]) is None


# -- rewrite template and parser ----------------------------------------------------------------
def test_parse_new_task():
    assert parse_new_task("New Task: What is 6 + 7?\nNew Answer: 13") == ("What is 6 + 7?", "13")
    text = "Ideas... new task: draft\nNew answer: x\nNew Task:  Final one?\n\nNew Answer:\n<tool_call>{}</tool_call> "
    assert parse_new_task(text) == ("Final one?", "<tool_call>{}</tool_call>")  # the last pair wins
    for garbage in ("", "New Task: no answer", "New Task:\nNew Answer: 3", "New Task: q New Answer:  ", "\x00" * 50):
        assert parse_new_task(garbage) is None
    assert "{task}" in DEFAULT_TASK_TEMPLATE and "{answer}" in DEFAULT_TASK_TEMPLATE


def test_template_and_parser_are_replaceable(tmp_path, monkeypatch):
    good = tmp_path / "template.txt"
    good.write_text('Rewrite {task} (answer {answer}) as JSON {{"q": ..., "a": ...}}')
    assert load_task_template(str(good)).startswith("Rewrite {task}")
    bad = tmp_path / "bad.txt"
    bad.write_text("Rewrite {question}")
    with pytest.raises(BadInput, match="--task_template"):
        load_task_template(str(bad))
    (tmp_path / "my_parser.py").write_text(
        "def parse(text):\n    q, _, a = text.partition('=>')\n    return (q.strip(), a.strip()) if a else None\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_task_parser("my_parser:parse")("1+1 => 2") == ("1+1", "2")
    with pytest.raises(BadInput, match="--task_parser"):
        load_task_parser("my_parser:missing")


# -- verifiers ----------------------------------------------------------------------------------
def test_math_verifier_rederives_arithmetic():
    assert arithmetic_value("What is 12 * (3 + 4)?") == 84
    assert arithmetic_value("Compute 2^10 - 1.") == 1023
    assert arithmetic_value("In 2024 Bob had 3 apples.") is None
    assert verify_math("", "What is 7 / 2?", r"\frac{7}{2}") is None
    assert verify_math("", "What is 7 / 2?", "3.5") is None
    assert "gives 4" in verify_math("", "What is 2 + 2?", "5")
    assert verify_math("", "How many legs has a spider?", "8") is None
    assert "math-verify" in verify_math("", "How many legs has a spider?", "eight legs")


TOOLS = (
    'You may call these tools:\n<tools>\n[{"type": "function", "function": {"name": "get_weather", "parameters": '
    '{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, '
    '"required": ["city"]}}}]\n</tools>'
)


def test_tool_call_verifier_checks_calls_against_the_prompts_tools():
    assert list(listed_tools(TOOLS)) == ["get_weather"]
    ok = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
    assert verify_tool_call(TOOLS, "t", ok) is None
    assert "not one of" in verify_tool_call(TOOLS, "t", ok.replace("get_weather", "get_time"))
    assert "required" in verify_tool_call(TOOLS, "t", ok.replace('"city"', '"days"'))
    assert "has no argument" in verify_tool_call(TOOLS, "t", ok.replace('"Oslo"}', '"Oslo", "unit": "C"}'))
    assert "well-formed" in verify_tool_call(TOOLS, "t", "<tool_call>{'name': 'get_weather'}</tool_call>")
    assert verify_tool_call("no tools here", "t", ok) is None  # well formed is all that can be checked


def test_select_verifier():
    assert select_verifier("auto", "math") is verify_math
    assert select_verifier("auto", "tool_call") is verify_tool_call
    assert select_verifier("auto", "paper") is None
    with pytest.raises(BadInput, match="--verifier"):
        select_verifier("strict", "math")


# -- veRL's prompt limit, validation settings, the KL in the reward ------------------------------------------
def space_for(path, **flags):
    from gymverse.genenv.config import GenEnvArgs
    from gymverse.genenv.dataset_space import DatasetSpace

    return DatasetSpace(GenEnvArgs(train_files=str(path), task_space="datasets", prompt_template="no", **flags), seed=0)


class Agent:
    """A scripted agent with the tiny byte tokenizer: it answers each prompt with its length in a box."""

    def __init__(self):
        from gymverse.policy.tiny import build_tiny_tokenizer

        self.tokenizer, self.prompts = build_tiny_tokenizer(), []

    def generate(self, prompts, stop_at_box=None):
        from gymverse.policy.base import Generation

        self.prompts.append(list(prompts))
        return [Generation(rf"\boxed{{{len(p)}}}") for p in prompts]


def long_rows(tmp_path):
    rows = [{"prompt": "x" * n, "reward_model": {"ground_truth": str(n)}} for n in (10, 200, 20, 300)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "long.parquet")
    return tmp_path / "long.parquet"


def test_prompts_over_the_limit_are_refused_dropped_or_cut_as_verl_does(tmp_path, capsys):
    from gymverse.genenv.sides import Side

    path = long_rows(tmp_path)
    with pytest.raises(BadInput, match=r"row 1: its prompt is 200 tokens, over --max_prompt_length 100 \(and 1 more"):
        space_for(path, max_prompt_length=100).attach(Side("agent", Agent()))
    space = space_for(path, max_prompt_length=100, filter_overlong_prompts=True)
    space.attach(Side("agent", Agent()))
    assert [len(row["prompt"]) for row in space.rows] == [10, 20] and len(space.order) == 2
    assert "dropped 2 of 4 rows longer than --max_prompt_length 100 tokens" in capsys.readouterr().out
    for truncation in ("left", "right"):
        agent = Agent()
        space = space_for(path, max_prompt_length=100, truncation=truncation)
        space.attach(Side("agent", agent))
        space.answer(Side("agent", agent), space.rows)
        assert [len(p) for p in agent.prompts[-1][::4]] == [10, 100, 20, 100]
    space = space_for(path, max_prompt_length=400)
    space.attach(Side("agent", Agent()))
    row, reason = space.read(space.rows[0], "New Task: " + "y" * 450 + "\nNew Answer: 2")
    assert row is None and reason == "its prompt is 450 tokens, over --max_prompt_length 400"


def test_validation_answers_val_n_replies_val_batch_size_prompts_at_a_time(tmp_path):
    from gymverse.genenv.sides import Side
    from gymverse.run.files import RunFiles

    rows = [{"prompt": "x" * n, "reward_model": {"ground_truth": str(n if n % 2 else -1)}} for n in range(1, 6)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "val.parquet")
    space = space_for(
        long_rows(tmp_path), val_files=str(tmp_path / "val.parquet"), val_n=3, val_batch_size=2, max_prompt_length=400
    )
    agent = Agent()
    space.attach(Side("agent", agent))
    files = RunFiles(tmp_path / "run", extra_logs=("eval_metrics.jsonl",))
    assert space.evaluate(Side("agent", agent), 7, files) == {"eval/val_mean_reward": pytest.approx(3 / 5)}
    assert [len(call) for call in agent.prompts] == [6, 6, 3]  # 2, 2 and 1 prompts, 3 replies each
    assert files.read("eval_metrics.jsonl") == [{"step": 7, "val_mean_reward": pytest.approx(0.6), "val_prompts": 5}]
