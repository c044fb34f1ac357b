"""The trusted side of a jail: :class:`JailedFile` runs one file of games in its own jail, and
:class:`ProxyEnv` is a GEM env that plays one of its games by exchanging plain data with it.

Whatever the game does inside (patching gymverse, forging frames, killing what it sees) can reach the
caller only as the values its own methods return, or as :class:`JailBroken` once the jail stops
answering. Replies are size-limited; a hung request is killed after ``Limits.answer_seconds``; the jail is
killed once all its processes together pass its memory or process limit (:mod:`gymverse.sandbox.watch`),
or once the file's own CPU time (a :class:`~gymverse.sandbox.budget.Budget`) is spent.
"""

import json
import os
import random
import re
import select
import subprocess
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn

import gem
from gem.envs.registration import ENV_REGISTRY

from gymverse.env.players import Moves
from gymverse.env.registry import DeferComplexity, RebuildOnComplexity
from gymverse.env.values import reset_problem, step_problem, text_problem
from gymverse.env.visible import visible
from gymverse.sandbox.budget import Budget
from gymverse.sandbox.host import HEADER, write_frame
from gymverse.sandbox.jail import LAUNCHER_ENVIRONMENT, Limits, jail_command
from gymverse.sandbox.watch import POLL_S, JailWatch, descendants, over_limits

REPLY_LIMIT = 16 << 20  # bytes of one reply
# Lists and dicts of one reply, counted in its bytes before it is parsed (brackets inside strings count too):
# five million empty dicts fit in 16 MB and take over a GB once parsed.
CONTAINER_LIMIT = 200_000
ITEM_LIMIT = 500_000  # values of one reply, at any depth
DEPTH_LIMIT = 40  # the host sends values nested 32 deep at most, inside a reply's own few levels
DUMP_WAIT_S = 0.3  # for a hung host's stack dump to arrive before it is killed


class GameFailure(Exception):
    """A jailed game failed: it raised (:class:`GameRaised`) or its jail stopped answering (:class:`JailBroken`)."""


class JailBroken(GameFailure):
    """The jail stopped answering: its process ended, hung, or broke the protocol (the message says how)."""

    @property
    def reason(self) -> str:
        return broken_reason(str(self))


def broken_reason(how: str) -> str:
    """A short code for how a jail stopped answering: exit, hang, limit, signal, protocol or crash."""
    for start, reason in (
        ("exited", "exit"),
        ("hung", "hang"),
        ("exceeded", "limit"),
        ("killed", "signal"),
        ("broke the protocol", "protocol"),
    ):
        if how.startswith(start):
            return reason
    return "crash"


class GameRaised(GameFailure):
    """Raised by a game in the jail; the subclass is named after the game's own exception type."""


_raised_types: dict[str, type[GameRaised]] = {}


def game_error(type_name: str, message: str) -> GameRaised:
    """The game's exception as one line of printable text, whatever control characters it held."""
    name = type_name if type_name.isidentifier() and type_name.isascii() else "GameError"
    if name not in _raised_types:
        _raised_types[name] = type(name, (GameRaised,), {"__module__": "jailed game"})
    return _raised_types[name](visible(message))


class Opaque:
    """A value the game returned that is not plain data (only its type's name crosses the jail)."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name} object from a jailed game>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and other.type_name == self.type_name

    def __hash__(self) -> int:
        return hash(self.type_name)


def unplain(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__opaque__"}:
            return Opaque(str(value["__opaque__"]))
        return {key: unplain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [unplain(item) for item in value]
    return value


def reply_problem(reply: Any) -> tuple[str, str]:
    """``(how the reply's structure is over the limits, a string in it that is not UTF-8)``, each "" when none."""
    stack, items, text = [(reply, 1)], 0, ""
    while stack:
        value, depth = stack.pop()
        items += 1
        if items > ITEM_LIMIT:
            return f"a reply of more than {ITEM_LIMIT} values", ""
        if isinstance(value, str):
            text = text or text_problem(value)
        elif isinstance(value, (list, dict)):
            if depth > DEPTH_LIMIT:
                return f"a reply nested more than {DEPTH_LIMIT} deep", ""
            values = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in values)
    return "", text


def is_plain(value: Any, depth: int = 0) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if depth < 32 and isinstance(value, (list, tuple)):
        return all(is_plain(item, depth + 1) for item in value)
    if depth < 32 and isinstance(value, dict):
        return all(isinstance(k, str) and is_plain(v, depth + 1) for k, v in value.items())
    return False


def stuck_at(output: str) -> str:
    """``in FUNCTION, FILE:LINE``: the innermost frame of the stack a hung host dumped, if any."""
    frames = re.findall(r'File "(.+)", line (\d+) in (\S+)', output.rsplit("most recent call first", 1)[-1])
    return f"in {frames[0][2]}, {Path(frames[0][0]).name}:{frames[0][1]}" if frames else ""


class _Tail(threading.Thread):
    """Drains the jail's stderr, keeping only its last ``chars`` characters (a flood costs no memory)."""

    def __init__(self, stream: Any, chars: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.chars, self.kept = stream, chars, b""

    def run(self) -> None:
        try:
            while chunk := self.stream.read1(1 << 16):
                self.kept = (self.kept + chunk)[-self.chars :]
        except (OSError, ValueError):  # the jail was closed under it
            pass

    def text(self) -> str:
        return self.kept.decode("utf-8", "replace")


class JailedFile:
    """One file of games imported in its own jail; requests from several threads take turns.

    ``load_error`` is "" when the file imported, else how the import ended ("raised SyntaxError: ...",
    "exited: ...", "hung: ..."). ``budget``, shared by the jails of one file, is charged with this one's CPU
    time; once it is spent the jail is killed.
    """

    def __init__(self, file: str | Path, limits: Limits = Limits(), budget: Budget | None = None) -> None:
        self.file = Path(file).resolve()
        self.limits = limits
        self.budget = budget
        self.broken = ""
        self.exceeded = ""  # which of the jail's limits its processes passed together, once the watch killed it
        self.lock = threading.RLock()  # a request that ends the jail closes it while holding the lock
        self.unused: list[int] = []  # handles of dropped proxies, freed in the jail with the next request
        settings = json.dumps(
            {
                "file": str(self.file),
                "rlimits": limits.rlimits(),
                "hang_s": max(0.1, limits.answer_seconds - DUMP_WAIT_S),
                "datasets": [env_id[3:] for env_id in ENV_REGISTRY if env_id.startswith("rg:")],
            }
        )
        self.process = subprocess.Popen(
            jail_command(self.file, limits, settings),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=LAUNCHER_ENVIRONMENT,
        )
        charge = budget.charge if budget else lambda seconds: None
        self.watch = JailWatch(self.process.pid, limits.memory_mb, limits.processes, self._exceeded, charge)
        self.watch.start()
        self.requests, self.replies = self.process.stdin.fileno(), self.process.stdout.fileno()  # type: ignore[union-attr]
        self.tail = _Tail(self.process.stderr, limits.output_chars)
        self.tail.start()
        self.load_error = ""
        if budget:
            budget.phase = "its import"
        try:
            self._receive(limits.import_seconds)
        except GameRaised as error:
            self.load_error = f"raised {type(error).__name__}: {error}"
        except JailBroken as error:
            self.load_error = str(error)
        self._games: list[dict] | None = None

    def games(self) -> list[dict]:
        """The env classes the file defines: ``{"name", "domain", "max_complexity", "methods", "bases",
        "unbuildable"}`` (the last: why it cannot be built at complexity 1, or "")."""
        if self._games is None:
            if self.budget:
                self.budget.phase = "the listing of its games"
            games = self.request("list", wait=self.limits.import_seconds)
            if not (isinstance(games, list) and all(_is_game(game) for game in games)):
                self._break("broke the protocol: its list of games is malformed")
            for game in games:  # printed in tables and reports
                game["domain"] = game["domain"] and visible(game["domain"])
            self._games = games
        return self._games

    def listing(self) -> list[dict] | str:
        """:meth:`games`, or how the import or the listing ended, in one line ("raised ...", "exited: ...")."""
        if self.load_error:
            return self.load_error
        try:
            return self.games()
        except JailBroken as error:
            return str(error)
        except GameRaised as error:  # a class attribute that raises when it is read
            return f"raised {type(error).__name__} while its games were listed: {error}"

    def game(self, class_name: str) -> dict:
        return next(g for g in self.games() if g["name"] == class_name)

    def request(self, *request: Any, wait: float | None = None) -> Any:
        """Send one request and return the game's answer (within ``wait`` seconds, default ``answer_seconds``)."""
        with self.lock:
            if self.broken:
                raise JailBroken(self.broken)
            while self.unused:
                self._exchange(["drop", self.unused.pop()], self.limits.answer_seconds)
            return self._exchange(list(request), wait or self.limits.answer_seconds)

    def drop(self, handle: int) -> None:
        """Free a proxy's game at the next request. A garbage collection can call this in any thread, one
        that holds ``lock`` included, so it must not wait for the lock."""
        self.unused.append(handle)

    def _exchange(self, request: list, wait: float) -> Any:
        try:
            write_frame(self.requests, request)
        except OSError:
            self._break("")
        return self._receive(wait)

    def _receive(self, wait: float) -> Any:
        end = time.monotonic() + wait
        try:
            header = self._read(HEADER.size, end, wait)
            (size,) = HEADER.unpack(header)
            if size > REPLY_LIMIT:
                self._break(f"broke the protocol: a reply of {size} bytes, over the {REPLY_LIMIT >> 20} MB limit")
            data = self._read(size, end, wait)
            containers = data.count(b"[") + data.count(b"{")
            if containers > CONTAINER_LIMIT:
                self._break(f"broke the protocol: a reply of more than {CONTAINER_LIMIT} lists and dicts")
            reply = json.loads(data)
            status = reply[0]
            # A small reply of ASCII without a \u escape (most steps) can break none of the limits: it is not walked.
            walk = containers > DEPTH_LIMIT or len(data) > ITEM_LIMIT or not data.isascii() or b"\\u" in data
            too_big, bad_text = reply_problem(reply) if walk else ("", "")
            if too_big:
                self._break(f"broke the protocol: {too_big}")
        except JailBroken:
            raise
        except TimeoutError:  # the caller's own time limit (an alarm) ran out while the game worked: a hang
            self.close()
            self.broken = "hung: the caller's time limit ran out while waiting for the game"
            raise
        except Exception as error:  # garbage in the channel
            self._break(f"broke the protocol: {type(error).__name__}: {str(error)[:200]}")
        except BaseException as error:  # a time limit or Ctrl-C mid-reply: the channel is out of step
            self.close()
            self.broken = f"interrupted while waiting for the game ({type(error).__name__})"
            raise
        if status == "ok":
            if bad_text:
                raise game_error("MalformedReply", f"it answered {bad_text}")
            return unplain(reply[1])
        if status == "exited":
            self._break(f"exited: {reply[2]}")
        raise game_error(str(reply[1]), str(reply[2]))

    def _read(self, size: int, end: float, wait: float) -> bytes:
        fd, chunks = self.replies, []
        while size:
            left = end - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, min(left, POLL_S) if self.budget else left))
            if not ready:
                out_of_budget = self.budget is not None and self.budget.out()
                if not out_of_budget and time.monotonic() < end:
                    continue  # the budget is looked at every poll while the game works
                time.sleep(DUMP_WAIT_S)
                self._break(self.budget.reason() if out_of_budget else f"hung: no answer within {wait:g} s")  # type: ignore[union-attr]
            chunk = os.read(fd, min(size, 1 << 20))
            if not chunk:
                self._break("")
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def _break(self, how: str) -> NoReturn:
        """Kill the jail and raise :class:`JailBroken` saying how it ended (``how``, else its exit status)."""
        self.close()
        how = how or self.exceeded
        if not how:
            code = self.process.returncode
            how = f"killed by signal {-code}" if code and code < 0 else f"exited with status {code}"
        where = stuck_at(self.output()) if how.startswith("hung") else ""
        self.broken = visible(how + (f" ({where})" if where else ""))
        raise JailBroken(self.broken)

    def output(self) -> str:
        """The last characters the file's code printed (its stderr and stdout)."""
        return self.tail.text()

    def look(self) -> None:
        """Hold the jail to its limits now, as the watch does at each poll: a verdict reached at the end of a check
        then does not depend on whether the watch's thread ran in time (on a loaded machine it may not have)."""
        if self.process.poll() is None and not self.exceeded:
            inside = descendants(self.process.pid)[1:]
            why = over_limits(inside, self.limits.memory_mb, self.limits.processes)
            if why:
                self._exceeded(why)
                self.broken = visible(why)
                self.close()

    def _exceeded(self, why: str) -> None:
        """The watch saw the jail pass a limit: kill it; the request waiting, or the next one, says why."""
        self.exceeded = why
        if self.process.poll() is None:
            self.process.kill()

    def close(self) -> None:
        """Kill the jail, then free its pipes once no request is using them (their numbers are reused at once)."""
        self.watch.stop()
        if self.process.poll() is None:
            self.process.kill()
        with self.lock:
            self.process.wait()
            self.tail.join(timeout=1)
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                try:
                    if stream:
                        stream.close()
                except OSError:
                    pass
            self.broken = self.broken or "closed"

    def __enter__(self) -> "JailedFile":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


class ProxyEnv(gem.Env):
    """A GEM env whose game runs in a jail: ``reset``, ``step`` and every public method or attribute of the
    game (``oracle_action``, ``set_complexity``, ``max_turns``, ...) are answered by the jailed game.

    Replies cross the jail as plain data only; an action that is not (bytes, arbitrary objects) raises a
    ``TypeError`` here, since a jailed game's contract is text.
    """

    def __init__(self, jail: JailedFile, class_name: str, **kwargs: Any) -> None:
        self._jail = jail
        self._class_name = class_name
        self._methods = set(jail.game(class_name)["methods"])
        self._handle = jail.request("make", class_name, kwargs)
        if not isinstance(self._handle, int) or isinstance(self._handle, bool):
            jail._break("broke the protocol: a construction answered no handle")
        weakref.finalize(self, jail.drop, self._handle)

    def reset(self, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        return self._call("reset", seed)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self._call("step", action)

    def play_on(self, moves: Moves, count: int) -> Iterator[tuple[Any, tuple]]:
        """Up to ``count`` steps of ``moves`` from the game's state, each ``(move, step's reply)``, until the
        episode ends: chosen and played inside the jail, a run of steps a request. Each reply is checked as
        :meth:`step` checks one, and a game's exception is raised at the step that raised it."""
        while count > 0:
            run = self._jail.request("play", self._handle, moves.spec(), count)
            if not (
                isinstance(run, dict)
                and isinstance(run.get("played"), list)
                and len(run["played"]) <= count
                and all(isinstance(step, list) and len(step) == 2 for step in run["played"])
                and (run.get("raised") is None or _is_error(run["raised"]))
            ):
                self._jail._break("broke the protocol: a run of moves was answered malformed")
            for move, reply in run["played"]:
                out = _shaped(reply, "step")
                yield moves.take(move), out
                if out[2] or out[3]:
                    return
            if run["raised"]:
                raise game_error(*run["raised"])
            if not run["played"]:
                return
            count -= len(run["played"])

    def random_action(self, rng: random.Random) -> Any:
        """The game's own random move (or GEM's ``sample_random_action``), drawn from a seed taken from ``rng``."""
        return self._jail.request("call", self._handle, "random_action", [rng.getrandbits(64)])

    def sample_random_action(self) -> Any:
        return self.random_action(random.Random(random.getrandbits(64)))

    def _call(self, method: str, *args: Any) -> Any:
        for arg in args:
            if not is_plain(arg):
                raise TypeError(f"a jailed game takes text and plain data, not {type(arg).__name__}")
        try:
            reply = self._jail.request("call", self._handle, method, list(args))
            return _shaped(reply, method) if method in ("reset", "step") else reply
        except GameFailure as error:
            error.add_note(f"{self._class_name}.{method} in {self._jail.file.name}")
            raise

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._methods:
            return lambda *args: self._call(name, *args)
        try:
            return self._jail.request("get", self._handle, name)
        except GameRaised as error:
            if type(error).__name__ == "AttributeError":
                raise AttributeError(name) from None
            raise

    def __repr__(self) -> str:
        return f"<ProxyEnv {self._class_name} of {self._jail.file.name}>"


def _is_game(game: Any) -> bool:
    return (
        isinstance(game, dict)
        and isinstance(game.get("name"), str)
        and game["name"].isidentifier()  # a module's attribute can be named anything; a class cannot
        and isinstance(game.get("methods"), list)
        and all(isinstance(method, str) for method in game["methods"])
        and isinstance(game.get("max_complexity"), (int, type(None)))
        and isinstance(game.get("bases"), list)
        and isinstance(game.get("domain"), (str, type(None)))
        and isinstance(game.get("unbuildable"), str)
    )


def _is_error(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(item, str) for item in value)


def _shaped(value: Any, method: str) -> tuple:
    """A reply of ``reset`` or ``step`` as GEM's tuple, or :class:`GameRaised` saying how it breaks the contract's
    value rules (:mod:`gymverse.env.values`): only values a trainer can use cross the jail."""
    out = tuple(value) if isinstance(value, list) else value
    problem = reset_problem(out) if method == "reset" else step_problem(out)
    if problem:
        raise game_error("MalformedReply", f"{method} returned a reply a trainer cannot use: {problem}")
    return out


class ProxyFactory:
    """Builds :class:`ProxyEnv`\\ s of one game from whatever jail ``jail()`` returns: GEM's entry point for a
    jailed game (``gem.make(id, complexity=...)``). A game without ``set_complexity`` comes inside a
    :class:`~gymverse.env.registry.RebuildOnComplexity`, so curricula reach it as they reach any other; one with
    it inside a :class:`~gymverse.env.registry.DeferComplexity` (unless ``defer`` is False: the judge checks the
    game as it is), so a game that applies a complexity at once still keeps the running episode as it was."""

    def __init__(
        self,
        jail: Callable[[], JailedFile],
        game: dict,
        rebuild: bool = True,
        kwargs: dict | None = None,
        domain: str | None = None,
        source: str = "",
        defer: bool = True,
    ) -> None:
        self.jail = jail
        self.game = game
        self.defer = defer
        self.kwargs = kwargs or {}  # the registration's own (GymVerse registers some classes with several)
        self.rebuild = rebuild and "set_complexity" not in game["methods"]
        self.__name__ = self.__qualname__ = game["name"]
        self.max_complexity = game.get("max_complexity")
        self.domain = game.get("domain") or domain or "misc"
        self.source = source  # the file, so that registering the same folder again is no clash

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ProxyFactory)
            and bool(self.source)
            and (self.source, self.game["name"], self.kwargs) == (other.source, other.game["name"], other.kwargs)
        )

    def __hash__(self) -> int:
        return hash((self.source, self.game["name"]))

    def __call__(self, **kwargs: Any) -> gem.Env:
        if self.rebuild:
            return RebuildOnComplexity(ProxyFactory(self.jail, self.game, False, self.kwargs), **kwargs)
        env = ProxyEnv(self.jail(), self.game["name"], **{**self.kwargs, **kwargs})
        return DeferComplexity(env) if self.defer and "set_complexity" in self.game["methods"] else env
