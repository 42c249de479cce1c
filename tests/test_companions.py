"""Companions (issue 12): .ptd data files, .bpte bundled programs, delegate payloads (XNNPACK decoded).

Real fixtures from ``scripts/make_companion_fixtures.py`` (tests/fixtures/companions/), cross-checked
against executorch's own readers (interop) and ``flatc --json``; hand-made variants for the findings.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import explorer
from explorer import PteFormatError
from explorer.analysis.companions import companion_findings, named_data_usage, payloads
from explorer.analysis.delegate_graph import delegate_insides
from explorer.cli import main
from explorer.format.backends.blob import delegate_bytes, describe_payload
from explorer.format.backends.xnnpack import decode_xnnpack
from explorer.model.program import CompileSpec, DataFile, Delegate, Payload, Program

from companion_helpers import COMPANIONS, build_ptd, replace_once

ROOT = Path(__file__).resolve().parents[1]
PTE = {p.name: p for p in COMPANIONS.glob("*.pte")}
XNNPACK = ["xnnpack_multi.pte", "xnnpack_int8.pte"]


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stderr
    sys.stderr = err
    try:
        code = main(list(argv), stdout=out)
    finally:
        sys.stderr = old
    return code, out.getvalue(), err.getvalue()


# -- .ptd ---------------------------------------------------------------------------------------

def test_ptd_entries_of_a_real_export():
    f = explorer.load(COMPANIONS / "external.ptd")
    assert isinstance(f, DataFile) and f.kind == "data" and f.identifier == "FT01"
    assert [(e.key, e.dtype, e.sizes) for e in f.entries] == [
        ("fc1.weight", "float32", (8, 4)), ("fc1.bias", "float32", (8,)),
        ("fc2.weight", "float32", (3, 8)), ("fc2.bias", "float32", (3,))]
    data = (COMPANIONS / "external.ptd").read_bytes()
    for e in f.entries:  # every entry's bytes lie in the file, sized as its layout says
        assert e.nbytes == e.tensor_nbytes and e.offset + e.nbytes <= len(data)
        assert e.dim_order == tuple(range(len(e.sizes)))
    assert f.header.segment_base_offset == 512 and f.header.flatbuffer_offset == 48


@pytest.mark.interop
def test_ptd_agrees_with_executorchs_deserializer():
    from executorch.exir._serialize._cord import Cord
    from executorch.extension.flat_tensor.serialize.serialize import FlatTensorSerializer

    for name in ("external.ptd", "device_external.ptd"):
        data = (COMPANIONS / name).read_bytes()
        theirs = FlatTensorSerializer().deserialize(Cord(data))
        ours = explorer.load(data)
        assert [e.key for e in ours.entries] == list(theirs.named_data)
        for e in ours.entries:
            entry = theirs.named_data[e.key]
            assert data[e.offset:e.offset + e.nbytes] == bytes(theirs.buffers[entry.buffer_index])
            assert (e.scalar_type, list(e.sizes), list(e.dim_order)) == (
                int(entry.tensor_layout.scalar_type), list(entry.tensor_layout.sizes),
                list(entry.tensor_layout.dim_order))


def test_ptd_from_our_builder_with_opaque_entries_and_without_header():
    data = build_ptd([("w", 6, [2, 2], b"\1" * 16), ("blob", None, [], b"xyz")])
    f = explorer.load(data)
    assert [(e.key, e.dtype, e.nbytes) for e in f.entries] == [("w", "float32", 16), ("blob", None, 3)]
    assert data[f.entries[1].offset:f.entries[1].offset + 3] == b"xyz"
    bare = explorer.load(build_ptd([("w", 6, [2], b"\0" * 8)], header=False))
    assert bare.header is None and bare.entries[0].key == "w"


@pytest.mark.parametrize("cut", [3, 8, 20, 47, 100, 600, 907])
def test_truncated_ptd_is_a_format_error_with_an_offset(cut):
    data = (COMPANIONS / "external.ptd").read_bytes()[:cut]
    with pytest.raises(PteFormatError) as info:
        explorer.load(data)
    assert info.value.offset is not None or "byte" in str(info.value)


def test_a_lying_ptd_header_names_its_field():
    data = bytearray((COMPANIONS / "external.ptd").read_bytes())
    data[32:40] = (10**9).to_bytes(8, "little")  # segment_base_offset (bytes 32-39) far past the end
    with pytest.raises(PteFormatError, match=r"flat_tensor_header.segment_base_offset at byte 32"):
        explorer.load(bytes(data))


# -- program + data files -----------------------------------------------------------------------

def test_data_links_external_tensors_and_check_is_silent_when_all_resolve():
    p = explorer.load(COMPANIONS / "external.pte", data=[COMPANIONS / "external.ptd"])
    assert [f.name for f in p.data_files] == ["external.ptd"]
    external = [t for t in p.plans[0].tensors if t.storage == "external"]
    assert len(external) == 4
    for t in external:
        data_file, entry = p.external_entry(t.name)
        assert entry.key == t.name and entry.sizes == t.sizes and entry.nbytes == t.nbytes
    assert explorer.check(p) == []
    from explorer.jsonform.program import program_json
    doc = program_json(p)
    assert doc["data_files"][0]["file"] == "external.ptd" and len(doc["data_files"][0]["entries"]) == 4
    linked = [v for v in doc["plans"][0]["values"] if "external" in v]
    assert [v["external"] for v in linked] == [{"file": "external.ptd", "key": t.name} for t in external]


def test_missing_external_when_a_key_is_missing_or_the_shape_differs():
    ptd = (COMPANIONS / "external.ptd").read_bytes()
    renamed = replace_once(ptd, b"fc1.bias", b"fc1.BIAS")
    found = explorer.check(explorer.load(COMPANIONS / "external.pte", data=[renamed]))
    assert [(f.code, f.severity, f.values) for f in found] == [("missing-external", "error", (1,))]
    assert "'fc1.bias' (%1) is in none of the data files" in found[0].message
    # same keys, fc2.weight stored as [3, 9]: shape differs
    entries = [(e.key, e.scalar_type, list(e.sizes), b"\0" * e.nbytes) for e in explorer.load(ptd).entries]
    entries[2] = ("fc2.weight", 6, [3, 9], b"\0" * 108)
    found = explorer.check(explorer.load(COMPANIONS / "external.pte", data=[build_ptd(entries)]))
    assert [(f.code, f.values) for f in found] == [("missing-external", (2,))]
    assert "shape [3, 8] here, [3, 9] in the file" in found[0].message
    entries[2] = ("fc2.weight", 6, [3, 8], b"\0" * 40)  # right layout, too few bytes
    found = explorer.check(explorer.load(COMPANIONS / "external.pte", data=[build_ptd(entries)]))
    assert "needs 96 bytes, the file holds 40" in found[0].message
    # without data files the check does not run at all
    assert explorer.check(explorer.load(COMPANIONS / "external.pte")) == []


def test_data_must_be_data_files_and_only_for_programs():
    with pytest.raises(PteFormatError, match="expected a data file"):
        explorer.load(COMPANIONS / "external.pte", data=[COMPANIONS / "external.pte"])
    with pytest.raises(PteFormatError, match="only be attached to a program"):
        explorer.load(COMPANIONS / "external.ptd", data=[COMPANIONS / "external.ptd"])


# -- .bpte --------------------------------------------------------------------------------------

def test_bundled_program_opens_as_a_program_with_its_test_suites():
    p = explorer.load(COMPANIONS / "bundled.bpte")
    assert isinstance(p, Program) and p.plan_names == ("forward",)
    b = p.bundle
    assert b.file_size == (COMPANIONS / "bundled.bpte").stat().st_size
    [suite] = b.suites
    assert suite.method_name == "forward" and len(suite.test_cases) == 2
    for case in suite.test_cases:
        assert [(v.kind, v.dtype, v.sizes, v.nbytes) for v in case.inputs] == [("Tensor", "float32", (2, 4), 32)]
        assert [(v.dtype, v.sizes) for v in case.expected_outputs] == [("float32", (2, 3))]
    assert explorer.check(p) == []  # every analysis runs on the embedded program
    plain = explorer.load((COMPANIONS / "bundled.bpte").read_bytes()[b.program_offset:b.program_offset + b.program_size])
    assert [t.sizes for t in plain.plans[0].tensors] == [t.sizes for t in p.plans[0].tensors]
    assert p.segment_data(0) == plain.segment_data(0)  # segments read through the bundle's offset


@pytest.mark.interop
def test_bundle_agrees_with_executorchs_deserializer():
    from executorch.devtools.bundled_program.serialize import deserialize_from_flatbuffer_to_bundled_program

    data = (COMPANIONS / "bundled.bpte").read_bytes()
    theirs = deserialize_from_flatbuffer_to_bundled_program(data)
    ours = explorer.load(data).bundle
    assert data[ours.program_offset:ours.program_offset + ours.program_size] == bytes(theirs.program)
    assert [s.method_name for s in ours.suites] == [s.method_name for s in theirs.method_test_suites]
    for s_ours, s_theirs in zip(ours.suites, theirs.method_test_suites):
        for c_ours, c_theirs in zip(s_ours.test_cases, s_theirs.test_cases, strict=True):
            for mine, other in zip(c_ours.inputs + c_ours.expected_outputs,
                                   c_theirs.inputs + c_theirs.expected_outputs, strict=True):
                assert (mine.scalar_type, list(mine.sizes), mine.nbytes) == (
                    int(other.val.scalar_type), list(other.val.sizes), len(other.val.data))


def test_a_corrupt_embedded_program_is_located_in_the_bpte():
    data = bytearray((COMPANIONS / "bundled.bpte").read_bytes())
    b = explorer.load(bytes(data)).bundle
    data[b.program_offset + 4:b.program_offset + 8] = b"XX12"
    with pytest.raises(PteFormatError) as info:
        explorer.load(bytes(data))
    assert info.value.offset == b.program_offset + 4 and info.value.path.startswith("bundled_program.program")


# -- delegate payloads --------------------------------------------------------------------------

def _flatc_graph(payload: bytes, tmp_path: Path) -> dict:
    """flatc --json of the XNNGraph inside ``payload``, with executorch's own copy of the schema."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_bindings
    finally:
        sys.path.pop(0)
    import executorch

    schema = Path(list(executorch.__path__)[0]) / "backends" / "xnnpack" / "serialization" / "schema.fbs"
    start, size = int.from_bytes(payload[10:14], "little"), int.from_bytes(payload[14:18], "little")
    (tmp_path / "g.bin").write_bytes(payload[start:start + size])
    subprocess.run([gen_bindings.find_flatc(), "--json", "--strict-json", "--defaults-json", "--raw-binary",
                    "-o", str(tmp_path), str(schema), "--", str(tmp_path / "g.bin")], check=True, capture_output=True)
    text = (tmp_path / "g.json").read_text()
    return json.loads(re.sub(r"(?<=[:\[,\s])(-?)(nan|inf)\b", lambda m: f'"{m.group(1)}{m.group(2)}"', text))


@pytest.mark.interop
@pytest.mark.parametrize("name", XNNPACK)
def test_xnnpack_subgraphs_agree_node_for_node_with_flatc(name, tmp_path):
    p = explorer.load(PTE[name])
    plan = p.plans[0]
    assert len(plan.delegates) == 3
    for d in plan.delegates:
        payload = delegate_bytes(p, d)
        ours = decode_xnnpack(payload)
        theirs = _flatc_graph(payload, tmp_path)
        assert [n.op for n in ours.nodes] == [n["xnode_union_type"] for n in theirs["xnodes"]]
        for n_ours, n_theirs in zip(ours.nodes, theirs["xnodes"]):
            fields = n_theirs["xnode_union"]
            ids = {k: v for k, v in fields.items() if k.endswith("_id") and v != 0xFFFFFFFF}
            if n_ours.op.startswith("XNNConcatenate"):
                ids = {k: v for k, v in ids.items() if not re.fullmatch(r"input(\d)_id", k)
                       or int(k[5]) <= int(n_ours.op[-1])}
            assert n_ours.outputs == tuple(v for k, v in ids.items() if k.startswith("output"))
            assert n_ours.inputs == tuple(v for k, v in ids.items() if not k.startswith("output"))
            assert n_ours.debug_handle == n_theirs["debug_handle"]
        assert len(ours.values) == len(theirs["xvalues"])
        for v_ours, v_theirs in zip(ours.values, theirs["xvalues"]):
            t = v_theirs["xvalue_union"]
            t = t.get("tensor_value", t)
            assert (v_ours.id, "xnn_datatype_" + v_ours.dtype, list(v_ours.dims)) == (t["id_out"], t["datatype"], t["dims"])
            assert (v_ours.kind == "constant") == (t["constant_buffer_idx"] != 0)
        assert list(ours.input_ids) == theirs["input_ids"] and list(ours.output_ids) == theirs["output_ids"]
        constants = theirs["constant_data"]
        assert ours.constant_bytes == sum(constants[v.constant_index]["size"] for v in ours.values
                                          if v.constant_index is not None)


def test_xnnpack_delegates_and_their_named_data():
    p = explorer.load(PTE["xnnpack_multi.pte"])
    items = payloads(p)["forward"]
    assert [[n.op for n in x.graph.nodes] for x in items] == [
        ["XNNStaticTranspose", "XNNConv2d", "XNNStaticTranspose"], ["XNNStaticReshape", "XNNFullyConnected"],
        ["XNNAdd"]]
    assert all(x.format == "xnnpack" and x.magic == "XH00" and x.error is None for x in items)
    uses = named_data_usage(p)
    assert len(uses) == 4 and [u.delegates for u in uses] == [(("forward", 0),)] * 2 + [(("forward", 1),)] * 2
    assert sum(u.size for u in uses) == sum(x.graph.constant_bytes for x in items) == 432 + 16 + 320 + 20
    int8 = payloads(explorer.load(PTE["xnnpack_int8.pte"]))["forward"]
    dtypes = {v.dtype for x in int8 for v in x.graph.values}
    assert {"qint8", "qint32", "fp32"} <= dtypes
    assert any(v.quantization == "PerTensorQuant" for x in int8 for v in x.graph.values)


def test_xnnpack_inputs_and_outputs_join_the_outer_tensors():
    p = explorer.load(PTE["xnnpack_multi.pte"])
    plan = p.plans[0]
    insides = delegate_insides(plan, payloads(p)["forward"])
    assert [x.instruction for x in insides] == [i.index for i in plan.instructions if i.kind == "DelegateCall"]
    for x in insides:
        call = plan.instructions[x.instruction]
        assert x.problem is None and str(x.device) == "cpu"
        assert [outer for _, outer in x.inputs + x.outputs] == list(call.args)
        by_id = {v.id: v for v in x.graph.values}
        for vid, outer in x.inputs + x.outputs:  # same shape inside and out
            assert by_id[vid].dims == plan.value(outer).sizes


def test_a_corrupt_xnnpack_payload_is_a_warning_not_a_crash():
    data = PTE["xnnpack_multi.pte"].read_bytes()
    p = explorer.load(data)
    seg = p.segments[p.plans[0].delegates[1].data_index]
    bad = bytearray(data)
    start = seg.file_offset + int.from_bytes(data[seg.file_offset + 10:seg.file_offset + 14], "little")
    bad[start + 4:start + 8] = b"ZZ99"  # the XN01 identifier of delegate 1's flatbuffer
    broken = explorer.load(bytes(bad))
    found = explorer.check(broken)
    assert [(f.code, f.severity) for f in found] == [("bad-delegate-payload", "warning")]
    assert "delegate 1 (XnnpackBackend" in found[0].message and "'XN01'" in found[0].message
    assert found[0].instructions == (2,)
    code, out, _ = _cli("inspect", str(PTE["xnnpack_multi.pte"]), "--json")
    assert code == 0


def test_unknown_payloads_are_described_and_device_delegates_keep_their_target():
    p = explorer.load(PTE["device_external.pte"])
    [x] = payloads(p)["forward"]
    assert (x.format, x.storage, x.size, x.error) == ("unknown", "segment", 81, None)
    assert x.magic == "1version" and ("target_device", "cuda:0") in x.compile_specs


def test_aoti_payload_is_its_named_data_keys_and_vulkan_specs_decode():
    cuda = Delegate(0, "CudaBackend", "segment", 1, (CompileSpec("method_name", b"forward"),))
    x = describe_payload(cuda, b"ab12_so_blob\ncd34_weights_blob")
    assert (x.format, x.named_keys, x.error) == ("aoti-keys", ("ab12_so_blob", "cd34_weights_blob"), None)
    assert x.compile_specs == (("method_name", "forward"),)
    assert describe_payload(cuda, b"\x00\x01 binary").error.startswith("expected named-data keys")
    vulkan = Delegate(0, "VulkanBackend", "inline", 0, (CompileSpec("storage_type_override", b"\x01\x00\x00\x00"),
                                                         CompileSpec("force_fp16", b"\x01")))
    assert describe_payload(vulkan, b"\x00" * 40).compile_specs == (("storage_type_override", "TEXTURE_3D"),
                                                                    ("force_fp16", "True"))
    assert describe_payload(vulkan, b"\x00" * 40).format == "unknown"


def test_named_data_a_delegate_needs_from_a_data_file():
    """A CUDA-style delegate whose weights blob is external: missing-external until its .ptd is given."""
    import dataclasses

    p = explorer.load(PTE["device_external.pte"], data=[COMPANIONS / "device_external.ptd"])
    cuda = Payload(0, "CudaBackend", "segment", 30, "", "aoti-keys", named_keys=("k_weights_blob",))
    found = companion_findings(p, {"forward": (cuda,)})
    assert [(f.code, f.instructions) for f in found] == [("missing-external", (4,))]
    assert "uses named data 'k_weights_blob'" in found[0].message
    blob = build_ptd([("k_weights_blob", None, [], b"w" * 30)])
    p2 = dataclasses.replace(p, data_files=p.data_files + (explorer.load(blob),))
    assert companion_findings(p2, {"forward": (cuda,)}) == []


# -- CLI ----------------------------------------------------------------------------------------

def test_cli_inspect_ptd_and_bpte_and_data():
    code, out, _ = _cli("inspect", str(COMPANIONS / "external.ptd"))
    assert code == 0 and "identifier FT01 (ExecuTorch data file)" in out and "fc2.weight  float32[3,8]" in out
    code, out, _ = _cli("inspect", str(COMPANIONS / "external.ptd"), "--json")
    assert json.loads(out)["data_file"]["entries"][0]["key"] == "fc1.weight"
    code, out, _ = _cli("inspect", str(COMPANIONS / "bundled.bpte"))
    assert code == 0 and "'forward': 2 test cases" in out and "2 x inputs (float32[2,4]) -> expected (float32[2,3])" in out
    code, out, err = _cli("inspect", str(PTE["external.pte"]))
    assert "external.ptd holds 4 of 4" in err and "--data" in err  # offered, not assumed
    assert "not linked (no data files given)" in out
    code, out, err = _cli("inspect", str(PTE["external.pte"]), "--data", str(COMPANIONS / "external.ptd"))
    assert err == "" and "4 of 4 found in external.ptd" in out and "-> external.ptd [fc1.weight]" in out


def test_cli_check_exit_codes_with_data():
    ptd = str(COMPANIONS / "external.ptd")
    assert _cli("check", str(PTE["external.pte"]), "--data", ptd)[0] == 0
    code, out, _ = _cli("check", str(PTE["external.pte"]), "--data", str(COMPANIONS / "device_external.ptd"), "--json")
    assert code == 1 and {f["code"] for f in json.loads(out)["findings"]} == {"missing-external"}
    assert _cli("check", ptd)[0] == 0  # a .ptd reads (bounds-checked); no placement checks apply
    code, _, err = _cli("diff", ptd, str(PTE["external.pte"]))
    assert code == 2 and "data file (.ptd), not a program" in err


def test_cli_inspect_json_graph_of_xnnpack():
    code, out, _ = _cli("inspect", str(PTE["xnnpack_int8.pte"]), "--json")
    doc = json.loads(out)
    graphs = [d["graph"] for d in doc["plans"][0]["delegates"]]
    assert [[n["op"] for n in g["nodes"]] for g in graphs] == [
        ["XNNConvert", "XNNStaticTranspose", "XNNConv2d", "XNNStaticTranspose", "XNNConvert"],
        ["XNNStaticReshape", "XNNConvert", "XNNFullyConnected", "XNNConvert"],
        ["XNNConvert", "XNNConvert", "XNNAdd", "XNNConvert"]]
    for g in graphs:
        assert g["format"] == "xnnpack" and set(g["nodes"][0]) == {"index", "op", "inputs", "outputs"}
        assert {"id", "dtype", "dims", "kind"} <= set(g["values"][0]) and isinstance(g["constant_bytes"], int)


@pytest.mark.interop
def test_every_xnnpack_node_type_from_executorchs_own_serializer():
    """A payload written by executorch's XNNPACK serializer with one node of each of the 47 types: every
    node's op, inputs and outputs as executorch's dataclass says (field names, not our slot table)."""
    import dataclasses
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_xnnpack", ROOT / "bench" / "bench_xnnpack.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    payload, made = bench.build_payload(47 * 2)
    graph = decode_xnnpack(payload)
    assert len({n.op for n in graph.nodes}) == 47
    for ours, theirs in zip(graph.nodes, made, strict=True):
        assert ours.op == type(theirs).__name__
        ids = [(f.name, getattr(theirs, f.name)) for f in dataclasses.fields(theirs) if f.name.endswith("_id")]
        if ours.op.startswith("XNNConcatenate"):
            ids = [(k, v) for k, v in ids if not k[5:6].isdigit() or int(k[5]) <= int(ours.op[-1])]
        assert ours.outputs == tuple(v for k, v in ids if k.startswith("output"))
        assert ours.inputs == tuple(v for k, v in ids if not k.startswith("output"))
    assert graph.input_ids == (0,) and graph.values[graph.output_ids[0]].kind == "output"
    assert graph.named_keys and graph.constant_bytes == sum(v.constant_bytes for v in graph.values)


@pytest.mark.interop
def test_the_fixture_script_reproduces_the_data_file_pair():
    """scripts/make_companion_fixtures.py makes external.pte + external.ptd byte for byte (its --check mode
    does this for every file)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_companion_fixtures",
                                                  ROOT / "scripts" / "make_companion_fixtures.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    made = script.build_external()
    assert {name: bytes(data) for name, data in made.items()} == {
        name: (COMPANIONS / name).read_bytes() for name in ("external.pte", "external.ptd")}


def test_identifying_payloads_reads_heads_not_weights():
    """An unknown backend's blob is identified from its first bytes; an XNNPACK one from its header and
    flatbuffer; a blob several delegates share is read once."""
    import dataclasses

    reads = []
    for name, limit in (("device_external.pte", 64), ("xnnpack_multi.pte", None)):
        p = explorer.load(PTE[name])
        raw = p._read
        spy = dataclasses.replace(p, _read=lambda off, n: reads.append(n) or raw(off, n))
        reads.clear()
        found = payloads(spy)["forward"]
        assert all(x.size == d.data_size for x, d in zip(found, p.plans[0].delegates))
        if limit:
            assert max(reads) <= limit
        else:  # header + flatbuffer of each payload, never more than the segment
            assert sum(reads) <= sum(d.data_size for d in p.plans[0].delegates) + 64 * 3
    p = explorer.load(PTE["xnnpack_multi.pte"])
    plan = p.plans[0]
    same = dataclasses.replace(plan, delegates=tuple(dataclasses.replace(d, data_index=plan.delegates[0].data_index)
                                                      for d in plan.delegates))
    raw = p._read
    reads.clear()
    shared = payloads(dataclasses.replace(p, plans=(same,), _read=lambda off, n: reads.append(n) or raw(off, n)))
    assert [x.delegate for x in shared["forward"]] == [0, 1, 2] and len(reads) == 2  # head, then header+flatbuffer


def test_inline_xnnpack_payloads_decode_like_segment_ones():
    """The same three XNNPACK payloads stored inline (backend_delegate_data, written by our writer and filled
    in) decode to the same subgraphs as from their segments."""
    import dataclasses

    from explorer.format.backends.blob import inline_spans
    from writers.pte import write

    p = explorer.load(PTE["xnnpack_multi.pte"])
    plan = p.plans[0]
    blobs = [delegate_bytes(p, d) for d in plan.delegates]
    inline = dataclasses.replace(plan, delegates=tuple(dataclasses.replace(d, location="inline", data_index=k)
                                                       for k, d in enumerate(plan.delegates)))
    data = bytearray(write(dataclasses.replace(p, plans=(inline,), delegate_data_sizes=tuple(map(len, blobs)))))
    for (offset, size), blob in zip(inline_spans(explorer.load(bytes(data))), blobs, strict=True):
        assert size == len(blob)
        data[offset:offset + size] = blob
    ours = payloads(explorer.load(bytes(data)))["forward"]
    theirs = payloads(p)["forward"]
    assert [x.storage for x in ours] == ["inline"] * 3
    assert [x.graph.nodes for x in ours] == [x.graph.nodes for x in theirs]
    assert [x.graph.values for x in ours] == [x.graph.values for x in theirs]


def test_a_damaged_data_file_is_named_not_the_program(tmp_path):
    """`--data bad.ptd`: the error names the data file and what is wrong with it; it used to say
    'cannot read external.pte' as if the (intact) program were at fault."""
    bad = tmp_path / "bad.ptd"
    bad.write_bytes((COMPANIONS / "external.ptd").read_bytes()[:200])
    with pytest.raises(PteFormatError) as info:
        explorer.load(COMPANIONS / "external.pte", data=[bad])
    assert info.value.file == str(bad) and str(bad) in str(info.value) and "truncated" in str(info.value)
    code, out, err = _cli("check", str(PTE["external.pte"]), "--data", str(bad))
    assert code == 2 and out == ""
    assert f"data file {bad}" in err and "past the end" in err and "external.pte" not in err
    text = tmp_path / "notes.ptd"
    text.write_text("hello, these are notes\n")
    code, _, err = _cli("inspect", str(PTE["external.pte"]), "--data", str(text))
    assert code == 2 and f"data file {text}" in err and "external.pte" not in err


def test_check_says_on_stdout_when_external_weights_were_not_given():
    """'no findings' of a program whose .ptd was not given must not read as a full pass: stdout says so
    (the offer of sibling files stays on stderr); with --data the note goes."""
    code, out, _ = _cli("check", str(PTE["external.pte"]))
    assert code == 0 and "4 external tensors live in a .ptd data file that was not given" in out
    assert "--data" in out
    code, out, _ = _cli("check", str(PTE["external.pte"]), "--data", str(COMPANIONS / "external.ptd"))
    assert code == 0 and "not given" not in out
    code, out, _ = _cli("check", str(PTE["xnnpack_multi.pte"]))
    assert "external tensor" not in out


def test_binary_compile_spec_values_print_as_size_and_prefix():
    """A QNN delegate's options print as 600+ characters of hex; the summary gives size and first bytes."""
    from explorer.describe.companions import spec_value_text

    blob = bytes(range(256)) + bytes(44)
    assert spec_value_text(blob.hex()) == "<300 bytes: 0001020304050607…>"
    assert spec_value_text("cuda:0") == "cuda:0"
    assert spec_value_text("x" * 100) == "x" * 64 + "… (100 characters)"
