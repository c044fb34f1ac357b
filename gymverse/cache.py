"""Where gymverse keeps what it can rebuild: ``$GYMVERSE_CACHE``, else ``$XDG_CACHE_HOME/gymverse``, else ``~/.cache/gymverse``."""

import os
from pathlib import Path


def cache_dir() -> Path:
    if os.environ.get("GYMVERSE_CACHE"):
        return Path(os.environ["GYMVERSE_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gymverse"
