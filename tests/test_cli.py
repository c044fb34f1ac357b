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


def test_envs_lists_every_parameter_name_whole_when_piped(capsys):
    from gymverse.env import builtin_env_classes

    code, out = run(["envs"], capsys)  # pytest's captured stdout is no terminal, like a pipe
    assert code == 0
    words = set(re.findall(r"[\w:]+", out))
    for cls in builtin_env_classes():
        assert f"gymverse:{cls.__name__}" in words
        assert set(cls.complexity_params) <= words, cls.__name__


def test_check_reports_a_verdict_and_fails_on_a_broken_folder(capsys, tmp_path):
    code, out = run(["check", "gymverse:PeakFinder", "--seeds", "2", "--max-level", "3"], capsys)
    assert code == 0 and "pass" in out

    (tmp_path / "bad.py").write_text(
        textwrap.dedent("""
        from gymverse import EvolvableEnv, Feedback

        class NeverEnds(EvolvableEnv):
            def _new_episode(self):
                return "Say anything in \\\\boxed{}."
            def _play(self, command):
                raise ZeroDivisionError("oops")
            def oracle_action(self):
                return "\\\\boxed{x}"
    """)
    )
    code, out = run(["check", "--dir", str(tmp_path), "--seeds", "2", "--max-level", "3"], capsys)
    assert code == 1 and "FAIL" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["check"], "--all or --dir"),
        (["check", "gymverse:NoSuchGame"], "unknown environment id 'gymverse:NoSuchGame'; `gymverse envs`"),
        (["check", "gymverse:PeakFindr"], "'gymverse:PeakFindr' (did you mean gymverse:PeakFinder?)"),
        (["check", "lightsout"], "'lightsout' (did you mean gymverse:LightsOut?)"),
        (["play", "gymverse:KnightsKnaves"], "(did you mean gymverse:KnightsAndKnaves?)"),
        (["audit", "gymverse:Battleshp", "--skip", "diversity"], "(did you mean gymverse:Battleship?)"),
        (["eval", "gymverse:Codelock", "--policy", "oracle"], "(did you mean gymverse:CodeLock?)"),
        (["sft", "--env-id", "gymverse:GridCourier|gymverse:MailSortr"], "--env-id: unknown environment id"),
        (["sft", "--difficulty", "1|two"], "--difficulty '1|two'"),
        (["sft", "--device", "gpu:0"], "--device 'gpu:0'"),
        (["play", "gymverse:PeakFinder", "--complexity", "0"], "--complexity"),
        (["sft", "--pretrain", "/no/such/model"], "--pretrain '/no/such/model' is not a Hugging Face model folder"),
    ],
)
def test_bad_input_gets_one_clear_line(argv, message, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # nothing may be written: sft's default output is relative
    code, out = run(argv, capsys)
    assert code == 2 and message in out and len(out.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_bad_input_is_refused_before_torch_loads():
    import subprocess
    import sys

    probe = (
        "import sys\nfrom gymverse import cli\n"
        "try:\n    cli.main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
        "print('torch' in sys.modules, 'transformers' in sys.modules, code)"
    )
    for argv in (
        ["eval", "gymverse:PeakFinder", "--policy", "/no/such/model"],
        ["eval", "gymverse:PeakFinder", "--policy", "tiny", "--top-p", "2"],
        ["sft", "--pretrain", "/no/such/model"],
    ):
        done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True)
        assert done.stdout.split()[-3:] == ["False", "False", "2"], (argv, done.stdout, done.stderr)


def test_play_takes_commands_and_hints(monkeypatch, capsys):
    replies = iter(["hint", "read 0", "quit"])
    monkeypatch.setattr(cli.console, "input", lambda prompt="": next(replies))
    code, out = run(["play", "gymverse:PeakFinder", "--complexity", "2", "--seed", "3"], capsys)
    assert code == 0 and "solver: \\boxed{read" in out and "value[0] =" in out


def test_play_prints_the_game_text_unbroken_when_piped(monkeypatch, capsys):
    import gem

    observation, _ = gem.make("gymverse:KnightsAndKnaves", complexity=3).reset(seed=5)
    assert max(map(len, observation.splitlines())) > 80  # what a wrapping console would cut
    monkeypatch.setattr(cli.console, "input", lambda prompt="": "quit")
    code, out = run(["play", "gymverse:KnightsAndKnaves", "--complexity", "3", "--seed", "5"], capsys)
    assert code == 0 and observation in out


def test_the_envs_readme_example_is_a_valid_game(tmp_path, capsys):
    readme = Path(__file__).parents[1] / "envs" / "README.md"
    (tmp_path / "countdown.py").write_text(README_EXAMPLE.search(readme.read_text()).group(1))
    code, out = run(["check", "--dir", str(tmp_path), "--seeds", "3"], capsys)
    assert code == 0 and "pass" in out
    assert "FAIL" not in out and "skipped" not in out


def test_sft_trains_on_the_cpu_threads_it_is_given(tiny_dir, tmp_path, capsys):
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(3)
    try:
        code, out = run(
            [
                "sft",
                "--pretrain",
                str(tiny_dir),
                "--env-id",
                "gymverse:PeakFinder",
                "--episodes",
                "1",
                "--difficulty",
                "1",
                "--epochs",
                "1",
                "--cpu-threads",
                "1",
                "--output",
                str(tmp_path),
            ],
            capsys,
        )
        assert code == 0 and torch.get_num_threads() == 1, out
    finally:
        torch.set_num_threads(before)


def help_entries(text: str) -> dict[str, str]:
    """``{flag: its help text}`` from tyro's ``--help`` (an entry starts with a flag near the left edge)."""
    entries: dict[str, str] = {}
    flag = None
    for line in text.splitlines():
        content = line.replace("│", " ").rstrip()
        start = re.match(r"^ {1,2}(-h|--[a-z][\w-]*),?(?: \S+)*?(?: {2,}(.*))?$", content)
        if start:
            flag = start.group(1)
            entries[flag] = start.group(2) or ""
        elif flag and content.startswith("    ") and content.strip():
            entries[flag] += " " + content.strip()
        else:
            flag = None
    return entries


@pytest.mark.parametrize("command", ["envs", "play", "check", "eval", "audit", "sft", "genenv"])
def test_every_flag_has_a_help_line_of_its_own(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out = run([command, "--help"], capsys)
    entries = help_entries(out)
    assert code == 0 and "-h" in entries
    for flag, text in entries.items():
        words = re.sub(r"\((default: .*?|required)\)", "", text).strip()
        assert re.search(r"[a-z]{3}", words), f"{command} {flag}: {text!r}"


def test_did_you_mean_reads_case_namespaces_and_typos():
    from gymverse.errors import closest

    ids = ["gymverse:PeakFinder", "gymverse:KnightsAndKnaves", "rg:knights_knaves", "game:Sudoku-v0"]
    assert closest("peakfinder", ids) == closest("PeakFinder", ids) == "gymverse:PeakFinder"
    assert closest("gymverse:KnightsKnaves", ids) == "gymverse:KnightsAndKnaves"  # its own namespace first
    assert closest("rg:knights-knaves", ids) == "rg:knights_knaves"
    assert closest("gymverse:NoSuchGame", ids) is None and closest("xyz", ids) is None


def test_the_console_shows_a_games_control_characters_and_keeps_its_own():
    import io

    from gymverse.console import SafeConsole, progress_bars

    out = io.StringIO()
    terminal = SafeConsole(file=out, force_terminal=True, width=120, color_system="standard")
    terminal.print(
        "ok\x1b[2K\x1b[1A\rpass\x1b]0;title\x07\x1b]52;c;ZXNj\x07\x9b2K\ndone", style="bold", highlight=False
    )
    text = out.getvalue()  # (rich itself drops BEL and CR)
    assert "ok\\x1b[2K\\x1b[1Apass\\x1b]0;title\\x1b]52;c;ZXNj\\x9b2K" in text and "done" in text.split("\n")[1]
    assert not {"\x07", "\x9b", "\r"} & set(text) and "\x1b[2K" not in text and "\x1b]" not in text
    assert "\x1b[1m" in text  # rich's own styles still reach the terminal
    with progress_bars(terminal, transient=True) as progress:
        progress.add_task("checking", total=2)
    assert "\x1b[?25l" in out.getvalue()  # and so do its cursor controls (the bar hides the cursor)


@pytest.mark.parametrize("trusted", [[], ["--trusted"]])
def test_check_dir_gives_a_file_with_a_syntax_error_its_fail_row_jailed_or_trusted(tmp_path, capsys, trusted):
    if not trusted:
        from gymverse.sandbox import jail_problem

        if jail_problem():
            pytest.skip(jail_problem())
    (tmp_path / "broken.py").write_text("import gem\nclass Broken(gem.Env:\n    pass\n")
    code, out = run(["check", "--dir", str(tmp_path), "--max-level", "1", "--seeds", "1", "--fresh", *trusted], capsys)
    assert code == 1
    assert "FAIL               - (broken.py)" in out
    assert "import raised SyntaxError: invalid syntax (broken.py, line 2)" in out  # the same words either way
