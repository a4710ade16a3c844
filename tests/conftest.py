import pytest

from advisor.cards import load_database


@pytest.fixture(scope="session")
def db():
    return load_database("base")


@pytest.fixture(scope="session")
def db2025():
    return load_database("2025")
