"""``python -m cardlang``: the same as the ``cardlang`` command."""

import sys

from cardlang.cli.main import main

sys.exit(main())
