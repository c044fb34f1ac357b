"""What the co-evolution loop asks of a task space, whichever it is (``GameSpace``: game specs the agent plays;
``DatasetSpace``: rows of a GenEnv parquet dataset the agent answers).

One step of the loop (``gymverse.genenv.loop``) reads::

    batch = space.agent_step(agent, env, step, files)       # the agent plays and learns (games: tasks just written)
    tasks = space.env_phase_tasks(env, agent, step)         # written and attempted tasks to score, or None
    if tasks is not None:
        ... score them by p, update the environment policy when space.env_updates_now(step) ...
        record.update(space.adopt(tasks))
    space.end_step(step, run_dir)
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from gymverse.genenv.config import GenEnvArgs
from gymverse.genenv.scoring import WrittenTask
from gymverse.genenv.sides import Side
from gymverse.run.files import RunFiles


@dataclass
class AgentBatch:
    """The agent's step: its record, and what its update reported ({} when it learned nothing)."""

    record: dict[str, Any]
    stats: dict[str, float]


class SavedFields:
    """A task space's resumable state: the attributes that ``saved`` names, as they are."""

    saved: tuple[str, ...] = ()

    def state_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.saved}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for name in self.saved:
            setattr(self, name, state[name])


class TaskSpace(Protocol):
    agent_stops_at_box: bool  # whether the agent's replies end at their first complete \boxed{...}

    def starts(self, run_dir: Path, progress: bool) -> tuple[str, str | None]:
        """A new run's starting models: the agent's and the environment policy's (None: no model writes the tasks),
        warm-started into ``run_dir`` where the space does that."""

    def agent_settings(self, args: GenEnvArgs) -> GenEnvArgs:
        """The flags the agent samples and learns with (``args``, or a copy the space adjusts)."""

    def attach(self, agent: Side) -> None:
        """Meet the agent once it is loaded (a dataset's reward manager takes its tokenizer)."""

    def scheduled_steps(self) -> int:
        """The steps the learning-rate schedules are sized for."""

    def total_steps(self) -> int | None:
        """The run's steps, when they are known before it runs."""

    def agent_samples_per_step(self) -> int:
        """Replies one agent update learns from."""

    def finished(self, step: int) -> bool:
        """Whether the run is over after ``step`` steps."""

    def agent_step(self, agent: Side, env: Side | None, step: int, files: RunFiles) -> AgentBatch:
        """The agent's step ``step``: play (logging what it played in ``files``) and learn."""

    def env_phase_tasks(self, env: Side | None, agent: Side, step: int) -> list[WrittenTask] | None:
        """The tasks written and attempted (their ``p`` set) that the environment phase scores now; None: no
        environment phase this step."""

    def env_updates_now(self, step: int) -> bool:
        """Whether the environment policy learns from what it has been paid so far, after this step's phase."""

    def adopt(self, tasks: list[WrittenTask]) -> dict[str, Any]:
        """Take the valid tasks in; what to add to the step's record."""

    def end_step(self, step: int, run_dir: Path) -> None: ...

    def evaluate(self, agent: Side, step: int, files: RunFiles) -> dict[str, float]:
        """Evaluate the agent and log it; the wandb metrics."""

    def record(self, step: int, task: WrittenTask) -> dict[str, Any]:
        """A line of ``generated_tasks.jsonl``."""

    def progress(self, step: int) -> tuple[int, int | None, str]:
        """``(position, total, unit)`` of the progress bar."""

    def report(self, step: int) -> str | None:
        """What to say once the run is over."""

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...
