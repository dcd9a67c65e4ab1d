"""The pytest entry point of harness-conformance (``pytest -p harness_conformance``).

This module is wiring only. Loading it imports nothing beyond pytest itself: vcrpy,
syrupy and Hypothesis are imported inside the fixtures and hooks that need them.
"""
