"""Wyrmspan AI opponent and move advisor.

The compiled core (advisor._core) imports nothing of the package but advisor.errors and
advisor.variants: the package gives it the functions that install the card tables and the
search's learnt numbers, which it calls on first use."""
__version__ = "0.1.0"


def _install_card_tables(printing: str) -> None:
    from advisor.cards import install_core_tables
    install_core_tables(printing)


def _install_search_data() -> None:
    from advisor.search.data import install
    install()


def _install_judge() -> None:
    from advisor.search.data import use_judge
    use_judge()


def _install_distilled() -> None:
    from advisor.search.data import use_distilled
    use_distilled()


def _give_the_core_its_installers() -> None:
    from advisor import _core
    _core.set_installers(_install_card_tables, _install_search_data, _install_judge, _install_distilled)


_give_the_core_its_installers()
