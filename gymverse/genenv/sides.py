"""The two policies of the loop, each a ``Side``: how it writes text and, when it can be trained, how it learns.

Any policy spec writes (``tiny``, a Hugging Face folder, ``vllm:PATH``, ``openai:URL#MODEL``, and for the
agent the scripted ``oracle`` / ``epsilon:P`` / ``random``). A Hugging Face model is trained with the native
run loop's update step (:class:`gymverse.run.update.PolicyUpdate`); anything else is prompted only, and
the loop logs the same rewards for it.
"""

import dataclasses
import random
from dataclasses import dataclass
from typing import Any, Sequence

from gymverse.genenv.config import GenEnvArgs
from gymverse.policy.base import Generation
from gymverse.prompts import apply_template
from gymverse.run.plan import TurnSample
from gymverse.run.update import PolicyUpdate


@dataclass
class Side:
    name: str
    policy: Any
    update: PolicyUpdate | None = None  # None: prompted only
    template: str = "no"  # how a prompt's content becomes the text the policy continues ("chat" or "no")

    @property
    def trainable(self) -> bool:
        return self.update is not None

    @property
    def tokenizer(self) -> Any:
        return getattr(self.policy, "tokenizer", None)

    def prompt(self, content: str) -> str:
        return prompt_text(self.template, content, self.tokenizer)

    def write(self, contents: Sequence[str], per_prompt: int) -> tuple[list[str], list[Generation]]:
        """``per_prompt`` replies to each content: ``(prompts, generations)``, prompt-major."""
        prompts = [self.prompt(content) for content in contents for _ in range(per_prompt)]
        return prompts, self.policy.generate(prompts, stop_at_box=False)

    def reference_kl(self, samples: Sequence[TurnSample], estimator: str) -> list[float]:
        """Each sampled reply's summed per-token KL to the reference model (0 without one)."""
        if self.update is None or self.update.reference is None:
            return [0.0] * len(samples)
        return self.update.reference_kl(samples, estimator)

    def learn(
        self, samples: Sequence[TurnSample], advantages: Sequence[float], order: random.Random
    ) -> dict[str, float]:
        trainable = [k for k, s in enumerate(samples) if s.turn.response_ids]
        if self.update is None or not trainable:
            return {}
        return self.update.learn([samples[k] for k in trainable], [advantages[k] for k in trainable], order)

    def state_dict(self) -> dict[str, Any]:
        state: dict[str, Any] = {}
        if self.update is not None:
            state["update"] = self.update.state_dict()
        generator = getattr(self.policy, "generator", None)
        if generator is not None:
            state["generator"] = generator.get_state()
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.update is not None:
            self.update.load_state_dict(state["update"])
        if "generator" in state:
            self.policy.generator.set_state(state["generator"])


def prompt_text(template: str, content: str, tokenizer: Any) -> str:
    """``content`` through the tokenizer's chat template (``template="chat"`` and it has one), else as it is."""
    if template == "chat" and getattr(tokenizer, "chat_template", None):
        return apply_template("chat", content, tokenizer)
    return content


def load_side(
    name: str,
    spec: str,
    settings: GenEnvArgs,
    total_updates: int,
    train: bool,
    template: str,
    seed: int,
    stop_at_box: bool = False,
    reference: str | None = None,
) -> Side:
    """The side ``spec`` names, sampling with ``settings`` (temperature, top_p, generate_max_length, max_model_len,
    device, request_timeout, request_retries); trained when ``train`` and it is a Hugging Face model.
    ``reference`` is the model of the KL terms (loaded when --beta or --kl_penalty_coef asks for one). An
    ``openai:`` endpoint with the ``chat`` template is asked through the chat API, so the server applies its own
    chat template (there is no tokenizer here to apply it)."""
    from gymverse.policy import load_policy, sampling_flags
    from gymverse.policy.hf import HFPolicy, load_causal_lm
    from gymverse.policy.tiny import resolve_pretrain

    policy = load_policy(
        spec,
        **sampling_flags(settings),
        seed=seed,
        device=settings.device,
        stop_at_box=stop_at_box,
        chat=template == "chat",
        timeout_s=settings.request_timeout,
        retries=settings.request_retries,
    )
    if not (train and isinstance(policy, HFPolicy)):
        return Side(name, policy, None, template)
    frozen = None
    if reference is not None and (settings.beta > 0 or settings.kl_penalty_coef > 0):
        frozen = load_causal_lm(resolve_pretrain(reference), policy.model.dtype, settings.device)
        frozen.eval().requires_grad_(False)
    pad_id = policy.tokenizer.pad_token_id
    update = PolicyUpdate(policy.model, pad_id, settings, settings, total_updates, frozen, settings.kl_loss_type)
    return Side(name, policy, update, template)


def env_settings(args: GenEnvArgs) -> GenEnvArgs:
    """The environment policy's sampling and update settings: the agent's flags with the --env_* values."""
    return dataclasses.replace(
        args,
        learning_rate=args.env_learning_rate,
        temperature=args.env_temperature,
        generate_max_length=args.env_generate_max_length,
        max_model_len=None,
        beta=0.0,
        kl_penalty_coef=0.0,
        top_p=1.0,
    )
