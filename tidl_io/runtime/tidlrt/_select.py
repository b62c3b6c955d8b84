"""Which TIDL-RT layout family a library and a model use: what the version says (``version=``,
``$TIDL_IO_TIDLRT_VERSION``, the net file's TIDL_NET_VERSION, the io layout), confirmed by
the library's own default-setters (the fingerprint, spec tidlrt.md §4). Never a guess."""

from __future__ import annotations

import ctypes
import os
import struct
from dataclasses import dataclass

from ...base.errors import TidlRtError
from ...base.releases import find_release
from ...iodesc.descriptor import Descriptor
from .library import ENV_LIBRARY, ENV_VERSION, GUARD, Library
from .structs import Family, Fingerprint, families, match_fingerprint, releases

__all__ = ["Selection", "net_version", "probe", "select_family"]

_PROBE_BYTES = 4096  # larger than any known Params (1648) or Tensor (616)
_PATTERNS = (0xCD, 0x32)
_FINGERPRINTS: dict[str, Fingerprint] = {}


@dataclass(frozen=True)
class Selection:
    """The chosen family, the release it stands for (when known) and how it was decided."""

    family: Family
    release: str | None
    how: str
    fingerprint: Fingerprint


def net_version(net: bytes) -> int | None:
    """TIDL_NET_VERSION: the first little-endian uint32 of ``*_tidl_net.bin``."""
    return struct.unpack_from("<I", net)[0] if len(net) >= 4 else None


def _written(lib: Library, name: str) -> tuple[bytes, set[int]]:
    """Call ``name`` on pattern-filled memory twice (two patterns): the bytes it left and
    the offsets it changed."""
    runs = []
    for pattern in _PATTERNS:
        buf = ctypes.create_string_buffer(bytes([pattern]) * (_PROBE_BYTES + GUARD), _PROBE_BYTES + GUARD)
        with lib.lock:
            status = lib.fn(name)(ctypes.addressof(buf))
        if status not in (0, None):
            raise TidlRtError(f"{lib.path}: {name} returned {status} on a fresh struct", call=name, status=status)
        runs.append(buf.raw)
    a, b = runs
    touched = {i for i in range(len(a)) if a[i] != _PATTERNS[0] or b[i] != _PATTERNS[1]}
    merged = bytearray(a)
    for i in touched:
        if a[i] == _PATTERNS[0]:
            merged[i] = b[i]
    return bytes(merged), touched


def probe(lib: Library) -> Fingerprint:
    """The library's fingerprint (cached per library)."""
    hit = _FINGERPRINTS.get(lib.path)
    if hit is None:
        hit = match_fingerprint(_written(lib, "TIDLRT_setParamsDefault"), _written(lib, "TIDLRT_setTensorDefault"))
        _FINGERPRINTS[lib.path] = hit
    return hit


def _how_to_override() -> str:
    return (f"pass version='MM.NN' (the TIDL release the library comes from, e.g. '08.06' or '11.01', or a "
            f"layout family: {', '.join(families())}; or set "
            f"${ENV_VERSION}), or point ${ENV_LIBRARY} at the library of the release the model was compiled with")


def select_family(lib: Library, desc: Descriptor, net: bytes | None, version: str | None) -> Selection:
    """The layout family to use with ``lib`` for ``desc``, or a :class:`TidlRtError` saying
    what was found and how to override."""
    fp = probe(lib)
    known = ", ".join(sorted(k for k in releases()))
    release: str | None = None
    if version is None and os.environ.get(ENV_VERSION):
        version, source = os.environ[ENV_VERSION], f"${ENV_VERSION}={os.environ[ENV_VERSION]!r}"
    else:
        source = f"version={version!r}"
    if version is not None and str(version) in families():
        key = str(version)
        if key not in fp.matches:
            raise TidlRtError(f"{lib.path}: {source} names layout {key}, but the library's defaults "
                              f"{fp.summary()}. To override: {_how_to_override()}", call="version")
        return Selection(families()[key], None, f"{source}, confirmed by the library's defaults", fp)
    if version is not None:
        named = find_release(str(version))
        release = None if named is None else named.ti
        if release is None:
            raise TidlRtError(f"{source}: not a TIDL release nor a layout family tidl-io knows (releases: {known}; "
                              f"families: {', '.join(families())}); the library's defaults "
                              f"{fp.summary()}. {_how_to_override()}", call="version")
    elif net is not None and (word := net_version(net)) is not None:
        named = find_release(word)
        release = None if named is None else named.ti
        source = f"the net file's TIDL_NET_VERSION {word:#010x}"
        if release is None:
            raise TidlRtError(f"{source} is not in tidl-io's table (known releases: {known}); the library's "
                              f"defaults {fp.summary()}. Refusing to guess; {_how_to_override()}", call="version")
        source += f" (TIDL {release})"
    candidates: tuple[str, ...]
    if release is not None:
        table_key = releases()[release]
        if table_key is None:
            candidates = tuple(families())
            how = (f"{source}: no public header for this release, identified from the library's defaults")
        else:
            candidates = (table_key,)
            how = f"{source}, confirmed by the library's defaults"
    else:
        candidates = tuple(k for k, f in families().items() if desc.family in f.io_families) or tuple(families())
        source = f"the io descriptor's layout ({desc.family})"
        how = f"{source} and the library's defaults"
    chosen = [k for k in candidates if k in fp.matches]
    if len(chosen) != 1:
        expected = " or ".join(candidates)
        if not fp.matches:
            found = fp.summary()
        else:
            found = f"its defaults match {', '.join(fp.matches)}"
        raise TidlRtError(
            f"{lib.path}: TIDL-RT layout mismatch: {source} means layout {expected}, but the library's "
            f"TIDLRT_setParamsDefault / setTensorDefault say otherwise ({found}). A struct of the wrong layout "
            f"lets the library write past it. To override: {_how_to_override()}", call="version")
    fam = families()[chosen[0]]
    if release is not None and releases()[release] is not None and desc.family not in fam.io_families:
        raise TidlRtError(
            f"{desc.source}: io descriptor layout {desc.family} does not belong to TIDL-RT layout {fam.key} "
            f"({fam.title}, io layouts {', '.join(fam.io_families)}): the model was compiled for another TIDL "
            f"release than the library's; recompile it with the matching tidl_tools", call="version")
    return Selection(fam, release, how, fp)
