"""Component `runner`: ParseSignal, the Claude runner, the agent loop (seed 004, D-9)."""

import pytest
from pytest_bdd import scenarios

from agent_tck.kit.paths import FEATURES

pytestmark = [pytest.mark.component("runner"), pytest.mark.timeout(60)]

scenarios(str(FEATURES / "runner"))
