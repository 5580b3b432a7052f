"""Component `backends`: parse_line of each backend on real-format lines (D-1, D-2)."""

import pytest
from pytest_bdd import scenarios

from agent_tck.kit.paths import FEATURES

pytestmark = pytest.mark.component("backends")

scenarios(str(FEATURES / "backends"))
