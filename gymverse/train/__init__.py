"""The native PERPO trainer: flags, run files, checkpoints and resume, the training loop, SFT warm start."""
