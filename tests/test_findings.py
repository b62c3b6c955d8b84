"""tidl_io.base.findings: doctor's result type and shared helpers; the doctor/sidecars import order."""

from __future__ import annotations

import subprocess
import sys

import tidl_io
from tidl_io.base.errors import FormatError
from tidl_io.base.findings import DoctorFinding, dims_text, reason

from conftest import ROOT


def test_sidecars_imports_without_doctor() -> None:
    """sidecars imported doctor's private helpers and doctor imported sidecars back (a cycle):
    a fresh interpreter importing sidecars alone must not load doctor."""
    code = "import sys, tidl_io.doctor.sidecars; print('tidl_io.doctor.checks' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_doctor_finding_is_not_validate_finding() -> None:
    """Two concepts, two names: validate's Finding (one io file's fields) stays tidl_io.Finding."""
    from tidl_io.doctor import checks as doctor

    assert doctor.DoctorFinding is DoctorFinding and not hasattr(doctor, "Finding")
    assert tidl_io.Finding is not DoctorFinding and "DoctorFinding" in doctor.__all__
    f = DoctorFinding("error", "io-net", "a_tidl_io_1.bin", "scale 2.0, but ...", ("input 0 'x'", "inTensorScale"))
    assert str(f) == "error: a_tidl_io_1.bin, input 0 'x', inTensorScale: scale 2.0, but ..."


def test_helpers() -> None:
    exc = FormatError("x_tidl_net.bin", "truncated: 5 bytes", offset=5, field="numLayers")
    assert reason(exc, "x_tidl_net.bin") == "offset 0x5, numLayers: truncated: 5 bytes"
    assert dims_text((1, 3, 4)) == "1x3x4"  # the releases' label moved to tidl_io.base.releases (test_releases.py)
