"""A jail's memory, process count and CPU time, summed over every process in it, and the thread that
enforces the first two and charges the third to the file's budget.

``RLIMIT_AS`` bounds one process; a jail's game can fork, or fill its memory-backed ``/tmp`` and
``/dev/shm``. Where no cgroup can be given to the jail (cgroups v2 delegated to the caller), this is the
per-jail limit: every ``POLL_S`` the trusted side sums the jail's memory (the proportional share of
anonymous and shared memory of each process under the jail's bubblewrap, plus what its tmpfs mounts
hold) and counts its processes, and kills the whole jail once either passes its limit. A game can
overshoot for at most one poll (and never past ``RLIMIT_AS`` a process). A jail in which nothing has run
since the last poll cannot have grown, and is looked at less often (many idle jails cost next to nothing).
"""

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

POLL_S = 0.1  # while the jail runs
IDLE_POLL_S = 0.5  # at most, while nothing in it has run since the last look
TICKS = os.sysconf("SC_CLK_TCK")
TMPFS = ("tmp", "dev/shm")  # the jail's writable memory-backed mounts (the root and /dev are read-only)


@dataclass(frozen=True)
class Usage:
    memory_mb: float
    processes: int
    cpu_seconds: float  # of the processes now in the jail, and of the children they have reaped


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (orphans in a jail are adopted by its init, so they stay below)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                todo += map(int, Path(f"/proc/{current}/task/{task}/children").read_text().split())
        except OSError:  # it ended meanwhile
            continue
    return found


def process_memory_kb(pid: int, exact: bool) -> int:
    """Anonymous and shared memory of one process: resident (cheap; forked copies counted in each process), or
    with ``exact`` its proportional share (forked copies counted once) where ``smaps_rollup`` can be read."""
    ways = [("smaps_rollup", "Pss_Anon", "Pss_Shmem")] if exact else []
    for file, anonymous, shared in ways + [("status", "RssAnon", "RssShmem")]:
        try:
            fields = _fields(f"/proc/{pid}/{file}")
        except OSError:
            continue
        return fields.get(anonymous, 0) + fields.get(shared, 0)
    return 0


def cpu_seconds(pid: int) -> float:
    """User and system time of one process and of its reaped children."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return sum(int(ticks) for ticks in fields[11:15]) / TICKS


def tmpfs_kb(pid: int) -> int:
    """What the writable tmpfs mounts of the jail that ``pid`` is in hold."""
    total = 0
    for mount in TMPFS:
        try:
            stat = os.statvfs(f"/proc/{pid}/root/{mount}")
        except OSError:
            continue
        total += (stat.f_blocks - stat.f_bfree) * stat.f_frsize >> 10
    return total


def memory_mb(inside: list[int], exact: bool) -> float:
    """The memory of the jail whose processes are ``inside``: theirs, and what its tmpfs mounts hold."""
    kb = sum(process_memory_kb(pid, exact) for pid in inside)
    return (kb + max((tmpfs_kb(pid) for pid in inside[-1:]), default=0)) / 1024


def jail_usage(launcher: int) -> Usage:
    """What the jail under the bubblewrap process ``launcher`` uses now (its memory exactly)."""
    inside = descendants(launcher)[1:]  # the launcher itself is outside the jail's namespaces
    return Usage(memory_mb(inside, exact=True), len(inside), sum(cpu_seconds(pid) for pid in inside))


def over_limits(inside: list[int], limit_mb: int, processes: int) -> str:
    """Which of a jail's limits its processes ``inside`` pass, in words ("" when none). The memory is measured
    exactly only when the cheap measure, an upper bound, passes the limit."""
    if len(inside) > processes:
        return f"exceeded the jail's {processes}-process limit ({len(inside)} processes)"
    if memory_mb(inside, exact=False) > limit_mb and (used := memory_mb(inside, exact=True)) > limit_mb:
        return f"exceeded the jail's {limit_mb} MB memory limit ({used:.0f} MB in use)"
    return ""


def _fields(path: str) -> dict[str, int]:
    fields = {}
    for line in Path(path).read_text().splitlines():
        name, _, value = line.partition(":")
        parts = value.split()
        if parts and parts[0].isdigit():
            fields[name] = int(parts[0])
    return fields


class JailWatch(threading.Thread):
    """Polls one jail until ``stop``: passes each poll's new CPU time to ``charge``; past ``memory_mb`` or
    ``processes`` it calls ``exceeded(why)`` once."""

    def __init__(
        self,
        launcher: int,
        memory_mb: int,
        processes: int,
        exceeded: Callable[[str], None],
        charge: Callable[[float], None],
    ) -> None:
        super().__init__(daemon=True, name=f"jail-watch-{launcher}")
        self.launcher, self.memory_mb, self.processes = launcher, memory_mb, processes
        self.exceeded, self.charge = exceeded, charge
        self.stopped = threading.Event()

    def run(self) -> None:
        cpu, wait = 0.0, POLL_S
        while not self.stopped.wait(wait):
            inside = descendants(self.launcher)[1:]
            now = sum(cpu_seconds(pid) for pid in inside)
            if now <= cpu and len(inside) <= self.processes:  # nothing ran, so nothing grew: look less often
                wait = min(2 * wait, IDLE_POLL_S)
                continue
            self.charge(now - cpu)
            cpu, wait = now, POLL_S
            why = over_limits(inside, self.memory_mb, self.processes)
            if why:
                self.exceeded(why)
                return

    def stop(self) -> None:
        self.stopped.set()
