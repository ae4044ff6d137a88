/* The tile search's node function in C: _solver_dp._Core.f_py, step for step (and
 * _Core.f_split, the moved search's second bound following old runs' pairings, likewise).
 *
 * _solver_dp builds the tables (the entries per number, the bounds, what the kept scores
 * read) and keeps its pure-Python f_py, which gives the same answers and counts the same
 * nodes; this module runs that recursion over flat C arrays with its own memo, listing a
 * state's affordable entries and scoring the entries' kept tiles as f_py's helpers do. It
 * is built by setup.py next to the mypyc-compiled rules and, like them, used only when the
 * build matches the sources (gameshack/rules/__init__.py); without it f_py runs.
 *
 * Every number here is what f computes with Python ints; none exceeds 2**53 (scores are
 * below 2**40 in magnitude, memo keys below 2**34 — 2**52 with followed old runs' states —,
 * choices below 2**52).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAXJ 8          /* jokers a search may hold (the game has 2; tests use up to 4) */
#define MISSING INT64_MIN

/* the shared tables of _solver_dp, copied once by setup_tables() */
static int TRANS_CAP[5][125][8];   /* TRANS_CAP[cap][code][t], -1 past the row */
static int DEFICIT[4][4][125];
static int MUST[125];
/* SPREAD[spare][mask]: ways (y0..y3) to put up to spare jokers on the colours in mask */
static int SPREAD_N[3][16];
static int (*SPREAD_W[3][16])[4];
static int tables_ready = 0;

/* ------------------------------------------------------------------ memo */

typedef struct {
    int64_t key;     /* -1: empty */
    int64_t val;     /* 2 * score + exact */
    int64_t choice;  /* for exact entries */
} Slot;

typedef struct {
    Slot *slots;
    size_t cap;      /* a power of two */
    size_t used;
} Memo;

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    return x;
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
    size_t mask = m->cap - 1;
    size_t i = (size_t)mix((uint64_t)key) & mask;
    for (;;) {
        Slot *s = &m->slots[i];
        if (s->key == key) return s;
        if (s->key == -1) return NULL;
        i = (i + 1) & mask;
    }
}

static inline int64_t memo_get(const Memo *m, int64_t key) {
    Slot *s = memo_find(m, key);
    return s ? s->val : MISSING;
}

static int memo_grow(Memo *m) {
    Memo bigger;
    if (memo_init(&bigger, m->cap * 2) < 0) return -1;
    size_t mask = bigger.cap - 1;
    for (size_t k = 0; k < m->cap; k++) {
        Slot *s = &m->slots[k];
        if (s->key == -1) continue;
        size_t i = (size_t)mix((uint64_t)s->key) & mask;
        while (bigger.slots[i].key != -1) i = (i + 1) & mask;
        bigger.slots[i] = *s;
    }
    bigger.used = m->used;
    PyMem_Free(m->slots);
    *m = bigger;
    return 0;
}

/* set val (and choice, when given) for key; -1 on no memory */
static int memo_put(Memo *m, int64_t key, int64_t val, int set_choice, int64_t choice) {
    if ((m->used + 1) * 2 > m->cap && memo_grow(m) < 0) return -1;
    size_t mask = m->cap - 1;
    size_t i = (size_t)mix((uint64_t)key) & mask;
    for (;;) {
        Slot *s = &m->slots[i];
        if (s->key == key) break;
        if (s->key == -1) {
            s->key = key;
            s->choice = -1;
            m->used++;
            break;
        }
        i = (i + 1) & mask;
    }
    Slot *s = &m->slots[i];
    s->val = val;
    if (set_choice) s->choice = choice;
    return 0;
}

/* ------------------------------------------------------------------ the engine */

typedef struct Engine_s {
    PyObject_HEAD
    int jokers, need_jokers, credit_from, credit_to, relaxed, with_kept;
    int64_t joker_w;
    int64_t vn[15], per_real[15], kept_max[15];
    int64_t upper[15][MAXJ + 1], rest[15][MAXJ + 1];
    int cap_of[15][4];                 /* TRANS_CAP index per number and colour */
    int a1_of[15][4], a2_of[15][4];    /* DEFICIT indices */
    int64_t *ents[15];                 /* per number, the entries (see _solver_dp) */
    Py_ssize_t n_ents[15];
    int64_t *kept_at[15];              /* per number, per entry index (with_kept) */
    Py_ssize_t kept_len[15];
    PyObject *out_of_budget;           /* exception class */
    Memo memo;
    int64_t nodes, budget;
    /* following old runs' pairings (_Core.f_split; set by set_split) */
    int split;
    int64_t track[4][16], track_real[4][16];
    int64_t kp_og[15][4], kp_orr[15][4], kp_starts[15][4], kp_gp[15][16];
    Py_ssize_t kp_gp_len[15];
    struct Engine_s *plain;            /* the search whose memo bounds this one's, or NULL */
} Engine;

static int64_t as_i64(PyObject *o, int *err) {
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) *err = 1;
    return (int64_t)v;
}

/* _solver_dp._keep_bound for entry e: og, orr, starts per colour, gp the old groups' share */
static int keep_bound(int64_t e, const int64_t *og, const int64_t *orr, const int64_t *starts,
                      const int64_t *gp, Py_ssize_t gp_len, int lost, int64_t *out) {
    int64_t s = 0, runs = 0;
    for (int c = 0; c < 4; c++) {
        int64_t to_runs = (e >> (3 * c)) & 7;
        int64_t to_groups = (e >> (20 + 2 * c)) & 3;
        int64_t a = og[c] < to_groups ? og[c] : to_groups;
        s += a;
        int64_t creditable = orr[c] - ((lost >> c) & 1);
        int64_t b = creditable < to_runs ? creditable : to_runs;
        int64_t more = starts[c];
        if (orr[c] - b < more) more = orr[c] - b;
        if (to_groups - a < more) more = to_groups - a;
        runs += b + (more > 0 ? more : 0);
    }
    if (s < 0 || s >= gp_len) {
        PyErr_SetString(PyExc_IndexError, "group keep index out of range");
        return -1;
    }
    *out = runs + gp[s];
    return 0;
}

/* The error path: f returns this and the callers unwind without touching the memo. */
#define FAILED INT64_MIN

static int64_t engine_f(Engine *self, int n, int64_t key, int64_t need);

/* One candidate next state: the part of f shared by both branches. Returns 0 to go on,
 * -1 on an error. Updates *best / *best_choice. */
static inline int try_next(Engine *self, int n, int64_t g, int64_t thr, int64_t nk,
                           int64_t choice_low, int64_t *best, int64_t *best_choice,
                           int64_t nxt_bits) {
    int64_t mm = memo_get(&self->memo, nk | nxt_bits);
    int64_t v;
    if (mm != MISSING && ((mm & 1) || (mm >> 1) <= thr - g)) {
        v = g + (mm >> 1);
    } else {
        int64_t sub = engine_f(self, n + 1, nk, thr - g);
        if (sub == FAILED) return -1;
        v = g + sub;
    }
    if (v > *best) {
        *best = v;
        *best_choice = nk | choice_low;
    }
    return 0;
}

/* The score earned at a number with ``k`` jokers placed there (``j`` before it): each
 * joker's weight and, unless jokers earn nothing, the value of those credited (the ``jc``th
 * to the ``credit_to``th met). */
static inline int64_t with_jokers(int64_t gain, int k, int j, int64_t joker_w, int relaxed,
                                  int jc, int credit_to, int64_t vn) {
    int jn = j + k;
    int64_t g = gain + k * joker_w;
    if (!relaxed) {
        int credited = (jn < credit_to ? jn : credit_to) - jc;
        if (credited > 0) g += credited * vn;
    }
    return g;
}

/* The next state's key: per colour its runs' code (7 bits each), then the jokers used. */
static inline int64_t next_key(int a, int b, int c, int d, int jn) {
    return a | (b << 7) | (c << 14) | ((int64_t)d << 21) | ((int64_t)jn << 28);
}

/* A node's start, in both node functions: the memo's answer for ``need`` if it has one
 * (*done set); else the node is counted against the budget (FAILED with *done set when it
 * is spent). *m: the memo's entry (MISSING if none). */
static inline int64_t node_start(Engine *self, int64_t mk, int64_t need, int64_t *m, int *done) {
    *m = memo_get(&self->memo, mk);
    *done = 1;
    if (*m != MISSING && ((*m & 1) || (*m >> 1) <= need)) return *m >> 1;
    self->nodes += 1;
    if (self->budget) {
        self->budget -= 1;
        if (!self->budget) {
            PyErr_SetNone(self->out_of_budget);
            return FAILED;
        }
    }
    *done = 0;
    return 0;
}

/* A state with one more complete run of a colour can do all this one can: a bound proved
 * for it at most ``need`` holds here too (1 and *out set), else 0. */
static inline int more_complete(const Engine *self, int64_t mk, int64_t need, int64_t *out) {
    for (int sh = 0; sh < 28; sh += 7) {
        if (((mk >> sh) & 127) < 100) {
            int64_t mm = memo_get(&self->memo, mk + ((int64_t)25 << sh));
            if (mm != MISSING && (mm >> 1) <= need) {
                *out = mm >> 1;
                return 1;
            }
        }
    }
    return 0;
}

/* A node's end: a best above ``need`` is exact (with its choice), else ``need`` or the
 * memo's lower bound is remembered as a bound; returns best (FAILED out of memory). */
static inline int64_t node_end(Engine *self, int64_t mk, int64_t m, int64_t best, int64_t need,
                               int64_t best_choice) {
    int bad;
    if (best > need) {
        bad = memo_put(&self->memo, mk, best * 2 + 1, 1, best_choice) < 0;
    } else {
        int64_t bound = (m == MISSING || (m >> 1) > need) ? need : (m >> 1);
        bad = memo_put(&self->memo, mk, bound * 2, 0, 0) < 0;
    }
    if (bad) {
        PyErr_NoMemory();
        return FAILED;
    }
    return best;
}

static int64_t engine_f(Engine *self, int n, int64_t key, int64_t need) {
    if (n == 14) return (key >> 28) >= self->need_jokers ? 0 : -((int64_t)1 << 40);
    const int64_t NEG = -((int64_t)1 << 40);
    int64_t mk = key | ((int64_t)n << 30);
    int64_t m, known;
    int done;
    known = node_start(self, mk, need, &m, &done);
    if (done) return known;
    int j = (int)(key >> 28);
    int relaxed = self->relaxed;
    if (relaxed && j) {
        int64_t base = mk & ~((int64_t)3 << 28);
        for (int jj = 0; jj < j; jj++) {
            int64_t mm = memo_get(&self->memo, base | ((int64_t)jj << 28));
            if (mm != MISSING && (mm >> 1) <= need) return mm >> 1;
        }
    }
    if (more_complete(self, mk, need, &known)) return known;
    int free = self->jokers - j;
    int64_t best = NEG;
    int64_t best_choice = -1;
    int k0 = (int)(key & 127), k1 = (int)((key >> 7) & 127);
    int k2 = (int)((key >> 14) & 127), k3 = (int)((key >> 21) & 127);
    const int *t0 = TRANS_CAP[self->cap_of[n][0]][k0];
    const int *t1 = TRANS_CAP[self->cap_of[n][1]][k1];
    const int *t2 = TRANS_CAP[self->cap_of[n][2]][k2];
    const int *t3 = TRANS_CAP[self->cap_of[n][3]][k3];
    int m0 = MUST[k0], m1 = MUST[k1], m2 = MUST[k2], m3 = MUST[k3];
    const int *d0 = DEFICIT[self->a1_of[n][0]][self->a2_of[n][0]];
    const int *d1 = DEFICIT[self->a1_of[n][1]][self->a2_of[n][1]];
    const int *d2 = DEFICIT[self->a1_of[n][2]][self->a2_of[n][2]];
    const int *d3 = DEFICIT[self->a1_of[n][3]][self->a2_of[n][3]];
    int credit_from = self->credit_from, credit_to = self->credit_to;
    int64_t joker_w = self->joker_w;
    int jc = j > credit_from ? j : credit_from;
    int64_t rest = self->rest[n][j];
    const int64_t *up = self->upper[n + 1];
    int64_t vn = self->vn[n];
    int64_t per_real = self->per_real[n];
    int64_t nxt_bits = (int64_t)(n + 1) << 30;
    int anywhere = !relaxed || n == 11;
    int64_t pkey = m0 | m1 << 3 | m2 << 6 | m3 << 9 | (int64_t)free << 12 | (int64_t)n << 14;
    const int64_t *ents = self->ents[n];
    Py_ssize_t n_ents = self->n_ents[n];
    int with_kept = self->with_kept;
    const int64_t *kept_row = self->kept_at[n];
    int64_t kept_n = self->kept_max[n];
    rest += kept_n;
    /* The affordable entries in the entries' order (most real tiles first), as
     * _solver_dp._usable lists them for the Python f: each colour's unfinished runs take a
     * tile, a joker where the entry gives them too few real tiles; at most the free jokers
     * (as the Python key holds them: 2 bits). The Python f lists them lazily and stops where
     * the next could not beat the threshold; here the first such entry stops the loop. */
    int mu0 = (int)(pkey & 7), mu1 = (int)((pkey >> 3) & 7);
    int mu2 = (int)((pkey >> 6) & 7), mu3 = (int)((pkey >> 9) & 7);
    int free_u = (int)((pkey >> 12) & 3);
    int plain = !(mu0 || mu1 || mu2 || mu3);
    for (Py_ssize_t pos = 0; pos < n_ents; pos++) {
        int64_t e = ents[pos];
        int64_t p;
        if (plain) {
            if (((e >> 12) & 7) > free_u) continue;
            p = (e & 0xFFFFF) | ((int64_t)pos << 32);
        } else {
            int r0 = (int)(e & 7), r1 = (int)((e >> 3) & 7);
            int r2 = (int)((e >> 6) & 7), r3 = (int)((e >> 9) & 7);
            int y0 = mu0 > r0 ? mu0 - r0 : 0, y1 = mu1 > r1 ? mu1 - r1 : 0;
            int y2 = mu2 > r2 ? mu2 - r2 : 0, y3 = mu3 > r3 ? mu3 - r3 : 0;
            int64_t used0 = ((e >> 12) & 7) + y0 + y1 + y2 + y3;
            if (used0 > free_u) continue;
            p = (int64_t)(r0 + y0) | (int64_t)(r1 + y1) << 3 | (int64_t)(r2 + y2) << 6 |
                (int64_t)(r3 + y3) << 9 | used0 << 12 | ((e >> 15) & 31) << 15 |
                (int64_t)(y0 | y1 << 3 | y2 << 6 | y3 << 9) << 20 | (int64_t)pos << 32;
        }
        int64_t thr = need > best ? need : best;
        int64_t gain = ((p >> 15) & 31) * per_real;
        if (gain + rest <= thr) break; /* falling gain order: none of the rest does better */
        if (with_kept) {
            if (pos >= self->kept_len[n]) {
                PyErr_SetString(PyExc_IndexError, "kept row index out of range");
                return FAILED;
            }
            gain += kept_row[pos];
            if (gain + rest - kept_n <= thr) continue;
        }
        int used = (int)((p >> 12) & 7);
        int spare = free - used;
        if (!spare) {
            if ((p & 7) == 7 || ((p >> 3) & 7) == 7 || ((p >> 6) & 7) == 7 ||
                ((p >> 9) & 7) == 7) {
                PyErr_SetString(PyExc_IndexError, "run tiles out of range");
                return FAILED;
            }
            int a = t0[p & 7];
            if (a < 0) continue;
            int b = t1[(p >> 3) & 7];
            if (b < 0) continue;
            int c = t2[(p >> 6) & 7];
            if (c < 0) continue;
            int d = t3[(p >> 9) & 7];
            if (d < 0 || d0[a] + d1[b] + d2[c] + d3[d]) continue;
            int jn = j + used;
            int64_t g = with_jokers(gain, used, j, joker_w, relaxed, jc, credit_to, vn);
            if (g + up[jn] <= thr) continue;
            int64_t nk = next_key(a, b, c, d, jn);
            int64_t low = ((p >> 20) & 4095) << 30 | (p >> 32) << 42;
            if (try_next(self, n, g, thr, nk, low, &best, &best_choice, nxt_bits) < 0)
                return FAILED;
            continue;
        }
        if (spare < 0) spare += 3; /* as Python indexes SPREAD (never in a real state) */
        if (spare < 0 || spare > 2) {
            PyErr_SetString(PyExc_IndexError, "spare jokers out of range");
            return FAILED;
        }
        int u0 = (int)(p & 7), u1 = (int)((p >> 3) & 7);
        int u2 = (int)((p >> 6) & 7), u3 = (int)((p >> 9) & 7);
        int x0 = (int)((p >> 20) & 7), x1 = (int)((p >> 23) & 7);
        int x2 = (int)((p >> 26) & 7), x3 = (int)((p >> 29) & 7);
        int mask = 15;
        if (!anywhere) {
            mask = 0;
            if ((k0 / 25) + m0 > u0 - x0) mask |= 1;
            if ((k1 / 25) + m1 > u1 - x1) mask |= 2;
            if ((k2 / 25) + m2 > u2 - x2) mask |= 4;
            if ((k3 / 25) + m3 > u3 - x3) mask |= 8;
        }
        int nways = SPREAD_N[spare][mask];
        int(*ways)[4] = SPREAD_W[spare][mask];
        for (int w = 0; w < nways; w++) {
            int y0 = ways[w][0], y1 = ways[w][1], y2 = ways[w][2], y3 = ways[w][3];
            if (u0 + y0 > 6 || u1 + y1 > 6 || u2 + y2 > 6 || u3 + y3 > 6) {
                PyErr_SetString(PyExc_IndexError, "run tiles out of range");
                return FAILED;
            }
            int a = t0[u0 + y0];
            if (a < 0) continue;
            int b = t1[u1 + y1];
            if (b < 0) continue;
            int c = t2[u2 + y2];
            if (c < 0) continue;
            int d = t3[u3 + y3];
            if (d < 0) continue;
            int k = used + y0 + y1 + y2 + y3;
            if (d0[a] + d1[b] + d2[c] + d3[d] > free - k) continue;
            int jn = j + k;
            int64_t g = with_jokers(gain, k, j, joker_w, relaxed, jc, credit_to, vn);
            if (g + up[jn] <= thr) continue;
            int64_t nk = next_key(a, b, c, d, jn);
            int64_t xs = (x0 + y0) | (x1 + y1) << 3 | (x2 + y2) << 6 | (x3 + y3) << 9;
            int64_t before = best;
            if (try_next(self, n, g, thr, nk, xs << 30 | (p >> 32) << 42, &best, &best_choice,
                         nxt_bits) < 0)
                return FAILED;
            if (best > before) thr = best;
        }
    }
    return node_end(self, mk, m, best, need, best_choice);
}

/* ------------------------------------------------------------------ following old runs */

/* _solver_dp._Core._split_next: the followed old runs' states after number n (bits from
 * 40, 3 per colour) when ts[c] tiles go to colour c's runs, from the state key before with
 * the run codes nexts after, each with the colours whose followed run's real tile at n no
 * run keeps (out_bits[i], out_lost[i]); returns how many (at most 16), in f_split's order. */
static int split_next(const Engine *self, int n, int64_t key, const int *ts, const int *nexts,
                      int64_t *out_bits, int *out_lost) {
    int count = 1;
    out_bits[0] = 0;
    out_lost[0] = 0;
    for (int c = 0; c < 4; c++) {
        int64_t tid = self->track[c][n];
        if (tid < 0) continue;
        int first = self->track[c][n - 1] != tid;
        int s = first ? 0 : (int)((key >> (40 + 3 * c)) & 7);
        int code = (int)((key >> (7 * c)) & 127);
        int n1 = code % 5, n2 = code / 5 % 5, n3 = code / 25;
        int t = ts[c];
        int must = n1 + n2;
        int k3 = t - must < n3 ? t - must : n3;
        int st[2], kept[2], nopt = 1;
        if (s == 4) {
            st[0] = 4;
            kept[0] = 0;
        } else if (s == 1 || s == 2) {
            st[0] = s + 1;
            kept[0] = 1;
        } else if (s == 3) {
            st[0] = k3 > 0 ? 3 : 4;
            kept[0] = k3 > 0;
        } else {
            st[0] = 0;
            kept[0] = 0;
            if (t - must > 0) {
                st[1] = 1;
                kept[1] = 1;
                nopt = 2;
            } else if (t > 0 && first) {
                st[1] = n1 > 0 ? 2 : 3;
                kept[1] = 1;
                nopt = 2;
            }
        }
        int ends = self->track[c][n + 1] != tid;
        int real = (int)self->track_real[c][n];
        int64_t bits[2];
        int lost[2];
        for (int o = 0; o < nopt; o++) {
            int v = st[o];
            if (v == 3 && nexts[c] / 25 == 0) v = 4;
            if (ends) v = 0;
            bits[o] = (int64_t)v << (40 + 3 * c);
            lost[o] = kept[o] || !real ? 0 : 1 << c;
        }
        if (nopt == 2) {
            /* the product, colour by colour: each earlier combination with each option */
            for (int i = count - 1; i >= 0; i--) {
                out_bits[2 * i + 1] = out_bits[i] | bits[1];
                out_lost[2 * i + 1] = out_lost[i] | lost[1];
                out_bits[2 * i] = out_bits[i] | bits[0];
                out_lost[2 * i] = out_lost[i] | lost[0];
            }
            count *= 2;
        } else {
            for (int i = 0; i < count; i++) {
                out_bits[i] |= bits[0];
                out_lost[i] |= lost[0];
            }
        }
    }
    return count;
}

#define PLAIN_KEY (((int64_t)1 << 40) - 1)

/* _solver_dp._Core.f_split, step for step. */
static int64_t engine_f_split(Engine *self, int n, int64_t key, int64_t need) {
    const int64_t NEG = -((int64_t)1 << 40);
    if (n == 14) return ((key >> 28) & 3) >= self->need_jokers ? 0 : NEG;
    int64_t mk = key | ((int64_t)n << 30);
    int64_t m, known;
    int done;
    known = node_start(self, mk, need, &m, &done);
    if (done) return known;
    int j = (int)((key >> 28) & 3);
    const Memo *pmemo = self->plain ? &self->plain->memo : NULL;
    if (pmemo) {
        int64_t pm = memo_get(pmemo, mk & PLAIN_KEY);
        if (pm != MISSING && (pm >> 1) <= need) return pm >> 1;
    }
    if (more_complete(self, mk, need, &known)) return known;
    int free = self->jokers - j;
    int64_t best = NEG;
    int k0 = (int)(key & 127), k1 = (int)((key >> 7) & 127);
    int k2 = (int)((key >> 14) & 127), k3 = (int)((key >> 21) & 127);
    const int *t0 = TRANS_CAP[self->cap_of[n][0]][k0];
    const int *t1 = TRANS_CAP[self->cap_of[n][1]][k1];
    const int *t2 = TRANS_CAP[self->cap_of[n][2]][k2];
    const int *t3 = TRANS_CAP[self->cap_of[n][3]][k3];
    int m0 = MUST[k0], m1 = MUST[k1], m2 = MUST[k2], m3 = MUST[k3];
    const int *d0 = DEFICIT[self->a1_of[n][0]][self->a2_of[n][0]];
    const int *d1 = DEFICIT[self->a1_of[n][1]][self->a2_of[n][1]];
    const int *d2 = DEFICIT[self->a1_of[n][2]][self->a2_of[n][2]];
    const int *d3 = DEFICIT[self->a1_of[n][3]][self->a2_of[n][3]];
    int credit_to = self->credit_to;
    int jc = j > self->credit_from ? j : self->credit_from;
    int64_t rest = self->rest[n][j];
    const int64_t *up = self->upper[n + 1];
    int64_t vn = self->vn[n];
    int64_t per_real = self->per_real[n];
    int64_t nxt_bits = (int64_t)(n + 1) << 30;
    const int64_t *ents = self->ents[n];
    Py_ssize_t n_ents = self->n_ents[n];
    const int64_t *kept_row = self->kept_at[n];
    int64_t kept_n = self->kept_max[n];
    rest += kept_n;
    if (self->kept_len[n] < n_ents) {
        PyErr_SetString(PyExc_IndexError, "kept row index out of range");
        return FAILED;
    }
    int mu[4] = {m0, m1, m2, m3};
    for (Py_ssize_t pos = 0; pos < n_ents; pos++) {
        int64_t e = ents[pos];
        int r[4], y[4], used = (int)((e >> 12) & 7);
        for (int c = 0; c < 4; c++) {
            r[c] = (int)((e >> (3 * c)) & 7);
            y[c] = mu[c] > r[c] ? mu[c] - r[c] : 0;
            used += y[c];
        }
        if (used > (free & 3)) continue;
        int64_t thr = need > best ? need : best;
        int64_t gain = ((e >> 15) & 31) * per_real;
        if (gain + rest <= thr) break; /* falling gain order: none of the rest does better */
        int64_t kept_full = kept_row[pos];
        if (gain + kept_full + rest - kept_n <= thr) continue;
        int spare = free - used;
        if (spare < 0 || spare > 2) {
            PyErr_SetString(PyExc_IndexError, "spare jokers out of range");
            return FAILED;
        }
        int u[4] = {r[0] + y[0], r[1] + y[1], r[2] + y[2], r[3] + y[3]};
        int nways = SPREAD_N[spare][15];
        int(*ways)[4] = SPREAD_W[spare][15];
        for (int w = 0; w < nways; w++) {
            int ts[4];
            for (int c = 0; c < 4; c++) ts[c] = u[c] + ways[w][c];
            if (ts[0] > 6 || ts[1] > 6 || ts[2] > 6 || ts[3] > 6) {
                PyErr_SetString(PyExc_IndexError, "run tiles out of range");
                return FAILED;
            }
            int nexts[4];
            nexts[0] = t0[ts[0]];
            if (nexts[0] < 0) continue;
            nexts[1] = t1[ts[1]];
            if (nexts[1] < 0) continue;
            nexts[2] = t2[ts[2]];
            if (nexts[2] < 0) continue;
            nexts[3] = t3[ts[3]];
            if (nexts[3] < 0) continue;
            int k = used + ways[w][0] + ways[w][1] + ways[w][2] + ways[w][3];
            if (d0[nexts[0]] + d1[nexts[1]] + d2[nexts[2]] + d3[nexts[3]] > free - k) continue;
            int jn = j + k;
            int64_t g = with_jokers(gain, k, j, self->joker_w, 0, jc, credit_to, vn);
            if (g + kept_full + up[jn] <= thr) continue;
            int64_t nk = next_key(nexts[0], nexts[1], nexts[2], nexts[3], jn);
            int64_t sbits[16];
            int lost[16];
            int nopts = split_next(self, n, key, ts, nexts, sbits, lost);
            for (int o = 0; o < nopts; o++) {
                int64_t gk = g + kept_full;
                if (lost[o]) {
                    int64_t kb;
                    if (keep_bound(e, self->kp_og[n], self->kp_orr[n], self->kp_starts[n],
                                   self->kp_gp[n], self->kp_gp_len[n], lost[o], &kb) < 0)
                        return FAILED;
                    gk = g + kb;
                }
                thr = need > best ? need : best;
                if (gk + up[jn] <= thr) continue;
                if (pmemo) {
                    int64_t pm = memo_get(pmemo, nk | nxt_bits);
                    if (pm != MISSING && (pm >> 1) <= thr - gk) continue;
                }
                int64_t nks = nk | sbits[o];
                int64_t mm = memo_get(&self->memo, nks | nxt_bits);
                int64_t v;
                if (mm != MISSING && ((mm & 1) || (mm >> 1) <= thr - gk)) {
                    v = gk + (mm >> 1);
                } else {
                    int64_t sub = engine_f_split(self, n + 1, nks, thr - gk);
                    if (sub == FAILED) return FAILED;
                    v = gk + sub;
                }
                if (v > best) best = v;
            }
        }
    }
    return node_end(self, mk, m, best, need, -1);
}

/* ------------------------------------------------------------------ Python glue */

static void Engine_dealloc(Engine *self) {
    for (int n = 0; n < 15; n++) {
        PyMem_Free(self->ents[n]);
        PyMem_Free(self->kept_at[n]);
    }
    Py_XDECREF(self->out_of_budget);
    Py_XDECREF((PyObject *)self->plain);
    PyMem_Free(self->memo.slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int read_i64_list(PyObject *seq, int64_t *out, Py_ssize_t len) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) < len) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "sequence too short");
        return -1;
    }
    int err = 0;
    for (Py_ssize_t i = 0; i < len; i++) out[i] = as_i64(PySequence_Fast_GET_ITEM(fast, i), &err);
    Py_DECREF(fast);
    return err ? -1 : 0;
}

/* Engine(ints, vn, per_real, kept_max, idx, ents, kept_params, out_of_budget)
 * ints: (jokers, need_jokers, credit_from, credit_to, relaxed, with_kept, joker_w)
 * idx: per number 0..14 and colour, (cap, a1, a2) flattened (15 * 4 * 3)
 * ents: 15 sequences of entries; kept_params: per number None (no kept scores) or
 * (og, orr, starts, gp) as _solver_dp._keep_bound reads them. The bounds come after, by
 * set_bounds. */
static PyObject *Engine_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *ints, *vn, *per_real, *kept_max, *idx, *ents, *kept_params, *oob;
    if (!tables_ready) {
        PyErr_SetString(PyExc_RuntimeError, "setup_tables() first");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &ints, &vn, &per_real, &kept_max, &idx, &ents,
                          &kept_params, &oob))
        return NULL;
    Engine *self = (Engine *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    /* tp_alloc zeroes the object: every pointer is NULL until set */
    int64_t iv[7];
    int64_t idxv[15 * 4 * 3];
    if (read_i64_list(ints, iv, 7) < 0 || read_i64_list(vn, self->vn, 15) < 0 ||
        read_i64_list(per_real, self->per_real, 15) < 0 ||
        read_i64_list(kept_max, self->kept_max, 15) < 0 ||
        read_i64_list(idx, idxv, 15 * 4 * 3) < 0)
        goto fail;
    self->jokers = (int)iv[0];
    self->need_jokers = (int)iv[1];
    self->credit_from = (int)iv[2];
    self->credit_to = (int)iv[3];
    self->relaxed = (int)iv[4];
    self->with_kept = (int)iv[5];
    self->joker_w = iv[6];
    if (self->jokers < 0 || self->jokers > MAXJ) {
        PyErr_SetString(PyExc_ValueError, "too many jokers for the engine");
        goto fail;
    }
    for (int n = 0; n < 15; n++)
        for (int c = 0; c < 4; c++) {
            int cap = (int)idxv[(n * 4 + c) * 3], a1 = (int)idxv[(n * 4 + c) * 3 + 1],
                a2 = (int)idxv[(n * 4 + c) * 3 + 2];
            if (cap < 0 || cap > 4 || a1 < 0 || a1 > 3 || a2 < 0 || a2 > 3) {
                PyErr_SetString(PyExc_ValueError, "table index out of range");
                goto fail;
            }
            self->cap_of[n][c] = cap;
            self->a1_of[n][c] = a1;
            self->a2_of[n][c] = a2;
        }
    for (int n = 0; n < 15; n++) {
        PyObject *e = PySequence_GetItem(ents, n);
        if (!e) goto fail;
        Py_ssize_t ne = PySequence_Size(e);
        if (ne < 0) {
            Py_DECREF(e);
            goto fail;
        }
        self->n_ents[n] = ne;
        self->ents[n] = (int64_t *)PyMem_Malloc((ne ? ne : 1) * sizeof(int64_t));
        if (!self->ents[n]) {
            Py_DECREF(e);
            PyErr_NoMemory();
            goto fail;
        }
        int bad_e = read_i64_list(e, self->ents[n], ne);
        Py_DECREF(e);
        if (bad_e < 0) goto fail;
        PyObject *k = PySequence_GetItem(kept_params, n);
        if (!k) goto fail;
        Py_ssize_t len = k == Py_None ? 0 : ne;
        self->kept_len[n] = len;
        self->kept_at[n] = (int64_t *)PyMem_Malloc((len ? len : 1) * sizeof(int64_t));
        if (!self->kept_at[n]) {
            Py_DECREF(k);
            PyErr_NoMemory();
            goto fail;
        }
        if (len) {
            int64_t og[4], orr[4], starts[4], gp[16];
            PyObject *parts[4] = {NULL, NULL, NULL, NULL};
            int bad = PySequence_Size(k) != 4;
            for (int i = 0; i < 4 && !bad; i++) {
                parts[i] = PySequence_GetItem(k, i);
                bad = parts[i] == NULL;
            }
            Py_ssize_t gp_len = bad ? -1 : PySequence_Size(parts[3]);
            bad = bad || gp_len < 0 || gp_len > 16 || read_i64_list(parts[0], og, 4) < 0 ||
                  read_i64_list(parts[1], orr, 4) < 0 || read_i64_list(parts[2], starts, 4) < 0 ||
                  read_i64_list(parts[3], gp, gp_len) < 0;
            for (int i = 0; i < 4; i++) Py_XDECREF(parts[i]);
            for (Py_ssize_t i = 0; i < len && !bad; i++)
                bad = keep_bound(self->ents[n][i], og, orr, starts, gp, gp_len, 0,
                                 &self->kept_at[n][i]) < 0;
            for (int c = 0; c < 4 && !bad; c++) {
                self->kp_og[n][c] = og[c];
                self->kp_orr[n][c] = orr[c];
                self->kp_starts[n][c] = starts[c];
            }
            for (Py_ssize_t i = 0; i < gp_len && !bad; i++) self->kp_gp[n][i] = gp[i];
            self->kp_gp_len[n] = gp_len;
            if (bad) {
                Py_DECREF(k);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "kept_params: (og, orr, starts, gp)");
                goto fail;
            }
        }
        Py_DECREF(k);
    }
    for (int n = 0; n < 15; n++)
        for (int jj = 0; jj <= MAXJ; jj++) self->upper[n][jj] = self->rest[n][jj] = 0;
    Py_INCREF(oob);
    self->out_of_budget = oob;
    if (memo_init(&self->memo, 1024) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

/* set_bounds(upper, rest): per number, per jokers used (lists of lists) */
static PyObject *Engine_set_bounds(Engine *self, PyObject *args) {
    PyObject *upper, *rest;
    if (!PyArg_ParseTuple(args, "OO", &upper, &rest)) return NULL;
    for (int n = 0; n < 15; n++) {
        PyObject *u = PySequence_GetItem(upper, n);
        if (!u) return NULL;
        int bad = read_i64_list(u, self->upper[n], self->jokers + 1);
        Py_DECREF(u);
        if (bad < 0) return NULL;
        PyObject *r = PySequence_GetItem(rest, n);
        if (!r) return NULL;
        bad = read_i64_list(r, self->rest[n], self->jokers + 1);
        Py_DECREF(r);
        if (bad < 0) return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Engine_f(Engine *self, PyObject *args) {
    int n;
    long long key, need;
    if (!PyArg_ParseTuple(args, "iLL", &n, &key, &need)) return NULL;
    if (n < 1 || n > 14) {
        PyErr_SetString(PyExc_ValueError, "n must be 1..14");
        return NULL;
    }
    int64_t v = self->split ? engine_f_split(self, n, (int64_t)key, (int64_t)need)
                            : engine_f(self, n, (int64_t)key, (int64_t)need);
    if (v == FAILED) return NULL;
    return PyLong_FromLongLong((long long)v);
}

static PyTypeObject EngineType;

/* set_split(track, track_real, plain): follow old runs' pairings (_Core.f_split): per
 * colour and number 0..15 the followed old run's id (-1: none) and whether it has a real
 * tile there; plain: the Engine whose memo bounds this one's, or None */
static PyObject *Engine_set_split(Engine *self, PyObject *args) {
    PyObject *track, *track_real, *plain;
    if (!PyArg_ParseTuple(args, "OOO", &track, &track_real, &plain)) return NULL;
    if (self->jokers > 3) {
        PyErr_SetString(PyExc_ValueError, "following old runs needs at most 3 jokers");
        return NULL;
    }
    for (int c = 0; c < 4; c++) {
        PyObject *t = PySequence_GetItem(track, c);
        if (!t) return NULL;
        int bad = read_i64_list(t, self->track[c], 16);
        Py_DECREF(t);
        if (bad < 0) return NULL;
        PyObject *r = PySequence_GetItem(track_real, c);
        if (!r) return NULL;
        bad = read_i64_list(r, self->track_real[c], 16);
        Py_DECREF(r);
        if (bad < 0) return NULL;
    }
    if (plain != Py_None && !PyObject_TypeCheck(plain, &EngineType)) {
        PyErr_SetString(PyExc_TypeError, "plain must be an Engine or None");
        return NULL;
    }
    Py_XDECREF((PyObject *)self->plain);
    self->plain = NULL;
    if (plain != Py_None) {
        Py_INCREF(plain);
        self->plain = (Engine *)plain;
    }
    self->split = 1;
    Py_RETURN_NONE;
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

static PyObject *Engine_get_budget(Engine *self, void *closure) {
    return PyLong_FromLongLong((long long)self->budget);
}

static int Engine_set_budget(Engine *self, PyObject *value, void *closure) {
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "cannot delete budget");
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    self->budget = (int64_t)v;
    return 0;
}

static PyMethodDef Engine_methods[] = {
    {"f", (PyCFunction)Engine_f, METH_VARARGS, "f(n, key, need): as _Core.f"},
    {"get", (PyCFunction)Engine_get, METH_VARARGS, "get(mk) -> (memo value or -1, choice)"},
    {"set_bounds", (PyCFunction)Engine_set_bounds, METH_VARARGS, "set_bounds(upper, rest)"},
    {"set_split", (PyCFunction)Engine_set_split, METH_VARARGS,
     "set_split(track, track_real, plain)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Engine_getset[] = {
    {"nodes", (getter)Engine_get_nodes, NULL, "nodes searched", NULL},
    {"budget", (getter)Engine_get_budget, (setter)Engine_set_budget, "nodes left (0: none)",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gameshack.rules.tiles._dp_engine.Engine",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The tile search's node function over C arrays (see _solver_dp._Core).",
    .tp_new = Engine_new,
    .tp_dealloc = (destructor)Engine_dealloc,
    .tp_methods = Engine_methods,
    .tp_getset = Engine_getset,
};

/* seq[i][j] as a new reference (NULL with an exception) */
static PyObject *item2(PyObject *seq, Py_ssize_t i, Py_ssize_t j) {
    PyObject *row = PySequence_GetItem(seq, i);
    if (!row) return NULL;
    PyObject *item = PySequence_GetItem(row, j);
    Py_DECREF(row);
    return item;
}

/* the ints of seq[i][j] into out (at most cap of them); their count, or -1 with an exception */
static Py_ssize_t read_item2(PyObject *seq, Py_ssize_t i, Py_ssize_t j, int64_t *out,
                             Py_ssize_t cap) {
    PyObject *item = item2(seq, i, j);
    if (!item) return -1;
    Py_ssize_t len = PySequence_Size(item);
    if (len > cap) PyErr_SetString(PyExc_ValueError, "table row too long");
    if (len < 0 || len > cap || read_i64_list(item, out, len) < 0) len = -1;
    Py_DECREF(item);
    return len;
}

/* setup_tables(TRANS_CAP, DEFICIT, MUST, SPREAD): the shared tables, once */
static PyObject *setup_tables(PyObject *module, PyObject *args) {
    PyObject *trans, *deficit, *must, *spread;
    if (!PyArg_ParseTuple(args, "OOOO", &trans, &deficit, &must, &spread)) return NULL;
    int64_t row[125];
    for (int cap = 0; cap < 5; cap++)
        for (int code = 0; code < 125; code++) {
            Py_ssize_t len = read_item2(trans, cap, code, row, 8);
            if (len < 0) return NULL;
            for (int t = 0; t < 8; t++) TRANS_CAP[cap][code][t] = t < len ? (int)row[t] : -1;
        }
    for (int a1 = 0; a1 < 4; a1++)
        for (int a2 = 0; a2 < 4; a2++) {
            if (read_item2(deficit, a1, a2, row, 125) != 125) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad DEFICIT row");
                return NULL;
            }
            for (int code = 0; code < 125; code++) DEFICIT[a1][a2][code] = (int)row[code];
        }
    if (read_i64_list(must, row, 125) < 0) return NULL;
    for (int code = 0; code < 125; code++) MUST[code] = (int)row[code];
    for (int spare = 0; spare < 3; spare++)
        for (int mask = 0; mask < 16; mask++) {
            PyObject *ways = item2(spread, spare, mask);
            if (!ways) return NULL;
            Py_ssize_t len = PySequence_Size(ways);
            int(*w)[4] = NULL;
            if (len >= 0) w = (int(*)[4])PyMem_Malloc((len ? len : 1) * sizeof(int[4]));
            int bad = !w;
            for (Py_ssize_t i = 0; i < len && !bad; i++) {
                int64_t yv[4];
                PyObject *y = PySequence_GetItem(ways, i);
                bad = !y || read_i64_list(y, yv, 4) < 0;
                Py_XDECREF(y);
                for (int c = 0; c < 4 && !bad; c++) w[i][c] = (int)yv[c];
            }
            Py_DECREF(ways);
            if (bad) {
                PyMem_Free(w);
                return PyErr_Occurred() ? NULL : PyErr_NoMemory();
            }
            PyMem_Free(SPREAD_W[spare][mask]);
            SPREAD_W[spare][mask] = w;
            SPREAD_N[spare][mask] = (int)len;
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
    "The tile search's node function in C (see gameshack.rules.tiles._solver_dp).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__dp_engine(void) {
    if (PyType_Ready(&EngineType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "MAX_JOKERS", MAXJ) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&EngineType);
    if (PyModule_AddObject(m, "Engine", (PyObject *)&EngineType) < 0) {
        Py_DECREF(&EngineType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
