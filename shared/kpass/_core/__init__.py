"""Private numerical machinery.

Argument checks, counts, input validation, states, kernels, credit vectors, the per-k driver
and the categorical families' helpers.
"""
