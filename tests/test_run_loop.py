"""The run loop under every in-process trainer: cadence of evaluations and saves, Ctrl-C, exact resume."""

import os
import signal
from dataclasses import replace

import pytest
import torch

from gymverse.run.checkpoints import STATE_FILE, load_trainer_state
from gymverse.run.config import LoopConfig
from gymverse.run.files import RunFiles
from gymverse.run.loop import RunLoop


class Counter(RunLoop):
    """A trainer whose step draws from torch's RNG (seeded by the run, restored on resume), keeping a total."""

    name = "count"
    logs = ("counts.jsonl",)
    interrupts: dict[int, int] = {}  # step -> Ctrl-C presses during it (after its line is written)

    def build(self) -> None:
        self.total, self.evaluated, self.saved = 0, [], []

    def train_step(self, step: int) -> dict:
        self.total += int(torch.randint(0, 1000, ()))
        self.files.append("counts.jsonl", {"step": step, "total": self.total})
        for _ in range(self.interrupts.get(step, 0)):
            os.kill(os.getpid(), signal.SIGINT)
        return {"total": self.total}

    def finished(self) -> bool:
        return self.step >= 6

    def total_steps(self) -> int:
        return 6

    def evaluate(self, step: int) -> dict:
        self.evaluated.append(step)
        return {}

    def save_models(self, step: int) -> dict:
        self.saved.append(step)
        return {}

    def state_dict(self) -> dict:
        return {"total": self.total}

    def load_state_dict(self, state: dict) -> None:
        self.total = state["total"]


def config(tmp_path, **changes) -> LoopConfig:
    return LoopConfig(
        **{
            "save_path": str(tmp_path),
            "wb_run_name": "count",
            "eval_steps": 2,
            "save_steps": 4,
            "cpu_threads": 1,
            **changes,
        }
    )


def counted(run_dir) -> list[dict]:
    return RunFiles(run_dir, extra_logs=Counter.logs).read("counts.jsonl")


@pytest.mark.parametrize(
    "eval_steps, save_steps, before, evaluated, saved",
    [
        (2, 4, True, [0, 2, 4, 6], [4, 6]),
        (0, -1, True, [0, 6], [6]),
        (4, -1, False, [4, 6], [6]),
    ],
)
def test_the_cadence_of_evaluations_and_saves(tmp_path, capsys, eval_steps, save_steps, before, evaluated, saved):
    loop = Counter(
        config(tmp_path, eval_steps=eval_steps, save_steps=save_steps, eval_before_train=before), progress=False
    )
    assert loop.run() == tmp_path / "count"
    assert (loop.evaluated, loop.saved) == (evaluated, saved)
    assert load_trainer_state(loop.run_dir)["step"] == 6
    assert f"Run folder: {loop.run_dir}" in capsys.readouterr().out


@pytest.mark.parametrize("presses, save_steps", [(1, 4), (2, 1)])
def test_ctrl_c_finishes_or_abandons_the_step_and_resume_ends_like_an_uninterrupted_run(
    tmp_path, capsys, presses, save_steps
):
    straight = Counter(config(tmp_path / "a", save_steps=save_steps), progress=False).run()
    args = config(tmp_path / "b", save_steps=save_steps)
    Counter.interrupts = {3: presses}
    try:
        interrupted = Counter(args, progress=False)
        with pytest.raises(KeyboardInterrupt):
            interrupted.run()
    finally:
        Counter.interrupts = {}
    run_dir = interrupted.run_dir
    saved = load_trainer_state(run_dir)["step"]
    out = capsys.readouterr().out
    if presses == 1:  # the step finished and was saved
        assert saved == 3
        assert f"Stopped at step 3 of 6: the run was last saved in {run_dir / STATE_FILE} (step 3)" in out
    else:  # the step was abandoned: the save of step 2 stands, and step 3's line is past it
        assert saved == 2 and "Stopped at step 2 of 6: the run was last saved" in out
        assert counted(run_dir)[-1]["step"] == 3
    assert "the same command with --resume continues from it" in out
    resumed = Counter(replace(args, resume=True), progress=False)
    assert resumed.run() == run_dir
    assert f"Resumed from step {saved} " in capsys.readouterr().out
    assert counted(run_dir) == counted(straight)
    assert load_trainer_state(run_dir)["total"] == load_trainer_state(straight)["total"]


class CtrlCIn(Counter):
    """A run that gets Ctrl-C in the middle of ``phase`` (``build``, as a warm start would, or ``report``, as the
    closing table would) and notes whether the phase went on after it."""

    phase = ""

    def interrupted(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        self.went_on = True

    def build(self) -> None:
        super().build()
        if self.phase == "build":
            self.interrupted()

    def report(self) -> None:
        if self.phase == "report":
            self.interrupted()


@pytest.mark.parametrize(
    "phase, stopped_at, said",
    [("build", 0, "Stopped at step 0 of 6: nothing was saved yet"), ("report", 6, "Stopped at step 6 of 6: the ")],
)
def test_ctrl_c_while_the_run_is_set_up_or_reports_stops_at_once(tmp_path, capsys, phase, stopped_at, said):
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # a test worker may ignore Ctrl-C
    loop = CtrlCIn(config(tmp_path), progress=False)
    loop.phase = phase
    try:
        with pytest.raises(KeyboardInterrupt):
            loop.run()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not hasattr(loop, "went_on") and loop.step == stopped_at
    assert (loop.evaluated == []) == (phase == "build")
    assert said in capsys.readouterr().out
