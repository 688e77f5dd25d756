import os

from hypothesis import HealthCheck, settings

# A few hundred examples per property everywhere, CI included; "dev" is quicker.
settings.register_profile("default", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
