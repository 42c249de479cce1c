"""Hostile ETDumps: whatever the bytes, ``load_etdump`` gives a dump or a PteFormatError, and the join a
Profile or a ProfileMismatch — fast, and in agreement with flatc's generated accessors when those can read
the bytes at all.

A bounded, derandomized sample of the campaign's mutators (``scripts/fuzz_etdump.py``, 200k cases) runs
here on every test run; inputs a campaign ever saved under ``tests/fixtures/crashes/etdump/`` are replayed.
"""

from __future__ import annotations

import importlib.util
import random
import struct
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from explorer import PteFormatError
from explorer.format.companions.etdump import load_etdump

ROOT = Path(__file__).resolve().parent.parent
SAVED = Path(__file__).parent / "fixtures" / "crashes" / "etdump"


def _campaign():
    spec = importlib.util.spec_from_file_location("fuzz_etdump_campaign", ROOT / "scripts" / "fuzz_etdump.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fuzz = _campaign()
SEEDS = [(p.name, p.read_bytes()) for p in fuzz.seed_files()]
FAST = settings(derandomize=True, deadline=None, max_examples=60, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check(seed: str, data: bytes) -> None:
    out = fuzz.run_case(seed, data, slow=1.0)
    assert not out.failure, f"{out.kind}\n{out.detail}"


def test_seeds_load_and_agree_with_generated_code():
    assert len(SEEDS) >= 6
    for name, data in SEEDS:
        assert fuzz.run_case(name, data).kind == "loaded"
        assert fuzz.generated_view(data) is not None


@pytest.mark.parametrize("op", ["bitflip", "scalar", "offset", "soffset", "vtable", "vector_length", "truncate",
                                "splice", "size_prefix", "alias_events", "chunk"])
def test_each_mutator(op):
    rng = random.Random(op)
    mut = fuzz.Mutator(SEEDS, rng)
    fn = getattr(mut, op)
    for k in range(40):
        name, data, marks = mut.corpus[k % len(mut.corpus)]
        mutated, _ = fn(bytearray(data), marks)
        check(name, bytes(mutated))


@FAST
@given(st.integers(0, 2 ** 32 - 1))
def test_stacked_mutations(seed):
    mut = fuzz.Mutator(SEEDS, random.Random(seed))
    name, _, data = mut.mutate()
    check(name, data)


@FAST
@given(st.binary(max_size=256))
def test_random_bytes_with_a_valid_header(tail):
    data = struct.pack("<II", len(tail) + 8, 8) + b"ED00" + tail
    check("mlp.etdp", data)


def test_aliased_events_cannot_blow_up():
    """Many runs whose events vectors all point at one long vector: decoding stays bounded by the file."""
    from explorer._generated.etdump.ETDump import ETDump as G
    from writers.etdump import SynthRun, write_etdump
    from explorer.model.profile import ProfileEvent

    long_run = SynthRun("Execute", tuple(ProfileEvent("OPERATOR_CALL", 0, k % 5, start_time=k, end_time=k + 1)
                                         for k in range(2000)))
    data = bytearray(write_etdump([long_run] + [SynthRun("Execute")] * 3000))
    root = G.GetRootAs(bytes(data), 4)
    target = root.RunData(0)._tab.Vector(root.RunData(0)._tab.Offset(10)) - 4  # run 0's events vector
    for k in range(1, root.RunDataLength()):
        tab = root.RunData(k)._tab
        field = tab.Pos + tab.Offset(10)
        struct.pack_into("<I", data, field, target - field)
    tracemalloc.start()
    start = time.process_time()
    with pytest.raises(PteFormatError, match="alias"):
        load_etdump(bytes(data))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert time.process_time() - start < 1.0 and peak < 64 * len(data) + (4 << 20)


def test_saved_inputs_replay():
    """Inputs a campaign saved (none so far: the last 200k-case campaign found no failure)."""
    for path in sorted(SAVED.glob("*.etdp")) if SAVED.exists() else []:
        check("mlp.etdp", path.read_bytes())
