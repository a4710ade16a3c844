"""How many seeded games `advisor track` follows to the end: each game is played by greedy seats
(or, `--policy random`, seats that take any legal action) with the engine's own chance, then
replayed through the tracker from one seat's view (tests/track_replay.py: the lines a player at the
table would type), and counted as followed when the viewer's view equals the original's after every
move and the final scores agree.

    python bench/track_scan.py --seeds 40-80 --viewer rotate --workers 2    # viewer seed % players

One line per game (players, seed, viewer, seconds, ok / the first difference / the error), then
the count. A game past --timeout seconds counts as not followed."""
from __future__ import annotations

import argparse
import multiprocessing
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from track_replay import Step, replay  # noqa: E402

from advisor.track.game import TrackedGame  # noqa: E402
from advisor.track.session import comparable  # noqa: E402


class _Slow(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Slow


def follow(players: int, seed: int, viewer: int, policy: str = "greedy") -> str:
    """'ok', or where the tracker's view first differed from the table's."""
    differs: list[str] = []

    def check(step: Step, tg: TrackedGame) -> None:
        if not differs and comparable(tg.observation()) != comparable(step.observation):
            differs.append(f"view differs after P{step.who}'s {step.text!r}")
    tg, end, _ = replay(players, seed, viewer, check=check, policy=policy)
    if differs:
        return differs[0]
    if not (tg.game.is_terminal() and end.is_terminal() and tg.game.scores() == end.scores()):
        return "the final scores differ"
    return "ok"


def _job(job: tuple[int, int, int, int, str]) -> tuple[int, int, int, float, str]:
    """One game of the scan, in a worker: (players, seed, viewer, seconds, result)."""
    players, seed, viewer, timeout, policy = job
    signal.signal(signal.SIGALRM, _alarm)
    t0 = time.perf_counter()
    signal.alarm(timeout)
    try:
        result = follow(players, seed, viewer, policy)
    except _Slow:
        result = f"not done in {timeout} s"
    except Exception as e:          # counted: the tracker stopped on this game
        result = f"{type(e).__name__}: {e}"
    finally:
        signal.alarm(0)
    return players, seed, viewer, time.perf_counter() - t0, result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0-40", help="first-last seed, the last excluded (default 0-40)")
    ap.add_argument("--players", default="1-5", help="player counts, first-last included (default 1-5)")
    ap.add_argument("--viewer", choices=("first", "rotate"), default="first",
                    help="the seat replayed: P0, or seed %% players")
    ap.add_argument("--policy", choices=("greedy", "random"), default="greedy",
                    help="how the table's seats play (default greedy)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds a game may take (default 300)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1); lines keep the order")
    args = ap.parse_args()
    try:
        lo, hi = (int(x) for x in args.seeds.split("-"))
        p0, p1 = (int(x) for x in args.players.split("-"))
    except ValueError:
        ap.error("--seeds and --players are ranges: A-B")
    if args.workers < 1:
        ap.error("--workers is at least 1")
    jobs = [(players, seed, seed % players if args.viewer == "rotate" else 0, args.timeout, args.policy)
            for seed in range(lo, hi) for players in range(p0, p1 + 1)]
    done = followed = 0
    pool = multiprocessing.get_context("fork").Pool(args.workers) if args.workers > 1 else None
    try:
        for players, seed, viewer, seconds, result in (pool.imap(_job, jobs) if pool else map(_job, jobs)):
            done += 1
            followed += result == "ok"
            print(f"{players} {seed} P{viewer} {seconds:.0f}s {result}", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    finally:
        if pool is not None:
            pool.terminate()
    print(f"followed {followed} of {done} games to the end")
    return 0

if __name__ == "__main__":
    sys.exit(main())
