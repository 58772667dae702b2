"""Hostile agents against the tournament itself (runs/jail.py, runs/sandbox.py,
runs/tournament.py): agents from files that try to learn hidden cards from their seeds,
rewrite the records, kill or stop their rivals, read other processes, fork, hoard
memory in children, flood the output, stall at start-up, spot the start-up check and
answer garbage; and agents that attack their channel to the tournament (write replies
nested 200,000 deep, floods of replies, replies unasked, answer for themselves and never
read) or speak to its terminal (escape codes, a forged last line, a MemoryError of their
own: tests/tournament_agents/channel_attackers.py).  Each attack's outcome is asserted: a forfeit with its reason, nothing
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
import time
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
    # no agent here is meant to run out of time on a turn: the turn's limit is wide, so
    # that the hog, which fills 300 MB before it fails, is charged its memory on a loaded
    # machine too (at 3 s, CI once saw it time out); the slow starter's limit stays 3 s
    limits = ["--time-limit", "15", "--init-time-limit", "3", "--memory-limit", "300"]
    limits += ["--illegal-retries", "7"]
    data = _tournament(workdir, agents, 1, *limits, as_user=as_user)

    # every forfeit has its reason and says why; the honest and the failed attackers
    # forfeit nothing
    forfeits, messages = data["forfeits"], data["forfeit_messages"]
    expected = {hog: "memory", wrecker: "protocol", garbage: "illegal", slow: "timeout"}
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
        assert report["tmp_bytes"] <= FILE_BYTES
        assert report["memfd_bytes"] == "PermissionError"  # the seccomp filter's refusal
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
    thinker = f"{ATTACK}:Thinker:seconds=1"
    spinner = f"{ATTACK}:Spinner"
    data = _tournament(workdir, [thinker, spinner], 4, "--time-limit", "5")
    assert data["forfeits"] == {thinker: {}, spinner: {}}
    outside = [r["outside"] for r in _reports(data, spinner)]
    assert len(outside) >= 4
    # unstopped, it spins 80% of each of the thinker's 1 s turns (0.8 s every time);
    # stopped, a turn's share is what runs before the stop lands, which a loaded machine
    # delays (0.39 s once in four beside a training; 0.13-0.15 s in two of four with two
    # card rankings and three test processes on two cores): the middle turn and the mean
    # tell the stop from none
    outside.sort()
    assert outside[len(outside) // 2] < 0.25 and sum(outside) / len(outside) < 0.35, outside


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


# ---------------------------------------------------------------- the channel and the words

CHANNEL = AGENTS / "channel_attackers.py"

#: A hostile agent of channel_attackers.py, the kind of its forfeits, and whether each
#: is found at the decision it attacks (else at its next request: the last game it
#: plays may end first).
CHANNEL_ATTACKS = [
    ("DeepJson", "protocol", True),  # 400 KB: refused from its length
    ("DeepJson:depth=100000", "protocol", True),  # 200 KB: refused by the depth scan
    ("Flooder", "protocol", False),
    ("Unsolicited", "protocol", True),
    ("Unsolicited:mode=extra", "protocol", False),
    ("Shouter", "crash", True),
    ("MemoryRaiser", "crash", True),
]


def _own_workers_left() -> list[str]:
    """The agents' workers this process started that are still running a few seconds
    after its tournament ended (other processes on the machine play their own)."""
    deadline = time.monotonic() + 10
    while True:
        found = [c for pid, c in _workers_by_pid() if _descends_from(pid, os.getpid())]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def _workers_by_pid() -> list[tuple[int, str]]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            text = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "cardlang.runs.agent_worker" in text:
            found.append((int(pid), text))
    return found


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        pid = _parent(pid)
        if pid == ancestor:
            return True
    return False


def _quick(agents: list[str], games: int, game: str = KUHN, **limits: Any) -> dict[str, Any]:
    """A tournament in this process, its records in memory, under small limits."""
    from cardlang.runs.sandbox import SandboxLimits
    from cardlang.runs.tournament import run_tournament

    sandbox = SandboxLimits(**{"time_limit": 2.0, "memory_limit": 300, **limits})
    result = run_tournament(load_game(game), agents=agents, games=games, seed=5, sandbox=sandbox)
    return result.to_json()


@pytest.mark.parametrize(("name", "kind", "at_once"), CHANNEL_ATTACKS)
def test_an_attack_on_the_channel_is_its_agents_forfeit(
    name: str, kind: str, at_once: bool
) -> None:
    """Each attack forfeits every game it reaches, for the kind the tournament measured,
    within seconds; the other agents' games are untouched."""
    hostile = f"{CHANNEL}:{name}"
    started = time.monotonic()
    data = _quick(["random", BOT, hostile], 2)
    assert time.monotonic() - started < 30
    assert data["games"]["played"] == data["games"]["planned"] == 6
    assert data["games"]["completed"] >= 2  # random against the bot, both seatings
    assert data["forfeits"]["random"] == data["forfeits"][BOT] == {}
    assert set(data["forfeits"][hostile]) == {kind}, data["forfeits"][hostile]
    # found at once: all 4 of its games; else at its next request (the next game's
    # start, where its last decision of a game passed): at least every other game
    assert data["forfeits"][hostile][kind] >= (4 if at_once else 2)
    assert _own_workers_left() == []


@pytest.mark.slow
def test_an_agent_that_answers_for_itself_and_never_reads_cannot_block_the_tournament() -> None:
    """The Forger answers every request with the right id and never reads: the
    tournament's messages fill its socket until a send would block; the send times out
    instead (a timeout forfeit) and all 300 games are played (issue 53: the run stopped
    after 28)."""
    forger = f"{CHANNEL}:Forger"
    started = time.monotonic()
    data = _quick(["random", forger], 300, time_limit=1.0)
    took = time.monotonic() - started
    assert data["games"]["played"] == 300 and data["forfeits"]["random"] == {}
    assert set(data["forfeits"][forger]) == {"timeout"}, data["forfeits"][forger]
    assert "did not read what it was sent" in data["forfeit_messages"][forger]["timeout"]
    assert took < 180, took
    assert _own_workers_left() == []


def test_a_rules_message_larger_than_the_socket_buffer_is_delivered(workdir: Path) -> None:
    """Kuhn poker with 3 MB of comments: the rules sent to each jailed agent (the
    game's text) are many times a socket's buffer, and every game completes."""
    big = workdir / "kuhn_poker.rcy"
    padding = (";; " + "x" * 77 + "\n") * (3 << 20 // 80)
    big.write_text(Path(KUHN).read_text() + padding)
    data = _quick(["random", BOT], 2, game=str(big), time_limit=5.0)
    assert data["games"]["completed"] == data["games"]["planned"] == 2
    assert data["forfeits"] == {"random": {}, BOT: {}}


#: What must never reach a terminal from an agent: ESC (every ANSI sequence), a carriage
#: return, BEL, the C1 CSI, a bidi override.
RAW_CONTROLS = ("\x1b", "\r", "\x07", "\x9b", "\u202e")


@pytest.mark.slow
def test_an_agents_words_are_quoted_safe_and_never_its_forfeit_kind(workdir: Path) -> None:
    """The Shouter fails with escape codes and a forged "MemoryError" last line; the
    MemoryRaiser raises MemoryError itself; the Hog really runs out of memory.  The
    table, --debug, --json, the records and ``transcript --db`` show each kind as
    measured (crash, crash, memory) and the agents' words quoted, with no control
    character."""
    shouter, raiser = f"{CHANNEL}:Shouter", f"{CHANNEL}:MemoryRaiser"
    hog = f"{AGENTS / 'hostile.py'}:Hog"
    db = workdir / "t.sqlite"
    command = [sys.executable, "-m", "cardlang", "tournament", KUHN, "--agents"]
    command += [",".join(["random", shouter, raiser, hog]), "--games", "1", "--db", str(db)]
    command += ["--time-limit", "3", "--memory-limit", "200", "--debug"]
    shown = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert shown.returncode == 0, shown.stderr[-2000:]
    as_json = subprocess.run(
        [*command, "--json", "--quiet"], capture_output=True, text=True, timeout=300, check=False
    )
    data = json.loads(as_json.stdout)
    # each fails all its games, but the one against the other, which may fail first
    assert data["forfeits"][shouter]["crash"] >= 2 and data["forfeits"][raiser]["crash"] >= 2
    assert set(data["forfeits"][shouter]) == set(data["forfeits"][raiser]) == {"crash"}
    assert set(data["forfeits"][hog]) == {"memory"}
    assert data["forfeit_messages"][shouter]["crash"] == 'its agent failed, saying "MemoryError"'
    assert "MemoryError" in data["forfeit_messages"][raiser]["crash"]
    assert "at the limit" in data["forfeit_messages"][hog]["memory"]
    with RunStore.open(db) as store:
        rows = store.conn.execute("SELECT id, error_kind, error FROM games").fetchall()
    kinds = {kind.split(":")[1] for _, kind, _ in rows if kind}
    assert kinds == {"crash", "memory"}
    shouted = [game for game, kind, error in rows if kind and "owned" in (error or "")]
    assert shouted
    told = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardlang",
            "transcript",
            "--db",
            str(db),
            "--game",
            str(shouted[0]),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert told.returncode == 0, told.stderr
    assert "forfeits (crash): its agent failed; its words:" in told.stdout
    assert "RuntimeError: \\x1b[2J" in told.stdout and "| MemoryError" in told.stdout
    for text in (shown.stdout, shown.stderr, as_json.stdout, told.stdout, told.stderr):
        assert not [c for c in RAW_CONTROLS if c in text]
    for _, _, error in rows:
        assert not [c for c in RAW_CONTROLS if c in (error or "")]
    # --debug: the whole account, the agent's words quoted line by line
    assert "forfeits (crash): its agent failed; its words:\n| Traceback" in shown.stdout
    assert "| RuntimeError: \\x1b[2J\\x1b[H\\x1b]0;owned\\x07\\x0dall is well" in shown.stdout
    assert _workers_left() == []


def test_an_agent_file_that_shouts_as_it_loads_is_a_clean_usage_error(workdir: Path) -> None:
    loud = workdir / "loud.py"
    loud.write_text("raise RuntimeError('\\x1b[2J\\x1b]0;owned\\x07\\rgone')\n")
    done = subprocess.run(
        [sys.executable, "-m", "cardlang", "tournament", KUHN, "--agents", f"random,{loud}:A"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and "cannot create agent" in done.stderr
    assert "\\x1b[2J" in done.stderr and "Traceback" not in done.stderr
    assert not [c for c in RAW_CONTROLS if c in done.stderr + done.stdout]
