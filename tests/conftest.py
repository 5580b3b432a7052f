"""Hypothesis without its wall-clock checks: a per-example deadline and the "input generation
is slow" health check measure how busy the machine is, not the property under test."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "agent-tck", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=5000
)  # on demand: pytest tests/test_fuzz.py --hypothesis-profile deep
settings.load_profile("agent-tck")
