"""Hostile companions: whatever the bytes of a .ptd, a .bpte or an XNNPACK payload, the readers give a
result or a PteFormatError — fast, in bounded memory, without writing anything.

Every 7th byte (every byte in the campaign) of each real .ptd and XNNPACK payload is set to 0x00, 0xFF and
flipped in its low bit (and of the .bpte outside its embedded program, which the program fuzz suite covers), then random
multi-byte mutations and truncations run through hypothesis (derandomized). A decoded payload must also
survive the analysis (delegate insides, findings) and its JSON form. ``scripts/fuzz.py`` runs the same
files in its long campaign (they are among its seeds).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import explorer
from explorer import PteFormatError
from explorer.analysis.companions import companion_findings
from explorer.analysis.delegate_graph import bindings
from explorer.format.backends.blob import delegate_bytes
from explorer.format.backends.xnnpack import decode_xnnpack
from explorer.jsonform.companions import bundle_json, data_file_json, graph_json

from companion_helpers import COMPANIONS

CASE_LIMIT = 1.0  # CPU seconds per case (process_time; typical: a few ms)
FAST = settings(derandomize=True, deadline=None, max_examples=150, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _payloads() -> dict[str, bytes]:
    out = {}
    for name in ("xnnpack_multi.pte", "xnnpack_int8.pte"):
        program = explorer.load(COMPANIONS / name)
        for d in program.plans[0].delegates:
            out[f"{name}#{d.index}"] = delegate_bytes(program, d)
    return out


PAYLOADS = _payloads()
PTD = {p.name: p.read_bytes() for p in sorted(COMPANIONS.glob("*.ptd"))}
BPTE = (COMPANIONS / "bundled.bpte").read_bytes()


def _variants(data: bytes, positions=None):
    for i in range(len(data)) if positions is None else positions:
        for new in {0x00, 0xFF, data[i] ^ 0x01}:
            if new != data[i]:
                yield data[:i] + bytes([new]) + data[i + 1:]


def payload_outcome(data: bytes) -> None:
    start = time.process_time()
    try:
        graph = decode_xnnpack(data)
    except PteFormatError as exc:
        assert str(exc)
        return
    json.dumps(graph_json(graph))
    bindings(graph, tuple(range(len(graph.input_ids) + len(graph.output_ids))))
    ids = {v.id for v in graph.values}
    for n in graph.nodes:  # what the decoder promises: every edge names a defined value
        assert set(n.inputs) | set(n.outputs) <= ids
    assert time.process_time() - start < CASE_LIMIT


def file_outcome(data: bytes) -> None:
    start = time.process_time()
    try:
        loaded = explorer.load(data)
    except PteFormatError as exc:
        assert str(exc)
        return
    if loaded.kind == "data":
        json.dumps(data_file_json(loaded))
        for e in loaded.entries:
            assert e.offset is None or e.offset + e.nbytes <= len(data)
            _ = (e.dtype, e.tensor_nbytes)
    else:
        if loaded.bundle is not None:
            json.dumps(bundle_json(loaded.bundle))
        companion_findings(loaded)
    assert time.process_time() - start < CASE_LIMIT * 2


# The suite edits every 7th byte (a different seventh for each file), the campaign every byte (minutes):
# `python -m pytest -m campaign tests/test_fuzz_companions.py` (docs/testing.md, "Campaigns").
STRIDES = [pytest.param(7, id="every-7th-byte"), pytest.param(1, id="every-byte", marks=pytest.mark.campaign)]


def _positions(name: str, size: int, stride: int) -> range:
    return range(int(hashlib.sha256(name.encode()).hexdigest(), 16) % stride, size, stride)


@pytest.mark.parametrize("stride", STRIDES)
@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_byte_edits_of_an_xnnpack_payload(name, stride):
    data = PAYLOADS[name]
    for variant in _variants(data, _positions(name, len(data), stride)):
        payload_outcome(variant)


@pytest.mark.parametrize("stride", STRIDES)
@pytest.mark.parametrize("name", sorted(PTD))
def test_byte_edits_of_a_ptd(name, stride):
    data = PTD[name]
    for variant in _variants(data, _positions(name, len(data), stride)):
        file_outcome(variant)


@pytest.mark.parametrize("stride", STRIDES)
def test_byte_edits_of_a_bpte_around_its_program(stride):
    b = explorer.load(BPTE).bundle
    inside = range(b.program_offset, b.program_offset + b.program_size)
    # outside the program, the stride's bytes; inside it, 1/16 of them (the program fuzz suite covers programs)
    positions = [i for i in _positions("bpte", len(BPTE), stride) if i not in inside or i % 16 == 0]
    for data in _variants(BPTE, positions):
        file_outcome(data)


@st.composite
def mutated(draw, pool: dict[str, bytes]):
    data = bytearray(pool[draw(st.sampled_from(sorted(pool)))])
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(data) - 1))
        width = draw(st.sampled_from([1, 2, 4, 8]))
        data[i:i + width] = draw(st.binary(min_size=width, max_size=width))
    if draw(st.booleans()):
        del data[draw(st.integers(0, len(data))):]
    return bytes(data)


@FAST
@given(mutated(PAYLOADS))
def test_random_payload_mutations(data):
    payload_outcome(data)


@FAST
@given(mutated({**PTD, "bundled.bpte": BPTE}))
def test_random_ptd_and_bpte_mutations(data):
    file_outcome(data)


def test_a_vector_claiming_billions_of_elements_allocates_nothing():
    """A payload whose xvalues vector says 2^31 elements: rejected before anything is allocated."""
    data = bytearray(PAYLOADS["xnnpack_multi.pte#0"])
    graph = decode_xnnpack(bytes(data))
    start = int.from_bytes(data[10:14], "little")
    # find the xvalues vector length by its known count and overwrite it
    count = len(graph.values).to_bytes(4, "little")
    hits = [i for i in range(start, len(data) - 4) if data[i:i + 4] == count]
    assert hits
    tracemalloc.start()
    try:
        for i in hits:
            bad = data[:i] + (0x7FFFFFFF).to_bytes(4, "little") + data[i + 4:]
            payload_outcome(bytes(bad))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


def test_reading_companions_writes_nothing(tmp_path):
    files = [COMPANIONS / n for n in ("external.pte", "external.ptd", "bundled.bpte", "xnnpack_int8.pte")]
    before = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), os.stat(p).st_mtime_ns) for p in files}
    program = explorer.load(files[0], data=[files[1]])
    explorer.check(program)
    explorer.check(explorer.load(files[2]))
    from explorer.jsonform.program import program_json
    json.dumps(program_json(explorer.load(files[3])))
    assert {p: (hashlib.sha256(p.read_bytes()).hexdigest(), os.stat(p).st_mtime_ns) for p in files} == before
    assert list(tmp_path.iterdir()) == []
