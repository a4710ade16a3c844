"""Figures as the text outputs print them: a signed difference (`+1.4`, `-0.6`) is `0.0` when it
rounds to nothing, never `+0.0` or `-0.0`."""
from __future__ import annotations


def signed(x: float, digits: int = 1, width: int = 0) -> str:
    """`x` with its sign and `digits` decimals, right-aligned in `width`; 0 when it rounds to 0."""
    text = f"{x:+.{digits}f}"
    if float(text) == 0:
        text = f"{0:.{digits}f}"
    return f"{text:>{width}}"
