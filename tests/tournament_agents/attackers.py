"""Hostile agents that attack the tournament itself, for tests/test_tournament_attacks.py.

Loaded as ``tests/tournament_agents/attackers.py:Class``, each in a jailed worker.  Every
one plays legal moves (the Kuhn bot's) unless its attack is its answers, and prints what
its attack found as one line ``REPORT <json>`` (its output lands in its own log, which
the test reads): the attacks must find nothing, change nothing and leave nothing behind.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

MASK64 = (1 << 64) - 1
#: The constant the derivation of an agent's seed from the game's used to add to the seat.
OLD_AGENT_KEY = 0xA5A5_5A5A_0F0F_F0F0


def _report(kind: str, **found: Any) -> None:
    print("REPORT", json.dumps({"kind": kind, "pid": os.getpid(), **found}), flush=True)


def _kuhn_move(options: Any) -> int:
    preferred = {2: 0, 4: 1, 1: 2, 0: 3, 3: 4}
    return min(range(len(options)), key=lambda i: preferred.get(options[i].branch, 9))


def _own_rank(view: Any) -> str | None:
    hand = view.cards(view.seat, "iloc", "HAND") or ()
    return hand[0].get("RANK") if hand else None


# ---------------------------------------------------------------- learning hidden cards


def _unmix(z: int) -> int:
    """The inverse of SplitMix64's output function."""
    z ^= z >> 31 ^ z >> 62
    z = (z * 0x319642B2D24D8EC3) & MASK64
    z ^= z >> 27 ^ z >> 54
    z = (z * 0x96DE1B173F119089) & MASK64
    z ^= z >> 30 ^ z >> 60
    return z


def invert_agent_seed(seed: int, seat: int) -> int:
    """The game seed that ``splitmix64(game_seed ^ (K + seat))`` turned into ``seed``."""
    state = _unmix(seed)
    return ((state - 0x9E3779B97F4A7C15) & MASK64) ^ ((OLD_AGENT_KEY + seat) & MASK64)


class Predictor:
    """Predicts the opponent's hidden card in Kuhn poker by dealing the game again.
    ``method=invert``: inverts its own seed to the game's seed (the old derivation).
    ``method=guess``: tries every root seed below ``roots`` and the first ``games`` game
    seeds of each (simulate's derivation), keeping the deals that give it its own card.
    Prints ``REPORT {"kind": "predict", "seed": its seed, "opponent": the rank it
    predicts}`` at each decision."""

    def __init__(
        self, seed: int = 0, method: str = "invert", roots: int = 16, games: int = 40
    ) -> None:
        from cardlang import load_game

        self.seed = seed
        self.method = method
        self.roots = roots
        self.games = games
        self.master: Any = None
        self.load_game = load_game
        self.prediction: str | None = None

    def _deal(self, text: str, game_seed: int) -> dict[int, str]:
        st = self.master.new_game(game_seed)
        hands = {}
        for seat in (0, 1):
            ids = st.zones[(seat, "iloc", "HAND")]
            hands[seat] = st.cards[ids[0]]["RANK"] if ids else "?"
        return hands

    def choose(self, view: Any, options: Any) -> int:
        if self.master is None:
            self.master = self.load_game(text=view.rules_text, name="k").master()
            self.prediction = self._predict(view)
        _report("predict", seed=self.seed, seat=view.seat, opponent=self.prediction)
        return _kuhn_move(options)

    def _predict(self, view: Any) -> str | None:
        other = 1 - view.seat
        mine = _own_rank(view)
        if self.method == "invert":
            return self._deal(view.rules_text, invert_agent_seed(self.seed, view.seat))[other]
        from cardlang.runs.simulate import game_seeds

        votes: dict[str, int] = {}
        for root in range(self.roots):
            for game_seed in game_seeds(root, self.games):
                hands = self._deal(view.rules_text, game_seed)
                if hands[view.seat] == mine:
                    votes[hands[other]] = votes.get(hands[other], 0) + 1
        return max(votes, key=lambda r: votes[r]) if votes else None


# ---------------------------------------------------------------- the records, other processes


def _processes() -> list[int]:
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit())


def _readable(path: str, size: int = 64) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read(size).decode(errors="replace")
    except OSError:
        return None


class Tamperer:
    """Goes for the records: opens ``target`` (the records file's path, which the test
    tells it) for writing, looks for SQLite files anywhere it can see and through every
    process's open files, and rewrites any it finds to make itself win."""

    def __init__(self, seed: int = 0, target: str = "") -> None:
        self.target = target
        self.done = False

    def choose(self, view: Any, options: Any) -> int:
        if not self.done:
            self.done = True
            found: dict[str, Any] = {"target_open": False, "sqlite": [], "fds": [], "written": []}
            try:
                with open(self.target, "r+b"):
                    found["target_open"] = True
            except OSError as err:
                found["target_error"] = type(err).__name__
            deadline = time.monotonic() + 1.0  # a search within its time to decide
            for top in ("/tmp", "/work", "/home", "/root", "/var", "/srv", "/mnt"):
                for root, dirs, files in os.walk(top, onerror=lambda e: None):
                    if time.monotonic() > deadline:
                        break
                    dirs[:] = [d for d in dirs if d not in ("site-packages", "lib")]
                    found["sqlite"] += [os.path.join(root, f) for f in files if ".sqlite" in f]
            for pid in _processes():
                try:
                    for fd in os.listdir(f"/proc/{pid}/fd"):
                        found["fds"].append(os.readlink(f"/proc/{pid}/fd/{fd}"))
                except OSError:
                    pass
            for path in found["sqlite"] + [p for p in found["fds"] if ".sqlite" in p]:
                try:
                    import sqlite3

                    conn = sqlite3.connect(path)
                    conn.execute("UPDATE results SET rank = 1, credit = 1.0")
                    conn.commit()
                    found["written"].append(path)
                except Exception:  # noqa: BLE001 - the attack failing is the point
                    pass
            _report("tamper", **found)
        return _kuhn_move(options)


class Sniper:
    """Sees which processes it can, reads their environment, command line and memory,
    and kills or stops every one it can (its siblings, the tournament)."""

    def __init__(self, seed: int = 0, signal_name: str = "SIGKILL") -> None:
        self.signal = getattr(signal, signal_name)
        self.done = False

    def choose(self, view: Any, options: Any) -> int:
        if not self.done:
            self.done = True
            me = os.getpid()
            seen = _processes()
            environ = {p: _readable(f"/proc/{p}/environ", 4096) for p in seen if p != me}
            memory = {p: _readable(f"/proc/{p}/mem") is not None for p in seen if p != me}
            cmdlines = {p: _readable(f"/proc/{p}/cmdline", 256) for p in seen}
            signalled = []
            for pid in seen:
                if pid == me:
                    continue
                try:
                    os.kill(pid, self.signal)
                    signalled.append(pid)
                except OSError:
                    pass
            for pid in range(2, 4096):  # pids it cannot list, blind
                if pid not in seen and pid != me:
                    try:
                        os.kill(pid, self.signal)
                        signalled.append(pid)
                    except OSError:
                        pass
            _report(
                "snipe",
                seen=seen,
                uid=os.getuid(),
                environ={str(k): v for k, v in environ.items() if v},
                own_environ=sorted(os.environ),
                memory=[p for p, ok in memory.items() if ok],
                cmdlines={str(k): v for k, v in cmdlines.items()},
                signalled=signalled,
            )
        return _kuhn_move(options)


class Escaper:
    """Tries to leave its jail: new processes (fork, a subprocess that outlives it, a
    thread), the network, files outside /tmp, a big /tmp file and a memory file."""

    def __init__(self, seed: int = 0, marker: str = "cardlang-escaper") -> None:
        self.marker = marker
        self.done = False

    def choose(self, view: Any, options: Any) -> int:
        if not self.done:
            self.done = True
            _report("escape", **self._attempts())
        return _kuhn_move(options)

    def _attempts(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        try:
            pid = os.fork()
            if pid == 0:  # a child that would outlive the tournament
                os.setsid()
                time.sleep(600)
                os._exit(0)
            out["fork"] = True
        except OSError as err:
            out["fork"] = type(err).__name__
        try:
            import subprocess

            subprocess.Popen(["sleep", "600", self.marker], start_new_session=True)
            out["subprocess"] = True
        except OSError as err:
            out["subprocess"] = type(err).__name__
        try:
            import threading

            threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
            out["thread"] = True
        except RuntimeError as err:
            out["thread"] = type(err).__name__
        try:
            import socket

            s = socket.create_connection(("1.1.1.1", 53), timeout=2)
            s.close()
            out["network"] = True
        except OSError as err:
            out["network"] = type(err).__name__
        out["home"] = _readable("/root/.bashrc") is not None or _readable("/etc/passwd") is not None
        out["write_outside"] = _can_write("/work/escaped.txt") or _can_write("/escaped.txt")
        out["tmp_bytes"] = _fill("/tmp/fill.bin")
        try:
            fd = os.memfd_create("hoard")
            out["memfd_bytes"] = _fill_fd(fd)
        except (OSError, AttributeError) as err:
            out["memfd_bytes"] = type(err).__name__
        return out


def _can_write(path: str) -> bool:
    try:
        with open(path, "w") as f:
            f.write("out")
        return True
    except OSError:
        return False


def _fill(path: str) -> int:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    except OSError:
        return 0
    return _fill_fd(fd)


def _fill_fd(fd: int) -> int:
    """Bytes written before the kernel said no (at most 256 MB tried)."""
    chunk = b"x" * (1 << 20)
    written = 0
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the file-size limit: an error, not death
    try:
        while written < 256 << 20:
            written += os.write(fd, chunk)
    except OSError:
        pass
    finally:
        os.close(fd)
    return written


class ChildHog:
    """Tries to hold memory in forked children (each under its own cap), else in itself."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        children = 0
        for _ in range(8):
            try:
                if os.fork() == 0:
                    hoard = bytearray(200 << 20)
                    time.sleep(600)
                    os._exit(len(hoard))
                children += 1
            except OSError:
                break
        _report("childhog", children=children)
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))


class Printer:
    """Prints a forged tournament result first, then megabytes to stdout and stderr."""

    def __init__(self, seed: int = 0, megabytes: int = 4) -> None:
        self.megabytes = megabytes
        self.done = False

    def choose(self, view: Any, options: Any) -> int:
        if not self.done:
            self.done = True
            print(json.dumps({"ratings": {"forged": {"rating": 9999}}}), flush=True)
            line = "spam " * 200 + "\n"
            for _ in range(self.megabytes * 1024):
                sys.stdout.write(line)
                sys.stderr.write(line)
            sys.stdout.flush()
        return _kuhn_move(options)


class SlowStart:
    """A constructor that takes ``seconds``."""

    def __init__(self, seed: int = 0, seconds: float = 600.0) -> None:
        time.sleep(seconds)

    def choose(self, view: Any, options: Any) -> int:
        return _kuhn_move(options)


class Counter:
    """Prints every seed it is made with: a start-up check that made an agent, or made
    one with a telltale seed, would show."""

    def __init__(self, seed: int = 0) -> None:
        _report("init", seed=seed)

    def choose(self, view: Any, options: Any) -> int:
        return _kuhn_move(options)


class Garbage:
    """Answers what is no move, a different kind each time it is asked: text, None, NaN,
    a huge number, a vector of the wrong length, an object, a negative index, a bool."""

    ANSWERS: tuple[Any, ...] = (
        "0",
        None,
        float("nan"),
        10**100,
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        object(),
        -1,
        True,
    )

    def __init__(self, seed: int = 0) -> None:
        self.calls = 0

    def choose(self, view: Any, options: Any) -> Any:
        self.calls += 1
        return self.ANSWERS[(self.calls - 1) % len(self.ANSWERS)]


class Wrecker:
    """Writes garbage to its channel to the tournament (the inherited socket)."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        for fd in sorted(int(f) for f in os.listdir("/proc/self/fd") if int(f) > 2):
            try:
                os.write(fd, b"\xff" * 64 + b'{"index": 0}')
            except OSError:
                pass
        return _kuhn_move(options)


class Spinner:
    """Spends the CPU between its turns: a timer's signal handler that spins while the
    others think.  Prints the CPU seconds it got outside ``choose`` at each decision."""

    def __init__(self, seed: int = 0) -> None:
        import resource

        self.resource = resource
        self.inside = 0.0
        self.base = time.process_time()
        signal.signal(signal.SIGALRM, self._spin)
        signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)

    @staticmethod
    def _spin(signum: int, frame: Any) -> None:
        end = time.process_time() + 0.04
        while time.process_time() < end:
            pass

    def choose(self, view: Any, options: Any) -> int:
        # No spinning in its own turn: what is measured is the CPU between turns, and on
        # a loaded machine a handler that takes longer than the timer's period would
        # starve the turn's sleep past its time limit (seen beside two card rankings).
        signal.setitimer(signal.ITIMER_REAL, 0)
        started = time.process_time()
        move = _kuhn_move(options)
        time.sleep(0.3)  # its own turn: the clock is its own
        self.inside += time.process_time() - started
        outside = time.process_time() - self.base - self.inside
        _report("spin", outside=outside)
        signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
        return move


class Thinker:
    """An honest agent that takes its time: ``seconds`` of wall time per decision."""

    def __init__(self, seed: int = 0, seconds: float = 0.5) -> None:
        self.seconds = seconds

    def choose(self, view: Any, options: Any) -> int:
        time.sleep(self.seconds)
        return _kuhn_move(options)
