"""How every command ends (gymverse.entry): one line and the same status for the same mistake everywhere."""

import os
import subprocess
import sys

import pytest

from gymverse.entry import BAD_INPUT, INTERRUPTED, RESOURCE, run_command, usage_error
from gymverse.errors import BadInput, ResourceError
from gymverse.genenv.cli import main as genenv_main
from gymverse.train.cli import main as train_main

TYRO_BOX = """╭─ Unrecognized options ──────────╮
│ Unrecognized options: --gama, 1 │
│ ─────────────────────────────── │
│ Perhaps you meant:              │
│     --gamma FLOAT               │
│         (default: 0.9)          │
│ ─────────────────────────────── │
│ For full helptext, run x --help │
╰─────────────────────────────────╯"""


def test_tyros_box_becomes_its_message_and_the_flag_it_suggests():
    assert usage_error(TYRO_BOX) == "Unrecognized options: --gama, 1 (did you mean --gamma?)"


@pytest.mark.parametrize(
    "argv, named",
    [
        (["--gamma", "abc"], "Error parsing --gamma: could not convert string to float: 'abc'"),
        (["--curriculum", "thresh"], "invalid choice 'thresh' for argument '--curriculum'"),
        (["--gama", "0.5"], "(did you mean --gamma?)"),
        (["--gamma", "2"], "--gamma must lie in [0, 1], got 2.0"),
    ],
)
@pytest.mark.parametrize("main", [train_main, genenv_main])
def test_a_bad_flag_is_one_line_and_status_2_under_train_and_genenv(main, argv, named, capsys):
    assert main(argv) == BAD_INPUT
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0]
    assert "╭" not in out.out + out.err


def test_each_kind_of_ending_has_its_status(capsys):
    def raises(error):
        def command():
            raise error

        return command

    assert run_command(raises(BadInput("--x is bad")), ["--x"]) == BAD_INPUT
    assert run_command(raises(ResourceError("the disk is full"))) == RESOURCE
    assert run_command(raises(KeyboardInterrupt())) == INTERRUPTED
    assert run_command(lambda: 3) == 3 and run_command(lambda: None) == 0
    assert capsys.readouterr().err.splitlines() == ["error: --x is bad", "error: the disk is full"]


@pytest.mark.parametrize("command", [["gymverse.cli", "envs"], ["gymverse.cli", "train", "--help"]])
def test_a_reader_that_stops_early_ends_the_command_quietly(command):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes its first line (`| head -0`)
    try:
        done = subprocess.run([sys.executable, "-m", *command], stdout=write, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)
    assert (done.stderr.decode(), done.returncode) == ("", 1)
