"""The allocation cap: TIDL_IO_MAX_ALLOC_BYTES parsing, the per-call override, exact
boundaries and messages. Expected values are literal byte counts worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tidl_io import AllocationLimitError, ArgumentTypeError, OptionError, TidlIoError
from tidl_io.base.limits import (
    DEFAULT_MAX_ALLOC_BYTES,
    ENV_MAX_ALLOC_BYTES,
    check_alloc,
    max_alloc_bytes,
    parse_size,
)

ENV = "TIDL_IO_MAX_ALLOC_BYTES"


def test_names_and_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ENV_MAX_ALLOC_BYTES == ENV
    assert DEFAULT_MAX_ALLOC_BYTES == 1073741824
    monkeypatch.delenv(ENV, raising=False)
    assert max_alloc_bytes() == 1073741824
    monkeypatch.setenv(ENV, "   ")
    assert max_alloc_bytes() == 1073741824


@pytest.mark.parametrize("text,expected", [
    ("0", 0),
    ("67108864", 67108864),
    (" 1024 ", 1024),
    ("1_000_000", 1000000),
    ("512k", 524288),
    ("64M", 67108864),
    ("64MiB", 67108864),
    ("64mb", 67108864),
    ("2G", 2147483648),
    ("2 GiB", 2147483648),
    ("1T", 1099511627776),
    ("100B", 100),
])
def test_env_values(monkeypatch: pytest.MonkeyPatch, text: str, expected: int) -> None:
    monkeypatch.setenv(ENV, text)
    assert max_alloc_bytes() == expected
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["-1", "-64M", "abc", "1.5G", "1e9", "0x10", "64X", "1__0", "10_", "G", "1 0",
                                  "9" * 5000, "\u0663"])  # 5000 digits were a ValueError (Python's digit limit)
def test_bad_env_values_are_clear_errors(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv(ENV, text)
    with pytest.raises(AllocationLimitError) as info:
        max_alloc_bytes()
    message = str(info.value)
    assert message.startswith(f"{ENV}={text!r}: expected a whole number of bytes >= 0")
    # the error surfaces from check_alloc too (every allocation reads the cap), as the library's type
    with pytest.raises(TidlIoError, match=ENV):
        check_alloc(1, "input 0 'x'")


def test_per_call_override_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "not a number")
    assert max_alloc_bytes(4096) == 4096
    assert max_alloc_bytes(np.int64(4096)) == 4096
    check_alloc(4096, "t", max_bytes=4096)
    monkeypatch.setenv(ENV, "16")
    check_alloc(4096, "t", max_bytes=4096)  # 16 from the environment does not apply
    with pytest.raises(AllocationLimitError, match=r"\(max_bytes\)"):
        check_alloc(4097, "t", max_bytes=4096)


@pytest.mark.parametrize("bad", [1.5, "4096", True, [4096]])
def test_max_bytes_of_a_wrong_kind(bad: object) -> None:
    with pytest.raises(ArgumentTypeError, match=r"^f: max_bytes: expected a whole number of bytes >= 0 \(an int\) "
                                                r"or None, found "):
        max_alloc_bytes(bad, "f")  # type: ignore[arg-type]


def test_negative_max_bytes_is_a_bad_option() -> None:
    with pytest.raises(OptionError, match=r"^max_bytes must be a whole number of bytes >= 0, found -1$"):
        max_alloc_bytes(-1)


def test_exact_boundary_and_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "64M")
    check_alloc(67108864, "input 0 'image'")  # exactly the cap: allowed
    check_alloc(0, "input 0 'image'")
    with pytest.raises(AllocationLimitError) as info:
        check_alloc(67108865, "input 0 'image'")
    assert str(info.value) == (
        "input 0 'image': allocating 67108865 bytes (64.0 MiB) exceeds the limit of 67108864 bytes "
        f"({ENV}); raise it with max_bytes= or {ENV}")
    assert isinstance(info.value, MemoryError) and isinstance(info.value, TidlIoError)


def test_zero_cap_refuses_everything_but_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "0")
    check_alloc(0, "t")
    with pytest.raises(AllocationLimitError, match="allocating 1 bytes"):
        check_alloc(1, "t")


@pytest.mark.parametrize("nbytes,human", [
    (2**31 * 2**31 * 2**31 * 8, "72057594037927936.0 TiB"),  # 2**96 / 2**40 = 2**56  # int32 dims whose product overflows int64
    (2**200, f"{2**200 * 10 // 2**40 // 10}.{2**200 * 10 // 2**40 % 10} TiB"),  # beyond any float64
    (1536, "1.5 KiB"),
])
def test_any_size_is_compared_exactly_and_formats(nbytes: int, human: str) -> None:
    with pytest.raises(AllocationLimitError) as info:
        check_alloc(nbytes, "output 3 'o'", max_bytes=1024)
    assert f"allocating {nbytes} bytes ({human})" in str(info.value)


def test_negative_size_is_refused() -> None:
    with pytest.raises(AllocationLimitError, match=r"output 1 'o': cannot allocate a negative size \(-8 bytes\)"):
        check_alloc(-8, "output 1 'o'")


@pytest.mark.parametrize("alignment", [1, 8, 64, 128, 4096])
@pytest.mark.parametrize("nbytes", [0, 1, 63, 1000])
def test_aligned_zeros(nbytes: int, alignment: int) -> None:
    from tidl_io.base.limits import aligned_zeros

    a = aligned_zeros(nbytes, alignment)
    assert a.dtype == np.uint8 and a.shape == (nbytes,) and not a.any()
    assert nbytes == 0 or a.ctypes.data % alignment == 0  # (NumPy keeps the block's address for an empty slice)
    assert a.base is not None and a.base.nbytes == nbytes + alignment
