"""The program that runs inside the jail: it imports one file of games and plays them on request.

Run by :mod:`gymverse.sandbox.jail` as ``python -I host.py SETTINGS_JSON`` (by path, so that nothing of
gymverse is imported before the file). It reads requests from stdin and writes replies to stdout, one
length-prefixed JSON frame each, plain data only; the game's own prints go to stderr. It decides
nothing: every verdict is reached outside, from the plain data it sends back.

Requests: ``["list"]``, ``["make", class_name, kwargs]``, ``["call", handle, method, args]``,
``["get", handle, attribute]``, ``["play", handle, moves, count]`` (a run of steps whose moves are chosen
here, see :class:`gymverse.env.players.Moves`), ``["drop", handle]``. Replies: ``["ok", value]`` or
``["raised", type_name, message]``.

This module uses the standard library only; :mod:`gymverse.sandbox.proxy` imports its framing.
"""

import faulthandler
import importlib
import importlib.util
import inspect
import json
import os
import random
import resource
import struct
import sys
import time
import types
from typing import Any

HEADER = struct.Struct("!I")
MESSAGE_CHARS = 2000  # of an exception's message
PACKAGE = os.path.join(os.path.dirname(__file__), os.pardir)  # gymverse/: the host loads two of its files by path
# A run of moves is answered in parts of at most this long or this large, so that a slow or wordy game
# never meets the judge's answer deadline or reply size limit because it was asked for many steps at once.
RUN_SECONDS = 1.0
RUN_CHARS = 2_000_000


def write_frame(fd: int, value: Any) -> None:
    data = json.dumps(value, separators=(",", ":")).encode()
    view = memoryview(HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def read_exactly(fd: int, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data: numpy scalars as numbers, tuples as lists, anything else named, not sent."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    for kind in (bool, int, float, str):  # subclasses (an IntEnum, a str subclass) as the plain type
        if isinstance(value, kind):
            return kind(value)
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return plain(value.item(), depth)
    if depth < 32 and isinstance(value, (list, tuple)):
        return [plain(item, depth + 1) for item in value]
    if depth < 32 and isinstance(value, dict):
        return {key if isinstance(key, str) else repr(key): plain(item, depth + 1) for key, item in value.items()}
    return {"__opaque__": type(value).__name__}


def light_package(name: str) -> None:
    """Make ``import name.sub`` load ``sub`` without running ``name/__init__.py``."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return
    package = types.ModuleType(name)
    package.__path__ = list(spec.submodule_search_locations)
    package.__file__ = spec.origin
    package.__spec__ = spec
    sys.modules[name] = package


def light_gem(datasets: list[str]) -> None:
    """GEM with its core only; ``gem.make`` and ``gem.register`` load the registry when first asked for, and the
    registry is loaded without reasoning-gym (``gymverse/gem_import.py``)."""
    gem_import = load_by_path("gem_import", os.path.join(PACKAGE, "gem_import.py"))
    sys.meta_path.insert(0, gem_import.GemRegistryFinder(datasets))
    light_package("gem")
    package: Any = sys.modules.get("gem")
    if package is None:
        return
    core = importlib.import_module("gem.core")
    package.Env = core.Env

    def heavy(name: str) -> Any:
        return getattr(importlib.import_module("gem.envs.registration"), name)

    package.__getattr__ = heavy


def load_by_path(name: str, path: str) -> Any:
    """The module at ``path`` as ``name``, without importing a package around it (gymverse's ``__init__`` is
    heavy). It is in ``sys.modules`` before it runs, as an import would put it: dataclasses look themselves up."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} cannot be imported as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def apply_limits(limits: dict) -> None:
    for name, value in limits.items():
        which = getattr(resource, name)
        resource.setrlimit(which, (value, value))


class Host:
    def __init__(self, path: str) -> None:
        self.path = path
        self.module: Any = None
        self.envs: dict[int, Any] = {}
        self.next_handle = 0
        # The judge's own players (standard library only): a random move is drawn alike in the jail and out of it.
        self.players = load_by_path("judge_players", os.path.join(PACKAGE, "env", "players.py"))

    def load(self) -> None:
        self.module = load_by_path("jailed_" + os.path.splitext(os.path.basename(self.path))[0], self.path)

    def games(self) -> list[dict]:
        import gem.core

        found = []
        for class_name, cls in inspect.getmembers(self.module, inspect.isclass):
            if (
                cls.__module__ == self.module.__name__
                and issubclass(cls, gem.core.Env)
                and not inspect.isabstract(cls)
                and cls.__name__ != "EvolvableEnv"
            ):
                found.append(
                    {
                        "name": class_name,
                        "domain": plain(getattr(cls, "domain", None)),
                        "max_complexity": plain(getattr(cls, "max_complexity", None)),
                        "methods": sorted(
                            n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n, None))
                        ),
                        "bases": [base.__name__ for base in cls.__mro__[1:] if base.__module__ == self.module.__name__],
                        "unbuildable": self.unbuildable(class_name),
                    }
                )
        return found

    def unbuildable(self, class_name: str) -> str:
        """Why the game cannot be built at complexity 1 ("" when it can)."""
        try:
            self.envs.pop(self.make(class_name, {"complexity": 1}))
        except Exception as error:
            return f"{type(error).__name__}: {error}"[:MESSAGE_CHARS]
        return ""

    def make(self, class_name: str, kwargs: dict) -> int:
        """A new instance. Games that draw from the module ``random`` in their constructor (GymVerse's do)
        get the same draws every time, as they would from one seeded process; what they draw later without
        seeding stays unseeded, so the judge still sees it."""
        cls = getattr(self.module, class_name)
        numpy = sys.modules.get("numpy")
        random.seed(0)
        if numpy:
            numpy.random.seed(0)
        try:
            env = cls(**kwargs)
        finally:
            random.seed()
            if numpy:
                numpy.random.seed()
        self.next_handle += 1
        self.envs[self.next_handle] = env
        return self.next_handle

    def call(self, handle: int, method: str, args: list) -> Any:
        env = self.envs[handle]
        if method == "random_action":
            return self.players.random_move(env, random.Random(args[0]))
        return getattr(env, method)(*args)

    def play(self, handle: int, moves: dict, count: int) -> dict:
        """Up to ``count`` steps from the game's state, each ``[move, step's reply]``, ending with the episode,
        the script, or the part's time or size; a game's exception ends the part and is reported with it."""
        env = self.envs[handle]
        if "solver" in moves:
            rng, epsilon = random.Random(moves["random"]), moves["solver"]
            choose = lambda: self.players.epsilon_solver_move(env, rng, epsilon)  # noqa: E731
        elif "random" in moves:
            rng = random.Random(moves["random"])
            choose = lambda: self.players.random_move(env, rng)  # noqa: E731
        elif "repeat" in moves:
            choose = lambda: moves["repeat"]  # noqa: E731
        else:
            script = iter(moves["script"])
            choose = lambda: next(script, StopIteration)  # noqa: E731
        played: list = []
        chars, end = 0, time.monotonic() + RUN_SECONDS
        try:
            while len(played) < count and chars < RUN_CHARS and time.monotonic() < end:
                action = choose()
                if action is StopIteration:
                    break
                out = env.step(action)
                played.append(plain([action, out]))  # a copy now: a game may change its info dict later
                chars += len(repr(played[-1]))
                if not (isinstance(out, tuple) and len(out) == 5) or out[2] or out[3]:
                    break
        except Exception as error:
            return {"played": played, "raised": [type(error).__name__, str(error)[:MESSAGE_CHARS]]}
        return {"played": played, "raised": None}

    def answer(self, request: list) -> Any:
        op, *args = request
        if op == "list":
            return self.games()
        if op == "make":
            return self.make(*args)
        if op == "call":
            return self.call(*args)
        if op == "play":
            return self.play(*args)
        if op == "get":
            handle, name = args
            if name.startswith("_"):
                raise AttributeError(name)
            return getattr(self.envs[handle], name)
        if op == "drop":
            self.envs.pop(args[0], None)
            return None
        raise ValueError(f"unknown request {op!r}")


def serve(requests: int, replies: int, host: Host, hang_s: float) -> None:
    while (header := read_exactly(requests, HEADER.size)) is not None:
        body = read_exactly(requests, HEADER.unpack(header)[0])
        if body is None:
            return
        faulthandler.dump_traceback_later(hang_s)  # where a hung game is stuck, for the judge's row
        try:
            reply = ["ok", plain(host.answer(json.loads(body)))]
        except BaseException as error:  # the game's failure is data for the judge
            if isinstance(error, SystemExit):
                reply = ["exited", "SystemExit", f"sys.exit({error.code!r}) called"]
            else:
                reply = ["raised", type(error).__name__, str(error)[:MESSAGE_CHARS]]
        finally:
            faulthandler.cancel_dump_traceback_later()
        try:
            write_frame(replies, reply)
        except (TypeError, ValueError) as error:  # e.g. a float subclass that JSON refuses
            write_frame(replies, ["raised", "UnsendableReply", str(error)[:MESSAGE_CHARS]])


def main() -> None:
    settings = json.loads(sys.argv[1])
    requests, replies = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)  # the game's prints go where its errors go, never into the replies
    apply_limits(settings["rlimits"])
    light_gem(settings["datasets"])
    host = Host(settings["file"])
    try:
        host.load()
        hello = ["ok", None]
    except BaseException as error:
        kind = "exited" if isinstance(error, SystemExit) else "raised"
        hello = [kind, type(error).__name__, str(error)[:MESSAGE_CHARS]]
    write_frame(replies, hello)
    if hello[0] == "ok":
        serve(requests, replies, host, settings["hang_s"])


if __name__ == "__main__":
    main()
