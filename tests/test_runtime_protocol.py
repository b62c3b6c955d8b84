"""The runtime protocol types (tidl_io.runtime.protocol): InvokeReport's totals and text."""

from __future__ import annotations

from runtime_oracles import (
    PADDED,
    PADDED_OUT,
    _small,
)

from tidl_io.runtime import (
    InvokeReport,
    MockC7xRuntime,
    alloc_shared_buffers,
)


def test_report_text_and_totals() -> None:
    desc = _small(inputs=[PADDED], outputs=[PADDED_OUT])
    rt = MockC7xRuntime(desc, model="ramp")
    ins, outs = alloc_shared_buffers(rt)
    rep = rt.invoke({"img": ins["img"].copy()}, outs)
    assert isinstance(rep, InvokeReport)
    assert rep.bytes_copied == 3 * 57 and rep.copied == ("img",) and rep.zero_copy == ("feat",)
    assert rep.total_seconds >= rep.device_seconds + rep.copy_seconds >= rep.model_seconds >= 0
    text = str(rep)
    assert "input 'img': memcpy, 171 bytes (user memory, not shared (alloc_shared))" in text
    assert "output 'feat': zero-copy, 0 bytes" in text
