"""Classical (NumPy) estimators: the reference the Bayesian fits are cross-checked against."""
