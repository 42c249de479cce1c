"""The fast reader's field slots (explorer/format/pte/slots.py) must be what schema/program.fbs says.

Slots are computed here straight from the .fbs text (declaration order; a union field takes two
slots: its type tag, then its value), and cross-checked against flatc's generated accessors, whose
``self._tab.Offset(4 + 2 * slot)`` calls encode the same numbers.
"""

import inspect
import re
from pathlib import Path

import pytest

from explorer.format.pte import slots as S

ROOT = Path(__file__).resolve().parents[1]


def _parse_fbs():
    # The program schema only: the companion schemas (schema/README.md) reuse table names such as
    # Tensor and Buffer for other things.
    text = "\n".join((ROOT / "schema" / name).read_text() for name in ("program.fbs", "scalar_type.fbs"))
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"\([^)]*\)", "", text)  # field attributes such as (force_align: 16)
    unions = {m.group(1): [x.strip() for x in m.group(2).split(",") if x.strip()]
              for m in re.finditer(r"union\s+(\w+)\s*\{([^}]*)\}", text)}
    tables = {}
    for m in re.finditer(r"table\s+(\w+)\s*\{([^}]*)\}", text):
        slots, slot = {}, 0
        for fm in re.finditer(r"(\w+)\s*:\s*\[?(\w+)\]?", m.group(2)):
            name, typ = fm.groups()
            if typ in unions:
                slots[name + "_type"] = slot
                slot += 1
            slots[name] = slot
            slot += 1
        tables[m.group(1)] = slots
    return tables, unions


TABLES, UNIONS = _parse_fbs()

# constant in format/pte/slots.py -> (table, field)
EXPECTED = {
    "PROGRAM_VERSION": ("Program", "version"), "PROGRAM_EXECUTION_PLAN": ("Program", "execution_plan"),
    "PROGRAM_CONSTANT_BUFFER": ("Program", "constant_buffer"),
    "PROGRAM_BACKEND_DELEGATE_DATA": ("Program", "backend_delegate_data"),
    "PROGRAM_SEGMENTS": ("Program", "segments"), "PROGRAM_CONSTANT_SEGMENT": ("Program", "constant_segment"),
    "PROGRAM_MUTABLE_DATA_SEGMENTS": ("Program", "mutable_data_segments"),
    "PROGRAM_NAMED_DATA": ("Program", "named_data"),
    "PLAN_NAME": ("ExecutionPlan", "name"), "PLAN_CONTAINER_META_TYPE": ("ExecutionPlan", "container_meta_type"),
    "PLAN_VALUES": ("ExecutionPlan", "values"), "PLAN_INPUTS": ("ExecutionPlan", "inputs"),
    "PLAN_OUTPUTS": ("ExecutionPlan", "outputs"), "PLAN_CHAINS": ("ExecutionPlan", "chains"),
    "PLAN_OPERATORS": ("ExecutionPlan", "operators"), "PLAN_DELEGATES": ("ExecutionPlan", "delegates"),
    "PLAN_NON_CONST_BUFFER_SIZES": ("ExecutionPlan", "non_const_buffer_sizes"),
    "PLAN_NON_CONST_BUFFER_DEVICE": ("ExecutionPlan", "non_const_buffer_device"),
    "CONTAINER_ENCODED_INP_STR": ("ContainerMetadata", "encoded_inp_str"),
    "CONTAINER_ENCODED_OUT_STR": ("ContainerMetadata", "encoded_out_str"),
    "EVALUE_VAL_TYPE": ("EValue", "val_type"), "EVALUE_VAL": ("EValue", "val"),
    "TENSOR_SCALAR_TYPE": ("Tensor", "scalar_type"), "TENSOR_STORAGE_OFFSET": ("Tensor", "storage_offset"),
    "TENSOR_SIZES": ("Tensor", "sizes"), "TENSOR_DIM_ORDER": ("Tensor", "dim_order"),
    "TENSOR_REQUIRES_GRAD": ("Tensor", "requires_grad"), "TENSOR_DATA_BUFFER_IDX": ("Tensor", "data_buffer_idx"),
    "TENSOR_ALLOCATION_INFO": ("Tensor", "allocation_info"), "TENSOR_LAYOUT": ("Tensor", "layout"),
    "TENSOR_SHAPE_DYNAMISM": ("Tensor", "shape_dynamism"), "TENSOR_EXTRA_TENSOR_INFO": ("Tensor", "extra_tensor_info"),
    "ALLOC_MEMORY_ID": ("AllocationDetails", "memory_id"),
    "ALLOC_MEMORY_OFFSET_LOW": ("AllocationDetails", "memory_offset_low"),
    "ALLOC_MEMORY_OFFSET_HIGH": ("AllocationDetails", "memory_offset_high"),
    "EXTRA_MUTABLE_DATA_SEGMENTS_IDX": ("ExtraTensorInfo", "mutable_data_segments_idx"),
    "EXTRA_FULLY_QUALIFIED_NAME": ("ExtraTensorInfo", "fully_qualified_name"),
    "EXTRA_LOCATION": ("ExtraTensorInfo", "location"), "EXTRA_DEVICE_TYPE": ("ExtraTensorInfo", "device_type"),
    "EXTRA_DEVICE_INDEX": ("ExtraTensorInfo", "device_index"),
    "OPERATOR_NAME": ("Operator", "name"), "OPERATOR_OVERLOAD": ("Operator", "overload"),
    "INSTRUCTION_ARGS_TYPE": ("Instruction", "instr_args_type"), "INSTRUCTION_ARGS": ("Instruction", "instr_args"),
    "CALL_INDEX": ("KernelCall", "op_index"), "CALL_ARGS": ("KernelCall", "args"),
    "MOVE_FROM": ("MoveCall", "move_from"), "MOVE_TO": ("MoveCall", "move_to"),
    "JUMP_COND": ("JumpFalseCall", "cond_value_index"), "JUMP_DESTINATION": ("JumpFalseCall", "destination_instruction"),
    "FREE_VALUE_INDEX": ("FreeCall", "value_index"),
    "FRAME_FILENAME": ("Frame", "filename"), "FRAME_LINENO": ("Frame", "lineno"), "FRAME_NAME": ("Frame", "name"),
    "FRAME_CONTEXT": ("Frame", "context"), "FRAMELIST_ITEMS": ("FrameList", "items"),
    "CHAIN_INPUTS": ("Chain", "inputs"), "CHAIN_OUTPUTS": ("Chain", "outputs"),
    "CHAIN_INSTRUCTIONS": ("Chain", "instructions"), "CHAIN_STACKTRACE": ("Chain", "stacktrace"),
    "DELEGATE_ID": ("BackendDelegate", "id"), "DELEGATE_PROCESSED": ("BackendDelegate", "processed"),
    "DELEGATE_COMPILE_SPECS": ("BackendDelegate", "compile_specs"),
    "DATAREF_LOCATION": ("BackendDelegateDataReference", "location"),
    "DATAREF_INDEX": ("BackendDelegateDataReference", "index"),
    "COMPILE_SPEC_KEY": ("CompileSpec", "key"), "COMPILE_SPEC_VALUE": ("CompileSpec", "value"),
    "BUFDEV_BUFFER_IDX": ("NonConstBufferDevice", "buffer_idx"),
    "BUFDEV_DEVICE_TYPE": ("NonConstBufferDevice", "device_type"),
    "BUFDEV_DEVICE_INDEX": ("NonConstBufferDevice", "device_index"),
    "BLOB_DATA": ("Buffer", "storage"),
    "SEGMENT_OFFSET": ("DataSegment", "offset"), "SEGMENT_SIZE": ("DataSegment", "size"),
    "SUBSEGMENT_SEGMENT_INDEX": ("SubsegmentOffsets", "segment_index"),
    "SUBSEGMENT_OFFSETS": ("SubsegmentOffsets", "offsets"),
    "NAMED_DATA_KEY": ("NamedData", "key"), "NAMED_DATA_SEGMENT_INDEX": ("NamedData", "segment_index"),
}


def test_every_slot_constant_is_covered():
    constants = {n for n, v in vars(S).items() if n.isupper() and isinstance(v, int)
                 and n not in ("TENSOR_DATA_LOCATION_EXTERNAL", "SCALAR_VALUE_SLOT")}
    assert constants == set(EXPECTED)


@pytest.mark.parametrize("const", sorted(EXPECTED))
def test_slot_matches_fbs(const):
    table, fld = EXPECTED[const]
    assert getattr(S, const) == TABLES[table][fld], f"{const} != slot of {table}.{fld}"


@pytest.mark.parametrize("const", sorted(EXPECTED))
def test_slot_matches_generated_accessor(const):
    table, fld = EXPECTED[const]
    module = __import__(f"explorer._generated.executorch_flatbuffer.{table}", fromlist=[table])
    accessor = "".join(part.capitalize() for part in fld.split("_"))
    if fld.endswith("_type") and fld[:-5] in TABLES[table]:
        accessor = "".join(part.capitalize() for part in fld[:-5].split("_")) + "Type"
    source = inspect.getsource(getattr(getattr(module, table), accessor))
    offset = int(re.search(r"Offset\((\d+)\)", source).group(1))
    assert offset == 4 + 2 * getattr(S, const)


def test_union_tags_match_fbs():
    assert [S.KERNEL_TYPES[i] for i in range(1, 12)] == UNIONS["KernelTypes"]
    assert [S.INSTRUCTION_KINDS[i] for i in range(1, 6)] == UNIONS["InstructionArguments"]


def test_scalar_tables_have_one_field_at_slot_zero():
    for table in ("Int", "Bool", "Double", "String", "IntList", "DoubleList", "BoolList", "TensorList",
                  "OptionalTensorList", "Buffer", "BackendDelegateInlineData"):
        assert list(TABLES[table].values()) == [S.SCALAR_VALUE_SLOT]


def test_dtype_table_matches_scalar_type_enum():
    from explorer.model.program import DTYPES
    text = (ROOT / "schema" / "scalar_type.fbs").read_text()
    body = re.sub(r"//[^\n]*", "", re.search(r"enum ScalarType[^{]*\{([^}]*)\}", text).group(1))
    codes = {int(v) for v in re.findall(r"=\s*(\d+)", body)}
    assert codes == set(DTYPES)
