/*
 * Per-row kernels of the row-value metrics, and two reductions of a training step's batch,
 * compiled (optional: the NumPy formulas compute the same values when this module is not built;
 * see streammetrics/_core/compiled.py and docs/architecture.md, "The compiled parts").
 *
 * Each kernel reads whole C-contiguous arrays (float64, or integer relevances) through the buffer
 * protocol and runs without the GIL:
 * - per row: DCG, NDCG, the ideal DCG and the label ranking metrics of rows of up to 32 entries
 *   (comparisons of a row's pairs: streammetrics/ranking/rowranking.py; rows of up to 16 by AVX-512
 *   loops where the CPU has them), Jensen-Shannon's per-row scale and sums
 *   (streammetrics/classification/rowlosses.py), a small batch's cosines and CRPS
 *   (streammetrics/regression/rowlosses.py);
 * - per batch: the regression moments of a small 1-D chunk (streammetrics/regression/moments.py),
 *   the sums of SMAPE, WMAPE and Minkowski of one output (streammetrics/regression/rowlosses.py)
 *   and the finiteness of a float64 array (streammetrics/_core/validation.py).
 * The elementwise IEEE operations are those of the NumPy formulas, in the same order; only sums
 * may round differently (sequential or pairwise here, BLAS's order there): a few units in the last
 * place. The transcendental functions stay NumPy's (the divergences' kernels, in _divergences.c,
 * use glibc's vector logarithms).
 */
#include "_kernels.h"

/* Vector builds of the loops, chosen at load time, where the toolchain supports it (GCC and Clang
 * on x86-64 glibc); a single build elsewhere. None changes a value: -ffp-contract=off (setup.py)
 * keeps products and sums unfused, and no loop reassociates a sum. */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef VECTOR_CLONES
#define VECTOR_CLONES
#endif

/* The AVX-512 builds of the comparisons of rows of up to 16 entries (_kernels.h: AVX512_ROWS) put
 * a row in one or two registers, compare one entry against all of them in one or two
 * instructions, and make each count one masked add: a third fewer instructions than the
 * compiler's code for the portable loops. The counts are whole numbers and the sums are made in
 * the same order: the same values either way. */

/* The narrowest rows the AVX-512 loops take, by kernel (narrower ones: the portable loops,
 * measured faster there: 448 against 381 M rows/s for the DCG of rows of 2; 247 against 171-218
 * for the coverage error of 5, in benchmarks/compare.py's stream of batches, and about even
 * alone). */
#define AVX512_NARROWEST_DCG 3
#define AVX512_NARROWEST_COVERAGE 6
#define AVX512_NARROWEST_RANKING 2
/* Set at import: whether the AVX-512 builds run (always 0 where they are not compiled). */
static int use_avx512 = 0;

/* Rows of at most this many entries (the Python side sends wider rows to NumPy). */
#define MAX_ROW 32

/* `LOOP(width)` with the row width a compile-time constant for the widths listed (the compiler
 * unrolls their comparisons), a variable otherwise (the loop over a row's entries vectorized).
 * Which widths gain from unrolling differs by kernel, as measured (one flat switch each: nested
 * ones changed what the compiler unrolled). */
#define SHORT_CASES(LOOP)                                                                          \
    case 2: LOOP(2); break;                                                                        \
    case 3: LOOP(3); break;                                                                        \
    case 4: LOOP(4); break;                                                                        \
    case 5: LOOP(5); break;                                                                        \
    case 6: LOOP(6); break;                                                                        \
    case 7: LOOP(7); break;
#define BY_SHORT_WIDTH(LOOP, m)                                                                    \
    switch (m) {                                                                                   \
    SHORT_CASES(LOOP)                                                                              \
    default: LOOP(m);                                                                              \
    }
#define BY_WIDTH(LOOP, m)                                                                          \
    switch (m) {                                                                                   \
    SHORT_CASES(LOOP)                                                                              \
    case 10: LOOP(10); break;                                                                      \
    case 16: LOOP(16); break;                                                                      \
    default: LOOP(m);                                                                              \
    }
#define BY_WIDTH_OR_8(LOOP, m)                                                                     \
    switch (m) {                                                                                   \
    SHORT_CASES(LOOP)                                                                              \
    case 8: LOOP(8); break;                                                                        \
    case 10: LOOP(10); break;                                                                      \
    case 16: LOOP(16); break;                                                                      \
    default: LOOP(m);                                                                              \
    }

/* The gain types dcg_rows reads (NumPy's bool and uint8 share "B" once viewed as uint8). */
enum gain_kind { GAIN_FLOAT64, GAIN_INT64, GAIN_INT32, GAIN_UINT8 };

static int
gain_kind(const Py_buffer *view)
{
    const char *f = native_format(view);
    if (f == NULL) {
        return -1;
    }
    if (strcmp(f, "d") == 0) {
        return GAIN_FLOAT64;
    }
    if ((strcmp(f, "l") == 0 || strcmp(f, "q") == 0) && view->itemsize == 8) {
        return GAIN_INT64;
    }
    if ((strcmp(f, "i") == 0 || strcmp(f, "l") == 0) && view->itemsize == 4) {
        return GAIN_INT32;
    }
    if (strcmp(f, "B") == 0 || strcmp(f, "?") == 0) {
        return GAIN_UINT8;
    }
    return -1;
}

/* The bytes of one gain or relevance of a kind. */
static ALWAYS_INLINE Py_ssize_t
gain_size(int kind)
{
    return kind == GAIN_UINT8 ? 1 : kind == GAIN_INT32 ? 4 : 8;
}

/* Row `i`'s m gains as doubles (the exact conversion NumPy's astype(float64) makes). */
static ALWAYS_INLINE void
load_gains(double *out, const void *gains, int kind, Py_ssize_t i, Py_ssize_t m)
{
    switch (kind) {
    case GAIN_FLOAT64:
        memcpy(out, (const double *)gains + i * m, (size_t)m * sizeof(double));
        break;
    case GAIN_INT64:
        for (Py_ssize_t j = 0; j < m; j++) out[j] = (double)((const int64_t *)gains)[i * m + j];
        break;
    case GAIN_INT32:
        for (Py_ssize_t j = 0; j < m; j++) out[j] = (double)((const int32_t *)gains)[i * m + j];
        break;
    default:
        for (Py_ssize_t j = 0; j < m; j++) out[j] = (double)((const uint8_t *)gains)[i * m + j];
    }
}

/* ---------------------------------------------------------------------------- finite */

/* x - x is 0 for a finite x, NaN for an inf or a NaN: one branch-free pass, vectorized. */
VECTOR_CLONES static int
finite_all(const double *restrict values, Py_ssize_t count)
{
    int finite = 1;
    for (Py_ssize_t x = 0; x < count; x++) {
        finite &= values[x] - values[x] == 0.0;
    }
    return finite;
}

PyDoc_STRVAR(all_finite_doc,
"all_finite(values, count) -> bool\n--\n\n"
"Whether the count float64 values of a C-contiguous buffer are all finite (one pass, without the\n"
"boolean array of numpy.isfinite).");

static PyObject *
all_finite(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "all_finite: expected 2 arguments (values, count)");
        return NULL;
    }
    Py_ssize_t count = PyLong_AsSsize_t(args[1]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    Held held[1];
    memset(held, 0, sizeof held);
    if (count < 0 || hold(args[0], &held[0], "d", count, 0, "values") < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "all_finite: expected count >= 0");
        }
        release_all(held, 1);
        return NULL;
    }
    int finite;
    Py_BEGIN_ALLOW_THREADS
    finite = finite_all(held[0].view.buf, count);
    Py_END_ALLOW_THREADS
    release_all(held, 1);
    return PyBool_FromLong(finite);
}

/* What ndcg_rows and label_ranking_rows return: the values written; a relevance refused (negative
 * or not finite, or not 0 or 1); a score that is not finite. */
enum rows_status { ROWS_WRITTEN, ROWS_BAD_RELEVANCE, ROWS_NOT_FINITE };

/* ---------------------------------------------------------------------------- the ideal DCG */

/* What a row's ideal DCG takes: the discounts, of which the first `top` are not zero, and
 * binary[c], the sum of the first min(c, top) (summed from the first: the sum of a row of 0/1
 * gains with c ones, whose further terms, 0.0 * discount, add +0.0: nothing). */
typedef struct {
    const double *discount;
    double binary[MAX_ROW + 1];
    Py_ssize_t top;
} Ideal;

static void
ideal_init(Ideal *ideal, const double *discount, Py_ssize_t top, Py_ssize_t m)
{
    ideal->discount = discount;
    ideal->top = top;
    ideal->binary[0] = 0.0;
    for (Py_ssize_t c = 0; c < m; c++) {
        ideal->binary[c + 1] = c < top ? ideal->binary[c] + 1.0 * discount[c] : ideal->binary[c];
    }
}

/* The row's m gains g in decreasing order, each times its position's discount, summed from the
 * first position: the DCG of the best ranking. A gain's position is the number of gains above it,
 * or equal to it and earlier in the row (comparisons, branch-free, as dcg_loop's: no sort), its
 * gain written there in `sorted` (scratch); only the first `top` positions (those with a non-zero
 * discount) are summed. */
static ALWAYS_INLINE double
sorted_sum(const double *restrict g, double *restrict sorted, const Ideal *ideal, const Py_ssize_t m)
{
    for (Py_ssize_t j = 0; j < m; j++) {
        const double x = g[j];
        Py_ssize_t position = 0;
        for (Py_ssize_t l = 0; l < m; l++) {
            position += (g[l] > x) | ((g[l] == x) & (l < j));
        }
        sorted[position] = x;
    }
    double total = 0.0;
    for (Py_ssize_t p = 0; p < ideal->top; p++) {
        total += sorted[p] * ideal->discount[p];
    }
    return total;
}

/* The ideal DCG of a row of m gains g (as doubles), `gains_valid` cleared where one is negative
 * or not finite (NDCG's float relevances are checked here, as they are read): binary's sum for
 * 0/1 gains, sorted_sum's otherwise. */
static ALWAYS_INLINE double
ideal_of(const double *restrict g, double *restrict sorted, const Ideal *ideal, const Py_ssize_t m,
         int *restrict gains_valid)
{
    int binary = 1, valid = 1;
    Py_ssize_t ones = 0;
    for (Py_ssize_t j = 0; j < m; j++) {
        binary &= (g[j] == 0.0) | (g[j] == 1.0);
        ones += g[j] == 1.0;
        valid &= (g[j] >= 0.0) & (g[j] < HUGE_VAL);
    }
    *gains_valid &= valid;
    return binary ? ideal->binary[ones] : sorted_sum(g, sorted, ideal, m);
}

/* Rows' DCGs over their ideal DCGs (over 1 where that is 0, as rowranking's NumPy formulas: the
 * DCG is then 0 too), a block of rows at a time: the divisions vectorized. */
#define NORMALIZED_BLOCK 64

static ALWAYS_INLINE void
normalize(double *restrict dcg, const double *restrict best, Py_ssize_t count)
{
    for (Py_ssize_t k = 0; k < count; k++) {
        dcg[k] /= best[k] == 0.0 ? 1.0 : best[k];
    }
}

/* Row i's ideal DCG kept; the block's rows normalized at its last row (or the batch's). */
static ALWAYS_INLINE void
keep_best(double *restrict out, double *restrict bests, double best, Py_ssize_t i, Py_ssize_t n)
{
    const Py_ssize_t k = i % NORMALIZED_BLOCK;
    bests[k] = best;
    if (k == NORMALIZED_BLOCK - 1 || i == n - 1) {
        normalize(out + (i - k), bests, k + 1);
    }
}

/* ---------------------------------------------------------------------------- DCG */

/* A document with `above` others scored at least as high and `below` others at most as high
 * takes table[above * m + below] (the Python side's tables: tie-averaged mean discounts, or
 * position discounts with NaN at a tied document); a row's DCG is the sum of gain times that, in
 * document order. The documents' counts of those at least as high come first; they sum to
 * m (m + 1) / 2 exactly when the row has no ties (each count is then a distinct rank), and then
 * each count of those at most as high is m + 1 minus it: the second comparisons only for rows
 * with ties. `m` a constant where inlined: the compiler unrolls the comparisons. */
static ALWAYS_INLINE void
dcg_loop(double *restrict out, const double *restrict s, const void *gains, int kind,
         const double *restrict table, const Ideal *ideal, int *restrict gains_valid, Py_ssize_t n,
         const Py_ssize_t m)
{
    double g[MAX_ROW] = {0}, sorted[MAX_ROW] = {0}; /* (zeroed once: quiets a warning) */
    double bests[NORMALIZED_BLOCK];
    int64_t at_least[MAX_ROW] = {0};
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *restrict row = s + i * m;
        int64_t ranks = 0;
        for (Py_ssize_t j = 0; j < m; j++) {
            const double x = row[j];
            int64_t count = 0; /* (the document itself included) */
            for (Py_ssize_t l = 0; l < m; l++) {
                count += row[l] >= x;
            }
            at_least[j] = count;
            ranks += count;
        }
        load_gains(g, gains, kind, i, m);
        double total = 0.0;
        if (ranks == m * (m + 1) / 2) {
            for (Py_ssize_t j = 0; j < m; j++) {
                total += table[(at_least[j] - 1) * m + (m - at_least[j])] * g[j];
            }
        }
        else {
            for (Py_ssize_t j = 0; j < m; j++) {
                const double x = row[j];
                int64_t at_most = 0;
                for (Py_ssize_t l = 0; l < m; l++) {
                    at_most += row[l] <= x;
                }
                total += table[(at_least[j] - 1) * m + (at_most - 1)] * g[j];
            }
        }
        out[i] = total;
        if (ideal != NULL) { /* (a constant NULL in the DCG's copies, which leave this out) */
            keep_best(out, bests, ideal_of(g, sorted, ideal, m, gains_valid), i, n);
        }
    }
}

VECTOR_CLONES static void
dcg_all(double *out, const double *s, const void *gains, int kind, const double *table, Py_ssize_t n, Py_ssize_t m)
{
#define DCG_LOOP(width) dcg_loop(out, s, gains, kind, table, NULL, NULL, n, width)
    BY_WIDTH(DCG_LOOP, m)
#undef DCG_LOOP
}

/* dcg_all's values over the rows' ideal DCGs; whether every gain was non-negative and finite. */
VECTOR_CLONES static int
ndcg_all(double *out, const double *s, const void *gains, int kind, const double *table, const Ideal *ideal,
         Py_ssize_t n, Py_ssize_t m)
{
    int gains_valid = 1;
#define NDCG_LOOP(width) dcg_loop(out, s, gains, kind, table, ideal, &gains_valid, n, width)
    BY_WIDTH(NDCG_LOOP, m)
#undef NDCG_LOOP
    return gains_valid;
}

#ifdef AVX512_ROWS
/* A row of up to 16 scores as two vectors of 8 (the lanes past the row zero: their counts are
 * never read; nothing is read past the row). */
typedef struct {
    __m512d low, high;
    __mmask8 low_lanes, high_lanes;
} Row16;

AVX512 static ALWAYS_INLINE Row16
load_row16(const double *row, Py_ssize_t m)
{
    Row16 r;
    r.low_lanes = LOW_LANES(m);
    r.high_lanes = HIGH_LANES(m);
    r.low = m >= 8 ? _mm512_loadu_pd(row) : _mm512_maskz_loadu_pd(r.low_lanes, row);
    r.high = m > 8 ? _mm512_maskz_loadu_pd(r.high_lanes, row + 8) : _mm512_setzero_pd();
    return r;
}

/* Whether the row's scores are all finite (x - x is 0 for a finite x; the zeros past the row's
 * end are). */
AVX512 static ALWAYS_INLINE int
finite16(Row16 r)
{
    const __m512d zero = _mm512_setzero_pd();
    return (_mm512_cmp_pd_mask(_mm512_sub_pd(r.low, r.low), zero, _CMP_EQ_OQ)
            & _mm512_cmp_pd_mask(_mm512_sub_pd(r.high, r.high), zero, _CMP_EQ_OQ))
           == 0xFF;
}

/* Two vectors of 8 counts (a row's 16 lanes). */
typedef struct {
    __m512i low, high;
} Counts16;

/* Per lane j of the row (those of `lanes`, 16 bits): the l < m with `predicate`(x[l], row[j])
 * (_CMP_GE_OQ: x[l] >= row[j]); x the row itself, or a copy with -inf for the entries not to
 * count (a finite score is never at most -inf). One entry against the sixteen in two
 * comparisons, each count one masked add. */
AVX512 static ALWAYS_INLINE Counts16
count16(const double *restrict x, Row16 r, unsigned lanes, Py_ssize_t m, const int predicate)
{
    const __m512i one = _mm512_set1_epi64(1);
    const __mmask8 low_lanes = (__mmask8)lanes, high_lanes = (__mmask8)(lanes >> 8);
    Counts16 c = {_mm512_setzero_si512(), _mm512_setzero_si512()};
    for (Py_ssize_t l = 0; l < m; l++) {
        const __m512d at = _mm512_set1_pd(x[l]);
        c.low = _mm512_mask_add_epi64(c.low, _mm512_mask_cmp_pd_mask(low_lanes, at, r.low, predicate), c.low, one);
        if (m > 8) {
            c.high =
                _mm512_mask_add_epi64(c.high, _mm512_mask_cmp_pd_mask(high_lanes, at, r.high, predicate), c.high, one);
        }
    }
    return c;
}

/* count16's counts of x[l] >= row[j], each entry l adding steps[l] rather than 1. */
AVX512 static ALWAYS_INLINE Counts16
count16_by(const double *restrict x, const int64_t *restrict steps, Row16 r, unsigned lanes, Py_ssize_t m)
{
    const __mmask8 low_lanes = (__mmask8)lanes, high_lanes = (__mmask8)(lanes >> 8);
    Counts16 c = {_mm512_setzero_si512(), _mm512_setzero_si512()};
    for (Py_ssize_t l = 0; l < m; l++) {
        const __m512d at = _mm512_set1_pd(x[l]);
        const __m512i step = _mm512_set1_epi64(steps[l]);
        c.low = _mm512_mask_add_epi64(c.low, _mm512_mask_cmp_pd_mask(low_lanes, at, r.low, _CMP_GE_OQ), c.low, step);
        if (m > 8) {
            c.high = _mm512_mask_add_epi64(c.high, _mm512_mask_cmp_pd_mask(high_lanes, at, r.high, _CMP_GE_OQ), c.high,
                                           step);
        }
    }
    return c;
}

AVX512 static ALWAYS_INLINE int64_t
sum16(Counts16 c)
{
    return _mm512_reduce_add_epi64(_mm512_add_epi64(c.low, c.high));
}

AVX512 static ALWAYS_INLINE void
store16(int64_t *out, Counts16 c)
{
    _mm512_storeu_si512(out, c.low);
    _mm512_storeu_si512(out + 8, c.high);
}

/* Row i's m (up to 16) gains as doubles in two vectors (load_gains' conversions; the lanes past the
 * row's end 0.0). */
AVX512 static ALWAYS_INLINE void
load_gains16(__m512d *low, __m512d *high, const void *gains, int kind, Py_ssize_t i, Py_ssize_t m)
{
    const __mmask16 lanes = (__mmask16)((1u << m) - 1);
    switch (kind) {
    case GAIN_FLOAT64: {
        const double *x = (const double *)gains + i * m;
        *low = _mm512_maskz_loadu_pd(LOW_LANES(m), x);
        *high = m > 8 ? _mm512_maskz_loadu_pd(HIGH_LANES(m), x + 8) : _mm512_setzero_pd();
        break;
    }
    case GAIN_INT64: {
        const int64_t *x = (const int64_t *)gains + i * m;
        *low = _mm512_cvtepi64_pd(_mm512_maskz_loadu_epi64(LOW_LANES(m), x));
        *high = m > 8 ? _mm512_cvtepi64_pd(_mm512_maskz_loadu_epi64(HIGH_LANES(m), x + 8)) : _mm512_setzero_pd();
        break;
    }
    default: {
        __m512i x;
        if (kind == GAIN_INT32) {
            x = _mm512_maskz_loadu_epi32(lanes, (const int32_t *)gains + i * m);
        }
        else { /* (bytes: copied, not loaded past the row's end) */
            uint8_t bytes[16] = {0};
            memcpy(bytes, (const uint8_t *)gains + i * m, (size_t)m);
            x = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)bytes));
        }
        *low = _mm512_cvtepi32_pd(_mm512_castsi512_si256(x));
        *high = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(x, 1));
    }
    }
}

/* A row's DCG terms (dcg_loop's products, in document order) and its gains (as doubles). A row
 * without ties: a document with count a takes the cell (a - 1) * m + (m - a), that is a * (m - 1),
 * looked up in two registers (by_count, lane a - 1). */
AVX512 static ALWAYS_INLINE void
dcg_terms16(__m512d terms[2], __m512d g[2], const double *restrict row, Row16 r, const void *gains, int kind,
            Py_ssize_t i, const double *restrict table, const __m512d by_count[2], const Py_ssize_t m)
{
    const unsigned lanes = (1u << m) - 1;
    const Counts16 above = count16(row, r, lanes, m, _CMP_GE_OQ);
    load_gains16(&g[0], &g[1], gains, kind, i, m);
    if (sum16(above) == m * (m + 1) / 2) {
        const __m512i one = _mm512_set1_epi64(1);
        const __m512i low = _mm512_sub_epi64(above.low, one), high = _mm512_sub_epi64(above.high, one);
        terms[0] = _mm512_mul_pd(_mm512_permutex2var_pd(by_count[0], low, by_count[1]), g[0]);
        terms[1] = _mm512_mul_pd(_mm512_permutex2var_pd(by_count[0], high, by_count[1]), g[1]);
        return;
    }
    int64_t at_least[16], at_most[16];
    double by_document[16] = {0}, gain[16];
    store16(at_least, above);
    store16(at_most, count16(row, r, lanes, m, _CMP_LE_OQ));
    _mm512_storeu_pd(gain, g[0]);
    _mm512_storeu_pd(gain + 8, g[1]);
    for (Py_ssize_t j = 0; j < m; j++) {
        by_document[j] = table[(at_least[j] - 1) * m + (at_most[j] - 1)] * gain[j];
    }
    terms[0] = _mm512_loadu_pd(by_document);
    terms[1] = _mm512_loadu_pd(by_document + 8);
}

/* ideal_of's tests on a row's gains as two vectors (the lanes past the row 0.0): `gains_valid`
 * cleared where one is negative or not finite; whether they are all 0 or 1, and then their ideal
 * DCG, the sum of the first discounts, in `best`. */
AVX512 static ALWAYS_INLINE int
binary_ideal16(const __m512d g[2], const Ideal *ideal, int *restrict gains_valid, double *restrict best)
{
    const __m512d zero = _mm512_setzero_pd(), unit = _mm512_set1_pd(1.0);
    const __mmask8 ones_low = _mm512_cmp_pd_mask(g[0], unit, _CMP_EQ_OQ);
    const __mmask8 ones_high = _mm512_cmp_pd_mask(g[1], unit, _CMP_EQ_OQ);
    const __mmask8 binary_low = ones_low | _mm512_cmp_pd_mask(g[0], zero, _CMP_EQ_OQ);
    const __mmask8 binary_high = ones_high | _mm512_cmp_pd_mask(g[1], zero, _CMP_EQ_OQ);
    const __m512d infinity = _mm512_set1_pd(HUGE_VAL);
    const __mmask8 valid_low = _mm512_cmp_pd_mask(g[0], zero, _CMP_GE_OQ) & _mm512_cmp_pd_mask(g[0], infinity, _CMP_LT_OQ);
    const __mmask8 valid_high = _mm512_cmp_pd_mask(g[1], zero, _CMP_GE_OQ) & _mm512_cmp_pd_mask(g[1], infinity, _CMP_LT_OQ);
    *gains_valid &= (valid_low & valid_high) == 0xFF;
    *best = ideal->binary[__builtin_popcount(ones_low) + __builtin_popcount(ones_high)];
    return (binary_low & binary_high) == 0xFF;
}

/* ideal_of for a row's gains as two vectors: binary_ideal16's sum, or sorted_sum's. */
AVX512 static ALWAYS_INLINE double
ideal16(const __m512d g[2], const Ideal *ideal, const Py_ssize_t m, int *restrict gains_valid)
{
    double best;
    if (binary_ideal16(g, ideal, gains_valid, &best)) {
        return best;
    }
    double gain[16], sorted[16];
    _mm512_storeu_pd(gain, g[0]);
    _mm512_storeu_pd(gain + 8, g[1]);
    return sorted_sum(gain, sorted, ideal, m);
}

/* Batcher's odd-even merge sorting networks of 4, 8 and 16 entries: compare-exchanges (a, b), a < b,
 * the larger value to a. The tests check that NDCG's kernel sorts every row of 0s and 1s, which,
 * by the 0-1 principle, makes a network sort any row. */
static const unsigned char NETWORK_4[][2] = {{0, 1}, {2, 3}, {0, 2}, {1, 3}, {1, 2}};
static const unsigned char NETWORK_8[][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6},
                                             {5, 7}, {1, 2}, {5, 6}, {0, 4}, {1, 5}, {2, 6}, {3, 7},
                                             {2, 4}, {3, 5}, {1, 2}, {3, 4}, {5, 6}};
static const unsigned char NETWORK_16[][2] = {
    {0, 1},  {2, 3},   {4, 5},   {6, 7},   {8, 9},   {10, 11}, {12, 13}, {14, 15}, {0, 2},   {1, 3},   {4, 6},
    {5, 7},  {8, 10},  {9, 11},  {12, 14}, {13, 15}, {1, 2},   {5, 6},   {9, 10},  {13, 14}, {0, 4},   {1, 5},
    {2, 6},  {3, 7},   {8, 12},  {9, 13},  {10, 14}, {11, 15}, {2, 4},   {3, 5},   {10, 12}, {11, 13}, {1, 2},
    {3, 4},  {5, 6},   {9, 10},  {11, 12}, {13, 14}, {0, 8},   {1, 9},   {2, 10},  {3, 11},  {4, 12},  {5, 13},
    {6, 14}, {7, 15},  {4, 8},   {5, 9},   {6, 10},  {7, 11},  {2, 4},   {3, 5},   {6, 8},   {7, 9},   {10, 12},
    {11, 13}, {1, 2},  {3, 4},   {5, 6},   {7, 8},   {9, 10},  {11, 12}, {13, 14}};

/* The ideal DCGs of eight rows at once (sorted_sum's, the same bits): their gains transposed
 * (vector j: entry j of each row, a row's lanes past its end 0.0, which sort among its zeros:
 * NDCG's gains are non-negative), sorted across the vectors by a network (each compare-exchange
 * a maximum and a minimum, each row in a lane of its own: no positions, no scatter), then summed
 * from the first position. Equal gains are interchangeable, +0.0 and -0.0 too (a sum from +0.0
 * that adds -0.0 is unchanged). */
AVX512 static ALWAYS_INLINE __m512d
ideal_rows8(__m512d column[16], const Ideal *ideal, const Py_ssize_t m)
{
    const unsigned char(*network)[2] = m <= 4 ? NETWORK_4 : m <= 8 ? NETWORK_8 : NETWORK_16;
    const int steps = m <= 4 ? 5 : m <= 8 ? 19 : 63;
#pragma GCC unroll 64
    for (int c = 0; c < steps; c++) {
        const __m512d x = column[network[c][0]], y = column[network[c][1]];
        column[network[c][0]] = _mm512_max_pd(x, y);
        column[network[c][1]] = _mm512_min_pd(x, y);
    }
    __m512d total = _mm512_setzero_pd();
    for (Py_ssize_t p = 0; p < ideal->top; p++) {
        total = _mm512_add_pd(total, _mm512_mul_pd(column[p], _mm512_set1_pd(ideal->discount[p])));
    }
    return total;
}

/* dcg_loop (and, with an ideal, ndcg_all's loop) for rows of up to 16 documents, the counts by
 * count16: the same terms, summed in the same order. Eight rows at a time, their terms transposed:
 * each row's sum in a lane of its own (a vector addition per document, rather than a chain of
 * dependent scalar ones per row). Each row's finiteness is checked as it is loaded (finite_all's
 * pass fused): 0 at the first row with a score that is not finite, out then partly written. */
AVX512 static ALWAYS_INLINE int
dcg_avx512_loop(double *restrict out, const double *restrict s, const void *gains, int kind,
                const double *restrict table, const Ideal *ideal, int *restrict gains_valid, Py_ssize_t n,
                const Py_ssize_t m)
{
    double by_count_values[16] = {0};
    for (Py_ssize_t a = 1; a <= m; a++) {
        by_count_values[a - 1] = table[a * (m - 1)];
    }
    const __m512d by_count[2] = {_mm512_loadu_pd(by_count_values), _mm512_loadu_pd(by_count_values + 8)};
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    double terms[16];
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512d low[8], high[8], gains_by_row[16];
        double binary_bests[8];
        int binary = 1;
        fetch_rows(s, i + FETCH_AHEAD_ROWS, 8, m * 8);
        fetch_rows(gains, i + FETCH_AHEAD_ROWS, 8, m * gain_size(kind));
        for (int b = 0; b < 8; b++) {
            const double *restrict row = s + (i + b) * m;
            const Row16 r = load_row16(row, m);
            if (!finite16(r)) {
                return 0; /* (a NaN's counts would index outside the table) */
            }
            __m512d t[2], g[2];
            dcg_terms16(t, g, row, r, gains, kind, i + b, table, by_count, m);
            low[b] = t[0];
            high[b] = t[1];
            if (ideal != NULL) { /* (a constant in each copy) */
                gains_by_row[b] = g[0];
                gains_by_row[8 + b] = g[1];
                binary &= binary_ideal16(g, ideal, gains_valid, &binary_bests[b]);
            }
        }
        transpose8(low);
        if (m > 8) { /* (a row of at most 8: its second vectors are zeros, never summed) */
            transpose8(high);
        }
        __m512d total = zero;
        for (Py_ssize_t j = 0; j < m; j++) {
            total = _mm512_add_pd(total, j < 8 ? low[j] : high[j - 8]);
        }
        if (ideal != NULL) { /* (over 1 where the ideal is 0, as normalize) */
            __m512d best;
            if (binary) { /* (eight rows of 0/1 gains: the network left out) */
                best = _mm512_loadu_pd(binary_bests);
            }
            else {
                transpose8(gains_by_row);
                if (m > 8) {
                    transpose8(gains_by_row + 8);
                }
                best = ideal_rows8(gains_by_row, ideal, m);
            }
            total = _mm512_div_pd(total, _mm512_mask_blend_pd(_mm512_cmp_pd_mask(best, zero, _CMP_EQ_OQ), best, one));
        }
        _mm512_storeu_pd(out + i, total);
    }
    for (; i < n; i++) { /* (the last rows, one at a time) */
        const double *restrict row = s + i * m;
        const Row16 r = load_row16(row, m);
        if (!finite16(r)) {
            return 0;
        }
        __m512d t[2], g[2];
        dcg_terms16(t, g, row, r, gains, kind, i, table, by_count, m);
        _mm512_storeu_pd(terms, t[0]);
        _mm512_storeu_pd(terms + 8, t[1]);
        double total = 0.0;
        for (Py_ssize_t j = 0; j < m; j++) {
            total += terms[j];
        }
        out[i] = total;
        if (ideal != NULL) {
            normalize(out + i, (double[1]){ideal16(g, ideal, m, gains_valid)}, 1);
        }
    }
    return 1;
}

/* Whether every score was finite (out holds no values where not); with an ideal, the values are
 * normalized (ndcg_all's), `gains_valid` cleared where a gain is negative or not finite. */
AVX512 static int
dcg_avx512(double *out, const double *s, const void *gains, int kind, const double *table, const Ideal *ideal,
           int *gains_valid, Py_ssize_t n, Py_ssize_t m)
{
#define DCG_AVX512_LOOP(width) dcg_avx512_loop(out, s, gains, kind, table, NULL, NULL, n, width)
#define NDCG_AVX512_LOOP(width) dcg_avx512_loop(out, s, gains, kind, table, ideal, gains_valid, n, width)
    if (ideal != NULL) {
        WIDE_CASES(NDCG_AVX512_LOOP, m)
    }
    WIDE_CASES(DCG_AVX512_LOOP, m)
#undef DCG_AVX512_LOOP
#undef NDCG_AVX512_LOOP
}
#endif

static int
check_rows(Py_ssize_t n, Py_ssize_t m)
{
    if (n < 0 || m < 1 || m > MAX_ROW) {
        PyErr_Format(PyExc_ValueError, "expected n >= 0 rows of 1 to %d entries, found %zd of %zd", MAX_ROW, n, m);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(dcg_rows_doc,
"dcg_rows(scores, gains, table, out, n, m) -> bool\n--\n\n"
"out[i] = sum_j table[above_ij * m + below_ij] * gains[i, j] over the m documents of row i, with\n"
"above / below the other documents of the row scored at least / at most as high as document j.\n"
"scores: n * m float64; gains: n * m float64, int64, int32, uint8 or bool; table: m * m float64;\n"
"out: n float64 (written). False where a score is not finite (out then holds no values).");

PyDoc_STRVAR(ndcg_rows_doc,
"ndcg_rows(scores, gains, table, discount, top, out, n, m) -> int\n--\n\n"
"dcg_rows' values, each over its row's ideal DCG (ideal_dcg_rows'; over 1 where that is 0).\n"
"Returns 0 when out holds the values; 1 where a gain is negative or not finite; else 2 where a\n"
"score is not finite (2 may be returned before every gain is read; out holds no values unless 0).");

/* dcg_rows and ndcg_rows (`normalized`: the latter, with its discount and top). */
static PyObject *
dcg_call(PyObject *const *args, Py_ssize_t nargs, int normalized)
{
    const Py_ssize_t expected = normalized ? 8 : 6, shift = normalized ? 2 : 0;
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s: expected %zd arguments (scores, gains, table, %sout, n, m)",
                     normalized ? "ndcg_rows" : "dcg_rows", expected, normalized ? "discount, top, " : "");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[4 + shift]), m = PyLong_AsSsize_t(args[5 + shift]);
    Py_ssize_t top = normalized ? PyLong_AsSsize_t(args[4]) : 0;
    if (PyErr_Occurred() || check_rows(n, m) < 0) {
        return NULL;
    }
    if (top < 0 || top > m) {
        PyErr_Format(PyExc_ValueError, "top: expected 0 to %zd positions, found %zd", m, top);
        return NULL;
    }
    Held held[5];
    memset(held, 0, sizeof held);
    if (hold(args[0], &held[0], "d", n * m, 0, "scores") < 0
        || PyObject_GetBuffer(args[1], &held[1].view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0
        || (held[1].held = 1, 0)
        || hold(args[2], &held[2], "d", m * m, 0, "table") < 0
        || hold(args[3 + shift], &held[3], "d", n, 1, "out") < 0
        || (normalized && hold(args[3], &held[4], "d", m, 0, "discount") < 0)) {
        release_all(held, 5);
        return NULL;
    }
    int kind = gain_kind(&held[1].view);
    if (kind < 0 || held[1].view.len != n * m * held[1].view.itemsize) {
        PyErr_Format(PyExc_ValueError, "gains: expected %zd float64, int64, int32, uint8 or bool items", n * m);
        release_all(held, 5);
        return NULL;
    }
    Ideal ideal;
    if (normalized) {
        ideal_init(&ideal, held[4].view.buf, top, m);
    }
    const Ideal *by = normalized ? &ideal : NULL;
    double *out = held[3].view.buf;
    const double *scores = held[0].view.buf, *table = held[2].view.buf;
    const void *gains = held[1].view.buf;
    int finite, gains_valid = 1;
    Py_BEGIN_ALLOW_THREADS
#ifdef AVX512_ROWS
    if (use_avx512 && m >= AVX512_NARROWEST_DCG && m <= 16) {
        finite = dcg_avx512(out, scores, gains, kind, table, by, &gains_valid, n, m);
    }
    else
#endif
    {
        /* (a NaN's counts would index outside the table: checked first, in a pass of its own,
         * which measured cheaper than a check inside the portable counting loop) */
        finite = finite_all(scores, n * m);
        if (finite && normalized) {
            gains_valid = ndcg_all(out, scores, gains, kind, table, by, n, m);
        }
        else if (finite) {
            dcg_all(out, scores, gains, kind, table, n, m);
        }
    }
    Py_END_ALLOW_THREADS
    release_all(held, 5);
    if (!normalized) {
        return PyBool_FromLong(finite);
    }
    return PyLong_FromLong(!gains_valid ? ROWS_BAD_RELEVANCE : !finite ? ROWS_NOT_FINITE : ROWS_WRITTEN);
}

static PyObject *
dcg_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return dcg_call(args, nargs, 0);
}

static PyObject *
ndcg_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return dcg_call(args, nargs, 1);
}

/* The number of ones in row `i`'s m gains when each is 0 or 1 (compared in its own type), else -1. */
static ALWAYS_INLINE Py_ssize_t
count_ones(const void *gains, int kind, Py_ssize_t i, Py_ssize_t m)
{
    Py_ssize_t ones = 0;
    int binary = 1;
    switch (kind) {
    case GAIN_FLOAT64:
        for (Py_ssize_t j = 0; j < m; j++) {
            const double x = ((const double *)gains)[i * m + j];
            binary &= (x == 0.0) | (x == 1.0);
            ones += x == 1.0;
        }
        break;
    case GAIN_INT64:
        for (Py_ssize_t j = 0; j < m; j++) {
            const uint64_t x = (uint64_t)((const int64_t *)gains)[i * m + j];
            binary &= x <= 1;
            ones += (Py_ssize_t)(x & 1);
        }
        break;
    case GAIN_INT32:
        for (Py_ssize_t j = 0; j < m; j++) {
            const uint32_t x = (uint32_t)((const int32_t *)gains)[i * m + j];
            binary &= x <= 1;
            ones += (Py_ssize_t)(x & 1);
        }
        break;
    default:
        for (Py_ssize_t j = 0; j < m; j++) {
            const uint8_t x = ((const uint8_t *)gains)[i * m + j];
            binary &= x <= 1;
            ones += x & 1;
        }
    }
    return binary ? ones : -1;
}

/* ideal_of's values, the 0/1 test and count made on the gains as they are stored (no conversion). */
static ALWAYS_INLINE int
ideal_loop(double *restrict out, const void *gains, int kind, const Ideal *ideal, Py_ssize_t n, const Py_ssize_t m)
{
    double g[MAX_ROW] = {0}, sorted[MAX_ROW] = {0}; /* (zeroed once: quiets a warning) */
    int gains_valid = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        const Py_ssize_t ones = count_ones(gains, kind, i, m);
        if (ones >= 0) {
            out[i] = ideal->binary[ones];
            continue;
        }
        load_gains(g, gains, kind, i, m);
        for (Py_ssize_t j = 0; j < m; j++) {
            gains_valid &= (g[j] >= 0.0) & (g[j] < HUGE_VAL);
        }
        out[i] = sorted_sum(g, sorted, ideal, m);
    }
    return gains_valid;
}

VECTOR_CLONES static int
ideal_all(double *out, const void *gains, int kind, const Ideal *ideal, Py_ssize_t n, Py_ssize_t m)
{
    int gains_valid = 1;
#define IDEAL_LOOP(width) gains_valid = ideal_loop(out, gains, kind, ideal, n, width)
    BY_WIDTH_OR_8(IDEAL_LOOP, m)
#undef IDEAL_LOOP
    return gains_valid;
}

PyDoc_STRVAR(ideal_dcg_rows_doc,
"ideal_dcg_rows(gains, discount, top, out, n, m) -> bool\n--\n\n"
"out[i] = sum_{p < top} sorted_i[p] * discount[p], sorted_i row i's m gains in decreasing order.\n"
"gains: n * m float64, int64, int32, uint8 or bool (no NaN); discount: m float64; out: n float64.\n"
"False where a gain is negative or not finite (out then holds no values).");

static PyObject *
ideal_dcg_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "ideal_dcg_rows: expected 6 arguments (gains, discount, top, out, n, m)");
        return NULL;
    }
    Py_ssize_t top = PyLong_AsSsize_t(args[2]), n = PyLong_AsSsize_t(args[4]), m = PyLong_AsSsize_t(args[5]);
    if (PyErr_Occurred() || check_rows(n, m) < 0) {
        return NULL;
    }
    if (top < 0 || top > m) {
        PyErr_Format(PyExc_ValueError, "top: expected 0 to %zd positions, found %zd", m, top);
        return NULL;
    }
    Held held[3];
    memset(held, 0, sizeof held);
    if (PyObject_GetBuffer(args[0], &held[0].view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0
        || (held[0].held = 1, 0)
        || hold(args[1], &held[1], "d", m, 0, "discount") < 0
        || hold(args[3], &held[2], "d", n, 1, "out") < 0) {
        release_all(held, 3);
        return NULL;
    }
    int kind = gain_kind(&held[0].view);
    if (kind < 0 || held[0].view.len != n * m * held[0].view.itemsize) {
        PyErr_Format(PyExc_ValueError, "gains: expected %zd float64, int64, int32, uint8 or bool items", n * m);
        release_all(held, 3);
        return NULL;
    }
    Ideal ideal;
    ideal_init(&ideal, held[1].view.buf, top, m);
    int gains_valid;
    Py_BEGIN_ALLOW_THREADS
    gains_valid = ideal_all(held[2].view.buf, held[0].view.buf, kind, &ideal, n, m);
    Py_END_ALLOW_THREADS
    release_all(held, 3);
    return PyBool_FromLong(gains_valid);
}

/* ---------------------------------------------------------------------------- label ranking */

/* Whether row `i`'s m relevances are each 0 or 1 (compared in its own type: NaN and 0.5 are
 * neither, nor is an integer other than 0 and 1); those wider than a byte also written to `out` as
 * 0/1 bytes. */
static ALWAYS_INLINE int
load_relevance(uint8_t *out, const void *relevant, int kind, Py_ssize_t i, Py_ssize_t m)
{
    int valid = 1;
    switch (kind) {
    case GAIN_FLOAT64:
        for (Py_ssize_t j = 0; j < m; j++) {
            const double x = ((const double *)relevant)[i * m + j];
            valid &= (x == 0.0) | (x == 1.0);
            out[j] = x != 0.0;
        }
        break;
    case GAIN_INT64:
        for (Py_ssize_t j = 0; j < m; j++) {
            const uint64_t x = (uint64_t)((const int64_t *)relevant)[i * m + j];
            valid &= x <= 1;
            out[j] = (uint8_t)x;
        }
        break;
    case GAIN_INT32:
        for (Py_ssize_t j = 0; j < m; j++) {
            const uint32_t x = (uint32_t)((const int32_t *)relevant)[i * m + j];
            valid &= x <= 1;
            out[j] = (uint8_t)x;
        }
        break;
    default: /* (checked only: read in place) */
        for (Py_ssize_t j = 0; j < m; j++) {
            valid &= ((const uint8_t *)relevant)[i * m + j] <= 1;
        }
    }
    return valid;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int
load_relevance_called(uint8_t *out, const void *relevant, int kind, Py_ssize_t i, Py_ssize_t m)
{
    return load_relevance(out, relevant, kind, i, m);
}

enum ranking_kind { COVERAGE_ERROR, LABEL_RANKING_AVERAGE_PRECISION, LABEL_RANKING_LOSS };

/* Per row of m labels (relevance 0/1, scores), as rowranking's NumPy formulas:
 * - coverage: the labels scored at least as high as the lowest-scored relevant one (0 if none);
 * - average precision: the mean over relevant labels j of (relevant labels scored >= s_j) /
 *   (labels scored >= s_j), summed in label order; 1 for a row without relevant labels;
 * - ranking loss: the (relevant, irrelevant) pairs ordered wrong (the irrelevant scored at least
 *   as high) over all such pairs (0 without any), from whole counts. */
static ALWAYS_INLINE int
ranking_loop(double *restrict out, const void *relevant, int relevance_kind, const double *restrict s,
             const int kind, Py_ssize_t n, const Py_ssize_t m)
{
    uint8_t converted[MAX_ROW] = {0}; /* (zeroed once: quiets a warning) */
    int zeros_and_ones = 1;
    /* a relevant label's precision a / r read by its counts at r * (m + 1) + a (0 at cell 0: an
     * irrelevant label's), rather than divided for each label */
    double precisions[(MAX_ROW + 1) * (MAX_ROW + 1)] = {0};
    if (kind == LABEL_RANKING_AVERAGE_PRECISION) {
        for (Py_ssize_t r = 1; r <= m; r++) {
            for (Py_ssize_t a = 0; a <= r; a++) {
                precisions[r * (m + 1) + a] = (double)a / (double)r;
            }
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *restrict row = s + i * m;
        /* (bytes read where they are; wider types converted into bytes first) */
        const uint8_t *restrict rel = relevance_kind == GAIN_UINT8 ? (const uint8_t *)relevant + i * m : converted;
        /* (inlined, but called for the coverage of narrow rows, where the inlined copy measured
         * four times slower on 5 labels, and the call slower from 16) */
        zeros_and_ones &= kind == COVERAGE_ERROR && m < 8
                              ? load_relevance_called(converted, relevant, relevance_kind, i, m)
                              : load_relevance(converted, relevant, relevance_kind, i, m);
        if (kind == COVERAGE_ERROR) {
            /* (an irrelevant label's score raised to +inf by an add, not a branch: the relevance
             * is random; x + 0.0 is x for the finite scores) */
            static const double raise[2] = {HUGE_VAL, 0.0};
            double lowest = HUGE_VAL;
            for (Py_ssize_t j = 0; j < m; j++) {
                const double candidate = row[j] + raise[rel[j] != 0];
                lowest = candidate < lowest ? candidate : lowest;
            }
            Py_ssize_t covered = 0;
            for (Py_ssize_t l = 0; l < m; l++) {
                covered += row[l] >= lowest;
            }
            out[i] = (double)covered;
            continue;
        }
        /* (branch-free on the relevance, which is random: an irrelevant label adds 0.0 or 0; the
         * relevance as 64-bit 0/1, the width of the scores' comparisons, so that they vectorize) */
        int64_t is_rel[MAX_ROW];
        for (Py_ssize_t l = 0; l < m; l++) {
            is_rel[l] = rel[l] != 0;
        }
        int64_t n_relevant = 0, wrong = 0;
        double precision = 0.0;
        for (Py_ssize_t j = 0; j < m; j++) {
            const double x = row[j];
            int64_t rank = 0, relevant_at_least = 0;
            for (Py_ssize_t l = 0; l < m; l++) {
                const int64_t at_least = row[l] >= x;
                rank += at_least;
                relevant_at_least += at_least & is_rel[l];
            }
            const int64_t is_relevant = is_rel[j];
            n_relevant += is_relevant;
            if (kind == LABEL_RANKING_AVERAGE_PRECISION) {
                precision += precisions[(rank * (m + 1) + relevant_at_least) & -is_relevant];
            }
            else {
                wrong += (rank - relevant_at_least) & -is_relevant;
            }
        }
        if (kind == LABEL_RANKING_AVERAGE_PRECISION) {
            out[i] = precision / (double)(n_relevant > 1 ? n_relevant : 1) + (n_relevant == 0 ? 1.0 : 0.0);
        }
        else {
            const int64_t pairs = n_relevant * (m - n_relevant);
            out[i] = (double)wrong / (double)(pairs > 1 ? pairs : 1);
        }
    }
    return zeros_and_ones;
}

#ifdef AVX512_ROWS
/* Row i's m (up to 16) relevances as a bit mask of the relevant ones (bit j: label j); `valid`
 * cleared unless each is 0 or 1, compared in its own type as load_relevance compares them. */
AVX512 static ALWAYS_INLINE unsigned
relevance_bits16(const void *relevant, int kind, Py_ssize_t i, Py_ssize_t m, int *valid)
{
    const __mmask16 lanes = (__mmask16)((1u << m) - 1);
    const __mmask8 high = HIGH_LANES(m);
    unsigned bits, ok;
    switch (kind) {
    case GAIN_FLOAT64: {
        const double *x = (const double *)relevant + i * m;
        const __m512d low_x = _mm512_maskz_loadu_pd(LOW_LANES(m), x), high_x = _mm512_maskz_loadu_pd(high, x + 8);
        const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
        bits = _mm512_cmp_pd_mask(low_x, zero, _CMP_NEQ_UQ)
               | (unsigned)_mm512_mask_cmp_pd_mask(high, high_x, zero, _CMP_NEQ_UQ) << 8;
        ok = (_mm512_cmp_pd_mask(low_x, zero, _CMP_EQ_OQ) | _mm512_cmp_pd_mask(low_x, one, _CMP_EQ_OQ))
             | (unsigned)(_mm512_cmp_pd_mask(high_x, zero, _CMP_EQ_OQ) | _mm512_cmp_pd_mask(high_x, one, _CMP_EQ_OQ))
                   << 8;
        break;
    }
    case GAIN_INT64: {
        const int64_t *x = (const int64_t *)relevant + i * m;
        const __m512i low_x = _mm512_maskz_loadu_epi64(LOW_LANES(m), x), high_x = _mm512_maskz_loadu_epi64(high, x + 8);
        const __m512i one = _mm512_set1_epi64(1);
        bits = _mm512_test_epi64_mask(low_x, low_x) | (unsigned)_mm512_test_epi64_mask(high_x, high_x) << 8;
        ok = _mm512_cmple_epu64_mask(low_x, one) | (unsigned)_mm512_cmple_epu64_mask(high_x, one) << 8;
        break;
    }
    case GAIN_INT32: {
        const __m512i x = _mm512_maskz_loadu_epi32(lanes, (const int32_t *)relevant + i * m);
        bits = _mm512_test_epi32_mask(x, x);
        ok = _mm512_cmple_epu32_mask(x, _mm512_set1_epi32(1));
        break;
    }
    default: { /* (bytes: copied, not loaded past the row's end) */
        uint8_t bytes[16] = {0};
        memcpy(bytes, (const uint8_t *)relevant + i * m, (size_t)m);
        const __m512i x = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)bytes));
        bits = _mm512_test_epi32_mask(x, x);
        ok = _mm512_cmple_epu32_mask(x, _mm512_set1_epi32(1));
    }
    }
    *valid &= (ok & lanes) == lanes;
    return bits & lanes;
}

/* ranking_loop's coverage error and ranking loss for rows of up to 16 labels: the coverage from a
 * masked minimum and two comparisons, the loss counted by count16 (whole counts: the same values). */
AVX512 static ALWAYS_INLINE int
ranking_avx512_loop(double *restrict out, const void *relevant, int relevance_kind, const double *restrict s,
                    const int kind, Py_ssize_t n, const Py_ssize_t m, int *restrict finite)
{
    int zeros_and_ones = 1, all_finite = 1;
    double only[16];
    const __m512d below_all = _mm512_set1_pd(-HUGE_VAL);
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *restrict row = s + i * m;
        fetch_rows(s, i + FETCH_AHEAD_ROWS, 1, m * 8);
        fetch_rows(relevant, i + FETCH_AHEAD_ROWS, 1, m * gain_size(relevance_kind));
        const unsigned bits = relevance_bits16(relevant, relevance_kind, i, m, &zeros_and_ones);
        const __mmask8 relevant_low = (__mmask8)bits, relevant_high = (__mmask8)(bits >> 8);
        const int64_t n_relevant = __builtin_popcount(bits);
        const Row16 r = load_row16(row, m);
        all_finite &= finite16(r); /* (the row's values then wrong, but computed as any others) */
        if (kind == COVERAGE_ERROR) {
            /* the labels at least as high as the lowest-scored relevant one (+inf without one: no
             * label; the minimum whatever the order, and -0.0 compares as 0.0) */
            const __m512d above_all = _mm512_set1_pd(HUGE_VAL);
            const __m512d low = _mm512_mask_blend_pd(relevant_low, above_all, r.low);
            const __m512d high = _mm512_mask_blend_pd(relevant_high, above_all, r.high);
            const __m512d lowest = _mm512_set1_pd(_mm512_reduce_min_pd(_mm512_min_pd(low, high)));
            out[i] = (double)(__builtin_popcount(_mm512_mask_cmp_pd_mask(r.low_lanes, r.low, lowest, _CMP_GE_OQ))
                              + __builtin_popcount(_mm512_mask_cmp_pd_mask(r.high_lanes, r.high, lowest, _CMP_GE_OQ)));
        }
        else {
            /* the wrong pairs: per relevant label j, the irrelevant labels at least as high (the
             * row with -inf for the relevant) */
            _mm512_storeu_pd(only, _mm512_mask_blend_pd(relevant_low, r.low, below_all));
            _mm512_storeu_pd(only + 8, _mm512_mask_blend_pd(relevant_high, r.high, below_all));
            const Counts16 c = count16(only, r, (1u << m) - 1, m, _CMP_GE_OQ);
            /* (counted in every lane: a mask per comparison measured slower than one at the end) */
            const int64_t wrong = sum16((Counts16){_mm512_maskz_mov_epi64(relevant_low, c.low),
                                                   _mm512_maskz_mov_epi64(relevant_high, c.high)});
            const int64_t pairs = n_relevant * (m - n_relevant);
            out[i] = (double)wrong / (double)(pairs > 1 ? pairs : 1);
        }
    }
    *finite = all_finite;
    return zeros_and_ones;
}

/* A row's average precision terms (ranking_loop's): per relevant label j, the labels at least as
 * high (rank) and the relevant ones among them (hits), counted at once as rank + 256 * hits (1
 * for each label at least as high, 257 for a relevant one), then hits / rank as doubles (whole
 * numbers: exact); 0.0 for an irrelevant label. */
AVX512 static ALWAYS_INLINE void
precision_terms16(__m512d *low, __m512d *high, const double *restrict row, Row16 r, unsigned bits,
                  int64_t *restrict steps, const Py_ssize_t m)
{
    const __mmask8 relevant_low = (__mmask8)bits, relevant_high = (__mmask8)(bits >> 8);
    const __m512i step = _mm512_set1_epi64(1), relevant_step = _mm512_set1_epi64(257);
    _mm512_storeu_si512(steps, _mm512_mask_mov_epi64(step, relevant_low, relevant_step));
    _mm512_storeu_si512(steps + 8, _mm512_mask_mov_epi64(step, relevant_high, relevant_step));
    const Counts16 c = count16_by(row, steps, r, (1u << m) - 1, m);
    const __m512i byte = _mm512_set1_epi64(255);
    *low = _mm512_maskz_div_pd(relevant_low, _mm512_cvtepi64_pd(_mm512_srli_epi64(c.low, 8)),
                               _mm512_cvtepi64_pd(_mm512_and_si512(c.low, byte)));
    *high = _mm512_maskz_div_pd(relevant_high, _mm512_cvtepi64_pd(_mm512_srli_epi64(c.high, 8)),
                                _mm512_cvtepi64_pd(_mm512_and_si512(c.high, byte)));
}

/* ranking_loop's average precision for rows of up to 16 labels, by precision_terms16: the same
 * terms, summed in the same order. Eight rows at a time, their terms transposed: each row's sum
 * in a lane of its own (a vector addition per label, rather than a chain of dependent scalar
 * ones per row). */
AVX512 static ALWAYS_INLINE int
precision_avx512_loop(double *restrict out, const void *relevant, int relevance_kind, const double *restrict s,
                      Py_ssize_t n, const Py_ssize_t m, int *restrict finite)
{
    int zeros_and_ones = 1, all_finite = 1;
    int64_t steps[16];
    double counts[8], terms[16];
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512d low[8], high[8];
        fetch_rows(s, i + FETCH_AHEAD_ROWS, 8, m * 8);
        fetch_rows(relevant, i + FETCH_AHEAD_ROWS, 8, m * gain_size(relevance_kind));
        for (int b = 0; b < 8; b++) {
            const double *restrict row = s + (i + b) * m;
            const unsigned bits = relevance_bits16(relevant, relevance_kind, i + b, m, &zeros_and_ones);
            const Row16 r = load_row16(row, m);
            all_finite &= finite16(r); /* (the row's values then wrong, but computed as any others) */
            precision_terms16(&low[b], &high[b], row, r, bits, steps, m);
            counts[b] = (double)__builtin_popcount(bits);
        }
        transpose8(low);
        if (m > 8) { /* (a row of at most 8: its second vectors are zeros, never summed) */
            transpose8(high);
        }
        __m512d precision = zero;
        for (Py_ssize_t j = 0; j < m; j++) {
            precision = _mm512_add_pd(precision, j < 8 ? low[j] : high[j - 8]);
        }
        /* precision / max(relevant, 1), plus 1 for a row without a relevant label */
        const __m512d relevant_labels = _mm512_loadu_pd(counts);
        const __m512d value = _mm512_div_pd(precision, _mm512_max_pd(relevant_labels, one));
        const __mmask8 none = _mm512_cmp_pd_mask(relevant_labels, zero, _CMP_EQ_OQ);
        _mm512_storeu_pd(out + i, _mm512_add_pd(value, _mm512_mask_blend_pd(none, zero, one)));
    }
    for (; i < n; i++) { /* (the last rows, one at a time) */
        const double *restrict row = s + i * m;
        const unsigned bits = relevance_bits16(relevant, relevance_kind, i, m, &zeros_and_ones);
        const Row16 r = load_row16(row, m);
        all_finite &= finite16(r);
        __m512d low, high;
        precision_terms16(&low, &high, row, r, bits, steps, m);
        _mm512_storeu_pd(terms, low);
        _mm512_storeu_pd(terms + 8, high);
        double precision = 0.0;
        for (Py_ssize_t j = 0; j < m; j++) {
            precision += terms[j];
        }
        const int n_relevant = __builtin_popcount(bits);
        out[i] = precision / (double)(n_relevant > 1 ? n_relevant : 1) + (n_relevant == 0 ? 1.0 : 0.0);
    }
    *finite = all_finite;
    return zeros_and_ones;
}

/* Whether every relevance was 0 or 1; `finite`: whether every score was finite (finite_all's pass
 * fused). */
AVX512 static int
ranking_avx512(double *out, const void *relevant, int relevance_kind, const double *s, int kind, Py_ssize_t n,
               Py_ssize_t m, int *finite)
{
#define PRECISION_AVX512_LOOP(width) precision_avx512_loop(out, relevant, relevance_kind, s, n, width, finite)
#define LOSS_AVX512_LOOP(width) \
    ranking_avx512_loop(out, relevant, relevance_kind, s, LABEL_RANKING_LOSS, n, width, finite)
#define COVERAGE_AVX512_LOOP(width) \
    ranking_avx512_loop(out, relevant, relevance_kind, s, COVERAGE_ERROR, n, width, finite)
    if (kind == COVERAGE_ERROR) {
        WIDE_CASES(COVERAGE_AVX512_LOOP, m)
    }
    if (kind == LABEL_RANKING_AVERAGE_PRECISION) {
        WIDE_CASES(PRECISION_AVX512_LOOP, m)
    }
    WIDE_CASES(LOSS_AVX512_LOOP, m)
#undef COVERAGE_AVX512_LOOP
#undef PRECISION_AVX512_LOOP
#undef LOSS_AVX512_LOOP
}
#endif

VECTOR_CLONES static int
ranking_all(double *out, const void *relevant, int relevance_kind, const double *s, int kind, Py_ssize_t n,
            Py_ssize_t m)
{
    int valid = 1;
#define COVERAGE_LOOP(width) valid = ranking_loop(out, relevant, relevance_kind, s, COVERAGE_ERROR, n, width)
#define PRECISION_LOOP(width) \
    valid = ranking_loop(out, relevant, relevance_kind, s, LABEL_RANKING_AVERAGE_PRECISION, n, width)
#define LOSS_LOOP(width) valid = ranking_loop(out, relevant, relevance_kind, s, LABEL_RANKING_LOSS, n, width)
    if (kind == COVERAGE_ERROR) {
        BY_SHORT_WIDTH(COVERAGE_LOOP, m)
    }
    else if (kind == LABEL_RANKING_AVERAGE_PRECISION) {
        BY_SHORT_WIDTH(PRECISION_LOOP, m)
    }
    else {
        BY_SHORT_WIDTH(LOSS_LOOP, m)
    }
#undef COVERAGE_LOOP
#undef PRECISION_LOOP
#undef LOSS_LOOP
    return valid;
}

PyDoc_STRVAR(label_ranking_rows_doc,
"label_ranking_rows(kind, relevant, scores, out, n, m) -> int\n--\n\n"
"One value per row of m labels: kind 0 the coverage error, 1 the label ranking average precision,\n"
"2 the label ranking loss (scikit-learn's definitions). relevant: n * m float64, int64, int32, uint8\n"
"or bool; scores: n * m float64; out: n float64. Returns 0 when out holds the values; 1 where a\n"
"relevance is not 0 or 1, else 2 where a score is not finite (out then holds no values).");

static PyObject *
label_ranking_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "label_ranking_rows: expected 6 arguments (kind, relevant, scores, out, n, m)");
        return NULL;
    }
    long kind = PyLong_AsLong(args[0]);
    Py_ssize_t n = PyLong_AsSsize_t(args[4]), m = PyLong_AsSsize_t(args[5]);
    if (PyErr_Occurred() || check_rows(n, m) < 0) {
        return NULL;
    }
    if (kind < COVERAGE_ERROR || kind > LABEL_RANKING_LOSS) {
        PyErr_Format(PyExc_ValueError, "kind: expected 0, 1 or 2, found %ld", kind);
        return NULL;
    }
    Held held[3];
    memset(held, 0, sizeof held);
    if (PyObject_GetBuffer(args[1], &held[0].view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0
        || (held[0].held = 1, 0)
        || hold(args[2], &held[1], "d", n * m, 0, "scores") < 0
        || hold(args[3], &held[2], "d", n, 1, "out") < 0) {
        release_all(held, 3);
        return NULL;
    }
    int relevance_kind = gain_kind(&held[0].view);
    if (relevance_kind < 0 || held[0].view.len != n * m * held[0].view.itemsize) {
        PyErr_Format(PyExc_ValueError, "relevant: expected %zd float64, int64, int32, uint8 or bool items", n * m);
        release_all(held, 3);
        return NULL;
    }
    int valid, finite = 1;
    Py_BEGIN_ALLOW_THREADS
#ifdef AVX512_ROWS
    const Py_ssize_t narrowest = kind == COVERAGE_ERROR ? AVX512_NARROWEST_COVERAGE : AVX512_NARROWEST_RANKING;
    if (use_avx512 && m >= narrowest && m <= 16) {
        valid = ranking_avx512(held[2].view.buf, held[0].view.buf, relevance_kind, held[1].view.buf, (int)kind, n, m,
                               &finite);
    }
    else
#endif
    {
        /* (a score that is not finite gives wrong values, never a read outside the tables) */
        valid = ranking_all(held[2].view.buf, held[0].view.buf, relevance_kind, held[1].view.buf, (int)kind, n, m);
        finite = finite_all(held[1].view.buf, n * m);
    }
    Py_END_ALLOW_THREADS
    release_all(held, 3);
    /* (the relevances first: the NumPy formulas read them first) */
    return PyLong_FromLong(!valid ? ROWS_BAD_RELEVANCE : !finite ? ROWS_NOT_FINITE : ROWS_WRITTEN);
}

/* ---------------------------------------------------------------------------- Jensen-Shannon */

VECTOR_CLONES static void
scale_all(double *restrict a, const double *restrict num, const double *restrict den, Py_ssize_t n, Py_ssize_t k)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        const double factor = num[i] / den[i];
        for (Py_ssize_t j = 0; j < k; j++) {
            a[i * k + j] *= factor;
        }
    }
}

PyDoc_STRVAR(scale_rows_doc,
"scale_rows(a, num, den, n, k)\n--\n\n"
"a[i, :] *= num[i] / den[i] in place, for an n * k float64 array a and two n float64 arrays.");

static PyObject *
scale_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "scale_rows: expected 5 arguments (a, num, den, n, k)");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]), k = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (n < 0 || k < 0) {
        PyErr_SetString(PyExc_ValueError, "scale_rows: expected n >= 0 and k >= 0");
        return NULL;
    }
    Held held[3];
    memset(held, 0, sizeof held);
    if (hold(args[0], &held[0], "d", n * k, 1, "a") < 0 || hold(args[1], &held[1], "d", n, 0, "num") < 0
        || hold(args[2], &held[2], "d", n, 0, "den") < 0) {
        release_all(held, 3);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    scale_all(held[0].view.buf, held[1].view.buf, held[2].view.buf, n, k);
    Py_END_ALLOW_THREADS
    release_all(held, 3);
    Py_RETURN_NONE;
}

#define LOG_2 0.693147180559945309417232121458176568

/* 2 JS = sum_j p_j (log 2 - L_j) / P + sum_j q_j (log u_j + log 2 - L_j) / Q, L_j = log1p(u_j):
 * rowlosses._js_by_ratios' products and sums, in its order, one row at a time. */
VECTOR_CLONES static void
js_all(double *restrict out, const double *restrict p, const double *restrict q, const double *restrict log1p_u,
       const double *restrict log_u, const double *restrict total_p, const double *restrict total_q, Py_ssize_t n,
       Py_ssize_t k)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        double first = 0.0, second = 0.0;
        for (Py_ssize_t j = 0; j < k; j++) {
            const Py_ssize_t x = i * k + j;
            const double log_p_over_m = LOG_2 - log1p_u[x];
            first += log_p_over_m * p[x];
            second += (log_u[x] + log_p_over_m) * q[x];
        }
        out[i] = (first / total_p[i] + second / total_q[i]) * 0.5;
    }
}

PyDoc_STRVAR(js_sums_doc,
"js_sums(p, q, log1p_u, log_u, total_p, total_q, out, n, k)\n--\n\n"
"out[i] = (sum_j p_ij (log 2 - log1p_u_ij) / total_p[i]\n"
"          + sum_j q_ij (log_u_ij + log 2 - log1p_u_ij) / total_q[i]) / 2:\n"
"the Jensen-Shannon divergence of row i from the logarithms of its ratios u (n * k float64 arrays).");

static PyObject *
js_sums(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError,
                        "js_sums: expected 9 arguments (p, q, log1p_u, log_u, total_p, total_q, out, n, k)");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[7]), k = PyLong_AsSsize_t(args[8]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (n < 0 || k < 0) {
        PyErr_SetString(PyExc_ValueError, "js_sums: expected n >= 0 and k >= 0");
        return NULL;
    }
    static const char *names[] = {"p", "q", "log1p_u", "log_u", "total_p", "total_q", "out"};
    Held held[7];
    memset(held, 0, sizeof held);
    for (int a = 0; a < 7; a++) {
        if (hold(args[a], &held[a], "d", a < 4 ? n * k : n, a == 6, names[a]) < 0) {
            release_all(held, 7);
            return NULL;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    js_all(held[6].view.buf, held[0].view.buf, held[1].view.buf, held[2].view.buf, held[3].view.buf,
           held[4].view.buf, held[5].view.buf, n, k);
    Py_END_ALLOW_THREADS
    release_all(held, 7);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------- pair sums */

/* The pooled regression losses whose batch sums are made here, one output and unweighted
 * (streammetrics/regression/rowlosses.py): each value by its NumPy formula's operations, in their
 * order, and the sum by NumPy's pairwise summation (numpy's `pairwise_sum`: eight accumulators
 * over blocks of up to 128 values, blocks halved at multiples of 8), so the sum is that of the
 * values' column sum there, bit for bit; in one pass over the two arrays, where NumPy makes five
 * to seven. (Minkowski's NumPy path sums by BLAS dot products instead: a few units in the last
 * place apart.) WMAPE's two sums are two calls (a fused loop measured slower). */
enum pair_loss { PAIR_SMAPE, PAIR_ABSOLUTE, PAIR_MAGNITUDE, PAIR_SQUARE, PAIR_CUBE, PAIR_FOURTH };

/* One value of a pair loss. */
static ALWAYS_INLINE double
pair_loss(const int kind, double t, double p, double eps)
{
    switch (kind) {
    case PAIR_SMAPE: {
        double d = fabs(p - t), scale = fabs(t) + fabs(p);
        scale = scale < eps ? eps : scale; /* (np.maximum: a NaN stays) */
        d = d + d;
        return d / scale;
    }
    case PAIR_ABSOLUTE:
        return fabs(p - t);
    case PAIR_MAGNITUDE:
        return fabs(t);
    case PAIR_SQUARE: {
        const double d = p - t;
        return d * d;
    }
    case PAIR_CUBE: {
        const double d = p - t;
        return (d * d) * fabs(d);
    }
    default: {
        const double d = p - t, square = d * d;
        return square * square;
    }
    }
}

/* The sum of a block of at most 128 values (numpy's pairwise_sum of such a block). */
static ALWAYS_INLINE double
pair_block_of(const double *restrict t, const double *restrict p, Py_ssize_t n, const int kind, double eps)
{
    double total = 0.0;
    if (n < 8) {
        for (Py_ssize_t i = 0; i < n; i++) {
            total += pair_loss(kind, t[i], p[i], eps);
        }
        return total;
    }
    double r[8];
    for (int j = 0; j < 8; j++) {
        r[j] = pair_loss(kind, t[j], p[j], eps);
    }
    Py_ssize_t i = 8;
    for (; i < n - (n % 8); i += 8) {
        for (int j = 0; j < 8; j++) {
            r[j] += pair_loss(kind, t[i + j], p[i + j], eps);
        }
    }
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) {
        total += pair_loss(kind, t[i], p[i], eps);
    }
    return total;
}

VECTOR_CLONES static double
pair_block(const double *restrict t, const double *restrict p, Py_ssize_t n, int kind, double eps)
{
    switch (kind) {
    case PAIR_SMAPE: return pair_block_of(t, p, n, PAIR_SMAPE, eps);
    case PAIR_ABSOLUTE: return pair_block_of(t, p, n, PAIR_ABSOLUTE, eps);
    case PAIR_MAGNITUDE: return pair_block_of(t, p, n, PAIR_MAGNITUDE, eps);
    case PAIR_SQUARE: return pair_block_of(t, p, n, PAIR_SQUARE, eps);
    case PAIR_CUBE: return pair_block_of(t, p, n, PAIR_CUBE, eps);
    default: return pair_block_of(t, p, n, PAIR_FOURTH, eps);
    }
}

/* numpy's pairwise_sum above the blocks: the two halves' sums added. */
static double
pair_sum_of(const double *t, const double *p, Py_ssize_t n, int kind, double eps)
{
    if (n <= 128) {
        return pair_block(t, p, n, kind, eps);
    }
    Py_ssize_t half = n / 2;
    half -= half % 8;
    return pair_sum_of(t, p, half, kind, eps) + pair_sum_of(t + half, p + half, n - half, kind, eps);
}

PyDoc_STRVAR(pair_sum_doc,
"pair_sum(kind, yt, yp, eps, n) -> float\n--\n\n"
"The sum of a pair loss over two n float64 arrays, by NumPy's pairwise summation: kind 0 SMAPE\n"
"(2 |p - t| / max(|t| + |p|, eps)), 1 |p - t|, 2 |t|, 3, 4, 5 the Minkowski terms |p - t| ** 2,\n"
"3, 4 (products, as the NumPy formulas).");

static PyObject *
pair_sum(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "pair_sum: expected 5 arguments (kind, yt, yp, eps, n)");
        return NULL;
    }
    const long kind = PyLong_AsLong(args[0]);
    const double eps = PyFloat_AsDouble(args[3]);
    const Py_ssize_t n = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (kind < PAIR_SMAPE || kind > PAIR_FOURTH || n < 0) {
        PyErr_SetString(PyExc_ValueError, "pair_sum: expected kind 0 to 5 and n >= 0");
        return NULL;
    }
    Held held[2];
    memset(held, 0, sizeof held);
    if (hold(args[1], &held[0], "d", n, 0, "yt") < 0 || hold(args[2], &held[1], "d", n, 0, "yp") < 0) {
        release_all(held, 2);
        return NULL;
    }
    double total;
    Py_BEGIN_ALLOW_THREADS
    total = pair_sum_of(held[0].view.buf, held[1].view.buf, n, (int)kind, eps);
    Py_END_ALLOW_THREADS
    release_all(held, 2);
    return PyFloat_FromDouble(total);
}

/* ---------------------------------------------------------------------------- cosine */

/* Each row's sums of squares a (of yt) and b (of yp) and of products c, sequentially; the
 * cosine c / (sqrt(a) sqrt(b)) and the product of the norms. Returns whether every a and b lies
 * strictly between lo and hi (false for a NaN), and stops at the first row that does not. */
VECTOR_CLONES static int
cosine_all(double *restrict cosine, double *restrict norms, const double *restrict yt, const double *restrict yp,
           Py_ssize_t n, Py_ssize_t d, double lo, double hi)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        double a = 0.0, b = 0.0, c = 0.0;
        for (Py_ssize_t j = 0; j < d; j++) {
            const double x = yt[i * d + j], y = yp[i * d + j];
            a += x * x;
            b += y * y;
            c += x * y;
        }
        if (!(a > lo && a < hi && b > lo && b < hi)) {
            return 0;
        }
        const double norm = sqrt(a) * sqrt(b);
        norms[i] = norm;
        cosine[i] = c / norm;
    }
    return 1;
}

PyDoc_STRVAR(cosine_rows_doc,
"cosine_rows(yt, yp, cosine, norms, n, d, lo, hi) -> bool\n--\n\n"
"For two n * d float64 arrays: each row's sums of squares a, b and of products c (sequential), then\n"
"norms[i] = sqrt(a) * sqrt(b) and cosine[i] = c / norms[i]. False (the outputs partly written) as\n"
"soon as a row's a or b is not strictly between lo and hi (NaN included); True otherwise.");

static PyObject *
cosine_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "cosine_rows: expected 8 arguments (yt, yp, cosine, norms, n, d, lo, hi)");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[4]), d = PyLong_AsSsize_t(args[5]);
    double lo = PyFloat_AsDouble(args[6]), hi = PyFloat_AsDouble(args[7]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (n < 0 || d < 0) {
        PyErr_SetString(PyExc_ValueError, "cosine_rows: expected n >= 0 and d >= 0");
        return NULL;
    }
    static const char *names[] = {"yt", "yp", "cosine", "norms"};
    Held held[4];
    memset(held, 0, sizeof held);
    for (int a = 0; a < 4; a++) {
        if (hold(args[a], &held[a], "d", a < 2 ? n * d : n, a >= 2, names[a]) < 0) {
            release_all(held, 4);
            return NULL;
        }
    }
    int safe;
    Py_BEGIN_ALLOW_THREADS
    safe = cosine_all(held[2].view.buf, held[3].view.buf, held[0].view.buf, held[1].view.buf, n, d, lo, hi);
    Py_END_ALLOW_THREADS
    release_all(held, 4);
    return PyBool_FromLong(safe);
}

/* ---------------------------------------------------------------------------- CRPS */

/* The CRPS of an ensemble forecast x_1 .. x_m of y: sum_j |x_j - y| / m (in member order) less
 * 2 sum_p (2p - m + 1) x_(p) / (2 m^2) over the members sorted increasingly (each member's position:
 * the members below it, and those equal and earlier; branch-free, no sort), as
 * regression/rowlosses.py's CRPS: the same operations, the sum over positions sequential. */
static ALWAYS_INLINE void
crps_loop(double *restrict out, const double *restrict yt, const double *restrict yp, Py_ssize_t n,
          const Py_ssize_t m)
{
    double sorted[MAX_ROW] = {0}; /* (zeroed once: quiets a warning) */
    const double squares = 2.0 * (double)m * (double)m;
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *restrict x = yp + i * m;
        const double y = yt[i];
        double spread = 0.0;
        for (Py_ssize_t j = 0; j < m; j++) {
            spread += fabs(x[j] - y);
            Py_ssize_t position = 0; /* (0 to m - 1 whatever the values, NaN included) */
            for (Py_ssize_t l = 0; l < m; l++) {
                position += (x[l] < x[j]) | ((x[l] == x[j]) & (l < j));
            }
            sorted[position] = x[j];
        }
        spread /= (double)m;
        double ranked = 0.0;
        for (Py_ssize_t p = 0; p < m; p++) {
            ranked += (2.0 * (double)p - (double)m + 1.0) * sorted[p];
        }
        ranked *= 2.0;
        ranked /= squares;
        out[i] = spread - ranked;
    }
}

VECTOR_CLONES static void
crps_all(double *out, const double *yt, const double *yp, Py_ssize_t n, Py_ssize_t m)
{
#define CRPS_LOOP(width) crps_loop(out, yt, yp, n, width)
    BY_WIDTH_OR_8(CRPS_LOOP, m)
#undef CRPS_LOOP
}

PyDoc_STRVAR(crps_rows_doc,
"crps_rows(yt, yp, out, n, m)\n--\n\n"
"out[i] = the CRPS of the ensemble yp[i, :] (n * m float64, 2 <= m <= 32) for the observation yt[i]\n"
"(n float64): sum_j |x_j - y| / m - 2 sum_p (2p - m + 1) x_(p) / (2 m^2). An inf or NaN makes its\n"
"row's value non-finite.");

static PyObject *
crps_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "crps_rows: expected 5 arguments (yt, yp, out, n, m)");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]), m = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred() || check_rows(n, m) < 0) {
        return NULL;
    }
    Held held[3];
    memset(held, 0, sizeof held);
    if (hold(args[0], &held[0], "d", n, 0, "yt") < 0 || hold(args[1], &held[1], "d", n * m, 0, "yp") < 0
        || hold(args[2], &held[2], "d", n, 1, "out") < 0) {
        release_all(held, 3);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    crps_all(held[2].view.buf, held[0].view.buf, held[1].view.buf, n, m);
    Py_END_ALLOW_THREADS
    release_all(held, 3);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------- moments */

/* The per-value terms of moments_1d's sums: one series (y_true, y_pred or their residual) less
 * its shift, less its mean once known; the weight applied last, as regression/moments.py does. */
enum series { TRUE_VALUES, PRED_VALUES, RESIDUALS };

typedef struct {
    const double *yt, *yp, *w;
    int series[3];     /* the series of the moment rows, in order */
    double shift[3], mean[3];
    int stage;         /* what term(i) gives: see term() */
    int row, other;    /* the moment row(s) the stage reads */
} Terms;

static ALWAYS_INLINE double
series_value(const Terms *t, int series, Py_ssize_t i)
{
    return series == TRUE_VALUES ? t->yt[i] : series == PRED_VALUES ? t->yp[i] : t->yt[i] - t->yp[i];
}

enum stage { WEIGHT, DEVIATION, SQUARE, CROSS_PRODUCT, ABSOLUTE, RELATIVE };

static ALWAYS_INLINE double
term(const Terms *t, Py_ssize_t i)
{
    double x;
    switch (t->stage) {
    case WEIGHT:
        return t->w[i];
    case DEVIATION:
        x = series_value(t, t->series[t->row], i) - t->shift[t->row];
        break;
    case SQUARE: {
        const double d = series_value(t, t->series[t->row], i) - t->shift[t->row] - t->mean[t->row];
        x = d * d;
        break;
    }
    case CROSS_PRODUCT: {
        const double a = series_value(t, t->series[t->row], i) - t->shift[t->row] - t->mean[t->row];
        const double b = series_value(t, t->series[t->other], i) - t->shift[t->other] - t->mean[t->other];
        x = a * b;
        break;
    }
    case ABSOLUTE:
        x = fabs(t->yt[i] - t->yp[i]);
        break;
    default: { /* RELATIVE: |residual| / max(|y_true|, eps) */
        const double scale = fabs(t->yt[i]);
        x = fabs(t->yt[i] - t->yp[i]) / (scale > DBL_EPSILON ? scale : DBL_EPSILON);
    }
    }
    return t->w ? x * t->w[i] : x;
}

/* Pairwise summation of term(lo) .. term(hi - 1), NumPy's blocking (eight partial sums over
 * blocks of at most 128 terms, halves above): its accuracy, not its exact bits. */
static double
pairwise(const Terms *t, Py_ssize_t lo, Py_ssize_t hi)
{
    const Py_ssize_t n = hi - lo;
    if (n < 8) {
        double total = 0.0;
        for (Py_ssize_t i = lo; i < hi; i++) {
            total += term(t, i);
        }
        return total;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; j++) {
            r[j] = term(t, lo + j);
        }
        Py_ssize_t i = lo + 8;
        for (; i + 8 <= hi; i += 8) {
            for (int j = 0; j < 8; j++) {
                r[j] += term(t, i + j);
            }
        }
        double total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < hi; i++) {
            total += term(t, i);
        }
        return total;
    }
    Py_ssize_t half = n / 2;
    half -= half % 8;
    return pairwise(t, lo, lo + half) + pairwise(t, lo + half, hi);
}

PyDoc_STRVAR(moments_1d_doc,
"moments_1d(yt, yp, w, series, shift, cross, sum_abs, sum_ape, out, n) -> int\n--\n\n"
"regression/moments.py's moments of one chunk of n float64 values (1-D yt, yp; w None or n float64\n"
"weights): for each of the series (a tuple of 0 y_true, 1 y_pred, 2 the residual) relative to its\n"
"shift (a buffer of one value per series, or None: the first weighted row's values), the weighted\n"
"mean and sum of squared deviations; the cross moment of the first two series (cross), the sum of\n"
"|residual| (sum_abs) and of |residual| / max(|y_true|, eps) (sum_ape). Written to out (float64):\n"
"[total weight, shifts, means, m2s, cross, sum_abs, sum_ape]. Returns 0 (no positive weight, out\n"
"holds nothing), 1 (written) or 2 (a mean is not finite: a difference overflowed).");

static PyObject *
moments_1d(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError,
                        "moments_1d: expected 10 arguments (yt, yp, w, series, shift, cross, sum_abs, sum_ape, out, n)");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[9]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (n < 1 || !PyTuple_Check(args[3]) || PyTuple_GET_SIZE(args[3]) < 1 || PyTuple_GET_SIZE(args[3]) > 3) {
        PyErr_SetString(PyExc_ValueError, "moments_1d: expected n >= 1 and a tuple of 1 to 3 series");
        return NULL;
    }
    Terms t;
    memset(&t, 0, sizeof t);
    const int rows = (int)PyTuple_GET_SIZE(args[3]);
    for (int r = 0; r < rows; r++) {
        long code = PyLong_AsLong(PyTuple_GET_ITEM(args[3], r));
        if (PyErr_Occurred() || code < TRUE_VALUES || code > RESIDUALS) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "moments_1d: series: expected 0, 1 or 2");
            return NULL;
        }
        t.series[r] = (int)code;
    }
    const int cross = PyObject_IsTrue(args[5]), want_abs = PyObject_IsTrue(args[6]),
              want_ape = PyObject_IsTrue(args[7]);
    if (cross < 0 || want_abs < 0 || want_ape < 0) {
        return NULL;
    }
    if (cross && rows < 2) {
        PyErr_SetString(PyExc_ValueError, "moments_1d: cross: expected two series or more");
        return NULL;
    }
    Held held[5];
    memset(held, 0, sizeof held);
    const int weighted = args[2] != Py_None, shifted = args[4] != Py_None;
    if (hold(args[0], &held[0], "d", n, 0, "yt") < 0 || hold(args[1], &held[1], "d", n, 0, "yp") < 0
        || (weighted && hold(args[2], &held[2], "d", n, 0, "w") < 0)
        || (shifted && hold(args[4], &held[3], "d", rows, 0, "shift") < 0)
        || hold(args[8], &held[4], "d", 3 * rows + 4, 1, "out") < 0) {
        release_all(held, 5);
        return NULL;
    }
    t.yt = held[0].view.buf;
    t.yp = held[1].view.buf;
    t.w = weighted ? held[2].view.buf : NULL;
    double *out = held[4].view.buf;
    int status = 1;
    Py_BEGIN_ALLOW_THREADS
    double total = (double)n;
    Py_ssize_t first = 0;
    if (weighted) {
        t.stage = WEIGHT;
        total = pairwise(&t, 0, n);
        while (first < n && !(t.w[first] > 0)) {
            first++;
        }
    }
    if (!(total > 0)) {
        status = 0;
    }
    else {
        for (int r = 0; r < rows; r++) {
            t.shift[r] = shifted ? ((const double *)held[3].view.buf)[r] : series_value(&t, t.series[r], first);
        }
        for (int r = 0; r < rows; r++) {
            t.stage = DEVIATION;
            t.row = r;
            t.mean[r] = pairwise(&t, 0, n) / total;
            if (!isfinite(t.mean[r])) {
                status = 2;
            }
        }
        if (status == 1) {
            out[0] = total;
            for (int r = 0; r < rows; r++) {
                out[1 + r] = t.shift[r];
                out[1 + rows + r] = t.mean[r];
                t.stage = SQUARE;
                t.row = r;
                out[1 + 2 * rows + r] = pairwise(&t, 0, n);
            }
            double *extra = out + 1 + 3 * rows;
            extra[0] = extra[1] = extra[2] = 0.0;
            if (cross) {
                t.stage = CROSS_PRODUCT;
                t.row = 0;
                t.other = 1;
                extra[0] = pairwise(&t, 0, n);
            }
            if (want_abs) {
                t.stage = ABSOLUTE;
                extra[1] = pairwise(&t, 0, n);
            }
            if (want_ape) {
                t.stage = RELATIVE;
                extra[2] = pairwise(&t, 0, n);
            }
        }
    }
    Py_END_ALLOW_THREADS
    release_all(held, 5);
    return PyLong_FromLong(status);
}

/* ---------------------------------------------------------------------------- module */

static PyMethodDef rowkernels_methods[] = {
    {"all_finite", (PyCFunction)(void (*)(void))all_finite, METH_FASTCALL, all_finite_doc},
    {"dcg_rows", (PyCFunction)(void (*)(void))dcg_rows, METH_FASTCALL, dcg_rows_doc},
    {"ndcg_rows", (PyCFunction)(void (*)(void))ndcg_rows, METH_FASTCALL, ndcg_rows_doc},
    {"ideal_dcg_rows", (PyCFunction)(void (*)(void))ideal_dcg_rows, METH_FASTCALL, ideal_dcg_rows_doc},
    {"label_ranking_rows", (PyCFunction)(void (*)(void))label_ranking_rows, METH_FASTCALL,
     label_ranking_rows_doc},
    {"scale_rows", (PyCFunction)(void (*)(void))scale_rows, METH_FASTCALL, scale_rows_doc},
    {"js_sums", (PyCFunction)(void (*)(void))js_sums, METH_FASTCALL, js_sums_doc},
    {"pair_sum", (PyCFunction)(void (*)(void))pair_sum, METH_FASTCALL, pair_sum_doc},
    {"cosine_rows", (PyCFunction)(void (*)(void))cosine_rows, METH_FASTCALL, cosine_rows_doc},
    {"moments_1d", (PyCFunction)(void (*)(void))moments_1d, METH_FASTCALL, moments_1d_doc},
    {"crps_rows", (PyCFunction)(void (*)(void))crps_rows, METH_FASTCALL, crps_rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef rowkernels_module = {
    PyModuleDef_HEAD_INIT,
    "_rowkernels",
    "Per-row kernels of the row-value metrics (optional; NumPy formulas otherwise).",
    -1,
    rowkernels_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__rowkernels(void)
{
    use_avx512 = avx512_wanted();
    PyObject *module = PyModule_Create(&rowkernels_module);
    if (module != NULL && PyModule_AddIntConstant(module, "AVX512", use_avx512) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
