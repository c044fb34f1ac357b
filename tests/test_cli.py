"""The gymverse command line: listing, playing and checking games; bad input exits cleanly."""

import re
import textwrap
from pathlib import Path

import pytest

from gymverse import cli

README_EXAMPLE = re.compile(r"```python\n(.*?)```", re.S)


def run(argv, capsys):
    code = 0
    try:
        cli.main(argv)
    except SystemExit as exit_:
        code = exit_.code or 0
    out = capsys.readouterr()
    return code, out.out + out.err


def test_envs_lists_games_with_their_parameters(capsys, monkeypatch):
    monkeypatch.setattr(cli.console, "width", 160)
    code, out = run(["envs"], capsys)
    assert code == 0 and "gymverse:PeakFinder" in out and "spare_reads" in out


def test_check_reports_a_verdict_and_fails_on_a_broken_folder(capsys, tmp_path):
    code, out = run(["check", "gymverse:PeakFinder", "--seeds", "2", "--max-level", "3"], capsys)
    assert code == 0 and "pass" in out

    (tmp_path / "bad.py").write_text(textwrap.dedent('''
        from gymverse import EvolvableEnv, Feedback

        class NeverEnds(EvolvableEnv):
            def _new_episode(self):
                return "Say anything in \\\\boxed{}."
            def _play(self, command):
                raise ZeroDivisionError("oops")
            def oracle_action(self):
                return "\\\\boxed{x}"
    '''))
    code, out = run(["check", "--dir", str(tmp_path), "--seeds", "2", "--max-level", "3"], capsys)
    assert code == 1 and "FAIL" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["check"], "--all or --dir"),
        (["check", "gymverse:NoSuchGame"], "unknown env id"),
        (["play", "gymverse:PeakFinder", "--complexity", "0"], "--complexity"),
        (["sft", "--env-id", "gymverse:NoSuchGame", "--output", "unused"], "unknown environment id"),
        (["sft", "--pretrain", "/no/such/model", "--output", "unused"], "not a Hugging Face model folder"),
    ],
)
def test_bad_input_gets_one_clear_line(argv, message, capsys):
    code, out = run(argv, capsys)
    assert code == 2 and message in out and "Traceback" not in out


def test_play_takes_commands_and_hints(monkeypatch, capsys):
    replies = iter(["hint", "read 0", "quit"])
    monkeypatch.setattr(cli.console, "input", lambda prompt="": next(replies))
    code, out = run(["play", "gymverse:PeakFinder", "--complexity", "2", "--seed", "3"], capsys)
    assert code == 0 and "solver: \\boxed{read" in out and "value[0] =" in out


def test_the_envs_readme_example_is_a_valid_game(tmp_path, capsys):
    readme = Path(__file__).parents[1] / "envs" / "README.md"
    (tmp_path / "countdown.py").write_text(README_EXAMPLE.search(readme.read_text()).group(1))
    code, out = run(["check", "--dir", str(tmp_path), "--seeds", "3"], capsys)
    assert code == 0 and "pass" in out
    assert "FAIL" not in out and "skipped" not in out
