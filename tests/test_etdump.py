"""ETDump profiles: reading (real and synthetic dumps, bad bytes), the join to the program, the CLI.

Real dumps in tests/fixtures/etdump/ were written by executorch's runtime running the fixture programs
(``scripts/make_etdump_fixtures.py``); ``synthetic_*`` ones by our writer for the device programs that
can't run here. The join is checked against executorch's own ``Inspector`` on the same files.
"""

from __future__ import annotations

import dataclasses

import importlib.util
import io
import json
import math
import struct
import subprocess
import sys
from pathlib import Path

import flatbuffers
import numpy as np
import pytest

import explorer
from explorer import PteFormatError
from explorer._generated.etdump.ETDump import ETDumpT
from explorer._generated.etdump.Event import EventT
from explorer._generated.etdump.ProfileEvent import ProfileEventT
from explorer._generated.etdump.AllocationEvent import AllocationEventT
from explorer._generated.etdump.Allocator import AllocatorT
from explorer._generated.etdump.RunData import RunDataT
from explorer.analysis.profile.join import ProfileMismatch, join_profile
from explorer.cli import main
from explorer.format.companions.etdump import load_etdump
from writers.etdump import SynthRun, write_etdump
from explorer.model.profile import DebugEvent, ProfileEvent

ROOT = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "fixtures"
DUMPS = FIX / "etdump"
REAL = {"mlp.etdp": "mlp.pte", "xnnpack_mlp.etdp": "xnnpack_mlp.pte", "two_methods.etdp": "two_methods.pte",
        "zoo_cond.etdp": "zoo/cond.pte", "zoo_map.etdp": "zoo/map.pte", "zoo_multi_method.etdp": "zoo/multi_method.pte",
        "zoo_quant_xnnpack.etdp": "zoo/quant_xnnpack.pte"}
SYNTH = {"synthetic_device_add.etdp": "device_add.pte", "synthetic_device_mlp.etdp": "device_mlp.pte",
         "synthetic_slow_copies.etdp": "device_mlp.pte"}
ALL = {**REAL, **SYNTH}


def _script():
    spec = importlib.util.spec_from_file_location("make_etdump_fixtures", ROOT / "scripts" / "make_etdump_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def joined(dump: str):
    return join_profile(explorer.load(FIX / ALL[dump]), explorer.load_etdump(DUMPS / dump))


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), stdout=out), out.getvalue()


# -- reading -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ALL))
def test_fixture_dumps_read(name):
    data = (DUMPS / name).read_bytes()
    assert data[8:12] == b"ED00" and struct.unpack_from("<I", data)[0] == len(data) - 4
    dump = load_etdump(DUMPS / name)
    assert dump.size_prefixed and dump.source.endswith(name) and dump.size == len(data)
    assert [r.name for r in dump.runs][:2] == ["Default", "Execute"]
    assert dump.event_count == sum(r.profile_count for r in dump.runs) > 0
    assert load_etdump(data).event_count == dump.event_count  # bytes and paths read the same


def test_real_dump_events_are_what_the_runtime_wrote():
    dump = load_etdump(DUMPS / "mlp.etdp")
    run = dump.runs[1].profile_events
    assert [e.name for e in run[:2]] == ["native_call_permute_copy.out", "OPERATOR_CALL"]
    assert [e.instruction_id for e in run if e.name == "OPERATOR_CALL"] == [0, 1, 2, 3, 4]
    assert run[-1].name == "Method::execute" and run[-1].chain_index == -1
    assert all(e.duration > 0 for e in run)
    xnn = load_etdump(DUMPS / "xnnpack_mlp.etdp").runs[1].profile_events
    ids = [e.delegate_debug_id_str for e in xnn if e.is_delegate]
    assert ids == ["Fully Connected (NC, F32) GEMM #1", "Fully Connected (NC, F32) GEMM #2"]


@pytest.mark.parametrize("name", sorted(ALL))
def test_write_read_round_trip(name):
    dump = load_etdump(DUMPS / name)
    again = load_etdump(write_etdump(dump.runs, version=dump.version))
    assert [r.profile_events for r in again.runs] == [r.profile_events for r in dump.runs]
    assert [(r.name, r.bundled_input_index, r.allocators) for r in again.runs] == \
           [(r.name, r.bundled_input_index, r.allocators) for r in dump.runs]


def test_generated_bindings_and_our_reader_agree():
    """A dump built with flatc's object API (the schema's own slots) reads back field for field."""
    events = []
    for k in range(3):
        pe = ProfileEventT()
        pe.name, pe.chainIndex, pe.instructionId = f"op{k}", 0, k
        pe.delegateDebugIdInt, pe.delegateDebugIdStr = (7 if k == 1 else -1), ("node" if k == 2 else None)
        pe.delegateDebugMetadata = [1, 2, 3] if k == 2 else None
        pe.startTime, pe.endTime = 100 * k, 100 * k + 40 + k
        ev = EventT()
        ev.profileEvent = pe
        events.append(ev)
    ae = AllocationEventT()
    ae.allocatorId, ae.allocationSize = 1, 4096
    ev = EventT()
    ev.allocationEvent = ae
    events.append(ev)
    run = RunDataT()
    run.name, run.bundledInputIndex, run.events = "Execute", 3, events
    alloc = AllocatorT()
    alloc.name = "method_allocator"
    run.allocators = [alloc]
    root = ETDumpT()
    root.version, root.runData = 5, [run]
    b = flatbuffers.Builder(0)
    b.FinishSizePrefixed(root.Pack(b), b"ED00")
    dump = load_etdump(bytes(b.Output()))
    assert dump.version == 5
    (r,) = dump.runs
    assert (r.name, r.bundled_input_index, r.allocators) == ("Execute", 3, ("method_allocator",))
    assert r.profile_events == (
        ProfileEvent("op0", 0, 0, -1, None, b"", 0, 40),
        ProfileEvent("op1", 0, 1, 7, None, b"", 100, 141),
        ProfileEvent("op2", 0, 2, -1, "node", b"\x01\x02\x03", 200, 242))
    assert [(a.allocator_id, a.allocation_size) for a in r.allocation_events] == [(1, 4096)]


def test_dump_without_size_prefix_reads():
    runs = load_etdump(DUMPS / "mlp.etdp").runs
    data = write_etdump(runs, size_prefixed=False)
    assert data[4:8] == b"ED00"
    dump = load_etdump(data)
    assert not dump.size_prefixed and dump.event_count == sum(r.profile_count for r in runs)


@pytest.mark.parametrize("data, where, words", [
    (b"", 4, "not an ETDump"),
    (b"\x00" * 16, 8, "not an ETDump"),
    (struct.pack("<II", 100, 8) + b"ED00", 0, "truncated"),
    (struct.pack("<II", 8, 200) + b"ED00", 4, "outside the flatbuffer"),
])
def test_bad_container_says_where(data, where, words):
    with pytest.raises(PteFormatError) as info:
        load_etdump(data)
    assert info.value.offset == where and words in str(info.value)


def test_bad_event_offset_names_run_and_event():
    data = bytearray((DUMPS / "mlp.etdp").read_bytes())
    dump = load_etdump(bytes(data))
    # find run 1's events vector through the generated accessors, then point its element 3 past the end
    from explorer._generated.etdump.ETDump import ETDump as G
    root = G.GetRootAs(bytes(data), 4)
    events_vec = root.RunData(1)._tab.Vector(root.RunData(1)._tab.Offset(10))  # slot 3 -> vtable offset 10
    slot = events_vec + 4 * 3
    struct.pack_into("<I", data, slot, len(data) * 2)
    with pytest.raises(PteFormatError) as info:
        load_etdump(bytes(data))
    assert "run_data[1]" in str(info.value) and info.value.offset == slot
    assert dump.event_count  # the original still reads


def test_truncated_dumps_never_crash():
    data = (DUMPS / "synthetic_device_add.etdp").read_bytes()
    for cut in range(0, len(data), 7):
        try:
            load_etdump(data[:cut])
        except PteFormatError as exc:
            assert str(exc)


def test_reading_needs_neither_torch_nor_executorch():
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('torch', 'executorch'): raise ImportError('blocked ' + name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import explorer\n"
            "from explorer.analysis.profile.join import join_profile\n"
            f"d = explorer.load_etdump({str(DUMPS / 'two_methods.etdp')!r})\n"
            f"p = join_profile(explorer.load({str(FIX / 'two_methods.pte')!r}), d)\n"
            "print(sorted(p.plans))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "['encode', 'forward']"


# -- the join ----------------------------------------------------------------------------------------

def test_runs_are_assigned_to_the_method_they_fit():
    p = joined("two_methods.etdp")
    assert p.assignment == (None, "encode", None, "forward") + ("encode", "forward") * 4
    assert {n: len(pp.runs) for n, pp in p.plans.items()} == {"encode": 5, "forward": 5}
    assert not p.findings


def test_per_instruction_stats_are_over_runs():
    pp = joined("mlp.etdp").plans["forward"]
    dump = load_etdump(DUMPS / "mlp.etdp")
    envelopes = {}
    for r in dump.runs[1:]:
        for e in r.profile_events:
            if e.name == "OPERATOR_CALL":
                envelopes.setdefault(e.instruction_id, []).append(e.duration)
    for i, s in enumerate(pp.stats):
        assert (s.median, s.min, s.max, s.n) == (np.median(envelopes[i]), min(envelopes[i]), max(envelopes[i]), 5)
    assert pp.top(2)[0][1].median == max(s.median for s in pp.stats)


@pytest.mark.interop
@pytest.mark.parametrize("name", sorted(REAL))
def test_join_matches_executorch_inspector(name):
    """The same times as executorch's Inspector on the same file: per run and instruction (envelopes,
    kernel spans, delegate nodes, the run), and the same medians wherever Inspector groups exactly the runs
    we join to one plan. Inspector groups runs by their event signature (cond's two branches are two
    groups, one plan here) and keeps only the *last* execution of an instruction a loop runs several times
    per run, where we sum them (``calls``): both are checked as such."""
    from executorch.devtools import Inspector
    from executorch.devtools.inspector._inspector_utils import TimeScale

    from explorer.analysis.profile.join import ENVELOPES

    inspector = Inspector(etdump_path=str(DUMPS / name), etrecord=None, source_time_scale=TimeScale.NS,
                          target_time_scale=TimeScale.NS)
    dump = load_etdump(DUMPS / name)
    profile = joined(name)
    program = explorer.load(FIX / ALL[name])
    # where each event of the dump is: (name, instruction_id, start) -> run block, and the last span per run
    run_of, last = {}, {}
    for r in dump.runs:
        for e in r.profile_events:
            key = e.name if e.name is not None else e.delegate_debug_id_str
            run_of[(key, e.instruction_id, e.start_time)] = r.index
            last[(r.index, key, e.instruction_id)] = e.duration
    position = {run: (plan, k) for plan, pp in profile.plans.items() for k, run in enumerate(pp.runs)}
    compared = medians = 0
    for block in (b for b in inspector.event_blocks if b.name == "Execute"):
        block_runs = set()
        for e in block.events:
            key = e.name if e.delegate_debug_identifier is None else e.delegate_debug_identifier
            for start, raw in zip(e._start_time, e.perf_data.raw):
                run = run_of[(key, e._instruction_id if e.name != "Method::execute" else 0, start)]
                plan, k = position[run]
                pp = profile.plans[plan]
                block_runs.add(run)
                if e.name in ENVELOPES:
                    i = program.plan(plan).chains[0].start + e._instruction_id
                    calls = int(pp.calls[k, i])
                    if calls == 1:
                        assert pp.times[k, i] == raw
                    else:  # a loop: ours is the sum, Inspector's the last execution
                        assert calls > 1 and pp.times[k, i] > raw == last[(run, e.name, e._instruction_id)]
                elif e.name == "Method::execute":
                    assert pp.run_times[k] == raw
                elif e.name.startswith("native_call_"):
                    i = program.plan(plan).chains[0].start + e._instruction_id
                    if pp.calls[k, i] == 1:
                        assert pp.kernel_times[k, i] == raw
                elif e.delegate_debug_identifier is not None:
                    (node,) = [d for d in pp.delegate_nodes if d.debug_id == e.delegate_debug_identifier]
                    assert node.stat.n == len(pp.runs)
                compared += 1
        plans = {position[r][0] for r in block_runs}
        if len(plans) == 1 and block_runs == set(profile.plans[next(iter(plans))].runs):
            pp = profile.plans[next(iter(plans))]
            for e in block.events:
                if e.name in ENVELOPES:
                    i = program.plan(pp.plan).chains[0].start + e._instruction_id
                    if (pp.calls[:, i] == 1).all():
                        s = pp.stats[i]
                        assert (s.median, s.min, s.max, s.n) == (e.perf_data.p50, e.perf_data.min, e.perf_data.max,
                                                                 len(e.perf_data.raw))
                        medians += 1
                elif e.name == "Method::execute":
                    assert pp.run.median == e.perf_data.p50
                elif e.delegate_debug_identifier is not None:
                    (node,) = [d for d in pp.delegate_nodes if d.debug_id == e.delegate_debug_identifier]
                    assert node.stat.median == e.perf_data.p50
    assert compared >= 10
    assert medians or name == "zoo_cond.etdp"  # cond's runs took different branches: no block holds them all


def test_synthetic_device_profile_splits_devices_and_copies():
    pp = joined("synthetic_device_mlp.etdp").plans["forward"]
    devices = {d.device: d for d in pp.devices}
    assert list(devices) == ["cpu", "cuda:0", "copies"]
    assert devices["cuda:0"].instructions == 4  # the four delegate calls targeting cuda:0
    assert devices["copies"].instructions == 11
    assert 0.9 < sum(d.share for d in pp.devices) < 1.0  # the rest is the executor between instructions
    copies = {c.direction: c for c in pp.copies}
    assert (copies["h2d"].count, copies["h2d"].nbytes, copies["d2h"].count, copies["d2h"].nbytes) == (7, 224, 4, 128)
    h2d_cols = [i for i, b in enumerate(pp.instruction_device) if b == "copies"]
    assert copies["h2d"].stat.median + copies["d2h"].stat.median == pytest.approx(
        np.median(np.nansum(pp.times[:, h2d_cols], axis=1)), rel=0.02)
    assert copies["h2d"].bytes_per_s == pytest.approx(224 / (copies["h2d"].stat.median * 1e-9))
    assert len(pp.delegate_nodes) == 4 and all(d.debug_id == 1 for d in pp.delegate_nodes)


def test_slow_copies_dominate():
    fast = {d.device: d.share for d in joined("synthetic_device_mlp.etdp").plans["forward"].devices}
    slow = {d.device: d.share for d in joined("synthetic_slow_copies.etdp").plans["forward"].devices}
    assert slow["copies"] > 0.85 > fast["copies"]


def test_resolver_hook_maps_delegate_nodes():
    program = explorer.load(FIX / "xnnpack_mlp.pte")
    asked = []

    def resolver(delegate_index, debug_id):
        asked.append((delegate_index, debug_id))
        return f"node:{debug_id}"

    pp = join_profile(program, load_etdump(DUMPS / "xnnpack_mlp.etdp"), resolver=resolver).plans["forward"]
    assert sorted(asked) == [(0, "Fully Connected (NC, F32) GEMM #1"), (0, "Fully Connected (NC, F32) GEMM #2")]
    assert {d.node for d in pp.delegate_nodes} == {"node:" + d for _, d in asked}


def test_a_dump_of_another_program_is_an_error():
    with pytest.raises(ProfileMismatch, match="relu.out"):
        join_profile(explorer.load(FIX / "mlp.pte"), load_etdump(DUMPS / "two_methods.etdp"))
    with pytest.raises(ProfileMismatch, match="out of range"):
        join_profile(explorer.load(FIX / "device_add.pte"), load_etdump(DUMPS / "synthetic_device_mlp.etdp"))


def test_forced_method_that_does_not_fit_is_a_finding():
    program = explorer.load(FIX / "two_methods.pte")
    p = join_profile(program, load_etdump(DUMPS / "two_methods.etdp"), method="forward")
    assert len(p.plans["forward"].runs) == 5 and "encode" not in p.plans
    assert {f.code for f in p.findings} == {"profile-mismatch"} and len(p.findings) == 5


def _run(events):
    return SynthRun("Execute", tuple(events))


def test_ambiguous_run_is_left_out_and_named_run_is_joined():
    program = explorer.load(FIX / "two_methods.pte")
    # instruction 0 of chain 0 is permute_copy in both methods: fits both, covers both equally badly
    ev = [ProfileEvent("OPERATOR_CALL", 0, 0, start_time=10, end_time=20)]
    p = join_profile(program, load_etdump(write_etdump([_run(ev)])), strict=False)
    assert p.assignment == (None,) and p.findings[0].code == "profile-ambiguous" and not p.plans
    named = SynthRun("encode", tuple(ev))
    p = join_profile(program, load_etdump(write_etdump([named])))
    assert p.assignment == ("encode",) and p.plans["encode"].stats[0].median == 10


def test_clock_wrap_and_backwards_events():
    program = explorer.load(FIX / "mlp.pte")
    ev = [ProfileEvent("OPERATOR_CALL", 0, 0, start_time=2 ** 32 - 10, end_time=5),  # 32-bit wrap: 14 ticks
          ProfileEvent("OPERATOR_CALL", 0, 1, start_time=2 ** 40, end_time=2 ** 40 - 5)]  # backwards: dropped
    p = join_profile(program, load_etdump(write_etdump([_run(ev)])))
    pp = p.plans["forward"]
    assert pp.stats[0].median == 14 and pp.stats[1].n == 0
    assert [f.code for f in p.findings] == ["profile-clock"]


def test_kernel_span_counts_when_no_envelope():
    program = explorer.load(FIX / "mlp.pte")
    ev = [ProfileEvent("native_call_addmm.out", 0, 1, start_time=0, end_time=30)]
    pp = join_profile(program, load_etdump(write_etdump([_run(ev)]))).plans["forward"]
    assert pp.stats[1].median == 30 and pp.stats[0].n == 0


def test_fixture_script_check_synthetic_bytes():
    script = _script()
    for name, (program, bandwidth, jitter, seed) in script.SYNTHETIC.items():
        assert script.synthesize(FIX / program, bandwidth, jitter, seed) == (DUMPS / name).read_bytes(), name


# -- CLI -------------------------------------------------------------------------------------------------

def test_inspect_profile_json_shape():
    code, text = cli("inspect", str(FIX / "device_mlp.pte"), "--json", "--profile",
                     str(DUMPS / "synthetic_device_mlp.etdp"))
    assert code == 0
    doc = json.loads(text)
    prof = doc["plans"][0]["profile"]
    assert prof["runs"] == 5 and prof["unit"] == "ticks"
    assert set(prof) >= {"runs", "unit", "instructions", "devices", "copies", "top"}
    assert set(prof["instructions"][0]) == {"index", "median", "min", "max", "n"}
    assert [i["index"] for i in prof["instructions"]] == list(range(20))
    assert set(prof["devices"]) == {"cpu", "cuda:0", "copies"}
    assert set(prof["devices"]["cpu"]) >= {"median", "share"}
    assert prof["copies"]["h2d"]["count"] == 7 and prof["copies"]["h2d"]["bytes"] == 224
    assert set(prof["copies"]["h2d"]) == {"count", "bytes", "time", "bytes_per_s"}
    assert len(prof["top"]) == 10
    assert doc["profile"]["file"] == "synthetic_device_mlp.etdp" and doc["profile"]["findings"] == []


def test_inspect_profile_text():
    code, text = cli("inspect", str(FIX / "device_add.pte"), "--profile", str(DUMPS / "synthetic_device_add.etdp"))
    assert code == 0
    assert "profile synthetic_device_add.etdp: forward: 5 runs" in text
    assert "copies h2d  2 per run, 32 B" in text and "top 4 instructions by median time" in text
    assert "cuda:0" in text and "% of the run" in text


def test_inspect_profile_errors(tmp_path, capsys):
    bad = tmp_path / "bad.etdp"
    bad.write_bytes(b"\x10\x00\x00\x00\x08\x00\x00\x00ED00" + b"\xff" * 4)
    code, _ = cli("inspect", str(FIX / "mlp.pte"), "--profile", str(bad))
    assert code == 2 and "cannot read" in capsys.readouterr().err
    code, _ = cli("inspect", str(FIX / "mlp.pte"), "--profile", str(DUMPS / "two_methods.etdp"))
    err = capsys.readouterr().err
    assert code == 2 and "does not fit the program" in err


def test_diff_with_two_profiles():
    code, text = cli("diff", str(FIX / "device_mlp.pte"), str(FIX / "device_mlp.pte"), "--profile",
                     str(DUMPS / "synthetic_device_mlp.etdp"), str(DUMPS / "synthetic_slow_copies.etdp"))
    assert code == 0 and "profile of plan 'forward'" in text and "et_copy::_h2d_copy.out" in text
    code, text = cli("diff", str(FIX / "mlp.pte"), str(FIX / "xnnpack_mlp.pte"), "--json", "--profile",
                     str(DUMPS / "mlp.etdp"), str(DUMPS / "xnnpack_mlp.etdp"))
    (d,) = json.loads(text)["profile"]
    assert d["plan"] == "forward" and {x["device"] for x in d["devices"]} == {"cpu"}
    paired = [x for x in d["instructions"] if x["a"] is not None and x["b"] is not None]
    assert paired and paired[0]["label"].endswith("-> XnnpackBackend")
    assert sum(1 for x in d["instructions"] if x["b"] is None) == 4


def test_inspect_says_xnnpack_reports_only_its_total_never_0_ns_per_node():
    """XNNPACK's node events carry no time (only the delegate call is timed): the CLI listed each at "0 ns"."""
    code, text = cli("inspect", str(FIX / "xnnpack_mlp.pte"), "--profile", str(DUMPS / "xnnpack_mlp.etdp"))
    nodes = text.split("delegate nodes")[1]
    assert code == 0 and nodes.startswith(": only the delegate's total is reported (its backend gave these 2 nodes")
    assert "GEMM #1" in nodes and " 0 ns" not in nodes


def test_many_names_are_interned_exactly():
    """The vectorised de-duplication of event names keeps every distinct text, including ones that differ
    only by trailing NULs or are prefixes of each other."""
    texts = ["a", "a\x00", "ab", "", "native_call_add.out", "ä", "a" * 300]
    events = [ProfileEvent(texts[k % len(texts)], 0, k % 5, delegate_debug_id_str=texts[(k * 3) % len(texts)],
                           start_time=k, end_time=k + 2) for k in range(2000)]
    dump = load_etdump(write_etdump([SynthRun("Execute", tuple(events))]))
    # an empty delegate id string reads as unset, as executorch's Inspector reads it
    expected = tuple(dataclasses.replace(e, delegate_debug_id_str=e.delegate_debug_id_str or None) for e in events)
    assert dump.runs[0].profile_events == expected
    assert sorted(dump.profile.names) == sorted(texts)


def test_empty_delegate_debug_id_is_unset_as_inspector_reads_it():
    """The runtime writes "" for a delegate id it did not set; executorch's Inspector turns "" into None
    (devtools/inspector/_inspector.py, ProfileEventSignature._gen_from_event). A real published
    sample.etdump has only such events: they are operator events of their instructions, not delegate events,
    so the profile joins instead of being refused for 'delegate events on a KernelCall'."""
    base = load_etdump(DUMPS / "mlp.etdp")
    assert not any(e.is_delegate for r in base.runs for e in r.profile_events)
    debug = (DebugEvent(0, 1, delegate_debug_id_str=""),)
    runs = [SynthRun(r.name, tuple(dataclasses.replace(e, delegate_debug_id_str="") for e in r.profile_events),
                     debug_events=debug) for r in base.runs]
    dump = load_etdump(write_etdump(runs))
    assert all(e.delegate_debug_id_str is None and not e.is_delegate for r in dump.runs for e in r.profile_events)
    assert dump.runs[0].debug_events[0].delegate_debug_id_str is None
    program = explorer.load(FIX / "mlp.pte")
    joined, reference = join_profile(program, dump), join_profile(program, base)
    got, want = joined.plan("forward"), reference.plan("forward")
    assert np.array_equal(np.isnan(got.times), np.isnan(want.times)) and not got.delegate_nodes


def test_profile_payload_for_the_app():
    from explorer.views.payload.profile import profile_payload

    pp = joined("synthetic_device_mlp.etdp").plans["forward"]
    doc = profile_payload(pp, "run.etdp")
    json.dumps(doc, allow_nan=False)
    assert doc["runs"] == 5 and len(doc["median"]) == len(doc["n"]) == 20 and len(doc["perRun"]) == 5
    assert [d["name"] for d in doc["devices"]] == ["cpu", "cuda:0", "copies"]
    assert doc["devices"][0]["color"] == "#0072B2" and doc["devices"][1]["color"] == "#E69F00"
    assert doc["median"][3] == pp.stats[3].median and doc["bucket"][3] == "cuda:0"
    xnn = profile_payload(joined("xnnpack_mlp.etdp").plans["forward"])
    assert [n["id"] for n in xnn["nodes"]] == ["Fully Connected (NC, F32) GEMM #1", "Fully Connected (NC, F32) GEMM #2"]


def test_xnnpack_node_events_resolve_to_decoded_nodes():
    """XNNPACK reports its operators by name ('Fully Connected (NC, F32) GEMM #1'); they are matched to the
    decoded XNodes of the same kind in order, only because the counts agree (2 events, 2 FullyConnected)."""
    from explorer.analysis.profile.nodes import subgraph_resolver, xnnpack_kinds

    assert xnnpack_kinds("Convolution (NHWC, F32) IGEMM #12") == ("Convolution", 12)
    pp = joined("xnnpack_mlp.etdp").plans["forward"]
    assert [(d.node[1], d.node[2], d.node[3]) for d in pp.delegate_nodes] == [
        (0, "XNNFullyConnected", "kind and order"), (1, "XNNFullyConnected", "kind and order")]
    program = explorer.load(FIX / "xnnpack_mlp.pte")
    plan = program.plan("forward")
    only_one = subgraph_resolver(program, plan, {0: ["Fully Connected (NC, F32) GEMM #1"]})
    assert only_one(0, "Fully Connected (NC, F32) GEMM #1") is None  # 1 event, 2 nodes: not guessed
    assert subgraph_resolver(program, plan, {})(0, 1) is not None  # an integer id: the node with that debug handle
    code, text = cli("inspect", str(FIX / "xnnpack_mlp.pte"), "--profile", str(DUMPS / "xnnpack_mlp.etdp"))
    assert "GEMM #2 = subgraph node 1 (XNNFullyConnected)" in text


def test_widgets_take_profiles():
    """Explorer(program, profile=...) and Diff(a, b, profiles=(...)) send the profile to the app."""
    from explorer.views.payload.embed import unpack

    ex = explorer.Explorer(FIX / "device_mlp.pte", profile=DUMPS / "synthetic_device_mlp.etdp")
    (plan,) = unpack(ex._payload)["plans"]
    assert plan["profile"]["runs"] == 5 and ex.profile.plans["forward"].stats[0].n == 5
    d = explorer.Diff(FIX / "mlp.pte", FIX / "xnnpack_mlp.pte",
                      profiles=(DUMPS / "mlp.etdp", DUMPS / "xnnpack_mlp.etdp"))
    (plan,) = unpack(d._payload)["plans"]
    assert set(plan["profiles"]) == {"a", "b"} and plan["profileDiff"]["plan"] == "forward"
    with pytest.raises(ProfileMismatch):
        explorer.Explorer(FIX / "mlp.pte", profile=DUMPS / "two_methods.etdp")


def test_looped_instructions_count_every_execution():
    """zoo/map.pte runs its body three times per run (a JumpFalseCall loop, JF_CALL envelopes): each body
    instruction's time is the sum of its executions and the JSON says how many (``calls``)."""
    pp = joined("zoo_map.etdp").plans["forward"]
    doc = {i["index"]: i for i in pp.to_json()["instructions"]}
    program = explorer.load(FIX / "zoo/map.pte")
    jump = next(i.index for i in program.plan("forward").instructions if i.kind == "JumpFalseCall")
    assert doc[jump]["calls"] == 3 and "calls" not in doc[0]
    assert (pp.calls[:, 1] == 3).all() and (pp.calls[:, 0] == 1).all()
    code, text = cli("inspect", str(FIX / "zoo/map.pte"), "--profile", str(DUMPS / "zoo_map.etdp"))
    assert code == 0 and "(x3 per run)" in text
