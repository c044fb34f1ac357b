"""Install gymverse; the top-level ``envs/`` folder is installed as ``gymverse.envs``."""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).parent


def requirements(name: str) -> list[str]:
    lines = (HERE / name).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


env_packages = ["gymverse.envs"] + [f"gymverse.envs.{p}" for p in find_packages(where="envs")]

setup(
    name="gymverse",
    version="0.1.0",
    description="Complexity-controlled text games for LLM agents, PERPO training with curricula, and evaluation.",
    long_description=(HERE / "README.md").read_text(),
    long_description_content_type="text/markdown",
    python_requires=">=3.10,<3.13",
    packages=find_packages(include=["gymverse", "gymverse.*"]) + env_packages,
    package_dir={"gymverse.envs": "envs"},
    package_data={"gymverse.synthesis": ["prompts/*.md"]},
    install_requires=requirements("requirements.txt"),
    extras_require={"test": ["pytest>=8", "hypothesis>=6.100", "pytest-timeout>=2.3"]},
    entry_points={"console_scripts": ["gymverse=gymverse.cli:main"]},
)
