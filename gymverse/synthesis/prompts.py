"""The prompts of both stages: Markdown files with ``${placeholders}``, replaceable by the user.

The package's own files are in ``gymverse/synthesis/prompts/``; ``--prompts DIR`` puts a folder of
files with the same names in front of them (only the files present there are replaced).
"""

from importlib.resources import files
from pathlib import Path
from string import Template

from gymverse.errors import BadInput

PROMPT_NAMES = ("abstraction", "repair_design", "construction", "repair_code", "contract")


class Prompts:
    def __init__(self, folder: Path | None = None) -> None:
        if folder is not None and not Path(folder).is_dir():
            raise BadInput(f"--prompts {folder}: no such folder")
        self.texts = {}
        for name in PROMPT_NAMES:
            own = Path(folder) / f"{name}.md" if folder is not None else None
            source = (
                own if own is not None and own.is_file() else files("gymverse.synthesis") / "prompts" / f"{name}.md"
            )
            self.texts[name] = source.read_text()

    def render(self, prompt: str, /, **values: str) -> str:
        """Prompt ``prompt`` with its placeholders filled; a placeholder nobody fills is an error."""
        try:
            return Template(self.texts[prompt]).substitute(values)
        except (KeyError, ValueError) as error:
            raise BadInput(
                f"prompt {prompt}.md: placeholder {error} cannot be filled; "
                f"available: {', '.join('${%s}' % k for k in sorted(values))}"
            ) from None
