"""GenEnv co-evolution: an environment policy that writes tasks at the edge of the agent's ability.

The environment policy writes tasks (game specs, or new rows of a GenEnv parquet dataset); the agent
attempts each task ``n`` times; the agent's success rate ``p`` pays the environment policy
(:mod:`gymverse.genenv.rewards`) and the agent is paid by the games or by a reward manager
(:mod:`gymverse.genenv.reward_managers`).
"""
