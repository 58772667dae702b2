"""Hostile agents against the tournament itself (runs/jail.py, runs/sandbox.py,
runs/tournament.py): agents from files that try to learn hidden cards from their seeds,
rewrite the records, kill or stop their rivals, read other processes, fork, hoard
memory in children, flood the output, stall at start-up, spot the start-up check and
answer garbage.  Each attack's outcome is asserted: a forfeit with its reason, nothing
learnt, results intact, no process left behind.  Run as root (the CI) and, where this
machine can make one, as an ordinary user.

The agents are tests/tournament_agents/attackers.py; each prints what it found to its
own log (``REPORT <json>``), which the tests read back.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardlang import load_game
from cardlang.runs.jail import FILE_BYTES, JailUnavailable, _ancestors, find_bwrap, find_jail
from cardlang.runs.planned import agent_seeds
from cardlang.runs.replay import replay_game
from cardlang.runs.sandbox import LOG_BYTES
from cardlang.runs.store import RunStore
from cardlang.runs.tournament import tournament_agent_seed

ROOT = Path(__file__).resolve().parent.parent
KUHN = str(ROOT / "games" / "kuhn_poker.rcy")
AGENTS = Path(__file__).resolve().parent / "tournament_agents"
ATTACK = f"{AGENTS / 'attackers.py'}"
BOT = f"{AGENTS / 'hostile.py'}:KuhnBot"

try:
    find_jail()
    NO_JAIL = ""
except JailUnavailable as why:
    NO_JAIL = str(why)

pytestmark = pytest.mark.skipif(bool(NO_JAIL), reason=f"no jail on this machine: {NO_JAIL}")


#: The names of a jail's whole environment (jail.environment).
JAIL_ENVIRONMENT = {
    "PATH",
    "HOME",
    "TMPDIR",
    "LANG",
    "PYTHONHASHSEED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONNOUSERSITE",
    "PYTHONUNBUFFERED",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "LC_CTYPE",
    "PWD",  # bubblewrap's --chdir
}


def _tournament(
    workdir: Path, agents: list[str], games: int, *extra: str, as_user: int | None = None
) -> dict[str, Any]:
    """``cardlang tournament`` in a process of its own (as the given user), recorded in
    ``workdir/t.sqlite``; its stdout must be exactly one JSON object."""
    command = [
        sys.executable,
        "-m",
        "cardlang",
        "tournament",
        KUHN,
        "--agents",
        ",".join(agents),
        "--games",
        str(games),
        "--db",
        str(workdir / "t.sqlite"),
        "--json",
        "--quiet",
        *extra,
    ]
    if as_user is not None:
        command = _as_user(as_user, workdir, command)
    done = subprocess.run(
        command, cwd=workdir, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data: dict[str, Any] = json.loads(done.stdout)  # nothing an agent printed is in it
    data["stderr"] = done.stderr
    return data


def _as_user(uid: int, workdir: Path, command: list[str]) -> list[str]:
    """``command`` run as ``uid``, with no capability, in a view of this machine where
    Python's installation (under root's home here) is readable."""
    bwrap = find_bwrap()
    assert bwrap is not None
    view = [bwrap, "--dev-bind", "/", "/"]
    home = Path.home()
    if str(sys.base_prefix).startswith(str(home)) and home != Path("/"):
        # only the Python installation of root's home is shown, the rest of it hidden
        view += ["--perms", "0755", "--tmpfs", str(home)]
        shown = sorted({sys.base_prefix, sys.prefix})
        for folder in _ancestors(shown):
            if folder.startswith(str(home) + "/"):
                view += ["--perms", "0755", "--dir", folder]
        for folder in shown:
            view += ["--ro-bind", folder, folder]
    view += ["--cap-add", "CAP_SETUID,CAP_SETGID", "--"]
    drop = [shutil.which("setpriv") or "setpriv", f"--reuid={uid}", f"--regid={uid}"]
    drop += ["--clear-groups", "--inh-caps=-all", "--bounding-set=-all"]
    return [*view, *drop, "env", f"HOME={workdir}", *command]


def _reports(data: dict[str, Any], spec: str) -> list[dict[str, Any]]:
    """What an agent printed as ``REPORT <json>`` lines, from its log."""
    path = data["agent_logs"].get(spec)
    if path is None:
        return []
    out = []
    for line in Path(path).read_text(errors="replace").splitlines():
        if line.startswith("REPORT "):
            out.append(json.loads(line[len("REPORT ") :]))
    return out


def _parent(pid: int) -> int:
    """The parent of ``pid`` (0 when it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])  # the name may hold spaces and parens


def _under_a_sibling(pid: int) -> bool:
    """Whether ``pid`` descends from another child of this process's parent: another
    pytest-xdist worker, whose tests run their own tournaments beside ours.  A worker
    this test left behind is an orphan (its tournament is over: init or a subreaper
    holds it) or descends from this process."""
    here, parent = os.getpid(), os.getppid()
    while pid > 1:
        up = _parent(pid)
        if up == parent:
            return pid != here
        pid = up
    return False


def _workers_left(wait: float = 10) -> list[str]:
    """Command lines of agents' workers and jails still running ``wait`` seconds after
    the tournament ended, but for those of the tournaments that other test processes
    play at the same time.  A worker killed as the tournament ended may take a moment
    to die on a crowded machine (inside a jail its pid namespace is torn down after its
    bubblewrap has gone); one left behind is still there when the time is up."""
    deadline = time.monotonic() + wait
    while (found := _workers_now()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def _workers_now() -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            text = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "cardlang.runs.agent_worker" in text or "cardlang-escaper" in text:
            if not _under_a_sibling(int(pid)):
                found.append(text)
    return found


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A folder any user may write (an ordinary user's tournament records there)."""
    path = Path(tempfile.mkdtemp(prefix="cardlang-attacks-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


# ---------------------------------------------------------------- hidden cards


def _true_hands(seed: int) -> dict[int, str]:
    master = load_game(KUHN).master()
    st = master.new_game(seed)
    return {s: st.cards[st.zones[(s, "iloc", "HAND")][0]]["RANK"] for s in (0, 1)}


def test_the_old_seed_derivation_was_invertible() -> None:
    """The control: the attack the next test makes works against the derivation agents'
    seeds used to have (``agent_seeds``, a bijection of the game's seed)."""
    sys.path.insert(0, str(AGENTS))
    try:
        from attackers import invert_agent_seed  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(AGENTS))
    for game_seed in (0, 7, 2**40 + 3, 2**63 + 11):
        for seat, seed in enumerate(agent_seeds(game_seed, 2)):
            assert invert_agent_seed(seed, seat) == game_seed


def test_agents_cannot_learn_hidden_cards_from_their_seeds(workdir: Path) -> None:
    inverter = f"{ATTACK}:Predictor:method=invert"
    guesser = f"{ATTACK}:Predictor:method=guess:roots=8:games=40"
    data = _tournament(workdir, [BOT, inverter, guesser], 24, "--time-limit", "20")
    assert data["forfeits"] == {a: {} for a in data["agents"]}
    with RunStore.open(workdir / "t.sqlite") as store:
        games = store.conn.execute("SELECT seed, agents FROM games").fetchall()
    where = {}  # an agent's seed -> (game seed, its seat)
    for game_seed, agents in games:
        for seat in range(len(json.loads(agents))):
            where[tournament_agent_seed(data["secret"], game_seed, seat)] = (game_seed, seat)
    for spec in (inverter, guesser):
        per_game = {r["seed"]: r["opponent"] for r in _reports(data, spec)}
        assert len(per_game) == 48  # one prediction per game it played
        right = 0
        for seed, predicted in per_game.items():
            game_seed, seat = where[seed]
            right += predicted == _true_hands(game_seed)[1 - seat]
        # the opponent holds one of the two other cards: chance is 1/2; the bound is
        # chance plus 3.5 standard deviations (the old derivation gave 48 of 48)
        n = len(per_game)
        assert right <= n / 2 + 3.5 * math.sqrt(n / 4), (spec, right, n)


# ---------------------------------------------------------------- the tournament itself


def _attack(workdir: Path, as_user: int | None) -> None:
    db = workdir / "t.sqlite"
    tamperer = f"{ATTACK}:Tamperer:target={db}"
    killer = f"{ATTACK}:Sniper"
    stopper = f"{ATTACK}:Sniper:signal_name=SIGSTOP"
    escaper = f"{ATTACK}:Escaper"
    hog = f"{ATTACK}:ChildHog"
    printer = f"{ATTACK}:Printer"
    counter = f"{ATTACK}:Counter"
    wrecker = f"{ATTACK}:Wrecker"
    garbage = f"{ATTACK}:Garbage"
    slow = f"{ATTACK}:SlowStart"
    agents = ["random", BOT, tamperer, killer, stopper, escaper, hog, printer, counter]
    agents += [wrecker, garbage, slow]
    limits = ["--time-limit", "3", "--init-time-limit", "3", "--memory-limit", "300"]
    limits += ["--illegal-retries", "7"]
    data = _tournament(workdir, agents, 1, *limits, as_user=as_user)

    # every forfeit has its reason and says why; the honest and the failed attackers
    # forfeit nothing
    forfeits, messages = data["forfeits"], data["forfeit_messages"]
    expected = {hog: "memory", wrecker: "crash", garbage: "illegal", slow: "timeout"}
    for spec in agents:
        want = expected.get(spec)
        assert set(forfeits[spec]) == ({want} if want else set()), (spec, forfeits[spec])
        if want:
            # every game but some against another failing agent, which may fail first
            assert forfeits[spec][want] >= len(agents) - len(expected), (spec, forfeits)
            assert messages[spec][want], spec
    assert "within 3 s" in messages[slow]["timeout"]
    assert data["games"]["played"] == data["games"]["planned"] == 66
    assert data["games"]["failed"] == data["games"]["cutoff"] == 0

    # the records: out of reach, and what the games were
    tampered = _reports(data, tamperer)
    assert len(tampered) >= len(agents) - len(expected)  # one a game it played
    for tamper in tampered:
        assert not tamper["target_open"] and tamper["written"] == []
        assert not [p for p in tamper["sqlite"] + tamper["fds"] if "sqlite" in p]
    game = load_game(KUHN)
    with RunStore.open(db) as store:
        rows = store.conn.execute(
            "SELECT id, end_reason FROM games WHERE end_reason = 'completed'"
        ).fetchall()
        assert rows
        for game_id, _ in rows:
            stored = store.game(game_id)
            result, _st = replay_game(game, stored, store.choices(game_id))
            recorded = [
                r[0]
                for r in store.conn.execute(
                    "SELECT rank FROM results WHERE game_id = ? ORDER BY seat", (game_id,)
                )
            ]
            assert list(result.ranks) == recorded

    # no other process seen, read, killed or stopped
    for spec in (killer, stopper):
        for report in _reports(data, spec):
            others = set(report["seen"]) - {report["pid"]}
            assert others <= {1}, report["seen"]  # bubblewrap's init of its own jail
            # its own jail's init (bubblewrap) holds nothing: the jail's environment
            assert set(report["memory"]) <= {1}
            for text in report["environ"].values():
                names = {kv.split("=", 1)[0] for kv in text.split("\0") if "=" in kv}
                assert names <= JAIL_ENVIRONMENT, names
            assert set(report["own_environ"]) <= JAIL_ENVIRONMENT
            assert report["uid"] != 0

    # no way out: no process, thread, network, file outside its /tmp, nor big files
    for report in _reports(data, escaper):
        assert report["fork"] == report["subprocess"] == "BlockingIOError", report
        assert report["thread"] == "RuntimeError" and report["network"] != True  # noqa: E712
        assert not report["home"] and not report["write_outside"]
        assert report["tmp_bytes"] <= FILE_BYTES and report["memfd_bytes"] <= FILE_BYTES
    for report in _reports(data, hog):
        assert report["children"] == 0

    # a flood of output stays in the agent's log, capped
    log = Path(data["agent_logs"][printer])
    assert LOG_BYTES <= log.stat().st_size <= LOG_BYTES + 200
    assert "more bytes dropped" in log.read_text()[-200:]
    assert "forged" not in json.dumps(data["ratings"])

    # agents are made only for games, each with its game's seed under the secret
    with RunStore.open(db) as store:
        games = store.conn.execute("SELECT seed, agents FROM games").fetchall()
    seeds = sorted(
        tournament_agent_seed(data["secret"], seed, json.loads(seats).index(counter))
        for seed, seats in games
        if counter in json.loads(seats)
    )
    assert sorted(r["seed"] for r in _reports(data, counter)) == seeds

    # the reason of a forfeited game, read back from the records
    with RunStore.open(db) as store:
        (forfeited,) = store.conn.execute(
            "SELECT id FROM games WHERE error_kind LIKE 'forfeit:timeout:%' LIMIT 1"
        ).fetchone()
    shown = subprocess.run(
        [sys.executable, "-m", "cardlang", "transcript", "--db", str(db), "--game", str(forfeited)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert f"({slow}) forfeits (timeout): no answer within 3 s" in shown.stdout
    assert _workers_left() == []


@pytest.mark.early(64)
@pytest.mark.slow
def test_attacks_on_the_tournament_fail(workdir: Path) -> None:
    _attack(workdir, None)


@pytest.mark.early(64)
@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="runs as an ordinary user already")
def test_attacks_fail_as_an_ordinary_user(workdir: Path) -> None:
    """The same tournament started by an ordinary user (uid 1000), whose jails are made
    in user namespaces of their own."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed: cannot become another user")
    probe = subprocess.run(
        _as_user(
            1000, workdir, [sys.executable, "-c", "import cardlang.runs.jail as j; j.find_jail()"]
        ),
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip(f"no jail for an ordinary user here: {probe.stderr.strip()[-300:]}")
    _attack(workdir, 1000)


def test_a_slow_agent_file_is_bounded_by_the_init_limit(workdir: Path) -> None:
    slow = workdir / "slow.py"
    slow.write_text(
        "import time\ntime.sleep(600)\nclass A:\n    def choose(self, v, o):\n        return 0\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "cardlang", "tournament", KUHN, "--agents", f"random,{slow}:A"]
        + ["--init-time-limit", "1", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "cannot create agent" in done.stderr and "no answer within 1 s" in done.stderr
    assert _workers_left() == []


def test_without_a_jail_agents_from_files_are_refused_unless_no_jail(workdir: Path) -> None:
    """Where no jail can be made (here: a bubblewrap that does not exist), the tournament
    says why and refuses agents from files; --no-jail runs them as plain processes."""
    env = dict(os.environ, CARDLANG_BWRAP=str(workdir / "no-such-bwrap"))
    command = [sys.executable, "-m", "cardlang", "tournament", KUHN, "--agents"]
    command += [f"random,{BOT}", "--games", "2", "--quiet", "--json"]
    refused = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert refused.returncode == 2
    assert "cannot jail the agents from files" in refused.stderr
    assert "--no-jail" in refused.stderr and "no-such-bwrap" in refused.stderr
    unjailed = subprocess.run(
        [*command, "--no-jail"], env=env, capture_output=True, text=True, check=False
    )
    assert unjailed.returncode == 0, unjailed.stderr
    assert json.loads(unjailed.stdout)["games"]["completed"] == 2
    assert _workers_left() == []


def test_an_agent_spends_no_cpu_between_its_turns(workdir: Path) -> None:
    """An untrusted agent's process is stopped between its turns: a timer's handler that
    spins while its opponent thinks gets (almost) nothing."""
    thinker = f"{ATTACK}:Thinker:seconds=0.5"
    spinner = f"{ATTACK}:Spinner"
    data = _tournament(workdir, [thinker, spinner], 4, "--time-limit", "5")
    assert data["forfeits"] == {thinker: {}, spinner: {}}
    outside = [r["outside"] for r in _reports(data, spinner)]
    assert len(outside) >= 4
    # unstopped, it spins 80% of each of the thinker's 0.5 s turns
    assert max(outside) < 0.2, outside


@pytest.mark.parametrize("name", ["leduc_poker", "hearts"])
def test_the_attacks_find_nothing_on_other_games(workdir: Path, name: str) -> None:
    """The same jail whatever the game: on Leduc poker and Hearts the attackers play to
    the end, see no other process, reach no records and cannot leave."""
    db = workdir / "t.sqlite"
    sniper, escaper = f"{ATTACK}:Sniper", f"{ATTACK}:Escaper"
    tamperer = f"{ATTACK}:Tamperer:target={db}"
    agents = ["random", sniper, escaper, tamperer]
    command = [sys.executable, "-m", "cardlang", "tournament", str(ROOT / "games" / f"{name}.rcy")]
    command += ["--agents", ",".join(agents), "--games", "2", "--db", str(db)]
    command += ["--json", "--quiet", "--time-limit", "5"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    assert data["forfeits"] == {a: {} for a in agents}
    assert data["games"]["completed"] == data["games"]["planned"]
    for report in _reports(data, sniper):
        assert set(report["seen"]) - {report["pid"]} <= {1} and report["uid"] != 0
    for report in _reports(data, escaper):
        assert report["fork"] == "BlockingIOError" and report["network"] is not True
        assert not report["write_outside"]
    tampered = _reports(data, tamperer)
    assert tampered and all(not t["target_open"] and not t["written"] for t in tampered)
    assert _workers_left() == []
