"""A jail's memory, process count and CPU time, summed over every process in it, and the thread that
enforces the first two and charges the third to the file's budget.

``RLIMIT_AS`` bounds one process; a jail's game can fork, or fill its memory-backed ``/tmp`` and
``/dev/shm``. Where no cgroup can be given to the jail (cgroups v2 delegated to the caller), this is the
per-jail limit: every ``POLL_S`` the trusted side sums the jail's memory (the proportional share of
anonymous and shared memory of each process under the jail's bubblewrap, plus what its tmpfs mounts
hold) and counts its processes, and kills the whole jail once either passes its limit. A game can
overshoot for at most one poll (and never past ``RLIMIT_AS`` a process).
"""

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

POLL_S = 0.1
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


def process_memory_kb(pid: int) -> int:
    """Anonymous and shared memory of one process: its proportional share (forked copies counted once), or
    its resident amount where ``smaps_rollup`` cannot be read."""
    try:
        fields = _fields(f"/proc/{pid}/smaps_rollup")
        return fields.get("Pss_Anon", 0) + fields.get("Pss_Shmem", 0)
    except OSError:
        pass
    try:
        fields = _fields(f"/proc/{pid}/status")
        return fields.get("RssAnon", 0) + fields.get("RssShmem", 0)
    except OSError:
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


def jail_usage(launcher: int) -> Usage:
    """What the jail under the bubblewrap process ``launcher`` uses now."""
    pids = descendants(launcher)
    inside = pids[1:]  # the launcher itself is outside the jail's namespaces
    kb = sum(process_memory_kb(pid) for pid in pids)
    kb += max((tmpfs_kb(pid) for pid in inside[-1:]), default=0)
    return Usage(kb / 1024, len(inside), sum(cpu_seconds(pid) for pid in inside))


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
        cpu = 0.0
        while not self.stopped.wait(POLL_S):
            usage = jail_usage(self.launcher)
            if usage.cpu_seconds > cpu:
                self.charge(usage.cpu_seconds - cpu)
                cpu = usage.cpu_seconds
            why = over_limits(usage, self.memory_mb, self.processes)
            if why:
                self.exceeded(why)
                return

    def stop(self) -> None:
        self.stopped.set()


def over_limits(usage: Usage, memory_mb: int, processes: int) -> str:
    """Which of a jail's limits ``usage`` passes, in words ("" when none)."""
    if usage.memory_mb > memory_mb:
        return f"exceeded the jail's {memory_mb} MB memory limit ({usage.memory_mb:.0f} MB in use)"
    if usage.processes > processes:
        return f"exceeded the jail's {processes}-process limit ({usage.processes} processes)"
    return ""
