"""Reports: the statistics of a tournament's games as text, JSON-ready dicts and a chart, and the
report on recorded games (`advisor report FILE...`): the results files of one or more tournaments
of one kind of game, read together (plain or gzip), their agents compared on the deals they share,
and where each agent's points come from.

Games of several files are matched by their deal's seed, so two tournaments planned with the same
seed, seats and Automa level (two runs of one command on different code, say) compare deal by deal.
One command's games played with different settings (a default changed between the runs) are told
apart as two tournaments."""
from __future__ import annotations

import io
import json
import os
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Sequence

from advisor.figures import signed
from advisor.files import FileError, replace_file
from advisor.search.params import defaults
from advisor.tournaments.plan import Plan, TournamentError
from advisor.tournaments.records import SCORE_PARTS, ResultsFileError, load_results
from advisor.tournaments.statistics import summarize


# ---------------------------------------------------------------------------------- a tournament
def tournament_report(plan: Plan, records: dict[str, dict[str, Any]] | list[dict[str, Any]],
                      bootstrap: int = 200) -> dict[str, Any]:
    """The statistics of a tournament's finished games (docs/tournaments.md)."""
    recs = list(records.values()) if isinstance(records, dict) else list(records)
    keys = plan.keys()
    recs = [r for r in recs if r["key"] in keys]
    ok = [r for r in recs if not r.get("error")]
    errors = [r for r in recs if r.get("error")]
    stats = summarize(ok, errors, plan.agents, plan.players, plan.automa, bootstrap=bootstrap)
    return {
        "tournament": plan.id, "players": plan.players, "seed": plan.seed, "printing": plan.printing,
        "automa": stats.pop("automa"),
        "planned_games": len(plan.games), "deals": plan.deals, "games": len(ok), "errors": len(errors),
        "missing": len(plan.games) - len(ok) - len(errors), **stats}



# ---------------------------------------------------------------------------------- text and chart
def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _ci_text(v: float | None, ci: Sequence[float] | None, fmt: str = "{:.1f}", scale: float = 1.0) -> str:
    if v is None:
        return "-"
    def form(x: float) -> str:          # a signed figure that rounds to 0 is 0.0, not +0.0 or -0.0
        text = fmt.format(x * scale)
        return text.lstrip("+-") if fmt.startswith("{:+") and not text.strip("+-.0%") else text
    s = form(v)
    if ci is None:
        return s + " (n/a)"
    return f"{s} [{form(ci[0])}, {form(ci[1])}]"


def _rating_text(a: dict[str, Any]) -> str:
    if a["rating"] is not None and a.get("rating_unbounded"):
        return f"{signed(a['rating'], 0)} [unbounded]"
    return _ci_text(a["rating"], a["rating_ci"], "{:+.0f}")


WIDTH = 80                 # text reports fit 80 columns
_PART_HEADS = {"guild": "guild", "dragons": "drag", "end_game": "endgm", "eggs": "eggs", "cached": "cache",
               "tucked": "tuck", "objectives": "obj", "coins": "coins", "items": "items", "caves": "caves",
               "total": "total"}


def _wrap(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False,
                         break_long_words=False) or [""]


def _rows(head: str, rows: list[tuple[str, str]], first: str) -> list[str]:
    """A table whose first column is a name: the name column as wide as the names that fit beside
    the rest; a longer name gets a line of its own, its figures under it (names are never cut)."""
    rest = max([len(head)] + [len(r) for _, r in rows])
    fits = [len(n) for n, _ in rows if len(n) + 2 + rest <= WIDTH]
    w = max([len(first)] + fits)
    out = [f"{first:{w}}  {head}".rstrip()]
    for name, r in rows:
        if len(name) <= w:
            out.append(f"{name:{w}}  {r}".rstrip())
        else:
            out += [name, f"{'':{w}}  {r}".rstrip()]
    return out


def _spec_lines(spec: str, first: str) -> list[str]:
    """An agent spec after `first`, broken after its commas where it is too long for a line."""
    room = max(20, WIDTH - len(first))
    out, line = [], ""
    for part in re.split(r"(?<=[,:])", spec):
        if line and len(line) + len(part) > room:
            out.append(line)
            line = ""
        line += part
    out.append(line)
    return [(first if i == 0 else " " * len(first)) + x for i, x in enumerate(out)]


def report_text(rep: dict[str, Any]) -> str:
    who = (f"solo against the Automa (level {rep['automa']['level']})" if rep.get("automa")
           else f"{rep['players']} players")
    lines = _wrap(f"tournament {rep['tournament']}: {who}, "
                  f"{rep['games']} of {rep['planned_games']} games in {rep['deals']} duplicate deals "
                  f"(seed {rep['seed']}, {rep['printing']} printing), {rep['errors']} error"
                  f"{'s' if rep['errors'] != 1 else ''}")
    return "\n".join(lines + [tables_text(rep)])


def tables_text(rep: dict[str, Any]) -> str:
    """The agents, pairs and the notes under them, of a tournament_report or summarize result, in
    80 columns."""
    lines = []
    agents = rep["agents"]
    # who they are: a spec too long for its line wraps under it
    w = max([5] + [len(a["name"]) for a in agents])
    if w + 22 > WIDTH:
        w = 5
    lines.append(f"{'agent':{w}}  {'games':>5}  {'ms/decision':>11}  spec")
    for a in agents:
        spd = "-" if a["seconds_per_decision"] is None else f"{1000 * a['seconds_per_decision']:.2f}"
        first = f"{a['name']:{w}}  {a['games']:>5}  {spd:>11}  "
        if len(a["name"]) > w:
            lines.append(a["name"])
            first = f"{'':{w}}  {a['games']:>5}  {spd:>11}  "
        lines += _spec_lines(a["spec"], first)
    lines.append("")
    lines += _rows(f"{'win rate [95% CI]':22}  {'mean score [95% CI]':20}  rating [95% CI]",
                   [(a["name"], f"{_ci_text(a['win_rate'], a['win_rate_ci'], '{:.1f}%', 100):22}  "
                                f"{_ci_text(a['mean_score'], a['mean_score_ci']):20}  {_rating_text(a)}")
                    for a in agents], "agent")
    for a in agents:
        if a.get("rating_unbounded") and a["rating"] is not None:
            lines += _wrap(f"{a['name']}: {'won' if a['rating_unbounded'] == 'above' else 'lost'} every game, so its "
                           f"rating has no {'upper' if a['rating_unbounded'] == 'above' else 'lower'} bound: the "
                           "prior alone sets the figure shown")
    pairs = [p for p in rep["pairs"] if p["games"]]
    if pairs:
        lines.append("")
        lines += _rows(f"{'games':>5}  {'deals':>5}  {'margin A-B [95% CI]':20}  A ahead of B",
                       [(p["a"] + " vs " + p["b"],
                         f"{p['games']:>5}  {p['deals']:>5}  {_ci_text(p['margin'], p['margin_ci'], '{:+.1f}'):20}  "
                         f"{_ci_text(p['a_ahead'], p['a_ahead_ci'], '{:.1f}%', 100)}") for p in pairs],
                       "pair (A vs B)")
    if rep.get("automa") and rep["automa"]["mean_score"] is not None:
        lines += _wrap(f"the Automa's mean score: {rep['automa']['mean_score']:.1f} (win rate = games won against her)")
    lines.append("")
    lines += _wrap(f"rating: {rep['rating']['model']} on the Elo scale, intervals from {rep['rating']['bootstrap']} "
                   "bootstrap resamples of deals; win rates count a shared win as 1/k")
    if rep["players"] > 1 and any(a["games"] for a in agents):
        # seats count from 0, as everywhere (P0 is the first seat in turn order)
        lines += _wrap("win rate by seat: " + ", ".join(f"P{i} {_pct(x)}" for i, x in enumerate(rep["seat_win_rates"])))
    lines += breakdown_text(rep.get("breakdown") or [], rep["players"])
    for e in rep["error_games"][:10]:
        lines += _wrap(f"error in game {e['key']} (seed {e['seed']}, {', '.join(e['agents'])}): {e['error']}")
    if len(rep["error_games"]) > 10:
        lines.append(f"... and {len(rep['error_games']) - 10} more errors")
    return "\n".join(lines)


def breakdown_text(rows: list[dict[str, Any]], players: int) -> list[str]:
    if not rows:
        return []
    heads = SCORE_PARTS + ("total",)
    table = []
    for r in rows:
        table.append((r["agent"], "".join(f"{r['parts'][h]:6.1f}" for h in heads)))
        if "automa_parts" in r:
            table.append(("  her", "".join(f"{r['automa_parts'][h]:6.1f}" for h in heads)))
    lines = [""] + _wrap("where the points come from (mean VP a game; drag: dragons' printed VP, endgm: "
                         "end-game abilities, cache: cached resources, tuck: tucked cards, obj: round objectives)")
    lines += _rows("".join(f"{_PART_HEADS[h]:>6}" for h in heads), table, "")
    if players == 1:
        lines.append("")
        lines += [x for r in rows for x in _wrap(f"{r['agent']}: margin over her "
                                                 f"{_ci_text(r['margin'], r['margin_ci'], '{:+.1f}')} VP")]
        for r in rows:
            o = r.get("objectives")
            if o:
                lines += _wrap(f"{r['agent']}: round objectives against her, of {o['rounds']}: won {o['won']}, "
                               f"tied {o['tied']}, lost {o['lost']} (by one item {o['lost_by_1']}, "
                               f"by two {o['lost_by_2']})")
    return lines


def plot_report(rep: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """A PNG chart: win rate, mean score and rating per agent with their 95% intervals."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TournamentError("--plot needs matplotlib: pip install 'wyrmspan-advisor[plot]'") from None
    agents = rep["agents"]
    names = [a["name"] for a in agents]
    panels = [("win rate (%)", "win_rate", "win_rate_ci", 100.0), ("mean score", "mean_score", "mean_score_ci", 1.0),
              ("rating (Elo)", "rating", "rating_ci", 1.0)]
    fig, axes = plt.subplots(1, 3, figsize=(12, 0.6 * len(names) + 2.2))
    for ax, (title, key, ckey, scale) in zip(axes, panels, strict=True):
        ys = list(range(len(names)))
        vals = [(a[key] or 0.0) * scale for a in agents]
        lo = [max(0.0, v - a[ckey][0] * scale) if a[ckey] else 0.0 for v, a in zip(vals, agents, strict=True)]
        hi = [max(0.0, a[ckey][1] * scale - v) if a[ckey] else 0.0 for v, a in zip(vals, agents, strict=True)]
        ax.errorbar(vals, ys, xerr=[lo, hi], fmt="o", capsize=4, color="tab:blue")
        ax.set_yticks(ys)
        ax.set_yticklabels(names if ax is axes[0] else [""] * len(names))
        ax.invert_yaxis()
        ax.set_title(title)
        ax.grid(axis="x", alpha=0.3)
    if rep["players"] > 1:
        axes[0].axvline(100.0 / rep["players"], color="grey", ls="--", lw=1)
    fig.suptitle(f"tournament {rep['tournament']}: {rep['games']} games, {rep['players']} players, 95% intervals")
    fig.tight_layout()
    png = io.BytesIO()
    try:
        fig.savefig(png, format="png", dpi=110)
    finally:
        plt.close(fig)
    try:
        replace_file(os.fspath(path), png.getvalue(), "chart")     # matplotlib would not say the disk is full
    except FileError as e:
        raise TournamentError(str(e)) from None


# ---------------------------------------------------------------------------------- results files
@dataclass
class Results:
    """The finished and failed games of some results files, their agents named apart."""
    files: list[str]
    tournaments: list[str]
    players: int
    printing: str
    automa: str | None                 # solo: her level
    agents: list[tuple[str, str]]      # (label, spec); a label is the agent's name, or FILE:name
    ok: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    deals: int = 0


def _kind(rec: dict[str, Any]) -> tuple[Any, Any, Any]:
    return rec.get("players"), rec.get("printing"), (rec.get("automa") or {}).get("level")


def _describe(kind: tuple[Any, Any, Any]) -> str:
    players, printing, level = kind
    who = f"solo games at level {level}" if players == 1 else f"{players}-player games"
    return f"{who} ({printing} printing)"


def _played_as(rec: dict[str, Any]) -> dict[str, str]:
    """The settings each agent of a record played with (a parameter added since the record was
    written played as its default), as agent -> key. By agent, not by seat: a duplicate deal seats
    its agents in every order, and those games are one tournament."""
    base = defaults(solo=rec.get("players") == 1)
    return {s["agent"]: json.dumps(None if s.get("settings") is None else {**base, **s["settings"]}, sort_keys=True)
            for s in rec["seats"]}


def _variant(variants: list[dict[str, str]], played: dict[str, str]) -> int:
    """The index of the variant (agent -> settings) a record's agents agree with, added if none."""
    for v, known in enumerate(variants):
        if all(known.get(a, sig) == sig for a, sig in played.items()):
            known.update(played)
            return v
    variants.append(dict(played))
    return len(variants) - 1


def read_results(paths: Sequence[str | os.PathLike[str]]) -> Results:
    """Read and check the files; a tournament spread over several files counts once, and of a game
    recorded more than once its first finished record stands, else its last error (as on resume)."""
    if not paths:
        raise ResultsFileError("no results file given")
    games: dict[tuple[str, str], dict[str, Any]] = {}
    home: dict[str, str] = {}          # tournament -> the first file holding it
    variants: dict[str, list[dict[str, str]]] = {}  # tournament id -> the settings its agents played
    kind: tuple[Any, Any, Any] | None = None
    first = ""
    for path in paths:
        name = os.fspath(path)
        if os.path.isdir(name):
            raise ResultsFileError(f"{name}: a directory, not a results file")
        if not os.path.exists(name):
            raise ResultsFileError(f"{name}: no such results file")
        records, _, _ = load_results(name)      # a line cut off by a kill is left out
        if not records:
            raise ResultsFileError(f"{name}: no game records")
        for i, rec in enumerate(records, 1):
            needs = ("deal", "game", "seed", "players") + (() if rec.get("error") else
                                                            ("scores", "winners", "decisions", "think_seconds"))
            for k in needs:
                if k not in rec:
                    raise ResultsFileError(f"{name}: record {i} has no {k!r}")
            if kind is None:
                kind, first = _kind(rec), name
            elif _kind(rec) != kind:
                raise ResultsFileError(f"{name}: {_describe(_kind(rec))}, but {first} holds {_describe(kind)}; "
                                       "a report compares games of one kind")
            v = _variant(variants.setdefault(rec["tournament"], []), _played_as(rec))
            t = rec["tournament"] if v == 0 else f"{rec['tournament']}.{v}"
            home.setdefault(t, name)
            had = games.get((t, rec["key"]))
            if had is None or had.get("error"):
                games[(t, rec["key"])] = rec
    tournaments = list(home)
    # an agent's label: its name, or FILE:name where tournaments share a name
    names_in: dict[str, list[str]] = {}
    for (t, _), rec in games.items():
        for s in rec["seats"]:
            owners = names_in.setdefault(s["agent"], [])
            if t not in owners:
                owners.append(t)
    stems = _stems([home[t] for t in tournaments])
    stem_of = dict(zip(tournaments, stems, strict=True))
    label: dict[tuple[str, str], str] = {}
    specs: dict[str, str] = {}
    for (t, _), rec in sorted(games.items(), key=lambda kv: (tournaments.index(kv[0][0]), kv[1]["deal"], kv[1]["game"])):
        for s in rec["seats"]:
            lab = s["agent"] if len(names_in[s["agent"]]) == 1 else f"{stem_of[t]}:{s['agent']}"
            label[(t, s["agent"])] = lab
            specs.setdefault(lab, s["spec"])
    deal_of: dict[int, int] = {}
    assert kind is not None                  # some file held a record
    out = Results(files=[os.fspath(p) for p in paths], tournaments=tournaments, players=kind[0], printing=kind[1],
                  automa=kind[2], agents=list(specs.items()))
    # deals numbered in the tournaments' own order, so the bootstrap resamples them as the
    # tournament's report does (the file holds games in the order they finished)
    for (t, key), rec in sorted(games.items(), key=lambda kv: (tournaments.index(kv[0][0]), kv[1]["deal"],
                                                                kv[1]["game"])):
        d = deal_of.setdefault(rec["seed"], len(deal_of))
        rec = {**rec, "key": f"{t}/{key}", "deal": d,
               "seats": [{**s, "agent": label[(t, s["agent"])]} for s in rec["seats"]]}
        (out.errors if rec.get("error") else out.ok).append(rec)
    out.deals = len({r["deal"] for r in out.ok})
    return out


def _stems(files: list[str]) -> list[str]:
    """Short names for files: the file name without .jsonl (or .jsonl.gz), or its position where names repeat."""
    stems = [os.path.basename(f).removesuffix(".gz").removesuffix(".jsonl") for f in files]
    if len(set(stems)) < len(stems):
        return [str(i + 1) for i in range(len(files))]
    return stems


def results_report(res: Results, bootstrap: int = 200) -> dict[str, Any]:
    """The statistics of the games read, as `tournament_report` gives them for one tournament."""
    stats = summarize(res.ok, res.errors, res.agents, res.players, res.automa, bootstrap=bootstrap)
    return {"files": res.files, "tournaments": res.tournaments, "players": res.players, "printing": res.printing,
            "automa": stats.pop("automa"), "deals": res.deals, "games": len(res.ok), "errors": len(res.errors),
            **stats}


def results_text(rep: dict[str, Any]) -> str:
    who = (f"solo against the Automa (level {rep['automa']['level']})" if rep["players"] == 1
           else f"{rep['players']} players")
    n_t, n_f = len(rep["tournaments"]), len(rep["files"])
    lines = _wrap(f"{n_f} file{'s' if n_f != 1 else ''}, {n_t} tournament{'s' if n_t != 1 else ''}: {who}, "
                  f"{rep['games']} games in {rep['deals']} deals ({rep['printing']} printing), {rep['errors']} error"
                  f"{'s' if rep['errors'] != 1 else ''}")
    return "\n".join(lines + [tables_text(rep)])
