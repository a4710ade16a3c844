"""How fast `advisor serve` answers a game's state while "what now?" searches (target: under 100 ms).

Starts `advisor serve --port 0` on a scratch games directory, follows a 2-player game to the
viewer's first turn, times state requests idle, then during a search of `--seconds`, and prints
median, 95th percentile and worst of each.

    python bench/serve_latency.py --seconds 8
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time

import httpx2 as httpx      # the client Starlette's test client uses (the test extra)


def times(c: httpx.Client, path: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        c.get(path).raise_for_status()
        out.append((time.perf_counter() - t) * 1000)
        time.sleep(0.05)
    return sorted(out)


def line(name: str, xs: list[float]) -> str:
    return (f"{name}: n={len(xs)} median {statistics.median(xs):.1f} ms, "
            f"p95 {xs[int(0.95 * len(xs)) - 1]:.1f} ms, max {xs[-1]:.1f} ms")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=8.0, help="the search's time")
    p.add_argument("--requests", type=int, default=80, help="state requests during the search")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as games:
        server = subprocess.Popen([sys.executable, "-m", "advisor.cli", "serve", "--port", "0", "--games", games],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            m = re.search(r"open (http://\S+?)/", server.stdout.readline())
            assert m, "the server printed no address"
            c = httpx.Client(base_url=m.group(1), timeout=30)
            s = c.post("/api/games", json={"players": 2, "names": ["Ann", "Bob"], "seed": 7}).json()
            while not (s["question"]["you"] and s["table"]["phase"] == "turn" and s["question"]["count"] > 1):
                q = s["question"]
                s = c.post(f"/api/games/{s['id']}/answer",
                           json={"action": q["groups"][0]["options"][0]["action"], "at": q["history"]}).json()
            path = f"/api/games/{s['id']}"
            idle = times(c, path, 40)
            c.post(f"{path}/suggest", json={"seconds": args.seconds}).raise_for_status()
            busy = times(c, path, args.requests)
            with c.stream("GET", f"{path}/suggest/events") as events:
                for _ in events.iter_lines():
                    pass
            print(line("idle", idle))
            print(line(f"during a {args.seconds:g} s search", busy))
        finally:
            server.send_signal(2)
            server.wait(10)


if __name__ == "__main__":
    main()
