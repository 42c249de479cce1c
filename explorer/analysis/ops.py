"""Operators whose result shares its input's bytes instead of getting bytes of its own.

A kernel's out tensor normally has bytes of its own. A few operators executorch emits make the out
tensor *point at* an input's bytes instead, so both values name one memory range on purpose and
must not be reported as overlapping. Read from executorch 1.5.1's emitter
(``exir/emit/_emitter.py``) and runtime (``kernels/prim_ops``):

* ``executorch_prim::et_view.default`` (args ``[self, size, out]``): ``_emit_view`` emits it for a
  ``memory.view`` whose shape is dynamic (or that is not memory planned); at run time it resizes
  ``out`` and sets its data pointer to ``self``'s. The planner gave ``out`` a ``_ViewSpec`` sharing
  ``mem_id``, ``mem_offset`` and lifetime with ``self``. A *static* planned view is not emitted as
  an instruction at all: it becomes a separate value with the base's allocation and no writer,
  recognised by :func:`.lifetimes.aliases`.

Everything else that looks aliasing in the graph is not, in the file: in-place ops
(``_alias_inplace_result_specs`` in ``exir/memory_planning.py``) give the result the *same* value
as the mutated input; ``executorch_prim::et_copy_index`` (the ``map`` loop) copies into its
accumulator; ``et_copy::_h2d_copy``/``_d2h_copy`` copy between devices; ``aten::alias_copy`` and the
``*_copy`` view variants copy.
"""

from __future__ import annotations

__all__ = ["COPY_OPS", "H2D_OPS", "D2H_OPS", "ALIAS_OPS", "WRITTEN_ARG", "METADATA_OPS", "alias_source", "written_position", "reads_data"]

# Operator names (without overload) of the explicit device copies device-aware planning inserts.
H2D_OPS = frozenset({"et_copy::_h2d_copy"})
D2H_OPS = frozenset({"et_copy::_d2h_copy"})
COPY_OPS = H2D_OPS | D2H_OPS

# operator name (without overload) -> argument position of the tensor whose bytes the result takes
ALIAS_OPS: dict[str, int] = {
    "executorch_prim::et_view": 0,
}


# operator name (without overload) -> argument position it writes, for the prim ops that don't write
# their last argument. ``et_copy_index(copy_to, copy_from, index)`` (the ``map`` loop, emitted by
# ``_emit_map``) copies ``copy_from`` into row ``index`` of ``copy_to``: it writes its *first* argument
# and reads the Int last one.
WRITTEN_ARG: dict[str, int] = {
    "executorch_prim::et_copy_index": 0,
}


def written_position(op_name: str) -> int | None:
    """The argument a kernel writes when it is not the last one (see :data:`WRITTEN_ARG`); else None."""
    return WRITTEN_ARG.get(op_name.split(".", 1)[0])


def alias_source(op_name: str) -> int | None:
    """For an aliasing operator, the argument position whose bytes its result shares; else None."""
    return ALIAS_OPS.get(op_name.split(".", 1)[0])


# Kernels that look only at a tensor's metadata (sizes, strides), never at its bytes: the emitter's
# ``aten::sym_size.int`` & co. for dynamic shapes. Like a view, they may name a tensor on a device.
METADATA_OPS = frozenset({"aten::sym_size", "aten::sym_numel", "aten::sym_stride", "aten::sym_storage_offset"})


def reads_data(op_name: str) -> bool:
    """Whether a host kernel dereferences its tensors' data (not a view taking a pointer, not a
    metadata query): what makes a host kernel on device memory a crash."""
    name = op_name.split(".", 1)[0]
    return name not in ALIAS_OPS and name not in METADATA_OPS
