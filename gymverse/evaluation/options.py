"""The evaluation options, declared once: which environments, and how a sweep plays them.

``gymverse eval``, ``Evaluation/evaluate_checkpoints.py`` and :class:`~gymverse.evaluation.sweep.SweepConfig`
share :class:`SweepOptions`; they and ``gymverse audit`` share :class:`EnvSelection` (evaluation's
:class:`EvalSelection` adds ``--env-dir``). Command lines take
them whole (``Annotated[SweepOptions, FLAT]``), so each flag has one name and one help text, read by
tyro from the docstring under each field.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Callable

import tyro

from gymverse.errors import BadInput, require_known

FLAT = tyro.conf.arg(name="")  # a dataclass's fields as top-level flags, without a prefix


@dataclass
class EnvSelection:
    """Which environments: ids, the built-in library, a folder of env files, or any mix."""

    ids: Annotated[tyro.conf.Positional[list[str]], tyro.conf.arg(metavar="[ID [ID ...]]")] = field(
        default_factory=list
    )
    """Env ids (e.g. gymverse:PeakFinder), or patterns such as 'example:*'; `gymverse envs` lists them."""
    all: bool = False  # noqa: A003 (the flag is --all)
    """Every built-in game."""
    dir: Path | None = None  # noqa: A003 (the flag is --dir)
    """Also every env in this folder of .py files (each file runs in its own jail)."""
    trusted: bool = False
    """Import --dir's files into this process instead of jailing them (your own code only)."""

    def resolve(self, log: Callable[[str], None] = print) -> list[str]:
        """The ids, registered and checked (a folder's files that fail to import are reported through ``log``)."""
        from gymverse.evaluation.targets import resolve_env_ids

        return resolve_env_ids(self.ids, self.all, self.dir, log=log, trusted=self.trusted)


@dataclass
class EvalSelection(EnvSelection):
    """:class:`EnvSelection`, and folders whose games the ids may name without evaluating them all."""

    env_dir: Annotated[list[Path], tyro.conf.UseAppendAction] = field(default_factory=list)
    """Register this folder's games (GymVerse's gem/gem/envs/example) so the ids can name them; jailed unless --trusted."""

    def resolve(self, log: Callable[[str], None] = print) -> list[str]:
        from gymverse.run.prepare import register_env_dirs

        register_env_dirs(self, log=log)
        return super().resolve(log)


@dataclass(kw_only=True)
class SweepOptions:
    """How a sweep plays each environment: levels, instances, attempts, and the policy's sampling."""

    levels: list[int] = field(default_factory=list)
    """Complexity levels to sweep (e.g. 1 3 5 10); empty: GymVerse's progressive schedule of --num-levels."""
    num_levels: int = 4
    """With no --levels: N levels, level i at 1 + int(i / (N - 1) * 9)."""
    instances: int = 8
    """Instances (distinct seeds) per env and level."""
    attempts: int = 4
    """Attempts per instance (the n of pass@k)."""
    ks: Annotated[list[int], tyro.conf.arg(name="k")] = field(default_factory=list)
    """The k values of pass@k (each <= attempts); empty: powers of two up to attempts."""
    template: str = "qwen3_game"
    """Prompt template (qwen3_game, qwen3_general, qwen3_tool, code, no, chat)."""
    wrappers: str = "concat"
    """GEM observation wrappers, comma-separated (e.g. concat); "" for none."""
    temperature: float = 1.0
    """Sampling temperature of model policies (0: greedy)."""
    top_p: float = 1.0
    """Nucleus sampling of model policies."""
    max_model_len: int | None = None
    """Token limit of prompt + reply (default: the model's); a longer prompt ends the episode as a failure."""
    generate_max_length: int = 512
    """Token limit of one reply."""
    max_turns: int = 200
    """Turns after which an episode the game has not ended is a failure (games written elsewhere may never end one)."""
    batch_instances: int = 8
    """Instances played together in one batch (x attempts env copies); a sweep resumes with the same value."""
    device: str = "cpu"
    """Where a Hugging Face model runs (cpu, cuda, cuda:1)."""
    cpu_threads: int = 1
    """Torch threads on a CPU (0: torch's default); small models sample fastest on one, as in training."""
    seed: int = 0
    """Seed of the games and the policy's draws: each attempt's come from it and the attempt's coordinates."""

    def check(self) -> None:
        """Refuse values no sweep can use, naming the flag; cheap, so it runs before any model loads."""
        from gem.wrappers.wrapper_factory import WRAPPER_FACTORY

        from gymverse.policy import check_device
        from gymverse.prompts import TEMPLATES

        if any(level < 1 for level in self.levels):
            raise BadInput(f"--levels must be integers >= 1, got {' '.join(map(str, self.levels))}")
        counts = {
            "--num-levels": self.num_levels,
            "--instances": self.instances,
            "--attempts": self.attempts,
            "--batch-instances": self.batch_instances,
            "--generate-max-length": self.generate_max_length,
            "--max-turns": self.max_turns,
            "--max-model-len": 1 if self.max_model_len is None else self.max_model_len,
        }
        for flag, value in counts.items():
            if value < 1:
                raise BadInput(f"{flag} must be >= 1, got {value}")
        if self.ks and (min(self.ks) < 1 or max(self.ks) > self.attempts):
            raise BadInput(
                f"pass@k needs 1 <= k <= --attempts ({self.attempts}), got --k {' '.join(map(str, self.ks))}"
            )
        require_known(
            [self.template], TEMPLATES, "prompt template", "--template", f"choose one of {', '.join(TEMPLATES)}"
        )
        require_known(
            [w for w in self.wrappers.split(",") if w],
            WRAPPER_FACTORY,
            "wrapper",
            "--wrappers",
            f"GEM has {', '.join(WRAPPER_FACTORY)}",
        )
        if self.temperature < 0:
            raise BadInput(f"--temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise BadInput(f"--top-p must be in (0, 1], got {self.top_p}")
        check_device(self.device)
        if self.cpu_threads < 0:
            raise BadInput(f"--cpu-threads must be >= 0 (0: torch's default), got {self.cpu_threads}")
