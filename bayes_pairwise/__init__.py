"""bayes_pairwise: how often does a pairwise judge err, and what is the ranking once that is known?"""

from bayes_pairwise._version import __version__

__all__ = ["__version__"]
