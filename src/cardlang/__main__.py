"""``python -m cardlang``: the same as the ``cardlang`` command."""

import sys

from cardlang.cli import main

sys.exit(main())
