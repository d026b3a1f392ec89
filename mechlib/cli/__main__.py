"""``python -m mechlib.cli``: the ``mechlib`` command."""

import sys

from mechlib.cli import main

sys.exit(main())
