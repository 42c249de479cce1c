"""Field slots of the companion schemas (``schema/flat_tensor.fbs``, ``bundled_program_schema.fbs``,
``xnnpack_schema.fbs``), as the hand-written readers of ``.ptd``, ``.bpte`` and XNNPACK payloads use them.

Like :mod:`.schema` for ``program.fbs``: a field's slot is its position in the table's declaration (a
union takes two, its type tag then its value). ``tests/test_companions_schema.py`` parses the ``.fbs``
files and checks every number and name here, so the readers cannot drift from the vendored schemas.
"""

from __future__ import annotations

# -- flat_tensor.fbs (.ptd, identifier FT01) ------------------------------------------------------
FT_VERSION, FT_SEGMENTS, FT_NAMED_DATA = 0, 1, 2  # table FlatTensor
FT_SEGMENT_OFFSET, FT_SEGMENT_SIZE = 0, 1  # table DataSegment
FT_NAMED_KEY, FT_NAMED_SEGMENT_INDEX, FT_NAMED_TENSOR_LAYOUT = 0, 1, 2  # table NamedData
FT_LAYOUT_SCALAR_TYPE, FT_LAYOUT_SIZES, FT_LAYOUT_DIM_ORDER = 0, 1, 2  # table TensorLayout

# -- bundled_program_schema.fbs (.bpte, identifier BP08) -----------------------------------------
BP_VERSION, BP_SUITES, BP_PROGRAM = 0, 1, 2  # table BundledProgram
BP_SUITE_METHOD, BP_SUITE_CASES = 0, 1  # table BundledMethodTestSuite
BP_CASE_INPUTS, BP_CASE_EXPECTED = 0, 1  # table BundledMethodTestCase
BP_VALUE_TYPE, BP_VALUE = 0, 1  # table Value { val: ValueUnion }
BP_VALUE_KINDS = {1: "Tensor", 2: "Int", 3: "Bool", 4: "Double"}  # union ValueUnion
BP_TENSOR_SCALAR_TYPE, BP_TENSOR_SIZES, BP_TENSOR_DATA, BP_TENSOR_DIM_ORDER = 0, 1, 2, 3  # table Tensor
BP_SCALAR_SLOT = 0  # tables Int{int_val:long}, Bool{bool_val:bool}, Double{double_val:double}
BP_SCALAR_CODES = {"Int": "q", "Bool": "?", "Double": "d"}

# -- xnnpack_schema.fbs (inside an XnnpackBackend payload, identifier XN01) -----------------------
XG_VERSION, XG_XNODES, XG_XVALUES, XG_NUM_EXTERNS = 0, 1, 2, 3  # table XNNGraph
XG_INPUT_IDS, XG_OUTPUT_IDS, XG_CONSTANT_BUFFER, XG_MEM_BUFFER_SIZES, XG_CONSTANT_DATA = 4, 5, 6, 7, 8
XNODE_UNION_TYPE, XNODE_UNION, XNODE_DEBUG_HANDLE, XNODE_OUTPUT_MIN_MAX = 0, 1, 2, 3  # table XNode
XVALUE_UNION_TYPE, XVALUE_UNION = 0, 1  # table XValue
XVALUE_KINDS = {1: "XNNTensorValue", 2: "XNNQuantizedTensorValue"}  # union XValueUnion
# table XNNTensorValue
XTV_DATATYPE, XTV_NUM_DIMS, XTV_DIMS, XTV_CONSTANT_BUFFER_IDX, XTV_EXTERNAL_ID, XTV_FLAGS, XTV_ID_OUT = range(7)
XQTV_TENSOR_VALUE, XQTV_QUANT_PARAMS_TYPE, XQTV_QUANT_PARAMS = 0, 1, 2  # table XNNQuantizedTensorValue
XNN_QUANT_PARAMS = {1: "PerChannelQuant", 2: "PerTensorQuant", 3: "PerTokenDynamicQuant",
                    4: "PerChannelGroupQuant"}  # union XNNQuantParams
CDO_OFFSET, CDO_SIZE, CDO_NAMED_KEY = 0, 1, 2  # table ConstantDataOffset
BUFFER_STORAGE = 0  # table Buffer { storage: [ubyte] } (deprecated, still readable)

# enum XNNDatatype : short
XNN_DATATYPES = {
    0: "invalid", 1: "fp32", 2: "fp16", 3: "qint8", 4: "quint8", 5: "qint32", 6: "qcint8", 7: "qcint32",
    8: "qcint4", 9: "qdint8", 10: "qbint4", 11: "qpint8", 12: "int32", 13: "pfp32", 14: "bf16",
}
# XNN_VALUE_FLAG_EXTERNAL_INPUT / _OUTPUT of xnnpack.h, as XNNPACK's serializer writes them in ``flags``
XNN_FLAG_EXTERNAL_INPUT, XNN_FLAG_EXTERNAL_OUTPUT = 0x1, 0x2

# union XNodeUnion: tag -> (member name as the schema spells it, its table)
XNODE_TYPES: dict[int, tuple[str, str]] = {
    1: ("XNNAdd", "_XNNNode2x1"), 2: ("XNNFullyConnected", "XNNFullyConnected"),
    3: ("XNNSoftmax", "_XNNNode1x1"), 4: ("XNNSigmoid", "_XNNNode1x1"),
    5: ("XNNStaticTranspose", "XNNStaticTranspose"), 6: ("XNNClamp", "_XNNNode1x1"),
    7: ("XNNConv2d", "_XNNNodeConv"), 8: ("XNNDiv", "_XNNNode2x1"),
    9: ("XNNStaticResizeBilinear2D", "XNNStaticResizeBilinear2D"),
    10: ("XNNStaticConstantPad", "XNNStaticConstantPad"), 11: ("XNNAvgPooling2d", "_XNNPooling2D"),
    12: ("XNNMinimum", "_XNNNode2x1"), 13: ("XNNDepthwiseConv2d", "_XNNNodeConv"),
    14: ("XNNMaxPooling2d", "_XNNPooling2D"), 15: ("XNNMultiply", "_XNNNode2x1"),
    16: ("XNNSubtract", "_XNNNode2x1"), 17: ("XNNFloor", "_XNNNode1x1"), 18: ("XNNConvert", "_XNNNode1x1"),
    19: ("XNNGlobalAvgPooling2d", "_XNNNode1x1"), 20: ("XNNStaticReshape", "XNNStaticReshape"),
    21: ("XNNArgMaxPooling2d", "XNNArgMaxPooling2d"), 22: ("XNNSquareRoot", "_XNNNode1x1"),
    23: ("XNNCeiling", "_XNNNode1x1"), 24: ("XNNHardswish", "_XNNNode1x1"), 25: ("XNNLeakyReLU", "XNNLeakyReLU"),
    26: ("XNNMaximum", "_XNNNode2x1"), 27: ("XNNNegate", "_XNNNode1x1"), 28: ("XNNSquare", "_XNNNode1x1"),
    29: ("XNNELU", "XNNELU"), 30: ("XNNAbs", "_XNNNode1x1"), 31: ("XNNPReLU", "_XNNNode2x1"),
    32: ("XNNConcatenate2", "_XNNCat"), 33: ("XNNConcatenate3", "_XNNCat"), 34: ("XNNConcatenate4", "_XNNCat"),
    35: ("XNNStaticSlice", "XNNStaticSlice"), 36: ("XNNScaledDotProductAttention", "XNNScaledDotProductAttention"),
    37: ("XNNBatchMatrixMultiply", "_XNNNode2x1"), 38: ("XNNConcatenate5", "_XNNCat"),
    39: ("XNNConvTranspose2d", "_XNNNodeConv"), 40: ("XNNReciprocalSquareRoot", "_XNNNode1x1"),
    41: ("XNNLog", "_XNNNode1x1"), 42: ("XNNGelu", "_XNNNode1x1"), 43: ("XNNTanh", "_XNNNode1x1"),
    44: ("XNNExp", "_XNNNode1x1"), 45: ("XNNSin", "_XNNNode1x1"), 46: ("XNNCopy", "_XNNNode1x1"),
    47: ("XNNCos", "_XNNNode1x1"),
}

# node table -> (input value-id fields, output value-id fields), each as (slot, field name), in
# declaration order. Every ``uint`` field named ``*_id`` of a node table names an XValue.
NODE_IO: dict[str, tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]] = {
    "_XNNNode2x1": (((0, "input1_id"), (1, "input2_id")), ((2, "output_id"),)),
    "_XNNNode1x1": (((0, "input_id"),), ((1, "output_id"),)),
    "XNNFullyConnected": (((0, "input1_id"), (1, "filter_id"), (2, "bias_id")), ((3, "output_id"),)),
    "XNNStaticTranspose": (((2, "input_id"),), ((3, "output_id"),)),
    "XNNStaticResizeBilinear2D": (((2, "input_id"),), ((3, "output_id"),)),
    "XNNStaticConstantPad": (((3, "input_id"),), ((4, "output_id"),)),
    "_XNNCat": (((1, "input1_id"), (2, "input2_id"), (3, "input3_id"), (4, "input4_id"), (7, "input5_id")),
                ((5, "output_id"),)),
    "XNNELU": (((1, "input_id"),), ((2, "output_id"),)),
    "_XNNNodeConv": (((15, "input1_id"), (16, "filter_id"), (17, "bias_id")), ((18, "output_id"),)),
    "_XNNPooling2D": (((10, "input_id"),), ((11, "output_id"),)),
    "XNNStaticReshape": (((2, "input_id"),), ((3, "output_id"),)),
    "XNNStaticSlice": (((3, "input_id"),), ((4, "output_id"),)),
    "XNNScaledDotProductAttention": (((0, "query_id"), (1, "key_id"), (2, "value_id"), (3, "scale_id"),
                                      (4, "mask_id")), ((5, "output_id"),)),
    "XNNArgMaxPooling2d": (((6, "input_id"),), ((7, "output_value_id"), (8, "output_index_id"))),
    "XNNLeakyReLU": (((1, "input_id"),), ((2, "output_id"),)),
}
MAX_NODE_SLOT = 20  # _XNNNodeConv has 20 fields: the XNNPACK reader must read past program.fbs's 16
