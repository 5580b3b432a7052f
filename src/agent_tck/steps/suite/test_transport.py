"""Component `transport`: the agent served over DDS (seed 000 "via DDS RPC", decisions)."""

import pytest
from pytest_bdd import scenarios

from agent_tck.kit.paths import FEATURES

pytestmark = pytest.mark.component("transport")

scenarios(str(FEATURES / "transport"))
