"""The ``device-explorer/1`` JSON form (``inspect --json``): :mod:`.program` the contract itself,
:mod:`.companions` and :mod:`.etrecord` the keys companions and an ETRecord add (added, never changed)."""

from explorer.jsonform.program import FORMAT, instruction_json, plan_json, program_json, value_json

__all__ = ["FORMAT", "program_json", "plan_json", "value_json", "instruction_json"]
