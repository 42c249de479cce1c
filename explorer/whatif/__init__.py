"""What if this ran on another device? The program executorch 1.5.1 would export for a placement.

:mod:`.predict` is the entry (:func:`what_if`); beneath it, in the order a prediction runs: :mod:`.regions`
(moved host kernels become delegated regions, :mod:`.partition` being torch's partitioner), :mod:`.graph`
(the graph executorch's device pass sees, and the pass), :mod:`.emit` (memory planned with :mod:`.greedy`,
written out as a plan), and :mod:`.review` (what the move costs, in words and time).
"""

from explorer.whatif.predict import MoveError, Refusal, what_if

__all__ = ["what_if", "MoveError", "Refusal"]
