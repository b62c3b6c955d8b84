"""What this machine offers tidl-io: what ``tidl-io info`` prints.

Each line comes from a provider, a function returning ``(label, text)``; add one to
:data:`PROVIDERS` (or call :func:`register`) to extend the report. A provider must not
raise for a missing feature: it says what is missing and why.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable

from ..base.errors import TidlRtError
from ..base.releases import release_table
from ..base.version import __version__

__all__ = ["PROVIDERS", "collect", "cpu_description", "format_info", "native_description", "register"]

Provider = Callable[[], tuple[str, str]]


def _python() -> tuple[str, str]:
    return "python", f"{platform.python_version()} ({sys.executable})"


def _numpy() -> tuple[str, str]:
    import numpy  # start-up

    return "numpy", numpy.__version__


def _tidlio() -> tuple[str, str]:

    return "tidl-io", __version__


def _library() -> tuple[str, str]:
    from .tidlrt import load_library  # start-up

    try:
        lib = load_library()
    except TidlRtError as exc:
        return "TIDL-RT library", f"not found ({exc})"
    missing = f"; lacks {', '.join(lib.missing)}" if lib.missing else ""
    return "TIDL-RT library", f"{lib.path} (found via {lib.how}){missing}"


def _layout() -> tuple[str, str]:
    from .tidlrt import families, load_library, probe  # start-up

    try:
        lib = load_library()
        fp = probe(lib)
    except TidlRtError as exc:
        return "TIDL-RT layout", f"unknown ({exc.call or 'library'}: not loaded)"
    if len(fp.matches) != 1:
        return "TIDL-RT layout", f"not identified: the library's defaults {fp.summary()}"
    key = fp.matches[0]
    rel = [r.ti for r in release_table().with_tidlrt(key)]
    return "TIDL-RT layout", (f"{families()[key].describe()}; releases {', '.join(rel) or 'none in the table'} "
                              f"(from the library's defaults)")


def _devices() -> tuple[str, str]:
    from .tidlrt import load_library  # start-up
    from .tidlrt.devices import check_devices, library_needs  # start-up

    try:
        lib = load_library()
    except TidlRtError:
        return "TIDL-RT devices", "no TIDL-RT library"
    needs = library_needs(lib.path)
    if not needs.board:
        return "TIDL-RT devices", "none needed (a PC build: TI's emulation of the C7x)"
    checks = check_devices(needs)
    bad = [c for c in checks if not c.ok]
    if not bad:
        return "TIDL-RT devices", f"ready (TI's board runtime: {', '.join(c.name for c in checks)})"
    return "TIDL-RT devices", ("missing (TI's board runtime; TIDL-RT cannot run here, tidl-io run uses the mock): "
                               + "; ".join(f"{c.what}: {c.found}" for c in bad))


def _shared_memory() -> tuple[str, str]:
    from .tidlrt import load_library  # start-up
    from .tidlrt.devices import library_needs  # start-up
    from .tidlrt.library import alloc_shared  # start-up

    try:
        lib = load_library()
    except TidlRtError:
        return "shared memory", "no TIDL-RT library"
    if not (lib.has("TIDLRT_allocSharedMem") and lib.has("TIDLRT_freeSharedMem")):
        return "shared memory", "not offered by this library (older than 8.0): TIDL-RT copies every tensor"
    if library_needs(lib.path).board:  # its heap exists only after a TIDLRT_create (appInit)
        return "shared memory", ("not probed: TI's board runtime sets its heap up in TIDLRT_create, so an "
                                 "allocation before one always fails; tidl-io run probes it after a trial create")
    try:
        registry: dict[int, int] = {}
        block = alloc_shared(lib, 4096, 128, registry)
        block[:] = 0x5A
        ok = bool(block.all()) and (not lib.has("TIDLRT_isSharedMem")
                                    or lib.fn("TIDLRT_isSharedMem")(block.ctypes.data) == 1)
        del block
    except TidlRtError as exc:
        return "shared memory", f"not working: {exc}"
    return "shared memory", "working (4 KiB allocated, written, recognised and freed)" if ok else \
        "allocates, but TIDLRT_isSharedMem does not recognise the block"


# CPU features that decide which native kernels run (x86-64, aarch64), as /proc/cpuinfo names them
_ISA_FLAGS = ("sse4_1", "avx2", "fma", "avx512f", "asimd", "sve")


def cpu_description(cpuinfo: str | None = None) -> str:
    """The CPU's model, logical CPU count, machine and vector features, from ``cpuinfo`` (the text
    of /proc/cpuinfo; read here when None, absent off Linux), e.g. ``"Intel(R) Xeon(R) Processor, 2
    CPUs, x86_64 (sse4_1 avx2 fma avx512f)"``: benchmark tables print it (speed ratios depend on it)."""
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
                cpuinfo = f.read()
        except OSError:
            cpuinfo = ""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip().lower(), value.strip())
    model = fields.get("model name") or fields.get("hardware") or ""
    if not model and "cpu part" in fields:  # (aarch64 kernels name the part, not the model)
        model = f"CPU implementer {fields.get('cpu implementer', '?')} part {fields['cpu part']}"
    flags = set((fields.get("flags") or fields.get("features") or "").split())
    isa = " ".join(f for f in _ISA_FLAGS if f in flags)
    return (f"{model or platform.processor() or 'unknown CPU'}, {os.cpu_count()} CPUs, {platform.machine()}"
            + (f" ({isa})" if isa else ""))


def _cpu() -> tuple[str, str]:
    return "cpu", cpu_description()


def native_description() -> str:
    """Which path the kernels take and what they chose from the CPU at load time (the ISA level, the
    caches, the blocking): the ``native kernels`` line of ``tidl-io info``, which benchmark tables print too."""
    from ..native import info  # start-up

    n = info()
    if not n["active"]:
        return f"off, NumPy path ({n['reason']})"
    return f"active: {n['path']} ({n['isa']}, {n['threads']} thread(s)){_tuning(n)}"


def _native() -> tuple[str, str]:
    return "native kernels", native_description()


def _size(nbytes: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift} {unit}"
    return f"{nbytes} B"


def _tuning(n: dict[str, object]) -> str:
    """What the kernels chose from the CPU at load time (native_info()'s isa_level, caches, blocking)."""
    caches, blocking = n.get("caches"), n.get("blocking")
    if not isinstance(caches, dict) or not isinstance(blocking, dict):
        return ""
    levels = n.get("isa_levels")
    levels = levels if isinstance(levels, list) else []
    return (f"; ISA level {n.get('isa_level')} (of {', '.join(str(x) for x in levels)}; TIDL_IO_ISA caps it); "
            f"caches L1d {_size(caches['l1d'])}, L2 {_size(caches['l2'])}, "
            f"L3 {_size(caches['l3']) if caches['l3'] else 'none found'} (from {caches['source']}); "
            f"in-place transpose blocks of {blocking['sq_tile_f32']} four-byte cells, transposes through blocks "
            f"of {blocking['tr_cols']} source rows, non-temporal stores from {_size(blocking['nt_min'])} out"
            + (f"; rows and (de)interleaves on one thread up to {_size(blocking['split_min'])} moved"
               if "split_min" in blocking else ""))


PROVIDERS: list[Provider] = [_tidlio, _python, _numpy, _cpu, _native, _library, _layout, _devices, _shared_memory]


def register(provider: Provider) -> None:
    """Add one line to ``tidl-io info``."""
    PROVIDERS.append(provider)


def collect() -> list[tuple[str, str]]:
    """(label, text) from every provider, in order; a failing provider reports its error."""
    out = []
    for p in PROVIDERS:
        try:
            out.append(p())
        except Exception as exc:  # noqa: BLE001 - one broken provider must not hide the rest
            out.append((getattr(p, "__name__", "?").strip("_"), f"error: {type(exc).__name__}: {exc}"))
    return out


def format_info(lines: list[tuple[str, str]]) -> str:
    width = max((len(k) for k, _ in lines), default=0)
    return "\n".join(f"{k + ':':<{width + 1}} {v}" for k, v in lines)
