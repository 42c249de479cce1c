#!/usr/bin/env bash
# The heavy campaigns the suite runs only a sample of (pytest's `campaign` marker; docs/testing.md "Campaigns").
# Run before a release, or after a change to an exporter script or a reader, in the venv scripts/test.sh made:
#
#     bash scripts/campaigns.sh            # the campaign tests: every fixture folder re-exported and compared
#     bash scripts/campaigns.sh --all      # and the long runs: fuzzers, the all-formats fuzzer, the mutants
#
# Each step prints its own summary; the script stops at the first that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${DEX_VENV:-.venv}"
# shellcheck disable=SC1091
[ -d "$VENV" ] && source "$VENV/bin/activate"

python -m pytest -q -m campaign
if [ "${1:-}" = "--all" ]; then
    python scripts/fuzz.py --cases 100000
    python scripts/fuzz_etdump.py
    python scripts/fuzz_numerics.py
    python scripts/fuzz_all.py --cases 1000000 --seed 30
    python scripts/mutants.py
fi
