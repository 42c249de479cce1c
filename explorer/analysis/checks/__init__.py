"""The placement checks (docs/checks.md): :mod:`.placement` runs them over a plan's facts,
:mod:`.references` is ``bad-reference``, :mod:`.device_faults` the faults that crash real runtimes."""
