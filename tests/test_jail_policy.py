"""The jail holds (runs/jail.py, docs/agents.md "The jail's seccomp policy"): no user
namespace, mount, keyring, memory file or other process inside it, and no memory held
outside the agent's address-space limit but the small /tmp.

Most checks run tests/tournament_agents/jail_escapes.py in a real jail (``find_jail``'s
command line), which does what an agent's worker does before the agent's code
(``drop_privileges``, ``limit_resources``) and then tries each escape; each is run by
root (a jail that starts as root and drops to ``nobody``) and by an ordinary user (a jail
in a user namespace of its own), or skipped with the reason where one cannot be had.
The filter's program itself is checked without a jail, on both architectures it knows,
by a small interpreter of classic BPF.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_tournament_attacks import NO_JAIL, _as_user, _reports, _tournament

from cardlang.runs import jail
from cardlang.runs.jail import SECCOMP_ARCHES, SYSCALLS, TMP_BYTES, JailUnavailable

ROOT = Path(__file__).resolve().parent.parent
ESCAPES = Path(__file__).resolve().parent / "tournament_agents" / "jail_escapes.py"
MB = 1024 * 1024
#: The ordinary user the root-run tests become (it need not exist in /etc/passwd).
ORDINARY = 1000

#: Runs jail_escapes.py in a jail made by whoever runs this (root's or a user's jail).
RUNNER = """
import subprocess, sys
from cardlang.runs.jail import find_jail
script = sys.argv[1]
command = find_jail().command([sys.executable, script, *sys.argv[2:]], [script])
done = subprocess.run(command, capture_output=True, text=True, timeout=120)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
sys.exit(done.returncode)
"""

needs_jail = pytest.mark.skipif(bool(NO_JAIL), reason=f"no jail on this machine: {NO_JAIL}")

Escape = Callable[..., dict[str, Any]]


@functools.cache
def _user_jail_missing() -> str:
    """Why this test process cannot run a jail as an ordinary user ('' if it can); asked
    once."""
    if os.geteuid() != 0:
        return ""  # it is one
    if shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed: cannot become another user"
    probe = [sys.executable, "-c", "import cardlang.runs.jail as j; j.find_jail()"]
    home = Path(tempfile.gettempdir())
    done = subprocess.run(
        _as_user(ORDINARY, home, probe), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return f"no jail for an ordinary user here: {done.stderr.strip()[-300:]}"
    return ""


@pytest.fixture(params=["root", "ordinary user"])
def jailer(request: pytest.FixtureRequest) -> int | None:
    """Who makes the jail: None for this process itself, else the ordinary user that this
    process (root) becomes; skips where that one cannot be had."""
    if request.param == "root":
        if os.geteuid() != 0:
            pytest.skip("not run as root: the root jail cannot be made")
        return None
    missing = _user_jail_missing()
    if missing:
        pytest.skip(missing)
    return ORDINARY if os.geteuid() == 0 else None


@pytest.fixture
def escape(jailer: int | None, workdir: Path) -> Escape:
    """``escape(*checks)``: jail_escapes.py's outcomes, run in a jail made by root or by
    an ordinary user (with ``--limits 64`` unless ``limits`` says otherwise)."""

    def run(*checks: str, limits: int = 64, budget: int = 64) -> dict[str, Any]:
        command = [sys.executable, "-c", RUNNER, str(ESCAPES)]
        command += ["--limits", str(limits), "--budget", str(budget), *checks]
        if jailer is not None:
            command = _as_user(jailer, workdir, command)
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=300, check=False, cwd=workdir
        )
        assert done.returncode == 0, done.stderr[-2000:]
        found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return found

    return run


# ---------------------------------------------------------------- in a real jail


@needs_jail
def test_no_user_namespace_and_no_mount(escape: Escape) -> None:
    """The issue's escape began with a user namespace of its own: unshare(2) and clone(2)
    with CLONE_NEWUSER are refused, clone3 is ENOSYS (the C library then falls back to
    clone, whose flags the filter sees), and mount is refused outright."""
    found = escape("userns", "clone_userns", "clone3", "mount")
    assert found == {
        "userns": "EPERM",
        "clone_userns": "EPERM",
        "clone3": "ENOSYS",
        "mount": "EPERM",
    }


@needs_jail
def test_no_keyring_between_two_jails(escape: Escape) -> None:
    """Two jailed workers of one user (nobody, for root's jails) share the kernel's
    keyring of that user: the first cannot store a value there, the second cannot find
    or read one."""
    first = escape("add_key")
    second = escape("read_key")
    assert first == {"add_key": "EPERM"}
    assert second == {"read_key": "EPERM"}


@needs_jail
def test_no_memory_file_no_ptrace(escape: Escape) -> None:
    assert escape("memfd", "ptrace") == {"memfd": "EPERM", "ptrace": "EPERM"}


@needs_jail
def test_no_memory_held_outside_the_limit(escape: Escape) -> None:
    """Every place an agent could keep memory its address-space limit does not count,
    each tried up to 64 MB: only /tmp holds any (TMP_BYTES, 16 MB), the kernel's pipe
    and socket buffers a few MB (bounded by the open-file limit)."""
    memory = ["park_dev_shm", "park_dev", "park_memfd", "park_sysv_shm", "park_sysv_msg"]
    memory += ["park_mqueue", "park_own_tmpfs"]
    found = escape("park_tmp", *memory)
    assert found["park_tmp"] <= TMP_BYTES / MB
    assert {name: found[name] for name in memory} == {name: 0 for name in memory}
    buffers = escape("park_pipes", "park_sockets")
    assert buffers["park_pipes"] <= 4, buffers  # 64 kB a pipe: F_SETPIPE_SZ is refused
    assert buffers["park_sockets"] <= 16, buffers


@needs_jail
def test_numpy_runs_under_the_filter(escape: Escape) -> None:
    """What the filter leaves is what Python and numpy need (OpenBLAS's buffers need
    more than 64 MB of address space, hence the larger limit)."""
    assert escape("numpy", limits=512) == {"numpy": "ok"}


@needs_jail
def test_an_agent_in_a_tournament_escapes_nothing(jailer: int | None, workdir: Path) -> None:
    """The same escapes from an agent's own code in a tournament's jailed worker (through
    agent_worker.py, under --memory-limit 64): each refused, each an error the agent
    reads (it plays on), and the tournament completes."""
    spec = f"{ESCAPES}:Escapist"
    data = _tournament(workdir, [spec, "random"], 2, "--memory-limit", "64", as_user=jailer)
    assert data["games"]["completed"] == 2
    reports = _reports(data, spec)
    assert len(reports) == 2  # one agent a game, in the same worker
    for report in reports:
        parked = {k: v for k, v in report.items() if k.startswith("park_")}
        refused = {k: v for k, v in report.items() if k not in parked}
        assert refused == {k: "ENOSYS" if k == "clone3" else "EPERM" for k in refused}
        assert {"userns", "mount", "add_key", "memfd", "ptrace"} <= set(refused)
        assert parked["park_tmp"] <= TMP_BYTES / MB
        assert sum(v for k, v in parked.items() if k != "park_tmp") <= 20, parked


# ---------------------------------------------------------------- the filter's program


def _run_bpf(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """What the classic BPF ``program`` returns for a call: the subset the jail uses
    (loads of a word of struct seccomp_data, jeq/jge/jset with constants, return)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, *(list(args) + [0] * 6)[:6])
    code = [struct.unpack_from("=HBBI", program, i) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        if op == 0x20:
            (acc,) = struct.unpack_from("=I", data, k)
        elif op == 0x06:
            return k
        else:
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[op]
            pc += jt if taken else jf


ALLOW, EPERM, ENOSYS = 0x7FFF0000, 0x00050001, 0x00050026
#: read, write, mmap, futex and socket's numbers: calls every worker makes.
EVERYDAY = {"x86_64": (0, 1, 9, 202, 41), "aarch64": (63, 64, 222, 98, 198)}


@pytest.mark.parametrize("name", sorted(SECCOMP_ARCHES))
def test_the_program_refuses_what_the_policy_lists(name: str) -> None:
    arch = SECCOMP_ARCHES[name]
    program = jail.seccomp_program(arch)
    assert len(program) % 8 == 0 and len(program) // 8 < 4096  # the kernel's limit

    def decide(call: str, *args: int) -> int:
        number = SYSCALLS[call][arch.column]
        assert number is not None
        return _run_bpf(program, number, arch.audit, args)

    for group in jail.DENIED_CALLS.values():
        for call in group:
            if SYSCALLS[call][arch.column] is not None:
                assert decide(call) == EPERM, call
    assert decide("clone3") == ENOSYS
    threads = 0x3D0F00  # what pthread_create passes: CLONE_VM|FS|FILES|SIGHAND|THREAD|...
    assert decide("clone", threads) == ALLOW and decide("clone", 17) == ALLOW  # and fork
    for flag in (0x00020000, 0x02000000, 0x10000000, 0x20000000, 0x40000000):
        assert decide("clone", flag | 17) == EPERM
    assert decide("personality", 0) == ALLOW and decide("personality", 0xFFFFFFFF) == ALLOW
    assert decide("personality", 0x0040000) == EPERM  # ADDR_NO_RANDOMIZE
    assert decide("fcntl", 3, 1031) == EPERM and decide("fcntl", 3, 1) == ALLOW
    assert decide("fcntl", 3, 1031, 1) == EPERM
    for number in EVERYDAY[name]:
        assert _run_bpf(program, number, arch.audit) == ALLOW, number
    assert _run_bpf(program, 0, 0x40000003) == EPERM  # i386 (int 0x80 on x86_64)
    if arch.x32:
        assert _run_bpf(program, 0x40000000 | 0, arch.audit) == EPERM


def test_an_unknown_architecture_is_refused_with_its_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import platform

    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    with pytest.raises(JailUnavailable, match="x86_64 and aarch64.*riscv64"):
        jail.seccomp_arch()


def test_the_docs_list_every_refused_call() -> None:
    """docs/agents.md's policy names each call the filter refuses."""
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    policy = text[text.index("## The jail's seccomp policy") :]
    for group in jail.DENIED_CALLS.values():
        for call in group:
            assert f"`{call}`" in policy, call
