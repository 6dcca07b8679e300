"""``python -m ntpcheck``: the same as the ``ntpcheck`` command (:mod:`ntpcheck.app.command`)."""

import sys

from ntpcheck.app.command import main

sys.exit(main())
