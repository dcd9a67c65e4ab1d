"""``python -m harness_conformance`` runs the command-line interface."""

import sys

from .cli._main import main

sys.exit(main())
