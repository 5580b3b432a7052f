"""Component `agent`: request processing and error handling (seeds 000, 001, decisions)."""

import pytest
from pytest_bdd import scenarios

from agent_tck.kit.paths import FEATURES

pytestmark = pytest.mark.component("agent")

scenarios(str(FEATURES / "agent"))
