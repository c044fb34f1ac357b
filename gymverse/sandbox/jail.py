"""The jail: bubblewrap's command line for one file of games that is not ours.

Each jail gets fresh user, mount, pid, network, IPC, UTS and cgroup namespaces (no network at all,
not even the host's loopback); a root made of read-only binds of the system libraries, the Python
interpreter and its packages, gymverse's own source, and the one game file; a private ``/tmp`` of
``scratch_mb`` on tmpfs and a ``/dev/shm`` of ``memory_mb``, the rest of the root and ``/dev`` read-only
(so no memory-backed mount is unbounded); an environment cleared to ``PATH``, ``HOME=/tmp`` and ``LANG``;
no capabilities; ``/proc/keys`` unreadable; and resource limits set before the file is imported. Every
process in it dies with its pid namespace when the host exits or is killed, and with the calling process.

bubblewrap itself is process 1 in the jail, and any process there can read its ``/proc/1/environ`` and
``cmdline``: it is started with :data:`LAUNCHER_ENVIRONMENT` only, never the caller's environment, and its
command line holds paths and limits, nothing of the caller's.
"""

import os
import shutil
import site
import sys
from dataclasses import dataclass
from pathlib import Path

import gem

import gymverse

HOST = Path(__file__).with_name("host.py")
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache", "/etc/localtime")
# All bubblewrap (process 1 in the jail, readable there) gets of the caller's environment.
LAUNCHER_ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
# RLIMIT_NPROC sits this far above the watch's process limit. The kernel counts the jail's processes (bubblewrap's
# too) against it and refuses a fork silently, so at the watch's own number a file's forks would stop one short of
# the limit and never be named; a little above it, the watch sees them pass and names the limit in the file's row.
# (The kernel exempts a real root from RLIMIT_NPROC: run as root, the watch is the only process limit.)
PROCESS_HEADROOM = 8
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)"


@dataclass(frozen=True)
class Limits:
    """What one jail may use. ``answer_seconds`` bounds one request (a step, a reset); ``import_seconds`` the
    file's import and listing; ``seconds`` the CPU time of a file's jails where a caller gives them a
    :class:`~gymverse.sandbox.budget.Budget` (the judge and the gates do, per file); ``memory_mb`` one
    process's address space and, summed, the whole jail's memory; ``processes`` the jail's processes."""

    seconds: float = 600.0
    answer_seconds: float = 10.0  # 10 times the contract's 1 s a reset, 200 times its 50 ms a step
    import_seconds: float = 60.0  # the file's import, and building each of its games once to list them
    memory_mb: int = 2048
    cpu_seconds: int = 900
    file_mb: int = 64
    processes: int = 64
    open_files: int = 256
    scratch_mb: int = 64
    output_chars: int = 4000

    def rlimits(self) -> dict[str, int]:
        return {
            "RLIMIT_AS": self.memory_mb << 20,
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_FSIZE": self.file_mb << 20,
            "RLIMIT_NPROC": self.processes + PROCESS_HEADROOM,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_CORE": 0,
        }


def jail_problem() -> str | None:
    """Why no jail can be made here, in one line, or None when it can."""
    if sys.platform != "linux":
        return f"the jail needs Linux namespaces, and this is {sys.platform}"
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    return _probe()


_probed: list[str | None] = []


def _probe() -> str | None:
    if not _probed:
        import subprocess

        try:
            done = subprocess.run(
                ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "true"], capture_output=True, text=True, timeout=30
            )
            _probed.append(
                None
                if done.returncode == 0
                else f"bubblewrap cannot create namespaces here ({done.stderr.strip() or done.returncode}); "
                "unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1)"
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            _probed.append(f"bubblewrap did not run: {error}")
    return _probed[0]


def readonly_paths() -> list[str]:
    """What the jail sees, read-only: the system libraries, the interpreter and its packages, gymverse, GEM."""
    python = {sys.base_prefix, sys.prefix, sys.exec_prefix, *site.getsitepackages()}
    ours = {str(Path(gymverse.__file__).parent), str(Path(gem.__file__).parent)}
    try:
        import gymverse.envs as library

        ours |= set(library.__path__)
    except ImportError:
        pass
    paths = [p for p in SYSTEM if os.path.lexists(p)] + sorted(python | ours)
    return [p for p in paths if os.path.exists(p)]


def jail_command(file: Path, limits: Limits, settings: str) -> list[str]:
    """The bubblewrap command that runs the host on ``file`` (``settings``: the host's JSON argument); run it
    with :data:`LAUNCHER_ENVIRONMENT` as its environment."""
    command = [
        shutil.which("bwrap") or "bwrap",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(limits.memory_mb << 20),
        "--tmpfs",
        "/dev/shm",
        "--ro-bind",
        "/dev/null",
        "/proc/keys",
        "--dir",
        "/var/empty",
        # the private /tmp first: binds made after it stay visible, so a checkout under /tmp still works
        "--size",
        str(limits.scratch_mb << 20),
        "--tmpfs",
        "/tmp",
    ]
    for path in readonly_paths():
        if os.path.islink(path) and path in SYSTEM:
            command += ["--symlink", os.readlink(path), path]
        else:
            command += ["--ro-bind", path, path]
    command += [
        "--ro-bind",
        str(file),
        str(file),
        # the root and /dev are tmpfs without a size: read-only, only /tmp and /dev/shm (sized) take writes
        "--remount-ro",
        "/dev",
        "--remount-ro",
        "/",
        "--chdir",
        "/tmp",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "LANG",
        "C.UTF-8",
        sys.executable,
        "-I",
        "-B",
        str(HOST),
        settings,
    ]
    return command
