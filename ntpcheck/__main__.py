"""``python -m ntpcheck``: the same as the ``ntpcheck`` command (:mod:`ntpcheck.app.cli.command`)."""

import sys

from ntpcheck.app.cli.command import main

sys.exit(main())
