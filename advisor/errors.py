"""Exception classes. Each carries a one-line message fit to show a user as is."""


class AdvisorError(Exception):
    """Base of every error the advisor reports to a user (exit status 2 in the CLI)."""


class EffectSyntaxError(AdvisorError):
    """An effect program is malformed or uses an operation wrongly."""


class CardDataError(AdvisorError):
    """A card data file is broken: names the file, the card and the field."""


class CardLookupError(AdvisorError):
    """A card name or number does not match exactly one card."""

    def __init__(self, message: str, suggestions: tuple[str, ...] = ()):
        super().__init__(message)
        self.suggestions = suggestions


class IllegalActionError(AdvisorError, ValueError):
    """An action that is not legal at the game's current decision (or the game is over). A
    ValueError too, as the core raised before it had its own class."""


SHOWN = 60      # characters of a user's input an error message repeats


def clip(text: str, limit: int = SHOWN) -> str:
    """`text` as an error message repeats it: at most `limit` characters (a line of a megabyte is
    shown by its start and an ellipsis, never echoed whole)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


class GameStateError(AdvisorError, ValueError):
    """A game state (Game.from_dict's dict, from a save or an edited file) with a field the core
    cannot take: names the field and what is wrong."""
