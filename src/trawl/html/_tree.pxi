# --------------------------------------------------------------------------- the lite tree
# (Included by _walk.pyx.) A tree builder after the HTML standard's, for what the walk and the
# metadata read: elements (lexbor's tag ids), the attributes they read, and text. It builds its
# nodes with the leading fields of lexbor's node structs, so the walk, hidden_sizes and the
# metadata scan read them unchanged (their attributes through this file's accessors). Children
# are explicit lists while building (the adoption agency and foster parenting move and insert
# nodes), turned into lexbor-style pointers at the end (LiteTree.link). Where the standard's tree
# construction depends on more than this builds (foreign content, framesets, <plaintext>, a
# template whose content starts as a table's, quirks decided by an unusual DOCTYPE, NUL
# characters, deep nesting), it gives up with a reason and the page goes to lexbor
# (blocks.parse_page); tests hold the two to the same blocks and metadata on real pages and on
# fuzzed tag soup.

DEF T_UNKNOWN = 0
DEF T_HTML = 1
DEF T_HEAD = 2
DEF T_BODY = 3
DEF T_TITLE = 4
DEF T_META = 5
DEF T_LINK = 6
DEF T_BASE = 7
DEF T_BASEFONT = 8
DEF T_BGSOUND = 9
DEF T_STYLE = 10
DEF T_SCRIPT = 11
DEF T_NOSCRIPT = 12
DEF T_NOFRAMES = 13
DEF T_TEMPLATE = 14
DEF T_FRAMESET = 15
DEF T_FRAME = 16
DEF T_ADDRESS = 17
DEF T_ARTICLE = 18
DEF T_ASIDE = 19
DEF T_BLOCKQUOTE = 20
DEF T_CENTER = 21
DEF T_DETAILS = 22
DEF T_DIALOG = 23
DEF T_DIR = 24
DEF T_DIV = 25
DEF T_DL = 26
DEF T_FIELDSET = 27
DEF T_FIGCAPTION = 28
DEF T_FIGURE = 29
DEF T_FOOTER = 30
DEF T_HEADER = 31
DEF T_HGROUP = 32
DEF T_MAIN = 33
DEF T_MENU = 34
DEF T_NAV = 35
DEF T_OL = 36
DEF T_P = 37
DEF T_SEARCH = 38
DEF T_SECTION = 39
DEF T_SUMMARY = 40
DEF T_UL = 41
DEF T_H1 = 42
DEF T_H2 = 43
DEF T_H3 = 44
DEF T_H4 = 45
DEF T_H5 = 46
DEF T_H6 = 47
DEF T_PRE = 48
DEF T_LISTING = 49
DEF T_FORM = 50
DEF T_LI = 51
DEF T_DD = 52
DEF T_DT = 53
DEF T_PLAINTEXT = 54
DEF T_BUTTON = 55
DEF T_A = 56
DEF T_B = 57
DEF T_BIG = 58
DEF T_CODE = 59
DEF T_EM = 60
DEF T_FONT = 61
DEF T_I = 62
DEF T_S = 63
DEF T_SMALL = 64
DEF T_STRIKE = 65
DEF T_STRONG = 66
DEF T_TT = 67
DEF T_U = 68
DEF T_NOBR = 69
DEF T_APPLET = 70
DEF T_MARQUEE = 71
DEF T_OBJECT = 72
DEF T_TABLE = 73
DEF T_AREA = 74
DEF T_BR = 75
DEF T_EMBED = 76
DEF T_IMG = 77
DEF T_KEYGEN = 78
DEF T_WBR = 79
DEF T_INPUT = 80
DEF T_PARAM = 81
DEF T_SOURCE = 82
DEF T_TRACK = 83
DEF T_HR = 84
DEF T_IMAGE = 85
DEF T_TEXTAREA = 86
DEF T_XMP = 87
DEF T_IFRAME = 88
DEF T_NOEMBED = 89
DEF T_SELECT = 90
DEF T_OPTGROUP = 91
DEF T_OPTION = 92
DEF T_RB = 93
DEF T_RTC = 94
DEF T_RP = 95
DEF T_RT = 96
DEF T_RUBY = 97
DEF T_MATH = 98
DEF T_SVG = 99
DEF T_CAPTION = 100
DEF T_COL = 101
DEF T_COLGROUP = 102
DEF T_TBODY = 103
DEF T_TD = 104
DEF T_TFOOT = 105
DEF T_TH = 106
DEF T_THEAD = 107
DEF T_TR = 108

DEF LITE_UNKNOWN_ID = 0x100000  # local_name of elements without a lexbor static id (>= N_TAGS)
DEF MAX_TREE_TAGS = 256
DEF TAG_SLOTS = 1024  # the name table's open addressing (a power of two)
DEF LITE_MAX_DEPTH = 400  # the open elements' stack (scope searches are linear in it)

# Flags per tag code.
DEF F_SPECIAL = 1
DEF F_FORMAT = 2
DEF F_CLOSE_P = 4  # its start tag closes a <p> in button scope
DEF F_IMPLIED = 8  # popped by "generate implied end tags"
DEF F_THOROUGH = 16  # ... thoroughly
DEF F_SCOPE = 32  # bounds the default scope
DEF F_HEADING = 128
DEF F_BLOCK_END = 256  # end tag: if in scope, implied end tags, pop to it
DEF F_HEAD_START = 512  # base basefont bgsound link meta noframes script style template title

# Insertion modes.
DEF M_INITIAL = 0
DEF M_BEFORE_HTML = 1
DEF M_BEFORE_HEAD = 2
DEF M_IN_HEAD = 3
DEF M_IN_HEAD_NOSCRIPT = 4
DEF M_AFTER_HEAD = 5
DEF M_IN_BODY = 6
DEF M_IN_TABLE = 7
DEF M_IN_CAPTION = 8
DEF M_IN_COLUMN_GROUP = 9
DEF M_IN_TABLE_BODY = 10
DEF M_IN_ROW = 11
DEF M_IN_CELL = 12
DEF M_AFTER_BODY = 13
DEF M_AFTER_AFTER_BODY = 14

# What a start tag leaves the tokenizer in.
DEF RAW_NONE = 0
DEF RAW_RCDATA = 1
DEF RAW_TEXT = 2
DEF RAW_SCRIPT = 3

DEF Q_NO = 0
DEF Q_QUIRKS = 1
DEF Q_UNKNOWN = 2

DEF DONE = 0
DEF AGAIN = 1  # the token is processed again, in the mode now set
DEF BAIL = -1


cdef struct LAttr:
    LAttr *next
    const unsigned char *name  # lower case, static (the kept attribute names)
    size_t name_len
    const unsigned char *value  # NULL: no value
    size_t value_len
    size_t v_off  # while building: the value's offset in the strings


cdef struct LNode:
    lxb_dom_node_t node
    lexbor_str_t data  # a text node's UTF-8 (as lxb_dom_character_data_t)
    LAttr *attrs
    int parent_i  # while building: the parent and the child list, as node indices (-1: none)
    int first_i, last_i, next_i, prev_i
    int tag  # tag code; -1 text
    size_t off  # text: offset in the text buffer; unknown element: its name's offset in the strings
    size_t length  # unknown element: its name's length
    uint32_t a_start, a_count
    bint open  # on the stack of open elements


cdef char _lite_doc = 0  # the owner_document of every lite node: how a node's tree is told


# Attribute access for either tree: lexbor's accessors (whose addresses init received) or the
# lite nodes' own lists. The caller asks is_lite once per node (or per tree) and passes it on, so
# nothing global changes between two pages (threads may walk lexbor and lite trees at once).

cdef inline bint is_lite(lxb_dom_node_t *node) noexcept nogil:
    return node.owner_document == <void *> &_lite_doc


cdef inline void *first_attr(lxb_dom_node_t *node, bint lite) noexcept nogil:
    return <void *> (<LNode *> node).attrs if lite else _first_attr(<void *> node)


cdef inline void *next_attr(void *attr, bint lite) noexcept nogil:
    return <void *> (<LAttr *> attr).next if lite else _next_attr(attr)


cdef inline const unsigned char *attr_name(void *attr, size_t *length, bint lite) noexcept nogil:
    if lite:
        length[0] = (<LAttr *> attr).name_len
        return (<LAttr *> attr).name
    return _attr_name(attr, length)


cdef inline const unsigned char *attr_qname(void *attr, size_t *length, bint lite) noexcept nogil:
    """The name as selectolax spells it (lexbor's qualified name; the lite tree's lower case)."""
    if lite:
        length[0] = (<LAttr *> attr).name_len
        return (<LAttr *> attr).name
    return _attr_qname(attr, length)


cdef inline const unsigned char *attr_value(void *attr, size_t *length, bint lite) noexcept nogil:
    """The value, NULL for an attribute without one."""
    if lite:
        length[0] = (<LAttr *> attr).value_len
        return (<LAttr *> attr).value
    return _attr_value(attr, length)


# The tag name table: lower-case name -> code; per code its flags and lexbor id.
cdef const unsigned char *_slot_name[TAG_SLOTS]
cdef size_t _slot_len[TAG_SLOTS]
cdef int _slot_code[TAG_SLOTS]
cdef int _tt_flags[MAX_TREE_TAGS]
cdef size_t _tt_lexbor[MAX_TREE_TAGS]
cdef list _tt_names = []  # keeps the names' bytes alive
cdef dict _entities = {}  # b"amp;" -> UTF-8, b"amp" (legacy, no semicolon) -> UTF-8
cdef bint _tree_ready = False
# windows-1252 for numeric references to 0x80-0x9F (0: kept as is)
cdef uint32_t _c1[32]
_C1 = (0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
       0, 0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161,
       0x203A, 0x0153, 0, 0x017E, 0x0178)

TREE_TAGS_SPACED = 'html head body title meta link base basefont bgsound style script noscript noframes template frameset frame address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 pre listing form li dd dt plaintext button a b big code em font i s small strike strong tt u nobr applet marquee object table area br embed img keygen wbr input param source track hr image textarea xmp iframe noembed select optgroup option rb rtc rp rt ruby math svg caption col colgroup tbody td tfoot th thead tr'

_FLAG_TAGS = {
    F_SPECIAL: "address applet area article aside base basefont bgsound blockquote body br button caption center"
               " col colgroup dd details dir div dl dt embed fieldset figcaption figure footer form frame frameset"
               " h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee"
               " menu meta nav noembed noframes noscript object ol p param plaintext pre script search section"
               " select source style summary table tbody td template textarea tfoot th thead title tr track ul"
               " wbr xmp",
    F_FORMAT: "a b big code em font i nobr s small strike strong tt u",
    F_CLOSE_P: "address article aside blockquote center details dialog dir div dl fieldset figcaption figure"
               " footer header hgroup main menu nav ol p search section summary ul",
    F_IMPLIED: "dd dt li optgroup option p rb rp rt rtc",
    F_THOROUGH: "dd dt li optgroup option p rb rp rt rtc caption colgroup tbody td tfoot th thead tr",
    F_SCOPE: "applet caption html table td th marquee object template select",  # select: lexbor's
    F_HEADING: "h1 h2 h3 h4 h5 h6",
    F_BLOCK_END: "address article aside blockquote button center details dialog dir div dl fieldset figcaption"
                 " figure footer header hgroup listing main menu nav ol pre search section select summary ul",
    F_HEAD_START: "base basefont bgsound link meta noframes script style template title",
}


cdef size_t slot_of(const unsigned char *name, size_t n) noexcept nogil:
    return <size_t> (fnv1a(name, n) & (TAG_SLOTS - 1))


def init_tree(dict lexbor_ids, dict entities):
    """The lite tree's tables: ``{tag name: lexbor tag id}`` (every name in TREE_TAGS_SPACED and
    the others the walk's and metadata's tables know) and the named character references
    (``html.entities.html5``: ``{"amp;": "&", "amp": "&", ...}``)."""
    global _tree_ready, _entities
    cdef size_t s, k
    cdef int code
    for s in range(TAG_SLOTS):
        _slot_name[s] = NULL
        _slot_len[s] = 0
        _slot_code[s] = 0
    names = TREE_TAGS_SPACED.split()
    names += sorted(set(lexbor_ids) - set(names))
    if len(names) + 1 > MAX_TREE_TAGS:
        raise ValueError("too many tag names")
    _tt_names.clear()
    _tt_flags[0] = 0
    _tt_lexbor[0] = LITE_UNKNOWN_ID
    for code, name in enumerate(names, 1):
        raw = name.encode("ascii")
        _tt_names.append(raw)
        flags = 0
        for flag, spaced in _FLAG_TAGS.items():
            if name in spaced.split():
                flags |= flag
        _tt_flags[code] = flags
        ident = lexbor_ids.get(name, LITE_UNKNOWN_ID)
        _tt_lexbor[code] = ident if ident < N_TAGS else LITE_UNKNOWN_ID
        s = slot_of(raw, len(raw))
        while _slot_name[s] != NULL:
            s = (s + 1) & (TAG_SLOTS - 1)
        _slot_name[s] = <const unsigned char *> (<bytes> raw)
        _slot_len[s] = len(raw)
        _slot_code[s] = code
    _entities = {name.encode("ascii"): value.encode("utf-8", "surrogatepass") for name, value in entities.items()}
    for k in range(32):
        _c1[k] = _C1[k]
    _tree_ready = True


cdef int tag_code(const unsigned char *name, size_t n) noexcept nogil:
    """The code of a lower-case tag name, 0 when it has none."""
    cdef size_t s
    if n == 0 or n > MAX_WORD_LENGTH:
        return 0
    s = slot_of(name, n)
    while _slot_name[s] != NULL:
        if _slot_len[s] == n and memcmp(_slot_name[s], name, n) == 0:
            return _slot_code[s]
        s = (s + 1) & (TAG_SLOTS - 1)
    return 0


cdef inline bint is_alnum(unsigned char c) noexcept nogil:
    return (48 <= c <= 57) or (97 <= (c | 32) <= 122)


cdef inline int hex_value(unsigned char c) noexcept nogil:
    if 48 <= c <= 57:
        return c - 48
    if 97 <= (c | 32) <= 102:
        return (c | 32) - 87
    return -1


cdef size_t char_ref(const unsigned char *p, size_t i, size_t n, bint attr, Buf *out) except 0:
    """At an ``&`` in text (or an attribute value, ``attr``): its character reference decoded onto
    ``out`` as the HTML tokenizer decodes it; returns where the text goes on."""
    cdef size_t j = i + 1, k, digits = 0
    cdef uint32_t value = 0
    cdef int d
    cdef bint hexa = False
    if j < n and p[j] == 35:  # "#"
        j += 1
        if j < n and (p[j] | 32) == 120:  # "x"
            hexa = True
            j += 1
        while j < n:
            d = hex_value(p[j]) if hexa else (p[j] - 48 if 48 <= p[j] <= 57 else -1)
            if d < 0:
                break
            if value <= 0x10FFFF:
                value = value * (16 if hexa else 10) + d
            digits += 1
            j += 1
        if not digits:
            buf_add(out, p + i, 1)
            return i + 1
        if j < n and p[j] == 59:
            j += 1
        if value == 0 or value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            value = 0xFFFD
        elif 0x80 <= value <= 0x9F and _c1[value - 0x80]:
            value = _c1[value - 0x80]
        encode_utf8(out, &value, 0, 1)  # (never a surrogate here)
        return j
    while j < n and j - i <= 40 and is_alnum(p[j]):
        j += 1
    if j > i + 1:
        if j < n and p[j] == 59:
            found = _entities.get(PyBytes_FromStringAndSize(<const char *> p + i + 1, j - i))
            if found is not None:
                buf_add(out, <const unsigned char *> (<bytes> found), len(<bytes> found))
                return j + 1
        k = j - i - 1 if j - i - 1 < 6 else 6
        while k >= 2:
            found = _entities.get(PyBytes_FromStringAndSize(<const char *> p + i + 1, k))
            if found is not None:
                if attr and i + 1 + k < n and (p[i + 1 + k] == 61 or is_alnum(p[i + 1 + k])):
                    break  # a legacy name in an attribute, followed by "=" or a letter: as it is
                buf_add(out, <const unsigned char *> (<bytes> found), len(<bytes> found))
                return i + 1 + k
            k -= 1
    buf_add(out, p + i, 1)
    return i + 1


cdef int add_text(Buf *out, const unsigned char *p, size_t a, size_t b, bint refs, bint attr) except -1:
    """``p[a:b]`` onto ``out``: CR LF and CR as LF; with ``refs``, character references decoded."""
    cdef size_t i = a, j
    # The next "&" and CR (find_unit: memchr), each searched again only once passed (a text of
    # many CRs before its first "&" is not searched to that "&" once per line).
    cdef size_t amp = find_unit(p, a, b, 38) if refs else b, cr = find_unit(p, a, b, 13)
    while i < b:
        if amp < i:
            amp = find_unit(p, i, b, 38)
        if cr < i:
            cr = find_unit(p, i, b, 13)
        j = amp if amp < cr else cr
        buf_add(out, p + i, j - i)
        if j >= b:
            return 0
        if p[j] == 13:
            buf_add(out, <const unsigned char *> b"\n", 1)
            i = j + 2 if j + 1 < b and p[j + 1] == 10 else j + 1
        else:
            i = char_ref(p, j, b, attr, out)
    return 0


class _LiteNode:
    """What the Python side reads of a lite element: its id (``mem_id``, as selectolax names it)."""

    __slots__ = ("mem_id",)

    def __init__(self, mem_id):
        self.mem_id = mem_id


cdef class LiteTree:
    """A page's tree as :func:`build_tree` builds it; ``root`` (``<html>``), ``head`` and ``body``
    have the ``mem_id`` the walk and the metadata scan take. Its nodes live as long as it does."""

    cdef LNode *nodes
    cdef size_t n_nodes, cap_nodes
    cdef LAttr *attrs
    cdef size_t n_attrs, cap_attrs
    cdef Buf text, strs, scratch
    cdef int *stack
    cdef size_t depth
    cdef int open_by_tag[MAX_TREE_TAGS]  # how many open elements have each tag code (templates too)
    cdef int *afe  # the list of active formatting elements; -1 a marker
    cdef size_t n_afe, cap_afe
    cdef int mode, quirks, html_i, head_i, body_i, form_i, raw, guard
    cdef bint ignore_lf
    cdef bint foster  # a token of the table modes' "anything else": insertions into a table go before it
    cdef size_t max_depth, max_attrs
    cdef readonly str reason  # why the builder gave up ("" when it did not)
    cdef readonly object root, head, body
    # the token being processed
    cdef int t_tag
    cdef uint32_t t_a_start, t_a_count
    cdef size_t t_name_off, t_name_len
    cdef size_t t_seen  # kept attributes of the tag, repeated names included

    def __dealloc__(self):
        free(self.nodes)
        free(self.attrs)
        free(self.text.data)
        free(self.strs.data)
        free(self.scratch.data)
        free(self.stack)
        free(self.afe)

    # ------------------------------------------------------------------ nodes

    cdef int new_node(self, int tag) except -1:
        """A node (element ``tag``, or text when -1) whose parent is the current node."""
        cdef int k = self.new_node_detached(tag)
        if self.depth:
            self.place(k)
        return k

    cdef inline bint fostering(self) noexcept:
        """Whether an insertion at the current node now goes to the foster parent."""
        return self.depth > 0 and self.fosters(self.stack[self.depth - 1])

    cdef inline bint fosters(self, int target) noexcept:
        """Whether foster parenting is on and ``target`` is a table, a table section or a row."""
        cdef int t = self.nodes[target].tag
        return self.foster and (t == T_TABLE or t == T_TBODY or t == T_TFOOT or t == T_THEAD or t == T_TR)

    cdef void place(self, int k) noexcept:
        """Node ``k`` at the appropriate place for inserting a node (the current node's last child,
        or its foster parent's)."""
        self.place_in(self.stack[self.depth - 1], k)

    cdef void place_in(self, int target, int k) noexcept:
        """Node ``k`` at the appropriate place for inserting a node into ``target``: its last
        child, or, when fostering, before the last table (in the last template when that is more
        recent; in <html> when there is no table)."""
        cdef int last_table = -1, last_template = -1, table
        cdef size_t j
        if not self.fosters(target):
            self.append_child(target, k)
            return
        for j in range(self.depth):
            if self.nodes[self.stack[j]].tag == T_TABLE:
                last_table = <int> j
            elif self.nodes[self.stack[j]].tag == T_TEMPLATE:
                last_template = <int> j
        if last_template >= 0 and last_template > last_table:
            self.append_child(self.stack[last_template], k)
        elif last_table < 0:
            self.append_child(self.stack[0], k)
        else:
            table = self.stack[last_table]
            if self.nodes[table].parent_i >= 0:
                self.insert_before(table, k)
            else:
                self.append_child(self.stack[last_table - 1], k)

    cdef void insert_before(self, int ref, int k) noexcept:
        """Node ``k`` (taken from where it was) as the sibling just before ``ref``."""
        cdef LNode *nd
        cdef LNode *r
        self.detach(k)
        nd = &self.nodes[k]
        r = &self.nodes[ref]
        nd.parent_i = r.parent_i
        nd.next_i = ref
        nd.prev_i = r.prev_i
        if r.prev_i >= 0:
            self.nodes[r.prev_i].next_i = k
        else:
            self.nodes[r.parent_i].first_i = k
        r.prev_i = k

    cdef int new_node_detached(self, int tag) except -1:
        """A node (element ``tag``, or text when -1) in no parent yet."""
        cdef size_t want
        cdef LNode *grown
        cdef LNode *nd
        if self.n_nodes == self.cap_nodes:
            want = 2 * self.cap_nodes if self.cap_nodes else 1024
            grown = <LNode *> realloc(self.nodes, want * sizeof(LNode))
            if grown == NULL:
                raise MemoryError()
            self.nodes, self.cap_nodes = grown, want
        nd = &self.nodes[self.n_nodes]
        memset(nd, 0, sizeof(LNode))
        nd.tag = tag
        nd.parent_i = nd.first_i = nd.last_i = nd.next_i = nd.prev_i = -1
        self.n_nodes += 1
        return <int> (self.n_nodes - 1)

    cdef void detach(self, int k) noexcept:
        """Take node ``k`` out of its parent's children."""
        cdef LNode *nd = &self.nodes[k]
        if nd.parent_i < 0:
            return
        if nd.prev_i >= 0:
            self.nodes[nd.prev_i].next_i = nd.next_i
        else:
            self.nodes[nd.parent_i].first_i = nd.next_i
        if nd.next_i >= 0:
            self.nodes[nd.next_i].prev_i = nd.prev_i
        else:
            self.nodes[nd.parent_i].last_i = nd.prev_i
        nd.parent_i = nd.next_i = nd.prev_i = -1

    cdef void append_child(self, int parent, int k) noexcept:
        """Node ``k`` (taken from where it was) as the last child of ``parent``."""
        cdef LNode *nd
        cdef LNode *p
        self.detach(k)
        nd = &self.nodes[k]
        p = &self.nodes[parent]
        nd.parent_i = parent
        nd.prev_i = p.last_i
        if p.last_i >= 0:
            self.nodes[p.last_i].next_i = k
        else:
            p.first_i = k
        p.last_i = k

    cdef int push(self, int el) except -2:
        if self.depth >= LITE_MAX_DEPTH:
            self.reason = "depth"
            return BAIL
        self.stack[self.depth] = el
        self.depth += 1
        self.nodes[el].open = True
        self.open_by_tag[self.nodes[el].tag] += 1
        return 0

    cdef void pop(self) noexcept:
        if self.depth == 0:
            return
        self.depth -= 1
        cdef LNode *nd = &self.nodes[self.stack[self.depth]]
        nd.open = False
        self.open_by_tag[nd.tag] -= 1

    cdef void remove_open(self, int el) noexcept:
        """Take ``el`` off the stack of open elements, wherever it is."""
        cdef size_t k
        for k in range(self.depth):
            if self.stack[k] == el:
                self.remove_open_at(k)
                return

    cdef void remove_open_at(self, size_t k) noexcept:
        """Take the ``k``-th open element off the stack (those above it move down one)."""
        cdef int el = self.stack[k]
        memmove(&self.stack[k], &self.stack[k + 1], (self.depth - k - 1) * sizeof(int))
        self.depth -= 1
        self.nodes[el].open = False
        self.open_by_tag[self.nodes[el].tag] -= 1

    cdef void pop_through(self, int el) noexcept:
        """Pop elements until ``el`` was popped."""
        cdef int top
        while self.depth:
            top = self.stack[self.depth - 1]
            self.pop()
            if top == el:
                return

    cdef inline int current(self) noexcept:
        return self.nodes[self.stack[self.depth - 1]].tag if self.depth else -2

    cdef int insert(self, int tag, uint32_t a_start, uint32_t a_count, size_t name_off, size_t name_len) except -2:
        """An element at the current node, pushed onto the stack (void ones too: the caller pops)."""
        cdef int el = self.new_node(tag)
        self.nodes[el].a_start = a_start
        self.nodes[el].a_count = a_count
        self.nodes[el].off = name_off
        self.nodes[el].length = name_len
        if self.push(el) < 0:
            return BAIL
        return el

    cdef int insert_text(self, const unsigned char *s, size_t n) except -1:
        cdef int t, parent = self.stack[self.depth - 1] if self.depth else -1
        if n == 0:
            return 0
        t = self.nodes[parent].last_i if parent >= 0 and not self.fostering() else -1
        if t >= 0 and self.nodes[t].tag < 0 and self.nodes[t].off + self.nodes[t].length == self.text.length:
            # Text right after text in the same element joins it (as lexbor's does: "a<1<2" is
            # one text node, not one per "<"), when its bytes end the text buffer.
            self.nodes[t].length += n
            buf_add(&self.text, s, n)
            return 0
        t = self.new_node(-1)
        self.nodes[t].off = self.text.length
        self.nodes[t].length = n
        buf_add(&self.text, s, n)
        return 0

    cdef bint same_name(self, int el, int tag, size_t name_off, size_t name_len) noexcept:
        cdef LNode *nd = &self.nodes[el]
        if nd.tag != tag:
            return False
        if tag != T_UNKNOWN:
            return True
        return nd.length == name_len and memcmp(self.strs.data + nd.off, self.strs.data + name_off, name_len) == 0

    # ------------------------------------------------------------------ scopes

    cdef bint in_scope(self, int tag, int kind) noexcept:
        """Whether ``tag`` is in scope: kind 0 default, 1 list item, 2 button, 3 table; a
        heading when ``tag`` is -1."""
        cdef size_t k = self.depth
        cdef int t
        # Most calls ask for an element none of whose kind is open ("a <p> in button scope" at
        # every block start): the counts answer without the walk down the stack.
        if tag >= 0:
            if self.open_by_tag[tag] == 0:
                return False
        elif tag == -1:
            for t in range(T_H1, T_H6 + 1):
                if self.open_by_tag[t]:
                    break
            else:
                return False
        while k > 0:
            k -= 1
            t = self.nodes[self.stack[k]].tag
            if t == tag or (tag == -1 and _tt_flags[t] & F_HEADING):
                return True
            if kind == 3:
                if t == T_HTML or t == T_TABLE or t == T_TEMPLATE:
                    return False
            elif _tt_flags[t] & F_SCOPE or (kind == 1 and (t == T_OL or t == T_UL)) or (kind == 2 and t == T_BUTTON):
                return False
        return False

    cdef void implied_end_tags(self, int except_tag, bint thorough) noexcept:
        cdef int flag = F_THOROUGH if thorough else F_IMPLIED
        cdef int t
        while self.depth:
            t = self.current()
            if not (_tt_flags[t] & flag) or t == except_tag:
                return
            self.pop()

    cdef void pop_until(self, int tag) noexcept:
        """Pop elements until one named ``tag`` (a heading when -1; a cell when -3) was popped."""
        cdef int t
        while self.depth:
            t = self.current()
            self.pop()
            if t == tag or (tag == -1 and _tt_flags[t] & F_HEADING) or (tag == -3 and (t == T_TD or t == T_TH)):
                return

    cdef void close_p(self) noexcept:
        self.implied_end_tags(T_P, False)
        self.pop_until(T_P)

    cdef void clear_to(self, int a, int b, int c) noexcept:
        """Pop until the current node is ``a``, ``b``, ``c``, template or html."""
        cdef int t
        while self.depth:
            t = self.current()
            if t == a or t == b or t == c or t == T_TEMPLATE or t == T_HTML:
                return
            self.pop()

    cdef int reset_mode(self) except -1:
        cdef size_t k = self.depth
        cdef int t
        while k > 0:
            k -= 1
            t = self.nodes[self.stack[k]].tag
            if (t == T_TD or t == T_TH) and k > 0:
                self.mode = M_IN_CELL
            elif t == T_TR:
                self.mode = M_IN_ROW
            elif t == T_TBODY or t == T_THEAD or t == T_TFOOT:
                self.mode = M_IN_TABLE_BODY
            elif t == T_CAPTION:
                self.mode = M_IN_CAPTION
            elif t == T_COLGROUP:
                self.mode = M_IN_COLUMN_GROUP
            elif t == T_TABLE:
                self.mode = M_IN_TABLE
            elif t == T_TEMPLATE:
                self.mode = M_IN_BODY  # (template content is never walked: in-body rules do)
            elif t == T_HEAD and k > 0:
                self.mode = M_IN_HEAD
            elif t == T_BODY:
                self.mode = M_IN_BODY
            elif t == T_HTML:
                self.mode = M_BEFORE_HEAD if self.head_i < 0 else M_AFTER_HEAD
            elif k == 0:
                self.mode = M_IN_BODY
            else:
                continue
            return 0
        self.mode = M_IN_BODY
        return 0

    # ------------------------------------------------------------------ formatting elements

    cdef int afe_push(self, int el) except -2:
        """``el`` onto the list, after Noah's ark: at most three equal entries after the last marker."""
        cdef size_t k
        cdef int same = 0, earliest = -1
        if self.n_afe > 4 * LITE_MAX_DEPTH:  # (each push looks back over the list)
            self.reason = "formatting"
            return BAIL
        k = self.n_afe
        while k > 0:
            k -= 1
            if self.afe[k] < 0:
                break
            if self.equal_elements(self.afe[k], el):
                same += 1
                earliest = <int> k
        if same >= 3:
            self.afe_remove_at(earliest)
        return self.afe_insert(self.n_afe, el)

    cdef bint equal_elements(self, int a, int b) noexcept:
        """Same tag and the same attributes (names and values, in any order)."""
        cdef LNode *x = &self.nodes[a]
        cdef LNode *y = &self.nodes[b]
        cdef uint32_t i, j
        cdef LAttr *p
        cdef LAttr *q
        cdef bint found
        if not self.same_name(a, y.tag, y.off, y.length) or x.a_count != y.a_count:
            return False
        if x.a_start == y.a_start:
            return True
        for i in range(x.a_count):
            p = &self.attrs[x.a_start + i]
            found = False
            for j in range(y.a_count):
                q = &self.attrs[y.a_start + j]
                if p.name == q.name and (p.value == NULL) == (q.value == NULL) and p.value_len == q.value_len \
                        and memcmp(self.strs.data + p.v_off, self.strs.data + q.v_off, p.value_len) == 0:
                    found = True
                    break
            if not found:
                return False
        return True

    cdef int afe_index(self, int el) noexcept:
        cdef size_t k
        for k in range(self.n_afe):
            if self.afe[k] == el:
                return <int> k
        return -1

    cdef int afe_last(self, int tag, size_t name_off, size_t name_len) noexcept:
        """The last entry after the last marker named ``tag``, or -1."""
        cdef size_t k = self.n_afe
        while k > 0:
            k -= 1
            if self.afe[k] < 0:
                return -1
            if self.same_name(self.afe[k], tag, name_off, name_len):
                return self.afe[k]
        return -1

    cdef void afe_remove(self, int el) noexcept:
        cdef int k = self.afe_index(el)
        if k >= 0:
            self.afe_remove_at(k)

    cdef void afe_remove_at(self, size_t k) noexcept:
        memmove(&self.afe[k], &self.afe[k + 1], (self.n_afe - k - 1) * sizeof(int))
        self.n_afe -= 1

    cdef void afe_clear_to_marker(self) noexcept:
        while self.n_afe:
            self.n_afe -= 1
            if self.afe[self.n_afe] < 0:
                return

    cdef int afe_marker(self) except -1:
        return self.afe_insert(self.n_afe, -1)

    cdef int afe_insert(self, size_t at, int el) except -1:
        """``el`` (-1: a marker) into the list at position ``at`` (the entries from there move up)."""
        cdef size_t want
        cdef int *grown
        if self.n_afe == self.cap_afe:
            want = 2 * self.cap_afe if self.cap_afe else 64
            grown = <int *> realloc(self.afe, want * sizeof(int))
            if grown == NULL:
                raise MemoryError()
            self.afe, self.cap_afe = grown, want
        memmove(&self.afe[at + 1], &self.afe[at], (self.n_afe - at) * sizeof(int))
        self.afe[at] = el
        self.n_afe += 1
        return 0

    cdef int reconstruct(self) except -2:
        cdef size_t k
        cdef int el
        if self.n_afe == 0:
            return 0
        el = self.afe[self.n_afe - 1]
        if el < 0 or self.nodes[el].open:
            return 0
        k = self.n_afe - 1
        while k > 0:
            el = self.afe[k - 1]
            if el < 0 or self.nodes[el].open:
                break
            k -= 1
        while k < self.n_afe:
            el = self.clone_of(self.afe[k])
            self.place(el)
            if self.push(el) < 0:
                return BAIL
            self.afe[k] = el
            k += 1
        return 0

    cdef int adoption(self, int tag, size_t name_off, size_t name_len) except -2:
        """The adoption agency for an end tag ``tag``: DONE, or AGAIN (act as "any other end tag")."""
        cdef int fe, cur, fb, ca, node, last, clone, outer, inner, bookmark, k_afe
        cdef size_t k, at, fb_at, node_at
        if self.depth:
            cur = self.stack[self.depth - 1]
            if self.same_name(cur, tag, name_off, name_len) and self.afe_index(cur) < 0:
                self.pop()
                return DONE
        for outer in range(8):
            fe = self.afe_last(tag, name_off, name_len)
            if fe < 0:
                return AGAIN if outer == 0 else DONE
            if not self.nodes[fe].open:
                self.afe_remove(fe)
                return DONE
            if not self.in_scope_el(fe):
                return DONE
            at = 0
            for k in range(self.depth):
                if self.stack[k] == fe:
                    at = k
                    break
            fb = -1
            fb_at = 0
            for k in range(at + 1, self.depth):
                if _tt_flags[self.nodes[self.stack[k]].tag] & F_SPECIAL:
                    fb, fb_at = self.stack[k], k
                    break
            if fb < 0:  # pop to the formatting element, and it is done
                self.pop_through(fe)
                self.afe_remove(fe)
                return DONE
            ca = self.stack[at - 1]
            bookmark = self.afe_index(fe)
            node = last = fb
            node_at = fb_at
            inner = 0
            while True:
                inner += 1
                node_at -= 1  # the element above node (that stays where it was when node is removed)
                node = self.stack[node_at]
                if node == fe:
                    break
                k_afe = self.afe_index(node)
                if inner > 3 and k_afe >= 0:
                    self.afe_remove(node)
                    k_afe = -1
                if k_afe < 0:
                    self.remove_open_at(node_at)
                    continue
                clone = self.clone_of(node)
                self.afe[k_afe] = clone
                self.stack[node_at] = clone
                self.nodes[node].open = False
                self.nodes[clone].open = True
                node = clone
                if last == fb:
                    bookmark = k_afe + 1
                self.append_child(node, last)
                last = node
            self.place_in(ca, last)
            clone = self.clone_of(fe)
            while self.nodes[fb].first_i >= 0:  # fb's children move into the clone
                self.append_child(clone, self.nodes[fb].first_i)
            self.append_child(fb, clone)
            self.afe_remove(fe)
            self.afe_insert(bookmark if bookmark < <int> self.n_afe else self.n_afe, clone)
            self.remove_open(fe)
            for k in range(self.depth):
                if self.stack[k] == fb:
                    memmove(&self.stack[k + 2], &self.stack[k + 1], (self.depth - k - 1) * sizeof(int))
                    self.stack[k + 1] = clone
                    self.depth += 1
                    self.nodes[clone].open = True
                    self.open_by_tag[self.nodes[clone].tag] += 1
                    break
        return DONE

    cdef int clone_of(self, int el) except -1:
        """A new element like ``el`` (its tag and attributes), in no parent yet."""
        cdef int k = self.new_node_detached(self.nodes[el].tag)
        self.nodes[k].a_start = self.nodes[el].a_start
        self.nodes[k].a_count = self.nodes[el].a_count
        self.nodes[k].off = self.nodes[el].off
        self.nodes[k].length = self.nodes[el].length
        return k

    cdef bint in_scope_el(self, int target) noexcept:
        cdef size_t k = self.depth
        cdef int t
        while k > 0:
            k -= 1
            if self.stack[k] == target:
                return True
            t = self.nodes[self.stack[k]].tag
            if _tt_flags[t] & F_SCOPE:
                return False
        return False


    cdef int insert_token(self) except -2:
        return self.insert(self.t_tag, self.t_a_start, self.t_a_count, self.t_name_off, self.t_name_len)

    cdef int insert_plain(self, int tag) except -2:
        return self.insert(tag, 0, 0, 0, 0)

    cdef int void_token(self) except -2:
        if self.insert_token() < 0:
            return BAIL
        self.pop()
        return DONE

    cdef int merge_attrs(self, int el) except -1:
        """The token's attributes that ``el`` lacks are added to it (a second <html> or <body>)."""
        cdef LNode *nd = &self.nodes[el]
        cdef uint32_t i, j, start, count = nd.a_count
        cdef bint have
        if self.t_a_count == 0:
            return 0
        start = <uint32_t> self.n_attrs
        for i in range(nd.a_count):
            self.add_attr(self.attrs[self.nodes[el].a_start + i])
        for i in range(self.t_a_count):
            have = False
            for j in range(count):
                if self.attrs[start + j].name == self.attrs[self.t_a_start + i].name:
                    have = True
            if not have:
                self.add_attr(self.attrs[self.t_a_start + i])
        self.nodes[el].a_start = start
        self.nodes[el].a_count = <uint32_t> self.n_attrs - start
        return 0

    cdef int add_attr(self, LAttr a) except -1:
        cdef size_t want
        cdef LAttr *grown
        if self.n_attrs == self.cap_attrs:
            want = 2 * self.cap_attrs if self.cap_attrs else 1024
            grown = <LAttr *> realloc(self.attrs, want * sizeof(LAttr))
            if grown == NULL:
                raise MemoryError()
            self.attrs, self.cap_attrs = grown, want
        self.attrs[self.n_attrs] = a
        self.n_attrs += 1
        return 0

    cdef bint token_has(self, const char *name, const char *value) noexcept:
        """Whether the token has attribute ``name`` with ``value`` (lower case; ASCII case ignored)."""
        cdef uint32_t i
        cdef size_t k, m = strlen(name)
        cdef LAttr *a
        for i in range(self.t_a_count):
            a = &self.attrs[self.t_a_start + i]
            if a.name_len == m and memcmp(a.name, name, m) == 0:
                if a.value == NULL or a.value_len != strlen(value):
                    return False
                for k in range(a.value_len):
                    if lower(self.strs.data[a.v_off + k]) != <unsigned char> value[k]:
                        return False
                return True
        return False

    # ------------------------------------------------------------------ start tags

    cdef int start(self) except -2:
        cdef int r, t = self.t_tag
        if self.open_by_tag[T_TEMPLATE] and self.current() == T_TEMPLATE and (
            t == T_CAPTION or t == T_COLGROUP or t == T_TBODY or t == T_TFOOT or t == T_THEAD or t == T_COL
            or t == T_TR or t == T_TD or t == T_TH
        ):
            # A template whose content starts as a table's is parsed in the table modes (where a
            # <title> may be ignored, and with it the raw text it would start): not followed.
            self.reason = "template"
            return BAIL
        while True:
            if self.mode == M_INITIAL:
                self.quirks = Q_QUIRKS
                self.mode = M_BEFORE_HTML
                continue
            if self.mode == M_BEFORE_HTML:
                self.html_i = self.insert_token() if self.t_tag == T_HTML else self.insert_plain(T_HTML)
                if self.html_i < 0:
                    return BAIL
                self.mode = M_BEFORE_HEAD
                if self.t_tag == T_HTML:
                    return DONE
                continue
            if self.mode == M_BEFORE_HEAD:
                if self.t_tag == T_HTML:
                    r = self.start_in_body()
                elif self.t_tag == T_HEAD:
                    self.head_i = self.insert_token()
                    self.mode = M_IN_HEAD
                    r = DONE if self.head_i >= 0 else BAIL
                else:
                    self.head_i = self.insert_plain(T_HEAD)
                    self.mode = M_IN_HEAD
                    r = AGAIN if self.head_i >= 0 else BAIL
            elif self.mode == M_IN_HEAD:
                r = self.start_in_head()
            elif self.mode == M_IN_HEAD_NOSCRIPT:
                r = self.start_in_head_noscript()
            elif self.mode == M_AFTER_HEAD:
                r = self.start_after_head()
            elif self.mode == M_IN_BODY:
                r = self.start_in_body()
            elif self.mode == M_IN_TABLE:
                r = self.start_in_table()
            elif self.mode == M_IN_CAPTION:
                r = self.start_in_caption()
            elif self.mode == M_IN_COLUMN_GROUP:
                r = self.start_in_column_group()
            elif self.mode == M_IN_TABLE_BODY:
                r = self.start_in_table_body()
            elif self.mode == M_IN_ROW:
                r = self.start_in_row()
            elif self.mode == M_IN_CELL:
                r = self.start_in_cell()
            else:  # after body, after after body
                if self.t_tag == T_HTML:
                    r = self.start_in_body()
                else:
                    self.mode = M_IN_BODY
                    r = AGAIN
            if r != AGAIN:
                return r

    cdef int start_in_head(self) except -2:
        cdef int t = self.t_tag
        if t == T_HTML:
            return self.start_in_body()
        if t == T_BASE or t == T_BASEFONT or t == T_BGSOUND or t == T_LINK or t == T_META:
            return self.void_token()
        if t == T_TITLE or t == T_NOFRAMES or t == T_STYLE or t == T_SCRIPT:
            if self.insert_token() < 0:
                return BAIL
            self.raw = RAW_RCDATA if t == T_TITLE else (RAW_SCRIPT if t == T_SCRIPT else RAW_TEXT)
            return DONE
        if t == T_NOSCRIPT:
            if self.insert_token() < 0:
                return BAIL
            self.mode = M_IN_HEAD_NOSCRIPT
            return DONE
        if t == T_TEMPLATE:  # (lexbor keeps a declarative shadow root's <template> as a template)
            if self.insert_token() < 0:
                return BAIL
            self.afe_marker()
            self.mode = M_IN_BODY  # (its content is never walked)
            return DONE
        if t == T_HEAD:
            return DONE
        self.pop()
        self.mode = M_AFTER_HEAD
        return AGAIN

    cdef int start_in_head_noscript(self) except -2:
        cdef int t = self.t_tag
        if t == T_HTML:
            return self.start_in_body()
        if t == T_BASEFONT or t == T_BGSOUND or t == T_LINK or t == T_META or t == T_NOFRAMES or t == T_STYLE:
            return self.start_in_head()
        if t == T_HEAD or t == T_NOSCRIPT:
            return DONE
        self.pop()
        self.mode = M_IN_HEAD
        return AGAIN

    cdef int start_after_head(self) except -2:
        cdef int t = self.t_tag, r
        if t == T_HTML:
            return self.start_in_body()
        if t == T_BODY:
            self.body_i = self.insert_token()
            self.mode = M_IN_BODY
            return DONE if self.body_i >= 0 else BAIL
        if t == T_FRAMESET:
            self.reason = "frameset"
            return BAIL
        if _tt_flags[t] & F_HEAD_START:
            if self.push(self.head_i) < 0:
                return BAIL
            r = self.start_in_head()
            self.remove_open(self.head_i)
            return r
        if t == T_HEAD:
            return DONE
        self.body_i = self.insert_plain(T_BODY)
        self.mode = M_IN_BODY
        return AGAIN if self.body_i >= 0 else BAIL

    cdef int start_in_body(self) except -2:
        cdef int t = self.t_tag, f = _tt_flags[t], el, nt, found
        cdef size_t k
        if t == T_HTML:
            if not self.open_by_tag[T_TEMPLATE] and self.html_i >= 0:
                self.merge_attrs(self.html_i)
            return DONE
        if f & F_HEAD_START:
            return self.start_in_head()
        if t == T_BODY:
            if self.depth < 2 or self.nodes[self.stack[1]].tag != T_BODY or self.open_by_tag[T_TEMPLATE]:
                return DONE
            self.merge_attrs(self.stack[1])
            return DONE
        if t == T_FRAMESET or t == T_PLAINTEXT or t == T_MATH or t == T_SVG:
            self.reason = "frameset" if t == T_FRAMESET else ("plaintext" if t == T_PLAINTEXT else "foreign")
            return BAIL
        if f & F_CLOSE_P:
            if self.in_scope(T_P, 2):
                self.close_p()
            return DONE if self.insert_token() >= 0 else BAIL
        if f & F_HEADING:
            if self.in_scope(T_P, 2):
                self.close_p()
            if _tt_flags[self.current()] & F_HEADING:
                self.pop()
            return DONE if self.insert_token() >= 0 else BAIL
        if t == T_PRE or t == T_LISTING:
            if self.in_scope(T_P, 2):
                self.close_p()
            self.ignore_lf = True
            return DONE if self.insert_token() >= 0 else BAIL
        if t == T_FORM:
            if self.form_i >= 0 and not self.open_by_tag[T_TEMPLATE]:
                return DONE
            if self.in_scope(T_P, 2):
                self.close_p()
            el = self.insert_token()
            if el < 0:
                return BAIL
            if not self.open_by_tag[T_TEMPLATE]:
                self.form_i = el
            return DONE
        if t == T_LI or t == T_DD or t == T_DT:
            k = self.depth
            while k > 0:
                k -= 1
                nt = self.nodes[self.stack[k]].tag
                if (t == T_LI and nt == T_LI) or (t != T_LI and (nt == T_DD or nt == T_DT)):
                    self.implied_end_tags(nt, False)
                    self.pop_until(nt)
                    break
                if _tt_flags[nt] & F_SPECIAL and nt != T_ADDRESS and nt != T_DIV and nt != T_P:
                    break
            if self.in_scope(T_P, 2):
                self.close_p()
            return DONE if self.insert_token() >= 0 else BAIL
        if t == T_BUTTON:
            if self.in_scope(T_BUTTON, 0):
                self.implied_end_tags(-1, False)
                self.pop_until(T_BUTTON)
            return self.reconstruct_insert()
        if t == T_A:
            found = self.afe_last(T_A, 0, 0)
            if found >= 0:
                if self.adoption(T_A, 0, 0) == BAIL:
                    return BAIL
                self.afe_remove(found)
                self.remove_open(found)
            return self.formatting()
        if t == T_NOBR:
            if self.reconstruct() < 0:
                return BAIL
            if self.in_scope(T_NOBR, 0):
                if self.adoption(T_NOBR, 0, 0) == BAIL:
                    return BAIL
            return self.formatting()
        if f & F_FORMAT:
            return self.formatting()
        if t == T_APPLET or t == T_MARQUEE or t == T_OBJECT:
            if self.reconstruct_insert() < 0:
                return BAIL
            self.afe_marker()
            return DONE
        if t == T_TABLE:
            if self.in_scope(T_P, 2):
                if self.quirks == Q_UNKNOWN:
                    self.reason = "quirks"
                    return BAIL
                if self.quirks == Q_NO:
                    self.close_p()
            if self.insert_token() < 0:
                return BAIL
            self.mode = M_IN_TABLE
            return DONE
        if t == T_AREA or t == T_BR or t == T_EMBED or t == T_IMG or t == T_KEYGEN or t == T_WBR or t == T_INPUT \
                or t == T_IMAGE:
            if t == T_IMAGE:
                self.t_tag = T_IMG
            elif t == T_INPUT and self.in_scope(T_SELECT, 0):
                self.pop_until(T_SELECT)  # an <input> ends a <select>
            if self.reconstruct() < 0:
                return BAIL
            return self.void_token()
        if t == T_PARAM or t == T_SOURCE or t == T_TRACK:
            return self.void_token()
        if t == T_HR:
            if self.in_scope(T_P, 2):
                self.close_p()
            if self.in_scope(T_SELECT, 0):
                self.implied_end_tags(-1, False)
            return self.void_token()
        if t == T_TEXTAREA:
            if self.insert_token() < 0:
                return BAIL
            self.ignore_lf = True
            self.raw = RAW_RCDATA
            return DONE
        if t == T_XMP or t == T_IFRAME or t == T_NOEMBED:
            if t == T_XMP:
                if self.in_scope(T_P, 2):
                    self.close_p()
                if self.reconstruct() < 0:
                    return BAIL
            if self.insert_token() < 0:
                return BAIL
            self.raw = RAW_TEXT
            return DONE
        if t == T_SELECT:
            if self.in_scope(T_SELECT, 0):
                self.pop_until(T_SELECT)
                return DONE
            return self.reconstruct_insert()
        if t == T_OPTION or t == T_OPTGROUP:
            if self.in_scope(T_SELECT, 0):
                self.implied_end_tags(T_OPTGROUP if t == T_OPTION else -1, False)
            elif self.current() == T_OPTION:
                self.pop()
            return self.reconstruct_insert()
        if t == T_RB or t == T_RTC or t == T_RP or t == T_RT:
            if self.in_scope(T_RUBY, 0):
                self.implied_end_tags(T_RTC if (t == T_RP or t == T_RT) else -1, False)
            return DONE if self.insert_token() >= 0 else BAIL
        if t == T_CAPTION or t == T_COL or t == T_COLGROUP or t == T_FRAME or t == T_HEAD or t == T_TBODY \
                or t == T_TD or t == T_TFOOT or t == T_TH or t == T_THEAD or t == T_TR:
            return DONE
        return self.reconstruct_insert()

    cdef int reconstruct_insert(self) except -2:
        if self.reconstruct() < 0:
            return BAIL
        return DONE if self.insert_token() >= 0 else BAIL

    cdef int formatting(self) except -2:
        cdef int el
        if self.reconstruct() < 0:
            return BAIL
        el = self.insert_token()
        if el < 0:
            return BAIL
        return self.afe_push(el)

    # ------------------------------------------------------------------ tables

    cdef int start_in_table(self) except -2:
        cdef int t = self.t_tag, el
        if t == T_CAPTION:
            self.clear_to(T_TABLE, T_TABLE, T_TABLE)
            self.afe_marker()
            self.mode = M_IN_CAPTION
            return DONE if self.insert_token() >= 0 else BAIL
        if t == T_COLGROUP:
            self.clear_to(T_TABLE, T_TABLE, T_TABLE)
            self.mode = M_IN_COLUMN_GROUP
            return DONE if self.insert_token() >= 0 else BAIL
        if t == T_COL:
            self.clear_to(T_TABLE, T_TABLE, T_TABLE)
            self.mode = M_IN_COLUMN_GROUP
            return AGAIN if self.insert_plain(T_COLGROUP) >= 0 else BAIL
        if t == T_TBODY or t == T_TFOOT or t == T_THEAD:
            self.clear_to(T_TABLE, T_TABLE, T_TABLE)
            self.mode = M_IN_TABLE_BODY
            return DONE if self.insert_token() >= 0 else BAIL
        if t == T_TD or t == T_TH or t == T_TR:
            self.clear_to(T_TABLE, T_TABLE, T_TABLE)
            self.mode = M_IN_TABLE_BODY
            return AGAIN if self.insert_plain(T_TBODY) >= 0 else BAIL
        if t == T_TABLE:
            if not self.in_scope(T_TABLE, 3):
                return DONE
            self.pop_until(T_TABLE)
            self.reset_mode()
            return AGAIN
        if t == T_STYLE or t == T_SCRIPT or t == T_TEMPLATE:
            return self.start_in_head()
        if t == T_INPUT and self.token_has("type", "hidden"):
            return self.void_token()
        if t == T_FORM:
            if self.open_by_tag[T_TEMPLATE] or self.form_i >= 0:
                return DONE
            el = self.insert_token()
            if el < 0:
                return BAIL
            self.form_i = el
            self.pop()
            return DONE
        return self.fostered_start()

    cdef int fostered_start(self) except -2:
        """The table modes' "anything else" for a start tag: the in-body rules, foster parenting on."""
        cdef int r
        self.foster = True
        r = self.start_in_body()
        self.foster = False
        return r

    cdef int end_in_table(self) except -2:
        cdef int t = self.t_tag, r
        if t == T_TABLE:
            if not self.in_scope(T_TABLE, 3):
                return DONE
            self.pop_until(T_TABLE)
            self.reset_mode()
            return DONE
        if t == T_BODY or t == T_CAPTION or t == T_COL or t == T_COLGROUP or t == T_HTML or t == T_TBODY \
                or t == T_TD or t == T_TFOOT or t == T_TH or t == T_THEAD or t == T_TR:
            return DONE
        if t == T_TEMPLATE:
            return self.end_template()
        self.foster = True  # (only </p> and </br> insert anything)
        r = self.end_in_body()
        self.foster = False
        return r

    cdef int start_in_caption(self) except -2:
        cdef int t = self.t_tag
        if t == T_CAPTION or t == T_COL or t == T_COLGROUP or t == T_TBODY or t == T_TD or t == T_TFOOT \
                or t == T_TH or t == T_THEAD or t == T_TR:
            return self.close_caption()
        return self.start_in_body()

    cdef int close_caption(self) except -2:
        if not self.in_scope(T_CAPTION, 3):
            return DONE
        self.implied_end_tags(-1, False)
        self.pop_until(T_CAPTION)
        self.afe_clear_to_marker()
        self.mode = M_IN_TABLE
        return AGAIN

    cdef int end_in_caption(self) except -2:
        cdef int t = self.t_tag
        if t == T_CAPTION:
            return DONE if self.close_caption() != BAIL else BAIL
        if t == T_TABLE:
            return self.close_caption()
        if t == T_BODY or t == T_COL or t == T_COLGROUP or t == T_HTML or t == T_TBODY or t == T_TD \
                or t == T_TFOOT or t == T_TH or t == T_THEAD or t == T_TR:
            return DONE
        return self.end_in_body()

    cdef int start_in_column_group(self) except -2:
        cdef int t = self.t_tag
        if t == T_HTML:
            return self.start_in_body()
        if t == T_COL:
            return self.void_token()
        if t == T_TEMPLATE:
            return self.start_in_head()
        if self.current() != T_COLGROUP:
            return DONE
        self.pop()
        self.mode = M_IN_TABLE
        return AGAIN

    cdef int end_in_column_group(self) except -2:
        cdef int t = self.t_tag
        if t == T_COLGROUP:
            if self.current() == T_COLGROUP:
                self.pop()
                self.mode = M_IN_TABLE
            return DONE
        if t == T_COL:
            return DONE
        if t == T_TEMPLATE:
            return self.end_template()
        if self.current() != T_COLGROUP:
            return DONE
        self.pop()
        self.mode = M_IN_TABLE
        return AGAIN

    cdef int start_in_table_body(self) except -2:
        cdef int t = self.t_tag
        if t == T_TR:
            self.clear_to(T_TBODY, T_TFOOT, T_THEAD)
            self.mode = M_IN_ROW
            return DONE if self.insert_token() >= 0 else BAIL
        if t == T_TH or t == T_TD:
            self.clear_to(T_TBODY, T_TFOOT, T_THEAD)
            self.mode = M_IN_ROW
            return AGAIN if self.insert_plain(T_TR) >= 0 else BAIL
        if t == T_CAPTION or t == T_COL or t == T_COLGROUP or t == T_TBODY or t == T_TFOOT or t == T_THEAD:
            return self.leave_table_body()
        return self.start_in_table()

    cdef int leave_table_body(self) except -2:
        if not (self.in_scope(T_TBODY, 3) or self.in_scope(T_THEAD, 3) or self.in_scope(T_TFOOT, 3)):
            return DONE
        self.clear_to(T_TBODY, T_TFOOT, T_THEAD)
        self.pop()
        self.mode = M_IN_TABLE
        return AGAIN

    cdef int end_in_table_body(self) except -2:
        cdef int t = self.t_tag
        if t == T_TBODY or t == T_TFOOT or t == T_THEAD:
            if not self.in_scope(t, 3):
                return DONE
            self.clear_to(T_TBODY, T_TFOOT, T_THEAD)
            self.pop()
            self.mode = M_IN_TABLE
            return DONE
        if t == T_TABLE:
            return self.leave_table_body()
        if t == T_BODY or t == T_CAPTION or t == T_COL or t == T_COLGROUP or t == T_HTML or t == T_TD \
                or t == T_TH or t == T_TR:
            return DONE
        return self.end_in_table()

    cdef int start_in_row(self) except -2:
        cdef int t = self.t_tag
        if t == T_TH or t == T_TD:
            self.clear_to(T_TR, T_TR, T_TR)
            if self.insert_token() < 0:
                return BAIL
            self.mode = M_IN_CELL
            self.afe_marker()
            return DONE
        if t == T_CAPTION or t == T_COL or t == T_COLGROUP or t == T_TBODY or t == T_TFOOT or t == T_THEAD \
                or t == T_TR:
            return self.leave_row()
        return self.start_in_table()

    cdef int leave_row(self) except -2:
        if not self.in_scope(T_TR, 3):
            return DONE
        self.clear_to(T_TR, T_TR, T_TR)
        self.pop()
        self.mode = M_IN_TABLE_BODY
        return AGAIN

    cdef int end_in_row(self) except -2:
        cdef int t = self.t_tag
        if t == T_TR:
            return DONE if self.leave_row() != BAIL else BAIL
        if t == T_TABLE:
            return self.leave_row()
        if t == T_TBODY or t == T_TFOOT or t == T_THEAD:
            if not self.in_scope(t, 3):
                return DONE
            return self.leave_row()
        if t == T_BODY or t == T_CAPTION or t == T_COL or t == T_COLGROUP or t == T_HTML or t == T_TD \
                or t == T_TH:
            return DONE
        return self.end_in_table()

    cdef int close_cell(self) noexcept:
        self.implied_end_tags(-1, False)
        self.pop_until(-3)
        self.afe_clear_to_marker()
        self.mode = M_IN_ROW
        return AGAIN

    cdef int start_in_cell(self) except -2:
        cdef int t = self.t_tag
        if t == T_CAPTION or t == T_COL or t == T_COLGROUP or t == T_TBODY or t == T_TD or t == T_TFOOT \
                or t == T_TH or t == T_THEAD or t == T_TR:
            if not (self.in_scope(T_TD, 3) or self.in_scope(T_TH, 3)):
                return DONE
            return self.close_cell()
        return self.start_in_body()

    cdef int end_in_cell(self) except -2:
        cdef int t = self.t_tag
        if t == T_TD or t == T_TH:
            if not self.in_scope(t, 3):
                return DONE
            self.implied_end_tags(-1, False)
            self.pop_until(t)
            self.afe_clear_to_marker()
            self.mode = M_IN_ROW
            return DONE
        if t == T_BODY or t == T_CAPTION or t == T_COL or t == T_COLGROUP or t == T_HTML:
            return DONE
        if t == T_TABLE or t == T_TBODY or t == T_TFOOT or t == T_THEAD or t == T_TR:
            if not self.in_scope(t, 3):
                return DONE
            return self.close_cell()
        return self.end_in_body()

    # ------------------------------------------------------------------ end tags

    cdef int end(self) except -2:
        cdef int r, t
        while True:
            t = self.t_tag
            if self.mode == M_INITIAL:  # any end tag ends the initial mode (a later DOCTYPE is ignored)
                self.quirks = Q_QUIRKS
                self.mode = M_BEFORE_HTML
                continue
            if self.mode <= M_BEFORE_HEAD:
                if t != T_HEAD and t != T_BODY and t != T_HTML and t != T_BR:
                    return DONE
                if self.mode == M_BEFORE_HTML:
                    self.html_i = self.insert_plain(T_HTML)
                    self.mode = M_BEFORE_HEAD
                else:
                    self.head_i = self.insert_plain(T_HEAD)
                    self.mode = M_IN_HEAD
                if (self.mode == M_BEFORE_HEAD and self.html_i < 0) or (self.mode == M_IN_HEAD and self.head_i < 0):
                    return BAIL
                continue
            if self.mode == M_IN_HEAD:
                if t == T_TEMPLATE:
                    return self.end_template()
                if t == T_HEAD or t == T_BODY or t == T_HTML or t == T_BR:
                    self.pop()
                    self.mode = M_AFTER_HEAD
                    r = DONE if t == T_HEAD else AGAIN
                else:
                    r = DONE
            elif self.mode == M_IN_HEAD_NOSCRIPT:
                if t == T_NOSCRIPT or t == T_BR:
                    self.pop()
                    self.mode = M_IN_HEAD
                    r = DONE if t == T_NOSCRIPT else AGAIN
                else:
                    r = DONE
            elif self.mode == M_AFTER_HEAD:
                if t == T_TEMPLATE:
                    return self.end_template()
                if t == T_BODY or t == T_HTML or t == T_BR:
                    self.body_i = self.insert_plain(T_BODY)
                    if self.body_i < 0:
                        return BAIL
                    self.mode = M_IN_BODY
                    r = AGAIN
                else:
                    r = DONE
            elif self.mode == M_IN_BODY:
                r = self.end_in_body()
            elif self.mode == M_IN_TABLE:
                r = self.end_in_table()
            elif self.mode == M_IN_CAPTION:
                r = self.end_in_caption()
            elif self.mode == M_IN_COLUMN_GROUP:
                r = self.end_in_column_group()
            elif self.mode == M_IN_TABLE_BODY:
                r = self.end_in_table_body()
            elif self.mode == M_IN_ROW:
                r = self.end_in_row()
            elif self.mode == M_IN_CELL:
                r = self.end_in_cell()
            elif self.mode == M_AFTER_BODY:
                if t == T_HTML:
                    self.mode = M_AFTER_AFTER_BODY
                    r = DONE
                else:
                    self.mode = M_IN_BODY
                    r = AGAIN
            else:
                self.mode = M_IN_BODY
                r = AGAIN
            if r != AGAIN:
                return r

    cdef int end_template(self) except -2:
        if not self.open_by_tag[T_TEMPLATE]:
            return DONE
        self.implied_end_tags(-1, True)
        self.pop_until(T_TEMPLATE)
        self.afe_clear_to_marker()
        self.reset_mode()
        return DONE

    cdef int end_in_body(self) except -2:
        cdef int t = self.t_tag, f = _tt_flags[t], el, r
        cdef size_t k
        if t == T_BODY or t == T_HTML:
            if not self.in_scope(T_BODY, 0):
                return DONE
            self.mode = M_AFTER_BODY
            return DONE if t == T_BODY else AGAIN
        if t == T_TEMPLATE:
            return self.end_template()
        if f & F_BLOCK_END:
            if not self.in_scope(t, 0):
                return DONE
            self.implied_end_tags(-1, False)
            self.pop_until(t)
            return DONE
        if t == T_FORM:
            if self.open_by_tag[T_TEMPLATE]:
                if not self.in_scope(T_FORM, 0):
                    return DONE
                self.implied_end_tags(-1, False)
                self.pop_until(T_FORM)
                return DONE
            el = self.form_i
            self.form_i = -1
            if el < 0 or not self.in_scope_el(el):
                return DONE
            self.implied_end_tags(-1, False)
            self.remove_open(el)
            return DONE
        if t == T_P:
            if not self.in_scope(T_P, 2):
                if self.insert_plain(T_P) < 0:
                    return BAIL
            self.close_p()
            return DONE
        if t == T_LI:
            if not self.in_scope(T_LI, 1):
                return DONE
            self.implied_end_tags(T_LI, False)
            self.pop_until(T_LI)
            return DONE
        if t == T_DD or t == T_DT:
            if not self.in_scope(t, 0):
                return DONE
            self.implied_end_tags(t, False)
            self.pop_until(t)
            return DONE
        if f & F_HEADING:
            if not self.in_scope(-1, 0):
                return DONE
            self.implied_end_tags(-1, False)
            self.pop_until(-1)
            return DONE
        if f & F_FORMAT:
            r = self.adoption(t, self.t_name_off, self.t_name_len)
            if r != AGAIN:
                return r
        elif t == T_APPLET or t == T_MARQUEE or t == T_OBJECT:
            if not self.in_scope(t, 0):
                return DONE
            self.implied_end_tags(-1, False)
            self.pop_until(t)
            self.afe_clear_to_marker()
            return DONE
        elif t == T_BR:
            self.t_a_count = 0
            if self.reconstruct() < 0:
                return BAIL
            return self.void_token()
        # Any other end tag.
        k = self.depth
        while k > 0:
            k -= 1
            el = self.stack[k]
            if self.same_name(el, t, self.t_name_off, self.t_name_len):
                self.implied_end_tags(t, False)
                self.pop_through(el)
                return DONE
            if _tt_flags[self.nodes[el].tag] & F_SPECIAL:
                return DONE
        return DONE

    # ------------------------------------------------------------------ text

    cdef int chars(self, const unsigned char *s, size_t n) except -2:
        cdef size_t ws
        cdef int cur, r
        while n:
            if self.mode == M_IN_BODY or self.mode == M_IN_CELL or self.mode == M_IN_CAPTION:
                if self.reconstruct() < 0:
                    return BAIL
                self.insert_text(s, n)
                return DONE
            ws = 0
            while ws < n and (s[ws] == 32 or s[ws] == 10 or s[ws] == 9 or s[ws] == 12 or s[ws] == 13):
                ws += 1
            if self.mode == M_IN_TABLE or self.mode == M_IN_TABLE_BODY or self.mode == M_IN_ROW:
                cur = self.current()
                if ws == n and (cur == T_TABLE or cur == T_TBODY or cur == T_TFOOT or cur == T_THEAD or cur == T_TR):
                    self.insert_text(s, n)
                    return DONE
                # Text with more than spaces: the in-body rules, foster parenting on.
                self.foster = True
                r = self.reconstruct()
                if r != BAIL:
                    self.insert_text(s, n)
                self.foster = False
                return DONE if r != BAIL else BAIL
            if self.mode == M_IN_HEAD or self.mode == M_IN_HEAD_NOSCRIPT or self.mode == M_AFTER_HEAD \
                    or self.mode == M_IN_COLUMN_GROUP:
                self.insert_text(s, ws)
            elif self.mode == M_AFTER_BODY or self.mode == M_AFTER_AFTER_BODY:
                if ws:
                    if self.reconstruct() < 0:
                        return BAIL
                    self.insert_text(s, ws)
            s += ws
            n -= ws
            if not n:
                return DONE
            if self.mode == M_INITIAL:
                self.quirks = Q_QUIRKS
                self.mode = M_BEFORE_HTML
            elif self.mode == M_BEFORE_HTML:
                self.html_i = self.insert_plain(T_HTML)
                if self.html_i < 0:
                    return BAIL
                self.mode = M_BEFORE_HEAD
            elif self.mode == M_BEFORE_HEAD:
                self.head_i = self.insert_plain(T_HEAD)
                if self.head_i < 0:
                    return BAIL
                self.mode = M_IN_HEAD
            elif self.mode == M_IN_HEAD:
                self.pop()
                self.mode = M_AFTER_HEAD
            elif self.mode == M_IN_HEAD_NOSCRIPT:
                self.pop()
                self.mode = M_IN_HEAD
            elif self.mode == M_AFTER_HEAD:
                self.body_i = self.insert_plain(T_BODY)
                if self.body_i < 0:
                    return BAIL
                self.mode = M_IN_BODY
            elif self.mode == M_IN_COLUMN_GROUP:
                if self.current() != T_COLGROUP:
                    return DONE
                self.pop()
                self.mode = M_IN_TABLE
            else:
                self.mode = M_IN_BODY
        return DONE

    cdef int finish(self) except -2:
        """End of the page: the elements every document has."""
        while True:
            if self.open_by_tag[T_TEMPLATE]:  # templates still open end ("in template" EOF)
                self.pop_until(T_TEMPLATE)
                self.afe_clear_to_marker()
                self.reset_mode()
                continue
            if self.mode == M_INITIAL:
                self.quirks = Q_QUIRKS
                self.mode = M_BEFORE_HTML
            elif self.mode == M_BEFORE_HTML:
                self.html_i = self.insert_plain(T_HTML)
                if self.html_i < 0:
                    return BAIL
                self.mode = M_BEFORE_HEAD
            elif self.mode == M_BEFORE_HEAD:
                self.head_i = self.insert_plain(T_HEAD)
                if self.head_i < 0:
                    return BAIL
                self.mode = M_IN_HEAD
            elif self.mode == M_IN_HEAD_NOSCRIPT:
                self.pop()
                self.mode = M_IN_HEAD
            elif self.mode == M_IN_HEAD:
                self.pop()
                self.mode = M_AFTER_HEAD
            elif self.mode == M_AFTER_HEAD:
                self.body_i = self.insert_plain(T_BODY)
                if self.body_i < 0:
                    return BAIL
                self.mode = M_IN_BODY
            else:
                return DONE

    # ------------------------------------------------------------------ the tokenizer

    cdef size_t attributes(self, const unsigned char *p, size_t i, size_t n, bint keep, bint anchor) except? 0:
        """From just after a tag's name: its attributes (the kept ones added as the token's, when
        ``keep``); one past the tag's ``>``, or 0 when the page ends inside it."""
        cdef size_t name, name_end, vs, ve
        cdef int which
        cdef bint dup
        cdef uint32_t j
        cdef LAttr a
        self.t_a_start = <uint32_t> self.n_attrs
        self.t_a_count = 0
        self.t_seen = 0
        while True:
            while i < n and _tag_class[p[i]] & (C_SPACE | C_SLASH):  # ("/>" means nothing in HTML)
                i += 1
            if i >= n:
                return 0
            if p[i] == 62:
                return i + 1
            name = i
            i = attribute_parts(p, i, n, &name_end, &vs, &ve)
            if i > n:  # a quoted value left open: the page ends inside the tag
                return 0
            if not keep:
                continue
            which = word_index(&_kept_attr_words, p + name, name_end - name, True)
            if which:
                a.name = _kept_names[which - 1]
                a.name_len = name_end - name
            elif anchor and u_is(p, name, name_end, b"href"):
                a.name = <const unsigned char *> b"href"
                a.name_len = 4
            else:
                continue
            self.t_seen += 1  # (the guard counts repeated names too)
            dup = False
            for j in range(self.t_a_count):
                if self.attrs[self.t_a_start + j].name == a.name:
                    dup = True
                    break
            if dup:
                continue
            a.next = NULL
            a.v_off = self.strs.length
            if vs <= n:
                add_text(&self.strs, p, vs, ve, True, True)
                a.value = <const unsigned char *> 1  # (not NULL: set when linked)
                a.value_len = self.strs.length - a.v_off
            else:
                a.value = NULL
                a.value_len = 0
            self.add_attr(a)
            self.t_a_count += 1

    cdef int doctype(self, const unsigned char *p, size_t a, size_t b) noexcept:
        """The document's mode from a DOCTYPE ``p[a:b]`` (after ``<!DOCTYPE``, before ``>``)."""
        cdef size_t i = a, s
        cdef bint public = False, system = False, transitional = False
        cdef bint xhtml = False, html401 = False, strict401 = False
        cdef unsigned char q
        while i < b and u_space(p[i]):
            i += 1
        if not (i + 4 <= b and u_is(p, i, i + 4, b"html") and (i + 4 == b or u_space(p[i + 4]))):
            return Q_QUIRKS
        i += 4
        while i < b and u_space(p[i]):
            i += 1
        if i == b:
            return Q_NO
        if i + 6 <= b and u_is(p, i, i + 6, b"public"):
            public = True
        elif i + 6 <= b and u_is(p, i, i + 6, b"system"):
            system = True
        else:
            return Q_UNKNOWN
        i += 6
        while i < b and u_space(p[i]):
            i += 1
        if i >= b or (p[i] != 34 and p[i] != 39):
            return Q_UNKNOWN
        q = p[i]
        s = i + 1
        i = s
        while i < b and p[i] != q:
            i += 1
        if i >= b:
            return Q_UNKNOWN
        if public:
            # The public identifiers of the common DOCTYPEs (ASCII case ignored).
            if i - s >= 17 and u_is(p, s, s + 17, b"-//w3c//dtd xhtml"):
                xhtml = True
            elif i - s >= 22 and u_is(p, s, s + 22, b"-//w3c//dtd html 4.01 "):
                html401 = True
                transitional = (i - s >= 34 and u_is(p, s + 22, s + 34, b"transitional")) or \
                    (i - s >= 30 and u_is(p, s + 22, s + 30, b"frameset"))
            elif i - s >= 23 and u_is(p, s, s + 23, b"-//w3c//dtd html 4.01//"):
                strict401 = True
            else:
                return Q_UNKNOWN
            i += 1
            while i < b and u_space(p[i]):
                i += 1
            if i < b and (p[i] == 34 or p[i] == 39):
                system = True
            elif i < b:
                return Q_UNKNOWN
            if xhtml or strict401:
                return Q_NO
            return Q_NO if (html401 and (system or not transitional)) else Q_QUIRKS
        if find_bytes(p, s, i, b"ibmxhtml1-transitional", 22) < i:
            return Q_QUIRKS
        return Q_NO

    cdef int emit_text(self, const unsigned char *p, size_t a, size_t b) except -2:
        """Text ``p[a:b]`` (references decoded) as character tokens."""
        cdef const unsigned char *s
        cdef size_t n = self.text_of(p, a, b, True, &s)
        return self.chars(s, n) if n else DONE

    cdef size_t text_of(self, const unsigned char *p, size_t a, size_t b, bint refs,
                        const unsigned char **out) except? 0:
        """``p[a:b]`` as text (CR LF as LF; with ``refs``, references decoded; a leading LF dropped
        after <pre>, <listing> or <textarea>): its length, and in ``out`` where it is."""
        cdef const unsigned char *s = p + a
        cdef size_t n = b - a
        if (refs and memchr(s, 38, n) != NULL) or memchr(s, 13, n) != NULL:
            self.scratch.length = 0
            add_text(&self.scratch, p, a, b, refs, False)
            s, n = self.scratch.data, self.scratch.length
        if self.ignore_lf:
            self.ignore_lf = False
            if n and s[0] == 10:
                s += 1
                n -= 1
        out[0] = s
        return n

    cdef int guard_tag(self, const unsigned char *p, size_t name, size_t n, bint start) noexcept:
        """The nesting guard's count (trawl.html.nesting: its names, its rule)."""
        cdef size_t j = name
        while j < n and is_name_char(p[j]):
            j += 1
        if j == name or no_nesting(p + name, j - name):
            return 0
        if start:
            self.guard += 1
            if self.guard > <int> self.max_depth:
                self.reason = "depth"
                return BAIL
        elif self.guard > 0:
            self.guard -= 1
        return 0

    cdef int run(self, const unsigned char *p, size_t n) except -2:
        cdef size_t i = 0, lt, j, e, end, m, k
        cdef bint closing, anchor
        cdef unsigned char c
        cdef unsigned char lname[MAX_WORD_LENGTH]
        cdef int code, r
        if memchr(p, 0, n) != NULL:
            self.reason = "nul"
            return BAIL
        while i < n:
            lt = find_lt(p, i, n)
            if lt > i:
                if self.emit_text(p, i, lt) == BAIL:
                    return BAIL
            if lt + 1 >= n:
                if lt < n and self.emit_text(p, lt, n) == BAIL:
                    return BAIL
                break
            i = lt
            c = p[i + 1]
            if c == 33:  # "<!"
                e = u_markup_decl_end(p, i, n, False)
                if i + 9 <= n and u_is(p, i + 2, i + 9, b"doctype"):
                    if self.mode == M_INITIAL:
                        self.quirks = self.doctype(p, i + 9, e - 1) if e else Q_QUIRKS
                        self.mode = M_BEFORE_HTML
                self.ignore_lf = False
                if e == 0:
                    break
                i = e
                continue
            if c == 63:  # "<?": a bogus comment
                self.ignore_lf = False
                e = find_bytes(p, i + 2, n, b">", 1)
                i = e + 1
                continue
            closing = c == 47
            if closing:
                if i + 2 >= n:
                    if self.emit_text(p, i, n) == BAIL:
                        return BAIL
                    break
                if p[i + 2] == 62:  # "</>"
                    i += 3
                    continue
                if not u_letter(p[i + 2]):  # a bogus comment
                    self.ignore_lf = False
                    i = find_bytes(p, i + 2, n, b">", 1) + 1
                    continue
                j = i + 2
            elif u_letter(c):
                j = i + 1
            else:  # "<" in text, with what follows it
                e = find_lt(p, i + 1, n)
                if self.emit_text(p, i, e) == BAIL:
                    return BAIL
                i = e
                continue
            # A tag: its name, lower-cased.
            e = u_name_end(p, j, n)
            m = e - j
            code = 0
            if m <= MAX_WORD_LENGTH:
                for k in range(m):
                    lname[k] = <unsigned char> lower(p[j + k])
                code = tag_code(lname, m)
            self.t_name_off = self.t_name_len = 0
            if code == 0:
                self.t_name_off = self.strs.length
                for k in range(m):
                    c = <unsigned char> lower(p[j + k])
                    buf_add(&self.strs, &c, 1)
                self.t_name_len = m
            anchor = not closing and (code == T_A or code == T_AREA or code == T_BASE or code == T_LINK)
            end = self.attributes(p, e, n, not closing, anchor)
            if end == 0:  # the page ends inside the tag: it is dropped
                break
            if self.t_seen > self.max_attrs:
                self.reason = "attributes"
                return BAIL
            if self.guard_tag(p, j, n, not closing) == BAIL:
                return BAIL
            self.t_tag = code
            self.ignore_lf = False
            if closing:
                self.t_a_count = 0
                r = self.end()
            else:
                r = self.start()
            if r == BAIL:
                return BAIL
            i = end
            if self.raw == RAW_NONE:
                continue
            # The text of a script, style, title, textarea...: to its end tag.
            # (Only known tags start raw text, so the name is in lname.)
            e = script_end(p, i, n) if self.raw == RAW_SCRIPT else u_raw_end(p, i, n, lname, m)
            if e > i:
                self.emit_raw(p, i, e, self.raw == RAW_RCDATA)
            self.ignore_lf = False
            self.raw = RAW_NONE
            self.pop()
            if e >= n:
                break
            end = self.attributes(p, u_name_end(p, e + 2, n), n, False, False)
            if end == 0:
                break
            if self.guard_tag(p, e + 2, n, False) == BAIL:
                return BAIL
            i = end
        return self.finish()

    cdef int emit_raw(self, const unsigned char *p, size_t a, size_t b, bint refs) except -1:
        """A raw-text element's text, into it (the current node)."""
        cdef const unsigned char *s
        cdef size_t n = self.text_of(p, a, b, refs, &s)
        return self.insert_text(s, n)

    cdef int link(self) except -1:
        """Pointers for the built tree: children in document order, text, attributes."""
        cdef size_t k
        cdef uint32_t j
        cdef LNode *nd
        cdef LNode *parent
        cdef LAttr *a
        for k in range(self.n_attrs):
            a = &self.attrs[k]
            if a.value != NULL:
                a.value = self.strs.data + a.v_off if a.value_len else <const unsigned char *> b""
        for k in range(self.n_nodes):
            nd = &self.nodes[k]
            nd.node.owner_document = <void *> &_lite_doc
            if nd.tag < 0:
                nd.node.type = T_TEXT
                nd.data.data = self.text.data + nd.off
                nd.data.length = nd.length
            else:
                nd.node.type = T_ELEMENT
                nd.node.local_name = _tt_lexbor[nd.tag]
                if nd.a_count:
                    nd.attrs = &self.attrs[nd.a_start]
                    for j in range(nd.a_count - 1):
                        self.attrs[nd.a_start + j].next = &self.attrs[nd.a_start + j + 1]
                    self.attrs[nd.a_start + nd.a_count - 1].next = NULL
            if nd.parent_i < 0 or self.nodes[nd.parent_i].tag == T_TEMPLATE:
                continue  # (a template's content is not its children)
            parent = &self.nodes[nd.parent_i]
            nd.node.parent = &parent.node
            nd.node.next = &self.nodes[nd.next_i].node if nd.next_i >= 0 else NULL
            nd.node.prev = &self.nodes[nd.prev_i].node if nd.prev_i >= 0 else NULL
            if nd.prev_i < 0:
                parent.node.first_child = &nd.node
            if nd.next_i < 0:
                parent.node.last_child = &nd.node
        self.root = _LiteNode(<size_t> &self.nodes[self.html_i]) if self.html_i >= 0 else None
        self.head = _LiteNode(<size_t> &self.nodes[self.head_i]) if self.head_i >= 0 else None
        self.body = _LiteNode(<size_t> &self.nodes[self.body_i]) if self.body_i >= 0 else None
        return 0


cdef const unsigned char *_kept_names[MAX_WORDS]
_KEPT_NAMES = _KEPT_ATTR_NAMES.split()  # (the stripper's list, in its order: word_index's codes)
for _k, _name in enumerate(_KEPT_NAMES):
    _kept_names[_k] = <const unsigned char *> (<bytes> _name)


def build_tree(bytes markup, size_t max_depth, size_t max_attrs):
    """The lite tree of UTF-8 ``markup`` (the cut's output), or, where this builder does not
    follow the HTML standard's tree construction, a :class:`LiteTree` whose ``reason`` says why
    (nothing else of it is usable)."""
    cdef LiteTree tree = LiteTree()
    if not _tree_ready:
        raise RuntimeError("trawl.html._walk.init_tree was not called")
    tree.stack = <int *> malloc(LITE_MAX_DEPTH * sizeof(int))
    if tree.stack == NULL:
        raise MemoryError()
    # Room for the nodes and text a page of this size usually has (a node per ~50 bytes of the
    # cut page, text a quarter of it), so that the arrays seldom grow by copying.
    tree.cap_nodes = max(1024, len(markup) // 40)
    tree.nodes = <LNode *> malloc(tree.cap_nodes * sizeof(LNode))
    if tree.nodes == NULL:
        tree.cap_nodes = 0
        raise MemoryError()
    buf_reserve(&tree.text, len(markup) // 4 + 64)
    tree.reason = ""
    tree.html_i = tree.head_i = tree.body_i = tree.form_i = -1
    tree.max_depth, tree.max_attrs = max_depth, max_attrs
    if tree.run(<const unsigned char *> markup, len(markup)) == BAIL:
        if not tree.reason:
            tree.reason = "other"
        return tree
    tree.link()
    return tree
