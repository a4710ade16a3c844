"""Learn the judge by self-play: TD(lambda), as TD-Gammon and Keldon Jones' Race for the Galaxy AI
did (issue 65, step 1).

The net agent (`advisor tournament --agent net:weights=FILE`: the greedy agent's one-turn lookahead
with a small network as its judge in place of the heuristic) plays whole games in the core, at the
player counts of --players in turn (1: solo against the Automa level 3; 2-5: copies in every seat),
exploring with weighted-policy decisions now and then. Each seat learns from its own successive
positions (where each segment it played in ends, as it sees them): the network's value of every
seat's final score is moved toward the lambda-return of the values that follow, the final scores
closing each game.

  python bench/train_judge.py --out DIR [--games 300000] [--players 1,2] [--start FILE] [--hidden 40]
      [--lam 0.7] [--lr 0.001] [--epsilon 0.05] [--samples 1] [--batch 8] [--checkpoint-every 2000]
      [--curve-every 10000] [--curve-deals 200] [--curve-seed 2026] [--seed 1] [--workers N] [--resume]

DIR/checkpoint.npz  the network, the optimiser's state and the games played, written atomically
                    every --checkpoint-every games and on Ctrl-C; it is a network file, so
                    `net:weights=DIR/checkpoint.npz` plays it. --resume goes on from it with its
                    own settings (--games may be raised).
DIR/curve.jsonl     the learning curve, one line every --curve-every games: the net agent's mean
                    score solo against the Automa level 3, and its wins and margin at 2 players
                    against the greedy agent, on the duplicate deals of tournament seed
                    --curve-seed (the net agent at 4 worlds a decision, as greedy's 4 completions), with the greedy agent's
                    solo mean on the same deals; for each count of 3 or more players trained, its
                    wins and margin over the best other seat with the greedy agent in every other
                    seat (the net agent's seat turning with the deal).
--export FILE       writes the checkpoint's network alone, in float32 (advisor/data/judge.npz's
                    format), with the games and the command that made it.
--workers N         processes playing the games (default: every core) with the learner's current
                    weights; the network is the same at any count (1.4x faster on 2 cores).
--start FILE        a new run goes on from a network file (advisor/data/judge.npz, an export or a
                    checkpoint): its weights and its count of games, with a fresh optimiser; the
                    file's command is kept before this one's.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")     # one process, one core
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import multiprocessing as mp
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import scipy.sparse
from tqdm import tqdm

from advisor import _core
from advisor.search import data
from advisor.search.workers import start_processes
from advisor.tournaments.plan import deal_seed

F = _core.JUDGE_FEATURES
K = _core.JUDGE_OUTPUTS
ARRAYS = ("w1", "b1", "w2", "b2")
LEVEL = "3"                     # the Automa's level in training and in the curve
EVAL_SAMPLES = 4                # the net agent's default, as the greedy agent's
Net = dict[str, np.ndarray]


def fail(message: str) -> NoReturn:
    print(f"train_judge: {message}", file=sys.stderr)
    raise SystemExit(2)


# ---------------------------------------------------------------------------- the network
def new_net(hidden: int, seed: int) -> Net:
    """Small random weights; the outputs start at a typical final score (60 VP)."""
    rng = np.random.default_rng(seed)
    return {"w1": rng.normal(0.0, 0.1, (F, hidden)), "b1": np.zeros(hidden),
            "w2": rng.normal(0.0, 0.1 / np.sqrt(hidden), (K, hidden)), "b2": np.full(K, 0.6)}


def positions_matrix(offsets: np.ndarray, idx: np.ndarray, val: np.ndarray) -> scipy.sparse.csr_matrix:
    """The positions' inputs as rows of a sparse matrix."""
    return scipy.sparse.csr_matrix((val.astype(np.float64), idx, offsets), shape=(len(offsets) - 1, F))


def forward(net: Net, x: scipy.sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """(hidden activations, outputs) of every row, as the core computes them."""
    h = np.tanh(x @ net["w1"] + net["b1"])
    return h, h @ net["w2"].T + net["b2"]


def lambda_targets(v: np.ndarray, seats: np.ndarray, finals: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """The lambda-return of each position of one game and the outputs that count (the seats in
    play): each seat's positions in order, the last one's target the final scores (from that
    seat, / 100), an earlier one's (1 - lam) * the next value + lam * the next target."""
    n = len(finals)
    target = np.zeros_like(v)
    mask = np.zeros_like(v)
    mask[:, :n] = 1.0
    for s in np.unique(seats):
        rows = np.flatnonzero(seats == s)
        nxt = np.zeros(K)
        nxt[:n] = np.roll(finals, -int(s)) / 100.0
        for r in rows[::-1]:
            target[r] = nxt
            nxt = (1.0 - lam) * v[r] + lam * nxt
    return target, mask


def td_gradient(net: Net, x: scipy.sparse.csr_matrix, target: np.ndarray, mask: np.ndarray) -> tuple[Net, float]:
    """The gradient of 0.5 * mean over positions of the squared errors (targets held fixed), and
    that loss."""
    h, v = forward(net, x)
    err = mask * (v - target)
    m = x.shape[0]
    dv = err / m
    dz = (dv @ net["w2"]) * (1.0 - h * h)
    grad = {"w2": dv.T @ h, "b2": dv.sum(0), "w1": np.asarray(x.T @ dz), "b1": dz.sum(0)}
    return grad, 0.5 * float((err * err).sum()) / m


class Adam:
    """Adam on the network's arrays (its moments are part of the checkpoint)."""

    def __init__(self, net: Net, lr: float, state: dict[str, np.ndarray] | None = None):
        self.lr = lr
        self.m = {k: np.zeros_like(net[k]) for k in ARRAYS}
        self.s = {k: np.zeros_like(net[k]) for k in ARRAYS}
        self.t = 0
        if state is not None:
            self.m = {k: state["m_" + k] for k in ARRAYS}
            self.s = {k: state["s_" + k] for k in ARRAYS}
            self.t = int(state["adam_t"])

    def step(self, net: Net, grad: Net) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        for k in ARRAYS:
            self.m[k] = b1 * self.m[k] + (1 - b1) * grad[k]
            self.s[k] = b2 * self.s[k] + (1 - b2) * grad[k] ** 2
            mhat = self.m[k] / (1 - b1 ** self.t)
            shat = self.s[k] / (1 - b2 ** self.t)
            net[k] -= self.lr * mhat / (np.sqrt(shat) + 1e-8)

    def state(self) -> dict[str, np.ndarray]:
        out = {"m_" + k: self.m[k] for k in ARRAYS} | {"s_" + k: self.s[k] for k in ARRAYS}
        out["adam_t"] = np.array(self.t)
        return out


# ---------------------------------------------------------------------------- self-play
def game_seed(seed: int, game: int) -> int:
    """Training deals: apart from any tournament's (a different hash key)."""
    return deal_seed(-1 - seed, game)


def players_of(game: int, settings: dict[str, Any]) -> int:
    """The player count of training game number `game`: the counts of --players in turn (runs
    from before --players alternated solo and 2 players)."""
    counts = settings.get("players", [1, 2])
    return int(counts[game % len(counts)])


def play(game: int, settings: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
    """Training game number `game` with the installed net in every seat (solo: against the
    Automa). (its record, its seats' final scores)"""
    players = players_of(game, settings)
    out = _core.judged_game(players, game_seed(settings["seed"], game), ["net"] * players,
                            automa=LEVEL, samples=settings["samples"], epsilon=settings["epsilon"], record=True)
    return out, np.array(out["scores"], dtype=np.float64)


def _serve(conn: Any, settings: dict[str, Any]) -> None:
    """A worker: plays the games it is sent with the weights sent with them, until sent None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # the learner stops the run; its workers follow
    while True:
        try:
            task = conn.recv()
        except EOFError:                                # the learner is gone
            return
        if task is None:
            return
        net, games = task
        try:
            install(net)
            conn.send([play(g, settings) for g in games])
        except Exception as e:                          # the learner reports it and stops
            conn.send(f"{type(e).__name__}: {e}")


class SelfPlay:
    """Worker processes that play each batch's games with the learner's current weights, as the
    learner alone would (the same games, in the same order: a run is the same at any count)."""

    def __init__(self, workers: int, settings: dict[str, Any]):
        self.settings = settings
        self.conns: list[Any] = []
        self.procs: list[Any] = []
        if workers > 1 and "fork" in mp.get_all_start_methods():      # the workers inherit this module
            self.conns, self.procs = start_processes(workers, _serve, (settings,), "fork")

    def play(self, net: Net, games: list[int]) -> list[tuple[dict[str, Any], np.ndarray]]:
        if not self.conns:
            return [play(g, self.settings) for g in games]
        n = len(self.conns)
        for i, conn in enumerate(self.conns):
            conn.send((net, games[i::n]))
        played: dict[int, tuple[dict[str, Any], np.ndarray]] = {}
        for i, conn in enumerate(self.conns):
            try:
                got = conn.recv()
            except EOFError:
                fail("a worker process ended unexpectedly")
            if isinstance(got, str):
                fail(f"a worker failed: {got}")
            played.update(zip(games[i::n], got, strict=True))
        return [played[g] for g in games]

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(None)
            except OSError:
                pass
        for proc in self.procs:
            proc.join(timeout=10)


def learn(net: Net, adam: Adam, games: list[tuple[dict[str, Any], np.ndarray]], lam: float) -> float:
    """One update from a batch of played games; returns the loss before it."""
    xs, ts, ms = [], [], []
    for out, finals in games:
        seats, offsets, idx, val = out["positions"]
        if len(seats) == 0:
            continue
        x = positions_matrix(offsets, idx, val)
        _, v = forward(net, x)
        t, m = lambda_targets(v, seats, finals, lam)
        xs.append(x)
        ts.append(t)
        ms.append(m)
    if not xs:
        return 0.0
    grad, loss = td_gradient(net, scipy.sparse.vstack(xs, format="csr"), np.vstack(ts), np.vstack(ms))
    adam.step(net, grad)
    return loss


def install(net: Net) -> None:
    _core.install_judge(net["w1"], net["b1"], net["w2"], net["b2"])


# ---------------------------------------------------------------------------- stopping
class Stop:
    """Ctrl-C or SIGTERM asks the run to stop after the games in hand (a learning step is never cut)."""
    requested = False

    @classmethod
    def request(cls, signum: int, frame: object) -> None:
        cls.requested = True


# ---------------------------------------------------------------------------- the curve
def _win_share(out: dict[str, Any], seat: int) -> float:
    w = out["winners"]
    return 1.0 / len(w) if seat in w else 0.0


def curve_point(deals: int, seed: int, greedy_solo: list[float] | None = None,
                players: tuple[int, ...] = ()) -> dict[str, Any] | None:
    """The installed net agent on `deals` duplicate deals of tournament seed `seed`: solo against
    the Automa, at 2 players against the greedy agent in both seats, and at each count of
    `players` above 2 against the greedy agent in every other seat (None if asked to stop)."""
    solo, wins, margins = [], [], []
    table: dict[str, Any] = {}
    for n in sorted(p for p in set(players) if p > 2):
        won, by = [], []
        for d in range(deals):
            if Stop.requested:
                return None
            seat = d % n
            judges = ["heuristic"] * n
            judges[seat] = "net"
            out = _core.judged_game(n, deal_seed(seed, d), judges, samples=EVAL_SAMPLES)
            won.append(_win_share(out, seat))
            by.append(out["scores"][seat] - max(v for i, v in enumerate(out["scores"]) if i != seat))
        table[f"wins_{n}p"] = round(float(np.mean(won)), 4)
        table[f"margin_{n}p"] = round(float(np.mean(by)), 2)
    for d in range(deals):
        if Stop.requested:
            return None
        s = deal_seed(seed, d)
        solo.append(_core.judged_game(1, s, ["net"], automa=LEVEL, samples=EVAL_SAMPLES)["scores"][0])
        for seat in (0, 1):
            judges = ["heuristic", "heuristic"]
            judges[seat] = "net"
            out = _core.judged_game(2, s, judges, samples=EVAL_SAMPLES)
            wins.append(_win_share(out, seat))
            margins.append(out["scores"][seat] - out["scores"][1 - seat])
    if greedy_solo is None:
        greedy_solo = greedy_solo_scores(deals, seed)
    gain = np.array(solo) - np.array(greedy_solo)
    return {"solo_mean": round(float(np.mean(solo)), 2), "greedy_solo_mean": round(float(np.mean(greedy_solo)), 2),
            "solo_gain": round(float(gain.mean()), 2),
            "solo_gain_half_width": round(float(1.96 * gain.std(ddof=1) / np.sqrt(len(gain))), 2) if deals > 1 else None,
            "duel_wins": round(float(np.mean(wins)), 4), "duel_margin": round(float(np.mean(margins)), 2),
            **table, "deals": deals}


def greedy_solo_scores(deals: int, seed: int) -> list[float]:
    return [_core.judged_game(1, deal_seed(seed, d), ["heuristic"], automa=LEVEL, samples=EVAL_SAMPLES)["scores"][0]
            for d in range(deals)]


# ---------------------------------------------------------------------------- checkpoints
def save(path: Path, net: Net, adam: Adam, games: int, settings: dict[str, Any]) -> None:
    """Write the checkpoint whole or not at all (a temporary file renamed over it)."""
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **net, **adam.state(), games=np.array(games), settings=np.array(json.dumps(settings)),
             command=np.array(settings["command"]), features=np.array(F))
    os.replace(tmp, path)


def load(path: Path) -> tuple[Net, Adam, int, dict[str, Any]]:
    try:
        with np.load(path, allow_pickle=False) as z:
            d = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read the checkpoint ({e})")
    if int(d.get("features", -1)) != F:
        fail(f"{path}: made for {int(d.get('features', -1))} inputs, the core has {F}")
    settings = json.loads(str(d["settings"]))
    net = {k: d[k] for k in ARRAYS}
    return net, Adam(net, settings["lr"], d), int(d["games"]), settings


def export(checkpoint: Path, out: Path) -> None:
    net, _, games, settings = load(checkpoint)
    tmp = out.with_name(out.name + ".tmp.npz")
    np.savez_compressed(tmp, **{k: net[k].astype(np.float32) for k in ARRAYS}, games=np.array(games),
                        command=np.array(settings["command"]), features=np.array(F))
    os.replace(tmp, out)


# ---------------------------------------------------------------------------- the run
def start_from(path: Path) -> tuple[Net, int, str]:
    """A network file's weights (as float64), its games and its command, to go on from."""
    try:
        w = data.judge_weights(path)
    except data.SearchDataError as e:
        fail(f"--start: {e}")
    return {k: np.asarray(w[k], dtype=np.float64) for k in ARRAYS}, int(w["games"]), str(w["command"])


def train(out_dir: Path, settings: dict[str, Any], total: int, resume: bool, checkpoint_every: int,
          curve_every: int, curve_deals: int, curve_seed: int, progress: bool = True,
          start: Path | None = None, workers: int = 1) -> int:
    """Train until `total` games (or a stop is asked for); returns the games played. A new run
    begins from `start`'s network when given (start_from); `workers` processes play the games."""
    out_dir.mkdir(parents=True, exist_ok=True)
    ckpt = out_dir / "checkpoint.npz"
    curve = out_dir / "curve.jsonl"
    if resume and ckpt.exists():
        net, adam, done, saved = load(ckpt)
        settings = saved            # the run's own settings and command
    else:
        if ckpt.exists():
            fail(f"{ckpt} exists: --resume goes on from it, or give another --out")
        if start is None:
            net, done = new_net(settings["hidden"], settings["seed"]), 0
        else:
            net, done, before = start_from(start)
            if done >= total:
                fail(f"--games {total} is not above the {done} games {start} was trained on")
            settings = settings | {"hidden": net["w1"].shape[1], "command": f"{before}; then {settings['command']}"}
        adam = Adam(net, settings["lr"])
        curve.unlink(missing_ok=True)
    batch = settings["batch"]
    greedy_solo = greedy_solo_scores(curve_deals, curve_seed) if curve_every else None
    t0, start_done, last_saved = time.monotonic(), done, done
    players = tuple(settings.get("players", [1, 2]))
    bar = tqdm(total=total, initial=done, unit="game", disable=not progress, smoothing=0.05)
    install(net)
    if curve_every and not curve.exists():
        _write_curve(curve, done, curve_point(curve_deals, curve_seed, greedy_solo, players), 0.0, 0.0)
    pool = SelfPlay(workers, settings)
    try:
        while done < total and not Stop.requested:
            loss = learn(net, adam, pool.play(net, list(range(done, done + batch))), settings["lam"])
            install(net)
            done += batch
            bar.update(batch)
            if done - last_saved >= checkpoint_every or done >= total:
                save(ckpt, net, adam, done, settings)
                last_saved = done
            if curve_every and done % curve_every < batch:
                elapsed = time.monotonic() - t0
                point = curve_point(curve_deals, curve_seed, greedy_solo, players)
                _write_curve(curve, done, point, elapsed, (done - start_done) / max(elapsed, 1e-9))
                if point:
                    bar.set_postfix(solo=point["solo_mean"], duel=point["duel_wins"], loss=f"{loss:.4f}")
    finally:
        pool.close()
    bar.close()
    save(ckpt, net, adam, done, settings)
    if Stop.requested:
        print(f"stopped at {done} games, saved in {ckpt}; --resume goes on", file=sys.stderr)
    return done


def _write_curve(path: Path, games: int, point: dict[str, Any] | None, seconds: float, rate: float) -> None:
    if point is None:
        return
    row = {"games": games, **point, "seconds": round(seconds, 1), "games_per_second": round(rate, 1)}
    with open(path, "a") as f:
        f.write(json.dumps(row) + "\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, help="the run's directory (checkpoint, curve)")
    ap.add_argument("--games", type=int, default=300_000, help="train until this many games in all")
    ap.add_argument("--players", default="1,2", help="player counts of the training games, in turn (1: solo)")
    ap.add_argument("--start", type=Path, metavar="FILE", help="a new run begins from this network file")
    ap.add_argument("--hidden", type=int, default=40, help="hidden tanh units")
    ap.add_argument("--lam", type=float, default=0.7, help="TD(lambda)'s lambda")
    ap.add_argument("--lr", type=float, default=0.001, help="Adam's step size")
    ap.add_argument("--epsilon", type=float, default=0.05, help="share of decisions taken by the weighted policy")
    ap.add_argument("--samples", type=int, default=1, help="worlds (determinizations) a decision in the training games' lookahead")
    ap.add_argument("--batch", type=int, default=8, help="games a learning step")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--checkpoint-every", type=int, default=2000)
    ap.add_argument("--curve-every", type=int, default=10_000, help="games between curve points (0: none)")
    ap.add_argument("--curve-deals", type=int, default=200)
    ap.add_argument("--curve-seed", type=int, default=2026, help="the tournament seed whose deals the curve plays")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="processes playing the games (default: every core); a run is the same at any count")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--export", type=Path, metavar="FILE", help="write the checkpoint's network to FILE and stop")
    a = ap.parse_args(argv)
    if a.out is None:
        fail("--out DIR is required")
    if a.export:
        export(a.out / "checkpoint.npz", a.export)
        return
    for name, value, low, high in (("--hidden", a.hidden, 1, 256), ("--samples", a.samples, 1, 64),
                                   ("--batch", a.batch, 1, 4096), ("--games", a.games, 1, 10**9),
                                   ("--curve-deals", a.curve_deals, 2, 10**6), ("--workers", a.workers, 1, 256)):
        if not low <= value <= high:
            fail(f"{name} must be {low}..{high}, got {value}")
    try:
        players = [int(x) for x in a.players.split(",")]
    except ValueError:
        players = []
    if not players or not all(1 <= p <= K for p in players):
        fail(f"--players must be counts 1-{K} separated by commas, got {a.players!r}")
    if not 0 <= a.lam <= 1 or not 0 <= a.epsilon <= 1 or not a.lr > 0:
        fail("--lam and --epsilon must be 0..1 and --lr above 0")
    if a.checkpoint_every % a.batch or (a.curve_every and a.curve_every % a.batch):
        fail("--checkpoint-every and --curve-every must be multiples of --batch")
    signal.signal(signal.SIGINT, Stop.request)
    signal.signal(signal.SIGTERM, Stop.request)
    settings = {"hidden": a.hidden, "lam": a.lam, "lr": a.lr, "epsilon": a.epsilon, "samples": a.samples,
                "batch": a.batch, "seed": a.seed, "players": players,
                "command": "python bench/train_judge.py " + " ".join(shlex.quote(x) for x in (argv or sys.argv[1:]))}
    done = train(a.out, settings, a.games, a.resume, a.checkpoint_every, a.curve_every, a.curve_deals, a.curve_seed,
                 start=a.start, workers=a.workers)
    print(f"{done} games; the network: {a.out / 'checkpoint.npz'}")


if __name__ == "__main__":
    main()
