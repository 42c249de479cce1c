"""What a run's logged numbers *are*: the values executorch's ETDump debug events point at, and their statistics.

With a debug buffer (``load_program(..., enable_etdump=True, debug_buffer_size=N)``), executorch's runtime logs
every kernel's outputs, every delegate call's arguments (inputs, then outputs) and the program's outputs as
ETDump *debug events*; a tensor's bytes are copied into the debug buffer (written whole as ``.bin``) and the event
keeps only where (``offset``), its dtype, sizes and strides. :class:`LoggedValue` is one such entry as the
flatbuffer says it; :class:`TensorStats` what its bytes hold; :class:`LoggedOutput` one tensor tied to the plan
(which value of the program it is, on which device); :class:`InstructionNumerics` / :class:`PlanNumerics` /
:class:`Numerics` a run joined to a program. The comparison of two runs is :class:`NumericsComparison`.

Nothing here reads bytes: :mod:`explorer.format.companions.etdump` fills :class:`LoggedValue` and
:mod:`explorer.analysis.numerics` the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["LoggedTensor", "LoggedValue", "TensorStats", "LoggedOutput", "InstructionNumerics", "PlanNumerics",
           "Numerics", "Gap", "jnum", "NumericsPair", "FirstDivergence", "PlanComparison", "NumericsComparison",
           "VALUE_KINDS"]

# etdump ValueType (schema/etdump_schema_flatcc.fbs) -> our name
VALUE_KINDS = ("null", "int", "bool", "float", "double", "tensor", "tensor_list", "string")


def jnum(x: float | None) -> float | str | None:
    """A number as JSON can hold it: an infinity (an SNR of identical tensors) is the string ``"inf"``/``"-inf"``,
    NaN is null."""
    if x is None or x != x:
        return None
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return x


@dataclass(frozen=True)
class LoggedTensor:
    """An ETDump ``Tensor`` entry: where its bytes sit in the debug buffer (``offset`` -1: no bytes, an empty tensor)."""

    scalar_type: int  # ScalarType byte
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int


@dataclass(frozen=True)
class LoggedValue:
    """A debug event's ``debug_entry``: a tensor, a list of tensors or a scalar; ``output`` marks a program output."""

    kind: str  # one of VALUE_KINDS, or "unknown(N)"
    tensors: tuple[LoggedTensor, ...] = ()  # one for "tensor", the items of a "tensor_list"
    scalar: int | float | bool | None = None
    output: bool = False


@dataclass(frozen=True)
class TensorStats:
    """What a logged tensor holds. ``min``/``max``/``mean`` are over the finite values (None when there are none);
    integer and bool tensors are all finite. ``first``: the first values in memory order (as floats)."""

    dtype: str
    shape: tuple[int, ...]
    numel: int
    min: float | None
    max: float | None
    mean: float | None
    nan: int
    posinf: int
    neginf: int
    first: tuple[float, ...] = ()
    first_nonfinite: tuple[int, ...] | None = None  # index of the first NaN/Inf in memory order
    readable: bool = True  # False for a dtype whose bytes we can't turn into numbers (quint4x2, ...)

    @property
    def nonfinite(self) -> int:
        return self.nan + self.posinf + self.neginf

    def to_json(self) -> dict:
        return {"dtype": self.dtype, "shape": list(self.shape), "min": self.min, "max": self.max, "mean": self.mean,
                "nan": self.nan, "posinf": self.posinf, "neginf": self.neginf}


@dataclass(frozen=True)
class LoggedOutput:
    """One tensor an instruction produced in the run: its statistics and which value of the plan it is."""

    stats: TensorStats
    value: int | None  # the plan's value index (None: the entries did not line up with the instruction's args)
    device: str  # where the plan puts that value ("cpu", "cuda:0"; a delegate's outputs: its target's)
    event: int  # index of the debug event in its run block (for messages)
    array: Any = field(default=None, repr=False, compare=False)  # the elements (numpy, a view of the buffer)


@dataclass(frozen=True)
class InstructionNumerics:
    """An instruction's logged tensors in one run. A kernel logs its outputs; a delegate call logs every argument,
    of which the trailing ``len(outputs)`` are its outputs (the rest are ``inputs``)."""

    instruction: int
    outputs: tuple[LoggedOutput, ...]
    inputs: tuple[LoggedOutput, ...] = ()
    name: str | None = None  # "aten::addmm.out", "XnnpackBackend"


@dataclass(frozen=True)
class PlanNumerics:
    """One plan's run: per instruction (in run order) what it logged, and the program outputs."""

    plan: str
    run: int  # index of the run block used (the first run of this plan, as executorch's Inspector does)
    runs: int  # how many run blocks of the dump are this plan's
    instructions: tuple[InstructionNumerics, ...]
    outputs: tuple[LoggedOutput, ...] = ()  # the program's outputs (debug events marked ``output``)

    def at(self, index: int) -> InstructionNumerics | None:
        for ins in self.instructions:
            if ins.instruction == index:
                return ins
        return None

    def to_json(self) -> dict:
        return {"run": self.run, "runs": self.runs,
                "instructions": [{"instruction": i.instruction,
                                  "outputs": [o.stats.to_json() | {"device": o.device, "value": o.value}
                                              for o in i.outputs]} for i in self.instructions],
                "program_outputs": [o.stats.to_json() | {"device": o.device, "value": o.value} for o in self.outputs]}


@dataclass(frozen=True)
class Numerics:
    """An ETDump's debug events with their debug buffer, joined to a program: per plan that ran."""

    plans: Mapping[str, PlanNumerics]
    findings: tuple = ()  # analysis.types.Finding: NaN/Inf produced, runs that fit no plan
    etdump: str | None = None
    debug_buffer: str | None = None
    buffer_size: int = 0

    def plan(self, name: str) -> PlanNumerics | None:
        return self.plans.get(name)


@dataclass(frozen=True)
class Gap:
    """How far B's tensor is from A's (float64, as executorch's comparators compute): max |a-b|, MSE, L1 (sum |a-b|),
    cosine similarity, SNR in dB (10·log10(mean a² / mean (a-b)²); inf when equal), and the elements finite on one
    side only or non-finite differently (NaN vs Inf)."""

    max_abs: float | None
    mse: float | None
    l1: float | None
    cosine: float | None
    snr_db: float | None
    nonfinite_mismatch: int
    scale: float  # max |a| over A's finite values (what ``relative`` divides by, at least 1)
    comparable: bool = True
    why: str | None = None  # why not comparable (shapes differ, a side has no numbers)

    @property
    def relative(self) -> float | None:
        """max |a-b| / max(1, max |a|): the number the tolerance is compared with."""
        return None if self.max_abs is None else self.max_abs / max(1.0, self.scale)

    def exceeds(self, tol: float) -> bool:
        if not self.comparable:
            return False
        return self.nonfinite_mismatch > 0 or (self.relative is not None and self.relative > tol)

    def to_json(self) -> dict:
        return {"max_abs": jnum(self.max_abs), "mse": jnum(self.mse), "l1": jnum(self.l1), "cosine": jnum(self.cosine),
                "snr_db": jnum(self.snr_db), "nonfinite_mismatch": self.nonfinite_mismatch,
                "relative": jnum(self.relative),
                **({"why": self.why} if self.why else {})}


@dataclass(frozen=True)
class NumericsPair:
    """An instruction of A and its counterpart in B, and the gap between their outputs."""

    a_instruction: int
    b_instruction: int
    by: str  # "debug_handle" | "source" | "op_order"
    gap: Gap
    a_device: str = "cpu"
    b_device: str = "cpu"
    folded: tuple[int, ...] = ()  # A's instructions a delegate of B holds (paired through its output)

    def to_json(self) -> dict:
        return {"a_instruction": self.a_instruction, "b_instruction": self.b_instruction, "by": self.by,
                "a_device": self.a_device, "b_device": self.b_device, "folded": list(self.folded),
                **self.gap.to_json()}


@dataclass(frozen=True)
class FirstDivergence:
    tol: float
    a_instruction: int | None
    b_instruction: int | None
    gap: Gap | None = None

    def to_json(self) -> dict:
        return {"tol": self.tol, "a_instruction": self.a_instruction, "b_instruction": self.b_instruction,
                "relative": None if self.gap is None else jnum(self.gap.relative)}


@dataclass(frozen=True)
class PlanComparison:
    plan: str
    pairs: tuple[NumericsPair, ...]
    output_gap: Gap | None
    first_divergence: FirstDivergence
    pairing: str  # how the pairs were made: "debug_handle", "source" or "op_order"
    notes: tuple[str, ...] = ()  # e.g. why handles were not used

    def to_json(self) -> dict:
        return {"output_gap": None if self.output_gap is None else self.output_gap.to_json(),
                "first_divergence": self.first_divergence.to_json(), "pairing": self.pairing,
                "notes": list(self.notes), "pairs": [p.to_json() for p in self.pairs]}


@dataclass(frozen=True)
class NumericsComparison:
    """Two runs compared plan by plan (plans of the same name)."""

    plans: Mapping[str, PlanComparison] = field(default_factory=dict)
    tol: float = 1e-4

    def plan(self, name: str) -> PlanComparison | None:
        return self.plans.get(name)
