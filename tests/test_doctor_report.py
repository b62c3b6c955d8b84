"""tidl_io.doctor.report: the Diagnosis object's repr (its text, JSON and page are tested through
the command in tests/test_doctor.py)."""

from __future__ import annotations

from tidl_io.base.findings import DoctorFinding
from tidl_io.doctor.report import Diagnosis, SubgraphReport


def test_repr_is_short_and_counts_the_findings() -> None:
    """A diagnosis with 300 findings (its dataclass repr printed each one)."""
    findings = tuple(DoctorFinding("error" if k % 3 == 0 else "note", "io-net", f"sg{k}_tidl_io_1.bin", "m" * 80)
                     for k in range(300))
    subs = tuple(SubgraphReport(f"sg{k}", f"art/sg{k}_tidl_io_1.bin", None) for k in range(4))
    text = repr(Diagnosis("model", "model/artifacts", subs, ("09.00", "09.01"), None, findings))
    assert len(text) <= 300 and text.startswith("Diagnosis('model'")
    for part in ("subgraphs=4", "releases=('09.00', '09.01')", "findings=300", "errors=100", "ok=False"):
        assert part in text
