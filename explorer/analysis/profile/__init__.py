"""An ETDump joined to its program: :mod:`.join` (time per instruction, device, copy), :mod:`.nodes`
(delegate node events -> subgraph nodes), :mod:`.compare` (two profiles side by side)."""
