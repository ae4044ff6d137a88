/* The linear relaxation of the fewest-moved problem in C: _solver_lp._Model, step for step.
 *
 * Every floating-point operation is the Python one, in the same order (built with
 * -ffp-contract=off, so no fused multiply-adds), so the pivots, the bound and the play are
 * the same bit for bit as the pure-Python fallback's (a test compares them). It is built by
 * setup.py next to the mypyc-compiled rules and, like them, used only when the build matches
 * the sources (gameshack/rules/__init__.py); without it _solver_lp runs its own.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the dense loops over the basis inverse (pivot, duals, refactor, ftran, basic_values) built
 * twice, for AVX2 and for any x86-64, the CPU choosing at load time (~6% of the relaxation):
 * the same operations in the same order either way (no fused multiply-adds: the build has
 * -ffp-contract=off and the AVX2 one no FMA), only more of them at once. GCC 6 or later on
 * glibc (the choice at load is an ifunc); elsewhere built once, as before */
#if defined(__GNUC__) && __GNUC__ >= 6 && !defined(__clang__) && defined(__x86_64__) && \
    defined(__GLIBC__)
#define WIDE __attribute__((target_clones("avx2", "default")))
#else
#define WIDE
#endif

#define JOKER 52
#define EQ 0
#define LE 1
#define GE 2
#define SET 0
#define PLACED 1
#define SLACK 2
#define ARTIFICIAL 3
#define ENTER 1e-9
#define PIVOT 1e-9
#define PER_ROUND 40
#define ROUNDS 200
#define REFACTOR 200
#define DEGENERATE 30
#define DIVES 12
#define DIVE_TRIES 3
#define DIVE_SIDES 3
#define ARRANGEMENTS 100
#define NODES 512
#define BB_GAP 3
#define BB_PIVOTS 3000
#define BB_AFTER 1000
#define BB_ROUNDS 400
#define BARRED -100.0
#define STALL 300

typedef struct {
    double v;
    int kind, cn, a, b, k, i, cc;
    long seq;
} Entry;

typedef struct {
    /* the old sets */
    int nold;
    uint64_t *old_reals;
    int *old_jokers;
    int max_jokers;
    int avail[52];
    int avail_mask[4]; /* per colour, the numbers there (bit n - 1) */
    /* the branch (as _Model): per old set, the faces its continuation must hold and must
     * not, the fewest and most jokers it holds, whether it must be continued; its slot's
     * slack column */
    uint64_t *need, *ban;
    int *jokers_lo, *jokers_hi, *continued, *slot_slack;
    int face_row[52];
    int joker_row;
    int *slot_row;
    int rack_jokers;
    int value_row;
    double value_scale;
    int count_row;
    /* rows */
    int m, mcap;
    int *row_kind;
    double *row_lo, *row_hi, *b, *true_b;
    /* columns: entries (rows, values) and tiles in flat arrays */
    int n, ncap;
    double *cost, *most;
    int *barred; /* a column the branch bars: at zero, never entering */
    int *kind, *pair, *where, *estart, *elen, *tstart, *tlen, *kjokers, *kcredit, *kcredited;
    uint64_t *kreals;
    int *eidx;
    double *eval;
    int nnz, nnzcap;
    int *tiles;
    int ntiles, tcap;
    int first_set;
    /* the set columns by key (faces, jokers, old set, credited, credit): open addressing,
     * -1 empty, at most half full */
    int *hash;
    int hcap;
    /* the simplex */
    int *basis;
    double *binv; /* m x m, row-major */
    double *xb;
    int *nz; /* scratch for pivot: where the pivot row is not zero */
    long pivots;
    int since_refactor;
    int rounds, round_cap;
    /* the dive's play's tiles kept; the branch and bound's nodes, the most kept by a play
     * found and that play (NULL: the known play's), the right-hand sides perturbed */
    long dive_value;
    long nodes;
    long lower;
    PyObject *best;
    double *pert_b;
    /* barred columns given the cost BARRED at a node, and their own cost */
    int *pen_k;
    double *pen_cost;
    int npen;
    /* per colour, old set (-1: none) and first number, the runs counted last time a block
     * was not priced and the masks they were counted for: (key, count) pairs */
    int *counted;
    int failed; /* out of memory */
    int diving; /* in a dive from the true right-hand sides, not perturbed yet */
} Model;

static void *grow(void *p, int *cap, int need, size_t size, int *failed) {
    if (need <= *cap) return p;
    int c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    void *q = PyMem_Realloc(p, (size_t)c * size);
    if (!q) {
        *failed = 1;
        return p;
    }
    *cap = c;
    return q;
}

static int popcount64(uint64_t x) { return __builtin_popcountll(x); }

static int add_row(Model *M, int kind, double lo, double hi) {
    int r = M->m++;
    M->row_kind[r] = kind;
    M->row_lo[r] = lo;
    M->row_hi[r] = hi;
    M->b[r] = kind == LE ? hi : lo;
    return r;
}

static int add_column(Model *M, double cost, const int *rows, const double *vals, int len, int kind) {
    int k = M->n;
    int oldcap = M->ncap;
    if (k + 1 > M->ncap) {
        int cap = oldcap;
        M->cost = grow(M->cost, &cap, k + 1, sizeof(double), &M->failed);
        cap = oldcap;
        M->most = grow(M->most, &cap, k + 1, sizeof(double), &M->failed);
        cap = oldcap;
        M->barred = grow(M->barred, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->kind = grow(M->kind, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->pair = grow(M->pair, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->where = grow(M->where, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->estart = grow(M->estart, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->elen = grow(M->elen, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->tstart = grow(M->tstart, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->tlen = grow(M->tlen, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->kjokers = grow(M->kjokers, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->kcredit = grow(M->kcredit, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->kcredited = grow(M->kcredited, &cap, k + 1, sizeof(int), &M->failed);
        cap = oldcap;
        M->kreals = grow(M->kreals, &cap, k + 1, sizeof(uint64_t), &M->failed);
        if (M->failed) return -1;
        M->ncap = cap;
    }
    int nnzcap = M->nnzcap;
    M->eidx = grow(M->eidx, &nnzcap, M->nnz + len, sizeof(int), &M->failed);
    nnzcap = M->nnzcap;
    M->eval = grow(M->eval, &nnzcap, M->nnz + len, sizeof(double), &M->failed);
    if (M->failed) return -1;
    M->nnzcap = nnzcap;
    M->cost[k] = cost;
    M->most[k] = 0.0;
    M->barred[k] = 0;
    M->kind[k] = kind;
    M->pair[k] = -1;
    M->where[k] = -1;
    M->estart[k] = M->nnz;
    M->elen[k] = len;
    for (int j = 0; j < len; j++) {
        M->eidx[M->nnz + j] = rows[j];
        M->eval[M->nnz + j] = vals[j];
    }
    M->nnz += len;
    M->tstart[k] = M->ntiles;
    M->tlen[k] = 0;
    M->kjokers[k] = 0;
    M->kcredit[k] = 0;
    M->kcredited[k] = 0;
    M->kreals[k] = 0;
    M->n = k + 1;
    return k;
}

/* ------------------------------------------------------------------ sets as columns */

static inline size_t set_hash(uint64_t reals, int jokers, int pair, int credited, int credit) {
    uint64_t x = reals * 0x9E3779B97F4A7C15ULL;
    x ^= (uint64_t)(jokers + 4 * (pair + 1)) * 0xC2B2AE3D27D4EB4FULL;
    x ^= (uint64_t)(credited + 4 * credit) * 0x165667B19E3779F9ULL;
    x ^= x >> 29;
    return (size_t)x;
}

/* the slot for the key: where it is, or the empty one where it would go */
static int *hash_slot(const Model *M, uint64_t reals, int jokers, int pair, int credited,
                      int credit) {
    size_t mask = (size_t)M->hcap - 1;
    size_t h = set_hash(reals, jokers, pair, credited, credit) & mask;
    for (;;) {
        int k = M->hash[h];
        if (k < 0 || (M->kreals[k] == reals && M->kjokers[k] == jokers && M->pair[k] == pair &&
                      M->kcredited[k] == credited && M->kcredit[k] == credit))
            return &M->hash[h];
        h = (h + 1) & mask;
    }
}

static int hash_grow(Model *M) {
    int cap = M->hcap ? M->hcap * 2 : 256;
    int *old = M->hash;
    int oldcap = M->hcap;
    M->hash = PyMem_Malloc((size_t)cap * sizeof(int));
    if (!M->hash) {
        M->hash = old;
        M->failed = 1;
        return -1;
    }
    M->hcap = cap;
    for (int j = 0; j < cap; j++) M->hash[j] = -1;
    for (int j = 0; j < oldcap; j++)
        if (old[j] >= 0) {
            int k = old[j];
            *hash_slot(M, M->kreals[k], M->kjokers[k], M->pair[k], M->kcredited[k],
                       M->kcredit[k]) = k;
        }
    PyMem_Free(old);
    return 0;
}

/* a set's real faces as a bit mask, and its jokers */
static void faces(const int *tiles, int len, uint64_t *reals, int *jokers) {
    *reals = 0;
    *jokers = 0;
    for (int j = 0; j < len; j++) {
        if (tiles[j] == JOKER)
            (*jokers)++;
        else
            *reals |= (uint64_t)1 << tiles[j];
    }
}

static int add_set(Model *M, const int *tiles, int len, int pair, int credited, int credit) {
    uint64_t reals;
    int jokers;
    faces(tiles, len, &reals, &jokers);
    if (2 * (M->n + 1) > M->hcap && hash_grow(M) < 0) return -1;
    int *slot_at = hash_slot(M, reals, jokers, pair, credited, credit);
    if (*slot_at >= 0) return 0;
    int rows[64];
    double vals[64];
    int len_e = 0;
    for (int f = 0; f < 52; f++)
        if (reals >> f & 1) {
            rows[len_e] = M->face_row[f];
            vals[len_e++] = 1.0;
        }
    if (jokers) {
        rows[len_e] = M->joker_row;
        vals[len_e++] = (double)jokers;
        if (credited) {
            rows[len_e] = M->value_row;
            vals[len_e++] = (double)credit * M->value_scale;
            rows[len_e] = M->count_row;
            vals[len_e++] = (double)credited;
        }
    }
    double cost = 0.0;
    double most = 2.0;
    if (pair >= 0) {
        rows[len_e] = M->slot_row[pair];
        vals[len_e++] = 1.0;
        int shared = popcount64(reals & M->old_reals[pair]);
        int held = M->old_jokers[pair];
        cost = (double)(shared + (jokers < held ? jokers : held));
        most = 1.0;
    }
    int k = add_column(M, cost, rows, vals, len_e, SET);
    if (k < 0) return -1;
    M->most[k] = most;
    M->pair[k] = pair;
    M->kreals[k] = reals;
    M->kjokers[k] = jokers;
    M->kcredit[k] = credit;
    M->kcredited[k] = credited;
    *slot_at = k;
    M->tiles = grow(M->tiles, &M->tcap, M->ntiles + len, sizeof(int), &M->failed);
    if (M->failed) return -1;
    M->tstart[k] = M->ntiles;
    M->tlen[k] = len;
    memcpy(M->tiles + M->ntiles, tiles, (size_t)len * sizeof(int));
    M->ntiles += len;
    return 1;
}

/* meanings: the jokers' numbers, highest first */
static int add_pairings(Model *M, const int *tiles, int len, const int *meanings, int nm) {
    uint64_t reals;
    int jokers;
    faces(tiles, len, &reals, &jokers);
    int most = jokers < M->rack_jokers ? jokers : M->rack_jokers;
    for (int credited = 0; credited <= most; credited++) {
        int credit = 0;
        for (int j = 0; j < credited && j < nm; j++) credit += meanings[j];
        if (add_set(M, tiles, len, -1, credited, credit) < 0) return -1;
        for (int i = 0; i < M->nold; i++)
            if ((reals & M->old_reals[i]) || (jokers && M->old_jokers[i]))
                if (add_set(M, tiles, len, i, credited, credit) < 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ the simplex */

WIDE
static int refactor(Model *M) {
    int m = M->m;
    int w = 2 * m;
    double *a = PyMem_Calloc((size_t)m * (size_t)w, sizeof(double));
    double *tmp = PyMem_Malloc((size_t)w * sizeof(double));
    if (!a || !tmp) {
        PyMem_Free(a);
        PyMem_Free(tmp);
        M->failed = 1;
        return 0;
    }
    for (int i = 0; i < m; i++) {
        int k = M->basis[i];
        for (int j = 0; j < M->elen[k]; j++)
            a[(size_t)M->eidx[M->estart[k] + j] * w + i] = M->eval[M->estart[k] + j];
        a[(size_t)i * w + m + i] = 1.0;
    }
    for (int col = 0; col < m; col++) {
        int piv = col;
        double big = fabs(a[(size_t)col * w + col]);
        for (int r = col + 1; r < m; r++)
            if (fabs(a[(size_t)r * w + col]) > big) {
                big = fabs(a[(size_t)r * w + col]);
                piv = r;
            }
        if (big < 1e-12) {
            PyMem_Free(a);
            PyMem_Free(tmp);
            return 0;
        }
        if (piv != col) {
            memcpy(tmp, a + (size_t)col * w, (size_t)w * sizeof(double));
            memcpy(a + (size_t)col * w, a + (size_t)piv * w, (size_t)w * sizeof(double));
            memcpy(a + (size_t)piv * w, tmp, (size_t)w * sizeof(double));
        }
        double *row = a + (size_t)col * w;
        double inv = 1.0 / row[col];
        for (int j = 0; j < w; j++) row[j] *= inv;
        for (int r = 0; r < m; r++)
            if (r != col) {
                double *other = a + (size_t)r * w;
                double factor = other[col];
                if (factor != 0.0)
                    for (int j = 0; j < w; j++) other[j] -= factor * row[j];
            }
    }
    for (int i = 0; i < m; i++) {
        double *bi = M->binv + (size_t)i * m;
        memcpy(bi, a + (size_t)i * w + m, (size_t)m * sizeof(double));
        double s = 0.0;
        for (int r = 0; r < m; r++) s += bi[r] * M->b[r];
        M->xb[i] = s;
    }
    M->since_refactor = 0;
    PyMem_Free(a);
    PyMem_Free(tmp);
    return 1;
}

static inline double col_cost(const Model *M, int k, int phase1) {
    return phase1 ? (M->kind[k] == ARTIFICIAL ? -1.0 : 0.0) : M->cost[k];
}

WIDE
static void duals(const Model *M, int phase1, double *y) {
    int m = M->m;
    for (int r = 0; r < m; r++) y[r] = 0.0;
    for (int i = 0; i < m; i++) {
        double c = col_cost(M, M->basis[i], phase1);
        if (c != 0.0) {
            const double *bi = M->binv + (size_t)i * m;
            for (int r = 0; r < m; r++) y[r] += c * bi[r];
        }
    }
}

static inline double reduced(const Model *M, int k, const double *y, int phase1) {
    double c = col_cost(M, k, phase1);
    int s = M->estart[k];
    for (int j = 0; j < M->elen[k]; j++) c -= M->eval[s + j] * y[M->eidx[s + j]];
    return c;
}

/* column k in terms of the basis: the basis inverse times it */
WIDE
static void ftran(const Model *M, int k, double *d) {
    int m = M->m;
    for (int i = 0; i < m; i++) d[i] = 0.0;
    int s = M->estart[k];
    for (int j = 0; j < M->elen[k]; j++) {
        int r = M->eidx[s + j];
        double v = M->eval[s + j];
        for (int i = 0; i < m; i++) d[i] += M->binv[(size_t)i * m + r] * v;
    }
}

WIDE
static void pivot(Model *M, int p, int enter, const double *d) {
    int m = M->m;
    double step = M->xb[p] / d[p];
    if (step < 0.0) step = 0.0;
    for (int i = 0; i < m; i++)
        if (i != p) M->xb[i] -= step * d[i];
    M->xb[p] = step;
    double *rowp = M->binv + (size_t)p * m;
    double inv = 1.0 / d[p];
    int *nz = M->nz;
    int len = 0;
    for (int j = 0; j < m; j++) {
        rowp[j] *= inv;
        if (rowp[j] != 0.0) nz[len++] = j;
    }
    /* a pivot row more than a quarter full: every entry, vectorised (~8% of the relaxation
     * faster); where the row is zero that subtracts a zero, which changes at most the sign
     * of a zero entry, and nothing reads that sign (the Python takes the sparse way) */
    if (4 * len > m) {
        for (int i = 0; i < m; i++) {
            double di = d[i];
            if (i != p && di != 0.0) {
                double *row = M->binv + (size_t)i * m;
                for (int j = 0; j < m; j++) row[j] -= di * rowp[j];
            }
        }
    } else {
        for (int i = 0; i < m; i++) {
            double di = d[i];
            if (i != p && di != 0.0) {
                double *row = M->binv + (size_t)i * m;
                for (int j = 0; j < len; j++) row[nz[j]] -= di * rowp[nz[j]];
            }
        }
    }
    M->where[M->basis[p]] = -1;
    M->basis[p] = enter;
    M->where[enter] = p;
    M->pivots++;
    M->since_refactor++;
}

static void basic_values(Model *M);

/* 0 optimal, 1 unbounded, 2 out of pivots, 3 singular (or out of memory) */
static int optimise(Model *M, int phase1, long limit, double *y, double *d) {
    int degenerate = 0;
    int m = M->m;
    long start = M->pivots;
    for (;;) {
        if (M->pivots >= limit) return 2;
        if (M->diving && M->pivots - start >= STALL) {
            /* a dive stalling on the true right-hand sides: perturbed from here on (as
             * _Model.optimise) */
            for (int r = 0; r < m; r++) M->b[r] += M->pert_b[r] - M->true_b[r];
            basic_values(M);
            M->diving = 0;
            degenerate = 0;
        }
        duals(M, phase1, y);
        int enter = -1;
        double best = ENTER;
        int bland = degenerate >= DEGENERATE;
        {
            const int *where = M->where, *kind = M->kind, *barred = M->barred;
            const int *estart = M->estart, *elen = M->elen, *eidx = M->eidx;
            const double *eval = M->eval, *cost = M->cost;
            int n = M->n;
            for (int k = 0; k < n; k++) {
                if (where[k] >= 0 || barred[k]) continue;
                double rc;
                if (kind[k] == ARTIFICIAL) {
                    if (!phase1) continue;
                    rc = -1.0;
                } else {
                    rc = phase1 ? 0.0 : cost[k];
                }
                const int *ix = eidx + estart[k];
                const double *vx = eval + estart[k];
                int len = elen[k];
                for (int j = 0; j < len; j++) rc -= vx[j] * y[ix[j]];
                if (rc > best) {
                    enter = k;
                    best = rc;
                    if (bland) break;
                }
            }
        }
        if (enter < 0) return 0;
        ftran(M, enter, d);
        int leave = -1;
        double ratio = 0.0;
        for (int i = 0; i < m; i++) {
            double di = d[i];
            double t;
            int k = M->basis[i];
            if ((M->kind[k] == ARTIFICIAL && !phase1) || M->barred[k]) {
                if (di > PIVOT || di < -PIVOT)
                    t = 0.0;
                else
                    continue;
            } else if (di > PIVOT) {
                double x = M->xb[i];
                t = (x > 0.0 ? x : 0.0) / di;
            } else {
                continue;
            }
            if (leave < 0 || t < ratio - 1e-12 ||
                (t <= ratio + 1e-12 && M->basis[i] < M->basis[leave])) {
                leave = i;
                ratio = t;
            }
        }
        if (leave < 0) return 1;
        degenerate = ratio <= 1e-12 ? degenerate + 1 : 0;
        pivot(M, leave, enter, d);
        if (M->since_refactor >= REFACTOR && !refactor(M)) return 3;
    }
}

/* ------------------------------------------------------------------ pricing */

static void run_weights(const Model *M, int c, int i, const double *y, double *w) {
    for (int n = 0; n < 15; n++) w[n] = 0.0;
    for (int n = 1; n < 14; n++) {
        int f = c * 13 + n - 1;
        if (M->avail[f])
            w[n] = -y[M->face_row[f]] + ((i >= 0 && (M->old_reals[i] >> f & 1)) ? 1.0 : 0.0);
    }
}

/* as _Model.run_masks: 0 if the branch asks old set i for a tile of another colour */
static int run_masks(const Model *M, int c, int i, int *amask, int *fixed) {
    *amask = M->avail_mask[c];
    *fixed = 0;
    if (i < 0) return 1;
    uint64_t need = M->need[i];
    int shift = 13 * c;
    if (need & ~((uint64_t)0x1FFF << shift)) return 0;
    *amask = (int)((uint64_t)M->avail_mask[c] & ~(M->ban[i] >> shift) & 0x1FFF);
    *fixed = (int)((need >> shift) & 0x1FFF);
    return 1;
}

/* as _Model.group_masks: 0 if the branch asks old set i for a tile of another number */
static int group_masks(const Model *M, int n, int i, int *colours, int *barred) {
    *colours = 0;
    *barred = 0;
    if (i < 0) return 1;
    uint64_t need = M->need[i];
    for (int c = 0; c < 4; c++) {
        int f = c * 13 + n - 1;
        if (need >> f & 1) {
            *colours |= 1 << c;
            need &= ~((uint64_t)1 << f);
        }
        if (M->ban[i] >> f & 1) *barred |= 1 << c;
    }
    return need == 0;
}

/* the lowest and highest numbers in the mask (bit n - 1: number n); 14 and 0 if empty */
static void ends(int fixed, int *lo, int *hi) {
    if (!fixed) {
        *lo = 14;
        *hi = 0;
        return;
    }
    int a = 1;
    while (!(fixed >> (a - 1) & 1)) a++;
    int b = 13;
    while (!(fixed >> (b - 1) & 1)) b--;
    *lo = a;
    *hi = b;
}

typedef struct {
    Entry *e;
    int len, cap;
} Found;

/* keeps the PER_ROUND best entries in F, highest reduced cost first and, among equals, in
 * the order priced: what sorting them all (stably, by reduced cost) and taking the first
 * PER_ROUND gives, as the Python does */
static void found_add(Model *M, Found *F, double v, int kind, int cn, int a, int b, int k, int i,
                      int cc) {
    if (F->len == PER_ROUND && !(v > F->e[PER_ROUND - 1].v)) return;
    if (!F->e) {
        F->e = PyMem_Malloc(PER_ROUND * sizeof(Entry));
        if (!F->e) {
            M->failed = 1;
            return;
        }
        F->cap = PER_ROUND;
    }
    int at = F->len < PER_ROUND ? F->len : PER_ROUND - 1;
    while (at > 0 && F->e[at - 1].v < v) at--;
    int last = F->len < PER_ROUND ? F->len : PER_ROUND - 1;
    memmove(&F->e[at + 1], &F->e[at], (size_t)(last - at) * sizeof(Entry));
    Entry *e = &F->e[at];
    e->v = v;
    e->kind = kind;
    e->cn = cn;
    e->a = a;
    e->b = b;
    e->k = k;
    e->i = i;
    e->cc = cc;
    e->seq = 0;
    if (F->len < PER_ROUND) F->len++;
}


/* two jokers in the run of colour c from a to b, only the higher meaning credited: the most
 * they earn over the real tiles they stand in for, and where (the first best, scanning up) */
static double two_jokers(int amask, int fixed, const double *w, int a, int b, double jw,
                         double mu, int *n1_out, int *n2_out) {
    int forced[2], nf = 0;
    for (int n = a; n <= b; n++)
        if (!(amask >> (n - 1) & 1)) {
            if (nf < 2) forced[nf] = n;
            nf++;
        }
    if (nf == 2) {
        *n1_out = forced[0];
        *n2_out = forced[1];
        return jw + jw + mu * (double)forced[1];
    }
    double best = -1e300;
    int n1 = 0, n2 = 0;
    if (nf == 1) {
        int f1 = forced[0];
        for (int n = a; n <= b; n++)
            if (n != f1 && !(fixed >> (n - 1) & 1)) {
                double t = (jw - w[n]) + jw + mu * (double)(f1 > n ? f1 : n);
                if (t > best) {
                    best = t;
                    if (n < f1) {
                        n1 = n;
                        n2 = f1;
                    } else {
                        n1 = f1;
                        n2 = n;
                    }
                }
            }
        *n1_out = n1;
        *n2_out = n2;
        return best;
    }
    double low = -1e300;
    int at = 0;
    for (int n = a; n <= b; n++) {
        if (fixed >> (n - 1) & 1) continue;
        if (low > -1e300) {
            double t = low + (jw - w[n]) + mu * (double)n;
            if (t > best) {
                best = t;
                n1 = at;
                n2 = n;
            }
        }
        double g = jw - w[n];
        if (g > low) {
            low = g;
            at = n;
        }
    }
    *n1_out = n1;
    *n2_out = n2;
    return best;
}

/* how many runs price counts from number a in a block it does not price: its loops, without
 * the weights */
static long runs_from(int a, int amask, int hi, int pinned, int nj, int rj, int jlo, int jhi) {
    long count = 0;
    int forced = 0;
    for (int b = a; b < 14; b++) {
        if (!(amask >> (b - 1) & 1)) {
            forced++;
            if (forced > nj) break;
        }
        if (b - a < 2 || b < hi) continue;
        for (int k = forced; k <= nj; k++) {
            if (k - forced > b - a + 1 - forced - pinned) break;
            if (k < jlo || k > jhi) continue;
            count += (k < rj ? k : rj) + 1;
        }
    }
    return count;
}

/* runs_from, remembered per colour, old set and first number (the masks change only in the
 * branch and bound) */
static long runs_from_at(Model *M, int c, int i, int a, int amask, int hi, int pinned, int nj,
                         int rj, int jlo, int jhi) {
    int *at = M->counted + 2 * ((c * (M->nold + 1) + i + 1) * 12 + a);
    int key = amask | hi << 13 | pinned << 17 | jlo << 21 | jhi << 23;
    if (at[0] != key) {
        at[0] = key;
        at[1] = (int)runs_from(a, amask, hi, pinned, nj, rj, jlo, jhi);
    }
    return at[1];
}

/* every set against the duals y, as _Model.price: the PER_ROUND best above ENTER into F,
 * the most any prices (top: at least; a block of sets shown by a bound to add nothing is
 * only counted, and top is at least that bound) and how many there are (count). Python
 * skips a block only when its bound is at most zero; here also when it is no more than the
 * PER_ROUND-th found: nothing else changes (F, count; top is then above every bound) */
static void price(Model *M, const double *y, double *top_out, long *count_out, Found *F) {
    double top = -1e300, skipped = -1e300;
    long count = 0;
    double jw = M->joker_row >= 0 ? -y[M->joker_row] : 0.0;
    double mu = 0.0, nu = 0.0;
    if (M->count_row >= 0) {
        mu = -M->value_scale * y[M->value_row];
        nu = y[M->count_row];
    }
    int nj = M->max_jokers;
    int rj = M->rack_jokers;
    int n1, n2;
    double w[15];
    F->len = 0;
    for (int c = 0; c < 4; c++) {
        for (int i = -1; i < M->nold; i++) {
            if (i >= 0 && !(M->old_jokers[i] || (M->old_reals[i] >> (13 * c) & 0x1FFF))) continue;
            /* the numbers a real tile can be at, and must (run_masks) */
            int amask, fixed, lo, hi;
            if (!run_masks(M, c, i, &amask, &fixed)) continue;
            ends(fixed, &lo, &hi);
            int pinned = __builtin_popcount((unsigned)fixed);
            double slot = i >= 0 ? y[M->slot_row[i]] : 0.0;
            int held = i >= 0 ? M->old_jokers[i] : 0;
            int jlo = i >= 0 ? M->jokers_lo[i] : 0;
            int jhi = i >= 0 ? M->jokers_hi[i] : 2;
            run_weights(M, c, i, y, w);
            /* a bound on the runs of the block from each number a (as _Model.price): the
             * best window from a of three numbers or more, each at its real tile's weight
             * or a joker's (credited, if that earns more), whichever is more, plus the
             * most continuing old set i earns; at most zero, or below the PER_ROUND-th
             * found, none of them would be added: they are only counted (the block's
             * bound, the best of those: the whole block) */
            double u[15], ub = -1e300;
            for (int n = 1; n < 14; n++) {
                double jx = -1e300;
                if (nj >= 1) {
                    double cr = mu * (double)n - nu;
                    jx = jw + ((rj > 0 && cr > 0.0) ? cr : 0.0);
                }
                u[n] = ((amask >> (n - 1) & 1) && w[n] > jx) ? w[n] : jx;
            }
            double best[13], from2 = -1e300; /* from2: the best from a + 1, two or more */
            for (int a = 12; a >= 1; a--) {
                if (a < 12) best[a] = u[a] + from2;
                double two = u[a + 1] > from2 ? u[a + 1] : from2;
                from2 = u[a] + two;
            }
            for (int a = 1; a < 12; a++)
                if (best[a] > ub) ub = best[a];
            double earns = i >= 0 ? (double)(held < nj ? held : nj) - slot : 0.0;
            ub += earns;
            /* what a set must price above to be added: ENTER, or the PER_ROUND-th found once
             * there are that many; less 1e-9 for rounding (with ENTER, 0: as the Python) */
            double thr = ENTER;
            if (F->len == PER_ROUND && F->e[PER_ROUND - 1].v > thr) thr = F->e[PER_ROUND - 1].v;
            if (ub <= thr - 1e-9) {
                if (ub > skipped) skipped = ub;
                for (int a = 1; a < 12 && a <= lo; a++)
                    count += runs_from_at(M, c, i, a, amask, hi, pinned, nj, rj, jlo, jhi);
                continue;
            }
            /* a run sharing no tile with old set i prices no higher continuing it than alone
             * (its dual at least zero): not priced again (but counted) */
            int64_t mine = (i >= 0 && slot >= 0.0) ? (int64_t)(M->old_reals[i] >> (13 * c)) : -1;
            for (int a = 1; a < 12; a++) {
                if (a > lo) break;
                double from = best[a] + earns;
                double at = ENTER;
                if (F->len == PER_ROUND && F->e[PER_ROUND - 1].v > at) at = F->e[PER_ROUND - 1].v;
                if (from <= at - 1e-9) { /* the same for the runs from a */
                    if (from > skipped) skipped = from;
                    count += runs_from_at(M, c, i, a, amask, hi, pinned, nj, rj, jlo, jhi);
                    continue;
                }
                double total = 0.0;
                int forced = 0;
                long meant = 0;
                double g1 = -1e300, g2 = -1e300, h1 = -1e300, h2 = -1e300;
                for (int b = a; b < 14; b++) {
                    if (amask >> (b - 1) & 1) {
                        total += w[b];
                        if (!(fixed >> (b - 1) & 1)) {
                            double g = jw - w[b];
                            if (g > g1) {
                                g2 = g1;
                                g1 = g;
                            } else if (g > g2) {
                                g2 = g;
                            }
                            g = jw + mu * (double)b - w[b];
                            if (g > h1) {
                                h2 = h1;
                                h1 = g;
                            } else if (g > h2) {
                                h2 = g;
                            }
                        }
                    } else {
                        forced++;
                        meant += b;
                        if (forced > nj) break;
                    }
                    if (b - a < 2 || b < hi) continue;
                    int apart = mine >= 0 && !((mine >> (a - 1)) & ((1LL << (b - a + 1)) - 1));
                    for (int k = forced; k <= nj; k++) {
                        int extra = k - forced;
                        if (extra > b - a + 1 - forced - pinned) break;
                        if (k < jlo || k > jhi) continue;
                        if (apart && (k == 0 || held == 0)) {
                            count += (k < rj ? k : rj) + 1;
                            continue;
                        }
                        int ccmax = k < rj ? k : rj;
                        for (int cc = 0; cc <= ccmax; cc++) {
                            double v;
                            if (cc == 0) {
                                v = total + (double)forced * jw;
                                if (extra >= 1) v += g1;
                                if (extra == 2) v += g2;
                            } else if (cc == k) {
                                v = total + (double)forced * jw + mu * (double)meant;
                                if (extra >= 1) v += h1;
                                if (extra == 2) v += h2;
                                v -= nu * (double)cc;
                            } else {
                                v = total + two_jokers(amask, fixed, w, a, b, jw, mu, &n1, &n2);
                                v -= nu * (double)cc;
                            }
                            if (i >= 0) v += (double)(k < held ? k : held) - slot;
                            count++;
                            if (v > top) top = v;
                            if (v > ENTER) found_add(M, F, v, 0, c, a, b, k, i, cc);
                        }
                    }
                }
            }
        }
    }
    for (int n = 1; n < 14; n++) {
        int colours = 0;
        for (int c = 0; c < 4; c++)
            if (M->avail[c * 13 + n - 1]) colours |= 1 << c;
        if (!colours) continue;
        for (int i = -1; i < M->nold; i++) {
            if (i >= 0 && !(M->old_jokers[i] || (M->old_reals[i] >> (n - 1) & 0x8004002001ULL)))
                continue;
            int need, barred;
            if (!group_masks(M, n, i, &need, &barred)) continue;
            double slot = i >= 0 ? y[M->slot_row[i]] : 0.0;
            int held = i >= 0 ? M->old_jokers[i] : 0;
            int jlo = i >= 0 ? M->jokers_lo[i] : 0;
            int jhi = i >= 0 ? M->jokers_hi[i] : 2;
            /* the same for the block's groups: each colour's weight if above zero, plus
             * the jokers at their most */
            double ub = 0.0;
            int allowed = colours & ~barred;
            for (int c = 0; c < 4; c++)
                if (allowed >> c & 1) {
                    int f = c * 13 + n - 1;
                    double wc = -y[M->face_row[f]] +
                                ((i >= 0 && (M->old_reals[i] >> f & 1)) ? 1.0 : 0.0);
                    if (wc > 0.0) ub += wc;
                }
            double cr = mu * (double)n - nu;
            double jx = jw + ((rj > 0 && cr > 0.0) ? cr : 0.0);
            double jbest = -1e300;
            for (int k = jlo > 0 ? jlo : 0; k <= nj && k <= jhi; k++) {
                double t = (double)k * jx + (double)(k < held ? k : held);
                if (t > jbest) jbest = t;
            }
            ub += jbest - slot;
            double thr = ENTER;
            if (F->len == PER_ROUND && F->e[PER_ROUND - 1].v > thr) thr = F->e[PER_ROUND - 1].v;
            if (ub <= thr - 1e-9) {
                if (ub > skipped) skipped = ub;
                for (int sub = 1; sub < 16; sub++) {
                    if ((sub & colours) != sub || (sub & need) != need || (sub & barred)) continue;
                    int size = __builtin_popcount((unsigned)sub);
                    for (int k = 0; k <= nj; k++) {
                        if (size + k < 3 || size + k > 4 || k < jlo || k > jhi) continue;
                        count += (k < rj ? k : rj) + 1;
                    }
                }
                continue;
            }
            for (int sub = 1; sub < 16; sub++) {
                if ((sub & colours) != sub || (sub & need) != need || (sub & barred)) continue;
                int size = __builtin_popcount((unsigned)sub);
                double base = 0.0;
                for (int c = 0; c < 4; c++)
                    if (sub >> c & 1) {
                        int f = c * 13 + n - 1;
                        base += -y[M->face_row[f]] +
                                ((i >= 0 && (M->old_reals[i] >> f & 1)) ? 1.0 : 0.0);
                    }
                for (int k = 0; k <= nj; k++) {
                    if (size + k < 3 || size + k > 4 || k < jlo || k > jhi) continue;
                    int ccmax = k < rj ? k : rj;
                    for (int cc = 0; cc <= ccmax; cc++) {
                        double v = base + (double)k * jw;
                        if (cc) {
                            v += mu * (double)(n * cc);
                            v -= nu * (double)cc;
                        }
                        if (i >= 0) v += (double)(k < held ? k : held) - slot;
                        count++;
                        if (v > top) top = v;
                        if (v > ENTER) found_add(M, F, v, 1, n, sub, 0, k, i, cc);
                    }
                }
            }
        }
    }
    /* the sets not priced are at most their block's bound: top bounds them all */
    if (skipped > top) top = skipped;
    *top_out = top;
    *count_out = count;
}

typedef struct {
    double w;
    int n;
} WN;

static int by_weight(const void *pa, const void *pb) {
    const WN *a = pa, *b = pb;
    if (a->w < b->w) return -1;
    if (a->w > b->w) return 1;
    return a->n - b->n;
}

static int entry_tiles(const Model *M, const Entry *e, const double *y, int *out) {
    int len = 0;
    if (e->kind == 1) {
        for (int c = 0; c < 4; c++)
            if (e->a >> c & 1) out[len++] = c * 13 + e->cn - 1;
        for (int j = 0; j < e->k; j++) out[len++] = JOKER;
        return len;
    }
    double w[15];
    run_weights(M, e->cn, e->i, y, w);
    double jw = M->joker_row >= 0 ? -y[M->joker_row] : 0.0;
    double mu = M->count_row >= 0 ? -M->value_scale * y[M->value_row] : 0.0;
    int joker_at[15] = {0};
    int amask, fixed;
    run_masks(M, e->cn, e->i, &amask, &fixed);
    if (0 < e->cc && e->cc < e->k) {
        int n1, n2;
        two_jokers(amask, fixed, w, e->a, e->b, jw, mu, &n1, &n2);
        joker_at[n1] = joker_at[n2] = 1;
    } else {
        if (e->cc == 0) mu = 0.0;
        int nj = 0;
        WN rest[15];
        int nrest = 0;
        for (int n = e->a; n <= e->b; n++) {
            if (!(amask >> (n - 1) & 1)) {
                joker_at[n] = 1;
                nj++;
            } else if (!(fixed >> (n - 1) & 1)) {
                rest[nrest].w = -(jw + mu * (double)n - w[n]);
                rest[nrest].n = n;
                nrest++;
            }
        }
        qsort(rest, (size_t)nrest, sizeof(WN), by_weight);
        for (int j = 0; j < e->k - nj && j < nrest; j++) joker_at[rest[j].n] = 1;
    }
    for (int n = e->a; n <= e->b; n++) out[len++] = joker_at[n] ? JOKER : e->cn * 13 + n - 1;
    return len;
}

/* what a priced set credits the rack's jokers: its highest joker meanings */
static int entry_credit(const Entry *e, const int *tiles, int len) {
    int rj = e->cc;
    if (e->kind == 1) return e->cn * rj;
    int m[2], nm = 0;
    for (int j = 0; j < len; j++)
        if (tiles[j] == JOKER && nm < 2) m[nm++] = e->a + j;
    /* meanings ascending as found: the highest last */
    int credit = 0;
    for (int j = nm - 1, taken = 0; j >= 0 && taken < rj; j--, taken++) credit += m[j];
    return credit;
}

static double bound(const Model *M, const double *y, double top, long count) {
    double total = 0.0;
    for (int r = 0; r < M->m; r++) {
        double lo = y[r] * M->row_lo[r];
        double hi = y[r] * M->row_hi[r];
        total += hi > lo ? hi : lo;
    }
    if (top > 0.0) total += top * 2.0 * (double)count * (double)ARRANGEMENTS;
    for (int k = 0; k < M->first_set; k++) {
        double rc = reduced(M, k, y, 0);
        if (rc > 0.0) total += rc * M->most[k];
    }
    return total;
}

/* ------------------------------------------------------------------ columns, plays, dives */

/* optimise, price, add the best sets until none prices above zero (y, top, count from the
 * last pricing): 1, or 0 if the simplex gave up (or memory ran out: M->failed) */
static int generate(Model *M, long limit, double *y, double *d, Found *F, double *top,
                    long *count) {
    int tiles[64];
    for (;;) {
        /* (optimal, optimise leaves in y the duals of its basis) */
        if (optimise(M, 0, limit, y, d) != 0 || M->rounds >= M->round_cap) return 0;
        M->rounds++;
        price(M, y, top, count, F);
        if (M->failed) return 0;
        int added = 0;
        for (int j = 0; j < F->len; j++) {
            int len = entry_tiles(M, &F->e[j], y, tiles);
            int got = add_set(M, tiles, len, F->e[j].i, F->e[j].cc,
                              entry_credit(&F->e[j], tiles, len));
            if (got < 0) return 0;
            added += got;
        }
        if (!added) return 1;
    }
}

WIDE
static void basic_values(Model *M) {
    int m = M->m;
    for (int i = 0; i < m; i++) {
        double s = 0.0;
        const double *bi = M->binv + (size_t)i * m;
        for (int r = 0; r < m; r++) s += bi[r] * M->b[r];
        M->xb[i] = s;
    }
}

/* the tiles of set column k appended to play as a list: 0, or -1 on error */
static int append_tiles(const Model *M, int k, PyObject *play) {
    PyObject *s = PyList_New(M->tlen[k]);
    if (!s) return -1;
    for (int j = 0; j < M->tlen[k]; j++) {
        PyObject *f = PyLong_FromLong(M->tiles[M->tstart[k] + j]);
        if (!f) {
            Py_DECREF(s);
            return -1;
        }
        PyList_SET_ITEM(s, j, f);
    }
    int bad = PyList_Append(play, s);
    Py_DECREF(s);
    return bad < 0 ? -1 : 0;
}

/* the solution's sets appended to play if it is integral: 1; 0 if not; -1 on error */
static int read_play(const Model *M, PyObject *play) {
    for (int i = 0; i < M->m; i++) {
        int k = M->basis[i];
        double x = M->xb[i];
        long copies = (long)(x + 0.5);
        if (M->kind[k] <= PLACED && fabs(x - (double)copies) > 1e-5) return 0;
    }
    for (int i = 0; i < M->m; i++) {
        int k = M->basis[i];
        long copies = (long)(M->xb[i] + 0.5);
        if (M->kind[k] != SET) continue;
        for (long c = 0; c < copies; c++)
            if (append_tiles(M, k, play) < 0) return -1;
    }
    return 1;
}

/* the dual simplex (as _Model.dual): 0 feasible, 1 no solution, 2 out of pivots, 3 the
 * basis went singular */
static int dual(Model *M, long limit, double *y, double *d, double tol) {
    int m = M->m;
    for (;;) {
        if (M->pivots >= limit) return 2;
        int leave = -1;
        double worst = tol;
        int down = 0; /* the leaving column is barred or artificial, going down to zero (any
                       * column below zero, artificials included, goes up to it) */
        for (int i = 0; i < m; i++) {
            double x = M->xb[i];
            int k = M->basis[i];
            if (x > worst && (M->barred[k] || M->kind[k] == ARTIFICIAL)) {
                worst = x;
                leave = i;
                down = 1;
            } else if (-x > worst) {
                worst = -x;
                leave = i;
                down = 0;
            }
        }
        if (leave < 0) return 0;
        duals(M, 0, y);
        const double *rho = M->binv + (size_t)leave * m;
        int enter = -1;
        double ratio = 0.0;
        for (int k = 0; k < M->n; k++) {
            if (M->where[k] >= 0 || M->kind[k] == ARTIFICIAL || M->barred[k]) continue;
            double alpha = 0.0;
            int s = M->estart[k];
            for (int j = 0; j < M->elen[k]; j++) alpha += rho[M->eidx[s + j]] * M->eval[s + j];
            if (down ? alpha > PIVOT : alpha < -PIVOT) {
                double t = reduced(M, k, y, 0) / alpha;
                if (down) t = -t;
                if (enter < 0 || t < ratio) {
                    enter = k;
                    ratio = t;
                }
            }
        }
        if (enter < 0) return 1;
        ftran(M, enter, d);
        pivot(M, leave, enter, d);
        if (M->since_refactor >= REFACTOR && !refactor(M)) return 3;
    }
}

/* a basis kept to go back to (as _Model.restore) */
typedef struct {
    int *basis;
    double *binv;
    int since;
} Saved;

static int save(Model *M, Saved *S) {
    int m = M->m;
    S->basis = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(int));
    S->binv = PyMem_Malloc((size_t)(m ? m : 1) * (size_t)(m ? m : 1) * sizeof(double));
    if (!S->basis || !S->binv) {
        PyMem_Free(S->basis);
        PyMem_Free(S->binv);
        S->basis = NULL;
        S->binv = NULL;
        M->failed = 1;
        return -1;
    }
    memcpy(S->basis, M->basis, (size_t)m * sizeof(int));
    memcpy(S->binv, M->binv, (size_t)m * (size_t)m * sizeof(double));
    S->since = M->since_refactor;
    return 0;
}

static void restore(Model *M, const Saved *S) {
    int m = M->m;
    memcpy(M->basis, S->basis, (size_t)m * sizeof(int));
    for (int k = 0; k < M->n; k++) M->where[k] = -1;
    for (int i = 0; i < m; i++) M->where[M->basis[i]] = i;
    memcpy(M->binv, S->binv, (size_t)m * (size_t)m * sizeof(double));
    M->since_refactor = S->since;
}

static void unsave(Saved *S) {
    PyMem_Free(S->basis);
    PyMem_Free(S->binv);
}

/* as _Model._dive_steps: 1 a play found (in play: the sets fixed, then the solution's), 0
 * none, -1 on error; at most sides sets tried at a step */
static int dive_steps(Model *M, long limit, double *y, double *d, Found *F, PyObject *play,
                      int skip, int sides) {
    double top;
    long count;
    int *taken = PyMem_Calloc((size_t)M->m, sizeof(int));
    if (!taken) {
        M->failed = 1;
        return -1;
    }
    double fixed_kept = 0.0;
    for (int step = 0; step < DIVES; step++) {
        /* the sets the solution holds part of, most first, ties in basis order: from the
         * nth, the first whose rest the dual simplex solves with the columns there (at
         * most sides tried) */
        int nth = step == 0 ? skip : 0;
        int want = nth + sides;
        int order[DIVE_TRIES + DIVE_SIDES];
        int held = 0;
        for (int i = 0; i < M->m; i++) taken[i] = 0;
        for (int t = 0; t < want; t++) {
            int row = -1;
            double most = 0.0;
            for (int i = 0; i < M->m; i++) {
                int k = M->basis[i];
                if (M->kind[k] != SET || taken[i]) continue;
                double x = M->xb[i];
                long whole = (long)x;
                double frac = x - (double)whole;
                if (frac > 1e-5 && frac < 1.0 - 1e-5 && (row < 0 || x > most)) {
                    most = x;
                    row = i;
                }
            }
            if (row < 0) break;
            taken[row] = 1;
            order[held++] = M->basis[row];
        }
        if (nth >= held) {
            PyMem_Free(taken);
            return 0;
        }
        int last = held - 1;
        Saved S = {NULL, NULL, 0};
        double *b = NULL;
        if (nth < last) {
            b = PyMem_Malloc((size_t)M->m * sizeof(double));
            if (!b || save(M, &S) < 0) {
                PyMem_Free(b);
                PyMem_Free(taken);
                M->failed = 1;
                return -1;
            }
            memcpy(b, M->b, (size_t)M->m * sizeof(double));
        }
        int pick = -1;
        int solved = 0;
        for (int c = nth; c <= last; c++) {
            if (c > nth) {
                restore(M, &S);
                memcpy(M->b, b, (size_t)M->m * sizeof(double));
            }
            pick = order[c];
            int s = M->estart[pick];
            for (int j = 0; j < M->elen[pick]; j++) M->b[M->eidx[s + j]] -= M->eval[s + j];
            basic_values(M);
            solved = dual(M, limit, y, d, 1e-9);
            if (solved != 1) break;
        }
        if (b) {
            PyMem_Free(b);
            unsave(&S);
        }
        if (solved != 0 || !generate(M, limit, y, d, F, &top, &count)) {
            PyMem_Free(taken);
            return M->failed ? -1 : 0;
        }
        fixed_kept += M->cost[pick];
        if (append_tiles(M, pick, play) < 0) {
            PyMem_Free(taken);
            return -1;
        }
        int got = read_play(M, play);
        if (got != 0) {
            if (got == 1) {
                double value = fixed_kept;
                for (int i = 0; i < M->m; i++) value += M->cost[M->basis[i]] * M->xb[i];
                M->dive_value = (long)(value + 0.5);
            }
            PyMem_Free(taken);
            return got;
        }
    }
    PyMem_Free(taken);
    return 0;
}

/* as _Model.dive_once: one dive, from the true right-hand sides (the solution's), perturbed
 * only if the simplex stalls there */
static int dive_once(Model *M, long limit, double *y, double *d, Found *F, PyObject *play,
                     int skip, int sides) {
    M->diving = 1;
    int got = dive_steps(M, limit, y, d, F, play, skip, sides);
    M->diving = 0;
    return got;
}

/* as _Model.dive: the dives from the fractional solution, each with another first set, until
 * one finds a play keeping at least want; then, if none found a play, one that tries the next
 * set where what is left has no solution. 1 a play found (the one keeping the most, in *play;
 * its tiles kept in dive_value), 0 none, -1 on error */
static int dive(Model *M, long limit, double *y, double *d, Found *F, PyObject **play,
                long want) {
    int m = M->m;
    Saved S = {NULL, NULL, 0};
    double *xb = PyMem_Malloc((size_t)m * sizeof(double));
    double *b = PyMem_Malloc((size_t)m * sizeof(double));
    PyObject *best = NULL;
    long best_value = -1;
    int got = -1;
    if (!xb || !b || save(M, &S) < 0) {
        M->failed = 1;
        goto out;
    }
    memcpy(xb, M->xb, (size_t)m * sizeof(double));
    memcpy(b, M->b, (size_t)m * sizeof(double));
    for (int attempt = 0; attempt <= DIVE_TRIES; attempt++) {
        if (attempt == DIVE_TRIES && best) break;
        if (attempt) {
            restore(M, &S);
            memcpy(M->xb, xb, (size_t)m * sizeof(double));
            memcpy(M->b, b, (size_t)m * sizeof(double));
            Py_DECREF(*play);
            *play = PyList_New(0);
            if (!*play) goto out;
        }
        int one = attempt < DIVE_TRIES ? dive_once(M, limit, y, d, F, *play, attempt, 1)
                                       : dive_once(M, limit, y, d, F, *play, 0, DIVE_SIDES);
        if (one < 0) goto out;
        if (one == 1 && (!best || M->dive_value > best_value)) {
            Py_XDECREF(best);
            best = *play;
            Py_INCREF(best);
            best_value = M->dive_value;
        }
        if ((best && best_value >= want) || M->pivots >= limit || M->rounds >= M->round_cap)
            break;
    }
    M->dive_value = best_value;
    got = best ? 1 : 0;
    if (best) {
        Py_DECREF(*play);
        *play = best;
        best = NULL;
    }
out:
    Py_XDECREF(best);
    unsave(&S);
    PyMem_Free(xb);
    PyMem_Free(b);
    return got;
}

/* ------------------------------------------------------------------ branch and bound */

/* as _Model.branching: the old set (or -1) and face to branch on, and which side first */
static void branching(const Model *M, int *old_out, int *face_out, int *need_first) {
    double best = 1e-6;
    *old_out = -1;
    *face_out = 0;
    *need_first = 0;
    for (int old = 0; old < M->nold; old++) {
        double total = 0.0;
        int held = 0;
        uint64_t all = 0;
        for (int i = 0; i < M->m; i++) {
            int k = M->basis[i];
            if (M->kind[k] == SET && M->pair[k] == old && M->xb[i] > 1e-6) {
                total += M->xb[i];
                held++;
                all |= M->kreals[k];
            }
        }
        if (!held) continue;
        /* the split weighed by the old set's tiles: what the branch decides (normal nodes
         * 1386 -> 1137; normal 232 105 -> 9) */
        double size = (double)(__builtin_popcountll(M->old_reals[old]) + M->old_jokers[old]);
        double even = (total < 1.0 - total ? total : 1.0 - total) * size;
        if (even > best && !M->continued[old]) {
            best = even;
            *old_out = old;
            *face_out = 55;
            *need_first = total >= 1.0 - total;
        }
        if (held < 2) continue;
        for (int f = 0; f < 54; f++) {
            if (f < 52 && !(all >> f & 1)) continue;
            double part = 0.0;
            for (int i = 0; i < M->m; i++) {
                int k = M->basis[i];
                if (M->kind[k] == SET && M->pair[k] == old && M->xb[i] > 1e-6) {
                    int in = f < 52 ? (int)(M->kreals[k] >> f & 1) : M->kjokers[k] >= f - 51;
                    if (in) part += M->xb[i];
                }
            }
            even = (part < total - part ? part : total - part) * size;
            if (even > best) {
                best = even;
                *old_out = old;
                *face_out = f < 52 ? f : f + 1;
                *need_first = part >= total - part;
            }
        }
    }
}

/* the play found keeping value, if more than any before: kept (the reference stolen) */
static void found_play(Model *M, PyObject *play, double value) {
    if (value > (double)M->lower + 0.5) {
        M->lower = (long)(value + 0.5);
        Py_XDECREF(M->best);
        M->best = play;
    } else {
        Py_DECREF(play);
    }
}

/* as _Model.visit: 1 done, 0 gave up, -1 on error */
static int visit(Model *M, long limit, double *y, double *d, Found *F) {
    int m = M->m;
    double top = 0.0;
    long count = 0;
    M->nodes++;
    if (M->nodes > NODES) return 0;
    for (int j = 0; j < M->npen; j++) M->cost[M->pen_k[j]] = M->pen_cost[j];
    M->npen = 0;
    for (int i = 0; i < M->nold; i++) {
        /* an old set that must be continued: its slot's slack barred, the row at 1 */
        M->barred[M->slot_slack[i]] = M->continued[i];
        M->row_lo[M->slot_row[i]] = M->continued[i] ? 1.0 : 0.0;
    }
    for (int k = M->first_set; k < M->n; k++) {
        int i = M->pair[k];
        if (i >= 0) {
            uint64_t reals = M->kreals[k];
            int jokers = M->kjokers[k];
            M->barred[k] = (reals & M->need[i]) != M->need[i] || (reals & M->ban[i]) ||
                           jokers < M->jokers_lo[i] || jokers > M->jokers_hi[i];
        }
    }
    /* as _Model.visit: the barred columns out by the dual simplex, or else at a cost */
    {
        Saved S0;
        if (save(M, &S0) < 0) return -1;
        int got0 = dual(M, limit, y, d, 1e-5);
        if (got0 == 1) {
            restore(M, &S0);
            basic_values(M);
            for (int i = 0; i < m; i++) {
                int k = M->basis[i];
                if (M->barred[k]) {
                    M->barred[k] = 0;
                    M->pen_k[M->npen] = k;
                    M->pen_cost[M->npen] = M->cost[k];
                    M->npen++;
                    M->cost[k] = BARRED;
                }
            }
        }
        unsave(&S0);
        if (got0 != 0 && got0 != 1) return 0;
    }
    if (!generate(M, limit, y, d, F, &top, &count)) return M->failed ? -1 : 0;
    long bnd = (long)(bound(M, y, top, count) + 1e-6);
    if (bnd <= M->lower) return 1;
    memcpy(M->b, M->true_b, (size_t)m * sizeof(double));
    basic_values(M);
    PyObject *play = PyList_New(0);
    if (!play) return -1;
    int got = read_play(M, play);
    if (got < 0) {
        Py_DECREF(play);
        return -1;
    }
    double value = 0.0;
    for (int i = 0; i < m; i++) value += M->cost[M->basis[i]] * M->xb[i];
    int old = -1, face = 0, need_first = 0;
    if (got == 0) branching(M, &old, &face, &need_first);
    if (got == 0 && old < 0) {
        /* the continuations are whole and apart: the sets placed anew are not; a dive for
         * a play (the node is done if it keeps the bound) */
        Saved S;
        if (save(M, &S) < 0) {
            Py_DECREF(play);
            return -1;
        }
        memcpy(M->b, M->true_b, (size_t)m * sizeof(double));
        basic_values(M);
        Py_DECREF(play);
        play = PyList_New(0);
        got = play ? dive_once(M, limit, y, d, F, play, 0, 1) : -1;
        value = got == 1 ? (double)M->dive_value : -1.0;
        restore(M, &S);
        unsave(&S);
        if (got < 0) {
            Py_XDECREF(play);
            return -1;
        }
        if (got == 0 || value < (double)bnd) {
            if (got == 1)
                found_play(M, play, value);
            else
                Py_DECREF(play);
            return 0;
        }
    }
    memcpy(M->b, M->pert_b, (size_t)m * sizeof(double));
    basic_values(M);
    if (got == 1) {
        found_play(M, play, value);
        return 1;
    }
    Py_DECREF(play);
    uint64_t need = M->need[old], ban = M->ban[old];
    int lo = M->jokers_lo[old], hi = M->jokers_hi[old];
    Saved S;
    if (save(M, &S) < 0) return -1;
    int done = 1;
    for (int side = 0; side < 2 && done == 1; side++) {
        if (side) { /* the second side from this node's basis */
            restore(M, &S);
            basic_values(M);
        }
        /* face 52 + t: the continuation holds at least t jokers, or fewer; face 55: the
         * old set is continued, or not (its continuation holds no face) */
        if ((side == 0) == need_first) {
            if (face < 52)
                M->need[old] = need | (uint64_t)1 << face;
            else if (face < 55)
                M->jokers_lo[old] = face - 52;
            else
                M->continued[old] = 1;
        } else if (face < 52) {
            M->ban[old] = ban | (uint64_t)1 << face;
        } else if (face < 55) {
            M->jokers_hi[old] = face - 53;
        } else {
            M->ban[old] = ((uint64_t)1 << 52) - 1;
        }
        done = visit(M, limit, y, d, F);
        M->need[old] = need;
        M->ban[old] = ban;
        M->jokers_lo[old] = lo;
        M->jokers_hi[old] = hi;
        M->continued[old] = 0;
    }
    unsave(&S);
    return done;
}

/* ------------------------------------------------------------------ from Python */

static void model_free(Model *M) {
    PyMem_Free(M->old_reals);
    PyMem_Free(M->old_jokers);
    PyMem_Free(M->slot_row);
    PyMem_Free(M->need);
    PyMem_Free(M->ban);
    PyMem_Free(M->jokers_lo);
    PyMem_Free(M->jokers_hi);
    PyMem_Free(M->continued);
    PyMem_Free(M->slot_slack);
    PyMem_Free(M->counted);
    PyMem_Free(M->barred);
    PyMem_Free(M->pen_k);
    PyMem_Free(M->pen_cost);
    PyMem_Free(M->pert_b);
    Py_XDECREF(M->best);
    PyMem_Free(M->row_kind);
    PyMem_Free(M->row_lo);
    PyMem_Free(M->row_hi);
    PyMem_Free(M->b);
    PyMem_Free(M->true_b);
    PyMem_Free(M->cost);
    PyMem_Free(M->most);
    PyMem_Free(M->kind);
    PyMem_Free(M->pair);
    PyMem_Free(M->where);
    PyMem_Free(M->estart);
    PyMem_Free(M->elen);
    PyMem_Free(M->tstart);
    PyMem_Free(M->tlen);
    PyMem_Free(M->kjokers);
    PyMem_Free(M->kcredit);
    PyMem_Free(M->kcredited);
    PyMem_Free(M->hash);
    PyMem_Free(M->kreals);
    PyMem_Free(M->eidx);
    PyMem_Free(M->eval);
    PyMem_Free(M->tiles);
    PyMem_Free(M->basis);
    PyMem_Free(M->binv);
    PyMem_Free(M->xb);
    PyMem_Free(M->nz);
}

/* a list of ints into out (at most cap); -1 on error */
static int ints_of(PyObject *seq, int *out, int cap) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (!fast) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > cap) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "sequence too long");
        return -1;
    }
    for (Py_ssize_t j = 0; j < len; j++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, j));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < 0 || v > JOKER) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a face is 0..52");
            return -1;
        }
        out[j] = (int)v;
    }
    Py_DECREF(fast);
    return (int)len;
}

static int read_counts(PyObject *seq, long *out, int len) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) < len) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "sequence too short");
        return -1;
    }
    for (int j = 0; j < len; j++) {
        out[j] = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, j));
        if (out[j] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static PyObject *result(PyObject *bound_obj, double value, PyObject *play, long pivots, int rounds,
                        long nodes) {
    return Py_BuildValue("(NdNlil)", bound_obj, value, play, pivots, rounds, nodes);
}

static PyObject *solve(Model *M, PyObject *first, PyObject *credits, long limit, long known) {
    int meanings[64];
    int tiles[64];
    double *y = NULL, *d = NULL;
    Found F = {NULL, 0, 0};
    PyObject *out = NULL;
    /* the first columns: the known play's sets, the old sets (with their credits) */
    PyObject *fast = PySequence_Fast(first, "expected a list of sets");
    if (!fast) return NULL;
    PyObject *cfast = PySequence_Fast(credits, "expected a list of credits");
    if (!cfast) {
        Py_DECREF(fast);
        return NULL;
    }
    if (PySequence_Fast_GET_SIZE(cfast) != PySequence_Fast_GET_SIZE(fast)) {
        Py_DECREF(fast);
        Py_DECREF(cfast);
        PyErr_SetString(PyExc_ValueError, "the meanings of each set's jokers");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(fast); j++) {
        int len = ints_of(PySequence_Fast_GET_ITEM(fast, j), tiles, 64);
        int nm = len < 0 ? -1 : ints_of(PySequence_Fast_GET_ITEM(cfast, j), meanings, 64);
        if (len < 0 || nm < 0 || add_pairings(M, tiles, len, meanings, nm) < 0) {
            Py_DECREF(fast);
            Py_DECREF(cfast);
            return M->failed ? PyErr_NoMemory() : NULL;
        }
    }
    Py_DECREF(fast);
    Py_DECREF(cfast);
    int m = M->m;
    M->true_b = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(double));
    M->basis = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(int));
    M->binv = PyMem_Calloc((size_t)(m ? m : 1) * (size_t)(m ? m : 1), sizeof(double));
    M->xb = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(double));
    M->nz = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(int));
    y = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(double));
    d = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(double));
    if (!M->true_b || !M->basis || !M->binv || !M->xb || !M->nz || !y || !d) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(M->true_b, M->b, (size_t)m * sizeof(double));
    for (int r = 0; r < m; r++) M->b[r] += 1e-7 * (1.0 + (double)(r * 37 % 101) / 101.0);
    for (int r = 0; r < m; r++) {
        int k;
        int rows[1] = {r};
        double one[1] = {1.0}, minus[1] = {-1.0};
        if (M->row_kind[r] == LE) {
            k = add_column(M, 0.0, rows, one, 1, SLACK);
            for (int i = 0; i < M->nold; i++)
                if (M->slot_row[i] == r) M->slot_slack[i] = k;
        } else {
            if (M->row_kind[r] == GE) add_column(M, 0.0, rows, minus, 1, SLACK);
            k = add_column(M, 0.0, rows, one, 1, ARTIFICIAL);
        }
        if (k < 0) {
            PyErr_NoMemory();
            goto done;
        }
        M->basis[r] = k;
        M->where[k] = r;
    }
    for (int i = 0; i < m; i++) M->binv[(size_t)i * m + i] = 1.0;
    memcpy(M->xb, M->b, (size_t)m * sizeof(double));
    if (optimise(M, 1, limit, y, d) != 0) {
        if (M->failed) {
            PyErr_NoMemory();
            goto done;
        }
        Py_INCREF(Py_None);
        Py_INCREF(Py_None);
        out = result(Py_None, 0.0, Py_None, M->pivots, 0, 0);
        goto done;
    }
    double left = 0.0;
    for (int i = 0; i < m; i++)
        if (M->kind[M->basis[i]] == ARTIFICIAL) {
            left += M->xb[i];
            M->xb[i] = 0.0;
        }
    if (left > 1e-4) {
        Py_INCREF(Py_None);
        Py_INCREF(Py_None);
        out = result(Py_None, 0.0, Py_None, M->pivots, 0, 0);
        goto done;
    }
    double top = 0.0;
    long count = 0;
    if (!generate(M, limit, y, d, &F, &top, &count)) {
        if (M->failed) {
            PyErr_NoMemory();
            goto done;
        }
        Py_INCREF(Py_None);
        Py_INCREF(Py_None);
        out = result(Py_None, 0.0, Py_None, M->pivots, M->rounds, 0);
        goto done;
    }
    M->pert_b = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(double));
    M->pen_k = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(int));
    M->pen_cost = PyMem_Malloc((size_t)(m ? m : 1) * sizeof(double));
    if (!M->pert_b || !M->pen_k || !M->pen_cost) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(M->pert_b, M->b, (size_t)m * sizeof(double));
    memcpy(M->b, M->true_b, (size_t)m * sizeof(double));
    basic_values(M);
    double value = 0.0;
    for (int i = 0; i < m; i++) value += M->cost[M->basis[i]] * M->xb[i];
    long b_int = (long)(bound(M, y, top, count) + 1e-6);
    PyObject *play = PyList_New(0);
    if (!play) goto done;
    int got = read_play(M, play);
    long found = (long)(value + 0.5);
    Saved S = {NULL, NULL, 0}; /* the root's basis, for the branch and bound */
    if (got >= 0 && known >= 0 && save(M, &S) < 0) {
        Py_DECREF(play);
        PyErr_NoMemory();
        goto done;
    }
    if (got == 0) {
        Py_DECREF(play);
        play = PyList_New(0);
        /* a play near enough the bound for the branch and bound is worth more dives (when
         * the known play is not already) */
        long want = known >= 0 && known < b_int - BB_GAP ? b_int - BB_GAP : -1;
        got = play ? dive(M, limit, y, d, &F, &play, want) : -1;
        found = got == 1 ? M->dive_value : -1;
    }
    if (got < 0) {
        Py_XDECREF(play);
        unsave(&S);
        if (M->failed) PyErr_NoMemory();
        goto done;
    }
    if (got == 0) {
        Py_XDECREF(play);
        play = Py_None;
        Py_INCREF(play);
    }
    long lower = found > known ? found : known;
    if (known >= 0 && lower < b_int && b_int - lower <= BB_GAP &&
        (M->pivots <= BB_AFTER || b_int - lower == 1)) {
        restore(M, &S);
        memcpy(M->b, M->pert_b, (size_t)m * sizeof(double));
        basic_values(M);
        M->lower = lower;
        M->round_cap = M->rounds + BB_ROUNDS;
        long bb_limit = M->pivots + BB_PIVOTS < limit ? M->pivots + BB_PIVOTS : limit;
        int done_bb = visit(M, bb_limit, y, d, &F);
        if (done_bb < 0) {
            Py_DECREF(play);
            unsave(&S);
            if (M->failed || !PyErr_Occurred()) PyErr_NoMemory();
            goto done;
        }
        if (done_bb == 1) {
            b_int = M->lower;
            if (M->best) {
                Py_DECREF(play);
                play = M->best;
                M->best = NULL;
            }
        }
    }
    unsave(&S);
    out = result(PyLong_FromLong(b_int), value, play, M->pivots, M->rounds, M->nodes);
done:
    PyMem_Free(y);
    PyMem_Free(d);
    PyMem_Free(F.e);
    return out;
}

static PyObject *kept_lp(PyObject *self, PyObject *args) {
    PyObject *old, *tcount_obj, *rack_obj, *first, *credits;
    long rack_jokers, count_w, level, limit, known = -1;
    if (!PyArg_ParseTuple(args, "OOOlllOOl|l", &old, &tcount_obj, &rack_obj, &rack_jokers,
                          &count_w, &level, &first, &credits, &limit, &known))
        return NULL;
    long tcount[53], rack[52];
    if (read_counts(tcount_obj, tcount, 53) < 0 || read_counts(rack_obj, rack, 52) < 0)
        return NULL;
    if (count_w <= 0) {
        PyErr_SetString(PyExc_ValueError, "count_w must be positive");
        return NULL;
    }
    Model M;
    memset(&M, 0, sizeof M);
    PyObject *oldf = PySequence_Fast(old, "expected a list of sets");
    if (!oldf) return NULL;
    int nold = (int)PySequence_Fast_GET_SIZE(oldf);
    M.nold = nold;
    M.old_reals = PyMem_Calloc((size_t)(nold ? nold : 1), sizeof(uint64_t));
    M.old_jokers = PyMem_Calloc((size_t)(nold ? nold : 1), sizeof(int));
    M.slot_row = PyMem_Calloc((size_t)(nold ? nold : 1), sizeof(int));
    M.need = PyMem_Calloc((size_t)(nold ? nold : 1), sizeof(uint64_t));
    M.ban = PyMem_Calloc((size_t)(nold ? nold : 1), sizeof(uint64_t));
    M.jokers_lo = PyMem_Calloc((size_t)(nold ? nold : 1), sizeof(int));
    M.jokers_hi = PyMem_Calloc((size_t)(nold ? nold : 1), sizeof(int));
    M.continued = PyMem_Calloc((size_t)(nold ? nold : 1), sizeof(int));
    M.slot_slack = PyMem_Calloc((size_t)(nold ? nold : 1), sizeof(int));
    M.counted = PyMem_Malloc((size_t)(4 * (nold + 1) * 12 * 2) * sizeof(int));
    if (M.counted)
        for (int j = 0; j < 4 * (nold + 1) * 12 * 2; j++) M.counted[j] = -1;
    M.round_cap = ROUNDS;
    M.dive_value = -1;
    M.lower = -1;
    M.mcap = 52 + 1 + nold + 2 + 53 + 2;
    M.row_kind = PyMem_Malloc((size_t)M.mcap * sizeof(int));
    M.row_lo = PyMem_Malloc((size_t)M.mcap * sizeof(double));
    M.row_hi = PyMem_Malloc((size_t)M.mcap * sizeof(double));
    M.b = PyMem_Malloc((size_t)M.mcap * sizeof(double));
    PyObject *out = NULL;
    if (!M.old_reals || !M.old_jokers || !M.slot_row || !M.need || !M.ban || !M.jokers_lo ||
        !M.jokers_hi || !M.continued || !M.slot_slack || !M.counted || !M.row_kind || !M.row_lo ||
        !M.row_hi || !M.b) {
        PyErr_NoMemory();
        goto done;
    }
    int tiles[64];
    for (int i = 0; i < nold; i++) {
        M.jokers_hi[i] = 2;
        M.slot_slack[i] = -1;
        int len = ints_of(PySequence_Fast_GET_ITEM(oldf, i), tiles, 64);
        if (len < 0) goto done;
        for (int j = 0; j < len; j++) {
            if (tiles[j] == JOKER)
                M.old_jokers[i]++;
            else
                M.old_reals[i] |= (uint64_t)1 << tiles[j];
        }
    }
    long jokers = tcount[JOKER] + rack_jokers;
    M.max_jokers = jokers > 2 ? 2 : (int)jokers;
    long rack_sum = 0;
    for (int f = 0; f < 52; f++) {
        M.avail[f] = tcount[f] + rack[f] > 0;
        if (M.avail[f]) M.avail_mask[f / 13] |= 1 << (f % 13);
        rack_sum += rack[f];
    }
    long every = count_w * (rack_sum + rack_jokers);
    int all_placed = level >= every;
    for (int f = 0; f < 52; f++) {
        M.face_row[f] = -1;
        if (M.avail[f]) {
            double t = (double)(tcount[f] + (all_placed ? rack[f] : 0));
            M.face_row[f] = add_row(&M, EQ, t, t);
        }
    }
    M.joker_row = -1;
    if (jokers) {
        double t = (double)(tcount[JOKER] + (all_placed ? rack_jokers : 0));
        M.joker_row = add_row(&M, EQ, t, t);
    }
    for (int i = 0; i < nold; i++) M.slot_row[i] = add_row(&M, LE, 0.0, 1.0);
    M.rack_jokers = (int)rack_jokers;
    M.value_row = -1;
    M.value_scale = 1.0;
    M.count_row = -1;
    long reals_value = 0;
    for (int f = 0; f < 52; f++) reals_value += rack[f] * (f % 13 + 1);
    if (all_placed) {
        if (rack_jokers) {
            long need = level - every - reals_value;
            M.value_row = add_row(&M, GE, (double)need, (double)(13 * rack_jokers));
            M.count_row = add_row(&M, LE, 0.0, (double)rack_jokers);
        }
    } else {
        /* a row for the tiles placed (exactly the optimum's) and one for their value (at
           least the optimum's), as _solver_lp.py says */
        double tiles = (double)(level / count_w);
        int tiles_row = add_row(&M, EQ, tiles, tiles);
        double scale = 1.0 / 13.0;
        long most = reals_value + 13 * rack_jokers;
        int value_row = add_row(&M, GE, (double)(level % count_w) * scale, (double)most * scale);
        for (int f = 0; f < 52; f++)
            if (rack[f]) {
                int ub = add_row(&M, LE, 0.0, (double)rack[f]);
                int rows[4] = {M.face_row[f], tiles_row, value_row, ub};
                double vals[4] = {-1.0, 1.0, (double)(f % 13 + 1) * scale, 1.0};
                int k = add_column(&M, 0.0, rows, vals, 4, PLACED);
                if (k < 0) {
                    PyErr_NoMemory();
                    goto done;
                }
                M.most[k] = (double)rack[f];
            }
        if (rack_jokers) {
            int ub = add_row(&M, LE, 0.0, (double)rack_jokers);
            M.value_row = value_row;
            M.value_scale = scale;
            M.count_row = add_row(&M, LE, (double)(-rack_jokers), 0.0);
            int rows[4] = {M.joker_row, tiles_row, ub, M.count_row};
            double vals[4] = {-1.0, 1.0, 1.0, -1.0};
            int k = add_column(&M, 0.0, rows, vals, 4, PLACED);
            if (k < 0) {
                PyErr_NoMemory();
                goto done;
            }
            M.most[k] = (double)rack_jokers;
        }
    }
    M.first_set = M.n;
    out = solve(&M, first, credits, limit, known);
done:
    Py_DECREF(oldf);
    model_free(&M);
    return out;
}

static PyMethodDef module_methods[] = {
    {"kept_lp", kept_lp, METH_VARARGS,
     "kept_lp(old, tcount, rack, rack_jokers, count_w, level, first, meanings, limit, "
     "known_kept=-1) -> (bound or None, value, play or None, pivots, rounds, nodes): as "
     "_solver_lp._Model.solve"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_lp_engine",
    "The fewest-moved problem's linear relaxation in C (see gameshack.rules.tiles._solver_lp).",
    -1, module_methods,
};

PyMODINIT_FUNC PyInit__lp_engine(void) { return PyModule_Create(&module_def); }
