"""bench/iteration_rates.py: the rates of search settings side by side, and the count a time buys
(docs/strength.md's 1 s counts are measured by it). bench/paired_margin.py: one agent's margin over
the best other seat, paired game by game between two files."""
import json
import re

import pytest

from helpers import bench_module


def _lines(capsys, argv):
    bench_module("iteration_rates").main(argv)
    return capsys.readouterr().out.splitlines()


def test_rates_at_a_fixed_count_side_by_side(capsys):
    out = _lines(capsys, ["ismcts:", "ismcts:playout=random", "--players", "2", "--games", "1",
                          "--every", "25", "--iterations", "60"])
    assert re.match(r"\d+ positions \(1 deals from seed 9100, 2 player\(s\)\), 60, 60 iterations each", out[0])
    first, second = out[1:]
    assert first.startswith("ismcts: ") and first.rstrip().endswith("1.000x")
    assert second.startswith("ismcts:playout=random") and "a search" not in second


def test_the_count_a_time_buys(capsys):
    out = _lines(capsys, ["ismcts:", "--players", "2", "--games", "1", "--every", "25", "--seconds", "0.05"])
    assert out[0].endswith("0.05 s each")
    reached = re.search(r"([\d,]+) a search$", out[1])
    assert reached and int(reached.group(1).replace(",", "")) > 0


def _game(deal, game, agents, scores, automa=None):
    rec = {"deal": deal, "game": game, "seats": [{"agent": a} for a in agents], "scores": scores}
    if automa is not None:
        rec["automa"] = {"score": automa}
    return json.dumps(rec)


def test_a_margin_is_paired_seat_by_seat_across_files(capsys, tmp_path):
    new, old, solo_new, solo_old = (tmp_path / f"{n}.jsonl" for n in ("new", "old", "solo_new", "solo_old"))
    # two deals, the agent in a turning seat; the old file has one game more, which is not paired
    new.write_text("\n".join([_game(0, 0, ["n", "g1", "g2"], [80, 70, 75]), _game(0, 1, ["g1", "n", "g2"], [60, 70, 90]),
                              _game(1, 0, ["n", "g1", "g2"], [90, 70, 60]), '{"deal": 1, "game": 1, "error": "x"}']))
    old.write_text("\n".join([_game(0, 0, ["n", "g1", "g2"], [70, 72, 75]), _game(0, 1, ["g1", "n", "g2"], [60, 70, 95]),
                              _game(1, 0, ["n", "g1", "g2"], [70, 70, 60]), _game(1, 1, ["g1", "n", "g2"], [50, 50, 50])]))
    solo_new.write_text(_game(0, 0, ["n"], [100], automa=90) + "\n" + _game(1, 0, ["n"], [80], automa=95))
    solo_old.write_text(_game(0, 0, ["n"], [96], automa=90) + "\n" + _game(1, 0, ["n"], [70], automa=95))
    pm = bench_module("paired_margin")
    pm.main(["--agent", "n", str(new), str(old), str(solo_new), str(solo_old)])
    out = capsys.readouterr().out.splitlines()
    # deal 0: +5 and -20 against -5 and -25 -> +10 and +5, a mean of +7.5; deal 1: +20 against +0
    assert out[0].startswith("new.jsonl against old.jsonl: 3 games, 2 deals; margin +1.7 against -10.0; paired +13.8 [")
    assert out[1].startswith("solo_new.jsonl against solo_old.jsonl: 2 games, 2 deals; margin -2.5 against -9.5; "
                             "paired +7.0 [")
    assert out[2].startswith("pooled: 5 games, 4 deals; margin +0.0 against -9.8; paired +10.4 [")
    for argv, message in ((["--agent", "n", str(new)], "in pairs"),
                          (["--agent", "x", str(new), str(old)], "no finished game of agent 'x'"),
                          (["--agent", "n", str(new), str(tmp_path / "none.jsonl")], "none.jsonl: No such file")):
        with pytest.raises(SystemExit) as e:
            pm.main(argv)
        assert e.value.code == 2 and message in capsys.readouterr().err
