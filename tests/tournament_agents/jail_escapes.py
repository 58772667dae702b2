"""Attempts to leave the jail or to hold memory beyond its limit, for tests/test_jail_policy.py.

Two ways in:

- as a program, ``python jail_escapes.py [--limits MB] CHECK...``, started inside a jail
  with ``Jail.command``: it first does what an agent's worker does before any agent code
  (``drop_privileges``; with ``--limits``, ``limit_resources``), then runs each check and
  prints one line of JSON, ``{check: outcome}``;
- as an agent, ``jail_escapes.py:Escapist``, in a tournament's jailed worker: at its first
  decision it runs every check and prints ``REPORT <json>`` to its own log.

A check's outcome is ``"ok"`` when the call succeeded, else the errno's name
(``"EPERM"``); a parking check's is the megabytes it holds at once outside its address
space (it stops at ``--budget``, 256 MB unless told).  The syscall numbers are this file's
own: an attacker does not take the defender's table.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

MB = 1024 * 1024
#: The x86_64 and aarch64 numbers of the calls glibc has no wrapper for.
NUMBERS = {
    "x86_64": {"add_key": 248, "keyctl": 250, "clone": 56, "clone3": 435},
    "aarch64": {"add_key": 217, "keyctl": 219, "clone": 220, "clone3": 435},
}
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
KEY_SPEC_USER_KEYRING = -4
KEYCTL_SEARCH, KEYCTL_READ = 10, 11
KEY_NAME = b"cardlang-jail-test"

#: What must stay open to the end (a socket object closes its fd when collected).
_KEPT: list[Any] = []

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]


def _nr(name: str) -> int:
    return NUMBERS[platform.machine()][name]


def _outcome(result: int) -> str:
    """A C call's result as "ok" or the errno's name."""
    if result != -1:
        return "ok"
    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


def _os_outcome(call: Callable[[], Any]) -> str:
    try:
        call()
    except OSError as err:
        return errno.errorcode.get(err.errno or 0, str(err.errno))
    return "ok"


# ---------------------------------------------------------------- calls the jail refuses


def check_userns() -> str:
    return _outcome(libc.unshare(CLONE_NEWUSER))


def check_clone_userns() -> str:
    """A new process in a new user namespace through clone(2) itself (a child that
    appears only if the call succeeds, and exits at once)."""
    pid = libc.syscall(_nr("clone"), CLONE_NEWUSER | 17, 0, 0, 0, 0)  # 17: SIGCHLD
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
    return _outcome(pid if pid < 0 else 0)


def check_clone3() -> str:
    return _outcome(libc.syscall(_nr("clone3"), None, 0))


def check_mount() -> str:
    return _outcome(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))


def check_add_key() -> str:
    value = b"the opponent holds the king"
    return _outcome(
        libc.syscall(_nr("add_key"), b"user", KEY_NAME, value, len(value), KEY_SPEC_USER_KEYRING)
    )


def check_read_key() -> str:
    """Finds the key another jail would have left in this user's keyring, and reads it."""
    found = libc.syscall(_nr("keyctl"), KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", KEY_NAME, 0)
    if found == -1:
        return _outcome(-1)
    buffer = ctypes.create_string_buffer(256)
    size = libc.syscall(_nr("keyctl"), KEYCTL_READ, found, buffer, 256)
    return "read: " + buffer.raw[: max(size, 0)].decode() if size >= 0 else _outcome(-1)


def check_memfd() -> str:
    return _os_outcome(lambda: os.close(os.memfd_create("park")))


def check_ptrace() -> str:
    return _outcome(libc.ptrace(0, 0, None, None))  # PTRACE_TRACEME


def check_numpy() -> str:
    import numpy

    return "ok" if int(numpy.arange(10).sum()) == 45 else "wrong"


# ---------------------------------------------------------------- memory outside RLIMIT_AS


def _fill(fd: int, budget: int) -> int:
    """Writes into ``fd`` until the kernel refuses or ``budget`` bytes; the bytes held."""
    chunk, held = b"x" * MB, 0
    while held < budget:
        try:
            held += os.write(fd, chunk[: min(MB, budget - held)])
        except OSError:
            break
    return held


def park_files(folder: str, budget: int) -> int:
    """Files in ``folder`` (a tmpfs: its pages are memory), each as large as allowed."""
    held, i = 0, 0
    while held < budget:
        try:
            fd = os.open(f"{folder}/park{i}", os.O_CREAT | os.O_WRONLY, 0o600)
        except OSError:
            break
        wrote = _fill(fd, budget - held)
        os.close(fd)
        held, i = held + wrote, i + 1
        if wrote == 0:
            break
    return held


def park_memfds(budget: int) -> int:
    held = 0
    while held < budget:
        try:
            fd = os.memfd_create("park")  # kept open: its pages live as long as the fd
        except OSError:
            break
        wrote = _fill(fd, budget - held)
        held += wrote
        if wrote == 0:
            break
    return held


def park_sysv_shm(budget: int) -> int:
    """Segments written through a mapping, then detached: they stay in the IPC namespace."""
    held, size = 0, 16 * MB
    while held < budget:
        shm = libc.shmget(0, size, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if shm == -1:
            break
        where = libc.shmat(shm, None, 0)
        if where in (None, ctypes.c_void_p(-1).value):
            break
        ctypes.memset(where, 1, size)
        libc.shmdt(where)
        held += size
    return held


def park_sysv_messages(budget: int) -> int:
    held, message = 0, ctypes.create_string_buffer(8 + 8192)
    message[0] = b"\x01"  # the message's type (a long, little-endian)
    while held < budget:
        queue = libc.msgget(0, 0o1600)
        if queue == -1:
            break
        sent = 0
        while libc.msgsnd(queue, message, 8192, 0o4000) == 0:  # IPC_NOWAIT
            sent += 8192
        held += sent
        if sent == 0:
            break
    return held


def park_mqueues(budget: int) -> int:
    libc.mq_open.restype = ctypes.c_int
    queue = libc.mq_open(b"/park", os.O_CREAT | os.O_WRONLY | os.O_NONBLOCK, 0o600, None)
    if queue == -1:
        return 0
    held, chunk = 0, b"x" * 8192
    while held < budget and libc.mq_send(queue, chunk, len(chunk), 0) == 0:
        held += len(chunk)
    return held


def park_pipes(budget: int) -> int:
    import fcntl

    held = 0
    while held < budget:
        try:
            _, write = os.pipe()
        except OSError:
            break
        try:
            fcntl.fcntl(write, 1031, MB)  # F_SETPIPE_SZ
        except OSError:
            pass
        os.set_blocking(write, False)
        wrote = _fill(write, budget - held)
        held += wrote
        if wrote == 0:
            break
    return held


def park_sockets(budget: int) -> int:
    """Bytes written into socket pairs and never read: the kernel's buffers hold them."""
    import socket

    held = 0
    while held < budget:
        try:
            ours, theirs = socket.socketpair()
        except OSError:
            break
        ours.setblocking(False)
        wrote = _fill(ours.fileno(), budget - held)
        _KEPT.append((ours, theirs))
        held += wrote
        if wrote == 0:
            break
    return held


def park_own_tmpfs(budget: int) -> int:
    """The issue's escape: a user namespace of its own, and a tmpfs mounted in it."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1:
        return 0
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: else /proc/self/uid_map is root's
    try:  # root of the new namespace, so that its files have an owner
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
        Path("/proc/self/gid_map").write_text(f"0 {gid} 1")
    except OSError:
        pass
    if libc.mount(b"none", b"/tmp", b"tmpfs", 0, b"size=50%") == -1:
        return 0
    return park_files("/tmp", budget)


PARKING: dict[str, Callable[[int], int]] = {
    "park_tmp": lambda budget: park_files("/tmp", budget),
    "park_dev_shm": lambda budget: park_files("/dev/shm", budget),
    "park_dev": lambda budget: park_files("/dev", budget),
    "park_memfd": park_memfds,
    "park_sysv_shm": park_sysv_shm,
    "park_sysv_msg": park_sysv_messages,
    "park_mqueue": park_mqueues,
    "park_pipes": park_pipes,
    "park_sockets": park_sockets,
    "park_own_tmpfs": park_own_tmpfs,
}

CHECKS: dict[str, Callable[[], str]] = {
    "userns": check_userns,
    "clone_userns": check_clone_userns,
    "clone3": check_clone3,
    "mount": check_mount,
    "add_key": check_add_key,
    "read_key": check_read_key,
    "memfd": check_memfd,
    "ptrace": check_ptrace,
    "numpy": check_numpy,
}


def run(names: list[str], budget: int) -> dict[str, Any]:
    """Every named check's outcome; the parking ones in megabytes, all held until the end
    (what the jail lets one agent hold at once)."""
    found: dict[str, Any] = {}
    for name in names:
        if name in PARKING:
            found[name] = round(PARKING[name](budget) / MB, 1)
        else:
            found[name] = CHECKS[name]()
    return found


def main(argv: list[str]) -> int:
    from cardlang.runs import jail

    jail.drop_privileges()  # what the worker does first
    budget = 256 * MB
    if "--budget" in argv:
        at = argv.index("--budget")
        budget = int(argv.pop(at + 1)) * MB
        argv.pop(at)
    if "--limits" in argv:
        at = argv.index("--limits")
        jail.limit_resources(int(argv.pop(at + 1)), refuse_processes=True)
        argv.pop(at)
    print(json.dumps(run(argv, budget)), flush=True)
    return 0


class Escapist:
    """An agent that tries every check at its first decision (its limits are the
    tournament's: ``--memory-limit``), reports, and then plays the first option."""

    def __init__(self, seed: int = 0) -> None:
        self.tried = False

    def choose(self, view: Any, options: Any) -> int:
        if not self.tried:
            self.tried = True
            # not numpy: OpenBLAS's buffers need more than a small memory limit
            names = [n for n in CHECKS if n not in ("read_key", "numpy")] + list(PARKING)
            print("REPORT", json.dumps(run(names, 128 * MB)), flush=True)
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
