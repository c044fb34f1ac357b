"""Append-only JSONL files that survive a kill: the manifest and the journal of the writer's answers.

Each record is one line, written and flushed whole; a line torn by a kill is ignored on reading,
so a resumed run sees exactly the records that were finished.
"""

import json
import threading
from pathlib import Path
from typing import Any


class JsonlLog:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.lock = threading.Lock()

    def read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        records = []
        for line in self.path.read_text().splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:  # the torn last line of a killed run
                continue
        return records

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, default=str)
        with self.lock:
            if self._torn():
                line = "\n" + line  # close the torn line left by a kill, so this record stands alone
            with self.path.open("a") as out:
                out.write(line + "\n")
                out.flush()

    def _torn(self) -> bool:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return False
        with self.path.open("rb") as log:
            log.seek(-1, 2)
            return log.read(1) != b"\n"


def unverified_games(folder: Path) -> list[str]:
    """Class names of the games in ``folder`` that a synthesis or adoption run let in without a solver."""
    return [
        r["class_name"] for r in JsonlLog(Path(folder) / "manifest.jsonl").read() if r.get("status") == "unverified"
    ]
