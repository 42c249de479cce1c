"""Ethos-U, VGF, Core ML and QNN payloads: identified by their own header, damaged ones reported (never
raised), only the bytes a header points at read. No exporter for these backends runs here, so the
payloads are built from the layouts their upstream code writes (tests/payload_helpers.py) and carried by
a real program (the zoo's xnnpack_mlp.pte, re-labelled): tests/fixtures/payloads/, made by
scripts/make_payload_fixtures.py."""

from __future__ import annotations

import io
import json
import struct

import pytest

import explorer
from explorer.analysis.companions import payloads
from explorer.cli import main
from explorer.format.backends.headers import decode_coreml, decode_qnn, decode_vela, decode_vgf
from explorer.format.backends.blob import describe_payload
from explorer.model.program import CompileSpec, Delegate
from explorer.views.payload.companions import companion_view, instruction_rows
from explorer.views.escape import html_text as h

from payload_helpers import (ETHOS_SPECS, PAYLOADS, REAL, ZOO, build_all, coreml_directory, program_with_payload,
                             qnn_context, vela_stream, vgf_file)


def test_the_fixtures_are_what_the_script_builds_and_each_is_identified_and_check_is_silent():
    files = build_all()
    assert sorted(p.name for p in PAYLOADS.glob("*.pte")) == sorted([*files, *REAL])
    formats = {}
    for name, data in files.items():
        assert (PAYLOADS / name).read_bytes() == data, name
        program = explorer.load(PAYLOADS / name)
        [p] = payloads(program)["forward"]
        assert p.error is None and p.header, name
        formats[name] = p.format
        assert explorer.check(program) == [], name
    assert formats == {"ethos_u.pte": "ethos-u-vela", "ethos_u_external.pte": "ethos-u-vela", "vgf.pte": "vgf",
                       "coreml.pte": "coreml", "coreml_reference.pte": "coreml", "qnn.pte": "qnn-context"}


def test_a_real_ethos_u_export():
    """executorch 1.5.1 + Vela 5.1.0, ethos-u55-128 (scripts/make_payload_fixtures.py real_ethos_u)."""
    program = explorer.load(PAYLOADS / "real_ethos_u.pte")
    [p] = payloads(program)["forward"]
    assert (p.format, p.magic, p.error, p.storage, p.size) == ("ethos-u-vela", "vela_bin_stream", None, "segment", 816)
    assert dict(p.header) == {
        "blocks": "vela_bin_stream, cmd_data, weight_data, scratch_size, inputs, outputs, vela_end_stream",
        "command stream": "328 B, 'COP1'", "weights": "144 B", "scratch": "32 B (allocated by the runtime)",
        "inputs": "1: 1x1x1x1x1x8 (1 B elements)", "outputs": "1: 1x1x1x1x1x4 (1 B elements)"}
    specs = dict(p.compile_specs)
    assert specs["compile_flags.accelerator-config"] == "ethos-u55-128" and specs["output_format"] == "vela"
    assert specs["compile_flags.system-config"] == "Ethos_U55_High_End_Embedded"
    assert specs["transform_pipeline_config.softmax"] == "STABLE" and specs["target"] == "ethos-u55-128"
    assert [(s.index, s.size) for s in program.segments] == [(0, 0), (1, 816)]
    assert explorer.check(program) == []


def test_a_real_coreml_export():
    """executorch 1.5.1 + coremltools 9.0, an ML program package (scripts/make_payload_fixtures.py real_coreml)."""
    program = explorer.load(PAYLOADS / "real_coreml.pte")
    [p] = payloads(program)["forward"]
    assert (p.format, p.magic, p.error) == ("coreml", '{"inputN', None)
    rows = dict(p.header)
    assert rows["model"] == "model package (model.mlpackage)" and rows["files"].startswith("6, ")
    assert "model.mlpackage/Data/com.apple.CoreML/model.mlmodel" in rows["files"]
    assert (rows["inputs"], rows["outputs"]) == ("x", "aten_relu_default")
    assert rows["identifier"] == "executorch_00000000-0000-0000-0000-000000000000"
    assert dict(p.compile_specs)["model_type"] == "model"
    assert explorer.check(program) == []


@pytest.mark.interop
def test_executorch_verifies_the_payload_carriers():
    """executorch's own loader (InternalConsistency) accepts every fixture: the carriers are sound programs."""
    from executorch.extension.pybindings.portable_lib import _load_program_from_buffer, Verification

    for path in sorted(PAYLOADS.glob("*.pte")):
        _load_program_from_buffer(path.read_bytes(), program_verification=Verification.InternalConsistency)


@pytest.mark.parametrize("decode, data", [(decode_vela, vela_stream()), (decode_vgf, vgf_file()),
                                          (decode_qnn, qnn_context()), (decode_coreml, coreml_directory())],
                         ids=["vela", "vgf", "qnn", "coreml"])
def test_every_byte_of_each_payload_corrupted_is_answered_not_raised(decode, data):
    for i in range(len(data)):
        for value in (0x00, 0xFF, data[i] ^ 0x80):
            mutant = data[:i] + bytes([value]) + data[i + 1:]
            out = decode(_reader(mutant, []), len(mutant))
            assert out.error is None or isinstance(out.error, str)
    for cut in range(0, len(data), 3):
        out = decode(_reader(data[:cut], []), cut)
        assert out.error is None or isinstance(out.error, str)


def _payload(backend: str, data: bytes, specs=()):
    [p] = payloads(explorer.load(program_with_payload(backend, data, specs)))["forward"]
    return p


def _reader(data: bytes, log: list[int]):
    def read(offset: int, count: int) -> bytes:
        chunk = data[offset:offset + count]
        log.append(len(chunk))
        return chunk
    return read


def test_ethos_u_vela_stream_blocks_sizes_and_io():
    p = _payload("EthosUBackend", vela_stream(), ETHOS_SPECS)
    assert (p.format, p.magic, p.error) == ("ethos-u-vela", "vela_bin_stream", None)
    rows = dict(p.header)
    assert rows["blocks"] == "vela_bin_stream, cmd_data, weight_data, scratch_size, inputs, outputs, vela_end_stream"
    assert rows["command stream"] == "64 B, 'COP1'" and rows["weights"] == "100 B"
    assert rows["scratch"].startswith("4,096 B")
    assert rows["inputs"] == "1: 1x1x1x1x4x4 (1 B elements)" and rows["outputs"] == "1: 1x1x1x1x1x3 (1 B elements)"
    assert ("output_format", "vela") in p.compile_specs


def test_arm_compile_flags_and_pipeline_options_are_one_pair_each():
    from explorer.format.backends.blob import decode_compile_specs

    d = Delegate(0, "EthosUBackend", "segment", 1, (
        CompileSpec("compile_flags", b"--accelerator-config=ethos-u85-256 --verbose-all"),
        CompileSpec("transform_pipeline_config", b'{"softmax": "STABLE", "quantize_inf": {"neg_inf": -256.0}}'),
        CompileSpec("tosa_spec", b"TOSA-1.0+INT")))
    assert decode_compile_specs(d) == (
        ("compile_flags.accelerator-config", "ethos-u85-256"), ("compile_flags.verbose-all", "on"),
        ("transform_pipeline_config.softmax", "STABLE"), ("transform_pipeline_config.quantize_inf", '{"neg_inf": -256.0}'),
        ("tosa_spec", "TOSA-1.0+INT"))
    odd = Delegate(0, "VgfBackend", "segment", 1, (CompileSpec("compile_flags", b"plain words"),
                                                   CompileSpec("transform_pipeline_config", b"[1]")))
    assert decode_compile_specs(odd) == (("compile_flags", "plain words"), ("transform_pipeline_config", "[1]"))
    other = Delegate(0, "XnnpackBackend", "segment", 1, (CompileSpec("compile_flags", b"--a=b"),))
    assert decode_compile_specs(other) == (("compile_flags", "--a=b"),)


def test_ethos_u_external_blocks_are_named_data_keys():
    key = "ab" * 32
    p = _payload("EthosUBackend", vela_stream(external={"weight_data": key}), ETHOS_SPECS)
    assert p.named_keys == (key,) and p.error is None
    assert dict(p.header)["weight data"] == "named data abababababababab… (its bytes are outside the payload)"


def test_vela_reader_reads_block_headers_not_weights():
    log: list[int] = []
    blocks = {"vela_bin_stream": b"", "cmd_data": b"COP2" + bytes(12), "weight_data": bytes(4 << 20),
              "scratch_size": struct.pack("<I", 16), "inputs": struct.pack("<i", 0), "outputs": struct.pack("<i", 0),
              "vela_end_stream": b""}
    data = vela_stream(blocks)
    out = decode_vela(_reader(data, log), len(data))
    assert out.error is None and dict(out.header)["weights"] == "4,194,304 B"
    assert sum(log) < 1024  # the 4 MiB of weights are skipped, not read


@pytest.mark.parametrize("damage, expected", [
    (lambda d: d[:100], "runs past the 100-byte payload"),
    (lambda d: b"vela_xxx_stream\x00" + d[16:], "expected the 'vela_bin_stream' block first"),
    (lambda d: d[:-32], "without a 'vela_end_stream' block"),
    (lambda d: d + bytes(16), "16 bytes follow 'vela_end_stream'"),
    (lambda d: d.replace(b"COP1", b"XXXX"), "starts with b'XXXX', not 'COP1' or 'COP2'"),
    (lambda d: d.replace(b"weight_data", b"weight_dat2"), "unknown block 'weight_dat2'"),
    (lambda d: vela_stream(external={"weight_data": "ab" * 8}), "holds 16 bytes, not a 64-byte named-data key"),
])
def test_damaged_vela_streams_say_what_is_wrong(damage, expected):
    data = damage(vela_stream())
    out = decode_vela(_reader(data, []), len(data))
    assert out.error is not None and expected in out.error


def test_a_damaged_ethos_u_payload_is_a_check_warning():
    program = explorer.load(program_with_payload("EthosUBackend", vela_stream()[:-32], ETHOS_SPECS))
    found = explorer.check(program)
    assert [f.code for f in found] == ["bad-delegate-payload"]
    assert "its ethos-u-vela payload does not decode" in found[0].message


def test_vgf_header_version_and_sections():
    p = _payload("VgfBackend", vgf_file(), (("output_format", b"vgf"),))
    assert (p.format, p.magic, p.error) == ("vgf", "VGF1", None)
    rows = dict(p.header)
    assert rows["VGF version"] == "0.4.0" and rows["Vulkan header version"] == "310"
    assert rows["modules"] == "64 B at byte 128" and rows["constants"] == "16 B at byte 272"
    bad = vgf_file(sections=((128, 64), (192, 32), (224, 48), (272, 1 << 30)))
    assert "section 'constants'" in decode_vgf(_reader(bad, []), len(bad)).error
    assert "expected the VGF magic" in decode_vgf(_reader(b"XXXX" + bad[4:], []), len(bad)).error


def test_qnn_context_header_and_a_bare_context_binary():
    p = _payload("QnnBackend", qnn_context(), (("qnn_compile_spec", bytes(range(256)) * 2),))
    assert (p.format, p.magic, p.error) == ("qnn-context", "cdab78567b641c90", None)
    assert dict(p.header) == {"context binary": "40 B from byte 256 (QNN SDK format)", "signature": "1733289600123"}
    lying = qnn_context(declared=1 << 20)
    assert "past the end" in decode_qnn(_reader(lying, []), len(lying)).error
    # without the magic the runtime loads the blob as a bare context binary (QnnExecuTorchBackend::init)
    assert _payload("QnnBackend", b"\x00\x01" * 100).format == "unknown"


def test_coreml_directory_tree_and_metadata():
    p = _payload("CoreMLBackend", coreml_directory())
    assert (p.format, p.magic, p.error) == ("coreml", '{"inputN', None)
    rows = dict(p.header)
    assert rows["model"] == "compiled model (model.mlmodelc)"
    assert rows["files"].startswith("3, 179 B: metadata.json (76 B), model.mlmodelc/coremldata.bin (90 B)")
    assert (rows["inputs"], rows["outputs"], rows["identifier"]) == ("x", "y", "executorch_1234")


def test_coreml_reference_names_its_model_in_named_data():
    ref = b"CMJR" + json.dumps({"version": 1, "key": "coreml_model_0", "functionName": "forward"}).encode()
    p = _payload("CoreMLBackend", ref)
    assert (p.format, p.named_keys, p.error) == ("coreml", ("coreml_model_0",), None)
    assert "function 'forward'" in dict(p.header)["reference"]


@pytest.mark.parametrize("data, expected", [
    (b"\x00" * 64, "its last byte is '{'"),
    (b"\x00" * 8 + b"}]{:\"sedon\"{", "not JSON"),
    (b"\x00" * 8 + json.dumps({"nodes": [{"kind": 0, "name": "a", "dataRegion": {"offset": 0, "size": 999}}]}).encode()[::-1],
     "no data region"),
    (b"\x00" * 8 + json.dumps({"nodes": [{"kind": 1, "name": "d", "children": {"x": 0}}]}).encode()[::-1],
     "reached twice"),
    (b"CMJR{}", "no 'key'"),
])
def test_damaged_coreml_payloads_say_what_is_wrong(data, expected):
    assert expected in decode_coreml(_reader(data, []), len(data)).error


def test_inline_payloads_are_identified_from_their_bytes():
    d = Delegate(0, "EthosUBackend", "inline", 0, (CompileSpec("output_format", b"vela"),))
    p = describe_payload(d, vela_stream())
    assert p.format == "ethos-u-vela" and p.error is None
    # an unfamiliar backend id with a recognisable header is still identified
    assert describe_payload(Delegate(0, "MyVgfFork", "inline", 0), vgf_file()).format == "vgf"
    assert describe_payload(Delegate(0, "Other", "inline", 0), b"\x00" * 64).format == "unknown"


def test_inspect_json_and_details_show_the_header(tmp_path):
    data = program_with_payload("EthosUBackend", vela_stream(), ETHOS_SPECS)
    program = explorer.load(data)
    out = io.StringIO()
    path = tmp_path / "ethos.pte"
    path.write_bytes(data)
    assert main(["inspect", str(path)], stdout=out) == 0
    text = out.getvalue()
    assert "payload: ethos-u-vela, 512 B segment, magic 'vela_bin_stream'" in text
    assert "command stream: 64 B, 'COP1'" in text
    assert "segment 0: empty and unused (the constant segment of a program with no constants outside its " \
           "delegates" in text
    out = io.StringIO()
    assert main(["inspect", str(path), "--json"], stdout=out) == 0
    doc = json.loads(out.getvalue())
    assert doc["plans"][0]["delegates"][0]["payload"]["header"]["scratch"].startswith("4,096 B")
    plan = program.plans[0]
    rows = dict(instruction_rows(companion_view(program, plan), plan, 0))
    assert rows["command stream"] == h("64 B, 'COP1'") and rows["scratch"].startswith("4,096 B")


def test_segments_listed_only_when_empty_or_unreferenced():
    from explorer.describe.companions import segment_lines

    assert segment_lines(explorer.load(ZOO / "cnn.pte")) == []  # constants in segment 0: nothing to say
    assert segment_lines(explorer.load(ZOO / "xnnpack_mlp.pte")) == [
        "    segment 0: empty and unused (the constant segment of a program with no constants outside its "
        "delegates; nothing is read from it)"]


# -- QNN compile spec (QnnExecuTorchOptions flatbuffer) -----------------------------------------------

def _qnn_options_bytes(soc: int = 57, arch: int = 75, perf: int = 2, flags: bool = True) -> bytes:
    """A QnnExecuTorchOptions flatbuffer written field by field with the flatbuffers builder (slots of
    qc_compiler_spec.fbs), the way flatc writes it: defaults left out."""
    import flatbuffers

    b = flatbuffers.Builder(256)
    path = b.CreateString("/opt/qnn/lib")
    b.StartObject(2); b.PrependInt32Slot(0, arch, 0); b.PrependUint32Slot(1, 8, 0); htp_info = b.EndObject()
    b.StartObject(3); b.PrependInt32Slot(0, soc, 0); b.PrependUOffsetTRelativeSlot(1, htp_info, 0); soc_info = b.EndObject()
    b.StartObject(10); b.PrependInt32Slot(1, perf, 0); b.PrependBoolSlot(4, flags, False); htp = b.EndObject()
    b.StartObject(4); b.PrependInt32Slot(0, 2, 0); b.PrependUOffsetTRelativeSlot(1, htp, 0); backend = b.EndObject()
    b.StartObject(13)
    b.PrependUOffsetTRelativeSlot(0, soc_info, 0); b.PrependUOffsetTRelativeSlot(1, backend, 0)
    b.PrependUOffsetTRelativeSlot(2, path, 0); b.PrependInt32Slot(3, 1, 0); b.PrependBoolSlot(12, flags, False)
    b.Finish(b.EndObject())
    return bytes(b.Output())


def test_qnn_compile_spec_decodes_to_named_options():
    from explorer.format.backends.blob import decode_compile_specs

    d = Delegate(0, "QnnBackend", "segment", 1, (CompileSpec("qnn_compile_spec", _qnn_options_bytes()),))
    specs = dict(decode_compile_specs(d))
    assert specs == {"qnn_compile_spec.soc": "SM8650", "qnn_compile_spec.htp_arch": "V75",
                     "qnn_compile_spec.vtcm_size_in_mb": "8", "qnn_compile_spec.backend_type": "kHtpBackend",
                     "qnn_compile_spec.htp_performance_mode": "kHtpBurst",
                     "qnn_compile_spec.htp_precision": "kHtpQuantized",
                     "qnn_compile_spec.htp_pd_session": "kHtpUnsignedPd", "qnn_compile_spec.htp_flags": "use_conv_hmx",
                     "qnn_compile_spec.log_level": "kLogLevelError", "qnn_compile_spec.profile_level": "kProfileOff",
                     "qnn_compile_spec.flags": "use_mha2sha", "qnn_compile_spec.library_path": "/opt/qnn/lib"}
    assert dict(decode_compile_specs(Delegate(0, "QnnBackend", "segment", 1, (
        CompileSpec("qnn_compile_spec", _qnn_options_bytes(soc=1234, arch=1, flags=False)),))))[
        "qnn_compile_spec.soc"] == "unknown(1234)"
    # another backend's spec of that name, and damaged bytes, stay bytes (shown as size + prefix)
    assert decode_compile_specs(Delegate(0, "Other", "segment", 1, (CompileSpec("qnn_compile_spec", b"\xff" * 4),))) \
        == (("qnn_compile_spec", "ffffffff"),)
    for cut in range(0, 60, 7):
        damaged = _qnn_options_bytes()[:cut]
        out = decode_compile_specs(Delegate(0, "QnnBackend", "segment", 1, (CompileSpec("qnn_compile_spec", damaged),)))
        assert out == (("qnn_compile_spec", CompileSpec("qnn_compile_spec", damaged).text),)


def _fbs_tables_and_enums(text: str):
    import re

    text = re.sub(r"//[^\n]*", "", text)
    tables = {m.group(1): [f for f in re.findall(r"(\w+)\s*:", m.group(2))]
              for m in re.finditer(r"table\s+(\w+)\s*\{([^}]*)\}", text)}
    enums = {}
    for m in re.finditer(r"enum\s+(\w+)\s*:\s*\w+\s*\{([^}]*)\}", text):
        values, nxt = {}, 0
        for item in (x.strip() for x in m.group(2).split(",") if x.strip()):
            name, _, val = (p.strip() for p in item.partition("="))
            nxt = int(val) if val else nxt
            values[nxt] = name
            nxt += 1
        enums[m.group(1)] = values
    return tables, enums


@pytest.mark.interop
def test_qnn_slots_and_enums_are_the_wheels_schema_and_decode_its_serializer():
    from pathlib import Path

    import executorch.backends.qualcomm.serialization as ser
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset, QnnExecuTorchHtpPerformanceMode
    from executorch.backends.qualcomm.utils.utils import generate_htp_compiler_spec, generate_qnn_executorch_compiler_spec

    from explorer.format.backends.qnn_options import ENUMS, SLOTS, decode_qnn_options

    tables, enums = _fbs_tables_and_enums((Path(list(ser.__path__)[0]) / "qc_compiler_spec.fbs").read_text())
    for table, slots in SLOTS.items():
        assert {f: i for i, f in enumerate(tables[table])} == slots, table
    for name, values in ENUMS.items():
        assert enums[name] == values, name
    for soc, fp16, perf in ((QcomChipset.SM8650, False, QnnExecuTorchHtpPerformanceMode.kHtpBurst),
                            (QcomChipset.SM8550, True, QnnExecuTorchHtpPerformanceMode.kHtpPowerSaver)):
        backend = generate_htp_compiler_spec(use_fp16=fp16)
        backend.htp_options.performance_mode = perf
        [spec] = generate_qnn_executorch_compiler_spec(soc_model=soc, backend_options=backend, use_mha2sha=fp16)
        got = dict(decode_qnn_options(spec.value))
        assert (got["soc"], got["htp_performance_mode"]) == (soc.name, perf.name)
        assert got["htp_precision"] == ("kHtpFp16" if fp16 else "kHtpQuantized")
        assert ("use_mha2sha" in got["flags"]) == fp16 and got["backend_type"] == "kHtpBackend"
