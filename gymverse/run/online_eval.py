"""The online evaluation of a run on games: the policy being trained, on fresh games it never trains on.

``online_eval`` plays the plan of ``gymverse.run.eval_plan`` (``--eval_n`` games of each ``--eval_envs`` id at
each ``--eval_difficulty``, with its evaluation wrappers and prompt template), sampling at ``--eval_temperature``,
``--eval_top_p`` and ``--eval_generate_max_length``, and logs them with ``RunFiles.log_eval``
(``eval_env_metrics.jsonl`` and ``eval_results/``). The PERPO trainer and the GenEnv loop both call it.
Each episode's game and draws come from seeds of the run, the game, the level and the episode's number,
never from the policy's stream: every evaluation of a run plays the same games with the same draws,
whatever was played before it (a resumed run evaluates as an uninterrupted one).
"""

import copy
from collections import defaultdict
from typing import Any

from gymverse.run.config import RunConfig
from gymverse.run.eval_plan import eval_plan
from gymverse.run.files import RunFiles
from gymverse.seeds import Purpose, derive_seed


def online_eval(policy: Any, config: RunConfig, seed: int, files: RunFiles, step: int) -> list[dict[str, Any]]:
    """Evaluate ``policy`` (a model, or a scripted policy) at ``step``; one record per environment and complexity
    (``eval_plan.eval_metrics`` makes the logged metrics of them)."""
    from gymverse.env.groups import make_env_group
    from gymverse.episodes import collect_episodes

    judge = evaluation_copy(
        policy,
        derive_seed(seed, Purpose.EVAL_SAMPLER),
        temperature=config.eval_temperature,
        top_p=config.eval_top_p,
        generate_max_length=config.eval_generate_max_length,
    )
    tokenizer = getattr(policy, "tokenizer", None)
    played: dict[str, dict[int, list[Any]]] = defaultdict(dict)
    for cell in eval_plan(config):
        group = make_env_group(
            cell.env_id,
            cell.copies,
            cell.wrappers,
            complexity=cell.level,
            seed=cell.envs_seed(seed),
            tokenizer=tokenizer,
        )
        played[cell.env_id][cell.level] = collect_episodes(
            judge,
            group,
            cell.env_id,
            cell.episodes,
            template=cell.template,
            max_model_len=config.max_model_len if tokenizer is not None else None,
            seed=cell.games_seed(seed),
            sample_seeds=cell.draw_seeds(seed),
        )
    return [record for env_id, by_level in played.items() for record in files.log_eval(step, env_id, by_level)]


def evaluation_copy(policy: Any, generator_seed: int, **sampling: Any) -> Any:
    """A copy of ``policy`` that samples with ``sampling`` (temperature, top_p, ...) from a generator of its own,
    seeded with ``generator_seed`` (derived from the run's): every evaluation of a run draws alike, and the policy
    in training keeps its settings and its random state."""
    judge = copy.copy(policy)
    for name, value in sampling.items():
        setattr(judge, name, value)
    if getattr(policy, "generator", None) is not None:
        import torch

        judge.generator = torch.Generator(device=policy.device).manual_seed(generator_seed)
    return judge
