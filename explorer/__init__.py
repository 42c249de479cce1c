"""executorch-device-explorer: where every tensor and arena of an ExecuTorch program lives."""
