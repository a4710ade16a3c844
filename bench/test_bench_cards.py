"""Benchmarks of the card pipeline: parse+validate all data, compile, install into the core."""
from advisor.cards.compiler import compile_database, install
from advisor.cards.database import load_database


def test_load_database(benchmark):
    benchmark(lambda: load_database.__wrapped__("base"))


def test_compile_database(benchmark):
    db = load_database("base")
    benchmark(compile_database, db)


def test_install_tables(benchmark):
    t = compile_database(load_database("base"))
    benchmark(install, t)
