"""Big programs for the level-of-detail tests: synthetic chains, and an LLM-shaped program with names.

``llm_program(layers)`` imitates a device-partitioned decoder export: an embedding on the CPU, then per
layer an RMS norm on the CPU, the attention as CUDA kernels on ``cuda:0`` (between an h2d and a d2h
copy), a residual add, another norm and the feed-forward as one delegate call targeting ``cuda:1``
(with its copies), then a final norm and the output projection. Parameters carry fully-qualified
names (``layers.3.attention.wq.weight``), so name-prefix grouping applies; activations are planned in
one arena per device, each at its own offset (no reuse), so every placement check stays silent.
"""

from __future__ import annotations

from functools import lru_cache

from analysis_helpers import PlanBuilder

from explorer import load
from writers.pte import write

SHAPE = (2, 8)  # 64 bytes of float32
NBYTES = 64


class _Arenas:
    """Hands out offsets in one arena per device (no reuse)."""

    def __init__(self, b: PlanBuilder, ids: dict[str, int]):
        self.b, self.ids, self.used = b, ids, dict.fromkeys(ids, 0)

    def tensor(self, device: str) -> int:
        offset = self.used[device]
        self.used[device] += NBYTES
        return self.b.tensor(SHAPE, device=device, arena=self.ids[device], offset=offset)


def llm_builder(layers: int = 32) -> PlanBuilder:
    per_layer = 15  # activations per layer, upper bound
    size = (per_layer * layers + 8) * NBYTES
    b = PlanBuilder(arenas=[(size, "cpu"), (size, "cuda:0"), (size, "cuda:1")])
    a = _Arenas(b, {"cpu": 1, "cuda:0": 2, "cuda:1": 3})
    tokens = a.tensor("cpu")
    x = a.tensor("cpu")
    b.kernel("aten::embedding.out", b.constant(SHAPE, name="tok_embeddings.weight"), tokens, x, x)
    for i in range(layers):
        h = a.tensor("cpu")
        b.kernel("aten::rms_norm.out", x, b.constant(SHAPE, name=f"layers.{i}.attention_norm.weight"), h, h)
        hd = a.tensor("cuda:0")
        b.h2d(h, hd)
        q, k, v = (a.tensor("cuda:0") for _ in range(3))
        for out, w in ((q, "wq"), (k, "wk"), (v, "wv")):
            b.kernel("aten::linear.out", hd, b.constant(SHAPE, device="cuda:0", name=f"layers.{i}.attention.{w}.weight"),
                     out, out)
        s = a.tensor("cuda:0")
        b.kernel("aten::bmm.out", q, k, s, s)
        p = a.tensor("cuda:0")
        b.kernel("aten::_softmax.out", s, p, p)
        o = a.tensor("cuda:0")
        b.kernel("aten::bmm.out", p, v, o, o)
        od = a.tensor("cuda:0")
        b.kernel("aten::linear.out", o, b.constant(SHAPE, device="cuda:0", name=f"layers.{i}.attention.wo.weight"),
                 od, od)
        oc = a.tensor("cpu")
        b.d2h(od, oc)
        r = a.tensor("cpu")
        b.kernel("aten::add.out", x, oc, r, r)
        f = a.tensor("cpu")
        b.kernel("aten::rms_norm.out", r, b.constant(SHAPE, name=f"layers.{i}.ffn_norm.weight"), f, f)
        fd = a.tensor("cuda:1")
        b.h2d(f, fd)
        gd = a.tensor("cuda:1")
        b.delegate("CudaBackend", fd, gd, target_device="cuda:1")
        g = a.tensor("cpu")
        b.d2h(gd, g)
        x2 = a.tensor("cpu")
        b.kernel("aten::add.out", r, g, x2, x2)
        x = x2
    n = a.tensor("cpu")
    b.kernel("aten::rms_norm.out", x, b.constant(SHAPE, name="norm.weight"), n, n)
    out = a.tensor("cpu")
    b.kernel("aten::linear.out", n, b.constant(SHAPE, name="output.weight"), out, out)
    b.inputs(tokens)
    b.outputs(out)
    return b


@lru_cache(maxsize=4)
def llm_program(layers: int = 32):
    """``llm_builder(layers)`` written and loaded (a real, columnar-backed program)."""
    return load(write(llm_builder(layers).program()))


@lru_cache(maxsize=4)
def synthetic(values: int, devices: tuple[str, ...] = ("cuda:0", "cuda:1")):
    """``synthetic_program(values, devices)`` written and loaded."""
    from writers.synth import synthetic_program

    return load(write(synthetic_program(values, devices=devices)))


def cached_program_path(config, values: int):
    """A ``synthetic_program(values)`` .pte written once and kept in pytest's cache (100k values take
    ~15 s to write), keyed by the writer's and generator's sources so a change makes a new one."""
    import hashlib
    from pathlib import Path

    from writers import synth, pte as writer

    key = hashlib.sha1(Path(synth.__file__).read_bytes() + Path(writer.__file__).read_bytes()).hexdigest()[:12]
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    if cache is not None:
        folder = Path(cache.mkdir("explorer-lod"))
    else:
        import tempfile
        folder = Path(tempfile.gettempdir()) / "explorer-lod"
        folder.mkdir(exist_ok=True)
    path = folder / f"synthetic-{values}-{key}.pte"
    if not path.exists():
        path.write_bytes(writer.write(synth.synthetic_program(values, devices=("cuda:0", "cuda:1"))))
    return path
