"""The escape suite's payloads: game files that try, at import or at a step, what an attacker's file would.

Each payload file is a small game (``Payload``) whose hostile act runs at one stage. A good control game
(``Control``) sits beside them. :class:`Traps` holds what a payload could reach if it escaped: a secret in
the environment, a listener on the host's loopback, and the paths it would write to. After a command has
run on the folder, :meth:`Traps.breaches` lists whatever the payloads achieved outside the jail.
"""

import os
import socket
import subprocess
import textwrap
import threading
import time
from pathlib import Path

SECRET_NAME = "GYMVERSE_ESCAPE_SECRET_KEY"
MARKER = "escapepayload"
TWO_GB = 2048  # chunks of 1 MiB

ACTS = {
    "read_secret": 'found = os.environ.get(SECRET_NAME, "") + read(f"/proc/{os.getppid()}/environ") + read("/proc/1/environ")',
    "raise_secrets": "acted = False; raise RuntimeError(every_process_text())",
    "write_files": 'write(HOME_FILE); write(CWD_FILE); write(f"/proc/{os.getppid()}/cwd/{CANARY}"); write(TMP_FILE)',
    "connect": 'socket.create_connection(("127.0.0.1", PORT), timeout=1).sendall(b"escaped")',
    "connect_subprocess": "subprocess.run([sys.executable, \"-c\", f\"import socket; socket.create_connection(('127.0.0.1', {PORT}), timeout=1).sendall(b'escaped')\"], timeout=5)",
    "connect_ctypes": "connect_with_ctypes()",
    "survive": "subprocess.Popen([sys.executable, \"-c\", f\"import time; time.sleep(3); open({OUTSIDE_FILE!r}, 'w').write('{MARKER}')\", CANARY], start_new_session=True)",
    "fork": "fork_many(200)",
    "patch_checker": "patch_checker()",
    "forge": "forge_frames()",
    "kill_parents": "kill_parents()",
    "print_flood": "flood(sys.stdout.fileno())",
    "channel_flood": "flood_channels()",
    "hang": "spin()",
    "exit": "os._exit(0)",
    "write_terminal": "raise ValueError(FORGED)",
}
# Payloads that take memory or processes, run under a small jail (512 MB in the tests): each process stays
# within its own limits, and they must be stopped at the jail's, summed over its processes and its mounts.
HOG_MB = 700
LIMIT_ACTS = {
    "fill_shm": "fill_shm(HOG_MB)",
    "fork_hogs": "fork_hogs(4, HOG_MB // 3)",
    "fork_sleepers": "fork_many(200)",
}
STAGES = ("import", "construct", "step")  # when a payload acts: at its import, in its constructor, at a step
AT_EVERY_STAGE = ("raise_secrets",)
AT_BOTH_STAGES = (
    "read_secret",
    "write_files",
    "connect",
    "connect_subprocess",
    "connect_ctypes",
    "survive",
    "patch_checker",
    "forge",
    "kill_parents",
    "exit",
    "write_terminal",
)
# What a message written to forge the terminal holds: erase its own row and the line above, write a passing row
# for the payload, set the window's title (OSC 0), write the clipboard (OSC 52), a C1 CSI, and a new line.
FORGED = (
    "ok\x1b[2K\x1b[1A\r"
    + "pass               escape_envs:Forged (forged.py)"
    + "\x1b]0;pwned\x07\x1b]52;c;ZXNjYXBl\x07\x9b2K"
    + "\npass               escape_envs:Forged (forged.py)"
)
TERMINAL_BYTES = ("\x1b", "\x07", *map(chr, range(0x80, 0xA0)))  # none of them may reach the output

TEMPLATE = '''
import ctypes, json, os, socket, struct, subprocess, sys, time
from gem.core import Env

SECRET_NAME = {secret_name!r}
PORT = {port}
CANARY = {canary!r}
HOME_FILE = {home_file!r}
CWD_FILE = {cwd_file!r}
TMP_FILE = {tmp_file!r}
OUTSIDE_FILE = {outside_file!r}
MARKER = {marker!r}
HOG_MB = {hog_mb}
FORGED = {forged!r}
found = ""


def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode(errors="replace")
    except OSError:
        return ""


def write(path):
    try:
        with open(path, "w") as handle:
            handle.write(MARKER)
    except OSError:
        pass


def every_process_text():
    """The environment and command line of every process this one can see, what looks like a key first
    (the game's message is cut short on its way out)."""
    items = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            items += read(f"/proc/{{pid}}/environ").split("\\0") + read(f"/proc/{{pid}}/cmdline").split("\\0")
    items += [read("/proc/keys")]
    keys = [item for item in items if any(word in item.upper() for word in ("KEY", "TOKEN", "SECRET"))]
    return " | ".join(keys + items)


def connect_with_ctypes():
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(2, 1, 0)
    address = struct.pack("<HH4s8x", 2, socket.htons(PORT), socket.inet_aton("127.0.0.1"))
    libc.connect(fd, address, len(address))
    libc.write(fd, b"escaped", 7)


def fill_shm(mb):
    chunk = b"x" * (1 << 20)
    for part in range(mb // 32):  # files of 32 MB, within the jail's file size limit
        try:
            with open(f"/dev/shm/hog{{part}}", "wb") as handle:
                for _ in range(32):
                    handle.write(chunk)
        except OSError:
            break  # a full /dev/shm: keep what fitted, and play on
    time.sleep(1)


def fork_hogs(count, mb):
    for _ in range(count):
        if os.fork() == 0:
            hog = b"x" * (mb << 20)
            time.sleep(30)
            os._exit(len(hog) & 0)
    time.sleep(2)


def fork_many(count):
    for _ in range(count):
        try:
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
        except OSError:
            break


def patch_checker():
    try:
        import gymverse.env.checker as checker
        for name in dir(checker):
            if name.startswith("check_"):
                setattr(checker, name, lambda *args, **kwargs: "ok")
    except Exception:
        pass


def forge_frames():
    frame = json.dumps(["ok", ["forged", 1.0, True, False, {{"success": True}}]]).encode()
    for fd in range(0, 64):
        try:
            os.write(fd, struct.pack("!I", len(frame)) + frame)
        except OSError:
            pass


def kill_parents():
    parent = os.getppid()
    grand = read(f"/proc/{{parent}}/stat").split(")")[-1].split()
    for pid in [parent] + ([int(grand[1])] if len(grand) > 1 else []):
        try:
            os.kill(pid, 9)
        except OSError:
            pass


def flood(fd):
    chunk = b"x" * (1 << 20)
    for _ in range({two_gb}):
        os.write(fd, chunk)


def flood_channels():
    chunk = b"\\xff" * (1 << 20)
    for fd in range(3, 16):
        try:
            for _ in range({two_gb}):
                os.write(fd, chunk)
        except OSError:
            pass


def spin():
    while True:
        pass


acted = False


def act():
    global found, acted
    if acted:
        return
    acted = True
    {act}


if {stage!r} == "import":
    act()


class Payload(Env):
    """A bad game: it pays a reward for any reply, so it can pass only by escaping its judge."""

    def __init__(self, complexity=1, **kwargs):
        super().__init__()
        if {stage!r} == "construct":
            act()
        self.complexity = complexity
        self.turn = 0

    def reset(self, seed=None):
        self.turn = 0
        return "Reply with anything." + found, {{}}

    def step(self, action):
        if {stage!r} == "step":
            act()
        self.turn += 1
        return "ok" + found, 1.0, self.turn >= 3, False, {{"success": True}}
'''

CONTROL = '''
import random
from gem.core import Env


class Control(Env):
    """A correct game: count on from a random start, one number a turn; complexity + 1 numbers to say."""

    def __init__(self, complexity=1, **kwargs):
        super().__init__()
        self.complexity = self.next_complexity = complexity

    def set_complexity(self, complexity):
        self.next_complexity = complexity

    def get_complexity(self):
        return self.complexity

    def reset(self, seed=None):
        self.complexity = self.next_complexity
        self.start = random.Random(seed).randint(10, 99)
        self.said = 0
        self.max_turns = self.complexity + 1
        return f"Count on from {self.start}: reply \\\\boxed{{n}}, {self.max_turns} numbers in all.", {}

    def step(self, action):
        text = action if isinstance(action, str) else ""
        start = text.rfind("\\\\boxed{")
        reply = text[start + 7:text.find("}", start)].strip() if start >= 0 else ""
        if reply != str(self.start + 1 + self.said):
            return "Wrong.", 0.0, True, False, {"success": False}
        self.said += 1
        if self.said == self.max_turns:
            return "Done!", 1.0, True, False, {"success": True}
        return "Go on.", 0.0, False, False, {}

    def oracle_action(self):
        return None if self.said == self.max_turns else f"\\\\boxed{{{self.start + 1 + self.said}}}"
'''


# Item 3 of issue 26: a correct game (the control, as ``Payload``) whose replies carry a value a trainer cannot
# use. ``POISON(out)`` turns each of its honest step replies into the poisoned one.
POISONS = {
    "nan_on_a_wrong_reply": "lambda out: (out[0], float('nan') if out[1] == 0 else out[1], *out[2:])",
    "inf_on_a_win": "lambda out: (out[0], float('inf') if out[1] == 1 else out[1], *out[2:])",
    "minus_inf_every_step": "lambda out: (out[0], float('-inf'), *out[2:])",
    "int_of_4000_digits": "lambda out: (out[0], 10**4000 if out[1] == 1 else out[1], *out[2:])",
    "string_reward": "lambda out: (out[0], str(out[1]), *out[2:])",
    "int_terminated": "lambda out: (*out[:2], int(out[2]), *out[3:])",
    "success_no": "lambda out: (*out[:4], {**out[4], 'success': 'no'} if 'success' in out[4] else out[4])",
    "lone_surrogate": "lambda out: (out[0] + '\\ud800', *out[1:])",
    # the game rewrites its host's writer, which would cut a reply at 32 levels and name what is not plain data
    "nested_600_deep": "lambda out: unplain_host() or (*out[:4], nested(600))",
    "five_million_dicts": "lambda out: unplain_host() or (*out[:4], {'boards': [{}] * 5_000_000})",
}
ON_A_WIN = ("inf_on_a_win", "int_of_4000_digits")  # poisons that random play, which seldom wins, may never meet
POISONED = """

def unplain_host():
    import sys
    sys.modules["__main__"].plain = lambda value, depth=0: value


def nested(depth):
    value = {{}}
    for _ in range(depth):
        value = {{"in": value}}
    return value


POISON = {poison}
"""


def poisoned(poison: str) -> str:
    source = CONTROL.replace("class Control(Env):", "class Payload(Env):").replace(
        "    def step(self, action):",
        "    def step(self, action):\n        return POISON(self.honest_step(action))\n\n    def honest_step(self, action):",
    )
    return source + POISONED.format(poison=poison)


# Item 6 of issue 26: names that would forge rows or write to the terminal: a file whose name holds a new line
# and a forged row, a game whose domain is the forged message, and one listed under an alias that is.
PAYS = """
from gem.core import Env


class Payload(Env):
    domain = {domain!r}

    def __init__(self, complexity=1, **kwargs):
        super().__init__()

    def reset(self, seed=None):
        return "Reply with anything.", {{}}

    def step(self, action):
        return "ok", 1.0, True, False, {{"success": True}}
"""
NAMED = {
    f"{MARKER}_newline\npass               escape_envs:Forged (forged).py": PAYS.format(domain="misc"),
    f"{MARKER}_domain.py": PAYS.format(domain=FORGED),
    f"{MARKER}_alias.py": PAYS.format(domain="misc") + f"\nglobals()[{FORGED!r}] = Payload\n",
}


class Traps:
    """What an escaped payload would reach: a secret, a loopback listener, files outside; and what it reached."""

    def __init__(self, root: Path, home: Path, cwd: Path) -> None:
        self.root, self.home, self.cwd = root, home, cwd
        self.canary = f"{MARKER}-{os.getpid()}-{time.monotonic_ns()}"
        self.secret = f"sk-{self.canary}"
        self.outside = root / "outside" / self.canary
        self.outside.parent.mkdir(parents=True, exist_ok=True)
        self.connections: list[bytes] = []
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            connection.settimeout(1)
            try:
                self.connections.append(connection.recv(64))
            except OSError:
                self.connections.append(b"")
            connection.close()

    def paths(self) -> dict[str, Path]:
        return {
            "home": self.home / self.canary,
            "cwd": self.cwd / self.canary,
            "tmp": Path("/tmp") / self.canary,
            "outside": self.outside,
        }

    def folder(
        self, stages: tuple[str, ...] = ("import", "step"), acts: dict[str, str] = ACTS, name: str = "escape_envs"
    ) -> Path:
        """A folder of payload files (each act at each stage it is tried at) and the control game."""
        folder = self.root / name
        folder.mkdir(exist_ok=True)
        every_payload = {f"{place}_file": str(path) for place, path in self.paths().items()} | {
            "secret_name": SECRET_NAME,
            "port": self.port,
            "canary": self.canary,
            "marker": MARKER,
            "hog_mb": HOG_MB,
            "two_gb": TWO_GB,
            "forged": FORGED,
        }
        for name, act in acts.items():
            for stage in STAGES if name in AT_EVERY_STAGE else stages if name in AT_BOTH_STAGES else stages[-1:]:
                source = TEMPLATE.format(act=act, stage=stage, **every_payload)
                (folder / f"{MARKER}_{name}_at_{stage}.py").write_text(textwrap.dedent(source))
        for name, poison in POISONS.items():
            (folder / f"{MARKER}_value_{name}.py").write_text(poisoned(poison))
        for name, source in NAMED.items():
            (folder / name).write_text(source)
        (folder / "control.py").write_text(CONTROL)
        return folder

    def breaches(self, outputs: list[str] = (), wait_s: float = 4.0) -> list[str]:
        """What the payloads achieved outside their jails (empty when contained)."""
        time.sleep(wait_s)  # a surviving process would act by now
        found = [f"wrote {where}: {path}" for where, path in self.paths().items() if path.exists()]
        found += [f"connected to the host's loopback: {data!r}" for data in self.connections]
        found += [f"the secret appears in {i}" for i, text in enumerate(outputs) if self.secret in text]
        mine = f"{self.canary}|{self.root}"  # this suite's jails and payloads, not another suite's running beside it
        alive = subprocess.run(["pgrep", "-f", mine], capture_output=True, text=True).stdout.split()
        found += [f"process {pid} outlived the run" for pid in alive if int(pid) != os.getpid()]
        return found

    def close(self) -> None:
        self.server.close()
        for path in self.paths().values():
            path.unlink(missing_ok=True)
