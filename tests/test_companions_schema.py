"""The companion readers' field slots and names (explorer/format/companions/slots.py) are what the
vendored schemas say: slots computed from the .fbs text (declaration order, a union taking two slots)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.format.companions import slots as C

SCHEMA = Path(__file__).resolve().parents[1] / "schema"


def _parse(name: str):
    text = re.sub(r"//[^\n]*", "", (SCHEMA / name).read_text())
    text = re.sub(r"\([^)]*\)", "", text)  # attributes such as (deprecated, force_align: 16)
    unions = {m.group(1): [x.strip() for x in m.group(2).split(",") if x.strip()]
              for m in re.finditer(r"union\s+(\w+)\s*\{([^}]*)\}", text)}
    enums = {m.group(1): {int(v): k for k, v in re.findall(r"(\w+)\s*=\s*(\d+)", m.group(2))}
             for m in re.finditer(r"enum\s+(\w+)\s*:\s*\w+\s*\{([^}]*)\}", text)}
    tables = {}
    for m in re.finditer(r"table\s+(\w+)\s*\{([^}]*)\}", text):
        slots, slot = {}, 0
        for fm in re.finditer(r"(\w+)\s*:\s*\[?([\w.]+)\]?", m.group(2)):
            fname, typ = fm.groups()
            if typ in unions:
                slots[fname + "_type"] = slot
                slot += 1
            slots[fname] = slot
            slot += 1
        tables[m.group(1)] = slots
    return tables, unions, enums


FT, _, _ = _parse("flat_tensor.fbs")
BP, BP_UNIONS, _ = _parse("bundled_program_schema.fbs")
XN, XN_UNIONS, XN_ENUMS = _parse("xnnpack_schema.fbs")

EXPECTED = {
    "FT_VERSION": (FT, "FlatTensor", "version"), "FT_SEGMENTS": (FT, "FlatTensor", "segments"),
    "FT_NAMED_DATA": (FT, "FlatTensor", "named_data"), "FT_SEGMENT_OFFSET": (FT, "DataSegment", "offset"),
    "FT_SEGMENT_SIZE": (FT, "DataSegment", "size"), "FT_NAMED_KEY": (FT, "NamedData", "key"),
    "FT_NAMED_SEGMENT_INDEX": (FT, "NamedData", "segment_index"),
    "FT_NAMED_TENSOR_LAYOUT": (FT, "NamedData", "tensor_layout"),
    "FT_LAYOUT_SCALAR_TYPE": (FT, "TensorLayout", "scalar_type"), "FT_LAYOUT_SIZES": (FT, "TensorLayout", "sizes"),
    "FT_LAYOUT_DIM_ORDER": (FT, "TensorLayout", "dim_order"),
    "BP_VERSION": (BP, "BundledProgram", "version"), "BP_SUITES": (BP, "BundledProgram", "method_test_suites"),
    "BP_PROGRAM": (BP, "BundledProgram", "program"), "BP_SUITE_METHOD": (BP, "BundledMethodTestSuite", "method_name"),
    "BP_SUITE_CASES": (BP, "BundledMethodTestSuite", "test_cases"),
    "BP_CASE_INPUTS": (BP, "BundledMethodTestCase", "inputs"),
    "BP_CASE_EXPECTED": (BP, "BundledMethodTestCase", "expected_outputs"),
    "BP_VALUE_TYPE": (BP, "Value", "val_type"), "BP_VALUE": (BP, "Value", "val"),
    "BP_TENSOR_SCALAR_TYPE": (BP, "Tensor", "scalar_type"), "BP_TENSOR_SIZES": (BP, "Tensor", "sizes"),
    "BP_TENSOR_DATA": (BP, "Tensor", "data"), "BP_TENSOR_DIM_ORDER": (BP, "Tensor", "dim_order"),
    "XG_VERSION": (XN, "XNNGraph", "version"), "XG_XNODES": (XN, "XNNGraph", "xnodes"),
    "XG_XVALUES": (XN, "XNNGraph", "xvalues"), "XG_NUM_EXTERNS": (XN, "XNNGraph", "num_externs"),
    "XG_INPUT_IDS": (XN, "XNNGraph", "input_ids"), "XG_OUTPUT_IDS": (XN, "XNNGraph", "output_ids"),
    "XG_CONSTANT_BUFFER": (XN, "XNNGraph", "constant_buffer"),
    "XG_MEM_BUFFER_SIZES": (XN, "XNNGraph", "mem_buffer_sizes"), "XG_CONSTANT_DATA": (XN, "XNNGraph", "constant_data"),
    "XNODE_UNION_TYPE": (XN, "XNode", "xnode_union_type"), "XNODE_UNION": (XN, "XNode", "xnode_union"),
    "XNODE_DEBUG_HANDLE": (XN, "XNode", "debug_handle"), "XNODE_OUTPUT_MIN_MAX": (XN, "XNode", "output_min_max"),
    "XVALUE_UNION_TYPE": (XN, "XValue", "xvalue_union_type"), "XVALUE_UNION": (XN, "XValue", "xvalue_union"),
    "XTV_DATATYPE": (XN, "XNNTensorValue", "datatype"), "XTV_NUM_DIMS": (XN, "XNNTensorValue", "num_dims"),
    "XTV_DIMS": (XN, "XNNTensorValue", "dims"), "XTV_CONSTANT_BUFFER_IDX": (XN, "XNNTensorValue", "constant_buffer_idx"),
    "XTV_EXTERNAL_ID": (XN, "XNNTensorValue", "external_id"), "XTV_FLAGS": (XN, "XNNTensorValue", "flags"),
    "XTV_ID_OUT": (XN, "XNNTensorValue", "id_out"),
    "XQTV_TENSOR_VALUE": (XN, "XNNQuantizedTensorValue", "tensor_value"),
    "XQTV_QUANT_PARAMS_TYPE": (XN, "XNNQuantizedTensorValue", "quant_params_type"),
    "XQTV_QUANT_PARAMS": (XN, "XNNQuantizedTensorValue", "quant_params"),
    "CDO_OFFSET": (XN, "ConstantDataOffset", "offset"), "CDO_SIZE": (XN, "ConstantDataOffset", "size"),
    "CDO_NAMED_KEY": (XN, "ConstantDataOffset", "named_key"), "BUFFER_STORAGE": (XN, "Buffer", "storage"),
}


@pytest.mark.parametrize("constant", sorted(EXPECTED))
def test_slot_matches_schema(constant):
    tables, table, fname = EXPECTED[constant]
    assert getattr(C, constant) == tables[table][fname]


def test_union_members_in_schema_order():
    assert C.BP_VALUE_KINDS == {i + 1: n for i, n in enumerate(BP_UNIONS["ValueUnion"])}
    assert C.XVALUE_KINDS == {i + 1: n for i, n in enumerate(XN_UNIONS["XValueUnion"])}
    assert C.XNN_QUANT_PARAMS == {i + 1: n for i, n in enumerate(XN_UNIONS["XNNQuantParams"])}
    members = [m.replace(" ", "").split(":") for m in XN_UNIONS["XNodeUnion"]]
    assert C.XNODE_TYPES == {i + 1: (m[0], m[-1]) for i, m in enumerate(members)}


def test_node_io_names_every_value_id_field_of_every_node_table():
    for table in {t for _, t in C.XNODE_TYPES.values()}:
        slots = XN[table]
        ins, outs = C.NODE_IO[table]
        ids = {(slot, name) for name, slot in slots.items() if name.endswith("_id")}
        assert set(ins) | set(outs) == ids, table
        assert all(name.startswith("output") for _, name in outs) and not any(n.startswith("output") for _, n in ins)
        assert max(slot for slot, _ in ins + outs) < C.MAX_NODE_SLOT
    assert max(max(s.values()) for s in XN.values()) < C.MAX_NODE_SLOT


def test_datatypes_are_the_schema_enum():
    assert {k: "xnn_datatype_" + v for k, v in C.XNN_DATATYPES.items()} == XN_ENUMS["XNNDatatype"]
