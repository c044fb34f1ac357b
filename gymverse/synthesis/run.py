"""The two runs behind ``gymverse synthesize``: writing new games from themes, and adopting games written elsewhere.

Both judge every module with the same gates, append one manifest record per candidate, copy what
passes into the output folder (a folder ``gymverse.register_env_dir`` and ``--dir`` read as it is),
and end with a summary table (``summary.md``) and the audit of the accepted games (``audit/``).
"""

import dataclasses
import inspect
import json
import shutil
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from gymverse.env.visible import visible
from gymverse.errors import BadInput
from gymverse.evaluation.audit import SECTIONS, AuditConfig, EnvAudit
from gymverse.evaluation.tables import markdown_table
from gymverse.synthesis.gates import ADOPT_AUDIT, JailGates
from gymverse.synthesis.modules import code_hash
from gymverse.synthesis.pipeline import (
    CANDIDATES,
    MANIFEST,
    TEXTS,
    Candidate,
    CandidateRun,
    Progress,
    RunContext,
    Theme,
    plan_candidates,
    run_all,
    save_texts,
    verdict_fields,
)
from gymverse.synthesis.prompts import Prompts
from gymverse.synthesis.records import JsonlLog
from gymverse.synthesis.verdicts import GateResult, Judgement

PASSED = ("accepted", "unverified")
ADOPTED_AUDIT = dataclasses.replace(ADOPT_AUDIT, sections=list(SECTIONS))  # the gates' play, and diversity


@dataclass
class RunSummary:
    output: Path
    records: list[dict]  # this run's candidates, from the manifest (earlier runs' records included)
    errors: dict[str, str] = field(default_factory=dict)  # candidates left unfinished, and why
    audit: dict[str, Path] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        statuses = [r["status"] for r in self.records]
        return {s: statuses.count(s) for s in ("accepted", "unverified", "refused")}


@lru_cache(maxsize=None)
def example_game(domain: str) -> tuple[str, str]:
    """The shortest library game of ``domain`` (any domain if none), as (name, source), for the construction prompt."""
    from gymverse.env import builtin_env_classes

    classes = builtin_env_classes()
    pool = [c for c in classes if c.domain == domain] or classes
    sources = {c.__name__: inspect.getsource(sys.modules[c.__module__]) for c in pool}
    name = min(sources, key=lambda n: len(sources[n]))
    return name, sources[name]


def library_names() -> set[str]:
    from gymverse.env import builtin_env_classes

    return {c.__name__ for c in builtin_env_classes()}


def remember_passed(gates: JailGates, output: Path, records: list[dict]) -> None:
    """A resumed run compares new games with those an earlier run accepted."""
    for record in records:
        texts = output / CANDIDATES / record["candidate"] / TEXTS
        if not texts.is_file():  # an adopted file's games are saved one by one
            texts = output / CANDIDATES / f"{record['candidate']}.{record['class_name']}" / TEXTS
        if record["status"] in PASSED and texts.is_file():
            gates.novelty.remember(record["class_name"], tuple(json.loads(texts.read_text())))


def synthesize(
    themes: list[Theme],
    writer: Callable[[], Callable],
    output: Path,
    gates: JailGates,
    count: int = 1,
    repairs: int = 2,
    concurrency: int = 4,
    prompts: Prompts | None = None,
    console=None,
) -> RunSummary:
    """Make ``count`` games per theme. ``writer()`` builds the writer model's ``ask`` (only if there is work)."""
    output.mkdir(parents=True, exist_ok=True)
    manifest = JsonlLog(output / MANIFEST)
    earlier = manifest.read()
    remember_passed(gates, output, earlier)
    taken = library_names() | {r["class_name"] for r in earlier if r["status"] in PASSED}
    candidates = plan_candidates(themes, count)
    done = {r["candidate"] for r in earlier}
    ask = writer() if any(c.id not in done for c in candidates) else None
    ctx = RunContext(output, ask, gates, prompts or Prompts(), repairs, taken, example_game)

    def job(candidate: Candidate) -> Callable[[Callable[[str], None]], dict]:
        def run(stage: Callable[[str], None]) -> dict:
            record = CandidateRun(candidate, ctx, stage).run()
            if record["status"] in PASSED:
                taken.add(record["class_name"])
            return record

        return run

    errors = run_all({c.id: job(c) for c in candidates}, manifest, concurrency, Progress(console))
    return finish(output, [c.id for c in candidates], errors, gates, played=ctx.played)


def adopt(folder: Path, output: Path, gates: JailGates, concurrency: int = 4, console=None) -> RunSummary:
    """Judge every game of every file of ``folder`` (written elsewhere, a solver optional), one record per game,
    and copy out the files with a game that passed."""
    from gymverse.env.registry import folder_entries

    entries = folder_entries(folder)
    if not entries.files and not entries.bad:
        raise BadInput(f"--adopt {folder}: no .py files in the folder")
    if Path(output).resolve() == Path(folder).resolve():
        raise BadInput("--output must be another folder than --adopt's")
    output.mkdir(parents=True, exist_ok=True)
    manifest = JsonlLog(output / MANIFEST)
    remember_passed(gates, output, manifest.read())
    played: dict[tuple[str, str], EnvAudit] = {}  # the gates' play of each game that passed, for the report

    def job(file: Path) -> Callable[[Callable[[str], None]], list[dict]]:
        def run(stage: Callable[[str], None]) -> list[dict]:
            stage("gates")
            records = []
            for judgement in gates.judge_games(file, need_solver=False):
                if judgement.passed:
                    judgement.gates.append(gates.admit(str(judgement.class_name), judgement))
                passed = judgement.passed
                if passed:
                    shutil.copyfile(file, output / file.name)
                    save_texts(output, f"{file.stem}.{judgement.class_name}", judgement)
                    played[file.name, str(judgement.class_name)] = judgement.audit
                record: dict[str, Any] = {"candidate": file.stem, "source": str(file.resolve())}
                record.update(
                    verdict_fields(judgement, file.name if passed else None),
                    gate_seconds=round(judgement.seconds, 3),
                    code_sha256=code_hash(file.read_text(errors="replace")),
                )
                records.append(record)
            return records

        return run

    def unreadable(entry: str, why: str) -> Callable[[Callable[[str], None]], dict]:
        """A symlink loop or a dangling link: a refused row, not a candidate to retry."""
        refused = Judgement([GateResult("import", False, "unreadable", why)])
        return lambda stage: {"candidate": Path(entry).stem, "source": entry, **verdict_fields(refused, None)}

    jobs: dict[str, Callable[[Callable[[str], None]], dict | list[dict]]] = {f.stem: job(f) for f in entries.files}
    jobs |= {Path(e).stem: unreadable(e, why) for e, why in entries.bad.items()}
    errors = run_all(jobs, manifest, concurrency, Progress(console))
    return finish(output, list(jobs), errors, gates, ADOPTED_AUDIT, played)


def finish(
    output: Path,
    planned: list[str],
    errors: dict[str, str],
    gates: JailGates,
    audit_config: AuditConfig | None = None,
    played: dict[tuple[str, str], EnvAudit] | None = None,
) -> RunSummary:
    latest = {(r["candidate"], r.get("class_name")): r for r in JsonlLog(output / MANIFEST).read()}
    summary = RunSummary(output, [r for key, r in latest.items() if key[0] in set(planned)], errors)
    (output / "summary.md").write_text(visible(summary_markdown(summary), lines=True))
    summary.audit = audit_accepted(output, summary.records, gates, audit_config or AuditConfig(), played or {})
    return summary


def summary_rows(records: list[dict]) -> list[list]:
    return [
        [
            r["candidate"],
            r["status"],
            r.get("class_name") or "-",
            r["reason"] or "-",
            r.get("repair_rounds", "-"),
            r.get("prompt_tokens", 0) + r.get("completion_tokens", 0),
            round(r.get("writer_seconds", 0.0) + r.get("gate_seconds", 0.0), 1),
        ]
        for r in records
    ]


SUMMARY_HEADER = ["candidate", "status", "game", "reason refused", "repair rounds", "tokens", "seconds"]


def summary_markdown(summary: RunSummary) -> str:
    counts = summary.counts()
    lines = [
        "# Synthesis summary",
        "",
        f"{counts['accepted']} accepted, {counts['unverified']} unverified (no solver), {counts['refused']} "
        f"refused; manifest: `{MANIFEST}`.",
        "",
        markdown_table(SUMMARY_HEADER, summary_rows(summary.records)),
    ]
    if summary.errors:
        lines += ["", "Unfinished (tried again by the next run):", ""]
        lines += [f"- {c}: {e}" for c, e in summary.errors.items()]
    return "\n".join(lines) + "\n"


def audit_accepted(
    output: Path, records: list[dict], gates: JailGates, config: AuditConfig, played: dict[tuple[str, str], EnvAudit]
) -> dict[str, Path]:
    """The audit report of the games that passed, written to ``output/audit``: the play the gates audited
    (``played``, by file and class) where it was this report's, else each game played again through its jail.

    A resumed run that accepted nothing new keeps the report it finds.
    """
    from gymverse.evaluation.audit import AuditResult
    from gymverse.evaluation.audit.diversity import audit_diversity
    from gymverse.evaluation.audit.report import write_audit_report

    passed = [r for r in records if r["status"] in PASSED]
    folder = output / "audit"
    audited = {r["file"]: r["code_sha256"] for r in passed}
    stamp = folder / "audited.json"
    if not passed or (stamp.is_file() and json.loads(stamp.read_text()) == audited):
        return {"markdown": folder / "audit.md"} if passed else {}
    audits = []
    for record in passed:
        env_id = f"{output.name}:{record['class_name']}"
        audit = played.get((record["file"], record["class_name"]))
        if audit is None or audit.env_id != env_id:
            audit = gates.audit(output / record["file"], record["class_name"], env_id, config, record["domain"])
        audits.append(audit)
    result = AuditResult(config, audits)
    result.diversity = audit_diversity(
        [a.env_id for a in audits],
        [a.domain for a in audits],
        {a.env_id: a.plays for a in audits},
        model=gates.novelty.model(),
    )
    paths = write_audit_report(result, folder)
    stamp.write_text(json.dumps(audited))
    return paths
