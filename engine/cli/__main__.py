"""`python -m engine.cli ...`: the command line (engine/cli/__init__.py main)."""

import sys

from engine.cli import main

sys.exit(main())
