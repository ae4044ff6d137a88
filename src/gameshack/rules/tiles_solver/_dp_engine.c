/* The tile search's node function in C: search.Search.f_py, step for step.
 *
 * search.py builds everything the node function reads (the entries per number, the bounds,
 * the kept estimates) and setrules.py the shared tables, handed over once by setup_tables(),
 * which refuses tables of another shape than the arrays below. This module runs the
 * recursion over flat C arrays with its own memo and lists a state's affordable entries as
 * entries._usable does; it searches the same nodes and gives the same answers as f_py (a
 * test compares them). It is built by setup.py next to the mypyc-compiled rules and, like
 * them, used only when the build matches the sources (gameshack/rules/__init__.py).
 *
 * Every number here is what f_py computes with Python ints; none exceeds 2**53 (scores are
 * below 2**40 in magnitude, memo keys below 2**34, choices below 2**52).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* the shapes of setrules' tables (setup_tables checks them) */
#define OPEN 5       /* MAX_OPEN + 1 */
#define CODES 125    /* run codes */
#define TO_RUNS 7    /* tiles of one number to one colour's runs: 0..6 */
#define PAST 4       /* copies 0..2, then "past 13" */
#define SPARE 3      /* jokers 0..2 */
#define KEPT_TABLE 160 /* search._keep_table's length */
#define NEG (-((int64_t)1 << 40))
#define MISSING INT64_MIN
#define FAILED INT64_MIN /* f's error return: the callers unwind */

static int TRANS_CAP[OPEN][CODES][TO_RUNS];
static int DEFICIT[PAST][PAST][CODES];
static int MUST[CODES];
static int SPREAD_N[SPARE];
static int SPREAD_W[SPARE][81][4];
static int tables_ready = 0;

/* ------------------------------------------------------------------ memo */

typedef struct {
    int64_t key; /* -1: empty */
    int64_t val; /* 2 * score + exact */
    int64_t choice;
} Slot;

typedef struct {
    Slot *slots;
    size_t cap; /* a power of two */
    size_t used;
} Memo;

static inline size_t slot_of(int64_t key, size_t cap) {
    uint64_t x = (uint64_t)key;
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    return (size_t)x & (cap - 1);
}

static int memo_init(Memo *m, size_t cap) {
    m->slots = (Slot *)PyMem_Malloc(cap * sizeof(Slot));
    if (!m->slots) return -1;
    for (size_t i = 0; i < cap; i++) m->slots[i].key = -1;
    m->cap = cap;
    m->used = 0;
    return 0;
}

static inline Slot *memo_find(const Memo *m, int64_t key) {
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        Slot *s = &m->slots[i];
        if (s->key == key) return s;
        if (s->key == -1) return NULL;
    }
}

static inline int64_t memo_get(const Memo *m, int64_t key) {
    Slot *s = memo_find(m, key);
    return s ? s->val : MISSING;
}

/* set val (and choice) for key; -1 on no memory */
static int memo_put(Memo *m, int64_t key, int64_t val, int64_t choice) {
    if ((m->used + 1) * 2 > m->cap) {
        Memo bigger;
        if (memo_init(&bigger, m->cap * 2) < 0) return -1;
        for (size_t k = 0; k < m->cap; k++) {
            Slot *s = &m->slots[k];
            if (s->key == -1) continue;
            size_t i = slot_of(s->key, bigger.cap);
            while (bigger.slots[i].key != -1) i = (i + 1) & (bigger.cap - 1);
            bigger.slots[i] = *s;
        }
        bigger.used = m->used;
        PyMem_Free(m->slots);
        *m = bigger;
    }
    size_t i = slot_of(key, m->cap);
    while (m->slots[i].key != key && m->slots[i].key != -1) i = (i + 1) & (m->cap - 1);
    Slot *s = &m->slots[i];
    if (s->key == -1) {
        s->key = key;
        m->used++;
    }
    s->val = val;
    s->choice = choice;
    return 0;
}

/* ------------------------------------------------------------------ the engine */

typedef struct {
    PyObject_HEAD
    int jokers, need_jokers, credit_from, with_kept;
    int64_t joker_w;
    int64_t vn[15], per_real[15], kept_max[15];
    int64_t upper[15][SPARE], rest[15][SPARE];
    int cap_of[15][4], a1_of[15][4], a2_of[15][4]; /* table rows per number and colour */
    int64_t *ents[15];                             /* per number, the entries */
    int64_t *kept_at[15]; /* per number, search._keep_table's (with_kept) */
    Py_ssize_t n_ents[15];
    Memo memo;
    int64_t nodes;
} Engine;

static int64_t engine_f(Engine *self, int n, int64_t key, int64_t need) {
    if (n == 14) return (key >> 28) >= self->need_jokers ? 0 : NEG;
    int64_t mk = key | ((int64_t)n << 30);
    int64_t m = memo_get(&self->memo, mk);
    if (m != MISSING && ((m & 1) || (m >> 1) <= need)) return m >> 1;
    self->nodes += 1;
    for (int sh = 0; sh < 28; sh += 7) { /* one more complete run can do all this can */
        if (((mk >> sh) & 127) < 25 * (OPEN - 1)) {
            int64_t mm = memo_get(&self->memo, mk + ((int64_t)25 << sh));
            if (mm != MISSING && (mm >> 1) <= need) return mm >> 1;
        }
    }
    int j = (int)(key >> 28);
    int free = self->jokers - j;
    int64_t best = NEG, best_choice = -1;
    int k[4], mu[4];
    const int *t[4], *d[4];
    for (int c = 0; c < 4; c++) {
        k[c] = (int)((key >> (7 * c)) & 127);
        mu[c] = MUST[k[c]];
        t[c] = TRANS_CAP[self->cap_of[n][c]][k[c]];
        d[c] = DEFICIT[self->a1_of[n][c]][self->a2_of[n][c]];
    }
    int credit_to = self->jokers;
    int jc = j > self->credit_from ? j : self->credit_from;
    int64_t rest = self->rest[n][j] + self->kept_max[n];
    const int64_t *up = self->upper[n + 1];
    int64_t vn = self->vn[n], per_real = self->per_real[n], joker_w = self->joker_w;
    int64_t nxt_bits = (int64_t)(n + 1) << 30;
    const int64_t *ents = self->ents[n];
    const int64_t *kept_row = self->kept_at[n];
    /* the affordable entries in the entries' order (most real tiles first), as
     * entries._usable lists them: each colour's unfinished runs take a tile, a joker where
     * the entry gives them too few real tiles; the first that cannot beat the threshold
     * stops the loop (f_py lists them lazily and stops there too) */
    for (Py_ssize_t pos = 0; pos < self->n_ents[n]; pos++) {
        int64_t e = ents[pos];
        int u[4], x[4];
        int used = (int)((e >> 12) & 7);
        for (int c = 0; c < 4; c++) {
            int r = (int)((e >> (3 * c)) & 7);
            x[c] = mu[c] > r ? mu[c] - r : 0;
            u[c] = r + x[c];
            used += x[c];
        }
        if (used > free) continue;
        int64_t thr = need > best ? need : best;
        int64_t gain = ((e >> 15) & 31) * per_real;
        if (gain + rest <= thr) break; /* falling gain order: none of the rest does better */
        if (self->with_kept) { /* as f_py reads search._keep_table */
            int64_t g0 = (e >> 17) & 24, g1 = (e >> 19) & 24, g2 = (e >> 21) & 24,
                    g3 = (e >> 23) & 24;
            int64_t s = kept_row[128 + (g0 >> 3)] + kept_row[132 + (g1 >> 3)] +
                        kept_row[136 + (g2 >> 3)] + kept_row[140 + (g3 >> 3)];
            if (s < 0 || s >= 16) {
                PyErr_SetString(PyExc_IndexError, "kept table index out of range");
                return FAILED;
            }
            gain += kept_row[g0 | (e & 7)] + kept_row[32 + (g1 | ((e >> 3) & 7))] +
                    kept_row[64 + (g2 | ((e >> 6) & 7))] + kept_row[96 + (g3 | ((e >> 9) & 7))] +
                    kept_row[144 + s];
            if (gain + rest - self->kept_max[n] <= thr) continue;
        }
        int spare = free - used;
        for (int w = 0; w < SPREAD_N[spare]; w++) {
            const int *y = SPREAD_W[spare][w];
            if (u[0] + y[0] >= TO_RUNS || u[1] + y[1] >= TO_RUNS || u[2] + y[2] >= TO_RUNS ||
                u[3] + y[3] >= TO_RUNS) {
                PyErr_SetString(PyExc_IndexError, "run tiles out of range");
                return FAILED;
            }
            int a = t[0][u[0] + y[0]];
            if (a < 0) continue;
            int b = t[1][u[1] + y[1]];
            if (b < 0) continue;
            int c = t[2][u[2] + y[2]];
            if (c < 0) continue;
            int dd = t[3][u[3] + y[3]];
            if (dd < 0) continue;
            int kk = used + y[0] + y[1] + y[2] + y[3];
            if (d[0][a] + d[1][b] + d[2][c] + d[3][dd] > free - kk) continue;
            int jn = j + kk;
            int64_t g = gain + kk * joker_w;
            int credited = (jn < credit_to ? jn : credit_to) - jc;
            if (credited > 0) g += credited * vn;
            if (g + up[jn] <= thr) continue;
            int64_t nk = a | (b << 7) | (c << 14) | ((int64_t)dd << 21) | ((int64_t)jn << 28);
            int64_t mm = memo_get(&self->memo, nk | nxt_bits), v;
            if (mm != MISSING && ((mm & 1) || (mm >> 1) <= thr - g)) {
                v = g + (mm >> 1);
            } else {
                int64_t sub = engine_f(self, n + 1, nk, thr - g);
                if (sub == FAILED) return FAILED;
                v = g + sub;
            }
            if (v > best) {
                int64_t xs = 0;
                for (int cc = 0; cc < 4; cc++) xs |= (int64_t)(x[cc] + y[cc]) << (3 * cc);
                best = v;
                best_choice = nk | xs << 30 | (int64_t)pos << 42;
                thr = v;
            }
        }
    }
    int bad;
    if (best > need) {
        bad = memo_put(&self->memo, mk, best * 2 + 1, best_choice);
    } else {
        int64_t bound = (m == MISSING || (m >> 1) > need) ? need : (m >> 1);
        bad = memo_put(&self->memo, mk, bound * 2, -1);
    }
    if (bad < 0) {
        PyErr_NoMemory();
        return FAILED;
    }
    return best;
}

/* ------------------------------------------------------------------ Python glue */

static int read_ints(PyObject *seq, int64_t *out, Py_ssize_t len) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != len) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "expected %zd ints", len);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int64_t)v;
    }
    Py_DECREF(fast);
    return 0;
}

/* seq[i] read into out (exactly len ints); with len < 0, a new array of its length */
static int read_row(PyObject *seq, Py_ssize_t i, int64_t *out, Py_ssize_t len) {
    PyObject *row = PySequence_GetItem(seq, i);
    if (!row) return -1;
    int bad = read_ints(row, out, len);
    Py_DECREF(row);
    return bad;
}

static int64_t *new_row(PyObject *seq, Py_ssize_t i, Py_ssize_t *len) {
    PyObject *row = PySequence_GetItem(seq, i);
    if (!row) return NULL;
    *len = PySequence_Size(row);
    int64_t *out = *len < 0 ? NULL : (int64_t *)PyMem_Malloc((*len + 1) * sizeof(int64_t));
    if (*len >= 0 && !out) PyErr_NoMemory();
    if (out && read_ints(row, out, *len) < 0) {
        PyMem_Free(out);
        out = NULL;
    }
    Py_DECREF(row);
    return out;
}

static void Engine_dealloc(Engine *self) {
    for (int n = 0; n < 15; n++) {
        PyMem_Free(self->ents[n]);
        PyMem_Free(self->kept_at[n]);
    }
    PyMem_Free(self->memo.slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Engine(ints, vn, per_real, kept_max, idx, ents, kept_at, upper, rest) as search.Search
 * builds them; ints: (jokers, need_jokers, credit_from, with_kept, joker_w); idx: per
 * number 0..14 and colour, (cap, a1, a2) flattened */
static PyObject *Engine_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *ints, *vn, *per_real, *kept_max, *idx, *ents, *kept_at, *upper, *rest;
    if (!tables_ready) {
        PyErr_SetString(PyExc_RuntimeError, "setup_tables() first");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &ints, &vn, &per_real, &kept_max, &idx, &ents,
                          &kept_at, &upper, &rest))
        return NULL;
    Engine *self = (Engine *)type->tp_alloc(type, 0); /* zeroed: every pointer NULL */
    if (!self) return NULL;
    int64_t iv[5], idxv[15 * 4 * 3];
    if (read_ints(ints, iv, 5) < 0 || read_ints(vn, self->vn, 15) < 0 ||
        read_ints(per_real, self->per_real, 15) < 0 ||
        read_ints(kept_max, self->kept_max, 15) < 0 || read_ints(idx, idxv, 15 * 4 * 3) < 0)
        goto fail;
    self->jokers = (int)iv[0];
    self->need_jokers = (int)iv[1];
    self->credit_from = (int)iv[2];
    self->with_kept = (int)iv[3];
    self->joker_w = iv[4];
    if (self->jokers < 0 || self->jokers >= SPARE) {
        PyErr_SetString(PyExc_ValueError, "too many jokers for the engine");
        goto fail;
    }
    for (int i = 0; i < 15 * 4; i++) {
        int cap = (int)idxv[3 * i], a1 = (int)idxv[3 * i + 1], a2 = (int)idxv[3 * i + 2];
        if (cap < 0 || cap >= OPEN || a1 < 0 || a1 >= PAST || a2 < 0 || a2 >= PAST) {
            PyErr_SetString(PyExc_ValueError, "table index out of range");
            goto fail;
        }
        self->cap_of[i / 4][i % 4] = cap;
        self->a1_of[i / 4][i % 4] = a1;
        self->a2_of[i / 4][i % 4] = a2;
    }
    for (int n = 0; n < 15; n++) {
        Py_ssize_t len, klen;
        self->ents[n] = new_row(ents, n, &len);
        if (!self->ents[n]) goto fail;
        self->n_ents[n] = len;
        self->kept_at[n] = new_row(kept_at, n, &klen);
        if (!self->kept_at[n]) goto fail;
        if (self->with_kept && n >= 1 && n <= 13 && klen != KEPT_TABLE) {
            PyErr_SetString(PyExc_ValueError, "kept_at: a search._keep_table per number");
            goto fail;
        }
        if (read_row(upper, n, self->upper[n], self->jokers + 1) < 0 ||
            read_row(rest, n, self->rest[n], self->jokers + 1) < 0)
            goto fail;
    }
    if (memo_init(&self->memo, 1024) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static PyObject *Engine_f(Engine *self, PyObject *args) {
    int n;
    long long key, need;
    if (!PyArg_ParseTuple(args, "iLL", &n, &key, &need)) return NULL;
    if (n < 1 || n > 14) {
        PyErr_SetString(PyExc_ValueError, "n must be 1..14");
        return NULL;
    }
    int64_t v = engine_f(self, n, (int64_t)key, (int64_t)need);
    if (v == FAILED) return NULL;
    return PyLong_FromLongLong((long long)v);
}

/* get(mk) -> (memo value or -1 if missing, choice) */
static PyObject *Engine_get(Engine *self, PyObject *args) {
    long long mk;
    if (!PyArg_ParseTuple(args, "L", &mk)) return NULL;
    Slot *s = memo_find(&self->memo, (int64_t)mk);
    if (!s) return Py_BuildValue("(LL)", -1LL, -1LL);
    return Py_BuildValue("(LL)", (long long)s->val, (long long)s->choice);
}

static PyObject *Engine_get_nodes(Engine *self, void *closure) {
    return PyLong_FromLongLong((long long)self->nodes);
}

static PyMethodDef Engine_methods[] = {
    {"f", (PyCFunction)Engine_f, METH_VARARGS, "f(n, key, need): as Search.f_py"},
    {"get", (PyCFunction)Engine_get, METH_VARARGS, "get(mk) -> (memo value or -1, choice)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Engine_getset[] = {
    {"nodes", (getter)Engine_get_nodes, NULL, "nodes searched", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gameshack.rules.tiles_solver._dp_engine.Engine",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The tile search's node function over C arrays (see search.Search).",
    .tp_new = Engine_new,
    .tp_dealloc = (destructor)Engine_dealloc,
    .tp_methods = Engine_methods,
    .tp_getset = Engine_getset,
};

/* the sequence seq[i][j]... at the given depth must have exactly the given length */
static PyObject *item(PyObject *seq, Py_ssize_t i, Py_ssize_t want) {
    PyObject *it = PySequence_GetItem(seq, i);
    if (it && PySequence_Size(it) != want) {
        Py_DECREF(it);
        PyErr_SetString(PyExc_ValueError, "a table of another shape than the engine's");
        return NULL;
    }
    return it;
}

/* setup_tables(TRANS_CAP, DEFICIT, MUST, SPREAD) from setrules, once; refuses another shape */
static PyObject *setup_tables(PyObject *module, PyObject *args) {
    PyObject *trans, *deficit, *must, *spread;
    if (!PyArg_ParseTuple(args, "OOOO", &trans, &deficit, &must, &spread)) return NULL;
    int64_t row[CODES];
    if (PySequence_Size(trans) != OPEN || PySequence_Size(deficit) != PAST ||
        PySequence_Size(spread) != SPARE) {
        PyErr_SetString(PyExc_ValueError, "a table of another shape than the engine's");
        return NULL;
    }
    for (int cap = 0; cap < OPEN; cap++) {
        PyObject *rows = item(trans, cap, CODES);
        if (!rows) return NULL;
        for (int code = 0; code < CODES; code++) {
            if (read_row(rows, code, row, TO_RUNS) < 0) {
                Py_DECREF(rows);
                return NULL;
            }
            for (int tt = 0; tt < TO_RUNS; tt++) TRANS_CAP[cap][code][tt] = (int)row[tt];
        }
        Py_DECREF(rows);
    }
    for (int a1 = 0; a1 < PAST; a1++) {
        PyObject *rows = item(deficit, a1, PAST);
        if (!rows) return NULL;
        for (int a2 = 0; a2 < PAST; a2++) {
            if (read_row(rows, a2, row, CODES) < 0) {
                Py_DECREF(rows);
                return NULL;
            }
            for (int code = 0; code < CODES; code++) DEFICIT[a1][a2][code] = (int)row[code];
        }
        Py_DECREF(rows);
    }
    if (read_ints(must, row, CODES) < 0) return NULL;
    for (int code = 0; code < CODES; code++) MUST[code] = (int)row[code];
    for (int spare = 0; spare < SPARE; spare++) {
        PyObject *ways = PySequence_GetItem(spread, spare);
        if (!ways) return NULL;
        Py_ssize_t len = PySequence_Size(ways);
        if (len < 0 || len > 81) {
            Py_DECREF(ways);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "too many ways");
            return NULL;
        }
        for (Py_ssize_t w = 0; w < len; w++) {
            if (read_row(ways, w, row, 4) < 0) {
                Py_DECREF(ways);
                return NULL;
            }
            for (int c = 0; c < 4; c++) SPREAD_W[spare][w][c] = (int)row[c];
        }
        SPREAD_N[spare] = (int)len;
        Py_DECREF(ways);
    }
    tables_ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"setup_tables", setup_tables, METH_VARARGS, "setup_tables(TRANS_CAP, DEFICIT, MUST, SPREAD)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_dp_engine",
    "The tile search's node function in C (see gameshack.rules.tiles_solver.search).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__dp_engine(void) {
    if (PyType_Ready(&EngineType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(&EngineType);
    if (PyModule_AddObject(m, "Engine", (PyObject *)&EngineType) < 0) {
        Py_DECREF(&EngineType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
