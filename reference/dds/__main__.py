"""`python -m reference.dds serve|ask ...`."""

import sys

from reference.dds.cli import main

sys.exit(main())
