"""Export the zoo of small real programs under ``tests/fixtures/zoo/`` with ExecuTorch itself.

The zoo is the evidence that ``device-explorer check`` is silent on healthy exports: every program
here is a real ``.pte`` made by executorch 1.5.1 on a CPU machine, and every CPU program is also
loaded and run by executorch's own runtime (pybindings ``_load_program_from_buffer`` with
``Verification.InternalConsistency``, ``load_method``, ``execute`` on random inputs, outputs compared
with the eager model). The verdicts go to ``zoo.json`` next to the files; ``tests/test_zoo.py``
reads them and checks that our analysis has no finding on any of these programs.

Needs the ``interop`` extra (torch 2.13.0, executorch 1.5.1):

    python scripts/make_zoo.py               # export everything, run it, write zoo.json and README.md
    python scripts/make_zoo.py --check       # export again in memory; exit 1 if any file differs
    python scripts/make_zoo.py --only NAME   # (re)export one program (debugging)

Models are tiny on purpose (the whole zoo is a few hundred KB and exports in a couple of minutes).
Every export starts from ``torch.manual_seed(0)``. What executorch 1.5.1 cannot export here is listed
in ``NOT_EXPORTABLE`` with the reason; the README repeats it.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "fixtures" / "zoo"
SIZE_BUDGET = 5 * 1024 * 1024  # the whole zoo

NOT_EXPORTABLE = {
    "while_loop": "torch.while_loop exports, but executorch 1.5.1's emitter raises \"Unsupported control flow "
                  "operator: while_loop\"",
    "cortex_m_scratch": "Cortex-M kernels with a `Tensor scratch` argument (quantized_avg_pool2d.out) need the "
                        "Arm backend's tosa_serializer, not in the executorch wheel; tests/test_zoo.py rebuilds "
                        "the same bytes pattern (a scratch tensor read before any write) with our writer",
}


@dataclass
class Export:
    """What one builder returns: the program, its data files, and how to run it."""

    pte: bytes
    module: Any = None  # the eager model (None: don't run)
    inputs: dict[str, tuple] = field(default_factory=dict)  # method -> example inputs for the run
    ptd: dict[str, bytes] = field(default_factory=dict)  # file name -> .ptd bytes
    run: bool = True  # False for device programs (no device allocator on this machine)
    atol: float = 1e-4  # outputs are compared with a fresh copy of the eager model, called once
    leading: bool = False  # compare the first outputs (a training step: the loss before its gradients)


# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------

def _torch():
    import torch
    torch.manual_seed(0)
    return torch


def _lower(module, example, *, dynamic_shapes=None, xnnpack=False, config=None, strict=False,
           partitioner=None) -> bytes:
    import torch
    from executorch.exir import EdgeCompileConfig, to_edge, to_edge_transform_and_lower

    if isinstance(module, torch.nn.Module):
        module.requires_grad_(False)  # in-place buffer updates on a module with trainable leaves fail
    ep = torch.export.export(module, example, dynamic_shapes=dynamic_shapes, strict=strict)
    parts = []
    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
        parts.append(XnnpackPartitioner())
    if partitioner is not None:
        parts.append(partitioner)
    if parts:
        edge = to_edge_transform_and_lower(ep, partitioner=parts)
    else:
        edge = to_edge(ep, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Mutation on a buffer")
        return edge.to_executorch(config).buffer if config is not None else edge.to_executorch().buffer


def _simple(module_factory, *shapes, **kw) -> Callable[[], Export]:
    def build() -> Export:
        torch = _torch()
        module = module_factory(torch).eval()
        example = tuple(torch.randn(*s) if isinstance(s, tuple) else s for s in shapes)
        atol = kw.pop("atol", 1e-4)
        return Export(_lower(module, example, **kw), module, {"forward": example}, atol=atol)
    return build


def _quantize(module, example, torch):
    import executorch.kernels.quantized  # noqa: F401  (registers quantized_decomposed out variants)
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (XNNPACKQuantizer,
                                                                         get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
    gm = torch.export.export(module, example).module()
    gm = prepare_pt2e(gm, quantizer)
    gm(*example)
    return convert_pt2e(gm)


# --------------------------------------------------------------------------------------------------
# Models (made inside functions so importing this script needs no torch)
# --------------------------------------------------------------------------------------------------

def m_view_chain(torch):
    class M(torch.nn.Module):
        def forward(self, x):
            y = x.reshape(2, 3, 4).permute(0, 2, 1).unsqueeze(0)
            z = (y * 2).squeeze(0).flatten(1).view(2, 3, 4).transpose(1, 2)
            return z.contiguous().view(-1) + 1
    return M()


def m_slice_cat(torch):
    class M(torch.nn.Module):
        def forward(self, x):
            a, b = x[:, :3], x[:, 3:]
            c = torch.cat([b, a * 2, x[:, ::2]], dim=1)
            return c[1:, :].sum(0), torch.stack([a, b[:, :3]], 0)
    return M()


def m_split(torch):
    class M(torch.nn.Module):
        def forward(self, x):
            p, q, r = torch.split(x, [2, 3, 3], dim=1)
            s = torch.chunk(x, 2, dim=0)
            return p.exp() + q[:, :2], r.relu(), s[0] - s[1]
    return M()


def m_inplace(torch):
    class M(torch.nn.Module):
        def forward(self, x):
            y = x * 2
            y.add_(1.0)
            y.relu_()
            y.mul_(x)
            x.sub_(0.5)  # a user input mutated in place
            return y
    return M()


def m_topk(torch):
    class M(torch.nn.Module):
        def forward(self, x):
            v, i = torch.topk(x, 3, dim=1)
            m, j = x.max(dim=0)
            return v * 2, i, m, j
    return M()


def m_attention(torch):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = torch.nn.Linear(8, 24)
            self.out = torch.nn.Linear(8, 8)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(x).split(8, dim=-1)
            q = q.view(b, t, 2, 4).transpose(1, 2)
            k = k.view(b, t, 2, 4).transpose(1, 2)
            v = v.view(b, t, 2, 4).transpose(1, 2)
            w = torch.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-1)
            y = (w @ v).transpose(1, 2).reshape(b, t, c)
            return self.out(y)
    return M()


def m_cnn(torch):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(4)
            self.c2 = torch.nn.Conv2d(4, 4, 3, stride=2)
            self.fc = torch.nn.Linear(4 * 2 * 2, 5)

        def forward(self, x):
            y = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.c1(x))), 2)
            y = torch.nn.functional.avg_pool2d(y, 1)
            y = self.c2(torch.nn.functional.pad(y, (1, 1, 1, 1)))
            return self.fc(y.flatten(1))
    return M()


class _DetectorHead:
    """A YOLO-like head: conv outputs reshaped, permuted, sliced and concatenated (many views)."""

    @staticmethod
    def make(torch):
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
                self.heads = torch.nn.ModuleList([torch.nn.Conv2d(8, 2 * 7, 1) for _ in range(2)])

            def forward(self, x):
                f = torch.relu(self.stem(x))
                outs = []
                for k, head in enumerate(self.heads):
                    g = f if k == 0 else torch.nn.functional.max_pool2d(f, 2)
                    h = head(g)
                    b, _, hh, ww = h.shape
                    h = h.view(b, 2, 7, hh, ww).permute(0, 1, 3, 4, 2).reshape(b, -1, 7)
                    xy = torch.sigmoid(h[..., :2]) * 2
                    wh = torch.exp(h[..., 2:4])
                    outs.append(torch.cat([xy, wh, torch.sigmoid(h[..., 4:])], -1))
                return torch.cat(outs, 1)
        return M()


def m_gru(torch):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = torch.nn.GRUCell(4, 6)

        def forward(self, x, h):
            for t in range(x.shape[0]):
                h = self.cell(x[t], h)
            return h
    return M()


def m_embed_norm(torch):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(16, 8)
            self.norm = torch.nn.LayerNorm(8)

        def forward(self, tokens):
            return self.norm(self.emb(tokens)).mean(1)
    return M()


def m_tied(torch):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(16, 8)
            self.head = torch.nn.Linear(8, 16, bias=False)
            self.head.weight = self.emb.weight  # tied

        def forward(self, tokens):
            return self.head(torch.tanh(self.emb(tokens)))
    return M()


def m_where_mask(torch):
    class M(torch.nn.Module):
        def forward(self, x, y):
            mask = (x > 0) & (y < 0.5)
            z = torch.where(mask, x, y * 3)
            return z.masked_fill(~mask, -1.0), mask.to(torch.int32).sum()
    return M()


def m_scatter(torch):
    class M(torch.nn.Module):
        def forward(self, x, idx):
            out = torch.zeros(5, 4)
            out = out.index_put((idx,), x)
            g = torch.gather(out, 0, idx.view(-1, 1).expand(-1, 4))
            return out + 1, g
    return M()


def m_dtypes(torch):
    class M(torch.nn.Module):
        def forward(self, x):
            h = x.to(torch.float16) * 2
            i = (x * 10).to(torch.int8)
            return h.to(torch.float32) + i.to(torch.float32), (i.to(torch.int64) + 1)
    return M()


def m_passthrough(torch):
    class M(torch.nn.Module):
        def forward(self, x, y):
            return x, y + 1, x * 0 + y
    return M()


def m_mlp(torch):
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16),
                               torch.nn.ReLU(), torch.nn.Linear(16, 4))


def m_partial(torch):
    """XNNPACK takes the linears/convs; cumsum, topk, views and the arithmetic around them stay outside."""
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(8, 8)
            self.b = torch.nn.Linear(8, 8)

        def forward(self, x):
            h = torch.relu(self.a(x))
            s = torch.cumsum(h.view(2, 2, 8), dim=1).reshape(4, 8)
            v = torch.topk(s, 8, dim=1).values  # not delegated: XNNPACK has no topk
            return self.b(v.view(4, 8)) + s.transpose(0, 1).sum(1)
    return M()


# --------------------------------------------------------------------------------------------------
# Builders: name -> (features, builder)
# --------------------------------------------------------------------------------------------------

def b_view_dynamic() -> Export:
    torch = _torch()

    class M(torch.nn.Module):
        def forward(self, x):
            b = x.shape[0]
            y = (x + 1).view(b, 3, 4).permute(0, 2, 1)
            z = y.reshape(b, 12).view(b, 2, 6).sum(1)
            return z.view(b, 3, 2).flatten(1) * 2
    module = M().eval()
    example = (torch.randn(3, 12),)
    dyn = {"x": {0: torch.export.Dim("b", min=1, max=8)}}
    return Export(_lower(module, example, dynamic_shapes=dyn), module, {"forward": (torch.randn(5, 12),)})


def b_dynamic_seq() -> Export:
    torch = _torch()

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(8, 8)

        def forward(self, x):
            t = x.shape[1]
            h = self.proj(x).view(1, t, 2, 4).transpose(1, 2)
            w = torch.softmax(h @ h.transpose(-1, -2), dim=-1)
            y = (w @ h).transpose(1, 2).reshape(1, t, 8)
            return torch.cat([y, x], dim=-1)[:, : t - 1]
    module = M().eval()
    example = (torch.randn(1, 6, 8),)
    dyn = {"x": {1: torch.export.Dim("t", min=3, max=16)}}
    return Export(_lower(module, example, dynamic_shapes=dyn), module, {"forward": (torch.randn(1, 9, 8),)})


def b_dynamic_xnnpack() -> Export:
    torch = _torch()
    module = m_mlp(torch).eval()
    example = (torch.randn(3, 6),)
    dyn = {"input": {0: torch.export.Dim("b", min=1, max=10)}}
    return Export(_lower(module, example, dynamic_shapes=dyn, xnnpack=True), module,
                  {"forward": (torch.randn(7, 6),)})


def b_detector_head() -> Export:
    torch = _torch()
    module = _DetectorHead.make(torch).eval()
    example = (torch.randn(1, 3, 8, 8),)
    return Export(_lower(module, example), module, {"forward": example}, atol=1e-3)


def b_detector_xnnpack() -> Export:
    torch = _torch()
    module = _DetectorHead.make(torch).eval()
    example = (torch.randn(1, 3, 8, 8),)
    return Export(_lower(module, example, xnnpack=True), module, {"forward": example}, atol=1e-3)


def b_detector_dynamic() -> Export:
    torch = _torch()
    module = _DetectorHead.make(torch).eval()
    example = (torch.randn(2, 3, 8, 8),)
    dyn = {"x": {0: torch.export.Dim("b", min=1, max=4)}}
    return Export(_lower(module, example, dynamic_shapes=dyn), module,
                  {"forward": (torch.randn(2, 3, 8, 8),)}, atol=1e-3)


def b_detector_xnnpack_dynamic() -> Export:
    torch = _torch()
    module = _DetectorHead.make(torch).eval()
    example = (torch.randn(2, 3, 8, 8),)
    dyn = {"x": {0: torch.export.Dim("b", min=1, max=4)}}
    return Export(_lower(module, example, dynamic_shapes=dyn, xnnpack=True), module,
                  {"forward": (torch.randn(3, 3, 8, 8),)}, atol=1e-3)


def b_kv_cache() -> Export:
    torch = _torch()

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("k_cache", torch.zeros(1, 8, 4))
            self.register_buffer("v_cache", torch.zeros(1, 8, 4))
            self.proj = torch.nn.Linear(4, 8)

        def forward(self, x, pos):
            k, v = self.proj(x).split(4, dim=-1)
            self.k_cache.index_copy_(1, pos, k)
            self.v_cache[:, pos] = v
            w = torch.softmax(x @ self.k_cache.transpose(1, 2), dim=-1)
            return w @ self.v_cache
    module = M().eval()
    example = (torch.randn(1, 1, 4), torch.tensor([2]))
    return Export(_lower(module, example), module, {"forward": example})


def b_kv_cache_xnnpack() -> Export:
    torch = _torch()

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(6, 4))
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x, pos):
            h = self.fc(x)
            self.cache.index_copy_(0, pos, h)
            return self.fc(self.cache).sum(0)
    module = M().eval().requires_grad_(False)
    example = (torch.randn(1, 4), torch.tensor([3]))
    return Export(_lower(module, example, xnnpack=True), module, {"forward": example})


def b_counter_state() -> Export:
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
    torch = _torch()

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", torch.ones(3) * 0.25)
            self.register_buffer("scratchpad", torch.zeros(3))

        def forward(self, x):
            self.count.add_(x)
            self.scratchpad.copy_(x * 2)
            return self.count * 2 + self.scratchpad
    module = M().eval()
    example = (torch.randn(3),)
    config = ExecutorchBackendConfig(emit_mutable_buffer_names=True, passes=[InitializedMutableBufferPass(["count"])])
    return Export(_lower(module, example, config=config), module, {"forward": example})


def b_cond() -> Export:
    torch = _torch()

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x):
            def yes(x):
                return self.fc(x).relu().view(2, 2, 2)

            def no(x):
                return (x * -1.0).view(2, 2, 2) + 1

            return torch.cond(x.sum() > 0, yes, no, (x,))
    module = M().eval()
    example = (torch.randn(2, 4),)
    return Export(_lower(module, example), module, {"forward": example})


def b_map() -> Export:
    torch = _torch()
    from torch._higher_order_ops.map import map as hop_map

    class M(torch.nn.Module):
        def forward(self, xs, y):
            return hop_map(lambda x, y: (x * y + 1).relu(), xs, y)
    module = M().eval()
    example = (torch.randn(3, 4), torch.randn(4))
    return Export(_lower(module, example), module, {"forward": example})


def b_multi_method() -> Export:
    torch = _torch()
    from executorch.exir import to_edge

    class Enc(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 3)

        def forward(self, x):
            return torch.tanh(self.fc(x)).view(3, 1)

    class Dec(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 6)

        def forward(self, z):
            return torch.sigmoid(self.fc(z.view(1, 3)))

    class Score(torch.nn.Module):
        def forward(self, a, b):
            return (a - b).pow(2).mean()

    enc, dec, score = Enc().eval(), Dec().eval(), Score().eval()
    ex = {"encode": (torch.randn(1, 6),), "decode": (torch.randn(3, 1),), "score": (torch.randn(4), torch.randn(4))}
    mods = {"encode": enc, "decode": dec, "score": score}
    eps = {k: torch.export.export(mods[k], ex[k]) for k in ex}
    pte = to_edge(eps).to_executorch().buffer
    return Export(pte, mods, ex)


def b_training() -> Export:
    torch = _torch()
    from executorch.exir import to_edge
    from torch.export.experimental import _export_forward_backward

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = torch.nn.Linear(2, 4)
            self.l2 = torch.nn.Linear(4, 2)
            self.loss = torch.nn.CrossEntropyLoss()

        def forward(self, x, y):
            return self.loss(self.l2(torch.sigmoid(self.l1(x))), y)
    net = Net()
    eager = copy.deepcopy(net)
    ep = torch.export.export(net, (torch.randn(1, 2), torch.ones(1, dtype=torch.int64)), strict=True)
    ep = _export_forward_backward(ep)
    pte = to_edge(ep).to_executorch().buffer
    # forward returns the loss, then the gradients; the other three methods are attribute getters
    return Export(pte, {"forward": eager}, {"forward": (torch.randn(1, 2), torch.ones(1, dtype=torch.int64))},
                  leading=True)


def b_external_weights() -> Export:
    torch = _torch()
    from executorch.exir import ExecutorchBackendConfig, to_edge

    module = m_mlp(torch).eval()
    example = (torch.randn(2, 6),)
    prog = to_edge(torch.export.export(module, example)).to_executorch(
        ExecutorchBackendConfig(external_constants=True))
    ptd = _data_files(prog)
    return Export(prog.buffer, module, {"forward": example}, ptd=ptd)


def b_external_xnnpack() -> Export:
    """XNNPACK weights tagged for an external file (executorch's delegate_external_constants_pass)."""
    torch = _torch()
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir.passes.external_constants_pass import delegate_external_constants_pass_unlifted

    module = m_mlp(torch).eval().requires_grad_(False)
    example = (torch.randn(2, 6),)
    tagged = torch.export.export(module, example, strict=True).module()
    delegate_external_constants_pass_unlifted(module=tagged, gen_tag_fn=lambda node: "weights")
    ep = torch.export.export(tagged, example, strict=True)
    prog = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
    return Export(prog.buffer, module, {"forward": example}, ptd=_data_files(prog))


def _data_files(prog) -> dict[str, bytes]:
    """The .ptd files of an ExecutorchProgramManager (1.5.1 keeps them as Cords in ``_tensor_data``)."""
    prog.buffer  # serialises, which fills _tensor_data
    return {f"{key}.ptd": bytes(cord) for key, cord in (prog._tensor_data or {}).items()}


def _planner(algo: str, **kw) -> Callable[[], Export]:
    def build() -> Export:
        torch = _torch()
        from executorch.exir import ExecutorchBackendConfig
        from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite, greedy, naive
        from executorch.exir.passes import MemoryPlanningPass

        module = m_attention(torch).eval()
        example = (torch.randn(1, 5, 8),)
        suite = MemoryPlanningAlgorithmSuite(algo_list=[{"greedy": greedy, "naive": naive}[algo]])
        planner = MemoryPlanningPass(memory_planning_algo=suite, **kw)
        config = ExecutorchBackendConfig(memory_planning_pass=planner)
        return Export(_lower(module, example, config=config), module, {"forward": example}, atol=1e-4)
    return build


def _quantized(xnnpack: bool) -> Callable[[], Export]:
    def build() -> Export:
        torch = _torch()

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 4, 3)
                self.fc = torch.nn.Linear(4 * 4 * 4, 6)

            def forward(self, x):
                return self.fc(torch.relu(self.conv(x)).reshape(1, -1))
        example = (torch.randn(1, 3, 6, 6),)
        q = _quantize(M().eval(), example, torch)
        return Export(_lower(q, example, xnnpack=xnnpack), q, {"forward": example}, atol=0.15)
    return build


def _device(target: str, mixed: bool = False) -> Callable[[], Export]:
    def build() -> Export:
        torch = _torch()
        from executorch.exir import ExecutorchBackendConfig, to_edge
        from executorch.exir.backend.test.device_util import DeviceAwarePartitioner

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)

            def forward(self, x, y):
                a = x + y
                h = torch.relu(self.fc(a)).view(2, 4)
                c = h + a
                return c * 2, (c + x).view(8)
        ep = torch.export.export(M().eval(), (torch.randn(2, 4), torch.randn(2, 4)))
        edge = to_edge(ep).to_backend(DeviceAwarePartitioner(target))
        pte = edge.to_executorch(ExecutorchBackendConfig(enable_non_cpu_memory_planning=True)).buffer
        return Export(pte, None, {}, run=False)
    return build


def _alternating_partitioner(devices: tuple[str, ...]):
    """DeviceAwarePartitioner's rule (delegate every aten.add), but partition k goes to devices[k % n]."""
    from executorch.exir.backend.canonical_partitioners.pattern_op_partitioner import generate_pattern_op_partitions
    from executorch.exir.backend.compile_spec_schema import CompileSpec
    from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
    from executorch.exir.backend.test.backend_with_compiler_demo import BackendWithCompilerDemo
    from executorch.exir.backend.test.device_util import AddOperatorSupport
    from executorch.exir.passes.propagate_device_pass import TARGET_DEVICE_COMPILE_SPEC_KEY

    class Alternating(Partitioner):
        def partition(self, exported_program) -> PartitionResult:
            tags = {}
            parts = generate_pattern_op_partitions(exported_program.graph_module, op_support=AddOperatorSupport())
            for k, part in enumerate(sorted(parts, key=lambda p: p.id)):
                tag = f"tag{part.id}"
                for node in part.nodes:
                    node.meta["delegation_tag"] = tag
                tags[tag] = DelegationSpec(BackendWithCompilerDemo.__name__, [
                    CompileSpec("max_value", bytes([4])),
                    CompileSpec(TARGET_DEVICE_COMPILE_SPEC_KEY, devices[k % len(devices)].encode())])
            return PartitionResult(tagged_exported_program=exported_program, partition_tags=tags)

    return Alternating()


def b_device_two_gpus() -> Export:
    """One method on cpu, cuda:0 and cuda:1 at once."""
    torch = _torch()
    from executorch.exir import ExecutorchBackendConfig, to_edge

    class M(torch.nn.Module):
        def forward(self, x, y):
            a = x + y              # cuda:0
            h = torch.relu(a)      # cpu
            c = h + x              # cuda:1
            d = c * 2.0            # cpu
            return d + h           # cuda:0

    ep = torch.export.export(M().eval(), (torch.randn(2, 4), torch.randn(2, 4)))
    edge = to_edge(ep).to_backend(_alternating_partitioner(("cuda:0", "cuda:1")))
    pte = edge.to_executorch(ExecutorchBackendConfig(enable_non_cpu_memory_planning=True)).buffer
    return Export(pte, None, {}, run=False)


def b_device_two_methods() -> Export:
    """cpu and cuda:1 programs side by side: one method on the device, one on the host."""
    torch = _torch()
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.backend.test.device_util import DeviceAwarePartitioner

    class Add(torch.nn.Module):
        def forward(self, x, y):
            return (x + y) * 2

    ex = (torch.randn(3, 2), torch.randn(3, 2))
    eps = {"device": torch.export.export(Add(), ex), "host": torch.export.export(Add(), ex)}
    edge = to_edge(eps)
    edge = edge.to_backend({"device": DeviceAwarePartitioner("cuda:1")})
    pte = edge.to_executorch(ExecutorchBackendConfig(enable_non_cpu_memory_planning=True)).buffer
    return Export(pte, None, {}, run=False)


def b_alloc_io(inputs: bool, outputs: bool) -> Callable[[], Export]:
    def build() -> Export:
        torch = _torch()
        from executorch.exir import ExecutorchBackendConfig
        from executorch.exir.passes import MemoryPlanningPass

        module = m_mlp(torch).eval()
        example = (torch.randn(2, 6),)
        config = ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(
            alloc_graph_input=inputs, alloc_graph_output=outputs))
        return Export(_lower(module, example, config=config), module, {"forward": example})
    return build


def b_reinplace() -> Export:
    torch = _torch()
    from executorch.exir import ExecutorchBackendConfig

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("buf", torch.zeros(4, 3))

        def forward(self, x, idx):
            self.buf.index_put_((idx,), x)
            return self.buf * 2
    module = M().eval()
    example = (torch.randn(2, 3), torch.tensor([0, 2]))
    return Export(_lower(module, example, config=ExecutorchBackendConfig(run_reinplace_pass=True)), module,
                  {"forward": example})


SPECS: dict[str, tuple[str, Callable[[], Export]]] = {}


def _specs() -> dict[str, tuple[str, Callable[[], Export]]]:
    if SPECS:
        return SPECS
    s = SPECS
    s["view_chain"] = ("reshape/permute/unsqueeze/squeeze/flatten/transpose chain (static views elided)",
                       _simple(m_view_chain, (24,)))
    s["view_dynamic"] = ("dynamic batch (max 8): views become executorch_prim::et_view kernels", b_view_dynamic)
    s["slice_cat"] = ("slices, strided slice, cat, stack", _simple(m_slice_cat, (4, 6)))
    s["split_chunk"] = ("split/chunk: multi-output kernels returning a TensorList", _simple(m_split, (4, 8)))
    s["inplace_ops"] = ("add_/relu_/mul_ on an intermediate, a user input mutated in place",
                        _simple(m_inplace, (3, 4)))
    s["reinplace_buffer"] = ("run_reinplace_pass=True: index_put_ into a mutable buffer", b_reinplace)
    s["topk_max"] = ("topk and max.dim: several tensor outputs incl. int64 indices", _simple(m_topk, (4, 6)))
    s["attention"] = ("tiny self-attention: linear, split, views, transpose, bmm, softmax",
                      _simple(m_attention, (1, 5, 8)))
    s["cnn"] = ("conv, batchnorm, relu, max/avg pool, pad, flatten, linear", _simple(m_cnn, (1, 3, 8, 8), atol=1e-3))
    s["detector_head"] = ("YOLO-like head: conv outputs viewed, permuted, sliced, concatenated", b_detector_head)
    s["detector_xnnpack"] = ("detector head with XnnpackPartitioner (views and slices left outside)",
                             b_detector_xnnpack)
    s["detector_dynamic"] = ("detector head, dynamic batch (max 4): et_view kernels on conv outputs",
                             b_detector_dynamic)
    s["detector_xnnpack_dynamic"] = ("detector head, XNNPACK, dynamic batch: et_view kernels outside the delegates",
                                     b_detector_xnnpack_dynamic)
    s["gru_unrolled"] = ("GRUCell unrolled over 3 steps (select, chunk, sigmoid, tanh)", _simple(m_gru, (3, 1, 4), (1, 6)))
    s["embed_norm"] = ("embedding + layer norm + mean over int64 tokens",
                       lambda: _tok(m_embed_norm))
    s["tied_weights"] = ("embedding and output head share one weight", lambda: _tok(m_tied))
    s["where_mask"] = ("bool masks, where, masked_fill, int32 sum", _simple(m_where_mask, (3, 4), (3, 4)))
    s["scatter_gather"] = ("index_put, gather, expand on int64 indices", _scatter)
    s["dtypes"] = ("float16, int8, int64 casts", _simple(m_dtypes, (2, 5), atol=2e-2))
    s["passthrough"] = ("an input returned as an output, outputs aliasing arithmetic", _simple(m_passthrough, (2, 3), (2, 3)))
    s["xnnpack_mlp"] = ("MLP fully delegated to XNNPACK", _simple(m_mlp, (2, 6), xnnpack=True))
    s["xnnpack_partial"] = ("XNNPACK takes the linears; cumsum, topk, views, arithmetic stay portable",
                            _simple(m_partial, (4, 8), xnnpack=True))
    s["dynamic_seq"] = ("dynamic sequence length (3..16): views, bmm, softmax, cat, slice", b_dynamic_seq)
    s["dynamic_xnnpack"] = ("XNNPACK MLP with a dynamic batch (max 10)", b_dynamic_xnnpack)
    s["quant_portable"] = ("pt2e int8 (XNNPACKQuantizer) left in quantized_decomposed portable ops",
                           _quantized(False))
    s["quant_xnnpack"] = ("pt2e int8 conv + linear delegated to XNNPACK", _quantized(True))
    s["kv_cache"] = ("KV cache buffers updated in place (index_copy_, index_put)", b_kv_cache)
    s["kv_cache_xnnpack"] = ("mutable cache with XNNPACK linears around it", b_kv_cache_xnnpack)
    s["counter_state"] = ("mutable buffers: one with initial state (named), one without", b_counter_state)
    s["cond"] = ("torch.cond with two branches (submodule chains, moves, jumps)", b_cond)
    s["map"] = ("higher-order map over the leading dim (et_copy_index loop)", b_map)
    s["multi_method"] = ("three methods: encode, decode, score", b_multi_method)
    s["training"] = ("joint forward+backward graph (_export_forward_backward): loss, gradients", b_training)
    s["external_weights"] = ("constants in a .ptd file (external_constants=True)", b_external_weights)
    s["external_xnnpack"] = ("XNNPACK weights in a .ptd file", b_external_xnnpack)
    s["planner_greedy"] = ("attention with the greedy memory planner", _planner("greedy"))
    s["planner_naive"] = ("attention with the naive memory planner (no reuse)", _planner("naive"))
    s["no_alloc_io"] = ("alloc_graph_input=False, alloc_graph_output=False", b_alloc_io(False, False))
    s["no_alloc_input"] = ("alloc_graph_input=False only", b_alloc_io(False, True))
    s["device_cuda0"] = ("adds delegated to cuda:0, CPU linear/relu/view between, h2d/d2h copies", _device("cuda:0"))
    s["device_cuda1"] = ("same on cuda:1 (device_index 1 in the bytes)", _device("cuda:1"))
    s["device_two_gpus"] = ("mixed in one method: adds alternate between cuda:0 and cuda:1, CPU ops between",
                            b_device_two_gpus)
    s["device_two_methods"] = ("mixed: method `device` on cuda:1, method `host` on cpu", b_device_two_methods)
    return s


def _tok(factory) -> Export:
    torch = _torch()
    module = factory(torch).eval()
    example = (torch.randint(0, 16, (2, 5)),)
    return Export(_lower(module, example), module, {"forward": example}, atol=1e-4)


def _scatter() -> Export:
    torch = _torch()
    module = m_scatter(torch).eval()
    example = (torch.randn(2, 4), torch.tensor([1, 3]))
    return Export(_lower(module, example), module, {"forward": example})


# --------------------------------------------------------------------------------------------------
# Runtime verdict: executorch's own runtime loads and runs the program
# --------------------------------------------------------------------------------------------------

def _flat(x) -> list:
    import torch
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for item in x for t in _flat(item)]
    return [x]


def runtime_verdict(name: str, exp: Export) -> str:
    """What executorch's runtime says about the program (see the module doc)."""
    import torch
    from executorch.extension.pybindings import portable_lib as rt

    with tempfile.TemporaryDirectory() as tmp:
        data_path = None
        for fname, data in exp.ptd.items():
            data_path = str(Path(tmp) / fname)
            Path(data_path).write_bytes(data)
        try:
            program = rt._load_program_from_buffer(exp.pte, program_verification=rt.Verification.InternalConsistency,
                                                   data_path=data_path)
        except Exception as err:  # the verdict records executorch's refusal
            return f"load failed: {type(err).__name__}: {err}"
        names = [program.get_method_name(k) for k in range(program.num_methods())]
        if not exp.run:
            try:
                program.load_method(names[0])
            except Exception as err:
                return (f"verified (InternalConsistency); load_method refused here: {str(err).splitlines()[0][:80]} "
                        f"(needs a device allocator)")
            return "verified (InternalConsistency), method loaded (not run: device program)"
        ran: list[str] = []
        matched: list[str] = []
        for method_name in names:
            try:
                method = program.load_method(method_name)
            except Exception as err:
                return f"load_method({method_name}) failed: {str(err).splitlines()[0][:100]}"
            inputs = exp.inputs.get(method_name, ())  # training's attribute methods take none
            torch.manual_seed(1)
            inputs = tuple(_random_like(t) for t in inputs)
            try:
                got = method(tuple(i.clone() if isinstance(i, torch.Tensor) else i for i in inputs))
            except Exception as err:
                return f"execute({method_name}) failed: {str(err).splitlines()[0][:100]}"
            module = exp.module.get(method_name) if isinstance(exp.module, dict) else exp.module
            if module is None:
                ran.append(method_name)
                if not all(torch.isfinite(t).all() for t in got if isinstance(t, torch.Tensor)):
                    return f"ran {method_name}: non-finite outputs"
                continue
            module = copy.deepcopy(module)
            with torch.no_grad():
                want = _flat(module(*(i.clone() if isinstance(i, torch.Tensor) else i for i in inputs)))
            got = _flat(got)
            if len(got) < len(want):
                return f"ran {method_name}: {len(got)} outputs, eager has {len(want)}"
            # mutated user inputs come first as extra outputs; a training step returns the loss first
            got = got[:len(want)] if exp.leading else got[len(got) - len(want):]
            for k, (g, w) in enumerate(zip(got, want)):
                if not torch.allclose(g.to(torch.float64), w.to(torch.float64), atol=exp.atol, rtol=1e-3):
                    diff = (g.to(torch.float64) - w.to(torch.float64)).abs().max().item()
                    return f"ran {method_name}: output {k} differs from eager by {diff:.3g}"
            ran.append(method_name)
            matched.append(method_name)
        if not matched:
            return f"runs ({', '.join(ran)})"
        same = ", matches eager" if matched == ran else f"; {', '.join(matched)} matches eager"
        return f"runs ({', '.join(ran)}){same}"


def _random_like(t):
    import torch
    if not isinstance(t, torch.Tensor):
        return t
    if t.dtype in (torch.int64, torch.int32):
        return t.clone()  # indices/tokens: keep them valid
    return torch.randn(t.shape, dtype=t.dtype)


# --------------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------------

def _features(pte: bytes) -> str:
    """What our reader sees (delegates, copies, et_view, devices, methods) — for the README."""
    sys.path.insert(0, str(ROOT))
    import explorer
    program = explorer.load(pte)
    bits = []
    for plan in program.plans:
        ops = [i.op or "" for i in plan.instructions if str(i.kind) == "KernelCall"]
        parts = [f"{len(plan.instructions)} instrs"]
        if plan.delegates:
            parts.append("delegates " + ",".join(sorted({d.id for d in plan.delegates})))
        views = sum(op.startswith("executorch_prim::et_view") for op in ops)
        if views:
            parts.append(f"et_view×{views}")
        copies = sum(op.startswith("et_copy::") for op in ops)
        if copies:
            parts.append(f"copies×{copies}")
        devices = sorted({str(b.device) for b in plan.buffers})
        parts.append("arenas " + "/".join(devices) if devices else "no arenas")
        bits.append(f"{plan.name}: " + ", ".join(parts))
    return "; ".join(bits)


def export_one(name: str) -> Export:
    _, builder = _specs()[name]
    return builder()


def write_readme(records: dict) -> None:
    lines = [
        "# Zoo of real exports",
        "",
        "Small programs exported by executorch 1.5.1 on a CPU machine. **Generated — do not edit by hand**:",
        "`python scripts/make_zoo.py` (needs the `interop` extra); `--check` re-exports in memory and compares.",
        "`zoo.json` records per program what it exercises and the verdict of executorch's own runtime",
        "(`_load_program_from_buffer` with `Verification.InternalConsistency`, `load_method`, run on random",
        "inputs, outputs compared with the eager model). `tests/test_zoo.py` checks that",
        "`device-explorer check` is silent on every one of them and that no arena is more than 100% used;",
        "`docs/analysis.md` has the findings each one gave before the analysis learnt from them, and after.",
        "",
        "| program | exercises | what our reader sees | bytes | executorch runtime |",
        "|---|---|---|---|---|",
    ]
    for name, r in records.items():
        files = r["bytes"] if not r.get("ptd") else f"{r['bytes']} + {sum(r['ptd'].values())} (.ptd)"
        lines.append(f"| `{name}.pte` | {r['features']} | {r['contents']} | {files} | {r['runtime']} |")
    lines += ["", "Not exportable with executorch 1.5.1 on this machine:", ""]
    lines += [f"- `{k}`: {v}" for k, v in NOT_EXPORTABLE.items()]
    lines.append("")
    (ZOO / "README.md").write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="export in memory and compare with the files on disk")
    parser.add_argument("--only", action="append", help="export only this program (repeatable)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    names = args.only or list(_specs())
    unknown = [n for n in names if n not in _specs()]
    if unknown:
        parser.error(f"unknown program(s): {', '.join(unknown)}")
    ZOO.mkdir(parents=True, exist_ok=True)
    index_path = ZOO / "zoo.json"
    records = json.loads(index_path.read_text()) if index_path.exists() else {}
    differing: list[str] = []
    failed: list[str] = []
    for name in names:
        try:
            exp = export_one(name)
        except Exception as err:  # report and go on: one model must not hide the others
            traceback.print_exc(limit=-3)
            print(f"{name}: export FAILED: {type(err).__name__}: {str(err)[:200]}", file=sys.stderr)
            failed.append(name)
            continue
        files = {f"{name}.pte": exp.pte}
        for key, data in exp.ptd.items():  # one data file: NAME.ptd; several: NAME.KEY.ptd
            files[f"{name}.ptd" if len(exp.ptd) == 1 else f"{name}.{key}"] = data
        if args.check:
            changed = [f for f, data in files.items() if not (ZOO / f).exists() or (ZOO / f).read_bytes() != data]
            differing += changed
            print(f"{name:22s} {'DIFFERS: ' + ', '.join(changed) if changed else 'same'}")
            continue
        for fname, data in files.items():
            (ZOO / fname).write_bytes(data)
        verdict = runtime_verdict(name, Export(exp.pte, exp.module, exp.inputs,
                                               {k: files[k] for k in files if k.endswith(".ptd")},
                                               exp.run, exp.atol, exp.leading))
        records[name] = {
            "features": _specs()[name][0], "contents": _features(exp.pte), "bytes": len(exp.pte),
            "ptd": {k: len(v) for k, v in files.items() if k.endswith(".ptd")},
            "runtime": verdict, "device": not exp.run,
        }
        print(f"{name:22s} {len(exp.pte):7d} B  {verdict}")
    if failed:
        print(f"export failed: {', '.join(failed)}", file=sys.stderr)
    if args.check:
        print("all zoo programs reproduce byte for byte" if not differing else f"differ: {', '.join(differing)}")
        return 1 if differing or failed else 0
    records = {n: records[n] for n in _specs() if n in records}
    index_path.write_text(json.dumps(records, indent=1) + "\n")
    write_readme(records)
    total = sum(p.stat().st_size for p in ZOO.iterdir())
    print(f"zoo: {len(records)} programs, {total} bytes")
    if total > SIZE_BUDGET:
        print(f"warning: zoo is over {SIZE_BUDGET} bytes", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
