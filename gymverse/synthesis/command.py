"""``gymverse synthesize``: the command line of the synthesis pipeline (thin: parse, run, print)."""

import dataclasses
import sys
from pathlib import Path

import tyro
from rich.table import Table

from gymverse.console import console
from gymverse.errors import BadInput


def synthesize_command(
    theme: tyro.conf.Positional[list[str]] = [],  # noqa: B006 (tyro reads the default)
    themes: Path | None = None,
    output: Path | None = None,
    model: str | None = None,
    count: int = 1,
    repairs: int = 2,
    concurrency: int = 4,
    adopt: Path | None = None,
    prompts: Path | None = None,
    time_limit: float = 600.0,
    memory_mb: int = 2048,
    temperature: float = 0.7,
    max_tokens: int = 8192,
    request_timeout: float = 600.0,
    api_key: str | None = None,
) -> None:
    """Write new games with a language model, keeping only those that pass every gate; or adopt games written elsewhere.

    Every module runs only in a jail of its own, judged from outside. The accepted modules, manifest.jsonl, summary.md
    and audit/ go to --output; running the same command again resumes (finished candidates are skipped).

    Args:
        theme: Themes to write games about, e.g. 'beekeeping' 'safe cracking'.
        themes: A file of themes, one a line, optionally 'theme | domain'.
        output: The folder for accepted games, the manifest, the summary and the audit (required).
        model: The writer: openai:URL#MODEL (vLLM, SGLang or hosted), vllm:PATH or a Hugging Face folder.
        count: Games to write per theme.
        repairs: Rounds of feedback per stage: a refused design or module goes back to the model this often.
        concurrency: Candidates in flight at once (requests to the model, and jails).
        adopt: Judge this folder of existing game files instead (GymVerse's included; no model needed).
        prompts: A folder of prompt files replacing the package's (abstraction.md, construction.md, ...).
        time_limit: Wall-clock seconds one module's gates (import, check, audit) may take.
        memory_mb: Memory one module's jail may use.
        temperature: The writer's sampling temperature.
        max_tokens: The longest answer the writer may give.
        request_timeout: Seconds one request to the writer may take.
        api_key: The endpoint's API key (local servers need none).
    """
    from gymverse.sandbox.judge import JUDGE_LIMITS
    from gymverse.synthesis.gates import GateSettings, JailGates
    from gymverse.synthesis.pipeline import Theme, read_themes
    from gymverse.synthesis.prompts import Prompts
    from gymverse.synthesis.run import adopt as adopt_folder
    from gymverse.synthesis.run import synthesize

    if output is None:
        raise BadInput("--output DIR is required: the folder the accepted games and the manifest go to")
    if min(count, concurrency) < 1 or repairs < 0 or time_limit <= 0 or memory_mb < 64:
        raise BadInput("--count and --concurrency must be >= 1, --repairs >= 0, --time-limit > 0, --memory-mb >= 64")
    # Games are judged under the ids the audit report gives them, so that the report can reuse the gates' play.
    limits = dataclasses.replace(JUDGE_LIMITS, seconds=time_limit, memory_mb=memory_mb)
    gates = JailGates(GateSettings(limits=limits, prefix=output.name))
    if adopt is not None:
        if theme or themes or model:
            raise BadInput("--adopt judges existing files: give no themes and no --model with it")
        summary = adopt_folder(adopt, output, gates, concurrency, console)
    else:
        if model is None:
            raise BadInput("--model is required to write games, e.g. --model openai:http://127.0.0.1:8000/v1#MODEL")
        chosen = [Theme(t) for t in theme] + (read_themes(themes) if themes else [])
        if not chosen:
            raise BadInput("name themes (gymverse synthesize 'beekeeping' ...) or give --themes FILE")
        template = Prompts(prompts)

        def writer():
            from gymverse.synthesis.writer import Writer

            return Writer(model, temperature, max_tokens, request_timeout, api_key).ask

        summary = synthesize(chosen, writer, output, gates, count, repairs, concurrency, template, console)
    print_summary(summary)
    if summary.errors:
        console.print(
            f"[red]{len(summary.errors)} candidate(s) unfinished[/red]; run the same command again to retry them"
        )
        sys.exit(1)


def print_summary(summary) -> None:
    from gymverse.synthesis.run import SUMMARY_HEADER, summary_rows

    table = Table(title=f"synthesis: {summary.output}")
    for column in SUMMARY_HEADER:
        table.add_column(column, overflow="fold")
    colours = {"accepted": "green", "unverified": "yellow", "refused": "red"}
    for row in summary_rows(summary.records):
        row[1] = f"[{colours[row[1]]}]{row[1]}[/{colours[row[1]]}]"
        table.add_row(*(str(x) for x in row))
    console.print(table)
    counts = summary.counts()
    console.print(
        f"{counts['accepted']} accepted, {counts['unverified']} unverified, {counts['refused']} refused; "
        f"manifest {summary.output / 'manifest.jsonl'}"
        + (f"; audit {summary.audit['markdown']}" if "markdown" in summary.audit else ""),
        markup=False,
    )
    for candidate, error in summary.errors.items():
        console.print(f"unfinished {candidate}: {error}", markup=False)
