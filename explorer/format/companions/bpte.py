"""``.bpte`` bundled programs (identifier ``BP08``) -> Bundle + where the embedded program sits.

A bundled program (executorch's ``devtools/bundled_program``) is a flatbuffer holding a whole ``.pte``
as a byte vector plus, per method, test cases: inputs and expected outputs. The embedded program is
then decoded by the ordinary program reader, so every view works on it; here only the test suites are
decoded (their tensors' dtypes and shapes, never their data).
"""

from __future__ import annotations

import re

from explorer.errors import PteFormatError
from explorer.model.companions import Bundle, MethodTestSuite, TestCase, TestValue
from explorer.format.companions import slots as C
from explorer.format.flatbuf import FlatReader, require_prefix, root_offset

__all__ = ["read_bundle", "IDENTIFIER"]

IDENTIFIER = re.compile(rb"BP[0-9a-zA-Z]{2}")


def read_bundle(buf, size: int) -> Bundle:
    """Decode the bundle in ``buf[0:size]``; the program is only located (``program_offset/size``)."""
    require_prefix(size)
    ident = bytes(buf[4:8])
    if not IDENTIFIER.fullmatch(ident):
        raise PteFormatError(f"expected file identifier 'BP08' at bytes 4-8, found {ident!r}: not an "
                             f"ExecuTorch bundled program (.bpte)", offset=4)
    root = root_offset(buf, size)
    r = FlatReader(buf, size)
    try:
        vt = r.table(root)
        version = r.field(root, vt, C.BP_VERSION, "I")
        program = r.ref(root, vt, C.BP_PROGRAM)
        if program is None:
            raise PteFormatError("the bundle has no program", path="program")
        try:
            start, count = r.vector(program, 1)
        except PteFormatError as exc:
            raise exc.within("program") from None
        suites = []
        for i, p in enumerate(r.tables(r.ref(root, vt, C.BP_SUITES))):
            try:
                suites.append(_suite(r, p))
            except PteFormatError as exc:
                raise exc.within(f"method_test_suites[{i}]") from None
    except PteFormatError as exc:
        raise exc.within("bundled_program") from None
    except RecursionError:  # defensive: decoding is iterative
        raise PteFormatError("structure nested too deeply") from None
    return Bundle(version, tuple(suites), start, count, size)


def _suite(r: FlatReader, pos: int) -> MethodTestSuite:
    vt = r.table(pos)
    name = r.string(r.ref(pos, vt, C.BP_SUITE_METHOD)) or ""
    cases = []
    # a test case (or value) listed again is decoded once (FlatReader.once)
    for i, p in enumerate(r.tables(r.ref(pos, vt, C.BP_SUITE_CASES))):
        try:
            cases.append(r.once("test_case", p, lambda q: _case(r, q)))
        except PteFormatError as exc:
            raise exc.within(f"test_cases[{i}]") from None
    return MethodTestSuite(name, tuple(cases))


def _case(r: FlatReader, pos: int) -> TestCase:
    cvt = r.table(pos)
    return TestCase(_values(r, r.ref(pos, cvt, C.BP_CASE_INPUTS), "inputs"),
                    _values(r, r.ref(pos, cvt, C.BP_CASE_EXPECTED), "expected_outputs"))


def _values(r: FlatReader, pos: int | None, name: str) -> tuple[TestValue, ...]:
    out = []
    for i, p in enumerate(r.tables(pos)):
        try:
            out.append(r.once("value", p, lambda q: _value(r, q)))
        except PteFormatError as exc:
            raise exc.within(f"{name}[{i}]") from None
    return tuple(out)


def _value(r: FlatReader, pos: int) -> TestValue:
    vt = r.table(pos)
    tag = r.field(pos, vt, C.BP_VALUE_TYPE, "B")
    kind = "None" if tag == 0 else C.BP_VALUE_KINDS.get(tag, f"unknown({tag})")
    target = r.ref(pos, vt, C.BP_VALUE)
    if target is None or kind not in ("Tensor", "Int", "Bool", "Double"):
        return TestValue(kind)
    tvt = r.table(target)
    if kind != "Tensor":
        code = C.BP_SCALAR_CODES[kind]
        return TestValue(kind, value=r.field(target, tvt, C.BP_SCALAR_SLOT, code, False if code == "?" else 0))
    try:
        scalar_type = r.field(target, tvt, C.BP_TENSOR_SCALAR_TYPE, "b")
        sizes = r.scalars(r.ref(target, tvt, C.BP_TENSOR_SIZES), "i")
        data = r.ref(target, tvt, C.BP_TENSOR_DATA)
        nbytes = 0 if data is None else r.vector(data, 1)[1]
    except PteFormatError as exc:
        raise exc.within("val(Tensor)") from None
    return TestValue(kind, scalar_type, tuple(sizes), nbytes)
