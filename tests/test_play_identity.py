"""Play identity: refactors must not change how the search plays.

Pinned in tests/golden/play_identity.json: for the solo and the multiplayer defaults, the root
visit counts (and mean scores) of a 2,000-iteration search with seed 1 on every shipped example,
and the scores of short seeded tournaments at fixed iterations (solo and 2 players). After an
intended change of play, rewrite with `GOLDEN_UPDATE=1 python -m pytest tests/test_play_identity.py`
and say why in the commit."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from advisor.search.params import defaults
from advisor.positions import load_position
from advisor.search import Limit, analyse
from advisor.tournaments.plan import plan_tournament
from advisor.tournaments.runners import run_tournament

ROOT = Path(__file__).parent.parent
GOLDEN = Path(__file__).parent / "golden" / "play_identity.json"
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.toml"))
SEARCHES = [(ex, kind) for ex in EXAMPLES for kind in ("solo", "multiplayer")]
TOURNAMENTS = {
    "solo": dict(agents=[("a", "ismcts:iterations=300")], players=1, games=3, seed=5),
    "2p": dict(agents=[("a", "ismcts:iterations=300"), ("greedy", "greedy")], players=2, games=4, seed=5),
}


def _golden() -> dict:
    return json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}


def _check(key: str, value) -> None:
    data = _golden()
    if os.environ.get("GOLDEN_UPDATE"):
        data[key] = value
        GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    assert key in data, f"{key} is not pinned in {GOLDEN}: run with GOLDEN_UPDATE=1"
    assert value == data[key]


def _settings(kind: str) -> dict:
    s = defaults(solo=kind == "solo")
    for budget in ("time", "iterations", "workers"):
        s.pop(budget)
    return s


@pytest.mark.parametrize("example,kind", SEARCHES)
def test_root_visits_unchanged(example, kind):
    game = load_position(ROOT / "examples" / example).to_game(1)
    res = analyse(game, _settings(kind), seed=1, limit=Limit(iterations=2000))
    _check(f"suggest {example} {kind}",
           sorted([m.text, m.visits, round(m.score, 6)] for m in res.moves))


@pytest.mark.parametrize("name", sorted(TOURNAMENTS))
def test_tournament_unchanged(name):
    t = TOURNAMENTS[name]
    plan = plan_tournament(t["agents"], t["players"], t["games"], seed=t["seed"])
    records = sorted(run_tournament(plan, workers=1).records.values(), key=lambda r: r["key"])
    _check(f"tournament {name}",
           [[r["key"], r["scores"], (r.get("automa") or {}).get("score"), r["decisions"]] for r in records])
