"""Field slots of schema/program.fbs, as the hand-written decoder and the writer use them.

A flatbuffer field's slot is its position in the table's declaration (a union takes two: its type
tag, then its value). These numbers are *derived from the schema*: ``tests/test_schema_slots.py``
parses ``schema/program.fbs`` and checks every constant here against it and against the generated
bindings, so a schema change cannot silently desynchronise the fast reader.
"""

from __future__ import annotations

# table Program
PROGRAM_VERSION, PROGRAM_EXECUTION_PLAN, PROGRAM_CONSTANT_BUFFER, PROGRAM_BACKEND_DELEGATE_DATA = 0, 1, 2, 3
PROGRAM_SEGMENTS, PROGRAM_CONSTANT_SEGMENT, PROGRAM_MUTABLE_DATA_SEGMENTS, PROGRAM_NAMED_DATA = 4, 5, 6, 7

# table ExecutionPlan
PLAN_NAME, PLAN_CONTAINER_META_TYPE, PLAN_VALUES, PLAN_INPUTS, PLAN_OUTPUTS = 0, 1, 2, 3, 4
PLAN_CHAINS, PLAN_OPERATORS, PLAN_DELEGATES = 5, 6, 7
PLAN_NON_CONST_BUFFER_SIZES, PLAN_NON_CONST_BUFFER_DEVICE = 8, 9

# table ContainerMetadata
CONTAINER_ENCODED_INP_STR, CONTAINER_ENCODED_OUT_STR = 0, 1

# table EValue { val: KernelTypes } -> type tag slot 0, value slot 1
EVALUE_VAL_TYPE, EVALUE_VAL = 0, 1

# union KernelTypes tags
KERNEL_TYPES = {0: "None", 1: "Null", 2: "Int", 3: "Bool", 4: "Double", 5: "Tensor", 6: "String",
                7: "IntList", 8: "DoubleList", 9: "BoolList", 10: "TensorList", 11: "OptionalTensorList"}

# table Tensor
TENSOR_SCALAR_TYPE, TENSOR_STORAGE_OFFSET, TENSOR_SIZES, TENSOR_DIM_ORDER, TENSOR_REQUIRES_GRAD = 0, 1, 2, 3, 4
TENSOR_DATA_BUFFER_IDX, TENSOR_ALLOCATION_INFO, TENSOR_LAYOUT, TENSOR_SHAPE_DYNAMISM = 5, 6, 7, 8
TENSOR_EXTRA_TENSOR_INFO = 9

# table AllocationDetails
ALLOC_MEMORY_ID, ALLOC_MEMORY_OFFSET_LOW, ALLOC_MEMORY_OFFSET_HIGH = 0, 1, 2

# table ExtraTensorInfo
EXTRA_MUTABLE_DATA_SEGMENTS_IDX, EXTRA_FULLY_QUALIFIED_NAME, EXTRA_LOCATION = 0, 1, 2
EXTRA_DEVICE_TYPE, EXTRA_DEVICE_INDEX = 3, 4

# enum TensorShapeDynamism / TensorDataLocation / DataLocation
SHAPE_DYNAMISM = {0: "static", 1: "dynamic_bound", 2: "dynamic_unbound"}
TENSOR_DATA_LOCATION_EXTERNAL = 1
DATA_LOCATION = {0: "inline", 1: "segment"}

# scalar tables: Int, Bool, Double, String, IntList, DoubleList, BoolList, TensorList, OptionalTensorList
SCALAR_VALUE_SLOT = 0

# table Operator
OPERATOR_NAME, OPERATOR_OVERLOAD = 0, 1

# table Instruction { instr_args: InstructionArguments }
INSTRUCTION_ARGS_TYPE, INSTRUCTION_ARGS = 0, 1
INSTRUCTION_KINDS = {0: "None", 1: "KernelCall", 2: "DelegateCall", 3: "MoveCall", 4: "JumpFalseCall",
                     5: "FreeCall"}
# KernelCall{op_index, args}, DelegateCall{delegate_index, args}, MoveCall{move_from, move_to},
# JumpFalseCall{cond_value_index, destination_instruction}, FreeCall{value_index}
CALL_INDEX, CALL_ARGS = 0, 1
MOVE_FROM, MOVE_TO = 0, 1
JUMP_COND, JUMP_DESTINATION = 0, 1
FREE_VALUE_INDEX = 0

# table Frame, FrameList
FRAME_FILENAME, FRAME_LINENO, FRAME_NAME, FRAME_CONTEXT = 0, 1, 2, 3
FRAMELIST_ITEMS = 0

# table Chain
CHAIN_INPUTS, CHAIN_OUTPUTS, CHAIN_INSTRUCTIONS, CHAIN_STACKTRACE = 0, 1, 2, 3

# table BackendDelegate, BackendDelegateDataReference, CompileSpec
DELEGATE_ID, DELEGATE_PROCESSED, DELEGATE_COMPILE_SPECS = 0, 1, 2
DATAREF_LOCATION, DATAREF_INDEX = 0, 1
COMPILE_SPEC_KEY, COMPILE_SPEC_VALUE = 0, 1

# table NonConstBufferDevice
BUFDEV_BUFFER_IDX, BUFDEV_DEVICE_TYPE, BUFDEV_DEVICE_INDEX = 0, 1, 2

# table Buffer, BackendDelegateInlineData: one [ubyte] field
BLOB_DATA = 0

# table DataSegment, SubsegmentOffsets, NamedData
SEGMENT_OFFSET, SEGMENT_SIZE = 0, 1
SUBSEGMENT_SEGMENT_INDEX, SUBSEGMENT_OFFSETS = 0, 1
NAMED_DATA_KEY, NAMED_DATA_SEGMENT_INDEX = 0, 1
