"""Performance measurements with their baselines, run side by side (see README.md)."""
