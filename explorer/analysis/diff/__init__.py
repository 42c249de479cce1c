"""Placement diff of two programs: :mod:`.match` pairs their tensors, :mod:`.compare` says what moved."""
