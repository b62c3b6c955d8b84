"""What TI's board runtime needs before any call of it that can crash, checked without
calling it.

TIDL-RT built for a board (TI's Linux SDK ``libvx_tidl_rt.so``, as opposed to the x86
build in ``tidl_tools`` that emulates the C7x) runs on the remote cores through TI's
vision_apps layer. Its first ``TIDLRT_create`` calls TI's ``appInit``, which (TIDL-RT 8.4,
seen under qemu with its own messages and system calls):

- opens ``/dev/mem`` to map the global timer, the log memory and the IPC spinlocks;
- opens the shared-memory heap ``/dev/dma_heap/vision_apps_shared-memories`` (older
  releases: TI's cmem or ion device) and ``/dev/dma-buf-phys``;
- talks to the remote cores through rpmsg (``/dev/rpmsg_ctrl*``), which needs them
  running (``/sys/class/remoteproc/*/state``).

When one of these is missing ``appInit`` prints errors and returns, and ``TIDLRT_create``
goes on and dies with SIGSEGV: so they are checked first. What a library needs is read
from its own bytes (the device paths it names), so a PC build needs nothing and a release
naming other devices is checked for those.

``TIDLRT_allocSharedMem`` does not set the heap up either: called before any
``TIDLRT_create`` in the process it issues the DMA-heap ioctl on file descriptor 0 and
TI prints ``MEM: ERROR: Alloc failed with status = N`` (N the ioctl's errno):
:func:`alloc_status_cause` says what N means.
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ...base.errors import TidlRtError
from .library import ENV_LIBRARY, Library

__all__ = ["ENV_PREFLIGHT", "Check", "Needs", "alloc_status_cause", "check_devices", "library_needs", "preflight"]

ENV_PREFLIGHT = "TIDL_IO_TIDLRT_PREFLIGHT"

# device path a library may name -> what TI's runtime uses it for
_DEVICES = {
    "/dev/mem": "physical memory for TI's global timer, log memory and IPC spinlocks; needs root",
    "/dev/dma_heap/vision_apps_shared-memories": "TI's shared-memory heap, the vision_apps DMA heap",
    "/dev/dma-buf-phys": "TI's dma-buf to physical address driver",
    "/dev/cmem": "TI's CMEM shared-memory heap",
    "/dev/ion": "the ION shared-memory heap",
}
_IPC_MARKERS = (b"rpmsg", b"Rpmsg", b"appIpcInit")
_FIRMWARE_HINT = ("on a TI board: the remote cores' firmware must be loaded and running (cat "
                  "/sys/class/remoteproc/*/state), with TI's SDK kernel and device tree (vision_apps heap), "
                  "and tidl-io run as root")


@dataclass(frozen=True)
class Needs:
    """What a library needs from the machine: device paths and rpmsg to remote cores."""

    devices: tuple[str, ...]
    ipc: bool

    @property
    def board(self) -> bool:
        """A board build (needs devices or remote cores); a PC build needs nothing."""
        return bool(self.devices) or self.ipc


@dataclass(frozen=True)
class Check:
    """One requirement: its short name, what it is, whether it is met, what was found."""

    name: str
    what: str
    ok: bool
    found: str


_NEEDS: dict[str, Needs] = {}


def library_needs(path: str) -> Needs:
    """What the library at ``path`` needs, from the device paths and IPC symbols it names
    (cached per path). A file that cannot be read needs nothing known."""
    hit = _NEEDS.get(path)
    if hit is None:
        try:
            data = Path(path).read_bytes()
        except OSError:
            data = b""
        devices = tuple(d for d in _DEVICES if re.search(re.escape(d.encode()) + rb"\x00", data))
        hit = Needs(devices, any(m in data for m in _IPC_MARKERS))
        _NEEDS[path] = hit
    return hit


def _device(root: Path, path: str) -> Check:
    what = f"{path} ({_DEVICES[path]})"
    p = root / path.lstrip("/")
    if not p.exists():
        return Check(path, what, False, "missing")
    if not os.access(p, os.R_OK | os.W_OK):
        return Check(path, what, False, "present, but not readable and writable by this user")
    return Check(path, what, True, "present")


def _remote_cores(root: Path) -> list[Check]:
    ctrl = sorted((root / "dev").glob("rpmsg_ctrl*"))
    checks = [Check("/dev/rpmsg_ctrl*", "/dev/rpmsg_ctrl* (rpmsg to the remote cores)", bool(ctrl),
                    ", ".join(c.name for c in ctrl) or "none")]
    cls = root / "sys" / "class" / "remoteproc"
    cores = []
    for rp in sorted(cls.glob("remoteproc*")):
        try:
            name = (rp / "name").read_text().strip()
            state = (rp / "state").read_text().strip()
        except OSError:
            continue
        cores.append((rp.name, name, state))
    dsps = [c for c in cores if "dsp" in c[1]] or cores
    running = [c for c in dsps if c[2] == "running"]
    if not cores:
        found = f"{cls} is missing or empty (no remoteproc: not a TI board, or the kernel lacks remoteproc)"
    else:
        found = ", ".join(f"{rp} {name}: {state}" for rp, name, state in cores)
    checks.append(Check("remote cores", "a running DSP remote core (/sys/class/remoteproc/*/state)", bool(running), found))
    return checks


def check_devices(needs: Needs, root: str | os.PathLike[str] = "/") -> list[Check]:
    """Every requirement of ``needs`` checked under ``root`` (a folder standing for ``/``)."""
    base = Path(root)
    checks = [_device(base, d) for d in needs.devices]
    if needs.ipc:
        checks += _remote_cores(base)
    return checks


def preflight(lib: Library, root: str | os.PathLike[str] = "/") -> list[Check]:
    """The checks for ``lib`` (empty for a PC build, or when ``$TIDL_IO_TIDLRT_PREFLIGHT``
    is 0); a :class:`~tidl_io.TidlRtError` naming each unmet one and what to do."""
    if os.environ.get(ENV_PREFLIGHT, "").strip().lower() in ("0", "false", "off", "no"):
        return []
    checks = check_devices(library_needs(lib.path), root)
    bad = [c for c in checks if not c.ok]
    if bad:
        raise TidlRtError(
            f"{lib.path} is TI's board runtime and cannot run here; it needs: "
            + "; ".join(f"{c.what}: {c.found}" for c in bad)
            + ". Without them TI's appInit fails and TIDLRT_create would crash the process (SIGSEGV). This is "
            f"not a TI board with its firmware running (a PC, a container or qemu): use runtime='mock' "
            f"(tidl-io run --runtime mock), or TI's PC emulation (${ENV_LIBRARY} to tidl_tools' x86 library); "
            f"{_FIRMWARE_HINT}. ${ENV_PREFLIGHT}=0 skips this check", call="preflight")
    return checks


_ALLOC_CAUSES = {
    errno.ENOSYS: "the DMA-heap ioctl is not implemented here (qemu-user does not emulate it, or the kernel "
                  "has no DMA heaps)",
    errno.ENOTTY: "the file descriptor TI used is not a DMA heap: its heap was never opened (TI opens it in "
                  "TIDLRT_create's appInit; before any create it uses descriptor 0)",
    errno.EBADF: "TI's heap device could not be opened (appInit failed; see the devices above)",
    errno.ENOMEM: "the shared heap is full: free buffers you no longer need",
    errno.EINVAL: "the size or alignment was refused by the heap",
}


def alloc_status_cause(status: int) -> str:
    """What TI's ``MEM: ERROR: Alloc failed with status = N`` means: N is the errno of the
    DMA-heap allocation ioctl, not a TIDL status."""
    name = errno.errorcode.get(status, "?")
    return f"errno {status} ({name}): " + _ALLOC_CAUSES.get(status, os.strerror(status))
