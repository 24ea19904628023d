"""Bayesian judge-error models in PyMC."""
