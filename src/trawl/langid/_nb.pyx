# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The naive-Bayes evidence of :mod:`trawl.langid.naive_bayes` in C (optional fast path).

:meth:`NaiveBayesModel._class_evidence` counts a text's features (its words' padded n-grams and
its longer words) in a Python ``Counter``, looks each up in the vocabulary and gathers the
matching rows of the count matrix with numpy: for a passage of a few hundred characters that is
a few milliseconds, most of a document's language tagging. :class:`Kernel` does the same in one
C pass: the features are generated in the order ``features`` yields them, deduplicated in a small
hash table (first occurrence order, as the ``Counter`` keeps them), looked up in a hash table of
the vocabulary (64-bit hashes of the n-grams; building it fails on a collision, so a lookup is
exact for the vocabulary) and their rows added in the same order, with the same products, as
numpy's ``bincount`` adds them: the scores are bit for bit the same (tested).
"""

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND

cdef extern from "Python.h":
    Py_UCS4 PyUnicode_READ(int kind, void *data, Py_ssize_t index) nogil

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define TRAWL_PREFETCH(p) __builtin_prefetch((p))
    #else
    #define TRAWL_PREFETCH(p) ((void)0)
    #endif
    """
    void TRAWL_PREFETCH(const void *p) nogil

__all__ = ["Kernel", "Walker", "broad_log_probs", "feature_hash", "fuse", "has_f16c", "viterbi"]

DEF MAX_N = 5
DEF WORD_KIND = 5
DEF PAD = 0x5F  # "_"
DEF WORD_MARK = 0x01


cdef inline uint64_t mix(uint64_t h) noexcept nogil:
    """splitmix64's finaliser: every input bit moves every output bit."""
    h ^= h >> 30
    h *= <uint64_t> 0xBF58476D1CE4E5B9
    h ^= h >> 27
    h *= <uint64_t> 0x94D049BB133111EB
    h ^= h >> 31
    return h


cdef inline uint64_t step(uint64_t h, Py_UCS4 c) noexcept nogil:
    return (h ^ <uint64_t> c) * <uint64_t> 0x100000001B3  # FNV-1a over code points


DEF SEED = 0xCBF29CE484222325
DEF DENSE_FROM = 32  # classes a row must have to be kept dense as well


def feature_hash(str feature):
    """The 64-bit hash of one feature string, as :class:`Kernel` computes it."""
    cdef uint64_t h = SEED
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(feature)
    cdef int kind = PyUnicode_KIND(feature)
    cdef void *data = PyUnicode_DATA(feature)
    for i in range(n):
        h = step(h, PyUnicode_READ(kind, data, i))
    return mix(h ^ <uint64_t> n)


cdef struct Slot:
    uint64_t key  # 0: empty
    int64_t row


cdef struct Entry:
    double delta
    int64_t lang


cdef struct Feature:
    uint64_t hash
    int64_t count
    int64_t row  # -1: not in the vocabulary
    int kind


cdef class Kernel:
    """The vocabulary as a hash table, and the evidence of a text's words against it."""

    # The vocabulary's hash table and the count matrix's rows, each laid out so that one lookup
    # and one row entry are one cache line each: the work is memory-bound.
    cdef Slot *slots
    cdef Entry *entries
    cdef size_t mask
    cdef const int64_t[::1] indptr
    cdef int n_classes
    # Rows of many classes (the common n-grams: "_e", "th", "e"...) also as dense vectors, zeros
    # where a class has no count: adding them is a vectorised loop, and adding 0.0 changes no sum.
    cdef int64_t *dense_of  # row -> index of its dense vector, or -1
    cdef double *dense

    def __cinit__(self):
        self.slots = NULL
        self.entries = NULL
        self.dense_of = NULL
        self.dense = NULL

    def __init__(self, vocab, const int64_t[::1] indptr, const int32_t[::1] langs,
                 const double[::1] delta, int n_classes):
        """``vocab``: the n-grams in row order, as a list or as one string of lines."""
        cdef size_t size = 16, slot
        cdef Py_ssize_t i, n_rows = len(indptr) - 1, at, length, row
        if n_rows < 0:
            raise ValueError("the count matrix needs an indptr of at least one entry")
        if isinstance(vocab, str):
            lines = (<str> vocab).count("\n") + 1 if vocab else 0
            if lines != n_rows:
                raise ValueError(f"the vocabulary has {lines} lines for {n_rows} rows")
        cdef uint64_t h
        cdef int ukind
        cdef void *udata
        cdef Py_UCS4 c
        while size < 2 * <size_t> n_rows:
            size <<= 1
        cdef Py_ssize_t nnz = len(langs)
        self.slots = <Slot *> calloc(size, sizeof(Slot))
        self.entries = <Entry *> malloc((nnz + 1) * sizeof(Entry))
        if self.slots == NULL or self.entries == NULL:
            raise MemoryError()
        self.mask = size - 1
        if isinstance(vocab, str):  # one line a row, hashed as feature_hash hashes a string
            ukind = PyUnicode_KIND(vocab)
            udata = PyUnicode_DATA(vocab)
            length = PyUnicode_GET_LENGTH(vocab)
            row, h, at = 0, SEED, 0
            for i in range(length + 1 if length else 0):
                c = PyUnicode_READ(ukind, udata, i) if i < length else 10
                if c != 10:
                    h = step(h, c)
                    continue
                self.insert(mix(h ^ <uint64_t> (i - at)) | 1, row, vocab, at, i)
                row += 1
                h, at = SEED, i + 1
            if row != n_rows:
                raise ValueError(f"the vocabulary has {row} lines for {n_rows} rows")
        else:
            if len(vocab) != n_rows:
                raise ValueError(f"the vocabulary has {len(vocab)} n-grams for {n_rows} rows")
            for i in range(len(vocab)):
                self.insert(feature_hash(vocab[i]) | 1, i, vocab[i], 0, len(vocab[i]))  # 0: empty
        for i in range(nnz):
            self.entries[i].delta = delta[i]
            self.entries[i].lang = langs[i]
        self.indptr, self.n_classes = indptr, n_classes
        cdef Py_ssize_t rows = len(indptr) - 1, n_dense = 0, j
        self.dense_of = <int64_t *> malloc((rows + 1) * sizeof(int64_t))
        if self.dense_of == NULL:
            raise MemoryError()
        for i in range(rows):
            if indptr[i + 1] - indptr[i] >= DENSE_FROM:
                self.dense_of[i] = n_dense
                n_dense += 1
            else:
                self.dense_of[i] = -1
        self.dense = <double *> calloc(n_dense * n_classes + 1, sizeof(double))
        if self.dense == NULL:
            raise MemoryError()
        for i in range(rows):
            if self.dense_of[i] >= 0:
                for j in range(indptr[i], indptr[i + 1]):
                    self.dense[self.dense_of[i] * n_classes + langs[j]] = delta[j]

    cdef int insert(self, uint64_t h, Py_ssize_t row, str text, Py_ssize_t start, Py_ssize_t end) except -1:
        cdef size_t slot = h & self.mask
        while self.slots[slot].key != 0:
            if self.slots[slot].key == h:
                raise ValueError(f"feature hash collision at {text[start:end]!r}")
            slot = (slot + 1) & self.mask
        self.slots[slot].key = h
        self.slots[slot].row = row
        return 0

    def __dealloc__(self):
        free(self.slots)
        free(self.entries)
        free(self.dense_of)
        free(self.dense)

    cdef inline int64_t lookup(self, uint64_t h) noexcept nogil:
        cdef size_t slot = h & self.mask
        while self.slots[slot].key != 0:
            if self.slots[slot].key == h:
                return self.slots[slot].row
            slot = (slot + 1) & self.mask
        return -1

    def evidence(self, list words, double[::1] scores, double[::1] seen, double[::1] per_length):
        """Add the words' evidence into ``scores`` and ``seen`` (per class, zeroed by the caller)
        and their feature counts per kind into ``per_length``; returns the number of features
        and of n-grams of length 3-5, and how many distinct features were in the vocabulary."""
        cdef Py_ssize_t w, i, n, L, total_chars = 0, cap
        cdef int k, kind, ukind
        cdef void *data
        cdef uint64_t h
        cdef Py_UCS4 c
        cdef Py_UCS4 buf[512]
        cdef Py_UCS4 *chars
        cdef size_t tsize = 16, slot, nf = 0, f, j
        cdef Feature *feats = NULL
        cdef int64_t *table = NULL
        cdef int64_t n_all = 0, n_long = 0, known = 0, r, start, end
        cdef double mult, longm
        for w in range(len(words)):
            total_chars += PyUnicode_GET_LENGTH(words[w])
        # each word gives 1 + L uni-grams, 4 (L + 1) longer n-grams and maybe itself
        cap = 6 * total_chars + 6 * len(words) + 1
        while tsize < 2 * <size_t> cap:
            tsize <<= 1
        feats = <Feature *> malloc(cap * sizeof(Feature))
        table = <int64_t *> malloc(tsize * sizeof(int64_t))
        if feats == NULL or table == NULL:
            free(feats)
            free(table)
            raise MemoryError()
        try:
            for j in range(tsize):
                table[j] = -1
            for w in range(len(words)):
                word = words[w]
                L = PyUnicode_GET_LENGTH(word)
                ukind = PyUnicode_KIND(word)
                data = PyUnicode_DATA(word)
                chars = &buf[0] if L + MAX_N + 1 <= 512 else <Py_UCS4 *> malloc((L + MAX_N + 1) * sizeof(Py_UCS4))
                if chars == NULL:
                    raise MemoryError()
                try:
                    # the padded word: "_" + word + "____"
                    chars[0] = PAD
                    for i in range(L):
                        chars[i + 1] = PyUnicode_READ(ukind, data, i)
                    for i in range(MAX_N - 1):
                        chars[L + 1 + i] = PAD
                    # uni-grams: "_", then each letter
                    nf = self.add(feats, table, tsize, nf, chars, 0, 1, 0)
                    for i in range(L):
                        nf = self.add(feats, table, tsize, nf, chars, i + 1, 1, 0)
                    for n in range(2, MAX_N + 1):
                        for i in range(L + 1):
                            nf = self.add(feats, table, tsize, nf, chars, i, n, n - 1)
                    if L > 3:  # the whole word, marked
                        h = step(SEED, WORD_MARK)
                        for i in range(L):
                            h = step(h, chars[i + 1])
                        nf = self.add_hash(feats, table, tsize, nf, mix(h ^ <uint64_t> (L + 1)), WORD_KIND)
                finally:
                    if chars != &buf[0]:
                        free(chars)
            # The lookups miss the cache (the vocabulary's table is tens of MB): each slot was
            # prefetched when its feature was first seen, so the misses overlap.
            for f in range(nf):
                feats[f].row = self.lookup(feats[f].hash)
                if feats[f].row >= 0:
                    TRAWL_PREFETCH(&self.indptr[feats[f].row])
            for f in range(nf):
                r = feats[f].row
                if r >= 0:
                    if self.dense_of[r] >= 0:
                        TRAWL_PREFETCH(self.dense + self.dense_of[r] * self.n_classes)
                    else:
                        TRAWL_PREFETCH(&self.entries[self.indptr[r]])
            for f in range(nf):
                kind = feats[f].kind
                mult = <double> feats[f].count
                per_length[kind] += mult
                n_all += feats[f].count
                if 2 <= kind < MAX_N:
                    n_long += feats[f].count
            # the rows in first-occurrence order, each entry's product added as bincount adds it
            for f in range(nf):
                r = feats[f].row
                if r < 0:
                    continue
                known += 1
                mult = <double> feats[f].count
                kind = feats[f].kind
                longm = mult if 2 <= kind < MAX_N else 0.0
                if self.dense_of[r] >= 0:
                    self.add_dense(&scores[0], &seen[0], self.dense + self.dense_of[r] * self.n_classes, mult, longm)
                    continue
                start, end = self.indptr[r], self.indptr[r + 1]
                for j in range(<size_t> start, <size_t> end):
                    scores[self.entries[j].lang] += self.entries[j].delta * mult
                    seen[self.entries[j].lang] += longm
            return n_all, n_long, known
        finally:
            free(feats)
            free(table)

    cdef inline void add_dense(self, double *scores, double *seen, const double *row, double mult,
                               double longm) noexcept nogil:
        cdef int l, n = self.n_classes  # a local bound: the loops vectorise
        for l in range(n):
            scores[l] += row[l] * mult
        if longm != 0.0:
            for l in range(n):
                seen[l] += longm if row[l] > 0.0 else 0.0

    cdef inline size_t add(self, Feature *feats, int64_t *table, size_t tsize, size_t nf,
                           Py_UCS4 *chars, Py_ssize_t at, int n, int kind) noexcept nogil:
        cdef uint64_t h = SEED
        cdef int k
        for k in range(n):
            h = step(h, chars[at + k])
        return self.add_hash(feats, table, tsize, nf, mix(h ^ <uint64_t> n), kind)

    cdef inline size_t add_hash(self, Feature *feats, int64_t *table, size_t tsize, size_t nf,
                                uint64_t h, int kind) noexcept nogil:
        cdef size_t slot
        cdef int64_t at
        h |= 1
        slot = h & (tsize - 1)
        while True:
            at = table[slot]
            if at < 0:
                table[slot] = <int64_t> nf
                feats[nf].hash = h
                feats[nf].count = 1
                feats[nf].kind = kind
                feats[nf].row = -1  # looked up once all are known (see evidence)
                TRAWL_PREFETCH(&self.slots[h & self.mask])
                return nf + 1
            if feats[at].hash == h:
                feats[at].count += 1
                return nf
            slot = (slot + 1) & (tsize - 1)


# -- the broad model (py3langid's byte n-gram automaton) ------------------------------------------

from libc.math cimport INFINITY, NAN, log1p, ldexpf
from libc.stdint cimport uint16_t, uint32_t


cdef union Bits:
    uint32_t u
    float f


cdef inline float half_to_float(uint16_t h) noexcept nogil:
    """IEEE 754 binary16 → binary32 (exact: every half is a float); normal numbers by moving
    the bits (rebias the exponent by 127 - 15), the rest by arithmetic."""
    cdef uint32_t exp = (h >> 10) & 0x1F
    cdef Bits b
    cdef float v
    if 0 < exp < 31:
        b.u = ((<uint32_t> (h & 0x8000)) << 16) | ((exp + 112) << 23) | ((<uint32_t> (h & 0x3FF)) << 13)
        return b.f
    if exp == 0:
        v = ldexpf(<float> (h & 0x3FF), -24)  # zero or subnormal
    else:
        v = INFINITY if (h & 0x3FF) == 0 else NAN
    return -v if h & 0x8000 else v


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* dst[j] += w * row[j] over n binary16 values: with the F16C and AVX instructions when the
       processor has them (8 at a time), else one at a time; the products and sums are the same
       single-precision operations either way (no fused multiply-add), so the results are too. */
    static float trawl_half_to_float(uint16_t h) {
        uint32_t exp = (h >> 10) & 0x1F, bits;
        float v;
        if (exp > 0 && exp < 31) {
            bits = ((uint32_t)(h & 0x8000) << 16) | ((exp + 112) << 23) | ((uint32_t)(h & 0x3FF) << 13);
            memcpy(&v, &bits, 4);
            return v;
        }
        if (exp == 0) v = ldexpf((float)(h & 0x3FF), -24);
        else v = (h & 0x3FF) == 0 ? INFINITY : NAN;
        return (h & 0x8000) ? -v : v;
    }
    static void trawl_add_row_generic(float *dst, const uint16_t *row, float w, Py_ssize_t n) {
        for (Py_ssize_t j = 0; j < n; j++) dst[j] += w * trawl_half_to_float(row[j]);
    }
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #include <immintrin.h>
    __attribute__((target("avx,f16c")))
    static void trawl_add_row_f16c(float *dst, const uint16_t *row, float w, Py_ssize_t n) {
        Py_ssize_t j = 0;
        __m256 wv = _mm256_set1_ps(w);
        for (; j + 8 <= n; j += 8) {
            __m256 h = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + j)));
            _mm256_storeu_ps(dst + j, _mm256_add_ps(_mm256_loadu_ps(dst + j), _mm256_mul_ps(wv, h)));
        }
        for (; j < n; j++) dst[j] += w * trawl_half_to_float(row[j]);
    }
    static int trawl_has_f16c(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
    }
    #else
    static void trawl_add_row_f16c(float *dst, const uint16_t *row, float w, Py_ssize_t n) {
        trawl_add_row_generic(dst, row, w, n);
    }
    static int trawl_has_f16c(void) { return 0; }
    #endif
    """
    void trawl_add_row_generic(float *dst, const uint16_t *row, float w, Py_ssize_t n) nogil
    void trawl_add_row_f16c(float *dst, const uint16_t *row, float w, Py_ssize_t n) nogil
    int trawl_has_f16c() nogil


import os as _os

#: whether the half-precision rows are added with F16C (TRAWL_NO_F16C=1: the portable loop, for
#: the tests that both give the same numbers)
cdef bint HAS_F16C = trawl_has_f16c() != 0 and not _os.environ.get("TRAWL_NO_F16C")


cdef inline void add_row(float *dst, const uint16_t *row, float w, Py_ssize_t n) noexcept nogil:
    if HAS_F16C:
        trawl_add_row_f16c(dst, row, w, n)
    else:
        trawl_add_row_generic(dst, row, w, n)


def has_f16c():
    """Whether the walker adds the model's half-precision rows with the F16C instructions."""
    return bool(HAS_F16C)


cdef class Walker:
    """py3langid's ``_raw_score`` (without the class prior) in C: the text's bytes walk the
    model's automaton, each state that ends a feature counts it, and the scores are
    ``Σ log1p(count) · P(feature | class)`` over the distinct features (float32 sums, as
    py3langid's float32 matrix product; the order of the additions differs, so the last bits
    may). The arrays are py3langid's own (pinned release; :mod:`trawl.langid.broad`)."""

    cdef const uint32_t[::1] nextmove
    cdef const int64_t[::1] rowbase
    cdef const int32_t[::1] output
    cdef const uint16_t[:, ::1] ptc
    cdef int32_t *counts
    cdef int32_t *touched
    cdef Py_ssize_t n_features
    cdef Py_ssize_t n_classes

    def __cinit__(self):
        self.counts = NULL
        self.touched = NULL

    def __init__(self, const uint32_t[::1] nextmove, const int64_t[::1] rowbase, const int32_t[::1] output,
                 const uint16_t[:, ::1] ptc):
        self.nextmove = nextmove
        self.rowbase = rowbase
        self.output = output
        self.ptc = ptc
        self.n_features = ptc.shape[0]
        self.n_classes = ptc.shape[1]
        self.counts = <int32_t *> calloc(self.n_features, sizeof(int32_t))
        self.touched = <int32_t *> malloc(self.n_features * sizeof(int32_t))
        if self.counts == NULL or self.touched == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.counts)
        free(self.touched)

    cdef Py_ssize_t score_one(self, const unsigned char *data, Py_ssize_t n, float *out) noexcept:
        """Walk ``n`` bytes from the automaton's start and add their evidence to ``out``; the
        number of distinct features. Runs with the GIL held: ``counts`` and ``touched`` are the
        walker's own scratch, so two threads must not be in here at once (the GIL sees to it)."""
        cdef Py_ssize_t i, distinct = 0
        cdef int64_t state = 0, nstates = self.rowbase.shape[0], nmoves = self.nextmove.shape[0], at
        cdef int32_t f
        for i in range(n):
            at = self.rowbase[state] + data[i]
            if at < 0 or at >= nmoves:
                break  # not py3langid's automaton: nothing more to read
            state = self.nextmove[at]
            if state < 0 or state >= nstates:
                break
            f = self.output[state]
            if f >= 0 and f < self.n_features:
                if self.counts[f] == 0:
                    self.touched[distinct] = f
                    distinct += 1
                self.counts[f] += 1
        for i in range(distinct):
            f = self.touched[i]
            add_row(out, &self.ptc[f, 0], <float> log1p(<double> self.counts[f]), self.n_classes)
            self.counts[f] = 0
        return distinct

    def scores_many(self, const unsigned char[::1] data, const int64_t[::1] ends, float[:, ::1] out,
                    int64_t[::1] distinct_out):
        """:meth:`scores` of many texts at once: text ``i`` is ``data[ends[i-1]:ends[i]]`` (the
        first from 0), its scores are added to row ``i`` of ``out`` and its number of distinct
        features written to ``distinct_out[i]``; the automaton starts afresh for each."""
        cdef Py_ssize_t u, start = 0, end
        cdef Py_ssize_t n = ends.shape[0]
        if out.shape[0] != n or out.shape[1] != self.n_classes or distinct_out.shape[0] != n:
            raise ValueError("out and distinct_out need a row for each text, out a column for each class")
        for u in range(n):
            end = ends[u]
            if end < start or end > data.shape[0]:
                raise ValueError(f"the ends must rise within the data's {data.shape[0]} bytes, not {end}")
            distinct_out[u] = self.score_one(&data[start] if end > start else NULL, end - start, &out[u, 0])
            start = end
        return None

    def scores(self, const unsigned char[::1] data, float[::1] out):
        """Add the text's evidence to ``out`` (one float per class); the number of distinct
        features it has."""
        if out.shape[0] != self.n_classes:
            raise ValueError("out has the wrong number of classes")
        if data.shape[0] == 0:
            return 0
        return self.score_one(&data[0], data.shape[0], &out[0])


# -- the fusion (trawl.langid.identify.DefaultIdentifier.scores) ------------------------------------

from libc.math cimport exp, log, sqrt, pow, isfinite
from libc.stdint cimport uint8_t


def broad_log_probs(const float[::1] raw, double temperature, const int64_t[::1] first,
                    const int64_t[::1] more_to, const int64_t[::1] more_col, double[::1] out):
    """:meth:`trawl.langid.broad.BroadModel.log_probs` after the walk: py3langid's raw scores
    (prior included) over ``temperature``, softmax, the columns of one label added (``first``:
    each label's first column; ``more_col`` → ``more_to``: its others), normalised, logs
    (floored at 1e-300 before the log)."""
    cdef Py_ssize_t c, i, n_cols = raw.shape[0], n = out.shape[0]
    cdef double peak = -INFINITY, total = 0.0, v
    cdef double *probs = <double *> malloc(n_cols * sizeof(double))
    if probs == NULL:
        raise MemoryError()
    try:
        for c in range(n_cols):
            v = (<double> raw[c]) / temperature
            probs[c] = v
            if v > peak:
                peak = v
        for c in range(n_cols):
            probs[c] = exp(probs[c] - peak)
        for i in range(n):
            out[i] = probs[first[i]]
        for i in range(more_to.shape[0]):
            out[more_to[i]] += probs[more_col[i]]
        for i in range(n):
            total += out[i]
        for i in range(n):
            v = out[i] / total
            out[i] = log(v if v > 1e-300 else 1e-300)
    finally:
        free(probs)


def fuse(double[::1] own, double n, const double[::1] seen, double n_long, const double[::1] broad,
         const int64_t[::1] broad_pos, const uint8_t[::1] known, const uint8_t[::1] candidate,
         double[::1] out, int64_t[::1] top, double own_floor, double own_temper, double broad_floor,
         double broad_weight, double tail_odds, double gate_low, double gate_high, double shrink):
    """The fused scores of :meth:`trawl.langid.identify.DefaultIdentifier.scores` (its numpy
    version is the reference: the same operations in the same order, sums aside, so equal to
    rounding): ``own`` (trawl's log-likelihoods plus prior, ``-inf`` outside the candidates;
    overwritten), the broad model's log-probabilities ``broad`` at ``broad_pos`` in the label
    space, ``known`` (the broad model knows the label in the text's script) and ``candidate``
    (0: the score is ``-inf``) over all labels, into ``out``; the labels with the highest
    finite scores (highest first, ties by index) into ``top``. Returns the gate's weight and
    how many of ``top`` were filled."""
    cdef Py_ssize_t i, j, k, n_own = own.shape[0], n_labels = out.shape[0], n_top = top.shape[0]
    cdef Py_ssize_t n_broad = broad.shape[0], best_own = -1, filled = 0
    if (n_top < 1 or seen.shape[0] != n_own or n_own > n_labels or known.shape[0] != n_labels
            or candidate.shape[0] != n_labels or broad_pos.shape[0] != n_broad):
        raise ValueError("fuse: the arrays' shapes do not fit one another")
    for i in range(n_broad):
        if broad_pos[i] < 0 or broad_pos[i] >= n_labels:
            raise ValueError(f"fuse: broad_pos {broad_pos[i]} is outside the {n_labels} labels")
    cdef double div = pow(n if n > 1.0 else 1.0, own_temper), peak = -INFINITY, total = 0.0
    cdef double weight = 1.0, bpeak = -INFINITY, tail, top_part = -INFINITY, v, cov
    cdef bint any_own = False
    cdef double *part = <double *> malloc(n_labels * sizeof(double))
    if part == NULL:
        raise MemoryError()
    try:
        # trawl's part: tempered, normalised over the candidates, floored; -OWN_FLOOR for the
        # labels only the broad model knows
        for i in range(n_own):
            if isfinite(own[i]):
                own[i] = own[i] / div
                if not any_own or own[i] > peak:
                    peak = own[i]
                    best_own = i
                any_own = True
        if any_own:
            for i in range(n_own):
                if isfinite(own[i]):
                    own[i] -= peak
                    total += exp(own[i])
            total = log(total)
            for i in range(n_own):
                if isfinite(own[i]):
                    v = own[i] - total
                    part[i] = v if v > -own_floor else -own_floor
                else:
                    part[i] = -INFINITY
            if n_long:
                cov = seen[best_own] / n_long
                weight = (cov - gate_low) / (gate_high - gate_low)
                weight = 1.0 if weight > 1.0 else (0.0 if weight < 0.0 else weight)
        else:
            for i in range(n_own):
                part[i] = -INFINITY
        for i in range(n_own, n_labels):
            part[i] = -own_floor
        for i in range(n_labels):
            if not candidate[i]:
                part[i] = -INFINITY
        # the broad model's support: its floored log-probability, the tail's for the rest
        for i in range(n_broad):
            if broad[i] > bpeak:
                bpeak = broad[i]
        tail = bpeak - tail_odds
        if tail < -broad_floor:
            tail = -broad_floor
        for i in range(n_labels):
            out[i] = tail
        for i in range(n_broad):
            j = broad_pos[i]
            if known[j]:
                out[j] = broad[i] if broad[i] > -broad_floor else -broad_floor
        # between languages the broad model knows, trawl's differences shrink
        if shrink != 1.0:
            for i in range(n_labels):
                if known[i] and isfinite(part[i]) and part[i] > top_part:
                    top_part = part[i]
            if isfinite(top_part):
                for i in range(n_labels):
                    if known[i] and isfinite(part[i]):
                        part[i] = shrink * part[i] + (1.0 - shrink) * top_part
        for i in range(n_labels):
            if not candidate[i] or (i < n_own and not any_own):
                out[i] = -INFINITY
            else:
                v = part[i] if part[i] > -own_floor else -own_floor
                out[i] = broad_weight * out[i] + weight * v
        # the best few, highest first, ties by index
        for i in range(n_labels):
            v = out[i]
            if not isfinite(v):
                continue
            if filled == n_top and v <= out[top[filled - 1]]:
                continue
            k = filled if filled < n_top else n_top - 1
            while k > 0 and out[top[k - 1]] < v:
                if k < n_top:
                    top[k] = top[k - 1]
                k -= 1
            top[k] = i
            if filled < n_top:
                filled += 1
        return weight, filled
    finally:
        free(part)


def viterbi(const double[:, ::1] costs, double switch_cost, int64_t[::1] path):
    """:func:`trawl.langid.passages._viterbi` (the numpy reference) in C: the cheapest label per
    unit of ``costs`` (units × labels) when a change of label costs ``switch_cost``, into
    ``path`` (ties: the lower index; staying before switching)."""
    cdef Py_ssize_t n = costs.shape[0], k = costs.shape[1], i, j, best
    cdef double switch
    if path.shape[0] != n:
        raise ValueError(f"viterbi: path has {path.shape[0]} places for {n} units")
    if n == 0 or k == 0:
        return
    cdef double *prev = <double *> malloc(k * sizeof(double))
    cdef int64_t *back = <int64_t *> malloc(n * k * sizeof(int64_t))
    if prev == NULL or back == NULL:
        free(prev)
        free(back)
        raise MemoryError()
    try:
        with nogil:
            for j in range(k):
                prev[j] = costs[0, j]
            for i in range(1, n):
                best = 0
                for j in range(1, k):
                    if prev[j] < prev[best]:
                        best = j
                switch = prev[best] + switch_cost
                for j in range(k):
                    if prev[j] <= switch:
                        back[i * k + j] = j
                        prev[j] = prev[j] + costs[i, j]
                    else:
                        back[i * k + j] = best
                        prev[j] = switch + costs[i, j]
            best = 0
            for j in range(1, k):
                if prev[j] < prev[best]:
                    best = j
            path[n - 1] = best
            for i in range(n - 1, 0, -1):
                path[i - 1] = back[i * k + path[i]]
    finally:
        free(prev)
        free(back)
