"""GenEnv co-evolution: an environment policy that writes tasks at the edge of the agent's ability.

The environment policy writes tasks (game specs, or new rows of a GenEnv parquet dataset); the agent
attempts each task ``n`` times; the agent's success rate ``p`` pays the environment policy
(:mod:`gymverse.genenv.rewards`) and the agent is paid by the games or by a reward manager
(:mod:`gymverse.genenv.reward_managers`; GenEnv's own classes as :mod:`gymverse.genenv.utils`). GenEnv's
command keys become flags in :mod:`gymverse.genenv.keys`; ``scripts/run_genenv.sh`` is GenEnv's launch script.
"""
