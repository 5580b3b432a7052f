"""Component `responses`: the OpenAI Responses API parser (seed 003, decision D-8)."""

import pytest
from pytest_bdd import scenarios

from agent_tck.kit.paths import FEATURES

pytestmark = pytest.mark.component("responses")

scenarios(str(FEATURES / "responses"))
