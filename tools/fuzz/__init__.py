"""Fuzz tidl-io with mutated descriptor files: only the library's own errors, in bounded time.

    python tools/fuzz.py --n 100000 --seed 1 --jobs 2     # the full run (minutes on 2 cores)
    python tools/fuzz.py --n 2000                         # a short run (CI)
    python tools/fuzz.py --seed 1 --replay 4711           # rerun one input in-process, verbosely

Inputs are mutations of the real files in ``../shared/realdata``, of ``tests/fixtures/*.bin``
and of the bundled examples: bit flips, truncation, extension, resizing to another layout's
size, splices, random counts / dims / pads / pitches / buffer sizes / element types /
scales / names at the schema's own field offsets, int32 extremes in several fields of one
tensor at once (products that overflow int32 and int64), coherent random geometries (valid
tensors of every size up to and beyond the allocation cap), and 11.x multi-subgraph
containers with corrupted tables. Input ``i`` of seed ``s`` depends only on ``(s, i)``: the
pair is a reproducer, and every failing input is also saved as a ``.bin`` (``--save-dir``).

Operations. Every input goes through ``parse``, ``validate`` and ``build`` (which must give
the bytes back). Then one input in ``--cli-every`` (default 10) goes through
``tidl_io.cli.app.main`` instead, on a temp file (``inspect``, ``inspect --json``, ``inspect
--physical``, ``validate``, ``validate --json`` in rotation); of the others, half go through
the formatter (``descriptor_to_dict`` + strict JSON, the table, the physical table) and half
through the buffer operations of ``tidl_io.data.buffers`` on up to ``--tensors`` (default 2)
tensors, mutated ones first, flagged ones included: ``alloc_input``/``alloc_output``,
``view``, ``as_buffer``, ``pack``, ``unpack``, ``check_padding`` (plus ``alloc_inputs``/
``alloc_outputs`` and ``get_*_details`` on one input in 12). Buffers over 1 MiB that the
cap allows are allocated and viewed but not packed or read (that would time memcpy, not
the library); flagged or over-cap tensors must be refused by every operation. This is a
sample of the expensive operations per input: on 100 000 inputs each class still gets
thousands (the report counts them).

What counts. Each operation must succeed or raise a ``tidl_io.TidlIoError`` whose message
locates the problem (the source name or the tensor's label). Unexpected: any other
exception, a warning (warnings are errors), a broken invariant (round trip, CLI exit code
or traceback, alloc/view disagreeing with ``validate.geometry_problems`` or with the cap),
a hang (a per-input alarm, and a watchdog that kills a stuck worker) or a crash (a worker
killed by a signal: the parent restarts it after the input).

The run sets ``TIDL_IO_MAX_ALLOC_BYTES`` (default 64 MiB) for its workers and reports the
inputs, per-operation counts (ok / library error / unexpected), each unexpected failure
(seed, index, mutations, saved file, traceback), the inputs over ``--max-ms`` and the maximum
time per input -- CPU time of the worker process, which other processes on a shared machine
do not inflate much; wall time is reported too -- and the peak RSS of the workers. Exit
status: 1 if anything unexpected happened, 3 if the only finding is inputs over
``--max-ms``, 0 otherwise.

Layout (one concern per module; ``tools/fuzz.py`` is the command-line entry CI runs):

- ``corpus.py``: the corpus files; ``inputs.py``: the mutations and :func:`make_input`;
- ``checker.py``: :class:`Checker` (parse, validate, build; what counts as unexpected) and
  :class:`Stats`; it hands each input to the targets;
- ``targets/``: one module per target (``cli``, ``net``, ``releases``, ``formatter``, ``buffers``, ...), registered in
  ``targets/__init__.py``;
- ``run.py``: worker processes, the parent that watches them, the report, ``--replay`` and
  ``main``.

Adding a target = adding one module to ``targets/`` and one line to ``TARGETS`` in
``targets/__init__.py``. The module defines ``NAME`` (a str), ``STAGE`` (``"bytes"``: it
gets the raw input instead of the parse/validate/build core, like ``cli``; or
``"descriptor"``: it runs after that core on the parsed descriptor, like ``buffers``),
``selects(checker, index) -> bool`` (which inputs it takes: the first target of its stage in
``TARGETS`` that selects an input takes it, so keep the selections disjoint) and
``run(checker, index, item, desc, rng)``, which calls ``checker.op(index, op_name, fn,
where)`` for each operation (the counting, the warnings-are-errors rule and the located-
message check live there). A target needing other inputs than descriptor mutations (a
net file, say) derives them from ``rng`` (itself derived from the seed and the index), so
the ``(seed, index)`` pair still reproduces the input.

Slots of the raw-bytes targets (the comments of ``TARGETS`` give each one's): all odd (the cli
target takes multiples of ``--cli-every``), pairwise disjoint, and never index 1 (the fuzz
tests' descriptor input, which must reach the parse/validate/build core). Every odd residue
mod 64 except 1 is taken; a new target takes a residue mod 128 that is 1 mod 64 and not 1
(``net_layerinfo`` has 65 mod 128, ``input_arrays`` 129 mod 256; 1 mod 256 stays free for
index 1). Even slots that are never 0 mod 4 are free of the cli target too (``artifacts``: 58 mod 64,
``numbers``: 18 mod 32, ``graphviz``: 42 mod 64).
"""

from __future__ import annotations

from .checker import SOURCE, Checker, Failure, Stats
from .corpus import ROOT, default_corpus_dirs, load_corpus
from .dispatch import make_checker
from .inputs import MUTATORS, FuzzInput, make_input
from .run import main

__all__ = ["MUTATORS", "ROOT", "SOURCE", "Checker", "Failure", "FuzzInput", "Stats", "default_corpus_dirs",
           "load_corpus", "main", "make_checker", "make_input"]
