"""Supervised warm start from solver demonstrations (``gymverse sft``, and :func:`warm_start` before RL).

Every built-in game ships a solver (``oracle_action``); games written elsewhere (GymVerse's) usually do
not, and are left out of the demonstrations. A demonstrator plays each game through the same
prompt template and wrappers as training, labels every prompt it sees with the solver's move, and
plays a random move instead with probability ``epsilon`` so that the demonstrations also show how to
recover from mistakes (the labels stay the solver's). The model is then trained to write the label
followed by its end-of-sequence token: cross-entropy on the reply tokens only.
"""

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

from gymverse.policy.base import Generation
from gymverse.run.config import RunConfig
from gymverse.run.settings import WarmStartSettings

SFT_LABELS = ("solver", "played")


class Demonstrator:
    """A policy that records ``(prompt, move)`` pairs while playing epsilon-random moves. The recorded move is
    the solver's, or with ``label="played"`` the move played (the epsilon-solver's own, random ones included)."""

    def __init__(self, epsilon: float, seed: int, label: str = "solver") -> None:
        if label not in SFT_LABELS:
            raise ValueError(f"unknown label {label!r}; choose one of {SFT_LABELS}")
        self.epsilon, self.label = epsilon, label
        self.rng = random.Random(seed)
        self.pairs: list[tuple[str, str]] = []

    def generate(
        self,
        prompts: Sequence[str],
        envs: Sequence[Any] | None = None,
        stop_at_box: bool | None = None,
        rngs: Sequence[Any] | None = None,
    ) -> list[Generation]:
        if envs is None:
            raise ValueError("the demonstrator needs the games (envs) to ask their solvers")
        replies = []
        for prompt, env in zip(prompts, envs):
            solver = env.oracle_action()
            played = env.random_action(self.rng) if self.rng.random() < self.epsilon else solver
            self.pairs.append((prompt, played if self.label == "played" else solver))
            replies.append(Generation(text=played))
        return replies


def games_with_solver(env_ids: Sequence[str], level: int = 1) -> list[str]:
    """The games of ``env_ids`` that have a reference solver, in order (each is made and reset once to ask)."""
    import gem

    from gymverse.env.players import has_solver

    found = []
    for env_id in env_ids:
        env = gem.make(env_id, complexity=level)
        env.reset(seed=0)
        if has_solver(env):
            found.append(env_id)
    return found


def collect_demonstrations(
    env_ids: Sequence[str],
    episodes_per_env: int,
    levels: Sequence[int],
    template: str = "no",
    wrappers: str = "",
    tokenizer: Any = None,
    epsilon: float = 0.2,
    seed: int = 0,
    num_env: int = 16,
    label: str = "solver",
) -> list[tuple[str, str]]:
    """``(prompt, move)`` pairs from ``episodes_per_env`` episodes of each game, spread over ``levels``; the move is
    the solver's, or with ``label="played"`` the epsilon-solver's (see :class:`Demonstrator`)."""
    from gymverse.env.groups import make_env_group
    from gymverse.episodes import collect_episodes

    pairs = []
    for k, env_id in enumerate(env_ids):
        share, extra = divmod(episodes_per_env, len(levels))
        for j, level in enumerate(levels):
            count = share + (j < extra)
            if count == 0:
                continue
            demonstrator = Demonstrator(epsilon, seed=seed + 7919 * k + j, label=label)
            group = make_env_group(
                env_id, min(num_env, count), wrappers, complexity=level, seed=seed + 1000 * k, tokenizer=tokenizer
            )
            collect_episodes(
                demonstrator,
                group,
                env_id,
                count,
                template=template,
                tokenizer=tokenizer,
                seed=seed + 1000 * k + 100 * j,
            )
            pairs += demonstrator.pairs
    return pairs


@dataclass
class SFTResult:
    pairs: int
    steps: int
    first_loss: float
    last_loss: float


def train_on_demonstrations(
    model: Any,
    tokenizer: Any,
    pairs: Sequence[tuple[str, str]],
    epochs: int = 2,
    batch_size: int = 16,
    learning_rate: float = 1e-3,
    seed: int = 0,
    max_norm: float = 1.0,
    progress: bool = True,
) -> SFTResult:
    """Fit ``model`` to write each pair's move (and then stop) after its prompt."""
    import torch
    from tqdm import tqdm

    from gymverse.run.logprobs import response_mask, sequence_logprobs

    if not pairs:
        raise ValueError("no demonstrations to train on")
    eos = tokenizer.eos_token_id
    data = [
        (tokenizer.encode(prompt, add_special_tokens=False), tokenizer.encode(move, add_special_tokens=False) + [eos])
        for prompt, move in pairs
    ]
    order = random.Random(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    steps = epochs * -(-len(data) // batch_size)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda i: 1.0 - i / steps)  # linear decay to 0
    model.train()
    losses = []
    with tqdm(total=steps, desc="SFT", disable=not progress, dynamic_ncols=True) as bar:
        for _ in range(epochs):
            order.shuffle(data)
            for start in range(0, len(data), batch_size):
                batch = data[start : start + batch_size]
                responses = [r for _, r in batch]
                logprobs = sequence_logprobs(model, [p for p, _ in batch], responses, pad_id=tokenizer.pad_token_id)
                mask = response_mask(responses, logprobs.device)
                loss = -(logprobs * mask).sum() / mask.sum()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad(set_to_none=True)
                losses.append(loss.item())
                bar.update()
                bar.set_postfix(loss=f"{losses[-1]:.3f}")
    model.eval()
    return SFTResult(pairs=len(data), steps=len(losses), first_loss=losses[0], last_loss=losses[-1])


SFT_EPISODES_FOR_TINY = 100  # the untrained tiny model learns the demo's games' first level from these


def warm_start(
    config: RunConfig, pretrain: str | Path, out: Path, seed: int, device: str = "cpu", progress: bool = True
) -> Path:
    """The model RL starts from: ``pretrain`` after SFT on solver demonstrations (``--sft_episodes``; -1 = only
    for the untrained tiny model), saved to ``out``; ``pretrain`` itself when there is nothing to learn."""
    from gymverse.policy.tiny import TINY
    from gymverse.run.config import train_env_ids, wrappers_spec
    from gymverse.seeds import Purpose, derive_seed

    episodes = config.sft_episodes
    if episodes < 0:
        episodes = SFT_EPISODES_FOR_TINY if config.pretrain == TINY else 0
    if episodes == 0:
        return Path(pretrain)
    env_ids = train_env_ids(config)
    taught = games_with_solver(env_ids, config.train_difficulty)
    if not taught:
        start = "the untrained tiny model" if config.pretrain == TINY else f"{config.pretrain} as it is"
        print(f"Warm start: none of the games has a solver (oracle_action) to learn from, so RL starts from {start}")
        return Path(pretrain)
    skipped = [env_id for env_id in env_ids if env_id not in taught]
    if skipped:
        print(f"Warm start: on {', '.join(taught)} only; no solver (oracle_action) in {', '.join(skipped)}")
    levels = list(range(config.train_difficulty, config.train_difficulty + config.sft_levels))
    result = fit_and_save(
        pretrain,
        lambda tokenizer: collect_demonstrations(
            taught,
            episodes,
            levels,
            config.prompt_template,
            wrappers_spec(config.wrappers),
            tokenizer,
            config.sft_epsilon,
            seed=derive_seed(seed, Purpose.WARM_START),
            label=config.sft_label,
        ),
        config,
        out,
        seed,
        device,
        progress,
    )
    teacher = "solver" if config.sft_label == "solver" else f"epsilon-solver (epsilon {config.sft_epsilon:g})"
    print(
        f"Warm start: SFT on {result.pairs} {teacher} moves at complexity {levels[0]}-{levels[-1]}, "
        f"loss {result.first_loss:.3f} -> {result.last_loss:.3f}"
    )
    return Path(out)


def fit_and_save(
    pretrain: str | Path,
    pairs_for: Any,
    config: WarmStartSettings,
    out: Path,
    seed: int,
    device: str = "cpu",
    progress: bool = True,
) -> "SFTResult":
    """Load ``pretrain``, fit it to the ``(prompt, reply)`` pairs ``pairs_for(tokenizer)`` makes (with
    ``--sft_epochs``, ``--sft_batch_size``, ``--sft_learning_rate``) and save model and tokenizer to ``out``."""
    import torch
    from transformers import AutoTokenizer

    from gymverse.policy.hf import load_causal_lm

    tokenizer = AutoTokenizer.from_pretrained(pretrain)
    model = load_causal_lm(pretrain, torch.float32, device)
    result = train_on_demonstrations(
        model,
        tokenizer,
        pairs_for(tokenizer),
        config.sft_epochs,
        config.sft_batch_size,
        config.sft_learning_rate,
        seed=seed,
        progress=progress,
    )
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return result


def sft_command(
    env_id: str = "gymverse:GridCourier|gymverse:MailSorter",
    pretrain: str = "tiny",
    output: str = "./oat-output/sft",
    episodes: int = 300,
    difficulty: str = "1|2|3",
    epochs: int = 2,
    batch_size: int = 16,
    learning_rate: float = 1e-3,
    prompt_template: str = "no",
    wrappers: str = "",
    epsilon: float = 0.2,
    label: Literal["solver", "played"] = "solver",
    seed: int = 0,
    device: str = "cpu",
    cpu_threads: int = 1,
) -> Path:
    """Warm-start a model by supervised learning on solver demonstrations, and save it.

    Args:
        env_id: Environment ids joined by "|".
        pretrain: Model to start from: "tiny" or a Hugging Face model folder.
        output: Folder the trained model is saved to (Hugging Face format).
        episodes: Demonstration episodes per environment, spread evenly over the difficulty levels.
        difficulty: Complexity levels to demonstrate, joined by "|".
        epochs: Passes over the demonstrations.
        batch_size: Prompts per optimizer step.
        learning_rate: Peak learning rate (decays linearly to 0).
        prompt_template: Prompt template, as in training (e.g. "no", "qwen3_game", "chat").
        wrappers: GEM observation wrappers, as in training ("" for none).
        epsilon: Probability that the demonstrator plays a random move.
        label: What each demonstrated move is labelled with: the solver's move, or the move played (the
            epsilon-solver's own, random ones included).
        seed: Seed of the games, the demonstrator and the batch order.
        device: Torch device.
        cpu_threads: Torch threads on a CPU (0: torch's default); small models are fastest on one.
    """
    from gymverse.env import registered_ids
    from gymverse.env.id_lists import split_env_ids
    from gymverse.errors import BadInput, require_known
    from gymverse.policy import check_device
    from gymverse.policy.tiny import not_a_model_folder, resolve_pretrain

    # Arguments first: a bad value is refused before torch and transformers load (seconds).
    env_ids = split_env_ids(env_id)
    require_known(env_ids, registered_ids(), flag="--env-id")
    taught = games_with_solver(env_ids)
    if not taught:
        raise BadInput(f"--env-id: no solver (oracle_action) in {', '.join(env_ids)}; demonstrations need one")
    if taught != env_ids:
        print(f"--env-id: {', '.join(e for e in env_ids if e not in taught)} left out: no solver (oracle_action)")
    try:
        levels = [int(level) for level in difficulty.split("|") if level.strip()]
    except ValueError:
        raise BadInput(f"--difficulty {difficulty!r}: write complexity levels joined by |, e.g. 1|2|3") from None
    if not levels or min(levels) < 1:
        raise BadInput(f"--difficulty {difficulty!r}: give levels >= 1, e.g. 1|2|3")
    problem = not_a_model_folder(pretrain)
    if problem:
        raise BadInput(f"--pretrain {problem}")
    check_device(device)

    import torch
    from transformers import AutoTokenizer

    from gymverse.policy.hf import load_causal_lm

    path = resolve_pretrain(pretrain)
    if device == "cpu" and cpu_threads > 0:
        torch.set_num_threads(cpu_threads)
    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = load_causal_lm(path, torch.float32, device)
    pairs = collect_demonstrations(
        taught, episodes, levels, prompt_template, wrappers, tokenizer, epsilon, seed, label=label
    )
    result = train_on_demonstrations(model, tokenizer, pairs, epochs, batch_size, learning_rate, seed)
    out = Path(output)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    print(
        f"SFT on {result.pairs} demonstrated moves ({result.steps} steps): loss {result.first_loss:.3f} -> "
        f"{result.last_loss:.3f}; saved to {out}"
    )
    return out
