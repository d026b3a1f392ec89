"""Imported only by the warm process of a test task that preloads it (tests/test_engine.py)."""
