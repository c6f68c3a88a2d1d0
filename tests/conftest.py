"""Test-suite settings. Hypothesis profiles: ``ci`` (default, quick) and ``long``
(``HYPOTHESIS_PROFILE=long``) for the fuzzing runs documented in docs/."""

import os

from hypothesis import HealthCheck, settings

# ci: derandomized, so a run of the suite is reproducible and CI cannot turn red by luck;
# the long profile (tools/fuzz.py, docs/fuzzing.md) explores with fresh seeds instead.
settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=100_000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
