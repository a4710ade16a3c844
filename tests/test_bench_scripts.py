"""bench/iteration_rates.py: the rates of search settings side by side, and the count a time buys
(docs/strength.md's 1 s counts are measured by it)."""
import re

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
