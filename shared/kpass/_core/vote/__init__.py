"""Vote@k's machinery.

The exact plurality kernel (``kernel``), its Dirichlet posterior (``posterior``), exact
second moments (``pairs``) and Poissonised control variates (``poisson``).
"""
