"""``python -m gymverse.genenv``: the same as ``gymverse genenv``."""

import sys

from gymverse.genenv.cli import main

sys.exit(main(prog="python -m gymverse.genenv"))
