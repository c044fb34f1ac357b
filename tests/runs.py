"""Command lines from keywords, and a training child stopped with Ctrl-C, for the tests that run commands."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def flags(**values: object) -> list[str]:
    """``--name value`` for each keyword, in order; a list gives its items after the name."""
    argv = []
    for name, value in values.items():
        argv += [f"--{name}", *map(str, value if isinstance(value, list) else [value])]
    return argv


def child(command: str, argv: list[str], stdout: int = subprocess.PIPE) -> subprocess.Popen:
    """``gymverse.<command>.cli``'s ``main(argv)`` started in a child process (hash seed fixed, stderr piped)."""
    code = f"import sys; from gymverse.{command}.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.Popen(
        [sys.executable, "-c", code, *argv], env=env, stdout=stdout, stderr=subprocess.PIPE, text=True
    )


def interrupted(command: str, argv: list[str], started: Path) -> str:
    """The output of :func:`child` sent Ctrl-C once ``started`` exists, after checking that it stopped as Ctrl-C
    asks (exit 130, no traceback)."""
    process = child(command, argv)
    deadline = time.time() + 120
    while not started.is_file():
        assert process.poll() is None and time.time() < deadline, process.stderr.read()[-2000:]
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in err, err[-2000:]
    return out
