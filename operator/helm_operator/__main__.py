"""`python -m helm_operator run`."""
from __future__ import annotations

import sys

from helm_operator import main

sys.exit(main.main())
