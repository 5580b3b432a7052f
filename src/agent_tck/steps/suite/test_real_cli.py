"""Component `real-cli`: the agent drives the real, pinned CLIs against a scripted model."""

import pytest
from pytest_bdd import scenarios

from agent_tck.kit.paths import FEATURES

pytestmark = pytest.mark.component("real-cli")

scenarios(str(FEATURES / "real-cli"))
