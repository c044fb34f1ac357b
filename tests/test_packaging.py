"""The package as pip installs it: pyproject.toml names every package folder, and the console script."""

import ast
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")
ROOT = Path(__file__).resolve().parents[1]


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_folder_is_installed_under_its_import_name():
    setuptools = pyproject()["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"gymverse.envs": "envs"}
    inits = [init for top in ("gymverse", "envs") for init in (ROOT / top).rglob("__init__.py")]
    folders = [init.parent.relative_to(ROOT).parts for init in inits]
    on_disk = {".".join(parts if parts[0] == "gymverse" else ("gymverse", *parts)) for parts in folders}
    missing = on_disk - set(setuptools["packages"])
    assert not missing, f"add {', '.join(sorted(missing))} to [tool.setuptools] packages in pyproject.toml"
    assert set(setuptools["packages"]) <= on_disk


def test_the_synthesis_prompts_ship_with_the_package():
    patterns = pyproject()["tool"]["setuptools"]["package-data"]["gymverse.synthesis"]
    prompts = [p for pattern in patterns for p in (ROOT / "gymverse" / "synthesis").glob(pattern)]
    assert prompts and all(p.suffix == ".md" for p in prompts)


def test_the_console_script_is_the_command_line():
    from gymverse.cli import main

    module, _, name = pyproject()["project"]["scripts"]["gymverse"].partition(":")
    assert (module, name) == (main.__module__, main.__name__)


def test_setup_py_only_hands_over_to_pyproject():
    """GymVerse's install runs ``pip install -e .`` beside a setup.py: ours declares nothing of its own."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    assert [(call.func.id, call.args, call.keywords) for call in calls] == [("setup", [], [])]


def test_gymverses_gpu_install_runs_word_for_word_here():
    """The README gives GymVerse's three install commands as they are, and each file they name is here."""
    block = "conda env create -f environment.yml\nconda activate gymverse-gpu\npip install -r requirements.txt\npip install -e .\n"
    assert f"```bash\n{block}```" in (ROOT / "README.md").read_text()
    for name in ("environment.yml", "requirements.txt", "pyproject.toml", "setup.py"):
        assert (ROOT / name).is_file(), name
    # deepspeed and flash-attn build against the installed torch: the conda environment turns build isolation off
    assert 'PIP_NO_BUILD_ISOLATION: "0"' in (ROOT / "environment.yml").read_text()


def import_graph() -> dict[str, set[str]]:
    """gymverse's subpackages and top-level modules (``gymverse.a.b`` counts as ``gymverse.a``) -> those their
    code imports, inside functions included. ``gymverse/__init__.py`` is left out: it re-exports."""
    nodes = {
        f"gymverse.{path.stem}"
        for path in (ROOT / "gymverse").iterdir()
        if (path / "__init__.py").is_file() or (path.suffix == ".py" and path.stem != "__init__")
    }
    graph: dict[str, set[str]] = {node: set() for node in nodes}
    for path in (ROOT / "gymverse").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if len(parts) == 2 and parts[1] == "__init__":
            continue
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
        source = ".".join(parts[:2])
        graph[source] |= {".".join(name.split(".")[:2]) for name in names} & nodes - {source}
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path that starts and ends at the same node; empty when there is none."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                return path[path.index(target) :] + [target]
            if target not in state and (found := visit(target)):
                return found
        state[node] = "done"
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_subpackages_import_each_other_without_a_cycle():
    found = cycle(import_graph())
    assert not found, "import cycle: " + " -> ".join(found)


def test_the_cycle_finder_finds_one():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) == []


def test_the_trainers_stand_side_by_side():
    graph = import_graph()
    assert "gymverse.train" not in graph["gymverse.oat"] | graph["gymverse.genenv"]
    assert "gymverse.evaluation" not in graph["gymverse.sandbox"]  # the judge's targets are evaluation's
