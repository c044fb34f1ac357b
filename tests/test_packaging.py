"""The package as pip installs it: pyproject.toml names every package folder, and the console script."""

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
