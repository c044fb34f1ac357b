"""OAT's per-turn record with the environment it came from, and the learner dataset that keeps it.

The learner normalizes returns per environment, so each turn's env id rides along from the actor
(pickled through OAT's shared memory) into the learning batch (``batch["env_ids"]``).
"""

from dataclasses import dataclass

from oat.types import TransitionData
from oat.utils.data import TransitionDataset
from typing_extensions import override


@dataclass
class GameTransition(TransitionData):
    env_id: str = ""


class GameTransitionDataset(TransitionDataset):
    @override
    def __init__(self, buffer, tokenizer, strategy, **kwargs) -> None:
        super().__init__(buffer, tokenizer, strategy, **kwargs)
        for transition, source in zip(self.transitions, buffer):
            transition["env_id"] = source.env_id

    @override
    def collate_fn(self, item_list):
        batch = super().collate_fn(item_list)
        batch["env_ids"] = [item["env_id"] for item in item_list]
        return batch
