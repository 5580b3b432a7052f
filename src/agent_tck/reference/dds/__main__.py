"""`python -m agent_tck.reference.dds serve|ask ...`."""

import sys

from agent_tck.reference.dds.cli import main

sys.exit(main())
