"""``python -m explorer.cli`` runs the ``device-explorer`` command (same as the installed script)."""

import sys

from explorer.cli import main

sys.exit(main())
