"""Writing output files safely: validate first, then write atomically.

Every file the package writes on the user's behalf (``fit --out``, ``report --out``,
``simulate --out``, ``datasets export``, :func:`~bayes_pairwise.pymc_models.save_model`,
:func:`~bayes_pairwise.report.write_report`) goes through this module:

* :func:`check_writable` validates a target path *before* any work is done (the parent folder
  exists and is writable, the path is not a folder, the suffix is one the command writes), so a
  typo in ``--out`` does not cost a NUTS run;
* :func:`atomic_write` (and :func:`write_text` / :func:`write_bytes`) writes to a temporary file
  in the target's folder, flushes and fsyncs it, then :func:`os.replace` s it onto the target.
  A crash, a ``SIGKILL``, a full disk or ``Ctrl-C`` leaves either the old file or the complete
  new one, never a truncated file; on a failure the temporary is removed and an
  :class:`OutputError` names the file;
* :func:`atomic_write_many` writes several files as one unit (``simulate``'s log and its
  ``*.truth.json``): all of them or none, also across a ``SIGKILL`` (see below).

Temporary files are named ``.NAME.tmp-PID-XXXXXXXX.SUFFIX`` after the process that writes them.
One left behind by a process that was killed is removed by the next :func:`check_writable` or
:func:`atomic_write` in its folder (:func:`remove_stale_temporaries`); a unit of several files
killed between its renames is completed from its journal (``….commit``) the same way.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from bayes_pairwise.errors import BayesPairwiseError

__all__ = [
    "OutputError",
    "atomic_write",
    "atomic_write_many",
    "check_writable",
    "markdown_table",
    "remove_stale_temporaries",
    "write_bytes",
    "write_text",
]

T = TypeVar("T")

TEMP_MARK = ".tmp-"
"""Marker in the names of the temporary files (``.NAME.tmp-PID-XXXXXXXX.SUFFIX``)."""

#: a temporary of this module: the PID of its writer after the marker, mkstemp's 8 characters
_TEMP_NAME = re.compile(r"^\..*\.(?:tmp|probe)-(\d+)-[a-z0-9_]{8}(\..*)?$")
#: marker of check_writable's probe (created and removed at once; not a temporary output)
_PROBE_MARK = ".probe-"
_JOURNAL_SUFFIX = ".commit"


class OutputError(BayesPairwiseError, OSError):
    """An output file cannot be written (missing or read-only folder, full disk, bad suffix).

    Examples
    --------
    >>> err = OutputError("cannot write 'x.nc': no space left on device")
    >>> isinstance(err, OSError), str(err)
    (True, "cannot write 'x.nc': no space left on device")
    """

    def __str__(self) -> str:  # OSError's own str() shows "[Errno …]" only with 2+ args
        return str(self.args[0]) if self.args else ""


def _suffix_of(path: Path, suffixes: Iterable[str]) -> str | None:
    """The entry of ``suffixes`` that ``path`` ends with (case-insensitive), longest first."""
    name = path.name.lower()
    for s in sorted(suffixes, key=len, reverse=True):
        if name.endswith(s.lower()) and len(name) > len(s):
            return s
    return None


def check_writable(
    path: str | os.PathLike[str],
    *,
    suffixes: Iterable[str] | None = None,
    what: str = "output file",
) -> Path:
    """Check that ``path`` can be written, before doing any work.

    Parameters
    ----------
    path : str or path-like
        The target file. It may exist (it is then replaced) but must not be a folder.
    suffixes : iterable of str, optional
        The suffixes the caller writes (e.g. ``(".csv", ".parquet")``, compared
        case-insensitively; compound suffixes like ``".csv.gz"`` work). None: any suffix.
    what : str
        How the file is named in error messages (e.g. ``"--out"``).

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    OutputError
        The path is empty or a folder, its parent folder is missing, not a folder or not
        writable, an existing target is not writable, or the suffix is not among ``suffixes``.

    Examples
    --------
    >>> import tempfile, os
    >>> tmp = tempfile.mkdtemp()
    >>> check_writable(os.path.join(tmp, "fit.nc"), suffixes=(".nc",)).name
    'fit.nc'
    >>> check_writable(os.path.join(tmp, "fit.xlsx"), suffixes=(".nc",))
    Traceback (most recent call last):
    ...
    bayes_pairwise.output.OutputError: output file 'fit.xlsx' has an unsupported extension: use .nc
    >>> check_writable(os.path.join(tmp, "missing", "fit.nc"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayes_pairwise.output.OutputError: cannot write output file ...: the folder ... does not exist
    """
    if path is None or str(path).strip() == "":
        raise OutputError(f"{what}: empty path")
    p = Path(path)
    if "\x00" in str(p):
        raise OutputError(f"{what}: the path contains a NUL character")
    if p.is_dir():
        raise OutputError(f"cannot write {what} {str(p)!r}: it is a folder")
    if suffixes is not None:
        allowed = list(suffixes)
        if _suffix_of(p, allowed) is None:
            raise OutputError(
                f"{what} {p.name!r} has an unsupported extension: use {', '.join(allowed)}"
            )
    try:
        if p.is_dir():
            raise OutputError(f"cannot write {what} {str(p)!r}: it is a folder")
        parent = p.parent if str(p.parent) else Path(".")
        if not parent.exists():
            raise OutputError(
                f"cannot write {what} {str(p)!r}: the folder {str(parent)!r} does not exist"
            )
        if not parent.is_dir():
            raise OutputError(f"cannot write {what} {str(p)!r}: {str(parent)!r} is not a folder")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputError(
                f"cannot write {what} {str(p)!r}: the folder {str(parent)!r} is not writable"
            )
        if p.exists() and not os.access(p, os.W_OK):
            raise OutputError(f"cannot write {what} {str(p)!r}: the file is read-only")
        remove_stale_temporaries(parent)
        # the proof: create and remove a file there (permissions alone do not tell, e.g. /proc)
        prefix = f".{p.name[:64]}{_PROBE_MARK}{os.getpid()}-"
        fd, probe = tempfile.mkstemp(dir=parent, prefix=prefix)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:  # e.g. a path component that is a file, a name too long
        if isinstance(exc, OutputError):
            raise
        raise OutputError(f"cannot write {what} {str(p)!r}: {_describe(exc)}") from exc
    return p


def _temp_prefix(target: Path) -> str:
    return f".{target.name[:64]}{TEMP_MARK}{os.getpid()}-"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process, or cannot tell: leave its files alone
    return True


def remove_stale_temporaries(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporaries that killed writers left in ``folder``; return what was removed.

    A temporary (``.NAME.tmp-PID-XXXXXXXX.SUFFIX``) whose process no longer runs is removed.
    A journal of :func:`atomic_write_many` whose process no longer runs is completed first:
    each of its temporaries still there is renamed onto its target, so the unit is whole.
    Files of running processes are left alone; errors are ignored (best effort).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / ".log.csv.tmp-999999999-abcdefgh.csv").write_text("half a log")
    >>> [p.name for p in remove_stale_temporaries(d)], sorted(os.listdir(d))
    (['.log.csv.tmp-999999999-abcdefgh.csv'], [])
    """
    removed: list[Path] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return removed
    stale = []
    for name in names:
        m = _TEMP_NAME.match(name)
        if m and not _alive(int(m.group(1))):
            stale.append(Path(folder) / name)
    for journal in [p for p in stale if p.name.endswith(_JOURNAL_SUFFIX)]:
        with contextlib.suppress(OSError, ValueError, TypeError):
            for tmp, target in json.loads(journal.read_text(encoding="utf-8")):
                tmp_p, target_p = Path(folder) / tmp, Path(folder) / target
                if tmp_p.exists():
                    os.replace(tmp_p, target_p)
            _fsync_dir(Path(folder))
    for p in stale:
        with contextlib.suppress(OSError):
            p.unlink()
            removed.append(p)
    return removed


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (best effort: not every platform can open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _describe(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on device"
    return exc.strerror or str(exc) or type(exc).__name__


def atomic_write(path: str | os.PathLike[str], writer: Callable[[Path], T]) -> T:
    """Write a file atomically: ``writer(tmp)`` writes a temporary, which then replaces ``path``.

    The temporary file lies in the target's folder (so :func:`os.replace` is an atomic rename)
    and ends with the target's suffixes (writers that infer the format from the name keep
    working). After ``writer`` returns, the temporary is fsynced, given the permissions a new
    file would get (or the old file's), and renamed onto ``path``.

    Parameters
    ----------
    path : str or path-like
        The target file; its folder must exist.
    writer : callable
        Called with the temporary :class:`~pathlib.Path`; writes the complete file there.

    Returns
    -------
    object
        What ``writer`` returned.

    Raises
    ------
    OutputError
        Writing or renaming failed with an :class:`OSError` (full disk, missing folder, …); the
        temporary is removed and an existing ``path`` is left untouched.
    BaseException
        Anything else ``writer`` raises (including :class:`KeyboardInterrupt`) is re-raised
        after the temporary is removed; ``path`` is left untouched.

    Examples
    --------
    >>> import tempfile, os
    >>> from pathlib import Path
    >>> target = Path(tempfile.mkdtemp()) / "out.txt"
    >>> _ = atomic_write(target, lambda tmp: tmp.write_text("old"))
    >>> def broken(tmp):
    ...     tmp.write_text("half of the new cont")
    ...     raise RuntimeError("crash while writing")
    >>> atomic_write(target, broken)
    Traceback (most recent call last):
    ...
    RuntimeError: crash while writing
    >>> target.read_text(), sorted(os.listdir(target.parent))
    ('old', ['out.txt'])
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    remove_stale_temporaries(folder)
    tmp = _new_temp(target)
    try:
        result = writer(tmp)
        _finish_temp(tmp, target)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(f"cannot write {str(target)!r}: {_describe(exc)}") from exc
        raise
    _fsync_dir(folder)
    return result


def _new_temp(target: Path, suffix: str | None = None) -> Path:
    """An empty temporary beside ``target``, ending with its suffixes (or ``suffix``)."""
    folder = target.parent if str(target.parent) else Path(".")
    if suffix is None:
        suffix = "".join(target.suffixes[-2:]) if len(target.suffixes) > 1 else target.suffix
    try:
        fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=_temp_prefix(target), suffix=suffix)
    except OSError as exc:
        raise OutputError(f"cannot write {str(target)!r}: {_describe(exc)}") from exc
    os.close(fd)
    return Path(tmp_name)


def _finish_temp(tmp: Path, target: Path) -> None:
    """Make a written temporary durable, with the permissions ``target`` has or would get."""
    with open(tmp, "rb+") as fh:
        fh.flush()
        os.fsync(fh.fileno())
    try:
        mode = target.stat().st_mode & 0o7777
    except OSError:
        mode = 0o666 & ~_umask()
    os.chmod(tmp, mode)


def atomic_write_many(
    items: Sequence[tuple[str | os.PathLike[str], Callable[[Path], Any]]],
) -> list[Any]:
    """Write several files in one folder as one unit: all of them, or none of them.

    Each ``writer(tmp)`` writes its temporary; only when all succeeded is a journal (the list
    of renames, fsynced) written and the temporaries renamed onto their targets. A failure or
    a signal before the journal leaves every old file untouched; once the journal exists the
    renames are completed, by this call (also on ``Ctrl-C`` or ``SIGTERM`` between renames) or,
    after a ``SIGKILL``, by the next :func:`check_writable` or :func:`atomic_write` in that
    folder (:func:`remove_stale_temporaries`).

    Parameters
    ----------
    items : sequence of (path, writer)
        The targets (in one folder) and their writers, as for :func:`atomic_write`.

    Returns
    -------
    list
        What each writer returned.

    Raises
    ------
    OutputError
        The targets are not in one folder, or writing failed (every temporary removed).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = atomic_write_many([(d / "log.csv", lambda t: t.write_text("a,b")),
    ...                        (d / "log.truth.json", lambda t: t.write_text("{}"))])
    >>> sorted(os.listdir(d))
    ['log.csv', 'log.truth.json']
    """
    targets = [Path(p) for p, _ in items]
    folders = {(t.parent if str(t.parent) else Path(".")).resolve() for t in targets}
    if len(folders) != 1:
        raise OutputError(f"files written as one unit must share a folder: {targets}")
    folder = targets[0].parent if str(targets[0].parent) else Path(".")
    remove_stale_temporaries(folder)
    temps: list[Path] = []
    journal: Path | None = None
    try:
        results = []
        for target, (_, writer) in zip(targets, items, strict=True):
            temps.append(_new_temp(target))
            results.append(writer(temps[-1]))
            _finish_temp(temps[-1], target)
        journal = _new_temp(targets[0], suffix=_JOURNAL_SUFFIX)
        pairs = [[t.name, g.name] for t, g in zip(temps, targets, strict=True)]
        with open(journal, "w", encoding="utf-8") as fh:
            json.dump(pairs, fh)
            fh.flush()
            os.fsync(fh.fileno())
        _fsync_dir(folder)
    except BaseException as exc:
        for t in [*temps, *([journal] if journal is not None else [])]:
            with contextlib.suppress(OSError):
                t.unlink()
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(
                f"cannot write {', '.join(repr(str(t)) for t in targets)}: {_describe(exc)}"
            ) from exc
        raise
    # committed: every rename is done, whatever interrupts (a signal raises between them)
    interrupted: BaseException | None = None
    for tmp, target in zip(temps, targets, strict=True):
        while True:
            try:
                if tmp.exists():
                    os.replace(tmp, target)
                break
            except OSError as exc:  # pragma: no cover - the folder vanished or turned read-only
                raise OutputError(f"cannot write {str(target)!r}: {_describe(exc)}") from exc
            except BaseException as exc:  # Ctrl-C / SIGTERM: finish the unit first
                interrupted = exc
    _fsync_dir(folder)
    with contextlib.suppress(OSError):
        journal.unlink()
    if interrupted is not None:
        raise interrupted
    return results


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_write`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> p = write_bytes(Path(tempfile.mkdtemp()) / "a.bin", b"\\x00\\x01")
    >>> p.read_bytes()
    b'\\x00\\x01'
    """

    def _write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())

    atomic_write(path, _write)
    return Path(path)


def write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically, encoded as ``encoding`` (see :func:`atomic_write`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> p = write_text(Path(tempfile.mkdtemp()) / "r.html", "<html></html>")
    >>> p.read_text()
    '<html></html>'
    """
    return write_bytes(path, text.encode(encoding))


def markdown_table(frame: Any) -> str:
    """A DataFrame as a GitHub-flavoured Markdown table (no index; ``|`` in cells escaped).

    Needs nothing beyond pandas (``DataFrame.to_markdown`` needs the optional ``tabulate``).
    Numbers are written with ``str``, so round them first.

    Examples
    --------
    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"strategy": ["a|b"], "rho": [0.5]})))
    | strategy | rho |
    |---|---|
    | a\\|b | 0.5 |
    """

    def cell(v: Any) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    head = "| " + " | ".join(cell(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])
