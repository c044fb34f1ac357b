"""The novelty gate: a game must not be a near-duplicate of the library or of a game admitted before it.

Games are compared the way the audit's diversity section compares them: the audit's embedding of
each game's opening instructions plus a solver transcript (:func:`env_texts`), cosine similarity,
the audit's near-duplicate threshold.
"""

import threading

import numpy as np

from gymverse.evaluation.audit import AuditConfig
from gymverse.evaluation.audit.agents import SOLVER, play_level
from gymverse.evaluation.audit.diversity import NEAR_DUPLICATE_SIMILARITY, embed, env_texts, load_embedder
from gymverse.evaluation.targets import target_for
from gymverse.synthesis.verdicts import GateResult


def library_texts(levels: list[int]) -> dict[str, tuple[str, str]]:
    """(instructions, solver transcript) of every built-in game, played in this process (our own code)."""
    import gymverse  # noqa: F401  (registers the library)
    from gymverse.env import registered_ids

    texts = {}
    for env_id in registered_ids("gymverse"):
        target = target_for(env_id)
        texts[env_id] = env_texts([play_level(target, SOLVER, level, [0]) for level in levels])
    return texts


class Novelty:
    """Remembers admitted games' embeddings; ``admit`` compares, then remembers a new game. Thread-safe."""

    def __init__(
        self,
        threshold: float = NEAR_DUPLICATE_SIMILARITY,
        embedder=None,
        with_library: bool = True,
        levels: list[int] | None = None,
    ) -> None:
        self.threshold = threshold
        self.embedder = embedder
        self.with_library = with_library
        self.levels = levels or AuditConfig().levels
        self.names: list[str] = []
        self.vectors: list[np.ndarray] = []
        self.pending: list[tuple[str, tuple[str, str]]] = []  # remembered before the model was loaded
        self.lock = threading.Lock()
        self.loaded = False

    def _vector(self, texts: tuple[str, str]) -> np.ndarray:
        both = embed(self.embedder, list(texts)).sum(axis=0)
        return both / max(np.linalg.norm(both), 1e-12)

    def model(self):
        """The embedding model (loaded on first use)."""
        with self.lock:
            self.embedder = self.embedder or load_embedder()
        return self.embedder

    def _load(self) -> None:
        if self.loaded:
            return
        self.embedder = self.embedder or load_embedder()
        known = list(library_texts(self.levels).items()) if self.with_library else []
        for name, texts in known + self.pending:
            self.names.append(name)
            self.vectors.append(self._vector(texts))
        self.loaded = True

    def remember(self, name: str, texts: tuple[str, str]) -> None:
        """Count ``name`` as admitted (embedded when a comparison first needs it)."""
        with self.lock:
            if self.loaded:
                self.names.append(name)
                self.vectors.append(self._vector(texts))
            else:
                self.pending.append((name, texts))

    def admit(self, name: str, texts: tuple[str, str] | None, pair_only: bool = False) -> GateResult:
        """Refuse a near-duplicate of a game admitted before, or with ``pair_only`` (games without a solver,
        where arrival order cannot say which twin is right) admit it and name the pair."""
        if texts is None:
            return GateResult(
                "novelty", False if not pair_only else None, "not_measured", "no transcript to compare with other games"
            )
        with self.lock:
            self._load()
            taken = [n for n in self.names if n.split(":")[-1] == name]
            if taken and not pair_only:
                return GateResult("novelty", False, "name_taken", f"{taken[0]} already has the name {name}")
            vector = self._vector(texts)
            result = GateResult("novelty", True, "", "the first game")
            if self.vectors:
                similarity = np.stack(self.vectors) @ vector
                closest = int(np.argmax(similarity))
                found = (
                    f"cosine similarity {similarity[closest]:.3f} to {self.names[closest]} (threshold {self.threshold})"
                )
                if similarity[closest] < self.threshold:
                    result = GateResult("novelty", True, "", f"closest game {self.names[closest]} at {found}")
                elif pair_only:
                    result = GateResult(
                        "novelty",
                        None,
                        "near_duplicate_pair",
                        f"a near-duplicate pair: {found}; neither is refused, since without a "
                        "solver arrival order cannot say which is right",
                    )
                else:
                    return GateResult("novelty", False, "near_duplicate", found)
            self.names.append(name)
            self.vectors.append(vector)
            return result
