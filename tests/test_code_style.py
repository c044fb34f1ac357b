"""The code holds the project's lint, format and type rules (pyproject.toml), so CI's one test command checks them."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff comes with the test extra")
def test_ruff_finds_nothing_to_lint_or_format():
    lint = run("ruff", "check", ".")
    assert lint.returncode == 0, lint.stdout[-3000:]
    style = run("ruff", "format", "--check", ".")
    assert style.returncode == 0, style.stdout[-3000:]


def test_every_package_type_checks():
    pytest.importorskip("mypy")
    typed = run(sys.executable, "-m", "mypy")
    assert typed.returncode == 0, typed.stdout[-3000:]


def test_the_longest_first_list_names_only_tests_that_exist():
    """A renamed or removed long test must leave tests/conftest.py's LONGEST_FIRST too, or it loses its early start."""
    from conftest import STALE as stale

    if stale is None:
        pytest.skip("only part of the suite was collected")
    assert stale == [], f"tests/conftest.py's LONGEST_FIRST names tests that no longer exist: {', '.join(stale)}"
