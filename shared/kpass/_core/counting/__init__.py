"""Inputs to counts, the bottom of the core; imports nothing else of kpass.

Scalar argument checks, outcome lists and arrays validated and counted in one pass
(``BinaryCounts``, ``CategoricalCounts``), distinct per-question states, soft scores to
outcomes, canonical answers.
"""
