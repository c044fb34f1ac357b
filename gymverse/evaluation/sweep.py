"""Agent evaluation: a policy against envs over complexity levels, N instances per level, n attempts each.

Attempts of one instance are episodes on env copies reset with the same seed, so pass@k compares
like with like. Every finished batch of instances goes to the record log at once; running the same
sweep again skips what the log holds.

A resumed sweep gives the records of an uninterrupted one. Each attempt's randomness (the game's
seed, the policy's draws) is a function of the sweep's seed and the attempt's coordinates, and the
batches are fixed blocks of ``batch_instances`` instances, replayed whole when any of their instances
is missing: a model's logits depend, in the last bits, on what else is in its batch.
"""

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from gymverse.env.parsing import extract_boxed
from gymverse.episodes import Episode
from gymverse.errors import BadInput
from gymverse.evaluation.metrics import progressive_levels
from gymverse.evaluation.options import SweepOptions
from gymverse.evaluation.records import RecordLog
from gymverse.evaluation.report import write_sweep_report
from gymverse.evaluation.summary import summarize, sweep_summary
from gymverse.evaluation.targets import target_for
from gymverse.sandbox import GameFailure
from gymverse.seeds import instance_seed, sampling_seed

DEFAULT_KS = (1, 2, 4, 8, 16, 32)


@dataclass
class SweepConfig(SweepOptions):
    """One sweep: a policy against environments, with the shared :class:`SweepOptions`.

    ``levels`` and ``ks`` hold the resolved values after construction (the progressive schedule and
    the powers of two when left empty).
    """

    env_ids: list[str]
    policy: str  # a load_policy spec: an HF folder, tiny, oracle, epsilon:P, random, openai:URL#MODEL, vllm:PATH

    def __post_init__(self) -> None:
        self.check()
        if not self.env_ids:
            raise BadInput("no environments to evaluate")
        self.levels = sorted(set(self.levels)) or progressive_levels(self.num_levels)
        self.ks = sorted(set(self.ks)) or [k for k in DEFAULT_KS if k <= self.attempts]


def batches(instances: int, size: int) -> list[list[int]]:
    """The instances of a level in fixed blocks of ``size``: the same batches in every run."""
    return [list(range(start, min(start + size, instances))) for start in range(0, instances, size)]


def attempt_records(
    episodes: list, env_id: str, domain: str, level: int, instances: list[int], seeds: list[int], attempts: int
) -> list[dict]:
    """Attempt records, then one instance record per instance; ``episodes`` come instance-major."""
    rows, summaries = [], []
    for j, (instance, seed) in enumerate(zip(instances, seeds)):
        own = episodes[j * attempts : (j + 1) * attempts]
        for attempt, episode in enumerate(own):
            rows.append(
                {
                    "type": "attempt",
                    "env_id": env_id,
                    "domain": domain,
                    "level": level,
                    "instance": instance,
                    "attempt": attempt,
                    "seed": seed,
                    "success": bool(episode.success),
                    "return": episode.episode_return,
                    "turns": episode.length,
                    "format_errors": sum(t.truncated_reply or extract_boxed(t.response) is None for t in episode.turns),
                    "ended_by": episode.ended_by,
                }
            )
        successes = sum(e.success for e in own)
        summaries.append(
            {
                "type": "instance",
                "env_id": env_id,
                "domain": domain,
                "level": level,
                "instance": instance,
                "seed": seed,
                "attempts": attempts,
                "successes": successes,
            }
        )
    return rows + summaries


def play_instances(policy: Any, config: SweepConfig, env_id: str, level: int, instances: list[int]) -> list:
    """``config.attempts`` episodes for each instance, instance-major, through the shared rollout code."""
    from gymverse.env.groups import make_env_group
    from gymverse.episodes import collect_episodes

    tokenizer = getattr(policy, "tokenizer", None)
    attempts = [(i, a) for i in instances for a in range(config.attempts)]
    group = make_env_group(env_id, len(attempts), wrappers=config.wrappers, complexity=level, tokenizer=tokenizer)
    return collect_episodes(
        policy,
        group,
        env_id,
        num_episodes=len(attempts),
        template=config.template,
        max_model_len=config.max_model_len,
        seed=[instance_seed(config.seed, env_id, level, i) for i, _ in attempts],
        sample_seeds=[sampling_seed(config.seed, env_id, level, i, a) for i, a in attempts],
        max_turns=config.max_turns,
    )


def run_sweep(
    config: SweepConfig,
    output: Path,
    policy: Any = None,
    overwrite: bool = False,
    on_progress: Callable[[int, int, str], None] | None = None,
) -> dict:
    """Run (or resume) the sweep into ``output``, write its report there, and return the summary.

    ``policy`` defaults to ``load_policy(config.policy, ...)``. ``on_progress(done, total, label)``
    is called as instances finish (``done`` counts instances finished by earlier runs too).
    """
    targets = [target_for(env_id) for env_id in config.env_ids]
    if policy is None:
        policy = load(config.policy, config)  # before the log is touched: a bad spec leaves the output folder as it was
    if getattr(policy, "plays_the_solver", False):
        unsolved = [target.env_id for target in targets if not target.has_solver()]
        if unsolved:
            raise BadInput(
                f"the {config.policy} policy plays each game's solver; {', '.join(unsolved)} "
                f"{'has' if len(unsolved) == 1 else 'have'} none (try random, or a model)"
            )
    log = RecordLog(Path(output) / "records.jsonl", asdict(config), overwrite=overwrite)
    finished = log.finished_instances()
    total = len(targets) * len(config.levels) * config.instances
    done = len(finished)
    for target in targets:
        for level in config.levels:
            for batch in batches(config.instances, config.batch_instances):
                missing = [i for i in batch if (target.env_id, level, i) not in finished]
                if not missing:
                    continue
                if on_progress:
                    on_progress(done, total, f"{target.env_id} level {level}")
                seeds = [instance_seed(config.seed, target.env_id, level, i) for i in batch]
                try:
                    episodes, failure = play_instances(policy, config, target.env_id, level, batch), ""
                except GameFailure as error:  # a jailed game raised or ended its jail: its attempts fail, saying why
                    episodes = [Episode(target.env_id, level, ended_by="game_error")] * (len(batch) * config.attempts)
                    failure = f"{type(error).__name__}: {error}"
                rows = attempt_records(episodes, target.env_id, target.domain, level, batch, seeds, config.attempts)
                log.append(
                    {**row, "error": failure} if failure and row["type"] == "attempt" else row
                    for row in rows
                    if row["instance"] in missing
                )
                done += len(missing)
            if not log.has("level", env_id=target.env_id, level=level):
                rows = [a for a in attempts_in_order(log) if a["env_id"] == target.env_id and a["level"] == level]
                log.append([{"type": "level", "env_id": target.env_id, "level": level, **summarize(rows, config.ks)}])
        if not log.has("env", env_id=target.env_id):
            rows = [a for a in attempts_in_order(log) if a["env_id"] == target.env_id]
            log.append([{"type": "env", "env_id": target.env_id, **summarize(rows, config.ks)}])
    if on_progress:
        on_progress(done, total, "done")
    summary = {"config": asdict(config), **sweep_summary(attempts_in_order(log), config.ks)}
    write_sweep_report(summary, output)
    return summary


def attempts_in_order(log: RecordLog) -> list[dict]:
    """The log's attempts by their coordinates: a resumed log holds them in another order, and sums of
    floats depend on the order."""
    return sorted(log.of_type("attempt"), key=lambda a: (a["env_id"], a["level"], a["instance"], a["attempt"]))


def load(spec: str, config: SweepOptions) -> Any:
    """The policy ``spec`` names, sampling as ``config`` says."""
    from gymverse.policy import load_policy, sampling_flags

    try:
        return load_policy(
            spec,
            **sampling_flags(config),
            seed=config.seed,
            device=config.device,
            num_threads=config.cpu_threads or None,
        )
    except (ValueError, FileNotFoundError) as error:
        raise BadInput(str(error)) from None
