"""Our ETRecord join against executorch's own Inspector on the same files, and live executorch objects.

Inspector (``devtools/inspector/_inspector.py``) joins ETDump events to the ETRecord's nodes; every event it
maps to nodes must be mapped by us to the same nodes, with the same module stack, stack trace and ops. In
executorch 1.5.1 ``Inspector`` itself handles only an ETRecord of one method (``_consume_etrecord`` reads the
``forward`` maps and ``gen_graphs_from_etrecord`` expects one edge program), so for ``two_methods`` the same
Inspector functions are called per method.
"""

from __future__ import annotations

import io
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import explorer
from explorer.analysis.context import delegate_event_handles
from explorer.analysis.profile.join import join_profile

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parent.parent
D = Path(__file__).parent / "fixtures" / "etrecord"
NAMES = ("net", "net_xnnpack", "split_xnnpack", "two_methods")


def _inspector_blocks(name: str):
    """[(method, EventBlock)] resolved and associated by executorch's own code, per method."""
    import executorch  # noqa: F401  (the interop extra: a missing one fails, never skips)
    from executorch.devtools.debug_format.et_schema import FXOperatorGraph
    from executorch.devtools.etrecord import parse_etrecord
    from executorch.devtools.inspector._inspector import EventBlock
    from executorch.devtools.inspector._inspector_utils import create_debug_handle_to_op_node_mapping, gen_etdump_object

    warnings.filterwarnings("ignore")
    record = parse_etrecord(str(D / f"{name}.etrecord"))
    blocks = EventBlock._gen_from_etdump(gen_etdump_object(etdump_path=str(D / f"{name}.etdp")))
    program = explorer.load(D / f"{name}.pte")
    profile = join_profile(program, explorer.load_etdump(D / f"{name}.etdp"))
    # EventBlocks are grouped by run signature; each block's method is the one our join gave its runs
    dump = explorer.load_etdump(D / f"{name}.etdp")
    out = []
    edge = record.edge_dialect_program
    for block in blocks:
        methods = {profile.assignment[r.index] for r in dump.runs if r.name == block.name} - {None}
        if block.name != "Execute":
            continue
        sig = {(e._instruction_id, e.name) for e in block.events}
        method = next(m for m in sorted(methods)
                      if all(i is None or i < len(program.plan(m).instructions) for i, _ in sig))
        ep = edge[method] if isinstance(edge, dict) else edge
        mapping = create_debug_handle_to_op_node_mapping(FXOperatorGraph.gen_operator_graph(ep.graph_module))
        block._gen_resolve_debug_handles(record._debug_handle_map[method],
                                         record._delegate_map[method] if record._delegate_map else None,
                                         record._instruction_id_to_num_outs_map[method])
        for event in block.events:
            event._associate_with_op_graph_nodes(debug_handle_to_op_node_map=mapping)
        out.append((method, block))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_instruction_inspector_maps_is_mapped_the_same(name):
    program = explorer.load(D / f"{name}.pte", etrecord=D / f"{name}.etrecord")
    compared = 0
    for method, block in _inspector_blocks(name):
        ctx = program.etrecord.plan(method)
        for event in block.events:
            if event._instruction_id is None or not event.module_hierarchy:
                continue
            if event.delegate_debug_identifier is not None:
                continue  # checked below
            ours = ctx.at(event._instruction_id)
            assert ours is not None, (method, event.name, event._instruction_id)
            theirs = {k[:-1]: v for k, v in event.module_hierarchy.items()}  # Inspector names nodes name + "_"
            assert [n.name for n in ours.nodes] == list(theirs)
            for node in ours.nodes:
                assert [(f.key, f.path, f.type) for f in node.modules] == \
                    [(k, path, ty) for k, (path, ty) in theirs[node.name].items()]
                assert node.stack_trace == event.stack_traces[node.name + "_"]
            assert [n.op for n in ours.nodes] == event.op_types
            handles = event.debug_handles if isinstance(event.debug_handles, list) else [event.debug_handles]
            assert list(ours.handles) == handles
            compared += 1
    assert compared >= 3


@pytest.mark.parametrize("name", ("net_xnnpack", "split_xnnpack"))
def test_delegate_internal_events_resolve_as_inspector_resolves_them(name):
    program = explorer.load(D / f"{name}.pte", etrecord=D / f"{name}.etrecord")
    seen = 0
    for method, block in _inspector_blocks(name):
        m = program.etrecord.plan(method).method
        for event in block.events:
            if event.delegate_debug_identifier is None or event._instruction_id is None:
                continue
            ours = delegate_event_handles(m, event._instruction_id, event.delegate_debug_identifier)
            theirs = event.debug_handles
            assert (None if ours is None else list(ours)) == (None if theirs is None else list(theirs))
            seen += 1
    assert seen


@pytest.mark.campaign
def test_the_fixture_script_reproduces_the_json_members():
    proc = subprocess.run([sys.executable, "scripts/make_etrecord_fixtures.py", "--check"], capture_output=True,
                          text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all fixtures match" in proc.stdout


# -- live executorch objects ---------------------------------------------------------------------------------

def _export(external: bool = False, etrecord: bool = False):
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, x):
            return torch.relu(self.fc(x)) * 2

    torch.manual_seed(0)
    edge = to_edge(torch.export.export(M().eval(), (torch.randn(2, 4),)), generate_etrecord=etrecord)
    return edge.to_executorch(ExecutorchBackendConfig(external_constants=external))


def test_a_manager_loads_like_its_saved_files(tmp_path):
    from explorer.jsonform.program import program_json

    warnings.filterwarnings("ignore")
    manager = _export(external=True, etrecord=True)
    path = tmp_path / "m.pte"
    manager.save(str(path))
    manager.write_tensor_data_to_file(str(tmp_path))
    ptds = sorted(tmp_path.glob("*.ptd"))
    assert ptds
    manager.get_etrecord().save(str(tmp_path / "m.etrecord"))
    saved = explorer.load(path, data=ptds, etrecord=tmp_path / "m.etrecord")
    live = explorer.load(manager, etrecord=manager)  # the manager's own ETRecord object, saved in memory
    assert live.data_files and [d.source for d in live.data_files] == [p.name for p in ptds]
    a, b = program_json(live, "m.pte"), program_json(saved, "m.pte")
    assert a["etrecord"].pop("file") is None and b["etrecord"].pop("file") == "m.etrecord"  # no file: no name
    assert a == b
    assert explorer.check(live) == explorer.check(saved)
    assert explorer.load(manager, etrecord=manager.get_etrecord()).etrecord.plans["forward"].instructions == \
        saved.etrecord.plans["forward"].instructions
    with open(path, "rb") as fh:
        assert program_json(explorer.load(fh, data=ptds), "m.pte") == program_json(explorer.load(path, data=ptds),
                                                                                  "m.pte")


def test_from_to_executorch_to_a_drawn_explorer_without_a_file():
    from explorer.views.payload.embed import pack
    from explorer.views.payload.app import app_payload

    warnings.filterwarnings("ignore")
    manager = _export(etrecord=True)
    ex = explorer.Explorer(manager, etrecord=manager)
    assert ex.program.source is None and ex.program.etrecord.plan("forward").at(0).module_path == "fc"
    buf = io.BytesIO(manager.buffer)
    same = explorer.load(buf, etrecord=manager)
    assert pack(app_payload(same, findings=ex.findings)) == pack(app_payload(ex.program, findings=ex.findings))
    d = explorer.Diff(manager, _export())
    assert d.diff.plans and not any(p.values for p in d.diff.plans)  # the same program: nothing moved
    assert explorer.diff(manager, manager.buffer).plans


def test_a_manager_without_an_etrecord_says_so():
    warnings.filterwarnings("ignore")
    with pytest.raises(explorer.EtrecordFormatError, match="generate_etrecord=True"):
        explorer.load(_export(), etrecord=_export())
