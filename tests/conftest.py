import os

import pytest
from hypothesis import settings

from advisor.cards import load_database

# Property tests run the same examples every time (CI must not be flaky); set
# HYPOTHESIS_PROFILE=explore to search fresh examples while developing.
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def db():
    return load_database("base")


@pytest.fixture(scope="session")
def db2025():
    return load_database("2025")
