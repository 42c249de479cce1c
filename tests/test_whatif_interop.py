"""What-if predictions against real executorch 1.5.1 exports of the same models (interop marker).

Each model is exported at test time with executorch's own test partitioners (``exir/backend/test/device_util.py``):
``CpuOnlyPartitioner`` (delegates without a target device), ``DeviceAwarePartitioner("cuda:0"/"cuda:1")``
with ``enable_non_cpu_memory_planning``, the skip flags, and no partitioner at all. A prediction must
equal the export value by value: every tensor's device, arena and offset, every instruction and its
arguments, the arenas and their devices, inputs and outputs. The only thing a prediction cannot know is
the backend id of a region made from moved kernels, so delegate ids are not compared for those.
"""

from __future__ import annotations

import warnings

import pytest

import explorer
from explorer.whatif.predict import Refusal, what_if

pytestmark = pytest.mark.interop


def _models():
    import torch

    class Many(torch.nn.Module):  # 15 delegated regions, x read by every one (53: the chain fixture)
        def forward(self, x, y):
            h = y
            for k in range(15):
                h = torch.relu(h + x) if k % 2 else torch.sin(h + x)
            return h, h * 2

    class Weights(torch.nn.Module):  # the adds read a parameter and a buffer: DeviceAwarePartitioner passes them in
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(2, 8))
            self.register_buffer("b", torch.randn(2, 8))

        def forward(self, x, y):
            return torch.relu(x + self.w) + self.b + y

    class Horizontal(torch.nn.Module):  # two adds with no path between them: the partitioner fuses them
        def forward(self, x, y):
            a = x + y
            b = torch.relu(x) + y
            c = torch.sin(a) + x
            return a * b, c

    class Views(torch.nn.Module):  # static views of delegate outputs and of CPU results, read across devices
        def forward(self, x, y):
            a = x + y
            c = torch.relu(a.view(16))
            d = c.view(2, 8) + y
            return torch.sin(d).view(16), a.view(8, 2)

    return {"many": Many, "weights": Weights, "horizontal": Horizontal, "views": Views}


def _export(name: str, partitioner: str | None, *, skip: bool = False, alloc: bool = True) -> bytes:
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.backend.test.device_util import CpuOnlyPartitioner, DeviceAwarePartitioner
    from executorch.exir.passes.memory_planning_pass import MemoryPlanningPass
    from executorch.exir.passes.propagate_device_config import PropagateDeviceConfig

    torch.manual_seed(0)
    model = _models()[name]().eval()
    ep = torch.export.export(model, (torch.randn(2, 8), torch.randn(2, 8)))
    edge = to_edge(ep)
    kw = {}
    if partitioner == "cpu":
        edge = edge.to_backend(CpuOnlyPartitioner())
    elif partitioner is not None:
        edge = edge.to_backend(DeviceAwarePartitioner(partitioner))
        kw["enable_non_cpu_memory_planning"] = True
    if skip:
        kw["propagate_device_config"] = PropagateDeviceConfig(skip_h2d_for_method_inputs=True,
                                                              skip_d2h_for_method_outputs=True)
    if not alloc:
        kw["memory_planning_pass"] = MemoryPlanningPass(alloc_graph_input=False, alloc_graph_output=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return edge.to_executorch(ExecutorchBackendConfig(**kw)).buffer


_CACHE: dict = {}


def _load(name: str, partitioner: str | None, **kw) -> explorer.Program:
    key = (name, partitioner, tuple(sorted(kw.items())))
    if key not in _CACHE:
        _CACHE[key] = explorer.load(_export(name, partitioner, **kw))
    return _CACHE[key]


def _same(predicted: explorer.Program, export: explorer.Program, *, ids: bool = True) -> None:
    for a, b in zip(predicted.plans, export.plans, strict=True):
        assert len(a.values) == len(b.values)
        for x, y in zip(a.values, b.values):
            assert x.type == y.type, (x, y)
            if x.type == "Tensor":
                got = (x.sizes, x.scalar_type, x.device, x.storage, x.memory_id, x.offset, x.has_extra_info)
                want = (y.sizes, y.scalar_type, y.device, y.storage, y.memory_id, y.offset, y.has_extra_info)
                assert got == want, f"%{x.index}"
            else:
                assert x.value == y.value, f"%{x.index}"
        got = [(i.kind, i.op, i.args, i.delegate if ids else None) for i in a.instructions]
        want = [(i.kind, i.op, i.args, i.delegate if ids else None) for i in b.instructions]
        assert got == want
        assert a.buffer_sizes == b.buffer_sizes
        assert [(x.memory_id, x.device) for x in a.buffers] == [(x.memory_id, x.device) for x in b.buffers]
        assert (a.inputs, a.outputs) == (b.inputs, b.outputs)
        assert [d.target_device for d in a.delegates] == [d.target_device for d in b.delegates]


# residual adds, several outputs, two methods and the skip flags are compared on the committed exports of
# tests/fixtures/whatif/ (test_whatif_fixtures_predict.py, no torch needed); here, what those don't have.
@pytest.mark.parametrize("name", ["many", "views"])
def test_cpu_only_to_cuda0_equals_the_cuda0_export_and_back(name):
    cpu_only, cuda0 = _load(name, "cpu"), _load(name, "cuda:0")
    _same(what_if(cpu_only, ["delegate:*=cuda:0"]), cuda0)
    _same(what_if(cuda0, ["delegate:*=cpu"]), cpu_only)
    _same(what_if(cuda0, ["delegate:*=cuda:1"]), _load(name, "cuda:1"))
    _same(what_if(_load(name, "cuda:1"), ["delegate:BackendWithCompilerDemo=cuda:0"]), cuda0)


@pytest.mark.parametrize("name", ["many", "horizontal", "views"])
def test_moving_the_adds_of_a_portable_export(name):
    _same(what_if(_load(name, None), ["op:aten::add=cuda:0"]), _load(name, "cuda:0"), ids=False)
    # nothing moved, or moved where it is: the program itself
    for moves in ([], ["op:aten::add=cpu"]):
        _same(what_if(_load(name, None), moves), _load(name, None))


def test_a_refused_skip_is_refused_as_executorch_refuses_it():
    with pytest.raises(Refusal, match="exactly one user"):
        what_if(_load("many", "cpu"), ["delegate:*=cuda:0"], skip_h2d_inputs=True)
    with pytest.raises(RuntimeError, match="exactly one user"):
        _export("many", "cuda:0", skip=True)


def test_a_device_delegate_reading_a_constant_is_refused_as_the_emitter_refuses_it():
    cpu_only = _load("weights", "cpu")
    assert any(t.storage == "constant" for t in cpu_only.plans[0].tensors)
    with pytest.raises(Refusal, match="has no attribute 'nbytes'"):
        what_if(cpu_only, ["delegate:*=cuda:0"])
    with pytest.raises(Exception, match="has no attribute 'nbytes'"):
        _export("weights", "cuda:0")
