"""``python -m chancekit`` — same as the ``chancekit`` command."""

import sys

from chancekit.cli.main import main

sys.exit(main())
