"""The sandbox: code that is not ours (a user's env folder, a synthesized candidate, GymVerse's released
games) is imported and played only in child processes, so that whatever it does becomes a verdict on
that file alone and never hangs, kills or poisons the caller or the next file.

How: one fork server (``python -m gymverse.sandbox.server``) imports gem and gymverse once; each job
runs in a child forked from it, in its own process group, with a wall-clock limit (the group is
killed), a memory limit (``RLIMIT_AS``: what the job may map beyond the server, on Linux), a scratch
working directory (also ``TMPDIR`` and ``HOME``; removed afterwards), no network (an audit hook refuses
sockets; a guard against accidents, not a security boundary), stdin closed and stdout/stderr kept
in a file whose tail comes back. A child costs a few milliseconds, not an interpreter start.

API::

    from gymverse.sandbox import Limits, Sandbox, judge_file, judge_folder, vet

    # any module-level function; the result may hold plain data and gymverse dataclasses only
    with Sandbox(Limits(seconds=60, memory_mb=1024)) as sandbox:
        outcome = sandbox.run(function, *args, **kwargs)   # -> Outcome
    outcome.verdict   # "ok" | "raised" | "exit" | "timeout" | "memory" | "signal"
    outcome.value, outcome.detail, outcome.seconds, outcome.output

    # judge a file: import it, list its env classes, run the env checker on each (one child per job)
    verdict = judge_file("candidate.py", prefix="synth", sandbox=sandbox, levels=[1, 5, 10], seeds=2)
    verdict.error                # "" or why the file did not import ("hung: ...", "exited: ...")
    for game in verdict.games:   # GameVerdict
        game.env_id, game.verdict, game.accepted, game.problems(), game.report  # report: CheckReport
    judge_folder("my_envs")      # every file of a folder, ids as register_env_dir gives them

    gymverse.register_env_dir("my_envs", vet=vet)   # register only what the sandboxed checker accepts

    # the audit of a folder's games, each game in its own child (diversity is read in the caller)
    targets = select_targets([], folder="my_envs", sandbox=sandbox)     # EnvTargets of GameFile specs
    result = run_audit(targets, config, audit_one=audit_in(sandbox))
"""

from gymverse.sandbox.client import Sandbox, SandboxBroken
from gymverse.sandbox.judge import (
    FileVerdict, GameVerdict, audit_in, folder_targets, judge_file, judge_files, judge_folder, sandbox_for,
    select_targets, vet,
)
from gymverse.sandbox.server import Limits, Outcome

__all__ = ["FileVerdict", "GameVerdict", "Limits", "Outcome", "Sandbox", "SandboxBroken", "audit_in",
           "folder_targets", "judge_file", "judge_files", "judge_folder", "sandbox_for", "select_targets", "vet"]
