"""Hypothesis without its wall-clock checks: a per-example deadline and the "input generation
is slow" health check measure how busy the machine is, not the property under test."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "agent-tck", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("agent-tck")
