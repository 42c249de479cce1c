"""The big diff pair the diff tests and ``bench/bench_view.py`` use.

A synthetic 6k-value program (``synthetic_program``: a CPU chain offloading every 4th step to cuda:0 through
h2d/d2h copies and a delegate) against the same program alternating its offloaded steps between cuda:0 and
cuda:1: the same graph, so every tensor pairs by name, with 600 tensors moved to another device, 300 moved in
their arena and 600 ops changed — a partitioner change of the kind a placement review looks at, over the
overview threshold on both sides.
"""

from __future__ import annotations

from pathlib import Path

from writers.synth import synthetic_program
from writers.pte import write


def big_pair(folder: Path) -> tuple[Path, Path]:
    """Write the pair into ``folder`` (as files, so the views name them); returns (before, after)."""
    a, b = folder / "before_5k.pte", folder / "after_5k.pte"
    a.write_bytes(write(synthetic_program(values=6_000)))
    b.write_bytes(write(synthetic_program(values=6_000, devices=("cuda:0", "cuda:1"))))
    return a, b
