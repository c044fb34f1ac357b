"""The sandbox turns whatever a file of games does into a verdict on that file alone."""

import os
import sys
from pathlib import Path

import pytest

import gymverse
from gymverse.env.registry import registered_ids
from gymverse.sandbox import Limits, Sandbox, judge_file, judge_folder, vet
from gymverse.sandbox.jobs import list_games

HOSTILE = Path(__file__).parent / "fixtures" / "hostile_envs"
QUICK = dict(levels=[1, 2, 3], seeds=2)


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(Limits(seconds=2, memory_mb=512)) as box:
        yield box


@pytest.fixture(scope="module")
def verdicts(sandbox):
    return {Path(v.file).name: v for v in judge_folder(HOSTILE, sandbox=sandbox, **QUICK)}


def test_each_hostile_file_gets_its_own_verdict(verdicts):
    assert verdicts["import_loop.py"].error.startswith("hung: still running after 2 s")
    [exits] = verdicts["exits_in_reset.py"].games
    assert exits.verdict == "FAIL" and exits.error.startswith("exited")
    [greedy] = verdicts["greedy_init.py"].games
    assert greedy.verdict == "FAIL" and "MemoryError" in greedy.problems()[0]
    [deep] = verdicts["deep_recursion.py"].games
    assert "RecursionError" in deep.problems()[0]
    assert not any(v.accepted for name, v in verdicts.items() if name in {
        "import_loop.py", "exits_in_reset.py", "greedy_init.py", "deep_recursion.py"})


def test_a_sys_modules_edit_does_not_poison_the_next_files(verdicts):
    assert verdicts["a_edits_sys_modules.py"].accepted  # a helper file: no games, no harm
    for name in ("tally.py", "twin_one.py", "twin_two.py"):
        assert verdicts[name].accepted and verdicts[name].games, name


def test_same_class_name_in_two_files_gets_two_ids_that_name_the_file(verdicts):
    one, two = verdicts["twin_one.py"].games[0], verdicts["twin_two.py"].games[0]
    assert (one.env_id, two.env_id) == ("hostile_envs:twin_one.Echo", "hostile_envs:twin_two.Echo")
    assert one.file.endswith("twin_one.py") and two.file.endswith("twin_two.py")


def test_a_correct_game_without_info_success_passes_with_a_mark(verdicts):
    [tally] = verdicts["tally.py"].games
    assert tally.verdict == "pass with warnings"
    assert all(r.passed is not False for r in tally.report.results)
    ran = {r.name for r in tally.report.results if r.passed}
    assert {"determinism", "complexity timing", "episode ends", "bad actions", "success flag"} <= ran
    assert any("success inferred from the reward" in line for line in tally.problems())


def test_the_caller_is_untouched(verdicts):
    assert "gem.core" in sys.modules and hasattr(sys.modules["gem.core"], "Env")
    assert not any(i.startswith("hostile_envs:") for i in registered_ids())
    assert Path.cwd().exists() and os.getpid()


def test_jobs_keep_their_output_and_scratch_apart(sandbox, tmp_path):
    script = tmp_path / "noisy.py"
    script.write_text("import os\nprint('hello from', os.getcwd())\nopen('left_behind.txt', 'w').write('x')\n")
    outcome = sandbox.run(list_games, str(script))
    assert outcome.ok and outcome.value == []
    assert "hello from" in outcome.output and "gymverse-sandbox-" in outcome.output
    scratch = outcome.output.split("hello from ")[1].strip()
    assert not Path(scratch).exists() and not (tmp_path / "left_behind.txt").exists()


def test_no_network_and_exit_codes_are_verdicts(sandbox, tmp_path):
    (tmp_path / "net.py").write_text("import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)\n")
    (tmp_path / "bye.py").write_text("import sys\nsys.exit(3)\n")
    assert "no network" in sandbox.run(list_games, str(tmp_path / "net.py")).detail
    bye = sandbox.run(list_games, str(tmp_path / "bye.py"))
    assert bye.verdict == "exit" and "sys.exit(3)" in bye.detail


def test_results_cannot_smuggle_code_back(sandbox):
    outcome = sandbox.run(os.getcwd)  # a plain string comes back
    assert outcome.ok and "gymverse-sandbox-" in outcome.value
    refused = sandbox.run(Path.cwd)  # a pathlib object is not gymverse data
    assert refused.verdict == "raised" and "may not contain" in refused.detail


def test_judge_file_names_games_by_prefix(sandbox):
    verdict = judge_file(HOSTILE / "tally.py", prefix="candidate", sandbox=sandbox, **QUICK)
    assert [g.env_id for g in verdict.games] == ["candidate:TallyGame"]
    with pytest.raises(FileNotFoundError):
        judge_file(HOSTILE / "missing.py")


def test_register_env_dir_can_vet_in_the_sandbox(tmp_path):
    folder = tmp_path / "vetted"
    folder.mkdir()
    for name in ("tally.py", "exits_in_reset.py", "twin_one.py", "twin_two.py"):
        (folder / name).write_text((HOSTILE / name).read_text())
    try:
        report = gymverse.register_env_dir(folder, vet=vet)
        assert sorted(report.registered) == ["vetted:TallyGame", "vetted:twin_one.Echo", "vetted:twin_two.Echo"]
        assert "exited" in report.failed["vetted:ExitsInReset"]
        assert report.files["vetted:twin_two.Echo"].endswith("twin_two.py")
    finally:
        from gem.envs.registration import ENV_REGISTRY
        for env_id in [i for i in ENV_REGISTRY if i.startswith("vetted:")]:
            del ENV_REGISTRY[env_id]


def run_cli(argv, capsys):
    from gymverse import cli

    try:
        cli.main(argv)
        code = 0
    except SystemExit as exit_:
        code = exit_.code or 0
    out = capsys.readouterr()
    return code, out.out + out.err


def test_check_dir_survives_every_hostile_file_names_it_and_exits_non_zero(capsys):
    code, out = run_cli(["check", "--dir", str(HOSTILE), "--seeds", "1", "--max-level", "2", "--time-limit", "2"],
                        capsys)
    assert code == 1
    for shown in ("import_loop.py", "import hung: still running after 2 s (in <module>, import_loop.py:",
                  "hostile_envs:ExitsInReset", "exits_in_reset.py", "exited", "MemoryError", "RecursionError",
                  "hostile_envs:twin_one.Echo", "hostile_envs:twin_two.Echo", "success inferred from the reward",
                  "4 of 7 failed (2 could not be imported or built)"):
        assert shown in out, shown


def test_check_dir_can_tolerate_files_that_do_not_import(tmp_path, capsys):
    (tmp_path / "tally.py").write_text((HOSTILE / "tally.py").read_text())
    (tmp_path / "broken.py").write_text("import a_module_that_does_not_exist\n")
    argv = ["check", "--dir", str(tmp_path), "--seeds", "1", "--max-level", "2"]
    code, out = run_cli(argv, capsys)
    assert code == 1 and "ModuleNotFoundError" in out and "pass with warnings" in out
    code, _ = run_cli(argv + ["--tolerate-broken-files"], capsys)
    assert code == 0


@pytest.mark.parametrize("where, message", [
    (HOSTILE / "tally.py", "tally.py is a file: give the folder that holds it"),
    ("empty", "no games found in"),
    ("missing", "no such env folder"),
])
def test_check_dir_says_what_is_wrong_with_the_folder(where, message, tmp_path, capsys):
    if where == "empty":
        where = tmp_path
    elif where == "missing":
        where = tmp_path / "missing"
    code, out = run_cli(["check", "--dir", str(where)], capsys)
    assert code == 2 and message in out
