"""GenEnv's Python API (``genenv.utils``) in gymverse: porting a GenEnv reward file means changing its import line

    from genenv.utils import RewardManager            ->  from gymverse.genenv.utils import RewardManager

and nothing else. The classes live in :mod:`gymverse.genenv.reward_managers` with the other managers.
"""

from gymverse.genenv.reward_managers import ActionRewardManager, RewardManager, ToolCallingRewardManager

__all__ = ["ActionRewardManager", "RewardManager", "ToolCallingRewardManager"]
