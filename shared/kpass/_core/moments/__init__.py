"""Posterior moments of the binary credits and the kernels they call (imports ``counting``).

From the bottom up: hypergeometric tables and threshold tails (``hypergeom``, ``tails``),
Beta-binomial and Bernstein kernels (``kernels``), narrow-posterior covariances
(``concentrated``), credit vectors (``credits``), the per-k loop every binary metric runs
(``driver``), each question's Beta prior (``prior``) and Geom@k's blend (``geom_blend``).
"""
