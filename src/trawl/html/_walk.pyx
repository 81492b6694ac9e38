# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled block walk of :func:`trawl.html.blocks.parse_blocks` (optional fast path).

It reads the DOM that selectolax's lexbor parser built, through lexbor's own node structs, and
produces the same text blocks and block elements as the pure-Python walk, in one C pass per
page: no Python object per node, no marker text nodes. The Python walk stays the reference (and the
path used where this extension was not built); ``tests/extract/test_walk.py`` checks both give
identical pages on real documents.

Only the leading fields of ``lxb_dom_node_t`` and ``lxb_dom_character_data_t`` are read, as
selectolax's ``lexbor.pxd`` declares them; attributes are read through lexbor's exported
non-inline accessors, whose addresses :func:`init` receives (from ``ctypes``). ``blocks.py``
checks the layout on a probe document before it uses this module.
"""

__all__ = [
    "boiler_hits", "build_tree", "cut_no_text", "cut_no_text_str", "element_columns", "first_occurrences", "forest_masks",
    "forest_raw", "guard_markup", "anchors", "hidden_sizes", "hint_bits_ascii", "init", "init_boiler", "init_hints", "init_links", "init_meta", "node_attr",
    "init_tree", "kept_once", "meta_candidates", "meta_first_link", "meta_text", "page_columns", "stage1_fill",
    "stage2_fill", "strip_attributes", "style_hidden", "walk",
]

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memchr, memcmp, memcpy, memmove, memset, strlen
from libc.stddef cimport wchar_t

cdef extern from "<wchar.h>" nogil:
    const wchar_t *wmemchr(const wchar_t *s, wchar_t c, size_t n)
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.unicode cimport (
    Py_UNICODE_ISALNUM, PyUnicode_1BYTE_KIND, PyUnicode_2BYTE_KIND, PyUnicode_AsUTF8AndSize, PyUnicode_DATA,
    PyUnicode_DecodeUTF8, PyUnicode_GET_LENGTH, PyUnicode_KIND,
)

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object o)


cdef struct lexbor_str_t:
    unsigned char *data
    size_t length


cdef struct lxb_dom_node_t:
    void *events
    uintptr_t local_name
    uintptr_t prefix
    uintptr_t ns
    void *owner_document
    lxb_dom_node_t *next
    lxb_dom_node_t *prev
    lxb_dom_node_t *parent
    lxb_dom_node_t *first_child
    lxb_dom_node_t *last_child
    void *user
    int type


cdef struct lxb_dom_character_data_t:
    lxb_dom_node_t node
    lexbor_str_t data


ctypedef void *(*first_attr_f)(void *element) noexcept nogil
ctypedef void *(*next_attr_f)(void *attr) noexcept nogil
ctypedef const unsigned char *(*attr_str_f)(void *attr, size_t *length) noexcept nogil

cdef first_attr_f _first_attr = NULL
cdef next_attr_f _next_attr = NULL
cdef attr_str_f _attr_name = NULL
cdef attr_str_f _attr_value = NULL

DEF N_TAGS = 512  # table size: lexbor's static tag ids are below this; others are custom tags

cdef unsigned char _kind[N_TAGS]  # 0 other, 1 block, 2 invisible, 3 anchor, 4 break, 5 noscript
cdef int _tag_index[N_TAGS]  # index into the tag name table for block tags
cdef long _semantic[N_TAGS]
cdef long _group[N_TAGS]  # ANCESTOR_GROUPS bit + 1 (0: none), for block tags
cdef bint _ready = False

DEF K_OTHER = 0
DEF K_BLOCK = 1
DEF K_INVISIBLE = 2
DEF K_ANCHOR = 3
DEF K_BREAK = 4
DEF K_NOSCRIPT = 5

DEF T_ELEMENT = 1
DEF T_TEXT = 3

# Attribute flags found on one element.
DEF A_HIDDEN = 1  # hidden, aria-hidden="true"
DEF A_STYLE = 2  # has a style attribute (checked by the caller's regex)


def init(
    size_t first_attr, size_t next_attr, size_t attr_name, size_t attr_value,
    dict kinds, dict block_index, dict semantic, dict groups,
):
    """Set lexbor's accessor addresses and the per-tag-id tables (``tag id -> value``)."""
    global _first_attr, _next_attr, _attr_name, _attr_value, _ready
    _first_attr = <first_attr_f> first_attr
    _next_attr = <next_attr_f> next_attr
    _attr_name = <attr_str_f> attr_name
    _attr_value = <attr_str_f> attr_value
    cdef int i
    for i in range(N_TAGS):
        _kind[i] = 0
        _tag_index[i] = -1
        _semantic[i] = 0
        _group[i] = 0
    for k, v in kinds.items():
        if 0 <= k < N_TAGS:
            _kind[k] = v
    for k, v in block_index.items():
        if 0 <= k < N_TAGS:
            _tag_index[k] = v
    for k, v in semantic.items():
        if 0 <= k < N_TAGS:
            _semantic[k] = v
    for k, v in groups.items():
        if 0 <= k < N_TAGS:
            _group[k] = v + 1
    _ready = True


cdef inline int kind_of(lxb_dom_node_t *node) noexcept nogil:
    if node.local_name < N_TAGS:
        return _kind[node.local_name]
    return K_OTHER


cdef inline bint name_is(const unsigned char *name, size_t length, const char *want, size_t n) noexcept nogil:
    return length == n and memcmp(name, want, n) == 0


cdef int attr_flags(lxb_dom_node_t *node, const unsigned char **style, size_t *style_len) noexcept nogil:
    """Hidden-related attributes of an element: A_HIDDEN, A_STYLE (value in ``style``)."""
    cdef bint lite = is_lite(node)
    cdef void *attr = first_attr(node, lite)
    cdef const unsigned char *name
    cdef const unsigned char *value
    cdef size_t length = 0, vlen = 0
    cdef int flags = 0
    while attr != NULL:
        name = attr_name(attr, &length, lite)
        if name != NULL:
            if name_is(name, length, b"hidden", 6):
                flags |= A_HIDDEN
            elif name_is(name, length, b"aria-hidden", 11):
                value = attr_value(attr, &vlen, lite)
                if value != NULL and name_is(value, vlen, b"true", 4):
                    flags |= A_HIDDEN
            elif name_is(name, length, b"style", 5):
                value = attr_value(attr, &vlen, lite)
                if value != NULL and vlen:
                    flags |= A_STYLE
                    style[0] = value
                    style_len[0] = vlen
        attr = next_attr(attr, lite)
    return flags


cdef unsigned char _ascii_space[128]  # the ASCII whitespace str.split sees: \t-\r, \x1c-\x1f, space
for _sp in range(128):
    _ascii_space[_sp] = _sp == 32 or 9 <= _sp <= 13 or 28 <= _sp <= 31


cdef inline int ws_len(const unsigned char *p, size_t i, size_t n) noexcept nogil:
    """Byte length of the whitespace character (as ``str.split`` sees it) at ``p[i]``, else 0."""
    cdef unsigned char c = p[i], c1, c2
    if c < 0x80:
        return 1 if (c == 32 or (9 <= c <= 13) or (28 <= c <= 31)) else 0
    if c == 0xC2 and i + 1 < n:
        c1 = p[i + 1]
        return 2 if (c1 == 0x85 or c1 == 0xA0) else 0
    if i + 2 >= n:
        return 0
    c1 = p[i + 1]
    c2 = p[i + 2]
    if c == 0xE1:
        return 3 if (c1 == 0x9A and c2 == 0x80) else 0
    if c == 0xE2:
        if c1 == 0x80:
            return 3 if (c2 <= 0x8A or c2 == 0xA8 or c2 == 0xA9 or c2 == 0xAF) and c2 >= 0x80 else 0
        return 3 if (c1 == 0x81 and c2 == 0x9F) else 0
    if c == 0xE3:
        return 3 if (c1 == 0x80 and c2 == 0x80) else 0
    return 0


cdef size_t count_words(const unsigned char *p, size_t n) noexcept nogil:
    cdef size_t i = 0, words = 0
    cdef int w
    cdef bint in_word = False
    while i < n:
        w = ws_len(p, i, n)
        if w:
            in_word = False
            i += w
        else:
            if not in_word:
                words += 1
                in_word = True
            i += 1
    return words


# --------------------------------------------------------------------------- class/id hints
# The keyword trie of blocks.hint_bits, for names that are all ASCII (others go to Python): at each
# position the deepest keyword that matches (with its suffix rule) wins, and matching resumes
# after it, as ``re.findall`` with blocks' prefix-factored pattern does.

DEF END_NONE = 0
DEF END_PLAIN = 1
DEF END_POST = 2  # optional "-digit" or "digit"; with it, the suffix bits
DEF END_TAG = 3  # optional "s", then a word boundary
DEF END_BOUNDARY = 4  # a word boundary

cdef struct Trie:
    int *next  # node * width + cls[byte] -> child node (0: none; the root is node 0)
    int width  # 1 + the number of distinct bytes in the keywords
    unsigned char cls[256]  # byte -> its column (0: in no keyword, a column of zeros)
    unsigned char *kind  # END_* of the keyword ending at a node
    long *bits  # its bits
    long *suffix  # its bits when its suffix rule took a suffix


cdef Trie _hint_trie
cdef Trie _boiler_trie
cdef long _ad_bit = 0
DEF HINT_NAME_CHARS = 400


cdef void trie_free(Trie *t) noexcept:
    free(t.next)
    free(t.kind)
    free(t.bits)
    free(t.suffix)
    t.next = NULL
    t.kind = NULL
    t.bits = NULL
    t.suffix = NULL


cdef int trie_build(Trie *t, list keywords) except -1:
    """``keywords``: ``[(keyword bytes, end kind, bits, suffix bits)]``."""
    cdef int n = 1 + sum(len(k) for k, _, _, _ in keywords)
    cdef int node, nxt, count = 1, width = 1
    trie_free(t)
    # Columns only for the bytes the keywords use: a table of 256 columns a node is ~1 MB for the
    # hint keywords, walked at random; with ~30 it stays in the cache.
    memset(t.cls, 0, 256)
    for word, _, _, _ in keywords:
        for c in <bytes> word:
            if t.cls[c] == 0:
                t.cls[c] = width
                width += 1
    t.width = width
    t.next = <int *> calloc(n * width, sizeof(int))
    t.kind = <unsigned char *> calloc(n, 1)
    t.bits = <long *> calloc(n, sizeof(long))
    t.suffix = <long *> calloc(n, sizeof(long))
    if t.next == NULL or t.kind == NULL or t.bits == NULL or t.suffix == NULL:
        trie_free(t)
        raise MemoryError()
    for word, kind, plain, suffix in keywords:
        node = 0
        for c in <bytes> word:
            nxt = t.next[node * width + t.cls[c]]
            if nxt == 0:
                nxt = count
                count += 1
                t.next[node * width + t.cls[c]] = nxt
            node = nxt
        t.kind[node] = kind
        t.bits[node] = plain
        t.suffix[node] = suffix
    return 0


def init_hints(list keywords, long ad_bit):
    """The class/id keyword trie: ``keywords`` is ``[(ascii keyword, end kind, plain bits, suffix
    bits)]`` (end kinds: 1 plain, 2 post-like, 3 tag-like, 4 boundary); ``ad_bit`` is set by the
    whole-word "ad"/"ads" rule."""
    global _ad_bit
    for word, _, _, _ in keywords:
        if not (<bytes> word).isascii():
            raise ValueError(f"hint keyword {word!r} is not ASCII")
    trie_build(&_hint_trie, keywords)
    _ad_bit = ad_bit


cdef inline bint is_word_char(unsigned char c) noexcept nogil:
    return (b'a' <= c <= b'z') or (b'0' <= c <= b'9') or c == b'_' or (b'A' <= c <= b'Z')


cdef inline bint boundary(const unsigned char *w, size_t k, size_t n) noexcept nogil:
    """``\\b`` after ``w[k - 1]`` (a word character in every keyword)."""
    return k >= n or not is_word_char(w[k])


cdef inline bint is_digit(unsigned char c) noexcept nogil:
    return b'0' <= c <= b'9'


cdef inline bint is_non_word_sep(unsigned char c) noexcept nogil:
    return c == b'-' or c == b'_' or c == b'.' or c == b':' or c == b'/' or c == b'#' or c == b'[' \
        or c == b']' or c == b'(' or c == b')'


cdef long word_bits(const unsigned char *w, size_t n) noexcept nogil:
    """Hint bits of one lower-cased ASCII word (blocks._word_hint_bits)."""
    cdef long bits = 0, best_bits
    cdef size_t i = 0, j, best_len, start
    cdef int node, nxt, kind
    cdef unsigned char c
    cdef bint has_ad = False
    while i < n:
        node = 0
        best_len = 0
        best_bits = 0
        j = i
        while j < n:
            nxt = _hint_trie.next[node * _hint_trie.width + _hint_trie.cls[w[j]]]
            if nxt == 0:
                break
            node = nxt
            j += 1
            kind = _hint_trie.kind[node]
            if kind == END_PLAIN:
                best_len = j - i
                best_bits = _hint_trie.bits[node]
            elif kind == END_POST:
                if j < n and is_digit(w[j]):
                    best_len = j - i + 1
                    best_bits = _hint_trie.suffix[node]
                elif j + 1 < n and w[j] == b'-' and is_digit(w[j + 1]):
                    best_len = j - i + 2
                    best_bits = _hint_trie.suffix[node]
                else:
                    best_len = j - i
                    best_bits = _hint_trie.bits[node]
            elif kind == END_TAG:
                if j < n and w[j] == b's' and boundary(w, j + 1, n):
                    best_len = j - i + 1
                    best_bits = _hint_trie.suffix[node]
                elif boundary(w, j, n):
                    best_len = j - i
                    best_bits = _hint_trie.suffix[node]
            elif kind == END_BOUNDARY:
                if boundary(w, j, n):
                    best_len = j - i
                    best_bits = _hint_trie.suffix[node]
        if best_len:
            bits |= best_bits
            i += best_len
        else:
            i += 1
    # Whole-word "ad" / "ads" among the word's pieces ("top-ad", "ads_box").
    for i in range(n - 1 if n else 0):
        if w[i] == b'a' and w[i + 1] == b'd':
            has_ad = True
            break
    if has_ad:
        i = 0
        while i < n:
            while i < n and is_non_word_sep(w[i]):
                i += 1
            start = i
            while i < n and not is_non_word_sep(w[i]):
                i += 1
            if (i - start == 2 and w[start] == b'a' and w[start + 1] == b'd') or (
                i - start == 3 and w[start] == b'a' and w[start + 1] == b'd' and w[start + 2] == b's'
            ):
                bits |= _ad_bit
                break
    return bits


cdef inline bint ascii_space(unsigned char c) noexcept nogil:
    return c == 32 or (9 <= c <= 13) or (28 <= c <= 31)


cdef long names_bits(unsigned char *p, size_t n) noexcept nogil:
    """Hint bits of an ASCII class/id/role string (lower-cased here, in place)."""
    cdef long bits = 0
    cdef size_t i = 0, start
    if n > HINT_NAME_CHARS:
        n = HINT_NAME_CHARS
    for i in range(n):
        if b'A' <= p[i] <= b'Z':
            p[i] = p[i] + 32
    i = 0
    while i < n:
        while i < n and ascii_space(p[i]):
            i += 1
        start = i
        while i < n and not ascii_space(p[i]):
            i += 1
        if i > start:
            bits |= word_bits(p + start, i - start)
    return bits


def hint_bits_ascii(bytes names):
    """The hint bits of an ASCII class/id/role string, computed here (for tests: they must
    equal blocks.hint_bits); None when it is not ASCII."""
    cdef bytearray buf = bytearray(names)
    cdef unsigned char *p = <unsigned char *> (<char *> buf)
    cdef size_t i
    if _hint_trie.next == NULL:
        raise RuntimeError("trawl.html._walk.init_hints was not called")
    for i in range(len(buf)):
        if p[i] >= 128:
            return None
    return names_bits(p, len(buf))


cdef struct Buf:
    unsigned char *data
    size_t length
    size_t size


cdef int buf_add(Buf *b, const unsigned char *src, size_t n) except -1:
    cdef size_t want = b.length + n
    cdef unsigned char *grown
    if want > b.size:
        if want < 2 * b.size:
            want = 2 * b.size
        if want < 4096:
            want = 4096
        grown = <unsigned char *> realloc(b.data, want)
        if grown == NULL:
            raise MemoryError()
        b.data = grown
        b.size = want
    memcpy(b.data + b.length, src, n)
    b.length += n
    return 0


cdef size_t text_chars(lxb_dom_character_data_t *text) noexcept nogil:
    """Characters (not bytes) of a text node's UTF-8 data."""
    cdef size_t i, n = 0
    cdef const unsigned char *p = text.data.data
    if p == NULL:
        return 0
    for i in range(text.data.length):
        if (p[i] & 0xC0) != 0x80:
            n += 1
    return n


cdef struct LongVec:
    int64_t *data
    size_t length
    size_t size


cdef int vec_push(LongVec *v, int64_t x) except -1:
    cdef size_t want
    cdef int64_t *grown
    if v.length == v.size:
        want = 2 * v.size if v.size else 256
        grown = <int64_t *> realloc(v.data, want * sizeof(int64_t))
        if grown == NULL:
            raise MemoryError()
        v.data = grown
        v.size = want
    v.data[v.length] = x
    v.length += 1
    return 0


cdef bytes vec_bytes(LongVec *v):
    """The column as native int64 bytes (read with ``numpy.frombuffer``)."""
    if v.length == 0:
        return b""
    return PyBytes_FromStringAndSize(<const char *> v.data, v.length * sizeof(int64_t))


# A page repeats its class strings ("menu-item menu-item-type-post_type ..." on every menu entry):
# their hint bits are kept per page in an open-addressing table, keyed by the string's bytes.

cdef struct NameSlot:
    uint64_t hash  # 0: an empty slot
    size_t at  # where the key starts in ``keys``
    size_t length
    long bits


cdef struct NameCache:
    NameSlot *slots
    size_t size, count
    Buf keys


cdef void name_cache_free(NameCache *c) noexcept:
    free(c.slots)
    free(c.keys.data)
    c.slots = NULL
    c.size = c.count = 0
    c.keys.data = NULL
    c.keys.length = c.keys.size = 0


cdef inline uint64_t fnv1a(const unsigned char *p, size_t n) noexcept nogil:
    cdef uint64_t h = 14695981039346656037ULL
    cdef size_t i
    for i in range(n):
        h = (h ^ p[i]) * 1099511628211ULL
    return h | 1  # never 0


cdef int name_cache_grow(NameCache *c) except -1:
    cdef size_t size = 2 * c.size if c.size else 1024, i, j
    cdef NameSlot *slots = <NameSlot *> calloc(size, sizeof(NameSlot))
    if slots == NULL:
        raise MemoryError()
    for i in range(c.size):
        if c.slots[i].hash:
            j = c.slots[i].hash & (size - 1)
            while slots[j].hash:
                j = (j + 1) & (size - 1)
            slots[j] = c.slots[i]
    free(c.slots)
    c.slots, c.size = slots, size
    return 0


cdef long cached_names_bits(NameCache *c, unsigned char *p, size_t n) except -1:
    """:func:`names_bits` of ``p[:n]`` (which it lower-cases in place), from the page's table
    when the same string came before."""
    cdef uint64_t h = fnv1a(p, n)
    cdef size_t j
    cdef NameSlot *slot
    if 2 * (c.count + 1) > c.size:
        name_cache_grow(c)
    j = h & (c.size - 1)
    while c.slots[j].hash:
        slot = &c.slots[j]
        if slot.hash == h and slot.length == n and memcmp(c.keys.data + slot.at, p, n) == 0:
            return slot.bits
        j = (j + 1) & (c.size - 1)
    slot = &c.slots[j]
    slot.hash, slot.at, slot.length = h, c.keys.length, n
    buf_add(&c.keys, p, n)  # before names_bits lower-cases it
    slot.bits = names_bits(p, n)
    c.count += 1
    return slot.bits


cdef class _Walk:
    """The state of one page's walk; :func:`walk` drives it."""

    cdef Buf seg, out, link, names
    cdef bint in_link
    cdef list texts
    cdef LongVec b_words, b_links, b_element
    cdef NameCache seen  # the hint bits of the ASCII names met so far on this page

    # (C fields start zeroed: empty buffers.)

    def __dealloc__(self):
        free(self.seg.data)
        free(self.out.data)
        free(self.link.data)
        free(self.names.data)
        name_cache_free(&self.seen)
        free(self.b_words.data)
        free(self.b_links.data)
        free(self.b_element.data)

    cdef long element_hints(self, lxb_dom_node_t *node, dict cache, object py_hint_bits) except -1:
        """Hint bits of ``class [id] [role]``: in C when ASCII, else by ``py_hint_bits`` (cached)."""
        cdef bint lite = is_lite(node)
        cdef void *attr = first_attr(node, lite)
        cdef const unsigned char *name
        cdef const unsigned char *value
        cdef const unsigned char *cls = NULL
        cdef const unsigned char *ident = NULL
        cdef const unsigned char *role = NULL
        cdef size_t length = 0, vlen = 0, cls_len = 0, ident_len = 0, role_len = 0, i
        cdef unsigned char space = 32
        cdef bint ascii = True
        while attr != NULL:
            name = attr_name(attr, &length, lite)
            if name != NULL and 2 <= length <= 5:
                if name_is(name, length, b"class", 5):
                    cls = attr_value(attr, &cls_len, lite)
                elif name_is(name, length, b"id", 2):
                    ident = attr_value(attr, &ident_len, lite)
                elif name_is(name, length, b"role", 4):
                    role = attr_value(attr, &role_len, lite)
            attr = next_attr(attr, lite)
        self.names.length = 0
        if cls != NULL and cls_len:
            buf_add(&self.names, cls, cls_len)
        if ident != NULL and ident_len:
            buf_add(&self.names, &space, 1)
            buf_add(&self.names, ident, ident_len)
        if role != NULL and role_len:
            buf_add(&self.names, &space, 1)
            buf_add(&self.names, role, role_len)
        if not self.names.length:
            return 0
        for i in range(self.names.length):
            if self.names.data[i] >= 128:
                ascii = False
                break
        if ascii:
            return cached_names_bits(&self.seen, self.names.data, self.names.length)
        text = PyUnicode_DecodeUTF8(<const char *> self.names.data, self.names.length, "replace")
        cached = cache.get(text)
        return <long> (py_hint_bits(text) if cached is None else cached)

    cdef int flush(self, long element) except -1:
        """The text gathered since the last block boundary becomes a block of ``element``."""
        cdef size_t i = 0, n = self.seg.length, words = 0, links, k = 0
        cdef int w
        cdef unsigned char c
        cdef bint in_word = False
        cdef const unsigned char *p = self.seg.data
        cdef unsigned char *o
        self.in_link = False
        if n == 0:
            self.link.length = 0
            return 0
        # Whitespace runs collapsed to one space, none at the ends: one pass, byte by byte (an
        # ASCII byte by a table; ws_len for the others, whose spaces take two or three bytes).
        self.out.length = 0
        buf_reserve(&self.out, n)
        o = self.out.data
        while i < n:
            c = p[i]
            if c < 0x80:
                if _ascii_space[c]:
                    in_word = False
                    i += 1
                    continue
            else:
                w = ws_len(p, i, n)
                if w:
                    in_word = False
                    i += w
                    continue
            if not in_word:
                if words:
                    o[k] = 32
                    k += 1
                words += 1
                in_word = True
            o[k] = c
            k += 1
            i += 1
        self.out.length = k
        self.seg.length = 0
        if words:
            links = count_words(self.link.data, self.link.length) if self.link.length else 0
            self.texts.append(PyUnicode_DecodeUTF8(<const char *> self.out.data, self.out.length, "replace"))
            vec_push(&self.b_words, words)
            vec_push(&self.b_links, links if links < words else words)
            vec_push(&self.b_element, element)
        self.link.length = 0
        return 0


# --------------------------------------------------------------------------- the tree walk
# One cursor serves both passes: it turns the subtree under a root into events in document order
# (an element entered, a text node, an element left); after entering an element the caller may
# skip its subtree, which is then never left.

DEF EV_END = 0
DEF EV_ENTER = 1
DEF EV_LEAVE = 2
DEF EV_TEXT = 3

DEF CUR_START = 0
DEF CUR_ENTERED = 1  # the last event entered ``node``: its children come next
DEF CUR_DONE = 2  # ``node`` is finished: its next sibling (or its parent's leaving) comes next
DEF CUR_FINISHED = 3


cdef struct Cursor:
    lxb_dom_node_t *root
    lxb_dom_node_t *node
    int state


cdef inline void cursor_init(Cursor *c, lxb_dom_node_t *root) noexcept nogil:
    c.root = root
    c.node = NULL
    c.state = CUR_START


cdef inline void cursor_skip(Cursor *c) noexcept nogil:
    """After EV_ENTER: do not walk this element's subtree (nor report leaving it)."""
    c.state = CUR_DONE


cdef int cursor_next(Cursor *c) noexcept nogil:
    """The next event; ``c.node`` is the node it is about."""
    cdef lxb_dom_node_t *n
    while True:
        if c.state == CUR_FINISHED:
            return EV_END
        if c.state == CUR_START:
            n = c.root.first_child
        elif c.state == CUR_ENTERED:
            n = c.node.first_child
            if n == NULL:
                c.state = CUR_DONE
                return EV_LEAVE  # a childless element is left at once
        else:
            n = c.node.next
            if n == NULL:
                c.node = c.node.parent
                if c.node == c.root or c.node == NULL:
                    c.state = CUR_FINISHED
                    return EV_END
                return EV_LEAVE
        if n == NULL:  # an empty root
            c.state = CUR_FINISHED
            return EV_END
        c.node = n
        if n.type == T_ELEMENT:
            c.state = CUR_ENTERED
            return EV_ENTER
        c.state = CUR_DONE
        if n.type == T_TEXT:
            return EV_TEXT
        # Comments, processing instructions: nothing to say; on to the next node.


cdef inline bint style_space(unsigned char c) noexcept nogil:
    """ASCII characters that Python's ``\\s`` matches in a str pattern (\\x1c-\\x1f included)."""
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


cdef bint style_decl(const unsigned char *p, size_t i, size_t n, const char *prop, size_t m,
                     const char *value, size_t v) noexcept nogil:
    """Whether ``prop\\s*:\\s*value`` starts at ``p[i]`` (ASCII case ignored)."""
    cdef size_t j
    if i + m > n:
        return False
    for j in range(m):
        if lower(p[i + j]) != <unsigned char> prop[j]:
            return False
    i += m
    while i < n and style_space(p[i]):
        i += 1
    if i >= n or p[i] != 58:  # ':'
        return False
    i += 1
    while i < n and style_space(p[i]):
        i += 1
    if i + v > n:
        return False
    for j in range(v):
        if lower(p[i + j]) != <unsigned char> value[j]:
            return False
    return True


cdef int style_hides(const unsigned char *p, size_t n) noexcept nogil:
    """``blocks._HIDDEN_STYLE`` on an ASCII inline style: 1 it hides, 0 not, -1 not ASCII (the
    caller asks the regex, whose case folding and spaces are Unicode's)."""
    cdef size_t i
    for i in range(n):
        if p[i] >= 128:
            return -1
    for i in range(n):
        if (p[i] | 32) == 100 and style_decl(p, i, n, b"display", 7, b"none", 4):  # 'd'
            return 1
        if (p[i] | 32) == 118 and style_decl(p, i, n, b"visibility", 10, b"hidden", 6):  # 'v'
            return 1
    return 0


def style_hidden(bytes style):
    """:func:`style_hides` for tests: True, False, or None (not ASCII)."""
    cdef int r = style_hides(<const unsigned char *> style, len(style))
    return None if r < 0 else r == 1


def hidden_sizes(size_t root_id, object is_hidden_style, bint attributes=True):
    """Pass 1: the visible characters of the page and of each hidden-looking element.

    Returns ``(total, [(node id, characters), ...])`` in document order; invisible elements
    (scripts, media fallbacks, form controls) count nothing. Hidden-looking: ``<noscript>``, and
    when ``attributes``, ``hidden``, ``aria-hidden="true"`` or an inline style that
    ``is_hidden_style(str) -> bool`` judges hidden.
    """
    cdef Cursor cur
    cdef lxb_dom_node_t *node
    cdef size_t total = 0
    cdef int ev, kind, flags, hidden
    cdef const unsigned char *style = NULL
    cdef size_t style_len = 0
    cdef list open_ids = []  # candidates entered and not yet left: (node id, count at entry, slot)
    cdef list found = []
    cdef bint candidate
    if not _ready:
        raise RuntimeError("trawl.html._walk.init was not called")
    cursor_init(&cur, <lxb_dom_node_t *> root_id)
    while True:
        ev = cursor_next(&cur)
        if ev == EV_END:
            break
        node = cur.node
        if ev == EV_TEXT:
            total += text_chars(<lxb_dom_character_data_t *> node)
        elif ev == EV_ENTER:
            kind = kind_of(node)
            if kind == K_INVISIBLE:
                cursor_skip(&cur)
                continue
            candidate = kind == K_NOSCRIPT
            if not candidate and attributes:
                flags = attr_flags(node, &style, &style_len)
                if flags & A_HIDDEN:
                    candidate = True
                elif flags & A_STYLE:
                    hidden = style_hides(style, style_len)
                    if hidden < 0:  # not ASCII: the regex decides, with its Unicode case and spaces
                        hidden = bool(
                            is_hidden_style(PyUnicode_DecodeUTF8(<const char *> style, style_len, "replace"))
                        )
                    candidate = hidden == 1
            if candidate:
                open_ids.append((<size_t> node, total, len(found)))
                found.append(None)
        elif open_ids and open_ids[len(open_ids) - 1][0] == <size_t> node:
            ident, start, at = open_ids.pop()
            found[at] = (ident, total - start)
    return total, found


# --------------------------------------------------------------------------- word lists
# Short lists of ASCII names (attributes, tags) looked up by the scanners below: a name is compared
# only with the words of its length.

DEF MAX_WORDS = 48
DEF MAX_WORD_LENGTH = 32

cdef struct WordList:
    size_t count
    const unsigned char *words[MAX_WORDS]
    int index[MAX_WORDS]  # 1 + the word's place in the list as written
    size_t first[MAX_WORD_LENGTH + 2]  # the words of length k are words[first[k]:first[k + 1]]


cdef list _word_lists_data = []  # the bytes the lists point into, kept alive


cdef int word_list(WordList *w, bytes spaced) except -1:
    """``w`` from space-separated lower-case words (at most MAX_WORDS, of MAX_WORD_LENGTH bytes)."""
    words = spaced.split()
    if len(words) > MAX_WORDS or max(map(len, words)) > MAX_WORD_LENGTH:
        raise ValueError("word list too long")
    _word_lists_data.append(words)
    order = sorted(range(len(words)), key=lambda k: len(words[k]))  # by length, stable
    cdef size_t k, length = 0
    w.count = len(words)
    for k in range(w.count):
        w.words[k] = <const unsigned char *> (<bytes> words[order[k]])
        w.index[k] = order[k] + 1
    for length in range(MAX_WORD_LENGTH + 2):
        w.first[length] = sum(1 for word in words if len(word) < length)
    return 0


cdef int word_index(const WordList *w, const unsigned char *p, size_t n, bint fold) noexcept nogil:
    """1 + the index of ``p[:n]`` in the list as written (ASCII case ignored when ``fold``),
    else 0; only the words of ``n`` bytes are compared."""
    cdef size_t k, j
    if n > MAX_WORD_LENGTH:
        return 0
    for k in range(w.first[n], w.first[n + 1]):
        j = 0
        if fold:
            while j < n and lower(p[j]) == w.words[k][j]:
                j += 1
        else:
            while j < n and p[j] == w.words[k][j]:
                j += 1
        if j == n:
            return w.index[k]
    return 0


cdef WordList _meta_attr_words  # in the order of _META_ATTRS
cdef WordList _kept_attr_words
_META_ATTR_NAMES = b"content property name itemprop type rel class datetime href lang"
word_list(&_meta_attr_words, _META_ATTR_NAMES)
_KEPT_ATTR_NAMES = (
    b"id rel role type name size face class style color hidden content property itemprop datetime encoding"
    b" aria-hidden shadowrootmode alt lang"
)
word_list(&_kept_attr_words, _KEPT_ATTR_NAMES)
# The start tags the attribute stripper acts on, in the order of the ST_ codes.
cdef WordList _strip_tag_words
word_list(
    &_strip_tag_words,
    b"script textarea title style xmp iframe noembed noframes plaintext select svg math frameset",
)
DEF ST_SCRIPT = 1  # raw text (script data)
DEF ST_TEXTAREA = 2  # raw text (RCDATA), inside a <select> too
# 3-8 (title ... noframes): raw text, except (for some parsers) inside a <select>
DEF ST_PLAINTEXT = 9  # text to the end
DEF ST_SELECT = 10
DEF ST_SVG = 11  # svg, math, frameset: the stripper stops


# --------------------------------------------------------------------------- metadata candidates
# read_metadata's elements in one C pass: lexbor's selector engine matched its ten selectors
# against every element, a fifth of a page's extraction time. meta_candidates returns a superset
# of what the selectors match (read_metadata tests each candidate's tag and attributes as before),
# with the few attributes it reads; meta_text and meta_first_link read a candidate's subtree.

cdef attr_str_f _attr_qname = NULL  # lxb_dom_attr_qualified_name: names as selectolax spells them
cdef unsigned char _meta_code[N_TAGS]  # 0, or 1 + index of the tag's name in _meta_names
cdef tuple _meta_names = ()
cdef size_t _anchor_id = 0
cdef int _meta_names_meta = -1  # the code of <meta>
cdef bint _meta_ready = False

# The attributes read_metadata reads, by qualified name (HTML attribute names are lower case).
cdef tuple _META_ATTRS = tuple(_META_ATTR_NAMES.decode().split())


def init_meta(size_t qualified_name, dict tags, size_t anchor_id):
    """lexbor's ``lxb_dom_attr_qualified_name`` address, and ``{tag id: name}`` of the elements
    wanted by tag (``meta``, ``script``, ``h1``, ``title``, ``time``; ``a`` with a ``rel``)."""
    global _attr_qname, _meta_names, _anchor_id, _meta_names_meta, _meta_ready
    _attr_qname = <attr_str_f> qualified_name
    names = []
    cdef int i
    for i in range(N_TAGS):
        _meta_code[i] = 0
    for k, v in tags.items():
        if 0 <= k < N_TAGS and len(names) < 255:
            names.append(v)
            _meta_code[k] = len(names)
    _meta_names = tuple(names)
    _meta_names_meta = names.index("meta") + 1 if "meta" in names else -1
    _anchor_id = anchor_id
    _meta_ready = True


cdef inline int meta_attr(const unsigned char *name, size_t n) noexcept nogil:
    """1 + the index of ``name`` in _META_ATTRS, else 0."""
    return word_index(&_meta_attr_words, name, n, False)


cdef bint has_part(const unsigned char *p, size_t n, const char *part, size_t m) noexcept nogil:
    """Whether ``part`` occurs in ``p[:n]`` (case-sensitive, as ``[class*=...]`` is)."""
    cdef size_t i
    if n < m:
        return False
    for i in range(n - m + 1):
        if p[i] == part[0] and memcmp(p + i, part, m) == 0:
            return True
    return False


cdef bint has_part_ascii_ci(const unsigned char *p, size_t n, const char *part, size_t m) noexcept nogil:
    """Whether lower-case ``part`` occurs in ``p[:n]``, ignoring ASCII case."""
    cdef size_t i, j
    if n < m:
        return False
    for i in range(n - m + 1):
        j = 0
        while j < m and lower(p[i + j]) == <unsigned char> part[j]:
            j += 1
        if j == m:
            return True
    return False


cdef bint meta_wanted(lxb_dom_node_t *node, int code) noexcept nogil:
    """Whether an element may match read_metadata's selectors: a superset of them (``meta`` with
    any ``content``, ``a`` with "author" anywhere in its ``rel``, every ``script``)."""
    cdef void *attr
    cdef const unsigned char *name
    cdef const unsigned char *value
    cdef size_t length = 0, vlen = 0
    cdef int which
    cdef bint anchor = code and node.local_name == _anchor_id
    cdef bint lite = is_lite(node)
    if code and not anchor and _meta_names_meta != code:  # script, h1, title, time
        return True
    attr = first_attr(node, lite)
    while attr != NULL:
        name = attr_qname(attr, &length, lite)
        if name != NULL:
            which = meta_attr(name, length)
            if which == 1 and code and not anchor:  # <meta content>
                return True
            if which == 4 or which == 6 or which == 7:
                value = attr_value(attr, &vlen, lite)
                if value != NULL:
                    if which == 4:  # [itemprop="author"], [itemprop="datePublished"]
                        if name_is(value, vlen, b"author", 6) or name_is(value, vlen, b"datePublished", 13):
                            return True
                    elif which == 6:  # a[rel~="author"] (ASCII case ignored)
                        if anchor and has_part_ascii_ci(value, vlen, b"author", 6):
                            return True
                    elif has_part(value, vlen, b"author", 6) or has_part(value, vlen, b"byline", 6):
                        return True
        attr = next_attr(attr, lite)
    return False


cdef dict meta_attrs(lxb_dom_node_t *node):
    """The element's attributes among _META_ATTRS (the first of a name, as lexbor's lookup)."""
    cdef dict out = {}
    cdef bint lite = is_lite(node)
    cdef void *attr = first_attr(node, lite)
    cdef const unsigned char *name
    cdef const unsigned char *value
    cdef size_t length = 0, vlen = 0
    cdef int which
    while attr != NULL:
        name = attr_qname(attr, &length, lite)
        if name != NULL:
            which = meta_attr(name, length)
            if which:
                key = _META_ATTRS[which - 1]
                if key not in out:
                    value = attr_value(attr, &vlen, lite)
                    out[key] = None if value == NULL else PyUnicode_DecodeUTF8(<const char *> value, vlen, "replace")
        attr = next_attr(attr, lite)
    return out


def meta_candidates(size_t root_id):
    """``[(tag, attributes, node id)]`` in document order, ``root_id`` (the ``<html>`` element)
    included: every element that lexbor's selectors of read_metadata could match. ``tag`` is the
    name for the elements wanted by tag, else ``""``; ``attributes`` holds those of _META_ATTRS
    the element has (``None`` for a name without a value, as selectolax reads it)."""
    cdef Cursor cur
    cdef lxb_dom_node_t *node = <lxb_dom_node_t *> root_id
    cdef list out = []
    cdef int code, ev
    if not (_ready and _meta_ready):
        raise RuntimeError("trawl.html._walk.init_meta was not called")
    if node == NULL or node.type != T_ELEMENT:
        return out
    cursor_init(&cur, node)
    while True:
        code = _meta_code[node.local_name] if node.local_name < N_TAGS else 0
        if meta_wanted(node, code):
            out.append((_meta_names[code - 1] if code else "", meta_attrs(node), <size_t> node))
        while True:
            ev = cursor_next(&cur)
            if ev == EV_END or ev == EV_ENTER:
                break
        if ev == EV_END:
            return out
        node = cur.node


def meta_text(size_t node_id, bytes separator=b""):
    """The text of an element's subtree, as selectolax's ``text(deep=True)`` gives it (with
    ``separator`` after each text node, as ``text(deep=True, separator=...)``)."""
    cdef Cursor cur
    cdef Buf buf
    cdef lxb_dom_character_data_t *text
    cdef int ev
    buf.data = NULL
    buf.length = buf.size = 0
    cursor_init(&cur, <lxb_dom_node_t *> node_id)
    try:
        while True:
            ev = cursor_next(&cur)
            if ev == EV_END:
                break
            if ev == EV_TEXT:
                text = <lxb_dom_character_data_t *> cur.node
                if text.data.data != NULL and text.data.length:
                    buf_add(&buf, text.data.data, text.data.length)
                    if separator:
                        buf_add(&buf, <const unsigned char *> separator, len(separator))
        if buf.length == 0:
            return ""
        return PyUnicode_DecodeUTF8(<const char *> buf.data, buf.length, "replace")
    finally:
        free(buf.data)


def meta_first_link(size_t node_id):
    """``(href, node id)`` of the first ``<a href>`` in an element's subtree, the element included
    (selectolax's ``css_first("a[href]")``), or None; ``href`` is None for the attribute without a
    value."""
    cdef Cursor cur
    cdef lxb_dom_node_t *node = <lxb_dom_node_t *> node_id
    cdef void *attr
    cdef const unsigned char *name
    cdef const unsigned char *value
    cdef size_t length = 0, vlen = 0
    cdef int ev = EV_ENTER
    cdef bint lite = is_lite(node)
    if not _meta_ready:
        raise RuntimeError("trawl.html._walk.init_meta was not called")
    cursor_init(&cur, node)
    while True:
        if ev == EV_END:
            return None
        if ev != EV_ENTER or node.local_name != _anchor_id:
            ev = cursor_next(&cur)
            node = cur.node
            continue
        ev = cursor_next(&cur)  # where to go on from, should this <a> have no href
        attr = first_attr(node, lite)
        while attr != NULL:
            name = attr_qname(attr, &length, lite)
            if name != NULL and name_is(name, length, b"href", 4):
                value = attr_value(attr, &vlen, lite)
                href = None if value == NULL else PyUnicode_DecodeUTF8(<const char *> value, vlen, "replace")
                return href, <size_t> node
            attr = next_attr(attr, lite)
        node = cur.node


# --------------------------------------------------------------------------- links
# The page's links from the same tree: every <a href> and <area href> with its rel, its text and
# the alt text that stands in for it (html.page resolves and counts them).

cdef size_t _link_a = 0, _link_area = 0, _link_img = 0
cdef bint _links_ready = False


def init_links(size_t a_id, size_t area_id, size_t img_id):
    """The tag ids of ``a``, ``area`` and ``img`` (lexbor's, which the lite tree uses too)."""
    global _link_a, _link_area, _link_img, _links_ready
    _link_a, _link_area, _link_img = a_id, area_id, img_id
    _links_ready = True


cdef str attr_str(lxb_dom_node_t *node, const char *want, size_t n, bint lite):
    """The value of the attribute named ``want`` (lower case), or None (absent, or no value)."""
    cdef void *attr = first_attr(node, lite)
    cdef const unsigned char *name
    cdef const unsigned char *value
    cdef size_t length = 0, vlen = 0
    while attr != NULL:
        name = attr_qname(attr, &length, lite)
        if name != NULL and name_is(name, length, want, n):
            value = attr_value(attr, &vlen, lite)
            if value == NULL:
                return None
            return PyUnicode_DecodeUTF8(<const char *> value, vlen, "replace")
        attr = next_attr(attr, lite)
    return None


cdef tuple anchor_text(lxb_dom_node_t *anchor, bint lite):
    """The text of an anchor's subtree (its text nodes joined) and the ``alt`` of the first
    ``<img alt>`` inside it (None: no such image)."""
    cdef Cursor cur
    cdef Buf buf
    cdef lxb_dom_character_data_t *text
    cdef int ev
    cdef object alt = None
    buf.data = NULL
    buf.length = buf.size = 0
    cursor_init(&cur, anchor)
    try:
        while True:
            ev = cursor_next(&cur)
            if ev == EV_END:
                break
            if ev == EV_TEXT:
                text = <lxb_dom_character_data_t *> cur.node
                if text.data.data != NULL and text.data.length:
                    buf_add(&buf, text.data.data, text.data.length)
            elif ev == EV_ENTER and alt is None and cur.node.local_name == _link_img:
                alt = attr_str(cur.node, b"alt", 3, lite)
        out = "" if buf.length == 0 else PyUnicode_DecodeUTF8(<const char *> buf.data, buf.length, "replace")
        return out, alt
    finally:
        free(buf.data)


def node_attr(size_t node_id, bytes name):
    """The value of an element's attribute ``name`` (lower case), or None (absent or empty of a
    value); lexbor and lite trees alike."""
    cdef lxb_dom_node_t *node = <lxb_dom_node_t *> node_id
    if not _ready or node == NULL or node.type != T_ELEMENT:
        return None
    return attr_str(node, name, len(name), is_lite(node))


def anchors(size_t root_id):
    """``[(href, rel, text, alt, is_area)]`` for every ``<a href>`` and ``<area href>`` under the
    element ``root_id``, in document order (an ``href`` without a value is no link). ``text`` is
    the anchor's text nodes joined as they are ("" for an ``<area>``); ``alt`` the ``alt`` of an
    ``<area>``, or of the first ``<img alt>`` inside an ``<a>`` (None: none); ``rel`` None when
    absent. Reads lexbor and lite trees alike."""
    cdef Cursor cur
    cdef lxb_dom_node_t *node = <lxb_dom_node_t *> root_id
    cdef list out = []
    cdef int ev
    cdef bint lite
    cdef uintptr_t tag
    if not (_ready and _links_ready):
        raise RuntimeError("trawl.html._walk.init_links was not called")
    if node == NULL or node.type != T_ELEMENT:
        return out
    lite = is_lite(node)
    cursor_init(&cur, node)
    while True:
        ev = cursor_next(&cur)
        if ev == EV_END:
            return out
        if ev != EV_ENTER:
            continue
        node = cur.node
        tag = node.local_name
        if tag != _link_a and tag != _link_area:
            continue
        href = attr_str(node, b"href", 4, lite)
        if href is None:
            continue
        rel = attr_str(node, b"rel", 3, lite)
        if tag == _link_area:
            out.append((href, rel, "", attr_str(node, b"alt", 3, lite), True))
        else:
            text, alt = anchor_text(node, lite)
            out.append((href, rel, text, alt, False))


cdef class _Elements:
    """Growable per-element columns (freed with the object)."""

    cdef LongVec tag, parent, depth, hints, ahints, inside, group, end

    def __dealloc__(self):
        free(self.tag.data)
        free(self.parent.data)
        free(self.depth.data)
        free(self.hints.data)
        free(self.ahints.data)
        free(self.inside.data)
        free(self.group.data)
        free(self.end.data)

    cdef int add(self, long tag, long parent, long depth, long hints, long ahints, long inside,
                 long group) except -1:
        vec_push(&self.tag, tag)
        vec_push(&self.parent, parent)
        vec_push(&self.depth, depth)
        vec_push(&self.hints, hints)
        vec_push(&self.ahints, ahints)
        vec_push(&self.inside, inside)
        vec_push(&self.group, group)
        vec_push(&self.end, 0)
        return 0


def walk(size_t root_id, object drop, dict hint_cache, object hint_bits, long hidden_bit=0):
    """Pass 2: the text blocks and block elements of the subtree under ``root_id``.

    ``drop`` is a set of node ids (hidden elements) whose subtrees are skipped; with a
    ``hidden_bit``, block elements among them are walked instead, that bit set in their hints
    (an inline hidden element is skipped either way). Returns
    ``(texts, words, link_words, block_element, tag_index, parent, depth, hints, ancestor_hints,
    inside, end)``, the numeric columns as native int64 bytes (for ``numpy.frombuffer``): per
    block, its collapsed text, word and link-word counts and its element; per element (0 is the
    root), the index of its tag in the block tag table (-1 for the root), its parent, depth,
    class/id hint bits, the union of its ancestors' and its own, the ANCESTOR_GROUPS bits of its
    proper ancestors, and one past its subtree's last element.
    """
    cdef Cursor cur
    cdef lxb_dom_node_t *node
    cdef lxb_dom_character_data_t *text
    cdef _Walk st = _Walk()
    cdef _Elements els = _Elements()
    cdef int ev, kind
    cdef long top = 0, at, bits, inside, pg
    cdef unsigned char space = 32, newline = 10
    cdef bint has_drop = bool(drop), dropped
    if not _ready:
        raise RuntimeError("trawl.html._walk.init was not called")
    st.texts = []
    st.in_link = False
    els.add(-1, -1, 0, 0, 0, 0, 0)
    cursor_init(&cur, <lxb_dom_node_t *> root_id)
    while True:
        ev = cursor_next(&cur)
        if ev == EV_END:
            break
        node = cur.node
        if ev == EV_TEXT:
            text = <lxb_dom_character_data_t *> node
            if text.data.data != NULL and text.data.length:
                buf_add(&st.seg, text.data.data, text.data.length)
                if st.in_link:
                    buf_add(&st.link, text.data.data, text.data.length)
            continue
        kind = kind_of(node)
        if ev == EV_ENTER:
            dropped = has_drop and (<size_t> node) in drop
            if kind == K_INVISIBLE or (dropped and (kind != K_BLOCK or not hidden_bit)):
                cursor_skip(&cur)  # skipped with its subtree
            elif kind == K_BLOCK:
                st.flush(top)
                at = els.tag.length
                bits = _semantic[node.local_name] | (hidden_bit if dropped else 0)
                if first_attr(node, is_lite(node)) != NULL:
                    bits |= st.element_hints(node, hint_cache, hint_bits)
                pg = els.group.data[top]
                inside = els.inside.data[top]
                if pg:
                    inside |= 1 << (pg - 1)
                els.add(
                    _tag_index[node.local_name], top, els.depth.data[top] + 1, bits,
                    els.ahints.data[top] | bits, inside, _group[node.local_name],
                )
                top = at
            elif kind == K_ANCHOR:
                st.in_link = True
                buf_add(&st.link, &space, 1)
        elif kind == K_BLOCK:  # EV_LEAVE
            st.flush(top)
            els.end.data[top] = els.tag.length
            top = els.parent.data[top]
        elif kind == K_ANCHOR:
            st.in_link = False
        elif kind == K_BREAK:
            buf_add(&st.seg, &newline, 1)
            if st.in_link:
                buf_add(&st.link, &newline, 1)
    st.flush(top)
    els.end.data[0] = els.tag.length
    return (
        st.texts, vec_bytes(&st.b_words), vec_bytes(&st.b_links), vec_bytes(&st.b_element),
        vec_bytes(&els.tag), vec_bytes(&els.parent), vec_bytes(&els.depth), vec_bytes(&els.hints),
        vec_bytes(&els.ahints), vec_bytes(&els.inside), vec_bytes(&els.end),
    )

def page_columns(
    const int64_t[::1] words, const int64_t[::1] links, const int64_t[::1] element, const int64_t[::1] end,
):
    """What blocks._page_columns derives from a walk's columns, as native int64 bytes: per element
    its subtree's words and link words and the first block of its subtree (0 for a subtree
    without words), per block its word offset in the page."""
    cdef Py_ssize_t n = words.shape[0], n_el = end.shape[0], i, j
    cdef int64_t reach = -1
    cdef int64_t *own = <int64_t *> calloc(n_el + 1, sizeof(int64_t))
    cdef int64_t *own_links = <int64_t *> calloc(n_el + 1, sizeof(int64_t))
    cdef bytearray el_words = bytearray(n_el * sizeof(int64_t))
    cdef bytearray el_links = bytearray(n_el * sizeof(int64_t))
    cdef bytearray order = bytearray(n_el * sizeof(int64_t))
    cdef bytearray start = bytearray(n * sizeof(int64_t))
    cdef int64_t *ew = <int64_t *> (<char *> el_words)
    cdef int64_t *el = <int64_t *> (<char *> el_links)
    cdef int64_t *first = <int64_t *> (<char *> order)
    cdef int64_t *at = <int64_t *> (<char *> start)
    if own == NULL or own_links == NULL:
        free(own)
        free(own_links)
        raise MemoryError()
    try:
        # Prefix sums over elements of the words their own blocks hold: a subtree [i, end[i]) sums
        # to a difference.
        for j in range(n):
            own[element[j] + 1] += words[j]
            own_links[element[j] + 1] += links[j]
        for i in range(n_el):
            own[i + 1] += own[i]
            own_links[i + 1] += own_links[i]
        # A subtree's first block: the first whose element, as a running maximum, reaches it.
        j = 0
        for i in range(n_el):
            ew[i] = own[end[i]] - own[i]
            el[i] = own_links[end[i]] - own_links[i]
            while j < n and (element[j] if element[j] > reach else reach) < i:
                if element[j] > reach:
                    reach = element[j]
                j += 1
            first[i] = j if ew[i] > 0 else 0
        if n:
            at[0] = 0
        for j in range(1, n):
            at[j] = at[j - 1] + words[j - 1]
        return bytes(el_words), bytes(el_links), bytes(order), bytes(start)
    finally:
        free(own)
        free(own_links)


# --------------------------------------------------------------------------- boilerplate phrases
# features._BOILER as a trie over a block's UTF-8 text (ASCII letters lower-cased on the fly):
# whether any of its phrases occurs, with the regex's word boundaries decided on code points.

DEF END_WORD = 5  # a word boundary before the keyword and after it
DEF END_WORD_S = 6  # a word boundary before it; then an optional "s" and a word boundary


def init_boiler(list keywords):
    """The boilerplate-phrase trie: ``[(UTF-8 phrase, end kind, 0, 0)]``, end kinds 1 plain,
    3 optional "s" then a boundary, 4 a boundary, 5 whole word, 6 whole word with optional "s"."""
    trie_build(&_boiler_trie, keywords)


cdef inline Py_UCS4 cp_at(const unsigned char *p, size_t i, size_t n) noexcept:
    """The code point whose UTF-8 starts at ``p[i]``."""
    cdef unsigned char c = p[i]
    if c < 0x80:
        return c
    if c >= 0xF0 and i + 3 < n:
        return ((c & 7) << 18) | ((p[i + 1] & 63) << 12) | ((p[i + 2] & 63) << 6) | (p[i + 3] & 63)
    if c >= 0xE0 and i + 2 < n:
        return ((c & 15) << 12) | ((p[i + 1] & 63) << 6) | (p[i + 2] & 63)
    if c >= 0xC0 and i + 1 < n:
        return ((c & 31) << 6) | (p[i + 1] & 63)
    return 0xFFFD


cdef inline bint uword(Py_UCS4 c) noexcept:
    """``\\w`` of Python's ``re`` on str: alphanumeric or underscore."""
    if c < 128:
        return is_word_char(<unsigned char> c)
    return Py_UNICODE_ISALNUM(c)


cdef inline bint word_at(const unsigned char *p, size_t i, size_t n) noexcept:
    return i < n and uword(cp_at(p, i, n))


cdef inline bint word_before(const unsigned char *p, size_t i, size_t n) noexcept:
    cdef size_t j
    if i == 0:
        return False
    j = i - 1
    while j > 0 and (p[j] & 0xC0) == 0x80 and i - j < 4:
        j -= 1
    return uword(cp_at(p, j, n))


cdef bint boiler_search(const unsigned char *p, size_t n) noexcept:
    """Whether a phrase of the boilerplate trie occurs in ``p`` (see :func:`init_boiler`)."""
    cdef size_t i, j
    cdef int node, nxt, kind
    cdef unsigned char c
    for i in range(n):
        node = 0
        j = i
        while j < n:
            c = <unsigned char> lower(p[j])
            nxt = _boiler_trie.next[node * _boiler_trie.width + _boiler_trie.cls[c]]
            if nxt == 0:
                break
            node = nxt
            j += 1
            kind = _boiler_trie.kind[node]
            if kind == END_NONE:
                continue
            if kind == END_PLAIN:
                return True
            if (kind == END_WORD or kind == END_WORD_S) and word_before(p, i, n):
                continue
            if kind == END_TAG or kind == END_WORD_S:
                if (j < n and lower(p[j]) == b's' and not word_at(p, j + 1, n)) or not word_at(p, j, n):
                    return True
            elif not word_at(p, j, n):  # END_BOUNDARY, END_WORD
                return True
    return False


def boiler_hits(list texts, list candidates, object fallback):
    """The indices among ``candidates`` whose text in ``texts`` contains a boilerplate phrase.

    Texts holding a character whose lower case is ASCII but itself is not (U+0130, U+212A) are
    judged by ``fallback(text) -> bool`` (the regex), since this matcher lower-cases ASCII only.
    """
    cdef Py_ssize_t n = 0
    cdef const char *p
    cdef list hits = []
    if _boiler_trie.next == NULL:
        raise RuntimeError("trawl.html._walk.init_boiler was not called")
    for i in candidates:
        text = <str> texts[i]
        p = PyUnicode_AsUTF8AndSize(text, &n)
        if not text.isascii() and ("\u0130" in text or "\u212a" in text):
            if fallback(text):
                hits.append(i)
        elif boiler_search(<const unsigned char *> p, n):
            hits.append(i)
    return hits


# Character classes of the tag tokenizer, one table lookup per byte.
DEF C_SPACE = 1  # tab, LF, FF, CR, space
DEF C_SLASH = 2
DEF C_GT = 4
DEF C_EQ = 8
cdef unsigned char _tag_class[256]
cdef int _c
for _c in range(256):
    _tag_class[_c] = 0
for _c in (9, 10, 12, 13, 32):
    _tag_class[_c] = C_SPACE
_tag_class[47] = C_SLASH  # "/"
_tag_class[62] = C_GT  # ">"
_tag_class[61] = C_EQ  # "="


# --------------------------------------------------------------------------- cutting scripts


cdef inline uint32_t lower(uint32_t c) noexcept nogil:
    """ASCII lower case of a byte or a code unit."""
    return c + 32 if 65 <= c <= 90 else c


# The cut reads bytes (UTF-8) or a str's own code units (1, 2 or 4 bytes each): the same scanner.
ctypedef fused Unit:
    uint8_t
    uint16_t
    uint32_t


cdef inline size_t find_unit(const Unit *p, size_t i, size_t n, unsigned char c) noexcept nogil:
    """The first ASCII character ``c`` at or after ``i``, or ``n`` (by memchr for bytes and 2-byte
    units, whose ``c`` is a ``c`` byte at an even offset with a 0 beside it; by wmemchr for
    4-byte units)."""
    cdef const unsigned char *found
    cdef const unsigned char *raw
    cdef const unsigned char *stop
    if i >= n:
        return n
    if Unit is uint8_t:
        found = <const unsigned char *> memchr(p + i, c, n - i)
        return <size_t> (found - p) if found != NULL else n
    elif Unit is uint16_t:
        raw = <const unsigned char *> (p + i)
        stop = <const unsigned char *> (p + n)
        while raw < stop:
            found = <const unsigned char *> memchr(raw, c, stop - raw)
            if found == NULL:
                return n
            if ((found - <const unsigned char *> p) & 1) == 0 and p[(found - <const unsigned char *> p) >> 1] == c:
                return <size_t> ((found - <const unsigned char *> p) >> 1)
            raw = found + 1
        return n
    elif sizeof(wchar_t) == 4:
        found = <const unsigned char *> wmemchr(<const wchar_t *> (p + i), c, n - i)
        return <size_t> ((<const uint32_t *> found) - p) if found != NULL else n
    else:
        while i < n and p[i] != c:
            i += 1
        return i


cdef inline size_t find_lt(const Unit *p, size_t i, size_t n) noexcept nogil:
    """The first ``<`` at or after ``i``, or ``n``."""
    return find_unit(p, i, n, 60)


cdef inline bint u_space(uint32_t c) noexcept nogil:
    """The HTML tokenizer's whitespace: tab, LF, FF, CR, space."""
    return c == 32 or c == 9 or c == 10 or c == 12 or c == 13


cdef inline unsigned char u_class(uint32_t c) noexcept nogil:
    """The tag tokenizer's class of a byte or code unit (0 past Latin-1)."""
    return _tag_class[c] if c < 256 else 0


cdef inline bint u_qmark(uint32_t c) noexcept nogil:
    """``?``, or a lone surrogate, which the UTF-8 of a str encodes as ``?``."""
    return c == 63 or 0xD800 <= c <= 0xDFFF


cdef inline bint u_letter(uint32_t c) noexcept nogil:
    return c < 128 and 97 <= (c | 32) <= 122


cdef size_t find_bytes(const unsigned char *p, size_t i, size_t n, const char *needle, size_t m) noexcept nogil:
    """The first ``needle`` at or after ``i``, or ``n``."""
    cdef const unsigned char *found
    while i + m <= n:
        found = <const unsigned char *> memchr(p + i, needle[0], n - i - m + 1)
        if found == NULL:
            return n
        i = found - p
        if memcmp(p + i, needle, m) == 0:
            return i
        i += 1
    return n


cdef size_t u_find(const Unit *p, size_t i, size_t n, const char *needle, size_t m) noexcept nogil:
    """The first ``needle`` (ASCII, exact) at or after ``i`` ending by ``n``, or ``n``."""
    cdef size_t k
    if Unit is uint8_t:
        return find_bytes(p, i, n, needle, m)
    else:
        while i + m <= n:
            i = find_unit(p, i, n - m + 1, <unsigned char> needle[0])
            if i + m > n:
                return n
            k = 1
            while k < m and p[i + k] == <unsigned char> needle[k]:
                k += 1
            if k == m:
                return i
            i += 1
        return n


cdef size_t u_name_end(const Unit *p, size_t i, size_t n) noexcept nogil:
    """One past a tag name that starts at ``i``: it runs to a space, ``/`` or ``>``."""
    while i < n and not (u_class(p[i]) & (C_SPACE | C_SLASH | C_GT)):
        i += 1
    return i


cdef bint u_is(const Unit *p, size_t a, size_t b, const char *name) noexcept nogil:
    """Whether ``p[a:b]`` is ``name`` (lower-case ASCII) in any ASCII case."""
    cdef size_t k = 0
    while a + k < b:
        if name[k] == 0 or lower(p[a + k]) != <unsigned char> name[k]:
            return False
        k += 1
    return name[k] == 0


cdef size_t u_tag_end(const Unit *p, size_t i, size_t n, bint *self_closing) noexcept nogil:
    """From just after a tag's name: one past its ``>``, or 0 when the page ends inside the tag.
    Attributes as the HTML tokenizer reads them (a name takes its first character whatever it is,
    a quoted value runs to its quote, an unquoted one to a space or ``>``); ``self_closing``: the
    tag ends in ``/>`` outside a value."""
    cdef bint slash = False
    cdef size_t k
    self_closing[0] = False
    while True:
        slash = False
        while i < n and u_class(p[i]) & (C_SPACE | C_SLASH):
            slash = p[i] == 47
            i += 1
        if i >= n:
            return 0
        if p[i] == 62:
            self_closing[0] = slash
            return i + 1
        i += 1  # an attribute's name
        while i < n and not u_class(p[i]):
            i += 1
        k = i
        while k < n and u_class(p[k]) == C_SPACE:
            k += 1
        if k >= n or p[k] != 61:  # no value: the spaces are the loop's
            continue
        k += 1
        while k < n and u_class(p[k]) == C_SPACE:
            k += 1
        if k < n and (p[k] == 34 or p[k] == 39):
            k = find_unit(p, k + 1, n, <unsigned char> p[k])
            if k >= n:
                return 0
            i = k + 1
        else:
            while k < n and not (u_class(p[k]) & (C_SPACE | C_GT)):
                k += 1
            i = k


cdef size_t u_raw_end(const Unit *p, size_t i, size_t n, const unsigned char *name, size_t m) noexcept nogil:
    """Where the text of a raw-text element named ``name`` ends: the first ``</name`` followed by
    a space, ``/`` or ``>`` at or after ``i``, or ``n``."""
    cdef size_t k
    while True:
        i = find_lt(p, i, n)
        if i + 2 + m >= n:
            return n
        if p[i + 1] == 47:
            k = 0
            while k < m and lower(p[i + 2 + k]) == name[k]:
                k += 1
            if k == m and (u_space(p[i + 2 + m]) or p[i + 2 + m] == 47 or p[i + 2 + m] == 62):
                return i
        i += 1


cdef size_t u_markup_decl_end(const Unit *p, size_t i, size_t n, bint cdata) noexcept nogil:
    """At a ``<!``: one past a comment (to its first ``-->``, ``<!-->`` and ``<!--->`` included,
    or ``--!>``), a CDATA section (to ``]]>``; in foreign content only, ``cdata``) or a bogus
    comment or DOCTYPE (to ``>``); 0 when it does not end."""
    cdef size_t e, k
    if i + 3 < n and p[i + 2] == 45 and p[i + 3] == 45:
        k = i + 2  # one pass for whichever end comes first
        while k + 2 < n:
            k = find_unit(p, k, n, 45)  # the next "-"
            if k + 2 >= n:
                break
            if p[k + 1] == 45:
                if p[k + 2] == 62:
                    return k + 3
                if k >= i + 4 and k + 3 < n and p[k + 2] == 33 and p[k + 3] == 62:
                    return k + 4
            k += 1
        return 0
    if cdata and i + 8 < n and u_find(p, i + 2, i + 9, b"[CDATA[", 7) == i + 2:
        e = u_find(p, i + 9, n, b"]]>", 3)
        return e + 3 if e < n else 0
    e = u_find(p, i + 2, n, b">", 1)
    return e + 1 if e < n else 0


# Start tags that end an <svg> (the HTML standard's breakout list; <font> only with color, face or
# size, so any <font> stops the cutting instead).
cdef WordList _breakout_words
word_list(
    &_breakout_words,
    b"b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing"
    b" menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var",
)
# The start tags the cut acts on, in the order of the CUT_ codes (CUT_RAW: the six after "select").
cdef WordList _cut_tag_words
word_list(
    &_cut_tag_words,
    b"script style svg select title textarea xmp iframe noembed noframes plaintext math frameset"
    b" foreignobject font desc",
)


DEF CUT_SCRIPT = 1
DEF CUT_STYLE = 2
DEF CUT_SVG = 3
DEF CUT_SELECT = 4
DEF CUT_TEXTAREA = 6  # after title: the raw-text elements, whose text runs to their end tag, kept
DEF CUT_NOFRAMES = 10
DEF CUT_TITLE = 5
DEF CUT_FOREIGN_OBJECT = 14
DEF CUT_FONT = 15
DEF CUT_DESC = 16


cdef int u_word(const Unit *p, size_t a, size_t b, const WordList *w, unsigned char *name) noexcept nogil:
    """``word_index`` of the name ``p[a:b]``, lower-cased into ``name`` (32 bytes); 0 when it is
    longer or not ASCII."""
    cdef size_t k
    if b - a > MAX_WORD_LENGTH:
        return 0
    for k in range(b - a):
        if p[a + k] >= 128:
            return 0
        name[k] = <unsigned char> lower(p[a + k])
    return word_index(w, name, b - a, False)


DEF SVG_STACK = 256


cdef bint u_same_name(const Unit *p, size_t a, size_t b, size_t c, size_t d) noexcept nogil:
    """Whether the names ``p[a:b]`` and ``p[c:d]`` are the same but for ASCII case."""
    cdef size_t k
    if b - a != d - c:
        return False
    for k in range(b - a):
        if lower(p[a + k]) != lower(p[c + k]):
            return False
    return True


cdef inline bint u_script_tag(const Unit *p, size_t i, size_t n) noexcept nogil:
    """Whether ``p[i:]`` is ``script`` (any ASCII case) followed by a space, ``/`` or ``>``."""
    return i + 6 < n and u_is(p, i, i + 6, b"script") and (u_space(p[i + 6]) or p[i + 6] == 47 or p[i + 6] == 62)


cdef size_t script_end(const Unit *p, size_t i, size_t n) noexcept nogil:
    """Where a script's text that starts at ``i`` ends: at the ``</script`` that ends it, or ``n``.
    The HTML tokenizer's script states: after ``<!--`` the text is *escaped* (to ``-->``), and in
    escaped text a ``<script`` makes it *double escaped*, where ``</script`` does not end the
    script but returns to escaped text. Plain script text is searched for ``<`` only."""
    cdef int state = 0  # 0 script data, 1 escaped, 2 double escaped
    cdef size_t dash = 0
    cdef uint32_t c
    while True:
        if state == 0:
            i = find_lt(p, i, n)
            if i + 1 >= n:
                return n
            if p[i + 1] == 47 and u_script_tag(p, i + 2, n):
                return i
            if p[i + 1] == 33 and i + 3 < n and p[i + 2] == 45 and p[i + 3] == 45:
                state, dash = 1, 2
                i += 4
            else:
                i += 1
            continue
        if i >= n:
            return n
        c = p[i]
        if c == 45:  # "-"
            dash += 1
            i += 1
            continue
        if c == 62 and dash >= 2:  # "-->": back to script data
            state = dash = 0
            i += 1
            continue
        dash = 0
        if c == 60 and i + 1 < n:  # "<"
            if p[i + 1] == 47 and u_script_tag(p, i + 2, n):
                if state == 1:
                    return i
                state = 1
                i += 8
                continue
            if state == 1 and u_script_tag(p, i + 1, n):
                state = 2
                i += 7
                continue
        i += 1


cdef size_t svg_end(const Unit *p, size_t i, size_t n, size_t *cut_to) noexcept nogil:
    """From just after an ``<svg>`` start tag: where the cut of the element ends (``cut_to``) and
    where scanning goes on, or 0 where this scanner does not follow the tree builder: the rest of
    the page is then left as it is (the walk skips SVG anyway). The open elements inside it are
    kept on a stack, as the tree builder keeps them: the element ends at the end tag that closes
    it, before a start tag that breaks out of foreign content (``<div>``, ``<p>``...), and where an
    end tag names no open element (it closes HTML elements around it: ``</div>``); ``<title>`` and
    ``<desc>`` holding only text are stepped over; a ``<foreignObject>``, a ``<font>``, markup in
    a ``<title>`` or ``<desc>`` (HTML there), a ``</p>`` or ``</br>``, nesting deeper than the
    stack or a page that ends first stop the cutting."""
    cdef size_t depth = 1, j, e, body, k
    cdef size_t start[SVG_STACK]
    cdef size_t stop[SVG_STACK]
    cdef bint sc
    cdef int kind
    cdef unsigned char name[MAX_WORD_LENGTH]
    start[0] = stop[0] = 0  # the <svg> itself: matched by name below
    while True:
        i = find_lt(p, i, n)
        if i + 1 >= n:
            return 0
        if p[i + 1] == 33:  # "!"
            e = u_markup_decl_end(p, i, n, True)
            if e == 0:
                return 0
            i = e
        elif u_qmark(p[i + 1]):  # "?": a bogus comment
            e = u_find(p, i + 2, n, b">", 1)
            if e >= n:
                return 0
            i = e + 1
        elif p[i + 1] == 47:  # "/"
            if i + 2 < n and u_letter(p[i + 2]):
                j = u_name_end(p, i + 2, n)
                e = u_tag_end(p, j, n, &sc)
                if e == 0 or u_is(p, i + 2, j, b"p") or u_is(p, i + 2, j, b"br"):
                    return 0
                k = depth
                while k > 1 and not u_same_name(p, start[k - 1], stop[k - 1], i + 2, j):
                    k -= 1
                if k > 1:
                    depth = k - 1  # closes the element and those opened inside it
                elif u_is(p, i + 2, j, b"svg"):
                    cut_to[0] = e
                    return e
                else:  # names no open element: it closes HTML ones, the <svg> with them
                    return 0
                i = e
            else:
                e = u_find(p, i + 2, n, b">", 1)
                if e >= n:
                    return 0
                i = e + 1
        elif u_letter(p[i + 1]):
            j = u_name_end(p, i + 1, n)
            if u_word(p, i + 1, j, &_breakout_words, name):
                cut_to[0] = i
                return i
            kind = u_word(p, i + 1, j, &_cut_tag_words, name)
            if kind == CUT_FOREIGN_OBJECT or kind == CUT_FONT:
                return 0
            e = u_tag_end(p, j, n, &sc)
            if e == 0:
                return 0
            if sc:
                i = e
                continue
            if kind == CUT_TITLE or kind == CUT_DESC:
                # HTML integration points: text to their end tag is stepped over, markup stops
                body = u_raw_end(p, e, n, name, j - i - 1)
                if body >= n or find_lt(p, e, body) < body:
                    return 0
                i = u_tag_end(p, body + 2 + (j - i - 1), n, &sc)  # and its end tag
                if i == 0:
                    return 0
                continue
            if depth == SVG_STACK:
                return 0
            start[depth] = i + 1
            stop[depth] = j
            depth += 1
            i = e
        else:
            i += 1


cdef bint _contains(const Unit *p, size_t n, const char *needle, size_t m) noexcept nogil:
    """Whether ``p[:n]`` contains ``needle`` (lower-case ASCII), ignoring ASCII case."""
    cdef size_t i, j
    if m > n:
        return False
    for i in range(n - m + 1):
        for j in range(m):
            if lower(p[i + j]) != <unsigned char> needle[j]:
                break
        else:
            return True
    return False


cdef inline bint joins(const Unit *p, size_t i, size_t pos, size_t run) noexcept nogil:
    """Whether cutting from ``i`` would join the text kept before it (a ``<`` or ``&`` in text,
    right before the element) to what follows into markup the page did not have (``a<`` + ``b``
    is a tag, ``&`` + ``amp;`` a reference). ``pos``: where the kept text resumed after the last
    cut; ``run``: where that cut started."""
    cdef size_t before = i if i > pos else run
    return before > 0 and (p[before - 1] == 60 or p[before - 1] == 38)


cdef int cut_spans(const Unit *p, size_t n, LongVec *keep) except -1:
    """The spans of ``p[:n]`` that stay, as ``start, end`` pairs pushed onto ``keep`` (none when
    nothing is cut). A tokenizer after the HTML standard's: comments, DOCTYPEs, end tags and the
    attributes of start tags are stepped over (a ``<script>`` in a comment or an attribute value
    is no script), the text of raw-text elements (``title``, ``textarea``...) is kept as it is, and
    the tag names are whole (``<svg-icon>`` is no ``<svg>``). Cut: ``<script>`` (JSON-LD kept) and
    ``<style>`` elements to their end tags, ``<svg>`` elements to theirs or to the tag that ends
    them (see :func:`svg_end`). Where the tokenizer's state would depend on the tree, the rest is
    left as it is: a tag, comment or raw text left open to the end, MathML, a frameset, plain
    text, a raw-text element other than ``<textarea>`` in a ``<select>``. A script's text ends as
    the tokenizer ends it, escapes included (:func:`script_end`)."""
    cdef size_t i = 0, pos = 0, j, e, body, close = 0, run = 0
    cdef bint sc, in_select = False
    cdef int kind
    cdef unsigned char name[MAX_WORD_LENGTH]
    while True:
        i = find_lt(p, i, n)
        if i + 1 >= n:
            break
        if p[i + 1] == 33:  # "!"
            e = u_markup_decl_end(p, i, n, False)
            if e == 0:
                break
            i = e
            continue
        if u_qmark(p[i + 1]):  # "?"
            e = u_find(p, i + 2, n, b">", 1)
            if e >= n:
                break
            i = e + 1
            continue
        if p[i + 1] == 47:  # "/"
            if i + 2 < n and u_letter(p[i + 2]):
                j = u_name_end(p, i + 2, n)
                e = u_tag_end(p, j, n, &sc)
                if e == 0:
                    break
                if in_select and u_is(p, i + 2, j, b"select"):
                    in_select = False
                i = e
            else:  # "</>" or a bogus comment, to ">"
                e = u_find(p, i + 2, n, b">", 1)
                if e >= n:
                    break
                i = e + 1
            continue
        if not u_letter(p[i + 1]):  # a "<" in text
            i += 1
            continue
        j = u_name_end(p, i + 1, n)
        e = u_tag_end(p, j, n, &sc)
        if e == 0:
            break
        kind = u_word(p, i + 1, j, &_cut_tag_words, name)
        if kind == 0 or kind >= CUT_FOREIGN_OBJECT:
            i = e
        elif kind == CUT_SELECT:
            in_select = True
            i = e
        elif kind <= CUT_SVG:  # script, style, svg: cut to where the element ends
            if kind == CUT_SVG:
                if sc:
                    close = e
                elif svg_end(p, e, n, &close) == 0:
                    break
            else:
                if kind == CUT_STYLE and in_select:
                    break
                body = script_end(p, e, n) if kind == CUT_SCRIPT else u_raw_end(p, e, n, name, j - i - 1)
                if body >= n:
                    break
                close = u_tag_end(p, u_name_end(p, body + 2, n), n, &sc)
                if close == 0:
                    break
            if (kind == CUT_SCRIPT and _contains(p + i, e - i, b"ld+json", 7)) or joins(p, i, pos, run):
                i = close
                continue
            if i > pos:
                vec_push(keep, pos)
                vec_push(keep, i)
                run = i
            pos = i = close
        elif kind < CUT_NOFRAMES + 1:  # title, textarea, xmp, iframe, noembed, noframes
            if in_select and kind != CUT_TEXTAREA:
                break  # in a <select>, whether they hold text depends on the parser
            body = u_raw_end(p, e, n, name, j - i - 1)
            if body >= n:
                break
            i = body
        else:
            break
    if pos:
        vec_push(keep, pos)
        vec_push(keep, n)
    return 0


def cut_no_text(bytes markup):
    """``markup`` (UTF-8) without its ``<script>``, ``<style>`` and ``<svg>`` elements, JSON-LD
    scripts kept (see :func:`cut_spans`): what lexbor would build from it is its tree less those
    elements (tested against exactly that)."""
    return cut_encode(<const uint8_t *> markup, len(markup), True, markup)


cdef int buf_reserve(Buf *b, size_t n) except -1:
    """Room for ``n`` more bytes after ``b.length``."""
    cdef size_t want = b.length + n
    cdef unsigned char *grown
    if want > b.size:
        if want < 2 * b.size:
            want = 2 * b.size
        grown = <unsigned char *> realloc(b.data, want)
        if grown == NULL:
            raise MemoryError()
        b.data = grown
        b.size = want
    return 0


cdef extern from *:
    """
    /* The longest run of ASCII code units at the start of src[0:n] (whole steps of 16), copied
       or narrowed to bytes in dst; how many. With SSE2 (any x86-64); elsewhere none, and the
       caller's loop does them. A step loads 16 units, packs them to bytes in *out and says
       whether all were ASCII. */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline int trawl_step_u8(const uint8_t *src, __m128i *out) {
        *out = _mm_loadu_si128((const __m128i *) src);
        return !_mm_movemask_epi8(*out);  /* no byte with its high bit set */
    }
    static inline int trawl_step_u16(const uint16_t *src, __m128i *out) {
        const __m128i high = _mm_set1_epi16((short) 0xFF80);
        __m128i a = _mm_loadu_si128((const __m128i *) src), b = _mm_loadu_si128((const __m128i *) (src + 8));
        __m128i t = _mm_or_si128(_mm_and_si128(a, high), _mm_and_si128(b, high));
        *out = _mm_packus_epi16(a, b);
        return _mm_movemask_epi8(_mm_cmpeq_epi16(t, _mm_setzero_si128())) == 0xFFFF;
    }
    static inline int trawl_step_u32(const uint32_t *src, __m128i *out) {
        const __m128i high = _mm_set1_epi32((int) 0xFFFFFF80);
        __m128i a = _mm_loadu_si128((const __m128i *) src), b = _mm_loadu_si128((const __m128i *) (src + 4));
        __m128i c = _mm_loadu_si128((const __m128i *) (src + 8)), d = _mm_loadu_si128((const __m128i *) (src + 12));
        __m128i t = _mm_or_si128(_mm_or_si128(_mm_and_si128(a, high), _mm_and_si128(b, high)),
                                 _mm_or_si128(_mm_and_si128(c, high), _mm_and_si128(d, high)));
        *out = _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
        return _mm_movemask_epi8(_mm_cmpeq_epi32(t, _mm_setzero_si128())) == 0xFFFF;
    }
    #define TRAWL_ASCII_RUN(STEP) \\
        size_t i = 0; \\
        __m128i out; \\
        while (i + 16 <= n && STEP(src + i, &out)) { \\
            _mm_storeu_si128((__m128i *) (dst + i), out); \\
            i += 16; \\
        } \\
        return i;
    #else
    #define TRAWL_ASCII_RUN(STEP) (void) src; (void) dst; (void) n; return 0;
    #endif
    static size_t trawl_narrow_ascii_u16(const uint16_t *src, size_t n, unsigned char *dst) {
        TRAWL_ASCII_RUN(trawl_step_u16)
    }
    static size_t trawl_copy_ascii_u8(const uint8_t *src, size_t n, unsigned char *dst) {
        TRAWL_ASCII_RUN(trawl_step_u8)
    }
    static size_t trawl_narrow_ascii_u32(const uint32_t *src, size_t n, unsigned char *dst) {
        TRAWL_ASCII_RUN(trawl_step_u32)
    }
    """
    size_t trawl_narrow_ascii_u16(const uint16_t *src, size_t n, unsigned char *dst) nogil
    size_t trawl_copy_ascii_u8(const uint8_t *src, size_t n, unsigned char *dst) nogil
    size_t trawl_narrow_ascii_u32(const uint32_t *src, size_t n, unsigned char *dst) nogil


cdef int encode_utf8(Buf *out, const Unit *p, size_t a, size_t b) except -1:
    """Appends ``p[a:b]`` as UTF-8, a lone surrogate as ``?`` (``str.encode("utf-8", "replace")``)."""
    cdef size_t i, k, m
    cdef uint32_t c
    cdef unsigned char *o
    buf_reserve(out, (b - a) * (2 if Unit is uint8_t else (3 if Unit is uint16_t else 4)))
    o = out.data
    k = out.length
    i = a
    while i < b:
        c = p[i]
        if c < 0x80:
            o[k] = <unsigned char> c
            k += 1
            i += 1
            # A run of ASCII: 16 units a step where the processor has SSE2, then four at a time.
            if Unit is uint8_t:
                m = trawl_copy_ascii_u8(p + i, b - i, o + k)
            elif Unit is uint16_t:
                m = trawl_narrow_ascii_u16(p + i, b - i, o + k)
            else:
                m = trawl_narrow_ascii_u32(p + i, b - i, o + k)
            i += m
            k += m
            while i + 4 <= b and (p[i] | p[i + 1] | p[i + 2] | p[i + 3]) < 0x80:
                o[k] = <unsigned char> p[i]
                o[k + 1] = <unsigned char> p[i + 1]
                o[k + 2] = <unsigned char> p[i + 2]
                o[k + 3] = <unsigned char> p[i + 3]
                k += 4
                i += 4
            continue
        i += 1
        if c < 0x800:
            o[k] = <unsigned char> (0xC0 | (c >> 6))
            o[k + 1] = <unsigned char> (0x80 | (c & 0x3F))
            k += 2
        elif Unit is not uint8_t and c < 0x10000:
            if 0xD800 <= c <= 0xDFFF:
                o[k] = b'?'
                k += 1
            else:
                o[k] = <unsigned char> (0xE0 | (c >> 12))
                o[k + 1] = <unsigned char> (0x80 | ((c >> 6) & 0x3F))
                o[k + 2] = <unsigned char> (0x80 | (c & 0x3F))
                k += 3
        elif Unit is uint32_t:
            o[k] = <unsigned char> (0xF0 | (c >> 18))
            o[k + 1] = <unsigned char> (0x80 | ((c >> 12) & 0x3F))
            o[k + 2] = <unsigned char> (0x80 | ((c >> 6) & 0x3F))
            o[k + 3] = <unsigned char> (0x80 | (c & 0x3F))
            k += 4
    out.length = k
    return 0


cdef bytes cut_encode(const Unit *p, size_t n, bint raw, bytes whole):
    """The cut of ``p[:n]`` as UTF-8: bytes (or an ASCII str's units) copied as they are when
    ``raw``, else a str's code units encoded. ``whole`` is returned as it is when nothing is cut
    (``None``: everything is copied)."""
    cdef size_t k
    cdef LongVec keep
    cdef Buf out
    keep.data = NULL
    keep.length = keep.size = 0
    out.data = NULL
    out.length = out.size = 0
    try:
        cut_spans(p, n, &keep)
        if not keep.length:
            if whole is not None:
                return whole
            vec_push(&keep, 0)
            vec_push(&keep, n)
        for k in range(0, keep.length, 2):
            if Unit is uint8_t and raw:
                buf_add(&out, p + keep.data[k], keep.data[k + 1] - keep.data[k])
            else:
                encode_utf8(&out, p, keep.data[k], keep.data[k + 1])
        return PyBytes_FromStringAndSize(<const char *> out.data, out.length)
    finally:
        free(out.data)
        free(keep.data)


def cut_no_text_str(str markup):
    """:func:`cut_no_text` of ``markup.encode("utf-8", "replace")``, read from the str's own code
    units: only the text that stays is encoded (scripts and styles are half of a page)."""
    cdef int kind = PyUnicode_KIND(markup)
    cdef size_t n = PyUnicode_GET_LENGTH(markup)
    cdef const void *data = PyUnicode_DATA(markup)
    if kind == PyUnicode_1BYTE_KIND:
        return cut_encode(<const uint8_t *> data, n, PyUnicode_IS_ASCII(markup), None)
    if kind == PyUnicode_2BYTE_KIND:
        return cut_encode(<const uint16_t *> data, n, False, None)
    return cut_encode(<const uint32_t *> data, n, False, None)


# --------------------------------------------------------------------------- stage-1 features

from libc.math cimport log, log1p
from cpython.unicode cimport Py_UNICODE_ISUPPER


cdef inline uint64_t text_hash(const unsigned char *p, size_t n) noexcept nogil:
    """A fast 64-bit hash of ``p[:n]``, eight bytes a step (equal bytes, equal hashes; the
    first-occurrence table below compares the strings themselves on a match)."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, chunk
    cdef size_t i = 0
    while i + 8 <= n:
        memcpy(&chunk, p + i, 8)
        h = (h ^ chunk) * 0xFF51AFD7ED558CCDULL
        h ^= h >> 32
        i += 8
    chunk = 0
    if i < n:
        memcpy(&chunk, p + i, n - i)
        h = (h ^ chunk) * 0xC4CEB9FE1A85EC53ULL
    h ^= h >> 29
    return h | 1  # never 0: an empty slot


def first_occurrences(list texts, int64_t[::1] out):
    """Into ``out``, per text, the index of the first text equal to it (itself when it is the
    first): what ``{t: first index}`` gives, with a hash over the strings' own code units instead
    of Python's (whose SipHash costs more than the rest of this)."""
    cdef Py_ssize_t n = len(texts), i
    cdef size_t size = 16, j, length
    cdef uint64_t h
    cdef uint64_t *hashes
    cdef int64_t *slots
    cdef int kind
    cdef str text, other
    for i in range(n):
        if not isinstance(texts[i], str):
            raise TypeError(f"text {i} is a {type(texts[i]).__name__}, not a str")
    while size < 2 * <size_t> n:
        size *= 2
    hashes = <uint64_t *> calloc(size, sizeof(uint64_t))
    slots = <int64_t *> malloc(size * sizeof(int64_t))
    if hashes == NULL or slots == NULL:
        free(hashes)
        free(slots)
        raise MemoryError()
    try:
        for i in range(n):
            text = <str> texts[i]
            kind = PyUnicode_KIND(text)
            length = PyUnicode_GET_LENGTH(text)
            h = text_hash(<const unsigned char *> PyUnicode_DATA(text), length * kind) ^ (<uint64_t> kind << 62)
            h |= 1
            j = h & (size - 1)
            while True:
                if hashes[j] == 0:
                    hashes[j] = h
                    slots[j] = i
                    out[i] = i
                    break
                if hashes[j] == h:
                    other = <str> texts[slots[j]]
                    # (A str's code units are canonical: equal strings have equal kinds.)
                    if PyUnicode_KIND(other) == kind and <size_t> PyUnicode_GET_LENGTH(other) == length and memcmp(
                        PyUnicode_DATA(other), PyUnicode_DATA(text), length * kind
                    ) == 0:
                        out[i] = slots[j]
                        break
                j = (j + 1) & (size - 1)
    finally:
        free(hashes)
        free(slots)


def kept_once(const int64_t[::1] index, const int64_t[::1] firsts, const int64_t[::1] words):
    """The blocks of ``index`` (ascending) less those whose text (``firsts``: the index of each
    block's first equal text) came before among them, unless under three words: a list."""
    cdef Py_ssize_t n = firsts.shape[0], k, i
    cdef unsigned char *seen
    cdef list out = []
    if words.shape[0] != n:
        raise ValueError("kept_once: words and firsts of different lengths")
    for k in range(index.shape[0]):
        if not 0 <= index[k] < n or not 0 <= firsts[index[k]] < n:
            raise ValueError(f"kept_once: block {index[k]} or its first occurrence is out of range")
    seen = <unsigned char *> calloc(n if n else 1, 1)
    if seen == NULL:
        raise MemoryError()
    try:
        for k in range(index.shape[0]):
            i = index[k]
            if words[i] >= 3:
                if seen[firsts[i]]:
                    continue
                seen[firsts[i]] = 1
            out.append(i)
        return out
    finally:
        free(seen)


def element_columns(
    const int64_t[::1] tag_code, const int64_t[::1] parent, const double[::1] el_words,
    const int64_t[::1] end, const unsigned char[::1] unit_code, long total_words, int n_codes,
    double[::1] sib, double[::1] in_unit,
):
    """Per element, into ``sib`` and ``in_unit``: how many elements share its parent and tag (1 for
    the root), and 1.0 when it lies inside a repeated unit (see features.stage1_matrix: an element
    with three or more same-tag siblings, 15 words up to a fifth of the page, a unit tag), else
    0.0. ``parent[0]`` is the root's, ignored. Same arithmetic as the numpy code in features.py.
    """
    cdef Py_ssize_t n_el = tag_code.shape[0], i
    cdef int64_t key, max_key = 0, depth = 0
    cdef int64_t *counts
    cdef int64_t *cover
    cdef double total = total_words if total_words > 1 else 1.0
    if n_el == 0:
        return
    if parent.shape[0] != n_el or el_words.shape[0] != n_el or end.shape[0] != n_el or sib.shape[0] != n_el \
            or in_unit.shape[0] != n_el:
        raise ValueError("element_columns: columns of different lengths")
    for i in range(1, n_el):
        if not (0 <= parent[i] < n_el and 0 <= tag_code[i] < n_codes and tag_code[i] < unit_code.shape[0]
                and i < end[i] <= n_el):
            raise ValueError(f"element_columns: element {i} has a parent, tag or end out of range")
        key = parent[i] * n_codes + tag_code[i]
        if key > max_key:
            max_key = key
    counts = <int64_t *> calloc(max_key + 1, sizeof(int64_t))
    cover = <int64_t *> calloc(n_el + 1, sizeof(int64_t))
    if counts == NULL or cover == NULL:
        free(counts)
        free(cover)
        raise MemoryError()
    try:
        for i in range(1, n_el):
            counts[parent[i] * n_codes + tag_code[i]] += 1
        sib[0] = 1.0
        for i in range(1, n_el):
            sib[i] = <double> counts[parent[i] * n_codes + tag_code[i]]
            if sib[i] >= 3 and el_words[i] >= 15 and el_words[i] <= 0.2 * total and unit_code[tag_code[i]]:
                cover[i] += 1
                cover[end[i]] -= 1
        for i in range(n_el):
            depth += cover[i]
            in_unit[i] = 1.0 if depth > 0 else 0.0
    finally:
        free(counts)
        free(cover)


def stage1_fill(
    list texts, double[:, ::1] x, const int64_t[::1] words, const int64_t[::1] links,
    const int64_t[::1] element, const int64_t[::1] start, const int64_t[::1] firsts,
    const unsigned char[::1] boiler, const int64_t[::1] group, const double[::1] sib,
    const int64_t[::1] depth, const int64_t[::1] hints, const int64_t[::1] ahints,
    const int64_t[::1] inside, const double[::1] el_words, const double[::1] parent_words,
    const double[::1] el_ld, const double[::1] parent_ld, long total_words, int n_block, int n_tags,
    int n_hints, int n_anc,
):
    """The per-block columns of features.stage1_matrix, all but the last (``in_unit``), into ``x``.

    Per element (indexed by a block's ``element``): its tag group, same-tag sibling count, depth,
    own / ancestor hint bits, ancestor groups, words, its parent's words, its and its parent's
    link density. ``firsts``: the index of each block text's first occurrence; ``boiler``: 1 for
    blocks whose text names boilerplate. Same formulas as the numpy code (see features.py), in
    the same floating-point operations.
    """
    cdef Py_ssize_t n = len(texts), i, j, k, m
    cdef double total = total_words if total_words > 1 else 1.0
    cdef double w, lw, logs, lds, pos, punct, sum_links = 0.0, length
    cdef double *share
    cdef int64_t e, count
    cdef int64_t *rep
    cdef Py_UCS4 ch, last
    cdef bint upper, heading
    cdef double state = 0.0, seen = 0.0
    cdef str text
    if n == 0:
        return
    share = <double *> calloc(n_hints, sizeof(double))
    rep = <int64_t *> calloc(n, sizeof(int64_t))
    if share == NULL or rep == NULL:
        free(share)
        free(rep)
        raise MemoryError()
    try:
        for i in range(n):
            sum_links += <double> links[i]
            rep[firsts[i]] += 1
            e = element[i]
            for k in range(n_hints):
                if (ahints[e] >> k) & 1:
                    share[k] += <double> words[i]
        for k in range(n_hints):
            share[k] = share[k] / total
        for i in range(n):
            text = <str> texts[i]
            w = <double> words[i]
            lw = <double> links[i]
            e = element[i]
            logs = log1p(w)
            lds = lw / w
            pos = (<double> start[i]) / total
            punct = 0.0
            last = 0
            for ch in text:
                if ch == 46 or ch == 44 or ch == 59 or ch == 63 or ch == 33:
                    punct += 1.0
                last = ch
            length = <double> len(text)
            upper = Py_UNICODE_ISUPPER(text[0]) if len(text) else False
            x[i, 0] = 1.0
            x[i, 1] = logs
            x[i, 2] = lds
            x[i, 3] = lds * logs
            x[i, 4] = 1.0 if w >= 20 else 0.0
            x[i, 5] = punct / w if punct / w < 1.0 else 1.0
            x[i, 6] = 1.0 if (last == 46 or last == 33 or last == 63 or last == 58) else 0.0
            x[i, 7] = pos
            x[i, 8] = pos * pos
            if i == 0:
                x[i, 9] = 0.0
                x[i, 10] = 1.0
            else:
                x[i, 9] = log1p(<double> words[i - 1])
                x[i, 10] = (<double> links[i - 1]) / (<double> words[i - 1])
            if i == n - 1:
                x[i, 11] = 0.0
                x[i, 12] = 1.0
            else:
                x[i, 11] = log1p(<double> words[i + 1])
                x[i, 12] = (<double> links[i + 1]) / (<double> words[i + 1])
            x[i, 13] = (<double> depth[e]) / 20.0 if (<double> depth[e]) / 20.0 < 2.0 else 2.0
            x[i, 14] = log1p(total)
            x[i, 15] = sum_links / total
            x[i, 16] = el_words[e] / total
            x[i, 17] = parent_words[e] / total
            x[i, 18] = log(sib[e])
            x[i, 19] = 1.0 if lw >= w else 0.0
            x[i, 20] = 1.0 if upper else 0.0
            x[i, 21] = 1.0 if w <= 3 else 0.0
            x[i, 22] = 1.0 if w <= 10 else 0.0
            x[i, 23] = length / w / 10.0 if length / w / 10.0 < 2.0 else 2.0
            x[i, 24] = 1.0 if rep[firsts[i]] > 1 else 0.0
            x[i, 25] = 1.0 if firsts[i] != i else 0.0
            k = n_block
            for m in range(n_tags):
                x[i, k + m] = 1.0 if group[e] == m else 0.0
            k += n_tags
            for m in range(n_hints):
                x[i, k + m] = <double> ((ahints[e] >> m) & 1)
            k += n_hints
            for m in range(n_hints):
                x[i, k + m] = <double> ((hints[e] >> m) & 1)
            k += n_hints
            for m in range(n_anc):
                x[i, k + m] = <double> ((inside[e] >> m) & 1)
            k += n_anc
            for m in range(n_hints):
                x[i, k + m] = share[m]
            k += n_hints
            for m in range(n_hints):
                x[i, k + m] = <double> ((ahints[e] >> m) & 1) * share[m]
            k += n_hints
            x[i, k] = el_ld[e]
            x[i, k + 1] = parent_ld[e]
            # Boilerplate-naming blocks; under a heading that names boilerplate; after a content
            # heading (one that does not).
            heading = group[e] == 0
            if heading:
                state = 1.0 if boiler[i] else 0.0
                if not boiler[i]:
                    seen = 1.0
            x[i, k + 2] = 1.0 if boiler[i] else 0.0
            x[i, k + 3] = state
            x[i, k + 4] = seen
    finally:
        free(share)
        free(rep)


# --------------------------------------------------------------------------- the nesting guard
# lexbor's tree builder is quadratic in nesting depth (100,000 nested <div>s take over a minute)
# and in the attributes of one tag. guard_markup finds both with one scan of the tags and, only
# when a limit is passed, rewrites the markup: tags nested deeper than the limit are dropped (their
# text stays) and attributes past the limit are dropped. Void and self-closing-in-practice tags
# (p, li, td…, whose end tags are often omitted) do not count as nesting.

cdef inline bint is_name_char(unsigned char c) noexcept nogil:
    return is_word_char(c) or c == b'-' or c == b':' or c >= 0x80


cdef inline bint is_tag_space(unsigned char c) noexcept nogil:
    return c == 32 or c == 9 or c == 10 or c == 12 or c == 13


cdef bint no_nesting(const unsigned char *p, size_t n) noexcept nogil:
    """Void elements, those whose end tag is routinely omitted and those a parser never nests in
    themselves (by lower-cased name): area base br col embed hr img input link meta param source
    track wbr keygen, p li dt dd tr td th tbody thead tfoot option optgroup rb rt rtc rp colgroup
    caption html head body, a button form nobr h1-h6."""
    cdef unsigned char b[8]
    cdef size_t k
    if n == 0 or n > 8:
        return False
    for k in range(n):
        b[k] = <unsigned char> lower(p[k])
    if n == 1:
        return b[0] == b'p' or b[0] == b'a'
    if n == 2:
        return (
            (b[0] == b'h' and b'1' <= b[1] <= b'6')
            or (b[1] == b'r' and (b[0] == b'b' or b[0] == b'h' or b[0] == b't'))
            or (b[0] == b'l' and b[1] == b'i')
            or (b[0] == b'd' and (b[1] == b't' or b[1] == b'd'))
            or (b[0] == b't' and (b[1] == b'd' or b[1] == b'h'))
            or (b[0] == b'r' and (b[1] == b'b' or b[1] == b't' or b[1] == b'p'))
        )
    if n == 3:
        return memcmp(b, b"col", 3) == 0 or memcmp(b, b"img", 3) == 0 or memcmp(b, b"wbr", 3) == 0 \
            or memcmp(b, b"rtc", 3) == 0
    if n == 4:
        return memcmp(b, b"area", 4) == 0 or memcmp(b, b"base", 4) == 0 or memcmp(b, b"link", 4) == 0 \
            or memcmp(b, b"meta", 4) == 0 or memcmp(b, b"html", 4) == 0 or memcmp(b, b"head", 4) == 0 \
            or memcmp(b, b"body", 4) == 0 or memcmp(b, b"form", 4) == 0 or memcmp(b, b"nobr", 4) == 0
    if n == 5:
        return memcmp(b, b"embed", 5) == 0 or memcmp(b, b"input", 5) == 0 or memcmp(b, b"param", 5) == 0 \
            or memcmp(b, b"track", 5) == 0 or memcmp(b, b"tbody", 5) == 0 or memcmp(b, b"thead", 5) == 0 \
            or memcmp(b, b"tfoot", 5) == 0
    if n == 6:
        return memcmp(b, b"source", 6) == 0 or memcmp(b, b"keygen", 6) == 0 or memcmp(b, b"option", 6) == 0 \
            or memcmp(b, b"button", 6) == 0
    if n == 7:
        return memcmp(b, b"caption", 7) == 0
    return memcmp(b, b"optgroup", 8) == 0 or memcmp(b, b"colgroup", 8) == 0


cdef size_t attribute_end(const unsigned char *p, size_t i, size_t n, size_t *name_end) noexcept nogil:
    """At an attribute's first character (taken into its name whatever it is, "=" included, as
    the HTML tokenizer does): one past the attribute, its value included (the spaces after a bare
    name are left to separate it from the next); ``n + 1`` when a quoted value is left open.
    ``name_end``: one past its name."""
    cdef size_t value, value_end
    return attribute_parts(p, i, n, name_end, &value, &value_end)


cdef size_t attribute_parts(const unsigned char *p, size_t i, size_t n, size_t *name_end, size_t *value,
                            size_t *value_end) noexcept nogil:
    """:func:`attribute_end`, and where the value is: ``p[value:value_end]`` (its quotes left
    out), ``value`` is ``n + 1`` for an attribute without one."""
    cdef const unsigned char *found
    value[0] = value_end[0] = n + 1
    i += 1
    while i < n and not _tag_class[p[i]]:
        i += 1
    name_end[0] = i
    while i < n and _tag_class[p[i]] == C_SPACE:
        i += 1
    if i >= n or p[i] != b'=':
        return name_end[0]
    i += 1
    while i < n and _tag_class[p[i]] == C_SPACE:
        i += 1
    if i < n and (p[i] == b'"' or p[i] == b"'"):
        found = <const unsigned char *> memchr(p + i + 1, p[i], n - i - 1) if i + 1 < n else NULL
        value[0] = i + 1
        value_end[0] = found - p if found != NULL else n
        return (found - p) + 1 if found != NULL else n + 1
    value[0] = i
    while i < n and not (_tag_class[p[i]] & (C_SPACE | C_GT)):
        i += 1
    value_end[0] = i
    return i


cdef size_t tag_end(const unsigned char *p, size_t i, size_t n, size_t max_attrs, size_t *attrs,
                    size_t *cut) noexcept nogil:
    """From just after a start tag's name: one past its ``>`` (or ``n``); ``attrs`` its attribute
    count, ``cut`` where its ``max_attrs``-th attribute ends (``n`` when it has no more)."""
    cdef size_t name_end
    attrs[0] = 0
    cut[0] = n
    while i < n:
        while i < n and (is_tag_space(p[i]) or p[i] == b'/'):
            i += 1
        if i >= n:
            return n
        if p[i] == b'>':
            return i + 1
        i = attribute_end(p, i, n, &name_end)
        if i == name_end:  # a bare name: the cut keeps the spaces after it (as the Python guard)
            while i < n and is_tag_space(p[i]):
                i += 1
        attrs[0] += 1
        if attrs[0] == max_attrs:
            cut[0] = i if i < n else n
    return n


def guard_markup(bytes markup, size_t max_depth, size_t max_attrs):
    """``(markup, None)`` when no element nests deeper than ``max_depth`` and no tag has more than
    ``max_attrs`` attributes; else ``(rewritten markup, reason)`` with reason ``"depth"`` or
    ``"attributes"`` (see the section comment)."""
    cdef const unsigned char *p = markup
    cdef size_t n = len(markup)
    cdef int ev
    cdef bint rewrite = False
    cdef int pass_no
    cdef size_t i, j, name_start, name_len, depth, max_seen, attrs, cut, end, emit_from
    cdef const unsigned char *found
    cdef bint deep_tags = False, many_attrs = False
    cdef Buf out
    out.data = NULL
    out.length = out.size = 0
    try:
        for pass_no in range(2):  # 0: measure; 1: rewrite (only when a limit was passed)
            if pass_no == 1 and not (deep_tags or many_attrs):
                break
            i = 0
            depth = 0
            max_seen = 0
            emit_from = 0
            while i < n:
                found = <const unsigned char *> memchr(p + i, b'<', n - i)
                if found == NULL:
                    break
                i = found - p
                if i + 1 >= n:
                    break
                if p[i + 1] == b'!':  # comment, doctype, CDATA: to the end of the comment or ">"
                    if i + 3 < n and p[i + 2] == b'-' and p[i + 3] == b'-':
                        j = i + 4
                        while j + 2 < n and not (p[j] == b'-' and p[j + 1] == b'-' and p[j + 2] == b'>'):
                            j += 1
                        i = j + 3
                    else:
                        found = <const unsigned char *> memchr(p + i, b'>', n - i)
                        i = (found - p) + 1 if found != NULL else n
                    continue
                if p[i + 1] == b'/':  # an end tag
                    name_start = i + 2
                    j = name_start
                    while j < n and is_name_char(p[j]):
                        j += 1
                    name_len = j - name_start
                    found = <const unsigned char *> memchr(p + j, b'>', n - j) if j < n else NULL
                    end = (found - p) + 1 if found != NULL else n
                    if name_len and not no_nesting(p + name_start, name_len) and depth > 0:
                        if pass_no == 1 and depth > max_depth:
                            buf_add(&out, p + emit_from, i - emit_from)  # the end tag is dropped
                            emit_from = end
                        depth -= 1
                    i = end
                    continue
                if not is_word_char(p[i + 1]):
                    i += 1
                    continue
                name_start = i + 1
                j = name_start
                while j < n and is_name_char(p[j]):
                    j += 1
                name_len = j - name_start
                # Each attribute takes two bytes at least, so a tag that closes within 2 x max_attrs
                # bytes, with no quote before that ">", needs no attribute count (the fast path).
                found = <const unsigned char *> memchr(p + j, b'>', n - j) if j < n else NULL
                if found != NULL and <size_t> (found - p) - j < 2 * max_attrs \
                        and memchr(p + j, b'"', (found - p) - j) == NULL \
                        and memchr(p + j, b"'", (found - p) - j) == NULL:
                    end = (found - p) + 1
                    attrs = 0
                else:
                    end = tag_end(p, j, n, max_attrs, &attrs, &cut)
                if attrs > max_attrs:
                    many_attrs = True
                    if pass_no == 1:  # keep the first max_attrs attributes
                        buf_add(&out, p + emit_from, cut - emit_from)
                        buf_add(&out, <const unsigned char *> b">", 1)
                        emit_from = end
                if not no_nesting(p + name_start, name_len):
                    depth += 1
                    if depth > max_seen:
                        max_seen = depth
                    if depth > max_depth:
                        deep_tags = True
                        if pass_no == 1 and emit_from <= i:  # the start tag is dropped
                            buf_add(&out, p + emit_from, i - emit_from)
                            emit_from = end
                i = end
            if pass_no == 1:
                buf_add(&out, p + emit_from, n - emit_from)
                return (
                    PyBytes_FromStringAndSize(<const char *> out.data, out.length),
                    "depth" if deep_tags else "attributes",
                )
        return markup, None
    finally:
        free(out.data)


# --------------------------------------------------------------------------- unread attributes
# After the cut, a third of a page's bytes are attributes that nothing reads (data-*, src, srcset,
# href, aria-*, on*...): lexbor tokenizes each, allocates it, and the walk steps over it.
# strip_attributes drops them from start tags, following the tokenizer of the HTML standard for
# what is a tag and where an attribute ends: comments, bogus comments, end tags and the text of
# raw-text elements (title, textarea, JSON-LD scripts...) are copied as they are. Where the
# tokenizer's state would depend on the tree, the rest of the page is left as it is: a tag that
# does not end (a quote left open to the end), SVG or MathML that the cut left (CDATA and raw text
# follow other rules there), a frameset, raw text inside a <select> (parsers differ on it), a
# script holding "<!--" (its escapes may carry it past its first "</script>"). What stays is
# every attribute the extractor, the metadata and the link reader read (the href of <a>, <area>,
# <base> and <link>, an image's alt, the lang of <html>), and those the tree
# builder acts on (``type``
# of an <input> in a table, ``encoding`` of MathML's annotation-xml, ``color``/``face``/``size``
# of a <font> in foreign content), byte for byte.

cdef inline bint is_ascii_letter(unsigned char c) noexcept nogil:
    return (c | 32) >= b'a' and (c | 32) <= b'z'


cdef inline bint attr_kept(const unsigned char *p, size_t n) noexcept nogil:
    """Whether an attribute named ``p[:n]`` (any ASCII case) is one to keep."""
    return word_index(&_kept_attr_words, p, n, True) != 0


cdef inline bint href_tag(const unsigned char *name, size_t m) noexcept nogil:
    """Whether a start tag named ``name[:m]`` keeps its ``href``: ``a``, ``area``, ``base``, ``link``
    (the page's links, its base URL and its canonical address)."""
    if m == 1:
        return (name[0] | 32) == b'a'
    if m != 4:
        return False
    return (
        u_is(name, 0, 4, b"area") or u_is(name, 0, 4, b"base") or u_is(name, 0, 4, b"link")
    )


cdef size_t scan_tag(const unsigned char *p, size_t i, size_t n, LongVec *drops, bint anchor) except? 0:
    """From just after a tag's name: one past the tag's ``>``, or 0 when the page ends inside it.
    With ``drops``, the spans of the attributes to drop (each with the separator before it) are
    pushed onto it as ``start, end`` pairs; an ``<a>``, ``<area>``, ``<base>`` or ``<link>``
    (``anchor``) keeps its ``href`` too (the page's links, its base and canonical URLs)."""
    cdef size_t sep, name, name_end
    while True:
        sep = i
        while i < n and _tag_class[p[i]] & (C_SPACE | C_SLASH):
            i += 1
        if i >= n:
            return 0
        if p[i] == b'>':
            return i + 1
        name = i
        i = attribute_end(p, i, n, &name_end)
        if i > n:  # a quoted value left open
            return 0
        if drops != NULL and not attr_kept(p + name, name_end - name) \
                and not (anchor and u_is(p, name, name_end, b"href")):
            # With its separator only when a space or the tag's ">" follows: else (a="1"b="2",
            # or a "/" that would run on an unquoted value before) the separator stays.
            if i < n and not (is_tag_space(p[i]) or p[i] == b'>'):
                sep = name
            vec_push(drops, sep)
            vec_push(drops, i)


def strip_attributes(bytes markup):
    """``markup`` (UTF-8) without the attributes of its start tags that nothing reads (see the
    section comment); the same object when there are none."""
    cdef const unsigned char *p = markup
    cdef size_t n = len(markup)
    cdef size_t i = 0, pos = 0, j, end, k, m
    cdef bint in_select = False
    cdef int tag
    cdef const unsigned char *found
    cdef LongVec drops
    cdef Buf out
    cdef unsigned char name[16]
    drops.data = NULL
    drops.length = drops.size = 0
    out.data = NULL
    out.length = out.size = 0
    try:
        while i + 1 < n:
            found = <const unsigned char *> memchr(p + i, b'<', n - i)
            if found == NULL:
                break
            i = found - p
            if i + 1 >= n:
                break
            if p[i + 1] == b'!':  # a comment, bogus comment, DOCTYPE or (HTML content) CDATA
                end = u_markup_decl_end(p, i, n, False)
                if end == 0:  # it runs to the end of the page
                    break
                i = end
                continue
            if p[i + 1] == b'?':
                i = find_bytes(p, i + 2, n, b">", 1) + 1
                continue
            if p[i + 1] == b'/':
                if i + 2 < n and is_ascii_letter(p[i + 2]):  # an end tag: its attributes are ignored
                    j = u_name_end(p, i + 2, n)
                    if in_select and word_index(&_strip_tag_words, p + i + 2, j - i - 2, True) == ST_SELECT:
                        in_select = False  # </select>
                    end = scan_tag(p, j, n, NULL, False)
                    if end == 0:
                        break
                    i = end
                else:  # "</>" is dropped, "</ x>" is a bogus comment: to ">"
                    i = find_bytes(p, i + 2, n, b">", 1) + 1
                continue
            if not is_ascii_letter(p[i + 1]):  # a "<" in text
                i += 1
                continue
            j = u_name_end(p, i + 1, n)
            m = j - i - 1
            drops.length = 0
            end = scan_tag(p, j, n, &drops, href_tag(p + i + 1, m))
            if end == 0:  # the page ends inside this tag: left as it is, and so is the rest
                break
            for k in range(0, drops.length, 2):
                buf_add(&out, p + pos, <size_t> drops.data[k] - pos)
                pos = <size_t> drops.data[k + 1]
            i = end
            tag = word_index(&_strip_tag_words, p + j - m, m, True)
            if tag >= ST_SVG or tag == ST_PLAINTEXT:
                # SVG or MathML (not cut: unclosed), where CDATA sections and raw text follow
                # other rules, a frameset, or text to the end: the rest is left as it is.
                break
            if tag == ST_SELECT:
                in_select = True
            elif tag:  # an element whose content is text, to its end tag
                if in_select and tag > ST_TEXTAREA:
                    break  # in a <select>, whether <title>, <style>... hold text depends on the parser
                for k in range(m):
                    name[k] = <unsigned char> lower(p[j - m + k])
                i = u_raw_end(p, i, n, name, m)
                if tag == ST_SCRIPT and find_bytes(p, end, i, b"<!--", 4) < i:
                    break  # a script with "<!--" may run past its first "</script>" (escapes)
        if pos == 0:
            return markup
        buf_add(&out, p + pos, n - pos)
        return PyBytes_FromStringAndSize(<const char *> out.data, out.length)
    finally:
        free(drops.data)
        free(out.data)


# --------------------------------------------------------------------------- stage-2 features


def stage2_fill(
    const double[::1] p1, const int64_t[::1] words, const int64_t[::1] links,
    const int64_t[::1] element, const unsigned char[::1] inside_el, const int64_t[::1] parent,
    const int64_t[::1] ahints, const double[::1] in_unit, long best, double share, double total_pw,
    double[:, ::1] x, long nav_bit, long side_bit, long comment_bit,
):
    """The rows of features.stage2_matrix into ``x``, in the numpy code's floating-point
    operations (sequential sums as ``cumsum`` and ``bincount`` do them; ``total_pw`` is numpy's
    ``(p1 * w).sum()``). ``parent`` has the body as its own parent; ``in_unit`` may be empty."""
    cdef Py_ssize_t n = p1.shape[0], n_el = parent.shape[0], i, k, lo, hi, e
    cdef double *acc_p
    cdef double *acc_w
    cdef double *cum
    cdef double *mass
    cdef double p, w, cm, tot, solo, run, denom, inside
    cdef bint any_inside = False, has_unit = in_unit.shape[0] == n
    cdef Py_ssize_t first_sure = -1, last_sure = -1, prev_sure, next_sure
    cdef int64_t key
    if n == 0:
        return
    acc_p = <double *> calloc(n_el + 1, sizeof(double))
    acc_w = <double *> calloc(n_el + 1, sizeof(double))
    cum = <double *> calloc(n + 1, sizeof(double))
    mass = <double *> calloc(n, sizeof(double))
    if acc_p == NULL or acc_w == NULL or cum == NULL or mass == NULL:
        free(acc_p)
        free(acc_w)
        free(cum)
        free(mass)
        raise MemoryError()
    try:
        for i in range(n):
            e = element[i]
            w = <double> words[i]
            key = parent[e] + 1 if e != 0 else 0
            acc_p[key] += p1[i] * w
            acc_w[key] += w
            cum[i + 1] = cum[i] + p1[i]
            if inside_el[e]:
                any_inside = True
            if p1[i] >= 0.7 and words[i] >= 10:
                if first_sure < 0:
                    first_sure = i
                last_sure = i
        cm = 0.0
        for i in range(n):
            w = <double> words[i]
            mass[i] = p1[i] * w * (1.0 if inside_el[element[i]] else 0.0) if any_inside else p1[i] * w
            cm += mass[i]
        tot = cm if cm > 0 else 1.0
        denom = total_pw if total_pw > 1.0 else 1.0
        cm = 0.0
        run = 0.0
        prev_sure = -1
        next_sure = 0
        for i in range(n):
            e = element[i]
            w = <double> words[i]
            p = p1[i]
            if p < 1e-6:
                p = 1e-6
            elif p > 1 - 1e-6:
                p = 1 - 1e-6
            lo = i - 2 if i >= 2 else 0
            hi = i + 3 if i + 3 <= n else n
            key = parent[e] + 1 if e != 0 else 0
            inside = 1.0 if inside_el[e] else 0.0
            x[i, 0] = p
            x[i, 1] = log(p / (1 - p))
            x[i, 2] = (cum[hi] - cum[lo]) / <double> (hi - lo)
            x[i, 3] = acc_p[key] / acc_w[key]
            x[i, 4] = inside
            x[i, 5] = share
            x[i, 6] = 1.0 if best == 0 else 0.0
            x[i, 7] = log1p(w) * inside
            x[i, 8] = (<double> links[i]) / w * inside
            x[i, 9] = inside * (1.0 if ahints[e] & comment_bit else 0.0)
            x[i, 10] = inside * (1.0 if ahints[e] & side_bit else 0.0)
            x[i, 11] = inside * (1.0 if ahints[e] & nav_bit else 0.0)
            cm += mass[i]
            x[i, 12] = (cm - mass[i]) / tot
            x[i, 13] = (tot - cm) / tot
            if first_sure >= 0:
                if p1[i] >= 0.7 and words[i] >= 10:
                    prev_sure = i
                while next_sure < n and not (next_sure >= i and p1[next_sure] >= 0.7 and words[next_sure] >= 10):
                    next_sure += 1
                x[i, 14] = log1p(<double> (i - prev_sure if prev_sure >= 0 and i - prev_sure < 50 else 50))
                x[i, 15] = log1p(<double> (next_sure - i if next_sure < n and next_sure - i < 50 else 50))
                x[i, 16] = 1.0 if first_sure <= i <= last_sure else 0.0
            else:
                x[i, 14] = log1p(50.0)
                x[i, 15] = log1p(50.0)
                x[i, 16] = 0.0
            if has_unit:
                solo = p1[i] * w * (1.0 - in_unit[i])
                run += solo
                x[i, 17] = in_unit[i] * ((run - solo) / denom)
            else:
                x[i, 17] = 0.0
    finally:
        free(acc_p)
        free(acc_w)
        free(cum)
        free(mass)


# --------------------------------------------------------------------------- tree ensemble

def forest_raw(
    const double[:, ::1] x, const int64_t[::1] feature, const double[::1] threshold,
    const int64_t[::1] left, const int64_t[::1] right, const double[::1] leaf,
    const int64_t[::1] roots, double[::1] out,
):
    """The summed leaf values of a tree ensemble for every row of ``x``, into ``out``.

    Nodes of all trees share one table: node ``k`` sends a row to ``left[k]`` when
    ``x[row, feature[k]] <= threshold[k]``, else to ``right[k]``; a child (or a root) ``c < 0`` is
    the leaf ``~c`` with value ``leaf[~c]``. Same arithmetic as forest.forest_raw_numpy.
    """
    cdef Py_ssize_t n = x.shape[0], n_trees = roots.shape[0], i, t
    cdef int64_t node
    cdef double acc
    with nogil:
        for i in range(n):
            acc = 0.0
            for t in range(n_trees):
                node = roots[t]
                while node >= 0:
                    if x[i, feature[node]] <= threshold[node]:
                        node = left[node]
                    else:
                        node = right[node]
                acc += leaf[~node]
            out[i] = acc



cdef extern from *:
    int __builtin_ctzll(unsigned long long x) nogil


def forest_masks(
    const double[:, ::1] x, const int64_t[::1] feature, const int64_t[::1] offset,
    const double[::1] threshold, const int64_t[::1] tree, const uint64_t[::1] mask,
    const double[::1] leaf, Py_ssize_t stride, double[::1] out,
):
    """:func:`forest_raw` by leaf masks (QuickScorer, Lucchese et al. 2015), into ``out``.

    Each tree's leaves are numbered left to right (at most 64); a row starts with every leaf of
    every tree possible and, per feature ``feature[j]``, takes the splits on it in ascending
    ``threshold`` (``offset[j]`` to ``offset[j + 1]``) until one the row's value does not exceed:
    each split the row goes right at removes its left subtree's leaves from its tree's mask
    (``tree[k]``, ``mask[k]``). The exit leaf is the leftmost left, ``leaf[tree * stride + k]``.
    Few branches the processor cannot guess (one per feature), where walking the trees takes one
    per split. The trees are summed in the same order, so the sums equal forest_raw's bit for bit.
    """
    cdef Py_ssize_t n = x.shape[0], n_trees = leaf.shape[0] // stride if stride > 0 else 0
    cdef Py_ssize_t i, j, k, t, stop
    cdef double v, acc
    cdef uint64_t *live
    if n == 0:
        return
    live = <uint64_t *> malloc((n_trees if n_trees else 1) * sizeof(uint64_t))
    if live == NULL:
        raise MemoryError()
    with nogil:
        for i in range(n):
            for t in range(n_trees):
                live[t] = ~(<uint64_t> 0)
            for j in range(feature.shape[0]):
                v = x[i, feature[j]]
                stop = offset[j + 1]
                k = offset[j]
                while k < stop and not (v <= threshold[k]):
                    live[tree[k]] &= mask[k]
                    k += 1
            acc = 0.0
            for t in range(n_trees):
                acc += leaf[t * stride + __builtin_ctzll(live[t])]
            out[i] = acc
    free(live)

include "_tree.pxi"
