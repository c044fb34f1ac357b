"""One synthesis run: themes -> candidates -> design -> module -> gates -> repair -> accepted games.

Every candidate is one thread's work (``concurrency`` at a time against one endpoint); its modules
are judged by the gates in separate processes. Finished candidates are appended to the manifest;
every answer of the writer is appended to the journal as it arrives, so a run killed mid-way and
started again skips what was finished and replays the answers it already paid for.
"""

import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

from rich.progress import TaskID

from gymverse.console import progress_bars
from gymverse.errors import BadInput
from gymverse.evaluation.audit import EnvAudit
from gymverse.synthesis.design import SCHEMA_HINT, parse_design
from gymverse.synthesis.modules import code_hash, extract_code, snake_case
from gymverse.synthesis.prompts import Prompts
from gymverse.synthesis.records import JsonlLog
from gymverse.synthesis.verdicts import GateResult, Judgement
from gymverse.synthesis.writer import Answer

MANIFEST = "manifest.jsonl"
JOURNAL = "journal.jsonl"
CANDIDATES = "candidates"  # a subfolder: register_env_dir reads only the top folder's .py files
TEXTS = "texts.json"  # beside each passing candidate: what the novelty gate compared, for a resumed run


@dataclass(frozen=True)
class Theme:
    text: str
    domain: str = ""


@dataclass(frozen=True)
class Candidate:
    id: str
    theme: Theme


class Gates(Protocol):
    """The gates: ``judge`` runs the sandboxed ones on a module file; ``admit`` the novelty gate.

    ``admit`` compares a passing game with the library and the games admitted before it, and
    remembers it when it is new (atomically: concurrent candidates are compared with each other).
    """

    def judge(self, path: Path, need_solver: bool) -> Judgement: ...

    def admit(self, name: str, judgement: Judgement) -> GateResult: ...


def read_themes(path: Path) -> list[Theme]:
    """One theme a line, optionally ``theme | domain``; blank lines and ``#`` comments are skipped."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as error:
        raise BadInput(f"--themes {path}: {error.strerror}") from None
    themes = []
    for line in lines:
        line = line.strip()
        if line and not line.startswith("#"):
            text, _, domain = line.partition("|")
            themes.append(Theme(text.strip(), domain.strip()))
    if not themes:
        raise BadInput(f"--themes {path}: no themes in the file")
    return themes


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "theme"


def plan_candidates(themes: list[Theme], count: int) -> list[Candidate]:
    """``count`` candidates per theme, with ids that stay the same from one run to the next."""
    candidates: list[Candidate] = []
    seen: dict[str, int] = {}
    for theme in themes:
        base = slug(theme.text)
        seen[base] = seen.get(base, 0) + 1
        if seen[base] > 1:
            base = f"{base}-{seen[base]}"
        candidates += [Candidate(f"{base}-{k + 1}", theme) for k in range(count)]
    return candidates


@dataclass
class Spent:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def add(self, answer: Answer) -> None:
        self.prompt_tokens += answer.prompt_tokens
        self.completion_tokens += answer.completion_tokens
        self.seconds += answer.seconds


@dataclass
class RunContext:
    output: Path
    writer: Callable[[str], Answer] | None  # None when every candidate is already done
    gates: Gates
    prompts: Prompts
    repairs: int
    taken_names: set[str]
    examples: Callable[[str], tuple[str, str]]  # domain -> (example game's name, its source)
    journal: JsonlLog = field(init=False)
    replay: dict[tuple[str, str], dict] = field(init=False)
    # The gates' play of each game that passed, by (file, class), so that the audit report need not play it again.
    played: dict[tuple[str, str], EnvAudit] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.journal = JsonlLog(self.output / JOURNAL)
        self.replay = {(r["candidate"], r["step"]): r for r in self.journal.read()}


class CandidateRun:
    """One candidate from theme to verdict; ``stage`` is called with what it is doing."""

    def __init__(self, candidate: Candidate, ctx: RunContext, stage: Callable[[str], None]) -> None:
        self.candidate, self.ctx, self.stage = candidate, ctx, stage
        self.spent = Spent()
        self.gate_seconds = 0.0
        self.folder = ctx.output / CANDIDATES / candidate.id

    def ask(self, step: str, prompt: str) -> str:
        """The writer's answer to ``prompt``: from the journal if a killed run already got it."""
        recorded = self.ctx.replay.get((self.candidate.id, step))
        if recorded is not None:
            answer = Answer(
                recorded["text"], recorded["prompt_tokens"], recorded["completion_tokens"], recorded["seconds"]
            )
        else:
            assert self.ctx.writer is not None, "a candidate still to write has a writer"
            answer = self.ctx.writer(prompt)
            self.ctx.journal.append(
                {
                    "candidate": self.candidate.id,
                    "step": step,
                    "text": answer.text,
                    "prompt_tokens": answer.prompt_tokens,
                    "completion_tokens": answer.completion_tokens,
                    "seconds": answer.seconds,
                }
            )
        self.spent.add(answer)
        return answer.text

    def design(self) -> tuple[dict | None, list[str], int]:
        """Stage 1 with up to ``repairs`` rounds of validation feedback: (design, errors, rounds)."""
        theme = self.candidate.theme
        prompt = self.ctx.prompts.render(
            "abstraction",
            theme=theme.text,
            domain=theme.domain or "any (choose one)",
            taken_names=", ".join(sorted(self.ctx.taken_names)),
            schema=SCHEMA_HINT,
        )
        for round_ in range(self.ctx.repairs + 1):
            self.stage(f"design {round_ + 1}")
            text = self.ask(f"design{round_}", prompt)
            design, errors = parse_design(text, self.ctx.taken_names)
            if not errors:
                return design, [], round_
            prompt = self.ctx.prompts.render(
                "repair_design",
                theme=theme.text,
                errors="\n".join(f"- {e}" for e in errors),
                previous=text,
                schema=SCHEMA_HINT,
            )
        return design, errors, self.ctx.repairs

    def run(self) -> dict:
        self.folder.mkdir(parents=True, exist_ok=True)
        design, errors, design_rounds = self.design()
        record = {
            "candidate": self.candidate.id,
            "theme": self.candidate.theme.text,
            "design": design,
            "design_rounds": design_rounds,
            "repair_rounds": 0,
        }
        if errors:
            gate = GateResult("design", False, "bad_design", "; ".join(errors))
            return self.finish(record, Judgement([gate]), None)
        assert design is not None  # a design without errors was read
        name = design["name"]
        example_name, example = self.ctx.examples(design["domain"])
        common = dict(design=json.dumps(design, indent=2), contract=self.ctx.prompts.texts["contract"], name=name)
        prompt = self.ctx.prompts.render("construction", example_name=example_name, example=example, **common)
        judgement, code = Judgement(), None
        for round_ in range(self.ctx.repairs + 1):
            record["repair_rounds"] = round_
            self.stage(f"code {round_ + 1}")
            code = extract_code(self.ask(f"code{round_}", prompt))
            if code is None:
                judgement = Judgement(
                    [GateResult("code", False, "no_code", "the answer holds no ```python block defining a class")]
                )
            else:
                path = self.folder / f"{snake_case(name)}_r{round_}.py"
                path.write_text(code)
                self.stage(f"gates {round_ + 1}")
                judgement = judge_and_admit(self.ctx.gates, path, need_solver=True)
                self.gate_seconds += judgement.seconds
                if judgement.passed:
                    file_name = f"{snake_case(str(judgement.class_name))}.py"
                    (self.ctx.output / file_name).write_text(code)
                    save_texts(self.ctx.output, self.candidate.id, judgement)
                    if judgement.audit is not None:
                        self.ctx.played[file_name, str(judgement.class_name)] = judgement.audit
                    return self.finish(record, judgement, code, file_name)
            prompt = self.ctx.prompts.render(
                "repair_code", report=judgement.report(), code=code or "(no code)", **common
            )
        return self.finish(record, judgement, code)

    def finish(self, record: dict, judgement: Judgement, code: str | None, file_name: str | None = None) -> dict:
        record.update(
            verdict_fields(judgement, file_name),
            code_sha256=code_hash(code) if code else None,
            prompt_tokens=self.spent.prompt_tokens,
            completion_tokens=self.spent.completion_tokens,
            writer_seconds=round(self.spent.seconds, 3),
            gate_seconds=round(self.gate_seconds, 3),
        )
        return record


def judge_and_admit(gates: Gates, path: Path, need_solver: bool) -> Judgement:
    """The sandboxed gates, then (only for a module that passed them all) the novelty gate."""
    judgement = gates.judge(path, need_solver)
    if judgement.passed:
        judgement.gates.append(gates.admit(str(judgement.class_name), judgement))
    return judgement


def save_texts(output: Path, candidate: str, judgement: Judgement) -> None:
    folder = output / CANDIDATES / candidate
    folder.mkdir(parents=True, exist_ok=True)
    (folder / TEXTS).write_text(json.dumps(judgement.texts))


def verdict_fields(judgement: Judgement, file_name: str | None) -> dict:
    """The manifest's verdict fields: status (accepted, unverified or refused), the first failing gate, every gate."""
    failure = judgement.failure
    status = "refused" if failure else "accepted" if judgement.verified else "unverified"
    return dict(
        status=status,
        reason=failure.reason if failure else "",
        detail=failure.detail if failure else "",
        file=file_name,
        class_name=judgement.class_name,
        domain=judgement.domain,
        gates=judgement.as_records(),
    )


def run_all(
    jobs: dict[str, Callable[[Callable[[str], None]], dict | list[dict]]],
    manifest: JsonlLog,
    concurrency: int,
    progress: "Progress",
) -> dict[str, str]:
    """Run the jobs (candidate id -> job, whose record or records go to the manifest) not yet in the
    manifest, ``concurrency`` at a time.

    Returns the errors by candidate: a job that raises (the writer's endpoint is down, a request
    timed out) writes no record, so the next run tries it again.
    """
    done = {r["candidate"] for r in manifest.read()}
    todo = [c for c in jobs if c not in done]
    progress.start(len(jobs), len(jobs) - len(todo))
    errors = {}

    def work(candidate: str) -> None:
        stage = progress.begin(candidate)
        try:
            records = jobs[candidate](stage)
        except Exception as error:
            errors[candidate] = f"{type(error).__name__}: {error}"
        else:
            for record in records if isinstance(records, list) else [records]:
                manifest.append(record)
        finally:
            progress.end(candidate)

    try:
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            list(pool.map(work, todo))
    finally:
        progress.stop()
    return errors


class Progress:
    """Rich progress bars: one for the whole run, one line per candidate in flight with its stage."""

    def __init__(self, console=None) -> None:
        self.bars = progress_bars(console)
        self.tasks: dict[str, TaskID] = {}

    def start(self, total: int, done: int) -> None:
        self.bars.start()
        self.overall = self.bars.add_task("candidates", total=total, completed=done)

    def begin(self, candidate: str) -> Callable[[str], None]:
        task = self.tasks[candidate] = self.bars.add_task(candidate, total=None)
        return lambda stage: self.bars.update(task, description=f"  {candidate}: {stage}")

    def end(self, candidate: str) -> None:
        self.bars.remove_task(self.tasks.pop(candidate))
        self.bars.advance(self.overall)

    def stop(self) -> None:
        self.bars.stop()
