"""The run loop of every in-process trainer: the PERPO trainer (``gymverse.train.loop``) and GenEnv's
co-evolution (``gymverse.genenv.loop``) supply their step, the loop does the rest.

The loop owns the run folder (``<save_path>/<wb_run_name>``, its ``config.json`` and logs), resume (the trainer
state, the RNG states, the logs cut back to what the state saw), seeding, Weights & Biases, the progress bar,
the evaluation cadence (before training unless ``--no-eval_before_train``, every ``--eval_steps`` and at the
end) and the save cadence (every ``--save_steps`` and at the end, pruned to ``--max_save_num``), Ctrl-C, the
figure and the closing lines.

Ctrl-C: the first lets the step under way finish, saves it and stops; a second abandons the step at once and
the last save stands. Either way the run says where it was saved and exits by ``KeyboardInterrupt``; the same
command with ``--resume`` continues from the save and ends as an uninterrupted run would. A failing resource
(an endpoint that keeps failing, a full disk: :class:`gymverse.errors.ResourceError`, or an ``OSError`` of a
step), a jailed game that fails and a non-finite number met before the optimizer moves
(:mod:`gymverse.run.finite`) abandon the step too, and the error says where the run was last saved.

A trainer subclasses :class:`RunLoop` and fills in its hooks (``build``, ``train_step``, ``finished``,
``save_models`` and, as it needs, the others); ``self.state`` is the saved state on resume (else None) and
``self.seed`` the run's seed.
"""

import json
import os
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gymverse.errors import ResourceError
from gymverse.run.checkpoints import (
    MODELS_DIR,
    STATE_FILE,
    load_trainer_state,
    prune_checkpoints,
    resolve_run_dir,
    restore_rng_states,
    rng_states,
    run_seed,
    save_trainer_state,
    step_dir_name,
)
from gymverse.run.config import LoopConfig, default_run_name
from gymverse.run.files import RunFiles
from gymverse.run.finite import NonFinite
from gymverse.run.interrupt import StopRequest
from gymverse.run.settings import RunFileSettings
from gymverse.run.update import prepare_torch
from gymverse.sandbox import GameFailure


class RunLoop:
    name = "run"  # the progress bar's label
    logs: tuple[str, ...] = ()  # the trainer's own JSONL logs (each line with its "step"), cut back on resume

    def __init__(self, args: LoopConfig, progress: bool = True) -> None:
        self.args, self.progress = args, progress
        if not args.wb_run_name:
            args.wb_run_name = default_run_name(args)
        self.run_dir = resolve_run_dir(args.save_path, args.wb_run_name, args.resume)
        self.files = RunFiles(self.run_dir, extra_logs=self.logs)
        self.state = load_trainer_state(self.run_dir) if args.resume else None
        self.seed = run_seed(args, self.state)
        self.step = self.state["step"] if self.state else 0
        self.saved_step = self.step if self.state else None
        self.wandb: Any = None

    # -- what a trainer supplies ----------------------------------------------------------------
    def build(self) -> None:
        """Models, environments, ...: from ``self.state`` on resume (``load_state_dict`` follows)."""
        raise NotImplementedError

    def train_step(self, step: int) -> dict[str, Any]:
        """Step ``step``: play, learn, log; the record ``postfix`` and ``wandb_metrics`` read."""
        raise NotImplementedError

    def finished(self) -> bool:
        """Whether the run is over after ``self.step`` steps."""
        raise NotImplementedError

    def save_models(self, step: int) -> dict[str, Any]:
        """Save the checkpoints of ``step``; the trainer-state entries that name them."""
        raise NotImplementedError

    def evaluate(self, step: int) -> dict[str, float]:
        """Evaluate and log at ``step``; the evaluation's wandb metrics."""
        return {}

    def state_dict(self) -> dict[str, Any]:
        """Everything else a resumed run needs (optimizers, curricula, ...)."""
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass

    def generators(self) -> dict[str, Any]:
        """Torch generators whose states the trainer state keeps beside the global ones."""
        return {}

    def checkpoint_folders(self) -> list[Path]:
        """The folders whose ``saved_models/`` keep the newest ``--max_save_num`` checkpoints."""
        return [self.run_dir]

    def total_steps(self) -> int | None:
        """The run's steps, when they are known before it runs."""
        return None

    def progress_position(self) -> tuple[int, int | None, str]:
        """``(position, total, unit)`` of the progress bar."""
        return self.step, self.total_steps(), "it"

    def postfix(self, result: dict[str, Any]) -> str:
        return ""

    def wandb_metrics(self, result: dict[str, Any]) -> dict[str, float]:
        return {}

    def plot(self) -> Path | None:
        """Draw the run's figure from its logs; its path, or None when there is nothing to draw."""
        return None

    def report(self) -> None:
        """Print what the run did, after its folder and figure."""

    # -- the loop -------------------------------------------------------------------------------
    def setup(self) -> None:
        args = self.args
        prepare_torch(args.device, args.cpu_threads, self.seed)
        if not self.state:
            (self.run_dir / "config.json").write_text(json.dumps({**asdict(args), "seed": self.seed}, indent=1))
        self.build()
        if self.state:
            self.load_state_dict(self.state)
            restore_rng_states(self.state["rng"], self.generators())
            self.files.truncate(self.state["log_offsets"])
        if args.use_wb:
            self.wandb = start_wandb(args, self.run_dir, self.state["wandb_id"] if self.state else None)

    def save(self, step: int) -> None:
        try:
            state = {
                "step": step,
                "seed": self.seed,
                **self.save_models(step),
                **self.state_dict(),
                "rng": rng_states(self.generators()),
                "log_offsets": self.files.offsets(),
                "wandb_id": self.wandb.id if self.wandb is not None else None,
            }
            save_trainer_state(self.run_dir, state)
        except (OSError, RuntimeError) as error:  # torch reports a full disk as a RuntimeError
            free = shutil.disk_usage(self.run_dir).free / 2**20
            raise ResourceError(
                f"cannot save step {step} in {self.run_dir} ({free:.0f} MB free on its disk): "
                f"{str(error).strip().splitlines()[0]}"
            ) from None
        self.saved_step = step
        for folder in self.checkpoint_folders():
            prune_checkpoints(folder, self.args.max_save_num)

    def run(self) -> Path:
        """Train to the end, or until Ctrl-C (then KeyboardInterrupt, once the run has said where it was saved)."""
        try:
            self._prepare()  # Ctrl-C here stops at once: nothing is saved yet, and a cut warm start is redone
            with StopRequest() as stop:  # Ctrl-C while training: the step ends and is saved (twice: at once)
                seconds = self._train(stop)
            self._finish(seconds)  # Ctrl-C here stops at once: the run is saved
            return self.run_dir
        except KeyboardInterrupt:
            print(f"Stopped {self._where()}: {self._last_save()}", flush=True)
            raise
        except ResourceError as error:
            raise ResourceError(f"{error}; stopped {self._where()}: {self._last_save()}") from None
        except NonFinite as error:  # the step stopped before the optimizer took it
            raise ResourceError(
                f"step {self.step + 1} met {error} and learned nothing from it; "
                f"stopped {self._where()}: {self._last_save()}"
            ) from None
        except GameFailure as error:  # a jailed game (a user's folder) raised or ended its jail
            where = " ".join(getattr(error, "__notes__", [])) or "a jailed game"
            raise ResourceError(
                f"{where} failed: {type(error).__name__}: {error}; stopped {self._where()}: {self._last_save()}"
            ) from None

    def _where(self) -> str:
        return f"at step {self.step}" + ("" if self.total_steps() is None else f" of {self.total_steps()}")

    def _last_save(self) -> str:
        if self.saved_step is None:
            return "nothing was saved yet"
        checkpoint = self.run_dir / MODELS_DIR / step_dir_name(self.saved_step)
        where = (
            f"the last checkpoint is {checkpoint}"
            if checkpoint.is_dir()
            else f"the run was last saved in {self.run_dir / STATE_FILE}"
        )
        return f"{where} (step {self.saved_step}); the same command with --resume continues from it"

    def _prepare(self) -> None:
        """Models, games and the state to resume; the evaluation before training."""
        self.setup()
        if self.state:
            print(f"Resumed from step {self.step} ({self.run_dir})")
        if self.step == 0 and self.args.eval_before_train:
            self._log(self.evaluate(0), 0)

    def _train(self, stop: StopRequest) -> float:
        """The steps left, with their evaluations and saves; the seconds they took."""
        from tqdm import tqdm

        args = self.args
        position, total, unit = self.progress_position()
        started = time.time()
        with tqdm(
            total=total,
            initial=position,
            desc=self.name,
            unit=unit,
            disable=not self.progress,
            dynamic_ncols=True,
            file=sys.stdout,
        ) as bar:
            while not self.finished():
                step = self.step + 1
                try:
                    result = self.train_step(step)
                except OSError as error:  # e.g. a log line that a full disk cannot take
                    raise ResourceError(f"step {step}: {error}") from None
                self.step = step
                done = self.finished()
                if (args.eval_steps > 0 and step % args.eval_steps == 0) or done:
                    self._log(self.evaluate(step), step)
                self._log(self.wandb_metrics(result), step)
                if (args.save_steps > 0 and step % args.save_steps == 0) or done or stop.requested:
                    self.save(step)
                    self.plot()
                bar.update(self.progress_position()[0] - bar.n)
                bar.set_postfix_str(self.postfix(result))
                if stop.requested and not done:
                    raise KeyboardInterrupt
        return time.time() - started

    def _finish(self, seconds: float) -> None:
        """The figures and the closing report of a run that trained to the end."""
        if self.wandb is not None:
            self.wandb.finish()
        figure = self.plot()
        print(f"Run folder: {self.run_dir} ({seconds:.0f} s of training)")
        if figure is not None:
            print(f"Curves: {figure}")
        self.report()

    def _log(self, metrics: dict[str, float], step: int) -> None:
        if self.wandb is not None and metrics:
            self.wandb.log(metrics, step=step)


def start_wandb(args: RunFileSettings, run_dir: Path, run_id: str | None) -> Any:
    """A Weights & Biases run for ``args`` (offline without an API key); ``run_id`` continues a resumed one."""
    import wandb

    mode: Any = os.environ.get("WANDB_MODE") or ("online" if os.environ.get("WANDB_API_KEY") else "offline")
    return wandb.init(
        project=args.wb_project,
        entity=args.wb_org,
        group=args.wb_group,
        name=args.wb_run_name,
        dir=str(run_dir),
        id=run_id,
        resume="allow",
        mode=mode,
        config=asdict(args),
    )
