"""The JSONL record log of a sweep: a config header, then attempt, instance, level and env records.

The log is the sweep's only state. Reopening it keeps every finished instance (its attempts and its
instance record) and drops anything an interrupted run left half-written, so the sweep resumes
where it stopped.
"""

import json
from pathlib import Path
from typing import Any, Iterable

from gymverse.errors import BadInput

# Header fields that may change between a run and its resumption: the machine a model runs on (a
# model's records then match an uninterrupted run's only on the same device and threads), and
# num_levels, which only chooses ``levels``, which the header holds. batch_instances is not one: a
# model's logits depend, in the last bits, on what else is in the batch.
RESUMABLE_FIELDS = frozenset({"device", "cpu_threads", "num_levels"})


class RecordLog:
    def __init__(self, path: Path, header: dict[str, Any], overwrite: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.records: list[dict] = []
        if self.path.exists() and not overwrite:
            self._reopen(header)
        else:
            self.records = [{"type": "config", **header}]
            self._rewrite()

    def _reopen(self, header: dict[str, Any]) -> None:
        records = []
        for line in self.path.read_text().splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                break  # a line cut by the interruption; nothing after it was written whole
        if not records or records[0].get("type") != "config":
            raise BadInput(f"{self.path} is not a sweep record log; choose another --output folder or --overwrite")
        old = records[0]
        changed = sorted(
            k
            for k in set(old) | set(header)
            if k != "type" and k not in RESUMABLE_FIELDS and old.get(k) != header.get(k)
        )
        if changed:
            diffs = "; ".join(f"{k}: {old.get(k)!r} there, {header.get(k)!r} now" for k in changed)
            raise BadInput(
                f"{self.path} holds a sweep with other settings ({diffs}); "
                "choose another --output folder, or --overwrite to start over"
            )
        finished = {_key(r) for r in records if r.get("type") == "instance"}
        self.records = [{"type": "config", **header}] + [
            r for r in records[1:] if r.get("type") not in ("attempt", "instance") or _key(r) in finished
        ]
        self._rewrite()

    def _rewrite(self) -> None:
        self.path.write_text("".join(json.dumps(r) + "\n" for r in self.records))

    def append(self, records: Iterable[dict]) -> None:
        records = list(records)
        with open(self.path, "a") as file:
            file.write("".join(json.dumps(r) + "\n" for r in records))
            file.flush()
        self.records += records

    def of_type(self, kind: str) -> list[dict]:
        return [r for r in self.records if r.get("type") == kind]

    def finished_instances(self) -> set[tuple[str, int, int]]:
        return {_key(r) for r in self.of_type("instance")}

    def has(self, kind: str, **fields: Any) -> bool:
        return any(all(r.get(k) == v for k, v in fields.items()) for r in self.of_type(kind))


def _key(record: dict) -> tuple[str, int, int]:
    return record["env_id"], record["level"], record["instance"]
