import os
import signal

import pytest
from hypothesis import settings

from advisor.cards import load_database

# Property tests run the same examples every time (CI must not be flaky); set
# HYPOTHESIS_PROFILE=explore to search fresh examples while developing.
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# A shell without job control starts a background command with Ctrl-C ignored, and Python then
# leaves it ignored; the interrupt tests send real SIGINTs to this process and to the commands it
# starts (which would inherit the ignoring), so the tests take Ctrl-C as a terminal gives it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def db():
    return load_database("base")


@pytest.fixture(scope="session")
def db2025():
    return load_database("2025")
