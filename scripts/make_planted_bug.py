"""Write ``explorer/data/sample_planted_bug.pte``: the bundled sample with one placement bug planted, for the tour.

The tour (notebooks/tour.ipynb) shows what a buggy exporter's program looks like: value 17, the output of the
``_h2d_copy`` at instruction 7, relabelled ``cpu`` while the memory planner kept it in arena 2 (``cuda:0``
memory). Made with the project's writer (``writers/pte.py``, not shipped), so the tour itself needs no writer.
``--check`` compares the committed file with a fresh one (tests/test_notebook.py does the same).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import explorer  # noqa: E402
from writers.pte import write  # noqa: E402

SAMPLE = ROOT / "explorer" / "data" / "sample.pte"
OUT = ROOT / "explorer" / "data" / "sample_planted_bug.pte"
VALUE = 17  # the h2d copy's output at instruction 7


def planted() -> bytes:
    """The sample's bytes, rewritten with value 17 said to be a ``cpu`` tensor."""
    program = explorer.load(SAMPLE.read_bytes())
    plan = program.plan("forward")
    values = list(plan.values)
    values[VALUE] = dataclasses.replace(values[VALUE], device=explorer.CPU)
    return write(dataclasses.replace(program, plans=(dataclasses.replace(plan, values=tuple(values)),)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    args = parser.parse_args(argv)
    data = planted()
    if args.check:
        same = OUT.exists() and OUT.read_bytes() == data
        print(f"{OUT.relative_to(ROOT)}: {'same' if same else 'DIFFERS'}")
        return 0 if same else 1
    OUT.write_bytes(data)
    print(f"wrote {OUT.relative_to(ROOT)} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
