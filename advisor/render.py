"""Drawing a game as one player sees it, in 80 columns of plain text (colour added by the caller)."""
from __future__ import annotations

import textwrap

from advisor.cards import load_database

CAVES = ("crimson", "golden", "amethyst")
RES = ("meat", "gold", "crystal", "milk")
COL_W = 17


def _dragon(db, n: int, width: int = COL_W - 1) -> str:
    return db.dragons[n - 1].name[:width] if n else ""


def _space(db, P: dict, c: int, k: int) -> tuple[str, str]:
    """Two lines for one space of a mat: the dragon, then its cave card and counters."""
    d = P["dragons"][c][k]
    top = _dragon(db, d) if d else ("." if k == 0 or P["caves"][c][k] else "#")
    bits = []
    if P["caves"][c][k]:
        bits.append(f"c{P['caves'][c][k]}")
    if d:
        if P["eggs"][c][k]:
            bits.append(f"{P['eggs'][c][k]}e")
        cached = P["cached"][c][k]
        for r, n in zip(RES, cached):
            if n:
                bits.append(f"{n}{r[:2]}")
        if P["tucked"][c][k]:
            bits.append(f"{P['tucked'][c][k]}t")
        if P["grown"][c][k]:
            bits.append("grown")
    return top, " ".join(bits)


def render(obs: dict, viewer: int, printing: str = "base", scores: list | None = None) -> str:
    """The table from `viewer`'s observation (Game.observation)."""
    db = load_database(printing)
    out = []
    tiles = ", ".join(f"R{r + 1}: {t + 1}{'ab'[s]}" for r, (t, s) in
                      enumerate(zip(obs["objective_tiles"], obs["objective_sides"])))
    out.append(f"Round {obs['round'] + 1}  start player P{obs['start_player']}  "
               f"guild tile {obs['guild_tile'] + 1}  objectives {tiles}")
    out.append("Display: " + " | ".join(_dragon(db, d, 20) or "-" for d in obs["display_dragons"])
               + "  caves: " + " ".join(f"c{c}" if c else "-" for c in obs["display_caves"]))
    for p, P in enumerate(obs["players"]):
        me = " (you)" if p == viewer else ""
        flags = " passed" if P["passed"] else ""
        res = " ".join(f"{n} {r}" for r, n in zip(RES, P["resources"]) if n) or "no resources"
        score = f"  score now {scores[p]}" if scores else ""
        out.append("")
        out.append(textwrap.fill(f"P{p}{me}{flags}: {P['coins']} coins, {res}, nest eggs {P['nest_eggs']}, "
                                 f"guild {P['guild_steps'] % 12} ({P['markers_left']} markers){score}",
                                 80, subsequent_indent="    "))
        for c in range(3):
            cells = [_space(db, P, c, k) for k in range(4)]
            out.append(f"  {CAVES[c][:4]:4} " + "".join(f"{t:<{COL_W}}" for t, _ in cells).rstrip()
                       + (f"  x{P['explores'][c]}" if P["explores"][c] else ""))
            extra = "".join(f"{b:<{COL_W}}" for _, b in cells).rstrip()
            if extra:
                out.append("       " + extra)
        if p == viewer:
            hand = ", ".join(db.dragons[d - 1].name for d in P["hand_dragons"]) or "no dragons"
            line = f"hand: {hand}; caves: " + (", ".join(f"c{c}" for c in P["hand_caves"]) or "none")
            out.append(textwrap.fill(line, 80, initial_indent="  ", subsequent_indent="    "))
        else:
            known = [db.dragons[d - 1].name for d in P["hand_dragons"]]
            line = (f"hand: {P['n_hand_dragons']} dragons, {P['n_hand_caves']} caves"
                    + (f" (known: {', '.join(known)})" if known else ""))
            out.append(textwrap.fill(line, 80, initial_indent="  ", subsequent_indent="    "))
    return "\n".join(line if len(line) <= 80 else textwrap.fill(line, 80, subsequent_indent="    ")
                     for line in out)
