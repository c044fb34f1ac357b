"""The native PERPO trainer: its flags, its command line and its step on the run loop (``gymverse.run.loop``);
``backend`` picks it or the OAT backend for ``gymverse train``."""
