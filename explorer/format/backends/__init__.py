"""Delegate payloads: :mod:`.blob` (a processed blob and what can be said of it), :mod:`.xnnpack` (decoded
into its subgraph), :mod:`.headers` (Ethos-U, Arm VGF, Core ML, QNN containers), and the compile specs of
the Arm (:mod:`.arm_specs`) and QNN (:mod:`.qnn_options`) backends."""
