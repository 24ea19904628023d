"""Numba's disk cache of the package's kernels, kept in step with every file the kernels use.

Numba validates a cached function by its own file only (the file's modification time and
size). A function that calls a jitted function of another file links that file's code into its
own compiled code, so after an edit of ``fused.py`` alone, ``direct.py``'s cached entries kept
serving the old kernel: the next process loaded them, and nothing said so. It happened in this
package twice (``docs/src/speed.md``, "The first fit on a machine and every later one"): a
timing of a new kernel measured the old one, and the nutpie callbacks compiled next were cached
under the new kernel's key with the old kernel inside (63 µs per evaluation instead of 49).

:func:`keep_in_step` registers a folder: every function numba caches from a file in it is then
checked against that file *and* a digest of the folder's numba sources (the ``.py`` files that
use numba), so an edit of any of them recompiles all of them once. A release installed by pip
changes nothing (the files never change); an editable install recompiles after ``git pull``
where it used to load stale code. PyTensor does the same for its own generated sources
(``pytensor.link.numba.cache``: a locator of its own put first in numba's list).

The locator changes only the freshness check; where the cache lives is the locator numba would
have used otherwise (``NUMBA_CACHE_DIR``, beside the file, or the user-wide cache).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Any

__all__ = ["folder_of", "keep_in_step", "sources_digest"]

#: The folders registered by :func:`keep_in_step` (absolute, normalised).
_FOLDERS: set[str] = set()


@functools.cache
def sources_digest(folder: str) -> str:
    """A digest of the ``.py`` files of ``folder`` that use numba (their bytes, by name).

    Computed once per process and folder.

    Examples
    --------
    >>> from pathlib import Path
    >>> import bayes_pairwise.pymc_models.fused as fused
    >>> len(sources_digest(str(Path(fused.__file__).resolve().parent)))
    16
    """
    h = hashlib.sha256()
    for path in sorted(Path(folder).glob("*.py")):
        text = path.read_bytes()
        if b"numba" in text:
            h.update(path.name.encode() + b"\0" + text + b"\0")
    return h.hexdigest()[:16]


def folder_of(py_file: str) -> str:
    """The folder of a source file, as :func:`keep_in_step` registers it (absolute, links
    resolved)."""
    return os.path.dirname(os.path.realpath(py_file))


def _locator_class() -> Any:
    from numba.core.caching import CacheImpl, _CacheLocator

    class InStepLocator(_CacheLocator):
        """Numba's own locator for the file, with the folder's digest in the freshness stamp."""

        in_step = True  # never delegated to (a second copy of this module would recurse)

        def __init__(self, inner: Any, folder: str) -> None:
            self._inner = inner
            self._folder = folder

        def ensure_cache_path(self) -> None:
            self._inner.ensure_cache_path()

        def get_cache_path(self) -> str:
            return self._inner.get_cache_path()

        def get_source_stamp(self) -> Any:
            return (self._inner.get_source_stamp(), sources_digest(self._folder))

        def get_disambiguator(self) -> str:
            return self._inner.get_disambiguator()

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            folder = folder_of(py_file)
            if folder not in _FOLDERS:
                return None
            for other in CacheImpl._locator_classes:
                if getattr(other, "in_step", False):
                    continue
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, folder)
            return None

    return InStepLocator, CacheImpl


@functools.cache
def _installed() -> bool:
    try:
        locator, impl = _locator_class()
    except (ImportError, AttributeError):  # pragma: no cover - a numba without these names
        return False  # numba's own check then: correct for an installed release
    impl._locator_classes.insert(0, locator)
    return True


def keep_in_step(module_file: str) -> bool:
    """Check numba's cached functions of ``module_file``'s folder against all its numba sources.

    Call it at the top of a module, before its first ``@numba.njit(cache=True)``; calling it
    again is harmless.

    Parameters
    ----------
    module_file : str
        ``__file__`` of the calling module; its folder is registered.

    Returns
    -------
    bool
        False where this numba offers no locator list to join (numba's own check stays).

    Examples
    --------
    >>> import bayes_pairwise.pymc_models.fused as fused
    >>> keep_in_step(fused.__file__)
    True
    """
    _FOLDERS.add(folder_of(module_file))
    return _installed()
