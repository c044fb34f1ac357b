"""A GenEnv run that survives its user: failing endpoints, a full disk, bad rows; each one line and a resumable run."""

import errno

import pytest

from gymverse.errors import ResourceError
from gymverse.genenv.cli import main as genenv_main
from gymverse.policy.openai_compat import OpenAICompatiblePolicy
from gymverse.run.checkpoints import STATE_FILE, load_trainer_state
from gymverse.run.files import RunFiles
from gymverse.testing.scripted_server import Script, ScriptedServer
from tests.test_genenv_loop import games_argv

FAULTS = {
    "HTTP 500: scripted HTTP 500": {"status": 500},
    "an answer that is not the API's JSON": {"body": '{"id": "x", "choices": [{"text": '},
    "no answer within 0.5 s": {"delay_s": 2.0, "text": "late"},
    "an answer without choices": {"no_choices": True},
}


# -- the endpoint policy ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("what", FAULTS)
def test_a_failing_endpoint_is_asked_again_then_named_with_what_it_answered(what):
    script = Script.load({"rules": [{"name": "r", "answers": [FAULTS[what]]}]})
    with ScriptedServer(script) as server:
        policy = OpenAICompatiblePolicy(server.url, "scripted", timeout=0.5, retries=2, backoff=0.01)
        with pytest.raises(ResourceError) as error:
            policy.generate(["one prompt"])
    assert str(error.value) == f"endpoint {server.url} (model scripted): {what} (3 tries)"
    assert script.log == ["r#0", "r#1", "r#2"]


def test_an_endpoint_that_recovers_answers_and_one_that_refuses_is_not_asked_again():
    script = Script.load({"rules": [{"name": "r", "answers": [{"status": 503}, {"body": "garbage"}, "fine"]}]})
    with ScriptedServer(script) as server:
        policy = OpenAICompatiblePolicy(server.url, "scripted", retries=2, backoff=0.01)
        assert policy.generate(["hi"])[0].text == "fine"
    script = Script.load({"rules": [{"name": "r", "answers": [{"status": 404}]}]})
    with ScriptedServer(script) as server:
        with pytest.raises(ResourceError, match=r"HTTP 404: scripted HTTP 404 \(1 try\)"):
            OpenAICompatiblePolicy(server.url, "scripted", retries=2, backoff=0.01).generate(["hi"])
    assert script.log == ["r#0"]


# -- a run whose environment endpoint fails ---------------------------------------------------------------------
SPEC = '{"game": "GridCourier", "complexity": 1, "seed": 7}'


def endpoint_script(fault: dict | None) -> Script:
    """The environment model: a valid spec for GridCourier, garbage for MailSorter, two of each a step; with
    ``fault``, every request from step 3 on fails so."""
    rules = []
    for game, answer in (("GridCourier", SPEC), ("MailSorter", "No.")):
        answers = [answer] * 4 + ([fault] if fault else [])
        rules.append({"name": game, "when": [f"game: gymverse:{game};"], "answers": answers})
    return Script.load({"model": "scripted", "rules": rules})


def endpoint_run(url: str, out, *extra: str) -> list[str]:
    return games_argv(
        "oracle",
        f"openai:{url}#scripted",
        out,
        "--env_prompt_template",
        "no",
        "--steps_per_epoch",
        "4",
        "--save_steps",
        "1",
        "--eval_n",
        "1",
        "--request_timeout",
        "0.5",
        "--request_retries",
        "1",
        *extra,
    )


def same_logs(run, straight, names=("genenv_metrics.jsonl", "generated_tasks.jsonl", "episode_details.jsonl")):
    for name in names:
        assert (run / name).read_text() == (straight / name).read_text(), name


@pytest.mark.parametrize("what", FAULTS)
def test_a_failing_environment_endpoint_stops_the_run_in_one_line_and_resume_ends_it_as_if_nothing_happened(
    tmp_path, capsys, what
):
    with ScriptedServer(endpoint_script(None)) as server:
        assert genenv_main(endpoint_run(server.url, tmp_path / "a")) == 0
    capsys.readouterr()
    with ScriptedServer(endpoint_script(FAULTS[what])) as server:
        assert genenv_main(endpoint_run(server.url, tmp_path / "b")) == 1
        url, port = server.url, server.server_address[1]
    out = capsys.readouterr().err
    run = tmp_path / "b" / "t"
    [line] = [line for line in out.splitlines() if line.startswith("error:")]
    assert line.startswith(f"error: endpoint {url} (model scripted): {what} (2 tries); stopped at step 2 of 4: ")
    assert f"the run was last saved in {run / STATE_FILE} (step 2); the same command with --resume" in line
    assert "Traceback" not in out and load_trainer_state(run)["step"] == 2
    with ScriptedServer(endpoint_script(None), port=port) as server:  # the endpoint is back: the same command resumes
        assert genenv_main(endpoint_run(server.url, tmp_path / "b", "--resume")) == 0
    same_logs(run, tmp_path / "a" / "t")


# -- a full disk ------------------------------------------------------------------------------------------------
def uniform_run(out, *extra: str) -> list[str]:
    return games_argv("oracle", "uniform", out, "--steps_per_epoch", "4", "--save_steps", "1", "--eval_n", "1", *extra)


def test_a_full_disk_is_one_line_and_the_last_save_stays_whole(tmp_path, monkeypatch, capsys):
    import torch

    assert genenv_main(uniform_run(tmp_path / "a")) == 0
    real_save, saves = torch.save, []

    def save_until_the_disk_is_full(state, path):
        saves.append(path)
        if len(saves) < 3:
            return real_save(state, path)
        with open(path, "wb") as file:
            file.write(b"half a state")
        raise RuntimeError(
            "[enforce fail at inline_container.cc:672] . PytorchStreamWriter failed writing file "
            "data/0: file write failed\nmore torch lines"
        )

    monkeypatch.setattr(torch, "save", save_until_the_disk_is_full)
    capsys.readouterr()
    assert genenv_main(uniform_run(tmp_path / "b")) == 1
    out = capsys.readouterr().err
    run = tmp_path / "b" / "t"
    [line] = [line for line in out.splitlines() if line.startswith("error:")]
    assert line.startswith(f"error: cannot save step 3 in {run} (") and "MB free on its disk): [enforce fail" in line
    assert line.endswith(
        f"stopped at step 3 of 4: the run was last saved in {run / STATE_FILE} (step 2); the same "
        "command with --resume continues from it"
    )
    assert not (run / "trainer_state.tmp").exists()
    monkeypatch.setattr(torch, "save", real_save)
    assert load_trainer_state(run)["step"] == 2
    assert genenv_main(uniform_run(tmp_path / "b", "--resume")) == 0
    same_logs(run, tmp_path / "a" / "t")


def test_a_log_line_the_disk_cannot_take_stops_the_step_and_resume_redoes_it(tmp_path, monkeypatch, capsys):
    assert genenv_main(uniform_run(tmp_path / "a")) == 0
    append = RunFiles.append

    def append_until_the_disk_is_full(self, name, record):
        if name == "genenv_metrics.jsonl" and record["step"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return append(self, name, record)

    monkeypatch.setattr(RunFiles, "append", append_until_the_disk_is_full)
    assert genenv_main(uniform_run(tmp_path / "b")) == 1
    assert (
        "error: step 3: [Errno 28] No space left on device; stopped at step 2 of 4: the run was last saved"
        in capsys.readouterr().err
    )
    monkeypatch.setattr(RunFiles, "append", append)
    assert genenv_main(uniform_run(tmp_path / "b", "--resume")) == 0
    same_logs(tmp_path / "b" / "t", tmp_path / "a" / "t")


# -- bad rows ---------------------------------------------------------------------------------------------------
def test_a_prompt_over_the_length_limit_is_refused_at_load_by_its_row_number(micro_model, tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [{"prompt": f"What is {k} + 1?", "reward_model": {"ground_truth": str(k + 1)}} for k in range(4)]
    rows[2]["prompt"] = "x" * 1_000_000  # a 1 MB prompt
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "train.parquet")
    argv = [
        f"data.train_files={tmp_path / 'train.parquet'}",
        f"actor_rollout_ref.model.path={micro_model}",
        f"env_model_path={micro_model}",
        f"trainer.default_local_dir={tmp_path}",
        "--wb_run_name",
        "t",
        "--generate_max_length",
        "4",
        "--prompt_template",
        "no",
    ]
    assert genenv_main(argv + ["data.max_prompt_length=64"]) == 2
    out = capsys.readouterr().err
    assert (
        f"error: data.train_files={tmp_path / 'train.parquet'}: row 2: its prompt is 1000000 tokens, over "
        "data.max_prompt_length=64; veRL refuses it too"
        in out
        and "Traceback" not in out
    )
    assert (
        genenv_main(
            argv
            + [
                "data.max_prompt_length=64",
                "data.filter_overlong_prompts=True",
                "trainer.total_epochs=1",
                "data.train_batch_size=3",
                "genenv.enable=False",
            ]
        )
        == 0
    )
    assert "dropped 1 of 4 rows longer than --max_prompt_length 64 tokens" in capsys.readouterr().out
