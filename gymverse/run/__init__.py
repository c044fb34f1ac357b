"""The run core: what every trainer stands on (the native one in ``gymverse/train/``, the OAT backend in
``gymverse/oat/``, GenEnv's co-evolution in ``gymverse/genenv/``, and the experiments built on them).

* ``config``: ``RunConfig``, the flags every trainer reads the same way, their checks and what follows
  from them (training and evaluation ids, evaluation levels and settings), and
  ``LoopConfig``, the flags of the in-process run loop;
* ``prepare``: the checks every command that trains runs before it loads anything (values, ``--env_dir``
  folders, ids), naming flags as the user typed them;
* ``loop``: ``RunLoop``, the run loop of the in-process trainers (resume, seeding, wandb, progress,
  evaluation and save cadence, Ctrl-C, trainer state, figure); each trainer supplies its step;
* ``update``: ``PolicyUpdate``, the PPO-clip update step of an in-process model;
* ``logprobs``: the training-time scorer, log-probabilities of sampled replies under the model being trained;
* ``plan``: one step's plan: which environments it plays (``plan_step``), playing until the step's
  share of turns (``play_until``), the turns to learn from with their returns (``turn_samples``,
  ``take``), and the seeds of the games;
* ``env_table``: per-environment tallies and PERPO advantages as arrays ranks can sum;
* ``files``: ``RunFiles``, the run folder's logs with GymVerse's names and fields;
* ``checkpoints``: run folders, Hugging Face checkpoints, the state a resumed run continues from;
* ``online_eval``: the online evaluation on games (``--eval_*`` flags) both trainers run;
* ``figures``: training curves and the before/after evaluation table.

The curriculum driver, the one source of a run's complexity, is ``gymverse.curriculum.driver``. Nothing here
imports a trainer or OAT.
"""
