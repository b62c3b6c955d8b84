"""The schema compiler: every layout from schemas/*.yaml, sizes distinct and as the spec says."""

from __future__ import annotations

import numpy as np
import pytest

from tidl_io.iodesc import schema as _schema

from conftest import corpus_params


def test_every_known_size_and_nothing_else() -> None:
    sizes = {lay.size: lay.key for lay in _schema.layouts()}
    assert sizes == {37256: "8.x/c1", 37272: "9.0/c1", 93976: "9.1/c1", 187928: "9.1/c2", 375832: "9.1/c4",
                     94616: "10.x/c1", 189208: "10.x/c2", 378392: "10.x/c4"}


@pytest.mark.parametrize("key", ["9.1/c1", "9.1/c2", "9.1/c4", "10.x/c1", "10.x/c2", "10.x/c4"])
def test_size_formulas(key: str) -> None:
    lay = next(x for x in _schema.layouts() if x.key == key)
    per_core = 93952 if lay.family == "9.1" else 94592
    assert lay.size == 24 + per_core * lay.cores
    assert (lay.in_slots, lay.out_slots) == (32 * lay.cores, 128 * lay.cores)


def test_members_tile_the_struct_without_gaps() -> None:
    for lay in _schema.layouts():
        end = 0
        for m in lay.members:
            assert m.offset == end, (lay.key, m.name)
            end += m.nbytes
        assert end == lay.size
        assert sum(m.kind == "header" for m in lay.members) == (2 if lay.family == "8.x" else 6)


def test_struct_sizeof_matches_and_parses_zeros() -> None:
    for lay in _schema.layouts():
        assert lay.struct.sizeof() == lay.size
        parsed = lay.struct.parse(bytes(lay.size))
        assert parsed["numInputBuf"] == 0
        arr = parsed["inWidth"]
        assert isinstance(arr, np.ndarray) and arr.shape == (lay.in_slots,) and not arr.flags.writeable


def test_resolve_products_and_unknown_names() -> None:
    env = {"A": 32, "C": 4}
    assert _schema._resolve("A * C", env, "x") == 128
    assert _schema._resolve(7, env, "x") == 7
    with pytest.raises(ValueError, match="unknown constant 'B'"):
        _schema._resolve("A * B", env, "here")


def test_find_layout_unknown() -> None:
    with pytest.raises(ValueError, match="no layout 8.x/c2; known:"):
        _schema.find_layout("8.x", 2)


@pytest.mark.parametrize("path", corpus_params())
def test_fast_path_equals_the_construct_struct(path) -> None:
    """parse() reads through record_dtype; the construct struct of the same schema must agree."""
    import tidl_io

    data = path.read_bytes()
    lay = tidl_io.parse(data).layout  # a container's first descriptor has the same layout
    fast = lay.read(data[:lay.size])
    slow = lay.struct.parse(data[:lay.size])
    for m in lay.members:
        if m.kind == "header":
            assert fast[m.name] == slow[m.name], m.name
        else:
            assert fast[m.name].dtype == slow[m.name].dtype and np.array_equal(fast[m.name], slow[m.name]), m.name
            assert not fast[m.name].flags.writeable


def test_a_missing_schemas_folder_is_the_missing_file_error(tmp_path, monkeypatch) -> None:
    import errno

    import tidl_io

    monkeypatch.setattr(_schema, "__file__", str(tmp_path / "pkg" / "iodesc" / "schema.py"))  # an install without schemas/
    with pytest.raises(tidl_io.PathNotFoundError) as err:
        _schema.schema_dir()
    assert isinstance(err.value, FileNotFoundError) and err.value.errno == errno.ENOENT
    assert err.value.filename == str(tmp_path / "pkg" / "schemas")
    assert str(err.value) == (f"{tmp_path / 'pkg' / 'schemas'}: no such folder; expected the layout schemas "
                              f"installed with tidl_io (a broken installation: reinstall tidl-io)")


def test_io_layouts_name_their_releases() -> None:
    # iobufdesc.md's table: 8.x (8.2, 8.6 seen), 9.0, 9.1/9.2, 10.0 - 11.x; each release of the TIDL-RT
    # table (schemas/releases.yaml) writes exactly one io layout family
    from tidl_io.runtime.tidlrt import releases

    by_family = {lay.family: lay.releases for lay in _schema.layouts()}
    assert by_family == {"8.x": ("08.00", "08.01", "08.02", "08.04", "08.05", "08.06"), "9.0": ("09.00",),
                         "9.1": ("09.01", "09.02"), "10.x": ("10.00", "10.01", "11.00", "11.01")}
    flat = [r for rels in by_family.values() for r in rels]
    assert sorted(flat) == sorted(releases()) and len(set(flat)) == len(flat)
