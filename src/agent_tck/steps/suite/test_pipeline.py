"""Component `pipeline`: contracts, rules, safe loading, orchestrator (seed 002, D-10)."""

import pytest
from pytest_bdd import scenarios

from agent_tck.kit.paths import FEATURES

pytestmark = pytest.mark.component("pipeline")

scenarios(str(FEATURES / "pipeline"))
