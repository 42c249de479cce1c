"""The numerics reader against executorch's own tools, on the corpus of tests/fixtures/numerics/ (real exports run by
executorch with a debug buffer; scripts/make_numerics_fixtures.py).

* every instruction's logged tensors: the same count, dtype and shape as executorch's ``Inspector`` (``etdump_path``,
  ``etrecord``, ``debug_buffer_path``) gives in ``Event.debug_data``, min/max/mean over the finite values to float
  tolerance and NaN/+Inf/-Inf counts exactly; a delegate call's last ``num_outputs`` (Inspector's, from the ETRecord)
  are our outputs; the program outputs are Inspector's ``run_output``;
* the gaps of every pair equal executorch's comparators (``MSEComparator``, ``L1Comparator``, ``SNRComparator``) on
  Inspector's tensors of both sides.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from explorer.analysis.numerics.compare import _matched
from explorer.analysis.numerics.load import load_numerics
from explorer.analysis.numerics.stats import gap

pytestmark = pytest.mark.interop

FIX = Path(__file__).parent / "fixtures" / "numerics"
STEMS = sorted(p.stem for p in FIX.glob("*.pte"))
ENVELOPES = ("OPERATOR_CALL", "DELEGATE_CALL")


def _files(stem: str):
    return FIX / f"{stem}.pte", FIX / f"{stem}.etdp", FIX / f"{stem}.bin", FIX / f"{stem}.etrecord"


def _inspector(stem: str):
    import executorch  # noqa: F401  (the interop extra: a missing one fails, never skips)
    from executorch.devtools import Inspector

    pte, etdp, bin_, etr = _files(stem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Inspector(etdump_path=str(etdp), etrecord=str(etr), debug_buffer_path=str(bin_))


def _torch_stats(t):
    import torch

    x = t.to(torch.float64) if t.dtype != torch.bool else t.to(torch.float64)
    fin = x[torch.isfinite(x)]
    return ((float(fin.min()), float(fin.max()), float(fin.mean())) if fin.numel() else (None, None, None),
            int(torch.isnan(x).sum()), int(torch.isposinf(x).sum()), int(torch.isneginf(x).sum()))


def _same_stats(ours, t) -> None:
    (lo, hi, mean), nan, pinf, ninf = _torch_stats(t)
    s = ours.stats
    assert s.shape == tuple(t.shape)
    assert (s.nan, s.posinf, s.neginf) == (nan, pinf, ninf)
    for a, b in ((s.min, lo), (s.max, hi), (s.mean, mean)):
        assert (a is None) == (b is None)
        if a is not None:
            assert math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9), (a, b)


def test_corpus_is_there():
    assert len(STEMS) == 14, STEMS  # 5 models x 3 exports, less quantized diverge (scripts/make_numerics_fixtures.py)


@pytest.mark.parametrize("stem", STEMS)
def test_every_logged_tensor_matches_inspector(stem):
    pte, etdp, bin_, etr = _files(stem)
    ins = _inspector(stem)
    ours = load_numerics(str(pte), str(etdp), str(bin_), etrecord=str(etr)).a.numerics.plan("forward")
    block = next(b for b in ins.event_blocks if b.name == "Execute")
    seen = 0
    for ev in block.events:
        if ev.name not in ENVELOPES or not ev.debug_data:
            continue
        mine = ours.at(ev._instruction_id)
        assert mine is not None, (stem, ev.name, ev._instruction_id)
        logged = sorted(mine.inputs + mine.outputs, key=lambda o: o.event)
        tensors = [t for t in ev.debug_data]
        assert len(logged) == len(tensors), (stem, ev._instruction_id)
        for o, t in zip(logged, tensors):
            _same_stats(o, t)
            np.testing.assert_array_equal(np.asarray(o.array, dtype=np.float64).reshape(t.shape),
                                          t.to(__import__("torch").float64).numpy())
        if ev.name == "DELEGATE_CALL":  # the last num_outputs a delegate call logs are its outputs
            outs = tensors[len(tensors) - ev.num_outputs:]
            assert [o.stats.shape for o in mine.outputs] == [tuple(t.shape) for t in outs]
        seen += 1
    assert seen == len(ours.instructions)
    assert len(block.run_output) == len(ours.outputs)
    for o, t in zip(ours.outputs, block.run_output):
        _same_stats(o, t)


PAIRS = [(f"{m}_{a}", f"{m}_{b}") for m in ("mlp", "convbn", "attention", "nonfinite", "diverge")
         for a, b in (("portable", "xnnpack"), ("portable", "qxnnpack"), ("xnnpack", "qxnnpack"))
         if (FIX / f"{m}_{b}.pte").exists()]


@pytest.mark.parametrize("a,b", PAIRS)
def test_gaps_are_executorchs_comparators(a, b):
    import executorch  # noqa: F401  (the interop extra: a missing one fails, never skips)
    from executorch.devtools.inspector.numerical_comparator import L1Comparator, MSEComparator, SNRComparator

    report = load_numerics(*[str(p) for p in _files(a)[:3]], etrecord=str(_files(a)[3]),
                           against=tuple(str(p) for p in _files(b)))
    ca, cb = _inspector(a), _inspector(b)
    data = {}
    for side, insp in (("a", ca), ("b", cb)):
        block = next(x for x in insp.event_blocks if x.name == "Execute")
        data[side] = {ev._instruction_id: ev.debug_data[len(ev.debug_data) - ev.num_outputs:]
                      for ev in block.events if ev.name in ENVELOPES and ev.debug_data}
    cmp = report.comparison.plan("forward")
    assert cmp.pairs
    checked = 0
    for p in cmp.pairs:
        # the outputs the pair compared (compare._matched), as Inspector's tensors: the same bytes (checked above)
        x = report.a.numerics.plan("forward").at(p.a_instruction)
        y = report.b.numerics.plan("forward").at(p.b_instruction)
        worst = max(_matched(x, y), key=lambda m: gap(m[0].array, m[1].array, m[0].stats.shape,
                                                       m[1].stats.shape).relative or 0.0)
        ia, ib = x.outputs.index(worst[0]), y.outputs.index(worst[1])
        ta = data["a"][p.a_instruction][ia]
        tb = data["b"][p.b_instruction][ib].reshape(ta.shape)
        if not p.gap.comparable or p.gap.nonfinite_mismatch or not bool(__import__("torch").isfinite(ta).all()):
            continue
        for ours, comp in ((p.gap.mse, MSEComparator()), (p.gap.l1, L1Comparator()), (p.gap.snr_db, SNRComparator())):
            theirs = comp.element_compare(ta, tb)
            assert (math.isinf(ours) and math.isinf(theirs)) or math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12)
        checked += 1
    assert checked or a.startswith("nonfinite")
