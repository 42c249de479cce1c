"""Real executorch exports for bench/bench_view.py: a 3k-op portable program (a deep chain of small
Linear + ReLU layers, no device annotations, so Netron can open it too).

    python bench/make_bench_fixtures.py            # (re)write bench/fixtures/chain3k.pte
    python bench/make_bench_fixtures.py --check    # export again in memory; exit 1 if the file differs

Needs the interop extra (torch + executorch); reading the result never does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
LAYERS = 1000  # Linear + ReLU pairs: ~3,000 instructions once lowered to portable kernels


def build_chain() -> bytes:
    import torch
    from executorch.exir import to_edge
    from torch.export import export

    torch.manual_seed(0)

    class Chain(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.Sequential(*[m for _ in range(LAYERS) for m in (torch.nn.Linear(8, 8), torch.nn.ReLU())])

        def forward(self, x):
            return self.layers(x)

    program = to_edge(export(Chain().eval(), (torch.randn(1, 8),))).to_executorch()
    return program.buffer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    args = parser.parse_args(argv)
    data = build_chain()
    path = FIXTURES / "chain3k.pte"
    if args.check:
        same = path.exists() and path.read_bytes() == data
        print(f"{path.name}: {'same' if same else 'DIFFERS'}")
        return 0 if same else 1
    FIXTURES.mkdir(exist_ok=True)
    path.write_bytes(data)
    print(f"wrote {path} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
