"""What every game the server keeps has: its id (its file's name), the seats' names, and when it
was made and last saved."""
from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Kept:
    id: str
    names: list[str]            # one per engine seat, in seat order (the Automa's too)
    created: float = field(default_factory=time.time, kw_only=True)
    updated: float = field(default_factory=time.time, kw_only=True)
