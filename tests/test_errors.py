"""Every structural way the bytes can be wrong gives a PteFormatError naming where and what.

Each case corrupts a real export (or a program our writer built) at a located spot. The located
spots are found by walking the flatbuffer with the same bounds-checked reader the decoder uses.
"""

import struct
from pathlib import Path

import pytest

import explorer
from explorer import PteFormatError
from explorer.format.pte import slots as S
from explorer.format.pte.container import read_container
from explorer.format.flatbuf import FlatReader

FIXTURE = Path(__file__).parent / "fixtures" / "device_add.pte"
GOOD = FIXTURE.read_bytes()


def _walk(data: bytes):
    """Positions of interesting fields in a valid program."""
    c = read_container(data, len(data))
    r = FlatReader(data, c.flatbuffer_end)
    root_vt = r.table(c.root)
    plan = r.tables(r.ref(c.root, root_vt, S.PROGRAM_EXECUTION_PLAN))[0]
    pvt = r.table(plan)
    values_vec = r.ref(plan, pvt, S.PLAN_VALUES)
    evalue = r.tables(values_vec)[0]
    evt = r.table(evalue)
    chain = r.tables(r.ref(plan, pvt, S.PLAN_CHAINS))[0]
    cvt = r.table(chain)
    instr = r.tables(r.ref(chain, cvt, S.CHAIN_INSTRUCTIONS))[0]
    ivt = r.table(instr)
    tensor = r.ref(evalue, evt, S.EVALUE_VAL)
    tvt = r.table(tensor)
    return {
        "root": c.root, "plan": plan, "values_vec": values_vec, "evalue": evalue,
        "evalue_tag": evalue + evt[S.EVALUE_VAL_TYPE], "instr_tag": instr + ivt[S.INSTRUCTION_ARGS_TYPE],
        "sizes_ref": tensor + tvt[S.TENSOR_SIZES], "name_ref": plan + pvt[S.PLAN_NAME], "end": c.flatbuffer_end,
    }


POS = _walk(GOOD)


def _patch(data: bytes, offset: int, fmt: str, value) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def _fails(data: bytes, *needles: str) -> PteFormatError:
    with pytest.raises(PteFormatError) as info:
        explorer.load(data)
    message = str(info.value)
    for needle in needles:
        assert needle in message, message
    return info.value


def test_empty_input():
    _fails(b"", "file is empty")  # bytes and a path say the same (issue 30)


def test_empty_file(tmp_path):
    path = tmp_path / "empty.pte"
    path.write_bytes(b"")
    _fails_path = pytest.raises(PteFormatError, match="empty")
    with _fails_path:
        explorer.load(path)


def test_not_a_flatbuffer():
    err = _fails(b"PK\x03\x04 this is a zip file, not a program", "identifier", "not an ExecuTorch program")
    assert err.offset == 4


def test_wrong_identifier():
    _fails(GOOD[:4] + b"TFL3" + GOOD[8:], "'ET12'", "b'TFL3'", "not an ExecuTorch program")


@pytest.mark.parametrize("magic, says", [
    (b"ET11", "schema version 11, but this tool and executorch 1.5.1 read only ET12"),
    (b"ET13", "schema version 13"),
    (b"ED00", "ETDump"),
    (b"XH00", "XNNPACK delegate payload"),
    (b"XN01", "XNNPACK delegate flatbuffer"),
])
def test_only_et12_is_a_program_and_other_magics_are_named(magic, says):
    err = _fails(GOOD[:4] + magic + GOOD[8:], "expected file identifier 'ET12'", says)
    assert err.offset == 4


def test_a_zip_is_named_with_what_to_do():
    _fails(b"PK\x03\x04" + bytes(60), "zip archive", "to_executorch")


@pytest.mark.parametrize("magic, says", [(b"FT01", "data file (.ptd"), (b"BP08", "bundled program")])
def test_the_program_container_names_companion_files(magic, says):
    """``explorer.load`` opens .ptd and .bpte files itself; the program container, asked to read one as
    a program, still says what it is."""
    data = GOOD[:4] + magic + GOOD[8:]
    with pytest.raises(PteFormatError, match="expected file identifier 'ET12'") as info:
        read_container(data, len(data))
    assert says in str(info.value) and info.value.offset == 4


def test_a_real_ptd_file_is_named():
    ptd = (Path(__file__).parent / "fixtures" / "zoo" / "external_weights.ptd").read_bytes()
    with pytest.raises(PteFormatError, match=r"data file \(\.ptd") as info:
        read_container(ptd, len(ptd))
    assert info.value.offset == 4
    assert type(explorer.load(ptd)).__name__ == "DataFile"  # what explorer.load makes of it


def test_a_real_ptd_file_opens_as_a_data_file():
    """FT01 and BP08 are the companions load() opens itself (docs/companions.md), not "not a program"."""
    ptd = Path(__file__).parent / "fixtures" / "zoo" / "external_weights.ptd"
    data = explorer.load(ptd)
    assert data.identifier == "FT01" and data.entries


def test_a_broken_bundle_names_the_bundle_schema():
    err = _fails(GOOD[:4] + b"BP08" + GOOD[8:], "bundled_program")
    assert err.offset is not None


def test_root_offset_outside_buffer():
    err = _fails(_patch(GOOD, 0, "<I", len(GOOD) + 100), "root table offset")
    assert err.offset == 0


@pytest.mark.parametrize("cut", [10, 40, 200, len(GOOD) // 2, POS["end"] - 1])
def test_truncated(cut):
    _fails(GOOD[:cut])


def test_header_length_too_small():
    _fails(_patch(GOOD, 12, "<I", 8), "extended_header.length", "shorter")


def test_header_runs_past_file():
    _fails(_patch(GOOD, 12, "<I", 1 << 20), "extended_header.length", "past the end")


def test_header_program_size_larger_than_file():
    _fails(_patch(GOOD, 16, "<Q", len(GOOD) * 10), "extended_header.program_size")


def test_header_segment_base_past_file():
    _fails(_patch(GOOD, 24, "<Q", len(GOOD) + 4096), "extended_header.segment_base_offset", "truncated")


def test_header_segment_data_past_file():
    _fails(_patch(GOOD, 32, "<Q", 1 << 40), "extended_header.segment_data_size")


def test_vtable_offset_outside_buffer():
    err = _fails(_patch(GOOD, POS["plan"], "<i", -(1 << 30)), "execution_plan[0]", "vtable")
    assert err.offset == POS["plan"]


def test_vtable_pointing_at_itself_is_rejected():
    # soffset 0 makes the table its own vtable: vtable size = low half of the soffset = 0 < 4
    _fails(_patch(GOOD, POS["evalue"], "<i", 0), "values[0]", "vtable size")


def test_huge_vector_length():
    data = _patch(GOOD, POS["values_vec"], "<I", 0x7FFFFFFF)
    err = _fails(data, "execution_plan[0].values", "declares 2147483647 elements")
    assert err.offset == POS["values_vec"]


def test_evalue_union_tag_out_of_range():
    err = _fails(_patch(GOOD, POS["evalue_tag"], "<B", 99), "execution_plan[0].values[0]", "union tag 99")
    assert err.path == "execution_plan[0].values[0]"


def test_instruction_union_tag_out_of_range():
    _fails(_patch(GOOD, POS["instr_tag"], "<B", 9), "chains[0].instructions[0]", "union tag 9")


def test_offset_field_pointing_past_the_end():
    _fails(_patch(GOOD, POS["sizes_ref"], "<I", 1 << 30), "values[0].val(Tensor)", "past the end")


def test_string_length_past_the_end():
    name = POS["name_ref"] + struct.unpack_from("<I", GOOD, POS["name_ref"])[0]
    _fails(_patch(GOOD, name, "<I", 1 << 20), "execution_plan[0]", "1048576 elements")


def test_error_is_a_value_error_with_location_fields():
    err = _fails(_patch(GOOD, POS["evalue_tag"], "<B", 42))
    assert isinstance(err, ValueError) and err.offset is not None and "union tag" in err.reason


def test_cli_reports_one_line_and_exit_2(tmp_path, capsys):
    from explorer.cli import main
    bad = tmp_path / "bad.pte"
    bad.write_bytes(GOOD[:100])
    assert main(["inspect", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot read" in err[0] and "bad.pte" in err[0]


def test_every_truncation_gives_program_or_format_error():
    """load raises nothing but PteFormatError, whatever prefix of a real file it gets."""
    for cut in range(0, len(GOOD), 7):
        try:
            explorer.load(GOOD[:cut])
        except PteFormatError:
            pass


def _zip(names: list[str]) -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n in names:
            z.writestr(n, b"x")
    return buf.getvalue()


# entry names as torch 2.13 / executorch 1.5.1 write them (torch.save, torch.jit.save, torch.export.save,
# devtools/etrecord/_etrecord.py ETRecord.save: ETRECORD_V0 first)
@pytest.mark.parametrize("names, says", [
    (["ETRECORD_V0", "edge_dialect_exported_program"], "an ETRecord (executorch's export record"),
    (["m/data/weights/model_weights_config.json", "m/models/model.json", "m/archive_format"], "torch.export archive"),
    (["m/data.pkl", "m/code/__torch__.py", "m/constants.pkl", "m/version"], "a TorchScript model (torch.jit.save)"),
    (["m/data.pkl", "m/.format_version", "m/byteorder", "m/data/0"], "PyTorch checkpoint (torch.save)"),
    (["readme.txt"], "a zip archive (a TorchScript model"),
])
def test_a_zip_says_which_it_is(names, says):
    with pytest.raises(PteFormatError, match="not an ExecuTorch program|not a program") as info:
        explorer.load(_zip(names))
    assert says in str(info.value)


def test_a_text_file_and_an_etdump_given_as_a_program():
    with pytest.raises(PteFormatError, match="a text file, not an ExecuTorch program"):
        explorer.load(b"hello, this is not a program at all\n")
    with pytest.raises(PteFormatError, match="pass it with --profile"):
        explorer.load(Path(__file__).parent / "fixtures" / "etdump" / "mlp.etdp")
