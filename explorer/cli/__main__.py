"""``python -m explorer.cli`` runs the ``device-explorer`` command (same as the installed script)."""

import sys

from . import main

sys.exit(main())
