# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The charset detector's inner loops in C (optional fast path of :mod:`trawl.decode.detect`).

A legacy page costs the detector a sample (tags stripped, ASCII runs thinned: two regular
expressions, one with a Python callback per run), a byte-pair histogram and a gather of every
candidate's pair costs (numpy, a dozen calls of a few microseconds each), and, for each CJK
candidate the bytes do not rule out, a lookup of its characters' bigrams (numpy ``searchsorted``)
and the context costs (four regular expressions). :class:`Kernel` does each in one C pass:

* :meth:`Kernel.untag` and :meth:`Kernel.thin` are ``_TAG.sub(b" ", ...)`` and
  ``_ASCII_RUN.sub(_collapse, ...)``, byte for byte;
* :meth:`Kernel.pair_scores` is ``_TableStack.scores``: the sums are exact (float16 costs times
  counts; see there), so the same in any order;
* :meth:`Kernel.char_costs` fills the same per-character costs as ``_Model.score``'s lookups
  (which numpy then sums, as there), :meth:`Kernel.context_costs` is ``_context_costs``.

Each returns False (or raises) where it cannot give the Python answer, and the caller then takes
the Python path: a cost not in the table yet, a character without a unigram yet.
"""

from libc.stdint cimport int64_t, uint16_t, uint32_t
from libc.stdlib cimport calloc, free
from libc.string cimport memchr, memcpy
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND

cdef extern from "Python.h":
    Py_UCS4 PyUnicode_READ(int kind, void *data, Py_ssize_t index) nogil
    bint Py_UNICODE_ISALPHA(Py_UCS4 ch) nogil

__all__ = ["VERSION", "Kernel"]

#: The interface version ``detect._KERNEL_VERSION`` expects.
VERSION = 1

DEF TAG_BODY = 2000  # _TAG: <[!/?a-zA-Z][^<>]{0,2000}>
DEF RUN_MIN = 10  # _ASCII_RUN: [\x00-\x7f]{10,}
DEF RUN_KEEP = 4  # _collapse: run[:4] + b" " + run[-4:]
DEF MAX_PAIRS = 8192  # detect._EXACT_PAIRS
DEF PAIR_BASE = 0x110000  # detect._PAIR_BASE

# Flags of detect._char_classes.
DEF SMALL = 1
DEF CAPITAL = 2
DEF LATIN = 4
DEF NON_LATIN = 8
DEF NOT_AFTER = 16
DEF NOT_BEFORE = 32
DEF NON_LATIN_BLOCK = 64

# The histogram's scratch space: counts of every byte pair (zero between calls) and the distinct
# pairs of one call. Used with the GIL held, so one call at a time.
# Scratch of pair_scores, shared by every call: the function keeps the GIL throughout (no
# ``nogil`` block), so no two threads are in it at once; a free-threaded build would need a
# buffer per call.
cdef uint32_t _counts[65536]
cdef uint16_t _distinct[MAX_PAIRS]


cdef inline bint tag_start(unsigned char c) noexcept nogil:
    return c == 0x21 or c == 0x2F or c == 0x3F or (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)


cdef inline int64_t fixed(uint16_t h) noexcept nogil:
    """A finite float16, in units of 2^-24 (float16's smallest step): exact."""
    cdef int e = (h >> 10) & 0x1F
    cdef int64_t v = h & 0x3FF
    if e:
        v = (v | 0x400) << (e - 1)
    return -v if h & 0x8000 else v


cdef inline Py_ssize_t find(const int64_t[::1] keys, int64_t key) noexcept nogil:
    """The position of ``key`` in the sorted ``keys``, or -1."""
    cdef Py_ssize_t lo = 0, hi = keys.shape[0], mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < keys.shape[0] and keys[lo] == key else -1


cdef class Kernel:
    """The detector's loops, with its character classes (``detect._char_classes``: a byte of
    flags per code point) and the costs of the context rules."""

    cdef bytes _classes
    cdef const unsigned char *_flags
    cdef Py_ssize_t _n_flags
    cdef double _inner_capital, _caps, _misplaced, _script_mix

    def __init__(self, bytes classes, double inner_capital, double caps, double misplaced, double script_mix):
        self._classes = classes
        self._flags = <const unsigned char *> PyBytes_AS_STRING(classes)
        self._n_flags = PyBytes_GET_SIZE(classes)
        self._inner_capital = inner_capital
        self._caps = caps
        self._misplaced = misplaced
        self._script_mix = script_mix

    cdef inline unsigned char flags(self, Py_UCS4 c) noexcept nogil:
        return self._flags[c] if c < <Py_UCS4> self._n_flags else 0

    def untag(self, bytes data):
        """``data`` with each tag replaced by a space, as ``detect._TAG.sub(b" ", data)``."""
        cdef const unsigned char *s = <const unsigned char *> PyBytes_AS_STRING(data)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
        cdef const unsigned char *p = <const unsigned char *> memchr(s, 0x3C, n)
        if p == NULL:
            return data
        cdef bytearray out = bytearray(n)
        cdef unsigned char *o = out
        cdef Py_ssize_t i = p - s, j, k, end, w = 0, last = 0
        while True:
            # a tag opens at i: "<", a start character, then at most TAG_BODY bytes before ">"
            # with no "<" or ">" among them; else the search goes on from the first "<" after i
            j = i + 1
            if j < n and tag_start(s[j]):
                k = j + 1
                end = min(n, k + TAG_BODY + 1)
                while k < end and s[k] != 0x3C and s[k] != 0x3E:
                    k += 1
                if k < end and s[k] == 0x3E:
                    memcpy(o + w, s + last, i - last)
                    w += i - last
                    o[w] = 0x20
                    w += 1
                    last = k + 1
                    j = k + 1
                elif k < n and s[k] == 0x3C:
                    j = k  # no "<" between: the next try is there
            if j >= n:
                break
            p = <const unsigned char *> memchr(s + j, 0x3C, n - j)
            if p == NULL:
                break
            i = p - s
        memcpy(o + w, s + last, n - last)
        w += n - last
        return PyBytes_FromStringAndSize(<char *> o, w)

    def thin(self, bytes data):
        """``data`` with each run of ten ASCII bytes or more cut to its first four, a space and
        its last four, as ``detect._ASCII_RUN.sub(detect._collapse, data)``."""
        cdef const unsigned char *s = <const unsigned char *> PyBytes_AS_STRING(data)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
        cdef bytearray out = bytearray(n)
        cdef unsigned char *o = out
        cdef Py_ssize_t i = 0, start, w = 0
        while i < n:
            if s[i] >= 0x80:
                o[w] = s[i]
                w += 1
                i += 1
                continue
            start = i
            while i < n and s[i] < 0x80:
                i += 1
            if i - start >= RUN_MIN:
                memcpy(o + w, s + start, RUN_KEEP)
                o[w + RUN_KEEP] = 0x20
                memcpy(o + w + RUN_KEEP + 1, s + i - RUN_KEEP, RUN_KEEP)
                w += 2 * RUN_KEEP + 1
            else:
                memcpy(o + w, s + start, i - start)
                w += i - start
        return PyBytes_FromStringAndSize(<char *> o, w)

    def pair_scores(self, const uint16_t[:, ::1] values, const int64_t[::1] rows, bytes sample, double[::1] out):
        """The score of ``sample`` (its byte pairs, a space before the first) under each of
        ``rows`` (columns of ``values``: the table stack's float16 costs as their bits, a row per
        byte pair) into ``out``; False, ``out`` unfinished, when a cost is not in the table yet
        or the sample is longer than the sums are exact for."""
        cdef const unsigned char *s = <const unsigned char *> PyBytes_AS_STRING(sample)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(sample), r, i, distinct = 0
        cdef Py_ssize_t n_rows = rows.shape[0], width = values.shape[1]
        cdef unsigned int prev = 0x20, pair
        cdef const uint16_t *costs
        cdef uint16_t h
        cdef int64_t count
        cdef int64_t *acc
        cdef bint complete = True
        if n + 1 > MAX_PAIRS:
            return False
        if out.shape[0] != n_rows or values.shape[0] != 65536:
            raise ValueError("pair_scores: out must have one value a row, values 65536 rows")
        for r in range(n_rows):
            if rows[r] < 0 or rows[r] >= width:
                raise IndexError(f"pair_scores: row {rows[r]} of {width}")
        acc = <int64_t *> calloc(n_rows if n_rows else 1, sizeof(int64_t))
        if acc == NULL:
            raise MemoryError()
        for i in range(n):
            pair = (prev << 8) | s[i]
            if _counts[pair] == 0:
                _distinct[distinct] = <uint16_t> pair
                distinct += 1
            _counts[pair] += 1
            prev = s[i]
        for i in range(distinct):
            costs = &values[_distinct[i], 0]
            count = _counts[_distinct[i]]
            for r in range(n_rows):
                h = costs[rows[r]]
                if (h & 0x7C00) == 0x7C00:  # NaN: not computed yet (costs are finite)
                    complete = False
                    break
                acc[r] += fixed(h) * count
            if not complete:
                break
        if complete:
            for r in range(n_rows):
                out[r] = (<double> acc[r]) * (1.0 / 16777216.0)  # 2^-24: exact
        free(acc)
        for i in range(distinct):
            _counts[_distinct[i]] = 0
        return complete

    def char_costs(
        self,
        str low,
        const int64_t[::1] bi_keys,
        const double[::1] bi_values,
        const int64_t[::1] ctx_keys,
        const double[::1] ctx_values,
        const int64_t[::1] uni_keys,
        const double[::1] uni_values,
        double[::1] out,
    ):
        """Each character's cost after the one before it (a space before the first) into
        ``out``, as ``_Model.score`` looks them up: its bigram's, else its unigram's plus its
        context's (0 when absent). False when a character has no unigram in ``uni_keys`` yet."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(low), i, at
        cdef int kind = PyUnicode_KIND(low)
        cdef void *data = PyUnicode_DATA(low)
        cdef int64_t prev = 0x20, c
        cdef double lp
        if out.shape[0] != n:
            raise ValueError("char_costs: out must have one value a character")
        for i in range(n):
            c = PyUnicode_READ(kind, data, i)
            at = find(bi_keys, prev * PAIR_BASE + c)
            if at >= 0:
                lp = bi_values[at]
            else:
                at = find(uni_keys, c)
                if at < 0:
                    return False
                lp = uni_values[at]
                at = find(ctx_keys, prev)
                lp = lp + (ctx_values[at] if at >= 0 else 0.0)
            out[i] = lp
            prev = c
        return True

    def context_costs(self, str text):
        """``detect._context_costs(text)``: capitals after small letters and after capitals,
        signs glued to a letter, a non-Latin letter against a Latin one (whole counts times the
        costs: exact, in any order)."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i
        cdef int kind = PyUnicode_KIND(text)
        cdef void *data = PyUnicode_DATA(text)
        cdef Py_UCS4 a = 0x20, b
        cdef unsigned char fa = 0, fb
        cdef Py_ssize_t inner = 0, caps = 0, misplaced = 0, mixed = 0
        cdef bint block = False
        for i in range(n):
            b = PyUnicode_READ(kind, data, i)
            fb = self.flags(b)
            if fb & NON_LATIN_BLOCK:
                block = True
            if i:
                if fb & CAPITAL:
                    if fa & SMALL:
                        inner += 1
                    elif fa & CAPITAL:
                        caps += 1
                if (fb & NOT_AFTER) and Py_UNICODE_ISALPHA(a):
                    misplaced += 1
                if (fa & NOT_BEFORE) and Py_UNICODE_ISALPHA(b):
                    misplaced += 1
                if ((fa & LATIN) and (fb & NON_LATIN)) or ((fa & NON_LATIN) and (fb & LATIN)):
                    mixed += 1
            a = b
            fa = fb
        cdef double cost = self._inner_capital * inner + self._caps * caps + self._misplaced * misplaced
        if block:
            cost += self._script_mix * mixed
        return cost
