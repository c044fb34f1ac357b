"""`gymverse train --backend`: which trainer a command line runs, and a backend that is not there in one line."""

import pytest

import gymverse.oat
import gymverse.train.cli
from gymverse.errors import BadInput
from gymverse.train import backend
from gymverse.train.backend import split_backend


def test_split_backend_reads_the_last_value_in_either_spelling_and_leaves_the_other_flags():
    assert split_backend(["--gamma", "0.5"]) == ("auto", ["--gamma", "0.5"])
    assert split_backend(["--backend", "oat", "--gamma", "0.5"]) == ("oat", ["--gamma", "0.5"])
    assert split_backend(["--backend=oat", "--backend", "native"]) == ("native", [])
    with pytest.raises(BadInput, match="--backend must be one of auto, native, oat, got 'gpu'"):
        split_backend(["--backend", "gpu"])
    with pytest.raises(BadInput, match="got ''"):
        split_backend(["--backend"])


@pytest.fixture
def trainers(monkeypatch):
    """Which trainer ran, with which flags (neither really runs)."""
    ran = []
    monkeypatch.setattr(gymverse.oat, "main", lambda argv: ran.append(("oat", argv)) or 0)
    monkeypatch.setattr(gymverse.train.cli, "main", lambda argv, prog: ran.append(("native", argv)) or 0)
    return ran


@pytest.mark.parametrize(
    "installed, argv, expected",
    [
        (False, [], ("native", [])),
        (True, [], ("oat", [])),
        (True, ["--backend", "native", "--seed", "3"], ("native", ["--backend", "native", "--seed", "3"])),
        (True, ["--seed", "3", "--backend=oat"], ("oat", ["--seed", "3"])),
        (False, ["--backend", "native"], ("native", ["--backend", "native"])),
    ],
)
def test_auto_follows_whether_oat_is_installed_and_a_named_backend_runs_as_asked(
    trainers, monkeypatch, installed, argv, expected
):
    monkeypatch.setattr(backend, "oat_installed", lambda: installed)
    assert backend.main(argv) == 0
    assert trainers == [expected]


def test_oat_without_oat_llm_is_one_line_and_exit_status_2(trainers, monkeypatch, capsys):
    monkeypatch.setattr(backend, "oat_installed", lambda: False)
    assert backend.main(["--backend", "oat"]) == 2
    assert trainers == []
    assert capsys.readouterr().err == (
        "error: --backend oat needs oat-llm, which is not installed here (README: Training on GPUs with OAT)\n"
    )
