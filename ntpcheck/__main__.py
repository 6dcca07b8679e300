"""``python -m ntpcheck``: the same as the ``ntpcheck`` command."""

import sys

from ntpcheck.app.cli import main

sys.exit(main())
