"""TailPass, the family in its own folder.

The metric and its profile (``metric``), posterior draws (``draws``) and the threshold
weights (``weights``).
"""
