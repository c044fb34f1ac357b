"""gymverse's two errors: bad input (a request gymverse cannot serve) and a failing resource (something outside
gymverse that a run depends on), each with a message that says what to fix.

Command lines print either as one line and exit with status 2 (bad input) or 1 (a failing resource); library
callers catch bad input like any ValueError.
"""

import difflib
from typing import Collection, Iterable


class BadInput(ValueError):
    """Bad input from a user (a flag value, an id, a path, a file): the message names it and says why."""


class ResourceError(RuntimeError):
    """Something outside gymverse failed (an endpoint that keeps failing, a full disk): the message names it and
    what it did. A run stopped by one keeps its last save, which ``--resume`` continues from."""


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The choice that ``name`` most likely misspells, or None.

    Case and a missing ``namespace:`` prefix count as spellings of the same name
    (``peakfinder`` -> ``gymverse:PeakFinder``); otherwise the closest name (difflib, similarity 0.6 or
    more), compared without namespaces and preferring the namespace ``name`` gives.
    """
    namespace, _, typed = name.strip().lower().rpartition(":")
    choices = list(choices)
    same_namespace = [c for c in choices if c.lower().rpartition(":")[0] == namespace]
    for pool in (same_namespace, choices):
        by_name = {choice.lower().rpartition(":")[2]: choice for choice in reversed(pool)}
        match = [typed] if typed in by_name else difflib.get_close_matches(typed, by_name, n=1, cutoff=0.6)
        if match:
            return by_name[match[0]]
    return None


def require_known(
    given: Iterable[str],
    known: Collection[str],
    what: str = "environment id",
    flag: str = "",
    listing: str = "`gymverse envs` lists the registered ones",
) -> None:
    """Raise :class:`BadInput` naming every entry of ``given`` not in ``known``, each with a "did you mean".

    ``flag`` (e.g. ``"--env_id"``) starts the message, so it names what the user typed.
    """
    unknown = [name for name in given if name not in known]
    if not unknown:
        return
    named = []
    for name in unknown:
        guess = closest(name, known)
        named.append(f"{name!r}" + (f" (did you mean {guess}?)" if guess else ""))
    plural = "s" if len(unknown) > 1 else ""
    raise BadInput(f"{flag + ': ' if flag else ''}unknown {what}{plural} {', '.join(named)}; {listing}")


def require_at_least_one(flags: object, *names: str) -> None:
    """Raise :class:`BadInput` for the first of the flags ``names`` (attributes of ``flags``) below 1."""
    for name in names:
        if getattr(flags, name) < 1:
            raise BadInput(f"--{name} must be at least 1, got {getattr(flags, name)}")


def require_rate(flags: object, *names: str) -> None:
    """Raise :class:`BadInput` for the first of the flags ``names`` (attributes of ``flags``) outside [0, 1]."""
    for name in names:
        if not 0.0 <= getattr(flags, name) <= 1.0:
            raise BadInput(f"--{name} must lie in [0, 1], got {getattr(flags, name)}")
