"""Categorical outcomes: rewards (``rewards``) and their Dirichlet posteriors (``posterior``)."""
