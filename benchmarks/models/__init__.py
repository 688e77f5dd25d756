"""Board models and observation-log makers used only by tests and benchmarks."""
