"""Environment synthesis against a scripted OpenAI-compatible server: no model, every verdict for the right reason."""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import gem
import pytest

import gymverse
from gymverse.cli import main
from gymverse.errors import BadInput
from gymverse.sandbox import Limits
from gymverse.synthesis.design import design_errors, extract_json, parse_design
from gymverse.synthesis.gates import GateSettings, JailGates
from gymverse.synthesis.modules import extract_code, snake_case
from gymverse.synthesis.novelty import Novelty
from gymverse.synthesis.pipeline import Theme, plan_candidates, read_themes
from gymverse.synthesis.prompts import Prompts
from gymverse.synthesis.records import JsonlLog
from gymverse.synthesis.run import adopt, synthesize
from gymverse.synthesis.writer import Writer
from gymverse.testing.scripted_server import Script, ScriptedServer

HERE = Path(__file__).parent / "fixtures" / "synthesis"
SCRIPT = HERE / "script.json"
GOOD_DESIGN = json.loads((HERE / "designs" / "hive_census.json").read_text())
HOSTILE = Path(__file__).parent / "fixtures" / "hostile_envs"


def make_gates(embedder, output: Path) -> JailGates:
    """The gates as ``gymverse synthesize --output OUTPUT`` builds them: games judged under the report's ids."""
    limits = Limits(seconds=300, answer_seconds=5.0, import_seconds=10, memory_mb=2048)
    return JailGates(GateSettings(limits=limits, prefix=output.name), Novelty(embedder=embedder))


def scripted_code(rule: str, answer: int = 0) -> str:
    """The module that the script's ``rule`` gives as its ``answer``-th answer."""
    return extract_code(next(r for r in Script.load(SCRIPT).rules if r.name == rule).answers[answer].text)


def scripted_writer(server: ScriptedServer):
    return lambda: Writer(f"openai:{server.url}#scripted", timeout_s=30).ask


# -- stage 1: designs -------------------------------------------------------------------------------


def test_a_good_design_validates():
    assert design_errors(GOOD_DESIGN) == []
    design, errors = parse_design("Here it is:\n```json\n" + json.dumps(GOOD_DESIGN) + "\n```")
    assert errors == [] and design["name"] == "HiveCensus"


def test_a_bad_design_is_refused_with_every_reason():
    bad = dict(
        GOOD_DESIGN,
        name="hive census",
        commands=[],
        complexity_params=[{"name": "hives", "level_1": 5, "level_10": 5, "harder_because": "more"}],
    )
    del bad["solver"]
    errors = "\n".join(design_errors(bad))
    for part in ("name: a CamelCase", "commands: a non-empty list", "are equal", "solver: a non-empty string"):
        assert part in errors
    assert "already a game" in design_errors(GOOD_DESIGN, taken_names={"HiveCensus"})[0]


def test_design_json_is_found_fenced_or_bare_and_garbage_is_explained():
    assert extract_json('Sure. {"a": {"b": 1}} Done.') == {"a": {"b": 1}}
    assert parse_design("no json here")[1] == ["the answer holds no JSON object"]
    assert "not valid JSON" in parse_design("```json\n{'a': 1}\n```")[1][0]


# -- stage 2: modules -------------------------------------------------------------------------------


def test_the_module_is_the_fenced_block_that_defines_a_class():
    answer = "Plan:\n```python\nx = 1\n```\nModule:\n```python\nclass A:\n    pass\n```\nThat is all."
    assert extract_code(answer) == "class A:\n    pass\n"
    assert extract_code("I would rather describe it: class A has a method.") is None
    assert snake_case("HiveCensus") == "hive_census" and snake_case("APIChain") == "api_chain"


def test_prompts_are_package_files_a_folder_can_replace(tmp_path):
    own = Prompts()
    text = own.render("abstraction", theme="bees", domain="any", taken_names="PeakFinder", schema="{}")
    assert "Theme: bees" in text and "${" not in text
    (tmp_path / "abstraction.md").write_text("Design a game about ${theme}.")
    replaced = Prompts(tmp_path)
    assert replaced.render("abstraction", theme="bees") == "Design a game about bees."
    assert replaced.texts["construction"] == own.texts["construction"]
    (tmp_path / "abstraction.md").write_text("About ${subject}.")
    with pytest.raises(BadInput, match="placeholder"):
        Prompts(tmp_path).render("abstraction", theme="bees")


def test_themes_file_and_candidate_ids(tmp_path):
    themes = read_themes(HERE / "themes.txt")
    assert themes[0] == Theme("beekeeping", "algorithms") and Theme("orchards") in themes
    ids = [c.id for c in plan_candidates([Theme("Bee keeping!"), Theme("bee keeping")], 2)]
    assert ids == ["bee-keeping-1", "bee-keeping-2", "bee-keeping-2-1", "bee-keeping-2-2"]
    (tmp_path / "empty.txt").write_text("# nothing\n\n")
    with pytest.raises(BadInput, match="no themes"):
        read_themes(tmp_path / "empty.txt")


def test_a_line_torn_by_a_kill_is_skipped_and_closed(tmp_path):
    log = JsonlLog(tmp_path / "log.jsonl")
    log.append({"a": 1})
    with log.path.open("a") as out:
        out.write('{"b": 2, "tor')
    log.append({"c": 3})
    assert log.read() == [{"a": 1}, {"c": 3}]


# -- the scripted server ----------------------------------------------------------------------------


def test_script_answers_are_files_with_replacements():
    broken, fixed = scripted_code("safe_cracker/code", 0), scripted_code("safe_cracker/code", 1)
    assert (
        "= 0, tpo" in broken and "= 0, tpo" not in fixed and fixed == (HERE / "games" / "safe_cracker.py").read_text()
    )
    with pytest.raises(ValueError, match="does not occur"):
        Script.load({"rules": [{"answers": [{"file": str(SCRIPT), "replace": [["no such text", ""]]}]}]})


def test_scripted_server_replays_answers_in_order_and_counts_tokens():
    script = Script.load({"rules": [{"name": "r", "when": ["hello"], "answers": ["one two", "three"]}]})
    with ScriptedServer(script) as server:
        ask = Writer(f"openai:{server.url}#scripted").ask
        answers = [ask("say hello please") for _ in range(3)]
        assert [a.text for a in answers] == ["one two", "three", "three"]
        assert (answers[0].prompt_tokens, answers[0].completion_tokens) == (3, 2)
        with pytest.raises(Exception, match="no scripted rule"):
            ask("goodbye")
        from openai import OpenAI

        assert [m.id for m in OpenAI(base_url=server.url, api_key="x").models.list()] == ["scripted"]
    assert script.log == ["r#0", "r#1", "r#2"]


def test_a_local_writer_answers_through_its_chat_template(tiny_dir, tmp_path):
    answer = Writer(str(tiny_dir), max_tokens=8).ask("Design a game about bees.")
    assert isinstance(answer.text, str) and answer.prompt_tokens > 20 and 0 < answer.completion_tokens <= 8
    plain = tmp_path / "plain"
    shutil.copytree(tiny_dir, plain)
    (plain / "chat_template.jinja").unlink()
    with pytest.raises(BadInput, match="no chat template"):
        Writer(str(plain))
    with pytest.raises(BadInput, match="language model"):
        Writer("oracle")


def test_novelty_refuses_a_twin_of_a_game_admitted_earlier_and_a_taken_name(embedder):
    novelty = Novelty(embedder=embedder, with_library=False)
    bees = ("Count the bees in every hive, then crown the fullest.", "> count 0\nHive 0 holds 140 bees.")
    dials = ("Open the safe dial by dial; each try says higher or lower.", "> try 7\nThe number is higher.")
    assert novelty.admit("HiveCensus", bees).passed and novelty.admit("SafeCracker", dials).passed
    twin = novelty.admit("BeeCount", bees)
    assert (twin.passed, twin.reason) == (False, "near_duplicate") and "HiveCensus" in twin.detail
    assert novelty.admit("SafeCracker", ("A new game.", "> go")).reason == "name_taken"
    assert novelty.admit("Silent", None).reason == "not_measured"


# -- the whole pipeline -----------------------------------------------------------------------------

EXPECTED = {  # candidate -> (status, reason, a phrase of some gate's detail)
    "beekeeping-1": ("accepted", "", "graded"),
    "orchards-1": ("refused", "crash", "level 7"),
    "dovecotes-1": ("refused", "solver_fails", "solver lost"),
    "stables-1": ("refused", "hang", "hung: no answer within 10 s"),
    "kennels-1": ("refused", "exit", "exited"),
    "mountain-surveys-1": ("refused", "near_duplicate", "gymverse:PeakFinder"),
    "granaries-1": ("refused", "no_code", "no ```python block"),
    "safe-cracking-1": ("accepted", "", "graded"),
}


@pytest.fixture(scope="module")
def scripted_run(tmp_path_factory, embedder):
    output = tmp_path_factory.mktemp("synth") / "made"
    script = Script.load(SCRIPT)
    gates = make_gates(embedder, output)
    replayed: list[str] = []  # games the audit report played again instead of taking the gates' play
    audit = gates.audit

    def audit_again(path, *args, **kwargs):
        replayed.append(path.name)
        return audit(path, *args, **kwargs)

    gates.audit = audit_again  # type: ignore[method-assign]
    with ScriptedServer(script) as server:
        summary = synthesize(
            read_themes(HERE / "themes.txt"), scripted_writer(server), output, gates, repairs=1, concurrency=3
        )
        served = list(script.log)
        again = synthesize(
            read_themes(HERE / "themes.txt"), scripted_writer(server), output, gates, repairs=1, concurrency=3
        )
    return summary, again, served, script.log, output, replayed


@pytest.mark.parametrize("candidate", sorted(EXPECTED))
def test_each_candidate_gets_the_right_verdict(scripted_run, candidate):
    summary = scripted_run[0]
    record = next(r for r in summary.records if r["candidate"] == candidate)
    status, reason, phrase = EXPECTED[candidate]
    assert (record["status"], record["reason"]) == (status, reason), record["gates"]
    assert any(phrase in g["detail"] for g in record["gates"]), record["gates"]


def test_a_broken_game_is_repaired_by_the_second_answer(scripted_run):
    summary, _, served, *_ = scripted_run
    record = next(r for r in summary.records if r["candidate"] == "safe-cracking-1")
    assert record["repair_rounds"] == 1 and record["status"] == "accepted"
    assert {"safe_cracker/code#0", "safe_cracker/code#1"} <= set(served)
    good = next(r for r in summary.records if r["candidate"] == "beekeeping-1")
    assert good["repair_rounds"] == 0 and "hive_census/code#1" not in served


def test_the_manifest_records_every_candidate_with_its_costs(scripted_run):
    summary, *_, output, _ = scripted_run
    records = JsonlLog(output / "manifest.jsonl").read()
    assert sorted(r["candidate"] for r in records) == sorted(EXPECTED)
    for record in records:
        assert record["theme"] and record["design"]["name"] and record["prompt_tokens"] > 0
        assert record["completion_tokens"] > 0 and record["writer_seconds"] >= 0 and record["gates"]
    accepted = next(r for r in records if r["candidate"] == "beekeeping-1")
    assert [g["gate"] for g in accepted["gates"]] == [
        "import",
        "checker",
        "solver",
        "correctness",
        "difficulty",
        "novelty",
    ]
    assert accepted["code_sha256"] and accepted["file"] == "hive_census.py"
    assert "2 accepted" in (output / "summary.md").read_text()
    assert "HiveCensus" in summary.audit["markdown"].read_text()


def test_the_audit_report_takes_the_gates_play_instead_of_playing_again(scripted_run):
    replayed, audit = scripted_run[5], scripted_run[0].audit["markdown"].read_text()
    assert replayed == [] and "HiveCensus" in audit and "SafeCracker" in audit


def test_accepted_games_load_and_play_like_library_games(scripted_run):
    output = scripted_run[4]
    assert sorted(p.name for p in output.glob("*.py")) == ["hive_census.py", "safe_cracker.py"]
    report = gymverse.register_env_dir(output)
    assert report.failed == {} and set(report.registered) >= {f"{output.name}:HiveCensus", f"{output.name}:SafeCracker"}
    env = gem.make(f"{output.name}:SafeCracker", complexity=12)
    env.reset(seed=3)
    for _ in range(200):
        _, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        if terminated or truncated:
            break
    assert info["success"] and reward == 1.0


def test_a_second_run_repeats_nothing(scripted_run):
    summary, again, served, log_after, *_ = scripted_run
    assert log_after == served  # not one request more
    assert again.records == summary.records


def test_adopt_copies_only_what_passes_and_marks_games_without_a_solver(tmp_path, embedder, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # relative folders, as typed on a command line
    source = Path("elsewhere")
    source.mkdir()
    for path in (
        *(HOSTILE / f for f in ("tally.py", "exits_in_reset.py", "raises_when_listed.py")),
        HERE / "games" / "hive_census.py",
    ):
        (source / path.name).write_text(path.read_text())
    (source / "dovecote_census.py").write_text(scripted_code("dovecote_census/code"))
    (source / "syntax_error.py").write_text("class Broken(:\n")
    summary = adopt(source, Path("adopted"), make_gates(embedder, Path("adopted")), concurrency=2)
    verdicts = {r["candidate"]: (r["status"], r["reason"]) for r in summary.records}
    assert summary.errors == {}  # a job that raised is left for the next run, and its record is missing
    refused = dict(
        exits_in_reset="exit",
        dovecote_census="solver_fails",
        syntax_error="import_error",
        raises_when_listed="import_error",
    )
    passed = {"tally": ("unverified", ""), "hive_census": ("accepted", "")}
    assert verdicts == passed | {name: ("refused", reason) for name, reason in refused.items()}
    tally = next(r for r in summary.records if r["candidate"] == "tally")
    assert next(g for g in tally["gates"] if g["gate"] == "solver")["reason"] == "unverified"
    assert sorted(p.name for p in Path("adopted").glob("*.py")) == ["hive_census.py", "tally.py"]
    assert "adopted:HiveCensus" in summary.audit["markdown"].read_text()
    capsys.readouterr()
    main(["envs", "--dir", "adopted"])
    listed = capsys.readouterr().out
    assert "adopted:TallyGame (unverified)" in listed and "adopted:HiveCensus " in listed


def test_resume_after_a_kill_loses_and_repeats_nothing(tmp_path):
    """A run killed (SIGKILL) while waiting for the model resumes where it stopped: every answer served once. (One
    game passes, so that the audit report of the games that passed is written at the end.)"""
    themes = tmp_path / "themes.txt"
    themes.write_text("granaries\nsafe cracking\n")
    output = tmp_path / "made"
    waiting, killed = threading.Event(), threading.Event()

    def hold_the_repair(rule: str, n: int):
        if killed.is_set() or (rule, n) != ("safe_cracker/code", 1):
            return True
        waiting.set()
        killed.wait(60)
        return False  # the client is dead: drop the request unanswered

    script = Script.load(SCRIPT)
    command = [
        sys.executable,
        "-m",
        "gymverse.cli",
        "synthesize",
        "--themes",
        str(themes),
        "--output",
        str(output),
        "--repairs",
        "1",
        "--concurrency",
        "1",
        "--time-limit",
        "300",
    ]
    with ScriptedServer(script, before_answer=hold_the_repair) as server:
        command += ["--model", f"openai:{server.url}#scripted"]
        first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        assert waiting.wait(240), "the run never asked for the repair"
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        killed.set()
        before = JsonlLog(output / "manifest.jsonl").read()
        assert [r["candidate"] for r in before] == ["granaries-1"]  # killed mid-run
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert script.log == [
        "silent_census/design#0",
        "silent_census/code#0",
        "silent_census/code#1",
        "safe_cracker/design#0",
        "safe_cracker/code#0",
        "safe_cracker/code#1",
    ]
    after = JsonlLog(output / "manifest.jsonl").read()
    assert after[0] == before[0] and [r["candidate"] for r in after] == ["granaries-1", "safe-cracking-1"]
    assert [r["status"] for r in after] == ["refused", "accepted"]
    assert "1 accepted, 0 unverified, 1 refused" in done.stdout
