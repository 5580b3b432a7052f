"""`python -m agent_tck`: the `agent-tck` command line."""

from agent_tck.kit.cli import main

raise SystemExit(main())
