"""Wyrmspan AI opponent and move advisor."""
__version__ = "0.1.0"
