"""The vectorised view-by-shared-storage finder answers as the loop it replaced, tensor for tensor (issue #30).

``lifetimes._static_views`` was a Python loop over every planned tensor (2/3 of a big check); it is now a sort
and a searchsorted. The loop is kept here as the oracle and both run on every plan of the fixtures (real
exports, 16 of them with views) and on random plans where many tensors share few storage keys, written at
random times and read at random times, so ties, inputs, mutable state and unwritten candidates all occur.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path

import numpy as np
import pytest

import explorer
from analysis_helpers import PlanBuilder
from explorer.analysis.facts import Facts
from explorer.analysis.graph import edges
from explorer.analysis.lifetimes import STORAGE, first_uses
from explorer.errors import PteFormatError

lifetimes = importlib.import_module("explorer.analysis.lifetimes")
FIX = Path(__file__).parent / "fixtures"


def _oracle(plan, f, e) -> dict[int, int]:
    """The loop executorch-device-explorer shipped before #30 (a view's base: same storage key, written last at
    or before the view's first read, the earliest value on a tie; inputs and mutable state at time 0)."""
    first_write, first_read = first_uses(f, e)
    m = f.m
    views = np.flatnonzero((f.storage == STORAGE["planned"]) & ~f.input_mask & (first_write == m)
                           & (first_read < m))
    if not views.size:
        return {}
    key = np.stack([f.memory_id, f.offset, f.raw_nbytes, f.scalar_type.astype(np.int64)], axis=1)
    wanted = {tuple(k) for k in key[views].tolist()}
    groups: dict[tuple, list[int]] = {}
    for v, k in zip(np.flatnonzero(f.planned).tolist(), map(tuple, key[np.flatnonzero(f.planned)].tolist())):
        if k in wanted:
            groups.setdefault(k, []).append(v)
    out: dict[int, int] = {}
    for view, k in zip(views.tolist(), map(tuple, key[views].tolist())):
        use, best, best_time = int(first_read[view]), None, -1
        for t in groups[k]:
            if t == view:
                continue
            if f.input_mask[t] or f.storage[t] == STORAGE["mutable"]:
                time = 0
            elif first_write[t] < m:
                time = int(first_write[t])
            else:
                continue
            if best_time < time <= use:
                best, best_time = t, time
        if best is not None:
            out[view] = best
    return out


def _both(plan):
    f = Facts(plan)
    e = edges(plan, f)
    return _oracle(plan, f, e), lifetimes._static_views(plan, f, e)


def test_the_fixtures_views_are_found_alike():
    plans = with_views = 0
    for path in sorted(FIX.rglob("*.pte")):
        try:
            program = explorer.load(path)
        except PteFormatError:
            continue  # the damaged fixtures of other tests
        for plan in program.plans:
            old, new = _both(plan)
            assert new == old, (path.name, plan.name)
            plans += 1
            with_views += bool(old)
    assert plans > 100 and with_views >= 10  # real exports with views: the comparison is not of empty dicts


def _random_plan(seed: int):
    rng = random.Random(seed)
    b = PlanBuilder(arenas=[(4096, "cpu"), (4096, "cpu")])
    keys = [(rng.randint(1, 2), 64 * rng.randint(0, 3), rng.choice([(2, 2), (4,)])) for _ in range(rng.randint(1, 4))]
    made = []
    for _ in range(rng.randint(2, 40)):
        arena, offset, shape = rng.choice(keys)
        storage = rng.choice(["planned", "planned", "planned", "mutable"])
        made.append(b.tensor(shape, arena=arena, offset=offset, storage=storage,
                             data_buffer_idx=1 if storage == "mutable" else 0))
    inputs = rng.sample(made, k=rng.randint(0, min(3, len(made))))
    b.inputs(*inputs)
    for _ in range(rng.randint(1, 30)):
        src, dst = rng.choice(made), rng.choice(made)
        if rng.random() < 0.5:
            b.kernel("aten::relu.out", src, dst)  # reads src, writes dst (the out argument is last)
        else:
            b.kernel("aten::add.out", src, rng.choice(made), dst)
    b.outputs(rng.choice(made))
    return b.build()


@pytest.mark.parametrize("seed", range(40))
def test_random_shared_storage_is_resolved_alike(seed):
    old, new = _both(_random_plan(seed))
    assert new == old


def test_random_plans_do_exercise_views():
    """Not vacuous: across the seeds above, views are found in many plans, some with several views."""
    found = [len(_both(_random_plan(seed))[0]) for seed in range(40)]
    assert sum(1 for n in found if n) >= 10 and max(found) >= 3, found
