"""Reports on recorded games (`advisor report FILE...`): the results files of one or more
tournaments of one kind of game, read together, their agents compared on the deals they share, and
where each agent's points come from.

Games are matched by their deal's seed, so two tournaments planned with the same seed, seats and
Automa level (two runs of one command on different code, say) compare deal by deal. One command's
games played with different settings (a default changed between the runs) are told apart as two
tournaments."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from advisor.search.params import defaults
from advisor.tournament import ResultsFileError, load_results, summarize, tables_text


@dataclass
class Results:
    """The finished and failed games of some results files, their agents named apart."""
    files: list[str]
    tournaments: list[str]
    players: int
    printing: str
    automa: str | None                 # solo: her level
    agents: list[tuple[str, str]]      # (label, spec); a label is the agent's name, or FILE:name
    ok: list[dict] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)
    deals: int = 0


def _kind(rec: dict) -> tuple:
    return rec.get("players"), rec.get("printing"), (rec.get("automa") or {}).get("level")


def _describe(kind: tuple) -> str:
    players, printing, level = kind
    who = f"solo games at level {level}" if players == 1 else f"{players}-player games"
    return f"{who} ({printing} printing)"


def _played_as(rec: dict) -> str:
    """The settings every seat played with (a parameter added since the record was written played
    as its default), as a key."""
    base = defaults(solo=rec.get("players") == 1)
    return json.dumps([None if s.get("settings") is None else {**base, **s["settings"]} for s in rec["seats"]],
                      sort_keys=True)


def read_results(paths) -> Results:
    """Read and check the files; a tournament spread over several files counts once, and of a game
    recorded more than once its first finished record stands, else its last error (as on resume)."""
    if not paths:
        raise ResultsFileError("no results file given")
    games: dict[tuple[str, str], dict] = {}
    home: dict[str, str] = {}          # tournament -> the first file holding it
    variants: dict[str, list[str]] = {}  # a command's tournament id -> the settings its games played
    kind = first = None
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
            played, sig = variants.setdefault(rec["tournament"], []), _played_as(rec)
            if sig not in played:
                played.append(sig)
            v = played.index(sig)
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
    stem_of = dict(zip(tournaments, stems))
    label = {}
    specs: dict[str, str] = {}
    for (t, _), rec in sorted(games.items(), key=lambda kv: (tournaments.index(kv[0][0]), kv[1]["deal"], kv[1]["game"])):
        for s in rec["seats"]:
            lab = s["agent"] if len(names_in[s["agent"]]) == 1 else f"{stem_of[t]}:{s['agent']}"
            label[(t, s["agent"])] = lab
            specs.setdefault(lab, s["spec"])
    deal_of: dict[int, int] = {}
    out = Results(files=[os.fspath(p) for p in paths], tournaments=tournaments, players=kind[0], printing=kind[1],
                  automa=kind[2], agents=list(specs.items()))
    for (t, key), rec in games.items():
        d = deal_of.setdefault(rec["seed"], len(deal_of))
        rec = {**rec, "key": f"{t}/{key}", "deal": d,
               "seats": [{**s, "agent": label[(t, s["agent"])]} for s in rec["seats"]]}
        (out.errors if rec.get("error") else out.ok).append(rec)
    out.deals = len({r["deal"] for r in out.ok})
    return out


def _stems(files: list[str]) -> list[str]:
    """Short names for files: the file name without .jsonl, or its position where names repeat."""
    stems = [os.path.basename(f).removesuffix(".jsonl") for f in files]
    if len(set(stems)) < len(stems):
        return [str(i + 1) for i in range(len(files))]
    return stems


def results_report(res: Results, bootstrap: int = 200) -> dict:
    stats = summarize(res.ok, res.errors, res.agents, res.players, res.automa, bootstrap=bootstrap)
    return {"files": res.files, "tournaments": res.tournaments, "players": res.players, "printing": res.printing,
            "automa": stats.pop("automa"), "deals": res.deals, "games": len(res.ok), "errors": len(res.errors),
            **stats}


def results_text(rep: dict) -> str:
    who = (f"solo against the Automa (level {rep['automa']['level']})" if rep["players"] == 1
           else f"{rep['players']} players")
    n_t, n_f = len(rep["tournaments"]), len(rep["files"])
    lines = [f"{n_f} file{'s' if n_f != 1 else ''}, {n_t} tournament{'s' if n_t != 1 else ''}: {who}, "
             f"{rep['games']} games in {rep['deals']} deals ({rep['printing']} printing), {rep['errors']} error"
             f"{'s' if rep['errors'] != 1 else ''}", tables_text(rep)]
    return "\n".join(lines)
