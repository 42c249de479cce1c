"""A real ~3k-op *named* program: a small transformer (embedding, N decoder layers with attention and a
SwiGLU feed-forward, final norm, output) exported by executorch to portable kernels, no delegate.

Tiny dimensions keep the files small (< 1 MB) while the instruction count is that of a real model's graph.
Each layer keeps a key/value cache as a (memory-planned) mutable buffer. The weights are exported with
``external_constants=True`` (executorch's program-data separation, as on-device LLM exports do), so the
program names every weight by its module path (``layers.3.attention.wq.weight``) and keeps the bytes in a
``.ptd`` beside it — the names the overview groups by (``explorer/analysis/groups.py``).

    python scripts/make_transformer_fixture.py            # (re)write tests/fixtures/named/transformer3k.pte + .ptd
    python scripts/make_transformer_fixture.py --check    # export again in memory; exit 1 if a file differs

Needs the interop extra (torch + executorch); reading the result never does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "named" / "transformer3k.pte"
LAYERS = 64  # 45 instructions per layer once lowered to portable kernels: 3,018 in all
DIM, HEADS, FFN, VOCAB, SEQ = 8, 2, 16, 32, 4


def build_transformer(layers: int = LAYERS) -> tuple[bytes, bytes]:
    """(program, data file) bytes."""
    import tempfile

    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from torch.export import export

    torch.manual_seed(0)
    nn = torch.nn

    class RMSNorm(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.ones(DIM))

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight

    class Attention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.wq, self.wk, self.wv, self.wo = (nn.Linear(DIM, DIM, bias=False) for _ in range(4))
            self.register_buffer("k_cache", torch.zeros(1, SEQ, DIM))
            self.register_buffer("v_cache", torch.zeros(1, SEQ, DIM))

        def forward(self, x):
            b, s, _ = x.shape
            q, k, v = self.wq(x), self.wk(x), self.wv(x)
            self.k_cache.copy_(k)  # a real decoder's cache update: mutable state the program names
            self.v_cache.copy_(v)
            hd = DIM // HEADS
            q = q.view(b, s, HEADS, hd).transpose(1, 2)
            k = self.k_cache.view(b, s, HEADS, hd).transpose(1, 2)
            v = self.v_cache.view(b, s, HEADS, hd).transpose(1, 2)
            att = torch.softmax(q @ k.transpose(-2, -1) / hd ** 0.5, dim=-1)
            return self.wo((att @ v).transpose(1, 2).reshape(b, s, DIM))

    class FeedForward(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w1, self.w2, self.w3 = nn.Linear(DIM, FFN, bias=False), nn.Linear(FFN, DIM, bias=False), \
                nn.Linear(DIM, FFN, bias=False)

        def forward(self, x):
            return self.w2(nn.functional.silu(self.w1(x)) * self.w3(x))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attention_norm, self.attention = RMSNorm(), Attention()
            self.ffn_norm, self.feed_forward = RMSNorm(), FeedForward()

        def forward(self, x):
            x = x + self.attention(self.attention_norm(x))
            return x + self.feed_forward(self.ffn_norm(x))

    class Transformer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok_embeddings = nn.Embedding(VOCAB, DIM)
            self.layers = nn.ModuleList(Block() for _ in range(layers))
            self.norm, self.output = RMSNorm(), nn.Linear(DIM, VOCAB, bias=False)

        def forward(self, tokens):
            x = self.tok_embeddings(tokens)
            for layer in self.layers:
                x = layer(x)
            return self.output(self.norm(x))

    tokens = torch.zeros(1, SEQ, dtype=torch.long)
    model = Transformer().eval().requires_grad_(False)
    with torch.no_grad():
        et = to_edge(export(model, (tokens,), strict=True)).to_executorch(ExecutorchBackendConfig(external_constants=True))
    program = et.buffer  # serialises the program, which fills in the tensor data
    with tempfile.TemporaryDirectory() as tmp:
        et.write_tensor_data_to_file(tmp)
        (ptd,) = Path(tmp).glob("*.ptd")
        return program, ptd.read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    parser.add_argument("--layers", type=int, default=LAYERS, help=argparse.SUPPRESS)
    parser.add_argument("-o", type=Path, default=FIXTURE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    files = dict(zip((args.o, args.o.with_suffix(".ptd")), build_transformer(args.layers)))
    if args.check:
        bad = 0
        for path, data in files.items():
            same = path.exists() and path.read_bytes() == data
            bad += not same
            print(f"{path.name}: {'same' if same else 'DIFFERS'}")
        return 1 if bad else 0
    for path, data in files.items():
        path.write_bytes(data)
        print(f"wrote {path} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
