"""The online evaluation of a run on games: the policy being trained, on fresh games it never trains on.

``online_eval`` plays ``--eval_n`` games of each ``--eval_envs`` id (the training ids when empty) at each
``--eval_difficulty`` with its evaluation wrappers and prompt template, sampling at ``--eval_temperature``,
``--eval_top_p`` and ``--eval_generate_max_length``, and logs them with ``RunFiles.log_eval``
(``eval_env_metrics.jsonl`` and ``eval_results/``). The PERPO trainer and the GenEnv loop both call it.
Each episode's game and draws come from seeds of the run, the game, the level and the episode's number,
never from the policy's stream: every evaluation of a run plays the same games with the same draws,
whatever was played before it (a resumed run evaluates as an uninterrupted one).
"""

import copy
from typing import Any

from gymverse.run.config import eval_levels, eval_settings
from gymverse.run.files import RunFiles
from gymverse.seeds import Purpose, derive_seed


def online_eval(policy: Any, config: Any, seed: int, files: RunFiles, step: int) -> list[dict[str, Any]]:
    """Evaluate ``policy`` (a model, or a scripted policy) at ``step``; one record per environment and complexity."""
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
    records = []
    for k, (env_id, (wrappers, template)) in enumerate(eval_settings(config).items()):
        by_level = {}
        for level in eval_levels(config):
            group = make_env_group(
                env_id,
                min(config.eval_n, 32),
                wrappers,
                complexity=level,
                seed=derive_seed(seed, Purpose.EVAL_ENVS, k),
                tokenizer=tokenizer,
            )
            by_level[level] = collect_episodes(
                judge,
                group,
                env_id,
                config.eval_n,
                template=template,
                max_model_len=config.max_model_len if tokenizer is not None else None,
                seed=derive_seed(seed, Purpose.EVAL_GAMES, k, level),
                sample_seeds=[derive_seed(seed, Purpose.EVAL_DRAWS, k, level, n) for n in range(config.eval_n)],
            )
        records += files.log_eval(step, env_id, by_level)
    return records


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


def eval_wandb_metrics(records: list[dict[str, Any]]) -> dict[str, float]:
    """An evaluation's accuracies as wandb metrics (``eval/<env_id>/c<complexity>/accuracy``)."""
    return {f"eval/{r['env_id']}/c{r['complexity']}/accuracy": r["accuracy"] for r in records}
