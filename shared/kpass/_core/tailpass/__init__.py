"""TailPass's machinery.

Argument checks (``checks``), posterior moments (``moments``) and the exact-fraction
fallback for narrow posteriors (``exact``).
"""
