"""Files whose vectors list one table again and again: the densest way a few MB declare millions of items.

A flatbuffer vector of tables holds 4-byte offsets, and nothing stops every offset from pointing at the same table:
a 10 MB ``.ptd`` can declare 2.4 million entries, a program 2.4 million values, a bundle 2.3 million test cases,
each one table. Every count here fits the bytes present (each vector is checked against the buffer), so the
readers must make such a file cost what its bytes hold, not what it declares (tests/test_bounded_readers.py).
Written with the flatc-generated builders of the vendored schemas, as the other writers; test-only.
"""

from __future__ import annotations

import flatbuffers
import numpy as np

__all__ = ["ptd_one_entry", "bpte_one_case", "pte_one_value", "pte_one_operator"]


def _offsets(b: flatbuffers.Builder, target: int, times: int) -> int:
    b.StartVector(4, times, 4)
    for _ in range(times):
        b.PrependUOffsetTRelative(target)
    return b.EndVector()


def ptd_one_entry(times: int) -> bytes:
    """A bare FlatTensor (``FT01``) whose ``named_data`` lists one opaque entry ``times`` times."""
    from explorer._generated.flat_tensor_flatbuffer import DataSegment as DS, FlatTensor as FT, NamedData as ND

    b = flatbuffers.Builder(1024)
    key = b.CreateString("w")
    ND.Start(b)
    ND.AddKey(b, key)
    ND.AddSegmentIndex(b, 0)
    entries = _offsets(b, ND.End(b), times)
    DS.Start(b)
    DS.AddOffset(b, 0)
    DS.AddSize(b, 0)
    segments = _offsets(b, DS.End(b), 1)
    FT.Start(b)
    FT.AddVersion(b, 0)
    FT.AddSegments(b, segments)
    FT.AddNamedData(b, entries)
    b.Finish(FT.End(b), file_identifier=b"FT01")
    return bytes(b.Output())


def bpte_one_case(program: bytes, times: int, inputs: int = 0) -> bytes:
    """A bundled program (``BP08``) embedding ``program`` whose one suite lists one test case ``times`` times;
    the case has ``inputs`` inputs, every one the same Int value."""
    from explorer._generated.bundled_program_flatbuffer import (BundledMethodTestCase as C,
        BundledMethodTestSuite as S, BundledProgram as BP, Int as I, Value as V)

    b = flatbuffers.Builder(1024)
    blob = b.CreateByteVector(program)
    vec = None
    if inputs:
        I.Start(b)
        I.AddIntVal(b, 7)
        number = I.End(b)
        V.Start(b)
        V.AddValType(b, 2)  # ValueUnion.Int
        V.AddVal(b, number)
        vec = _offsets(b, V.End(b), inputs)
    C.Start(b)
    if vec is not None:
        C.AddInputs(b, vec)
    cases = _offsets(b, C.End(b), times)
    name = b.CreateString("forward")
    S.Start(b)
    S.AddMethodName(b, name)
    S.AddTestCases(b, cases)
    suites = _offsets(b, S.End(b), 1)
    BP.Start(b)
    BP.AddVersion(b, 0)
    BP.AddMethodTestSuites(b, suites)
    BP.AddProgram(b, blob)
    b.Finish(BP.End(b), file_identifier=b"BP08")
    return bytes(b.Output())


def _program(b: flatbuffers.Builder, **vectors: int) -> bytes:
    from explorer._generated.executorch_flatbuffer import ExecutionPlan as EP, Program as P

    name = b.CreateString("forward")
    EP.ExecutionPlanStart(b)
    EP.ExecutionPlanAddName(b, name)
    if "values" in vectors:
        EP.ExecutionPlanAddValues(b, vectors["values"])
    if "operators" in vectors:
        EP.ExecutionPlanAddOperators(b, vectors["operators"])
    plans = _offsets(b, EP.ExecutionPlanEnd(b), 1)
    P.ProgramStart(b)
    P.ProgramAddExecutionPlan(b, plans)
    b.Finish(P.ProgramEnd(b), file_identifier=b"ET12")
    return bytes(b.Output())


def pte_one_value(times: int) -> bytes:
    """A program whose one plan lists one tensor value (float32 ``[2]``) ``times`` times."""
    from explorer._generated.executorch_flatbuffer import EValue as EV, Tensor as T

    b = flatbuffers.Builder(1024)
    sizes = b.CreateNumpyVector(np.asarray([2], dtype="<i4"))
    T.TensorStart(b)
    T.TensorAddScalarType(b, 6)
    T.TensorAddSizes(b, sizes)
    tensor = T.TensorEnd(b)
    EV.EValueStart(b)
    EV.EValueAddValType(b, 5)
    EV.EValueAddVal(b, tensor)
    return _program(b, values=_offsets(b, EV.EValueEnd(b), times))


def pte_one_operator(times: int) -> bytes:
    """A program whose one plan lists one operator (``aten::relu``) ``times`` times."""
    from explorer._generated.executorch_flatbuffer import Operator as O

    b = flatbuffers.Builder(1024)
    name = b.CreateString("aten::relu")
    O.OperatorStart(b)
    O.OperatorAddName(b, name)
    return _program(b, operators=_offsets(b, O.OperatorEnd(b), times))
