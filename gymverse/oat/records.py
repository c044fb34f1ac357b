"""OAT's per-turn record with the two fields the learner reads, and the learner dataset that keeps them.

The learner normalizes each turn's return per environment, so every ``GameTransition`` carries its
environment id and its return (``G_t``) as fields of its own, from the actor (pickled through OAT's shared
memory) into the learning batch (``batch["env_ids"]``, ``batch["turn_returns"]``).
"""

from dataclasses import dataclass

from oat.types import TransitionData
from oat.utils.data import TransitionDataset
from typing_extensions import override


@dataclass(kw_only=True)  # keyword-only, so the two fields need no default after OAT's defaulted ones
class GameTransition(TransitionData):
    env_id: str
    turn_return: float


class GameTransitionDataset(TransitionDataset):
    @override
    def __init__(self, buffer, tokenizer, strategy, **kwargs) -> None:
        super().__init__(buffer, tokenizer, strategy, **kwargs)
        for transition, source in zip(self.transitions, buffer):
            transition.update(env_id=source.env_id, turn_return=source.turn_return)

    @override
    def collate_fn(self, item_list):
        batch = super().collate_fn(item_list)
        batch["env_ids"] = [item["env_id"] for item in item_list]
        batch["turn_returns"] = [item["turn_return"] for item in item_list]
        return batch
