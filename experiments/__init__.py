"""The papers' findings in miniature: one module per study (``python -m experiments.<study>``), all on
``experiments.harness``."""
