"""The broad model: py3langid's naive Bayes, trained on large real corpora, as the first expert.

trawl's own models (:mod:`trawl.langid.naive_bayes`, :mod:`trawl.langid.relatives`) are trained
on one document per language, the UDHR: they know ~350 languages and their scripts, but their
English is the English of a declaration, and conversational text ("I don't know what you want")
fits Nigerian Pidgin's translation better. py3langid (BSD-3; Lui & Baldwin's langid.py, retrained
in 0.4 on large multi-domain corpora for 139 languages plus ``zxx``, "no linguistic content")
knows far fewer languages but knows them from real text. :class:`BroadModel` gives its
log-probabilities, which :class:`~trawl.langid.identify.DefaultIdentifier` fuses with its own
naive Bayes: the broad model ranks the languages it knows, trawl's model brings the long tail,
the script variants py3langid never saw (Cyrillic Azerbaijani, polytonic Greek) and the
out-of-model checks.

This reads py3langid's model through its internals (``_encode``, ``_raw_score``,
``nb_classes``), so the version is pinned in ``pyproject.toml`` (:data:`PY3LANGID_VERSION`).
"""

from __future__ import annotations

import array
import json
import math
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["NO_LANGUAGE", "PY3LANGID_VERSION", "SCRIPTS", "BroadModel", "cache_dir", "load_broad"]

#: The py3langid release whose model and internals this module reads.
PY3LANGID_VERSION = "0.4.0"
#: py3langid's class for numbers, markup, identifiers: text in no language.
NO_LANGUAGE = "zxx"

#: py3langid's labels onto trawl's (ISO 639-1 where one exists, else 639-3); labels that fall
#: on one trawl label (Northern and Southern Uzbek) are merged.
_MAP = {"no": "nb", "gug": "gn", "uzs": "uz", "iw": "he", "in": "id", "ji": "yi"}

#: The scripts of the broad model's languages that trawl's own model does not know (its own
#: languages' scripts come from their training text): which texts they may be candidates for.
#: ``zxx`` is a candidate for every text.
SCRIPTS: dict[str, tuple[str, ...]] = {
    "an": ("Latin",), "ary": ("Arabic",), "arz": ("Arabic",), "as": ("Bengali",),
    "ba": ("Cyrillic",), "crh": ("Latin", "Cyrillic"), "dz": ("Tibetan",), "ext": ("Latin",),
    "fuv": ("Latin",), "gcf": ("Latin",), "gcr": ("Latin",), "gom": ("Devanagari", "Latin"),
    "grc": ("Greek",), "gn": ("Latin",), "guw": ("Latin",), "hbo": ("Hebrew",),
    "kab": ("Latin",), "kik": ("Latin",), "ku": ("Latin", "Arabic"), "lij": ("Latin",),
    "ltg": ("Latin",), "oc": ("Latin",), "om": ("Latin",), "or": ("Oriya",), "ps": ("Arabic",),
    "qu": ("Latin",), "sdh": ("Arabic",), "si": ("Sinhala",), "te": ("Telugu",), "vo": ("Latin",),
    "wuu": ("Han",), "yue": ("Han",),
}  # fmt: skip

FloatArray = npt.NDArray[np.float64]


def _label(code: str) -> str:
    code = code.lower()
    return _MAP.get(code, code)


class BroadModel:
    """py3langid's model: ``log_probs(text)`` over :attr:`labels` (one entry per trawl label)."""

    def __init__(self, identifier: Any) -> None:
        """``identifier``: a py3langid ``LanguageIdentifier`` built with ``norm_probs=False``."""
        self._ident = identifier
        merged: dict[str, list[int]] = {}
        for col, code in enumerate(identifier.nb_classes):
            merged.setdefault(_label(str(code)), []).append(col)
        self.labels: list[str] = list(merged)
        self.index = {label: i for i, label in enumerate(self.labels)}
        self._first = np.array([cols[0] for cols in merged.values()], dtype=np.int64)
        self._more = [(self.index[lab], np.array(cols[1:])) for lab, cols in merged.items() if len(cols) > 1]
        self._more_to = np.array([i for i, cols in self._more for _ in cols], dtype=np.int64)
        self._more_col = np.concatenate([cols for _, cols in self._more] or [np.zeros(0)]).astype(np.int64)
        self._normalise: Any = None  # the compiled softmax (trawl.langid._nb.broad_log_probs)
        self._prior = np.asarray(identifier.nb_pc, dtype=np.float32)
        self._walker: Any = None
        self.kernel_status = (
            "not used (TRAWL_PURE_PYTHON)" if os.environ.get("TRAWL_PURE_PYTHON") else "ready"
        )
        if self.kernel_status == "ready":
            try:
                from trawl.langid._nb import Walker, broad_log_probs  # noqa: PLC0415 -- optional module

                self._normalise = broad_log_probs
                self._walker = Walker(
                    identifier.tk_nextmove,  # uint32 (a mapped array, or py3langid's array('I')), in place
                    np.asarray(identifier._rowbase, dtype=np.int64),
                    np.asarray(identifier.tk_output, dtype=np.int32),
                    np.ascontiguousarray(identifier.nb_ptc).view(np.uint16),
                )
            except (ImportError, ValueError, TypeError, MemoryError) as exc:
                self.kernel_status = f"not used ({type(exc).__name__}: {exc})"

    def raw(self, data: bytes) -> npt.NDArray[np.float32]:
        """py3langid's raw scores of UTF-8 ``data`` (its ``_raw_score``): in C when the compiled
        walker is there (the same sums in another order: equal to about 1e-5), else py3langid's."""
        if self._walker is None:
            return np.asarray(self._ident._raw_score(data), dtype=np.float32)
        out = np.zeros(len(self._prior), dtype=np.float32)
        if not self._walker.scores(data, out):
            return np.asarray(self._ident._raw_score(data), dtype=np.float32)  # no feature: its fill
        out += self._prior
        return out

    def log_probs_many(self, texts: list[str]) -> npt.NDArray[np.float64]:
        """:meth:`log_probs` of each text, one row each: the texts walked in one call when the
        compiled walker is there (the same sums as one at a time), normalised together."""
        if self._walker is None or not texts:
            return np.array([self.log_probs(t) for t in texts]).reshape(len(texts), len(self.labels))
        datas = [self._ident._encode(t) for t in texts]
        lengths = np.array([len(d) for d in datas], dtype=np.int64)
        raw = np.zeros((len(texts), len(self._prior)), dtype=np.float32)
        distinct = np.zeros(len(texts), dtype=np.int64)
        self._walker.scores_many(b"".join(datas), np.cumsum(lengths), raw, distinct)
        raw += self._prior
        for k in np.flatnonzero(distinct == 0).tolist():  # no feature: py3langid's fill, as raw() gives it
            raw[k] = np.asarray(self._ident._raw_score(datas[k]), dtype=np.float32)
        scaled = raw.astype(np.float64) / np.sqrt(np.maximum(lengths, 1))[:, None]
        scaled -= scaled.max(axis=1, keepdims=True)
        probs = np.exp(scaled)
        out = probs[:, self._first]
        for i, cols in self._more:
            out[:, i] += probs[:, cols].sum(axis=1)
        out /= out.sum(axis=1, keepdims=True)
        logs: npt.NDArray[np.float64] = np.log(np.maximum(out, 1e-300))
        return logs

    def log_probs(self, text: str) -> FloatArray:
        """log P(language | text) for every label: py3langid's scores at its temperature
        (the square root of the text's UTF-8 length, which it calibrates its softmax with),
        normalised; merged labels add their columns' probabilities."""
        data = self._ident._encode(text)
        if self._normalise is not None:  # the same steps in C
            out = np.empty(len(self.labels))
            self._normalise(self.raw(data), math.sqrt(len(data) or 1), self._first, self._more_to,
                            self._more_col, out)  # fmt: skip
            return out
        raw = self.raw(data).astype(np.float64) / math.sqrt(len(data) or 1)
        raw -= raw.max()
        probs = np.exp(raw)
        out = probs[self._first]
        for i, cols in self._more:
            out[i] += probs[cols].sum()
        out /= out.sum()
        logs: FloatArray = np.log(np.maximum(out, 1e-300))
        return logs


def cache_dir() -> Path:
    """Where trawl keeps what it derives from installed packages (``TRAWL_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/trawl``, else ``~/.cache/trawl``)."""
    if os.environ.get("TRAWL_CACHE_DIR"):
        return Path(os.environ["TRAWL_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "trawl"


_ARRAYS = ("ptc", "pc", "nextmove", "row", "output")


def _model_arrays(langid: Any) -> tuple[Any, ...]:
    """py3langid's model: ``(ptc, pc, classes, nextmove, row, output)``. Its file is LZMA-packed
    (0.7 s to unpack, 67 MB unpacked, in every worker process), so the unpacked arrays are kept
    in :func:`cache_dir` the first time and mapped from there after (shared by all processes
    through the page cache); the folder is named after the release and the file's size and time,
    so a reinstalled model is unpacked again. Where nothing can be written, it is unpacked."""
    source = Path(langid.MODEL_DIR) / langid.MODEL_FILE
    stat = source.stat()
    root = cache_dir()
    stem = f"py3langid-{PY3LANGID_VERSION}-"
    folder = root / f"{stem}{stat.st_size}-{stat.st_mtime_ns}"
    if (folder / "classes.json").is_file():
        try:
            maps = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in _ARRAYS}
            classes = json.loads((folder / "classes.json").read_text())
            return maps["ptc"], maps["pc"], classes, maps["nextmove"], maps["row"], maps["output"]
        except Exception:  # a damaged cache (empty, cut or garbled files): unpack again, rewrite it
            shutil.rmtree(folder, ignore_errors=True)
    ptc, pc, classes, nextmove, row, output = langid._load_model_file(source)
    arrays = {
        "ptc": np.asarray(ptc),
        "pc": np.asarray(pc),
        "nextmove": np.asarray(nextmove, dtype=np.uint32),
        "row": np.asarray(row, dtype=np.int64),
        "output": np.asarray(output, dtype=np.int32),
    }
    tmp: Path | None = None
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=root))  # one a writer, thread or process
        for name, array in arrays.items():
            with (tmp / f"{name}.npy").open("wb") as fh:
                np.save(fh, array)
                fh.flush()
                os.fsync(fh.fileno())  # on disk before the rename makes the folder count
        with (tmp / "classes.json").open("w") as fh:  # last: marks it complete
            fh.write(json.dumps(list(classes)))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, folder)
        tmp = None
        for old in root.glob(f"{stem}*"):  # earlier installs' copies (67 MB each)
            if old != folder and not old.name.startswith("."):
                shutil.rmtree(old, ignore_errors=True)
    except OSError:  # read-only home, full disk, another writer was first: use what is loaded
        pass
    finally:
        if tmp is not None:  # failed or interrupted (Ctrl-C): nothing half-written is left
            shutil.rmtree(tmp, ignore_errors=True)
    return ptc, pc, classes, nextmove, row, output


@cache
def load_broad() -> BroadModel | None:
    """The shipped broad model (None when py3langid is not installed: trawl's models alone)."""
    try:
        from py3langid import langid  # noqa: PLC0415 -- loaded on first use (4.6 MB model)
    except ImportError:
        return None
    ptc, pc, classes, nextmove, row, output = _model_arrays(langid)
    if os.environ.get("TRAWL_PURE_PYTHON") and isinstance(nextmove, np.ndarray):
        # py3langid's own walk indexes these one element at a time: as its array and list types,
        # not as mapped numpy arrays (3.5 times slower)
        nextmove = array.array("I", np.asarray(nextmove, dtype=np.uint32).tobytes())
        output = np.asarray(output).tolist()
    identifier = langid.LanguageIdentifier(
        ptc, pc, list(classes), nextmove, output, norm_probs=False, tk_row=[int(r) for r in row]
    )
    return BroadModel(identifier)
