"""Drawing a game as one player sees it, in 80 columns of text, with optional colour.

`render(obs, viewer, ...)` draws the table from `viewer`'s observation (`Game.observation`): the
round, display, objectives, guild tile, then each seat's mat (the viewer's hand card by card; the
Automa's tally in a solo game). Every line fits 80 columns; with `colour=True` ANSI styles are added
to finished lines, so they never change the layout (click strips them when output is no terminal)."""
from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import click

from advisor.cards import load_database
from advisor.cards.database import Cave, Database, Dragon
from advisor.cards.describe import count as count_text
from advisor.cards.describe import effect as effect_text
from advisor.cards.describe import sentence

CAVES = ("crimson", "golden", "amethyst")
RES = ("meat", "gold", "crystal", "milk")
COL_W = 17
WIDTH = 80
CAVE_COLOURS = {"crimson": "red", "golden": "yellow", "amethyst": "magenta"}
RES_COLOURS = {"meat": "red", "gold": "yellow", "crystal": "cyan", "milk": "white"}


def _dragon(db: Database, n: int, width: int = COL_W - 1) -> str:
    return db.dragons[n - 1].name[:width] if n else ""


def crop(text: str, width: int = WIDTH) -> str:
    """`text` cut to `width` columns, with an ellipsis when cut."""
    return text if len(text) <= width else text[:width - 1].rstrip() + "…"


def _wrap(text: str, indent: str = "    ", first: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=indent,
                         break_on_hyphens=False) or [first]


def _space(db: Database, P: dict[str, Any], c: int, k: int) -> tuple[str, str]:
    """Two lines for one space of a mat: the dragon, then its cave card and counters."""
    d = P["dragons"][c][k]
    top = _dragon(db, d) if d else ("." if k == 0 or P["caves"][c][k] else "#")
    bits = []
    if P["caves"][c][k]:
        bits.append(f"c{P['caves'][c][k]}")
    if d:
        cap = db.dragons[d - 1].capacity
        if P["eggs"][c][k] or cap:
            bits.append(f"{P['eggs'][c][k]}/{cap}e")
        cached = P["cached"][c][k]
        for r, n in zip(RES, cached, strict=True):
            if n:
                bits.append(f"{n}{r[:2]}")
        if P["tucked"][c][k]:
            bits.append(f"{P['tucked'][c][k]}t")
        if P["grown"][c][k]:
            bits.append("grown")
    return top, " ".join(bits)


def cost_text(card: Dragon) -> str:
    """A dragon's printed cost, e.g. `1 meat 2 gold` (coins and eggs included), or `free`."""
    return " ".join(plural(n, k) if k in ("coin", "egg") else f"{n} {k}" for k, n in card.cost.items() if n) or "free"


def ability_text(card: Dragon | Cave) -> str:
    """The card's abilities in one line (its full description, without the feeding note)."""
    from advisor.cards import describe_card
    return describe_card(card)


def hand_dragon_line(db: Database, n: int) -> str:
    d = db.dragons[n - 1]
    caves = "/".join(c[:4] for c in d.caves)
    return crop(f"  {d.name} ({d.vp} VP, {d.size}, {d.personality}, {cost_text(d)}; {caves}): "
                f"{ability_text(d)}")


def hand_cave_line(db: Database, n: int) -> str:
    return crop(f"  c{n}: {ability_text(db.caves[n - 1])}")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _res_text(resources: Sequence[int]) -> str:
    return " ".join(f"{n} {r}" for r, n in zip(RES, resources, strict=True) if n) or "no resources"


def _seat_name(p: int, viewer: int, names: Sequence[str] | None) -> str:
    label = names[p] if names and p < len(names) and names[p] else f"P{p}"
    return label + (" (you)" if p == viewer else "")


def _objective_lines(db: Database, obs: Mapping[str, Any]) -> list[str]:
    out = ["Objectives"]
    now = obs["round"]
    for r, (t, s) in enumerate(zip(obs["objective_tiles"], obs["objective_sides"], strict=True)):
        tile = db.objectives[t]
        side = tile.a if s == 0 else tile.b
        vp = "/".join(str(v) for v in db.objective_vp[r])
        mark = ">" if r == now and obs["phase"] != "over" else " "
        out += _wrap(f"{mark} R{r + 1} {t + 1}{'ab'[s]} ({vp} VP): most {count_text(side.count)}",
                     indent="      ", first="")
    return out


def _guild_lines(db: Database, obs: Mapping[str, Any], viewer: int, names: Sequence[str] | None) -> list[str]:
    tile = db.guild_tiles[obs["guild_tile"]]
    vps = db.guild["fixed_vp_spot"]["vp"]
    k = obs.get("fixed_count", 0)
    nxt = vps[min(k, len(vps) - 1)]
    out = [crop(f"Guild: {tile.name}  (fixed-VP spot: {plural(k, 'marker')}, next scores {nxt})")]
    for a, ab in enumerate(tile.abilities):
        spots = [s - 1 for s in obs["guild_spots"][a] if s]
        free = max(0, ab.uses - len(spots))
        who = " ".join([names[q] if names and q < len(names) else f"P{q}" for q in spots] + ["--"] * free)
        end = "end: " if ab.effect.timing == "end_game" else ""
        out += _wrap(f"  {a + 1} [{who}] {end}{sentence(effect_text(ab.effect.program))}", indent="      ")
    return out


def _player_lines(db: Database, obs: Mapping[str, Any], p: int, viewer: int, scores: Sequence[int] | None,
                  names: Sequence[str] | None) -> list[str]:
    P = obs["players"][p]
    out = []
    flags = " passed" if P["passed"] else ""
    score = f"{scores[p]} VP now, " if scores else ""
    obj = "/".join(str(v) for v in P["objective_vp"][:obs["n_scored"]])
    head = (f"{_seat_name(p, viewer, names)}{flags}: {score}{plural(P['coins'], 'coin')}, {_res_text(P['resources'])}, "
            f"nest eggs {P['nest_eggs']}, guild {P['guild_steps']} ({plural(P['markers_left'], 'marker')})"
            + (f", objectives {obj}" if obj else ""))
    out += _wrap(head)
    for c in range(3):
        cells = [_space(db, P, c, k) for k in range(4)]
        out.append(f"  {CAVES[c][:4]:4} " + "".join(f"{t:<{COL_W}}" for t, _ in cells).rstrip()
                   + (f"  x{P['explores'][c]}" if P["explores"][c] else ""))
        extra = "".join(f"{b:<{COL_W}}" for _, b in cells).rstrip()
        if extra:
            out.append("       " + extra)
    if p == viewer:
        out.append(f"  hand: {plural(len(P['hand_dragons']), 'dragon')}, {plural(len(P['hand_caves']), 'cave')}")
        out += [hand_dragon_line(db, d) for d in P["hand_dragons"]]
        out += [hand_cave_line(db, c) for c in P["hand_caves"]]
    else:
        known = [db.dragons[d - 1].name for d in P["hand_dragons"]]
        line = (f"hand: {plural(P['n_hand_dragons'], 'dragon')}, {plural(P['n_hand_caves'], 'cave')}"
                + (f" (known: {', '.join(known)})" if known else ""))
        out += _wrap(line, first="  ")
    return out


def _automa_lines(db: Database, obs: Mapping[str, Any], scores: Sequence[int] | None,
                  names: Sequence[str] | None) -> list[str]:
    A = obs["automa"]
    P = obs["players"][1]
    name = names[1] if names and len(names) > 1 and names[1] else "Automa"
    score = f"{scores[1]} VP now, " if scores else ""
    corners = [db.automa_cards[k].corner for k in A["deck"][:A["next"]]]
    coins = " ".join(f"R{r + 1} {v}" for r, v in enumerate(A["objective_coins"][:obs["round"] + 1]))
    obj = "/".join(str(v) for v in P["objective_vp"][:obs["n_scored"]])
    text = (f"{name} (level {A['level']}){' passed' if P['passed'] else ''}: {score}"
            f"{plural(A['dragons'], 'dragon')}, {plural(A['caves'], 'cave')}, guild {P['guild_steps']} "
            f"({A['markers']} marker{'' if A['markers'] == 1 else 's'} ready), cards "
            f"{A['next']}/{A['playable']} this round" + (f" ({', '.join(corners)})" if corners else "")
            + f", objective coins {coins}" + (f", objectives {obj}" if obj else ""))
    return _wrap(text)


def render(obs: Mapping[str, Any], viewer: int, printing: str = "base", scores: Sequence[int] | None = None,
           colour: bool = False, names: Sequence[str] | None = None) -> str:
    """The table from `viewer`'s observation (Game.observation). `scores`: each seat's score if
    the game ended now; `names`: a label per seat (default P0, P1, ...)."""
    db = load_database(printing)
    out = []
    if names is None:
        names = [f"P{p}" for p in range(len(obs["players"]))]
        if obs.get("automa"):
            names[1] = "Automa"
    phase = obs["phase"]
    if phase == "over":
        state = "game over"
    else:
        who = _seat_name(obs["active"], viewer, names)
        state = f"{who} to play" if phase == "turn" else phase
    out.append(f"Round {obs['round'] + 1} of 4, start player {_seat_name(obs['start_player'], -1, names)}, "
               f"{state}")
    out += _wrap("Display: " + " | ".join(f"{i + 1} {_dragon(db, d, 29) or '-'}"
                                         for i, d in enumerate(obs["display_dragons"])), indent="         ")
    out.append("         caves: " + " | ".join(f"{i + 1} c{c}" if c else f"{i + 1} -"
                                               for i, c in enumerate(obs["display_caves"]))
               + f"   deck: {obs.get('n_deck_dragons', '?')} dragons, {obs.get('n_deck_caves', '?')} caves")
    out += _objective_lines(db, obs)
    out += _guild_lines(db, obs, viewer, names)
    automa = obs.get("automa")
    for p in range(len(obs["players"])):
        out.append("")
        if automa and p == 1:
            out += _automa_lines(db, obs, scores, names)
        else:
            out += _player_lines(db, obs, p, viewer, scores, names)
    lines = [line if len(line) <= WIDTH else crop(line) for line in out]
    if colour:
        lines = [colourize(line) for line in lines]
    return "\n".join(lines)


_WORDS = re.compile(r"\b(crimson|golden|amethyst|crim|gold|amet|meat|crystal|milk)\b")
_WORD_COLOURS = {**CAVE_COLOURS, "crim": "red", "gold": "yellow", "amet": "magenta", **RES_COLOURS}


def colourize(line: str) -> str:
    """ANSI colour for one finished line: headings bold (the viewer's green), caves and resources in
    their colours. Only styles are added: the visible text (and so the layout) is unchanged."""
    if line.startswith("Round "):
        return click.style(line, bold=True)
    head, sep, rest = line.partition(":")
    if sep and line[:1] not in (" ", "") and len(head) < 40:
        return click.style(head + sep, bold=True, fg="green" if "(you)" in head else None) + _colour_words(rest)
    return _colour_words(line)


def _colour_words(text: str) -> str:
    return _WORDS.sub(lambda m: click.style(m.group(0), fg=_WORD_COLOURS[m.group(0)]), text)
