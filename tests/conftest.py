"""Test-suite settings. Hypothesis profiles: ``ci`` (default, quick) and ``long``
(``HYPOTHESIS_PROFILE=long``) for the fuzzing runs documented in docs/."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=100_000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
