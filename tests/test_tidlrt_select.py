"""Choosing the TIDL-RT layout family (tidl_io.runtime.tidlrt._select): the version (argument,
environment, net file) confirmed by the library's own defaults, against the C stand-in."""

from __future__ import annotations

import struct

import pytest

from tidl_io import TidlRtError
from tidl_io.runtime.tidlrt import TidlRtRuntime

from runtime_oracles import descs_for, net_for


def test_a_library_of_another_layout_is_refused_before_create(tidlrt_standin) -> None:
    desc = descs_for("T4P-c")[0]
    for lib_family, net_family in (("T4P-c", "T4P-b"), ("T4P-b", "T4P-c"), ("T6P-d", "T4P-c")):
        with pytest.raises(TidlRtError, match=rf"layout mismatch: the net file's TIDL_NET_VERSION .* means layout "
                                              rf"{net_family}, but .* \(its defaults match {lib_family}\)\. A struct .* To "
                                              rf"override: pass version="):
            TidlRtRuntime(desc, net_for(net_family), library=tidlrt_standin(lib_family))


def test_version_override_unknown_versions_and_io_mismatch(tidlrt_standin, monkeypatch) -> None:
    lib = tidlrt_standin("T4P-c")
    desc = descs_for("T4P-c")[0]
    rt = TidlRtRuntime(desc, net_for("T4P-b"), library=lib, version="8.6")  # the net says 8.2; the user knows better
    assert rt.family.key == "T4P-c" and rt.release == "08.06" and "version='8.6'" in rt.notes[0]
    monkeypatch.setenv("TIDL_IO_TIDLRT_VERSION", "08_06_00_10")
    assert TidlRtRuntime(desc, net_for("T4P-b"), library=lib).family.key == "T4P-c"
    monkeypatch.delenv("TIDL_IO_TIDLRT_VERSION")
    with pytest.raises(TidlRtError, match=r"version='12.3': not a TIDL release nor a layout family"):
        TidlRtRuntime(desc, net_for("T4P-c"), library=lib, version="12.3")
    with pytest.raises(TidlRtError, match=r"TIDL_NET_VERSION 0x20990101 is not in tidl-io's table .* defaults "
                                          r"matches T4P-c\. Refusing to guess"):
        TidlRtRuntime(desc, struct.pack("<I", 0x20990101) + bytes(8), library=lib)
    with pytest.raises(TidlRtError, match=r"version='T6P-d' names layout T6P-d, but the library's defaults matches "
                                          r"T4P-c"):
        TidlRtRuntime(desc, net_for("T4P-c"), library=lib, version="T6P-d")
    with pytest.raises(TidlRtError, match=r"io descriptor layout 10.x does not belong to TIDL-RT layout T4P-c"):
        TidlRtRuntime(descs_for("T6P-d")[0], net_for("T4P-c"), library=lib)


def test_9x_is_identified_from_the_library_alone(tidlrt_standin) -> None:
    # TIDL_NET_VERSION 0x20230802 is 9.0, whose header is not public: the library's defaults decide.
    desc = descs_for("T4P-c")[0]
    lib = tidlrt_standin("T4P-c")
    rt = TidlRtRuntime(desc, struct.pack("<I", 0x20230802) + bytes(8), library=lib)
    assert rt.family.key == "T4P-c" and "no public header for this release" in rt.notes[0]
