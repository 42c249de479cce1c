"""ETRecords read without torch: the JSON members, the join to the program, mismatches, damage, every entry point.

The fixtures in tests/fixtures/etrecord/ are real exports with their ETRecords (scripts/make_etrecord_fixtures.py).
The comparison with executorch's own Inspector, and the live objects, are in tests/test_etrecord_interop.py.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import explorer
from explorer import EtrecordFormatError, PteFormatError
from explorer.analysis.context import EtrecordMismatch, delegate_event_handles, join_etrecord
from explorer.cli import main
from explorer.model.etrecord import DelegateRecord, EtrecordMethod
from explorer.format.companions.etrecord import PICKLED_SUFFIXES, load_etrecord, parse_module_stack, parse_stack_trace

ROOT = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "fixtures"
D = FIX / "etrecord"
NAMES = ("net", "net_xnnpack", "split_xnnpack", "two_methods")


def rec(name: str) -> Path:
    return D / f"{name}.etrecord"


def pte(name: str) -> Path:
    return D / f"{name}.pte"


def joined(name: str):
    return explorer.load(pte(name), etrecord=rec(name))


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main([str(a) for a in argv], stdout=out), out.getvalue()


def members(name: str) -> dict[str, bytes]:
    with zipfile.ZipFile(rec(name)) as z:
        return {n: z.read(n) for n in z.namelist()}


def rezip(items: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, data in items.items():
            z.writestr(n, data)
    return buf.getvalue()


# -- reading -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_reads_the_json_members_as_executorch_wrote_them(name):
    raw = members(name)
    r = load_etrecord(rec(name))
    assert r.members == tuple(raw) and r.size == rec(name).stat().st_size and r.source == str(rec(name))
    handle_map = json.loads(raw["debug_handle_map"])
    delegate_map = json.loads(raw["delegate_map"])
    assert set(r.methods) == set(handle_map)
    for method, m in r.methods.items():
        want = {int(k): tuple(v) if isinstance(v, list) else (v,) for k, v in handle_map[method].items()}
        assert dict(m.handles) == want
        assert {i: d.backend for i, d in m.delegates.items()} == {int(k): v["name"] for k, v in delegate_map[method].items()}
        graph = json.loads(raw[f"edge_dialect_exported_program/{method}"])["graph_module"]["graph"]["nodes"]
        kept = [n for n in graph if n["target"] != "_operator.getitem"]
        assert [n.name for n in m.nodes] == [n["name"] for n in kept]
        for node, doc in zip(m.nodes, kept):
            meta = doc["metadata"]
            assert node.debug_handle == int(meta["debug_handle"])
            assert node.stack_trace == meta["stack_trace"] and node.nn_module_stack == meta["nn_module_stack"]
            assert doc["target"].endswith(node.op) and "dialects.edge" not in node.op
            assert len(node.modules) == meta["nn_module_stack"].count(";") + 1
            assert len(node.stack) == meta["stack_trace"].count('File "')


def test_bytes_file_objects_and_paths_read_alike():
    data = rec("split_xnnpack").read_bytes()
    a, b, c = load_etrecord(rec("split_xnnpack")), load_etrecord(data), load_etrecord(io.BytesIO(data))
    assert a.methods == b.methods == c.methods == load_etrecord(memoryview(data)).methods
    with pytest.raises(TypeError, match="text mode"):
        load_etrecord(io.StringIO("x"))
    with pytest.raises(TypeError, match="ETRecord is a path"):
        load_etrecord(42)


def test_pickled_members_are_never_opened(monkeypatch):
    opened = []
    real_open = zipfile.ZipFile.open

    def spy(self, name, *args, **kwargs):
        opened.append(name if isinstance(name, str) else name.filename)
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    for name in NAMES:
        load_etrecord(rec(name))
    assert opened and not [n for n in opened if n.endswith(PICKLED_SUFFIXES) or n in ("reference_outputs",
                                                                                       "representative_inputs")]
    assert {"debug_handle_map", "delegate_map", "edge_dialect_exported_program/forward"} <= set(opened)
    monkeypatch.undo()
    # pickles replaced by bytes that no unpickler accepts: read the same
    raw = members("net")
    poisoned = {n: (b"\x80\x05not a pickle" if n.endswith(PICKLED_SUFFIXES) else v) for n, v in raw.items()}
    assert load_etrecord(rezip(poisoned)).methods == load_etrecord(rec("net")).methods


def test_module_stack_splits_on_commas_outside_brackets():
    frames = parse_module_stack("L__self__,,m.Net;L__self__a,a,typing.Dict[str, int];L__self__b,b[0, 1],m.Linear")
    assert [(f.key, f.path, f.type) for f in frames] == [("L__self__", "", "m.Net"), ("L__self__a", "a", "typing.Dict[str, int]"),
                                                         ("L__self__b", "b[0, 1]", "m.Linear")]
    assert frames[1].type_name == "Dict[str, int]" and frames[2].type_name == "Linear"  # the last dotted part
    with pytest.raises(ValueError, match="parts"):
        parse_module_stack("a,b")
    with pytest.raises(ValueError, match="brackets"):
        parse_module_stack("a),b,c")


def test_stack_trace_is_outermost_first_with_code_lines():
    text = ('File "model.py", line 74, in forward\n    x = layer(x)\n  File "model.py", line 62, in forward\n'
            '    return self.act(self.lin(x))\n  File "<site-packages>/torch/nn/modules/linear.py", line 134, in forward\n'
            '    return F.linear(input, self.weight, self.bias)')
    frames = parse_stack_trace(text)
    assert [(f.file, f.line, f.function) for f in frames] == [("model.py", 74, "forward"), ("model.py", 62, "forward"),
                                                              ("<site-packages>/torch/nn/modules/linear.py", 134, "forward")]
    assert frames[0].code == "x = layer(x)" and frames[2].location.endswith("linear.py:134")


# -- the join ------------------------------------------------------------------------------------------------

def test_each_instruction_gets_its_module_source_and_ops():
    program = joined("net")
    ctx = program.etrecord.plan("forward")
    got = [(c.index, c.module_path, c.source.location, c.ops) for c in ctx.instructions]
    script = "scripts/make_etrecord_fixtures.py"
    lin, relu = ("aten.permute_copy.default", "aten.addmm.default"), ("aten.relu.default",)
    assert got[:3] == [(0, "layers.0.lin", f"{script}:62", lin), (1, "layers.0.lin", f"{script}:62", lin),
                       (2, "layers.0.act", f"{script}:62", relu)]
    assert [g[1] for g in got] == ["layers.0.lin"] * 2 + ["layers.0.act"] + ["layers.1.lin"] * 2 + ["layers.1.act"] + \
        ["head"] * 2 + [""] * 3  # softmax and + 1 run in Net.forward itself
    assert got[8][2] == f"{script}:75"  # the model's line, not torch's functional.py
    first = ctx.at(0)
    assert [m.type_name for m in first.module] == ["Net", "Block", "Linear"]
    assert first.stack[0].location == f"{script}:74" and first.stack[-1].file.endswith("torch/nn/modules/linear.py")
    assert program.etrecord.warnings == ()


def test_delegates_hold_their_original_nodes():
    ctx = joined("split_xnnpack").etrecord.plan("forward")
    enc, cumsum, dec = ctx.instructions
    assert enc.backend == dec.backend == "XnnpackBackend" and cumsum.backend is None
    assert [n.name for n in enc.nodes] == ["aten_linear_default", "aten_relu_default"]
    assert [n.module_path for n in enc.nodes] == ["encoder.lin", "encoder.act"]
    assert enc.module_path == "encoder" and dec.module_path == "decoder"  # the module both nodes share
    assert cumsum.module_path == "" and cumsum.ops == ("aten.cumsum.default",)
    whole = joined("net_xnnpack").etrecord.plan("forward").at(1)
    assert whole.handles == (1, 2, 3, 4, 5, 6, 7) and len(whole.nodes) == 8 and whole.module_path == ""


def test_two_methods_join_each_plan():
    program = joined("two_methods")
    assert set(program.etrecord.plans) == {"encode", "forward"}
    assert program.etrecord.plan("encode").at(0).module_path == "proj"
    assert program.etrecord.plan("forward").at(2).module_path == "out.act"


def test_delegate_event_handles_follow_inspector_rules():
    m = EtrecordMethod("forward", (), {3: (1, 2)}, delegates={
        3: DelegateRecord(3, "B", {"7": (4,), "conv": (5,), "add": (6,), "add#2": (8,)})})
    assert delegate_event_handles(m, 3, 7) == (4,)  # an int id: looked up as str(id)
    assert delegate_event_handles(m, 3, "conv") == (5,)  # a str id: itself
    assert delegate_event_handles(m, 3, "fused add#2 x") == (8,)  # else the last key inside str(id)
    assert delegate_event_handles(m, 3, "none") is None
    assert delegate_event_handles(EtrecordMethod("f", (), {3: (1, 2)}), 3, "x") == (1, 2)  # no delegate map entry


@pytest.mark.parametrize("program", NAMES)
@pytest.mark.parametrize("record", NAMES)
def test_an_etrecord_of_another_program_is_refused(program, record):
    if program == record:
        assert join_etrecord(explorer.load(pte(program)), load_etrecord(rec(record))).warnings == ()
        return
    with pytest.raises(EtrecordMismatch, match="does not belong to this program") as err:
        explorer.load(pte(program), etrecord=rec(record))
    text = str(err.value)
    assert any(s in text for s in ("has method(s)", "names instruction", "delegate_map says", "not the op"))
    lenient = join_etrecord(explorer.load(pte(program)), load_etrecord(rec(record)), strict=False)
    assert lenient.warnings  # not strict: what does not line up is kept as warnings


def test_a_few_unlike_kernels_are_a_warning_not_a_refusal():
    raw = members("net")
    graph = json.loads(raw["edge_dialect_exported_program/forward"])
    for node in graph["graph_module"]["graph"]["nodes"]:
        if node["name"] == "aten_relu_default":  # instruction 2 runs relu; now its node says sigmoid
            node["target"] = "executorch.exir.dialects.edge.ops.aten.sigmoid.default"
    raw["edge_dialect_exported_program/forward"] = json.dumps(graph).encode()
    program = explorer.load(pte("net"), etrecord=rezip(raw))
    assert len(program.etrecord.warnings) == 1 and "instruction 2 runs aten::relu.out" in program.etrecord.warnings[0]
    assert program.etrecord.plan("forward").at(2).ops == ("aten.sigmoid.default",)


def test_mostly_unlike_kernels_are_a_refusal():
    """More than half the kernels not the op the ETRecord's nodes say: the record is another program's, refused
    (not strict: kept as a warning); scripts/mutants.py etrecord-wrong-ops-error."""
    raw = members("net")
    graph = json.loads(raw["edge_dialect_exported_program/forward"])
    changed = 0
    for node in graph["graph_module"]["graph"]["nodes"]:
        if str(node.get("target", "")).startswith("executorch.exir.dialects.edge.ops.aten."):
            node["target"] = "executorch.exir.dialects.edge.ops.aten.sigmoid.default"
            changed += 1
    assert changed >= 2
    raw["edge_dialect_exported_program/forward"] = json.dumps(graph).encode()
    with pytest.raises(EtrecordMismatch, match="kernels are not the op the ETRecord says"):
        explorer.load(pte("net"), etrecord=rezip(raw))
    lenient = join_etrecord(explorer.load(pte("net")), load_etrecord(rezip(raw)), strict=False)
    assert any("kernels are not the op the ETRecord says" in w for w in lenient.warnings)


# -- damage --------------------------------------------------------------------------------------------------

def _damaged() -> dict[str, bytes]:
    raw = members("net")
    data = rec("net").read_bytes()
    out = {
        "empty": b"",
        "not a zip": b"PK\x03\x04" + bytes(range(200)),
        "truncated": data[: len(data) // 2],
        "no identifier": rezip({k: v for k, v in raw.items() if k != "ETRECORD_V0"}),
        "no debug_handle_map": rezip({k: v for k, v in raw.items() if k != "debug_handle_map"}),
        "no edge program": rezip({k: v for k, v in raw.items() if not k.startswith("edge_dialect_exported_program")}),
        "bad json": rezip({**raw, "debug_handle_map": b'{"forward": {"0": 1,'}),
        "wrong types": rezip({**raw, "debug_handle_map": b'{"forward": {"0": "one"}}'}),
        "bad instruction id": rezip({**raw, "debug_handle_map": b'{"forward": {"x": 1}}'}),
        "not utf-8": rezip({**raw, "delegate_map": b'\xff\xfe{}'}),
        "no graph": rezip({**raw, "edge_dialect_exported_program/forward": b'{"graph_module": {}}'}),
        "bad handle": rezip({**raw, "edge_dialect_exported_program/forward": raw["edge_dialect_exported_program/forward"]
                             .replace(b'"debug_handle": "1"', b'"debug_handle": "one"')}),
        "deep json": rezip({**raw, "delegate_map": b"[" * 100000 + b"]" * 100000}),
    }
    start = data.find(b'{"forward": {"0": 1')  # the debug_handle_map's bytes (stored uncompressed): CRC fails
    assert start > 0
    flipped = bytearray(data)
    flipped[start + 14] ^= 0x01
    out["crc"] = bytes(flipped)
    return out


@pytest.mark.parametrize("case", sorted(_damaged()))
def test_a_damaged_etrecord_is_a_clear_error(case, tmp_path):
    data = _damaged()[case]
    with pytest.raises(EtrecordFormatError) as err:
        explorer.load(pte("net"), etrecord=data)
    assert isinstance(err.value, PteFormatError) and str(err.value).startswith("ETRecord")
    path = tmp_path / "bad.etrecord"
    path.write_bytes(data)
    proc = subprocess.run([sys.executable, "-m", "explorer.cli", "inspect", str(pte("net")), "--etrecord", str(path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"device-explorer: ETRecord {path}:"), proc.stderr


def test_named_members_in_errors():
    cases = _damaged()
    for case, member in (("bad json", "debug_handle_map"), ("not utf-8", "delegate_map"), ("crc", "debug_handle_map"),
                         ("no graph", "edge_dialect_exported_program/forward")):
        with pytest.raises(EtrecordFormatError) as err:
            load_etrecord(cases[case])
        assert err.value.member == member and repr(member) in str(err.value)
    with pytest.raises(EtrecordFormatError, match="at byte 20"):
        load_etrecord(cases["bad json"])


def test_fuzzed_etrecords_only_ever_raise_the_format_error():
    data = rec("split_xnnpack").read_bytes()
    rng = random.Random(24)
    outcomes = set()
    for k in range(300):
        b = bytearray(data)
        if k % 3 == 0:
            b = b[: rng.randrange(len(b))]
        else:
            for _ in range(rng.randrange(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        try:
            load_etrecord(bytes(b))
            outcomes.add("read")
        except EtrecordFormatError:
            outcomes.add("refused")
    assert outcomes == {"read", "refused"}  # flips in pickled members change nothing; others are refused


# -- entry points --------------------------------------------------------------------------------------------

def test_inspect_text_names_modules_and_source_lines():
    code, text = cli("inspect", pte("net"), "--etrecord", rec("net"))
    assert code == 0
    assert "model context (net.etrecord" in text
    assert "#0..#1     layers.0.lin (Linear) at scripts/make_etrecord_fixtures.py:62  [permute_copy, addmm]" in text
    assert "#8..#10    Net (the model itself) at scripts/make_etrecord_fixtures.py:75" in text
    code, text = cli("inspect", pte("split_xnnpack"), "--etrecord", rec("split_xnnpack"))
    assert "encoder (Block) at scripts/make_etrecord_fixtures.py:62  [XnnpackBackend holds linear, relu]" in text
    assert "model context" not in cli("inspect", pte("net"))[1]


def test_inspect_json_adds_keys_and_changes_none():
    plain = json.loads(cli("inspect", pte("split_xnnpack"), "--json")[1])
    code, text = cli("inspect", pte("split_xnnpack"), "--json", "--etrecord", rec("split_xnnpack"))
    doc = json.loads(text)
    assert code == 0 and doc["etrecord"]["file"] == "split_xnnpack.etrecord" and doc["etrecord"]["methods"] == ["forward"]
    for before, after in zip(plain["plans"][0]["instructions"], doc["plans"][0]["instructions"]):
        assert {k: after[k] for k in before} == before  # keys added, never changed
    enc = doc["plans"][0]["instructions"][0]
    assert enc["module"] == "encoder" and enc["module_type"].endswith("Block") and enc["backend"] == "XnnpackBackend"
    assert [m["path"] for m in enc["modules"]] == ["", "encoder"]
    assert enc["op_before"] == ["aten.linear.default", "aten.relu.default"] and enc["debug_handles"] == [1, 2]
    assert [n["module"] for n in enc["nodes"]] == ["encoder.lin", "encoder.act"]
    assert enc["source"] == "scripts/make_etrecord_fixtures.py:62" and enc["stack"][0]["line"] == 86
    assert doc["plans"][0]["delegates"][1]["nodes"] == ["aten_linear_default_1", "aten_relu_default_1"]
    assert {k for k in plain} | {"etrecord"} == set(doc)


def test_inspect_profile_with_etrecord_joins_delegate_events_as_inspector():
    code, text = cli("inspect", pte("net_xnnpack"), "--json", "--etrecord", rec("net_xnnpack"),
                     "--profile", D / "net_xnnpack.etdp")
    events = json.loads(text)["plans"][0]["profile"]["delegate_nodes"]
    assert code == 0 and events
    assert all(e["debug_handles"] is None and e["nodes"] is None for e in events)  # XNNPACK's delegate map is empty


def test_check_and_diff_take_an_etrecord():
    code, text = cli("check", pte("net"), "--etrecord", rec("net"), "--json")
    assert code == 0 and json.loads(text)["findings"] == []
    code, _ = cli("check", pte("net"), "--etrecord", rec("split_xnnpack"))
    assert code == 2
    code, text = cli("diff", pte("net"), pte("net_xnnpack"), "--json", "--etrecord", rec("net"), rec("net_xnnpack"))
    doc = json.loads(text)["etrecord"]
    assert code == 0 and doc["a"]["forward"][0]["module"] == "layers.0.lin" and doc["b"]["forward"][1]["module"] == ""
    assert cli("diff", pte("net"), pte("net_xnnpack"), "--etrecord", rec("net_xnnpack"), rec("net"))[0] == 2


def test_check_names_where_a_finding_comes_from():
    from explorer.analysis.types import Finding
    from explorer.cli.check import _context_lines, _with_context

    program = joined("net")
    f = Finding("device-mismatch", "error", "forward", "x", values=(), instructions=(6,))
    assert _context_lines([f], program) == ["in the model (ETRecord):",
                                            "  [device-mismatch] forward #6: head (Linear) at scripts/make_etrecord_fixtures.py:75"]
    assert _with_context(f.to_json(), program)["context"] == [
        {"instruction": 6, "module": "head", "source": "scripts/make_etrecord_fixtures.py:75",
         "op_before": ["aten.permute_copy.default", "aten.addmm.default"]}]


def test_show_report_carries_the_context(tmp_path):
    out = tmp_path / "r.html"
    code, _ = cli("show", pte("split_xnnpack"), "-o", out, "--etrecord", rec("split_xnnpack"))
    assert code == 0 and out.exists()
    from explorer.views.payload.embed import pack
    from explorer.views.payload.app import app_payload

    payload = app_payload(joined("split_xnnpack"), findings=[])
    assert "context" in payload["plans"][0]
    assert "context" not in app_payload(explorer.load(pte("split_xnnpack")), findings=[])["plans"][0]
    assert pack(payload)


def test_payload_columns_say_what_the_join_says():
    from explorer.views.payload.context import context_columns

    program = joined("net_xnnpack")
    plan = program.plan("forward")
    c = context_columns(program, plan)
    mods = c["modules"]
    for i, ic in enumerate(program.etrecord.plan("forward").instructions):
        row = c["module"][i]
        chain = []
        while row >= 0:
            chain.append(mods["path"][row])
            row = mods["parent"][row]
        assert chain[::-1] == [m.path for m in ic.module]
        held = c["nodeIndex"][c["nodeStart"][i]:c["nodeStart"][i + 1]]
        assert [c["nodes"]["name"][k] for k in held] == [n.name for n in ic.nodes]
        assert [c["ops"][c["nodes"]["op"][k]] for k in held] == [n.op for n in ic.nodes]
        assert c["sources"][c["source"][i]].startswith(ic.source.location)
    assert c["backends"] == ["XnnpackBackend"] and list(c["backend"]) == [-1, 0]


def test_groups_are_the_models_modules():
    from explorer.views.state.plan import plan_view

    def labels(program):
        view = plan_view(program.plan("forward"), program)
        g = view.overview.groups
        g.leaf_nodes = 1
        g._children.clear()
        g.build_all()
        return [x.label for x in g.groups if x.kind == "prefix"]

    got = labels(joined("net"))
    assert got[:3] == ["layers", "head", "Net"] and {"layers.0", "layers.1", "layers.0.lin", "layers.1.act"} <= set(got)
    assert "layers" not in labels(explorer.load(pte("net")))  # without the ETRecord: no module names


def test_explorer_widget_takes_an_etrecord():
    ex = explorer.Explorer(pte("split_xnnpack"), etrecord=rec("split_xnnpack"))
    assert ex.program.etrecord.plan("forward").at(0).module_path == "encoder"
    with pytest.raises(EtrecordMismatch):
        explorer.Explorer(pte("split_xnnpack"), etrecord=rec("net"))
    d = explorer.Diff(pte("net"), pte("net_xnnpack"), etrecords=(rec("net"), None))
    assert d.program_a.etrecord is not None and d.program_b.etrecord is None
    from explorer.views.payload.diff import diff_payload

    payload = diff_payload(d.diff, d._views, programs=(d.program_a, d.program_b))
    contexts = payload["plans"][0]["contexts"]
    assert contexts["b"] is None and contexts["a"]["modules"]["path"][contexts["a"]["module"][0]] == "layers.0.lin"
    assert "contexts" not in diff_payload(d.diff, d._views)["plans"][0]


def test_an_etrecord_needs_a_program():
    with pytest.raises(PteFormatError, match="data file"):
        explorer.load(FIX / "companions" / "external.ptd", etrecord=rec("net"))
    for command in ("inspect", "check", "show"):
        assert cli(command, FIX / "companions" / "external.ptd", "--etrecord", rec("net"))[0] == 2


# -- live objects without a file ------------------------------------------------------------------------------

class _Manager:
    """What the reader needs of executorch's ExecutorchProgramManager: ``buffer`` and ``_tensor_data``."""

    def __init__(self, buffer: bytes, files: dict):
        self.buffer, self._tensor_data = buffer, files


def test_bytes_memoryview_and_file_objects_load_like_the_file():
    from explorer.jsonform.program import program_json

    want = program_json(explorer.load(pte("split_xnnpack")), "x")
    data = pte("split_xnnpack").read_bytes()
    for source in (data, memoryview(data), bytearray(data), io.BytesIO(data), open(pte("split_xnnpack"), "rb")):
        assert program_json(explorer.load(source), "x") == want
    with pytest.raises(TypeError, match="text mode"):
        explorer.load(io.StringIO("x"))
    with pytest.raises(TypeError, match="ExecutorchProgramManager"):
        explorer.load(object())


def test_a_manager_links_its_in_memory_data_files():
    from explorer.jsonform.program import program_json

    comp = FIX / "companions"
    manager = _Manager((comp / "external.pte").read_bytes(), {"external": (comp / "external.ptd").read_bytes()})
    live = explorer.load(manager)
    saved = explorer.load(comp / "external.pte", data=[comp / "external.ptd"])
    assert live.data_files and program_json(live, "x") == program_json(saved, "x")
    assert explorer.check(live) == explorer.check(saved)
    assert explorer.diff(manager, comp / "external.pte").plans


def test_importing_explorer_never_imports_torch():
    code = ("import sys, explorer, explorer.analysis.context, explorer.format.companions.etrecord, explorer.jsonform.etrecord;"
            "p = explorer.load('tests/fixtures/etrecord/net.pte', etrecord='tests/fixtures/etrecord/net.etrecord');"
            "assert 'torch' not in sys.modules and 'executorch' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
