"""What GymVerse's own files say about its games, read without running them.

GymVerse keeps its games in a folder such as ``gem/gem/envs/example/`` and names them in the
``__init__.py`` beside that folder: ``register("example:<Name>", "gem.envs.example.<file>:<Name>Env",
**kwargs)``, sometimes several ids for one class with other keyword arguments. Its files are named
after a domain (``algorithm_...``, ``tool_use_...``, ``logic_game_...``). Everything here parses
source text with :mod:`ast` and never executes it: the registration file of a downloaded folder is as
untrusted as its games, and GymVerse's also imports heavy packages at the top.
"""

import ast
import threading
from pathlib import Path
from typing import Any

_PARSING = threading.Lock()


def parse_python(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse``, one call at a time: CPython 3.11 before 3.11.8 can fail two parses in parallel threads with
    ``SystemError: AST constructor recursion depth mismatch`` (the judge and adoption parse files in threads)."""
    with _PARSING:
        return ast.parse(source, filename)


def parse_expression(source: str) -> ast.Expression:
    """``ast.parse(source, mode="eval")``, one call at a time (see :func:`parse_python`)."""
    with _PARSING:
        return ast.parse(source, mode="eval")


Registration = tuple[str, dict[str, Any]]  # (env id, keyword arguments of the constructor)

# GymVerse's file prefixes (the words before the game's CamelCase name) and the domain each one means.
DOMAINS = {
    "algorithm": "algorithms",
    "dynamicprogramming_algorithm": "algorithms",
    "code": "code",
    "tool_use": "tool_use",
    "logic": "logic",
    "logic_game": "logic",
    "reasoning_game": "logic",
    "math": "math",
    "calculationgame": "math",
    "game": "games",
    "puzzle_game": "puzzles",
    "maze_game": "navigation",
    "spatial_game": "navigation",
    "language_game": "language",
}


def registration_file(folder: str | Path) -> Path:
    """Where GymVerse registers the games of ``folder``: the package ``__init__.py`` one level up."""
    return Path(folder).parent / "__init__.py"


def read_registrations(folder: str | Path) -> dict[tuple[str, str], list[Registration]]:
    """GymVerse's ids for the games of ``folder`` (see :func:`parse_registrations`); ``{}`` when the
    registration file is missing or unreadable."""
    try:
        source = registration_file(folder).read_bytes()
    except OSError:
        return {}
    return parse_registrations(source, Path(folder).name)


def parse_registrations(source: str | bytes, package: str) -> dict[tuple[str, str], list[Registration]]:
    """``{(file stem, class name): [(env id, kwargs), ...]}`` from the ``register()`` calls in ``source`` whose
    entry point lies in the folder ``package`` (``"gem.envs.<package>.<file stem>:<class name>"``).

    Calls are taken in source order and, as GEM's registry in GymVerse does, an id registered twice keeps its
    first entry point. What cannot be read statically (an id made by an f-string, keyword values that are not
    literals, ``**kwargs``) is left out; a file that does not parse gives ``{}``. Never raises.
    """
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    calls = sorted(
        (node for node in ast.walk(tree) if isinstance(node, ast.Call) and _is_register_call(node)),
        key=lambda node: (node.lineno, node.col_offset),
    )
    found: dict[tuple[str, str], list[Registration]] = {}
    taken: set[str] = set()
    for call in calls:
        env_id, entry_point, kwargs = _read_call(call)
        if not isinstance(env_id, str) or env_id in taken:
            continue
        taken.add(env_id)
        if kwargs is None or not isinstance(entry_point, str):
            continue
        module, _, class_name = entry_point.partition(":")
        parts = module.split(".")
        if class_name and len(parts) >= 2 and parts[-2] == package:
            found.setdefault((parts[-1], class_name), []).append((env_id, kwargs))
    return found


def _is_register_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name == "register"


def _read_call(call: ast.Call) -> tuple[Any, Any, dict[str, Any] | None]:
    """``(env id, entry point, kwargs)`` as literals: an id or entry point that is not one is None, and so are
    kwargs with any value that is not one (or with extra positionals, or ``**mapping``)."""
    args = [_literal(a) for a in call.args]
    named = {k.arg: k.value for k in call.keywords if k.arg is not None}
    env_id = args[0] if args else _literal(named.pop("env_id", None))
    entry_point = args[1] if len(args) > 1 else _literal(named.pop("entry_point", None))
    readable = len(call.args) <= 2 and all(k.arg is not None for k in call.keywords)
    kwargs = {name: _literal(node, _UNREADABLE) for name, node in named.items()}
    if not readable or any(value is _UNREADABLE for value in kwargs.values()):
        return env_id, entry_point, None
    return env_id, entry_point, kwargs


_UNREADABLE = object()


def _literal(node: ast.AST | None, default: Any = None) -> Any:
    if node is None:
        return default
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return default


def default_game_name(class_name: str) -> str:
    """The name of a game whose class is ``<Name>Env`` (GymVerse's pattern): ``<Name>``; other names as they are."""
    return class_name[: -len("Env")] if class_name.endswith("Env") and len(class_name) > len("Env") else class_name


def defines_a_class(source: str | bytes, filename: str = "<unknown>") -> bool:
    """Whether a module's source defines a class at its top level (raises SyntaxError, naming ``filename``, for a
    file that does not parse). A file that defines none, such as GymVerse's ``*_solver.py`` scripts, holds no game."""
    return any(isinstance(node, ast.ClassDef) for node in parse_python(source, filename).body)


def domain_from_file_name(file_name: str) -> str | None:
    """The domain GymVerse's file name gives its game: ``tool_use_CampusWeave_env.py`` -> ``tool_use``.

    The prefix is the lower-case words before the game's CamelCase name; a prefix outside :data:`DOMAINS`
    is its own domain (a prefix ending in ``game`` is a game). None when the name has no such prefix."""
    words = []
    for word in Path(file_name).stem.split("_"):
        if not word or not word.islower():
            break
        words.append(word)
    prefix = "_".join(words)
    if not prefix or len(words) == len(Path(file_name).stem.split("_")):
        return None  # no CamelCase name after it: not GymVerse's naming
    if prefix in DOMAINS:
        return DOMAINS[prefix]
    return "games" if prefix.endswith("game") else prefix
