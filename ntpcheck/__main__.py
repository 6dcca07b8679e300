"""``python -m ntpcheck``: the same as the ``ntpcheck`` command.

Ctrl-C is handled from the first moment (:mod:`ntpcheck.interrupt`), also while
the command line's modules load: one line and exit 130, never a traceback.
"""

import sys

from ntpcheck import interrupt

interrupt.install()
try:
    from ntpcheck.app.cli import main
except KeyboardInterrupt:
    print("ntpcheck: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
