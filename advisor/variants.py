"""The game's variants, defined once: card printings, player counts and the Automa's levels.

The core (ext/engine/), position files, saves, agent specs and every command read them here."""
from __future__ import annotations

PRINTINGS = ("base", "2025")                    # Core.printing 0, 1
MIN_PLAYERS, MAX_PLAYERS = 1, 5                 # 1: solo against the Automa
AUTOMA_LEVELS = ("1", "2", "3", "R1", "R2", "R3")   # Core.automa_level 1..6 (R: Ravel)
