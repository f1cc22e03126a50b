/*
 * The Kullback-Leibler and Jensen-Shannon divergences of rows of non-negative weights
 * (streammetrics/classification/rowlosses.py: _kl_of_weights, _js_by_ratios), and Jensen-Shannon
 * of rows of log-probabilities (_js_rows of their exponentials), in one pass over the two arrays,
 * compiled (optional: the NumPy formulas compute the same values otherwise).
 *
 * The NumPy formulas make seven to ten passes over batch-sized arrays (minimum, row sums,
 * quotients, logarithms, products, sums); at 100,000 rows of 5 classes they wait on memory more
 * than they compute. Here eight rows are read at a time and transposed in registers, each of
 * their columns one AVX-512 vector (four rows and AVX2 vectors on CPUs without AVX-512, or where
 * STREAMMETRICS_NO_AVX512 is set), so a row's sums are one lane of vector additions, and every
 * quotient, logarithm and product stays in registers. The elementwise operations are the NumPy
 * formulas', in their order, and a row's sums are sequential (BLAS's order there). The
 * logarithms are glibc's vector ones (libmvec's `log` and `log1p` of eight or four doubles,
 * within 2 units in the last place), loaded at import: where they are not found, or the CPU has
 * neither AVX-512 nor AVX2, VECTOR_LOGS is 0 and the NumPy formulas run.
 *
 * A kernel checks what the NumPy formulas check (every weight non-negative, each row's sums
 * positive and finite) and reports a batch that fails: the caller then runs the NumPy formulas,
 * which name what is wrong. A row with a zero weight, or a quotient beyond the float range,
 * comes out NaN or infinite, as there; the caller computes those rows otherwise.
 */
#include "_kernels.h"

#if defined(AVX512_ROWS) && defined(__GLIBC__)
#define DIVERGENCE_LOOPS 1
#include <dlfcn.h>
#endif

/* The widest rows the kernels take (columns held in registers, or spilled next to them). */
#define MAX_COLUMNS 16

#define LOG_2 0.693147180559945309417232121458176568

/* KL and JS of weights; JS of log-probabilities (torchmetrics' log_prob: the rows as they are,
 * every finite value taken). */
enum divergence { KULLBACK_LEIBLER = 0, JENSEN_SHANNON = 1, JENSEN_SHANNON_OF_LOGS = 2 };
/* What a kernel returns: every row written, or a batch the NumPy formulas must check. */
enum status { WRITTEN = 0, REFUSED = 1 };

/* Set at import: the rows the kernels take at a time, 8 (AVX-512) or 4 (AVX2), with libmvec's
 * logarithms of as many doubles; 0 where they do not run. */
static int vector_width = 0;

#ifdef DIVERGENCE_LOOPS

#define AVX2 __attribute__((target("avx2")))

/* libmvec's AVX-512 and AVX2 variants (the x86-64 vector function ABI: eight or four doubles in,
 * as many out). */
typedef __m512d (*Vector8)(__m512d);
typedef __m256d (*Vector4)(__m256d);
static Vector8 vector_log8 = NULL, vector_log1p8 = NULL, vector_exp8 = NULL;
static Vector4 vector_log4 = NULL, vector_log1p4 = NULL, vector_exp4 = NULL;

/* libmvec's log, log1p and exp, found by name (glibc 2.35 and later ship both), for the widest vectors
 * the CPU has (AVX-512 unless STREAMMETRICS_NO_AVX512 is set, else AVX2); the library stays
 * loaded for the process's life. The width, or 0. */
static int
load_vector_logs(void)
{
    void *library = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        return 0;
    }
    if (avx512_wanted()) {
        vector_log8 = (Vector8)dlsym(library, "_ZGVeN8v_log");
        vector_log1p8 = (Vector8)dlsym(library, "_ZGVeN8v_log1p");
        vector_exp8 = (Vector8)dlsym(library, "_ZGVeN8v_exp");
        if (vector_log8 != NULL && vector_log1p8 != NULL && vector_exp8 != NULL) {
            return 8;
        }
    }
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        vector_log4 = (Vector4)dlsym(library, "_ZGVdN4v_log");
        vector_log1p4 = (Vector4)dlsym(library, "_ZGVdN4v_log1p");
        vector_exp4 = (Vector4)dlsym(library, "_ZGVdN4v_exp");
        if (vector_log4 != NULL && vector_log1p4 != NULL && vector_exp4 != NULL) {
            return 4;
        }
    }
    dlclose(library);
    return 0;
}

/* Eight rows' k columns (k up to 16, a constant in each copy): row r's entries loaded into
 * vector r (masked: nothing read past the row; a row past the batch's last, zeros), then
 * transposed, so that vector j holds entry j of each row. Contiguous loads: gathering the
 * columns from memory the batch had not yet brought to the cache ran at half the speed. */
AVX512 static ALWAYS_INLINE void
columns8(__m512d columns[MAX_COLUMNS], const double *restrict rows, __mmask8 live, const Py_ssize_t k)
{
    __m512d low[8], high[8];
    for (int r = 0; r < 8; r++) {
        const int here = (live >> r) & 1;
        low[r] = _mm512_maskz_loadu_pd(here ? LOW_LANES(k) : 0, rows + r * k);
        if (k > 8) {
            high[r] = _mm512_maskz_loadu_pd(here ? HIGH_LANES(k) : 0, rows + r * k + 8);
        }
    }
    transpose8(low);
    for (int j = 0; j < 8; j++) {
        columns[j] = low[j];
    }
    if (k > 8) {
        transpose8(high);
        for (int j = 0; j < 8; j++) {
            columns[8 + j] = high[j];
        }
    }
}

/* Whether every lane of `total` lies strictly between 0 and infinity (false for NaN). */
AVX512 static ALWAYS_INLINE __mmask8
positive_finite(__m512d total)
{
    return _mm512_cmp_pd_mask(total, _mm512_setzero_pd(), _CMP_GT_OQ)
           & _mm512_cmp_pd_mask(total, _mm512_set1_pd(INFINITY), _CMP_LT_OQ);
}

/* 2 JS = sum_j p_j (log 2 - log1p u_j) / P + sum_j q_j (log u_j + log 2 - log1p u_j) / Q, with
 * u_j = (q_j / p_j) (P / Q): _js_by_ratios' operations, in its order. */
AVX512 static ALWAYS_INLINE __m512d
jensen_shannon8(const __m512d *pc, const __m512d *qc, __m512d total_p, __m512d total_q, Py_ssize_t k)
{
    const __m512d factor = _mm512_div_pd(total_p, total_q), log_2 = _mm512_set1_pd(LOG_2);
    __m512d first = _mm512_setzero_pd(), second = _mm512_setzero_pd();
    for (Py_ssize_t j = 0; j < k; j++) {
        const __m512d u = _mm512_mul_pd(_mm512_div_pd(qc[j], pc[j]), factor);
        const __m512d log_p_over_m = _mm512_sub_pd(log_2, vector_log1p8(u));
        first = _mm512_add_pd(first, _mm512_mul_pd(log_p_over_m, pc[j]));
        second = _mm512_add_pd(second, _mm512_mul_pd(_mm512_add_pd(vector_log8(u), log_p_over_m), qc[j]));
    }
    const __m512d both = _mm512_add_pd(_mm512_div_pd(first, total_p), _mm512_div_pd(second, total_q));
    return _mm512_mul_pd(both, _mm512_set1_pd(0.5));
}

/* KL = sum_j p_j log(p_j / q_j) / P + log(Q / P), a term 0 where p_j = 0: _kl_of_weights'
 * operations, in its order. */
AVX512 static ALWAYS_INLINE __m512d
kullback_leibler8(const __m512d *pc, const __m512d *qc, __m512d total_p, __m512d total_q, Py_ssize_t k)
{
    __m512d sum = _mm512_setzero_pd();
    for (Py_ssize_t j = 0; j < k; j++) {
        const __m512d terms = _mm512_mul_pd(vector_log8(_mm512_div_pd(pc[j], qc[j])), pc[j]);
        const __mmask8 held = _mm512_cmp_pd_mask(pc[j], _mm512_setzero_pd(), _CMP_GT_OQ);
        sum = _mm512_add_pd(sum, _mm512_maskz_mov_pd(held, terms));
    }
    return _mm512_add_pd(_mm512_div_pd(sum, total_p), vector_log8(_mm512_div_pd(total_q, total_p)));
}

/* JS of log-probabilities a, b: p = exp(a), q = exp(b), m = (p + q) / 2, then
 * (sum_j p_j log(p_j / m_j) + sum_j q_j log(q_j / m_j)) / 2, a term 0 where its p_j (q_j) is 0:
 * _js_rows' operations on the exponentials, in its order. */
AVX512 static ALWAYS_INLINE __m512d
jensen_shannon_of_logs8(const __m512d *a, const __m512d *b, Py_ssize_t k)
{
    const __m512d zero = _mm512_setzero_pd(), two = _mm512_set1_pd(2.0);
    __m512d first = zero, second = zero;
    for (Py_ssize_t j = 0; j < k; j++) {
        const __m512d p = vector_exp8(a[j]), q = vector_exp8(b[j]);
        const __m512d m = _mm512_div_pd(_mm512_add_pd(p, q), two);
        const __m512d to_p = _mm512_mul_pd(vector_log8(_mm512_div_pd(p, m)), p);
        const __m512d to_q = _mm512_mul_pd(vector_log8(_mm512_div_pd(q, m)), q);
        first = _mm512_add_pd(first, _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(p, zero, _CMP_GT_OQ), to_p));
        second = _mm512_add_pd(second, _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(q, zero, _CMP_GT_OQ), to_q));
    }
    return _mm512_mul_pd(_mm512_add_pd(first, second), _mm512_set1_pd(0.5));
}

/* Every row's divergence into out; REFUSED (out partly written) at the first eight rows with a
 * negative or NaN weight, or a row sum that is not positive and finite (weights only: every
 * finite log-probability is taken, the caller having checked them finite). */
AVX512 static ALWAYS_INLINE int
divergence_loop8(double *restrict out, const double *restrict p, const double *restrict q, Py_ssize_t n,
                 const Py_ssize_t k, int kind)
{
    const __m512d zero = _mm512_setzero_pd();
    __m512d pc[MAX_COLUMNS], qc[MAX_COLUMNS];
    for (Py_ssize_t i = 0; i < n; i += 8) {
        const __mmask8 live = n - i >= 8 ? 0xFF : (__mmask8)((1u << (n - i)) - 1);
        __m512d total_p = zero, total_q = zero;
        __mmask8 valid = live;
        fetch_rows(p, i + FETCH_AHEAD_ROWS, 8, k * 8);
        fetch_rows(q, i + FETCH_AHEAD_ROWS, 8, k * 8);
        columns8(pc, p + i * k, live, k);
        columns8(qc, q + i * k, live, k);
        if (kind == JENSEN_SHANNON_OF_LOGS) {
            _mm512_mask_storeu_pd(out + i, live, jensen_shannon_of_logs8(pc, qc, k));
            continue;
        }
        for (Py_ssize_t j = 0; j < k; j++) {
            valid &= _mm512_cmp_pd_mask(pc[j], zero, _CMP_GE_OQ) & _mm512_cmp_pd_mask(qc[j], zero, _CMP_GE_OQ);
            total_p = _mm512_add_pd(total_p, pc[j]);
            total_q = _mm512_add_pd(total_q, qc[j]);
        }
        if ((valid & positive_finite(total_p) & positive_finite(total_q)) != live) {
            return REFUSED;
        }
        const __m512d value = kind == JENSEN_SHANNON ? jensen_shannon8(pc, qc, total_p, total_q, k)
                                                     : kullback_leibler8(pc, qc, total_p, total_q, k);
        _mm512_mask_storeu_pd(out + i, live, value);
    }
    return WRITTEN;
}

/* The same, four rows at a time, for CPUs with AVX2 but not AVX-512 (AVX has no mask registers:
 * the masks are vectors, and the lanes' tests are read with movemask). */

/* The lanes of entries `from` to `from + 3` of a row of k, as maskload's mask (the sign bit). */
AVX2 static ALWAYS_INLINE __m256i
lanes4(Py_ssize_t from, Py_ssize_t k)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(k - from)), _mm256_set_epi64x(3, 2, 1, 0));
}

/* Four vectors of four transposed in place: vector j then holds entry j of each. */
AVX2 static ALWAYS_INLINE void
transpose4(__m256d v[4])
{
    const __m256d low01 = _mm256_unpacklo_pd(v[0], v[1]), high01 = _mm256_unpackhi_pd(v[0], v[1]);
    const __m256d low23 = _mm256_unpacklo_pd(v[2], v[3]), high23 = _mm256_unpackhi_pd(v[2], v[3]);
    v[0] = _mm256_permute2f128_pd(low01, low23, 0x20);
    v[1] = _mm256_permute2f128_pd(high01, high23, 0x20);
    v[2] = _mm256_permute2f128_pd(low01, low23, 0x31);
    v[3] = _mm256_permute2f128_pd(high01, high23, 0x31);
}

/* columns8's for four rows (`live` of them in the batch): each row's entries four at a time,
 * masked, then each block of four transposed. */
AVX2 static ALWAYS_INLINE void
columns4(__m256d columns[MAX_COLUMNS], const double *restrict rows, int live, const Py_ssize_t k)
{
    for (Py_ssize_t from = 0; from < k; from += 4) {
        const __m256i lanes = lanes4(from, k);
        __m256d block[4];
        for (int r = 0; r < 4; r++) {
            block[r] = r < live ? _mm256_maskload_pd(rows + r * k + from, lanes) : _mm256_setzero_pd();
        }
        transpose4(block);
        for (int j = 0; j < 4; j++) {
            columns[from + j] = block[j];
        }
    }
}

/* The lanes of a vector whose comparison holds, as bits. */
#define HOLDS4(a, b, predicate) _mm256_movemask_pd(_mm256_cmp_pd((a), (b), (predicate)))

/* jensen_shannon8's operations on four rows. */
AVX2 static ALWAYS_INLINE __m256d
jensen_shannon4(const __m256d *pc, const __m256d *qc, __m256d total_p, __m256d total_q, Py_ssize_t k)
{
    const __m256d factor = _mm256_div_pd(total_p, total_q), log_2 = _mm256_set1_pd(LOG_2);
    __m256d first = _mm256_setzero_pd(), second = _mm256_setzero_pd();
    for (Py_ssize_t j = 0; j < k; j++) {
        const __m256d u = _mm256_mul_pd(_mm256_div_pd(qc[j], pc[j]), factor);
        const __m256d log_p_over_m = _mm256_sub_pd(log_2, vector_log1p4(u));
        first = _mm256_add_pd(first, _mm256_mul_pd(log_p_over_m, pc[j]));
        second = _mm256_add_pd(second, _mm256_mul_pd(_mm256_add_pd(vector_log4(u), log_p_over_m), qc[j]));
    }
    const __m256d both = _mm256_add_pd(_mm256_div_pd(first, total_p), _mm256_div_pd(second, total_q));
    return _mm256_mul_pd(both, _mm256_set1_pd(0.5));
}

/* kullback_leibler8's operations on four rows. */
AVX2 static ALWAYS_INLINE __m256d
kullback_leibler4(const __m256d *pc, const __m256d *qc, __m256d total_p, __m256d total_q, Py_ssize_t k)
{
    __m256d sum = _mm256_setzero_pd();
    for (Py_ssize_t j = 0; j < k; j++) {
        const __m256d terms = _mm256_mul_pd(vector_log4(_mm256_div_pd(pc[j], qc[j])), pc[j]);
        const __m256d held = _mm256_cmp_pd(pc[j], _mm256_setzero_pd(), _CMP_GT_OQ);
        sum = _mm256_add_pd(sum, _mm256_and_pd(held, terms));
    }
    return _mm256_add_pd(_mm256_div_pd(sum, total_p), vector_log4(_mm256_div_pd(total_q, total_p)));
}

/* jensen_shannon_of_logs8's operations on four rows. */
AVX2 static ALWAYS_INLINE __m256d
jensen_shannon_of_logs4(const __m256d *a, const __m256d *b, Py_ssize_t k)
{
    const __m256d zero = _mm256_setzero_pd(), two = _mm256_set1_pd(2.0);
    __m256d first = zero, second = zero;
    for (Py_ssize_t j = 0; j < k; j++) {
        const __m256d p = vector_exp4(a[j]), q = vector_exp4(b[j]);
        const __m256d m = _mm256_div_pd(_mm256_add_pd(p, q), two);
        const __m256d to_p = _mm256_mul_pd(vector_log4(_mm256_div_pd(p, m)), p);
        const __m256d to_q = _mm256_mul_pd(vector_log4(_mm256_div_pd(q, m)), q);
        first = _mm256_add_pd(first, _mm256_and_pd(_mm256_cmp_pd(p, zero, _CMP_GT_OQ), to_p));
        second = _mm256_add_pd(second, _mm256_and_pd(_mm256_cmp_pd(q, zero, _CMP_GT_OQ), to_q));
    }
    return _mm256_mul_pd(_mm256_add_pd(first, second), _mm256_set1_pd(0.5));
}

/* divergence_loop8, four rows at a time. */
AVX2 static ALWAYS_INLINE int
divergence_loop4(double *restrict out, const double *restrict p, const double *restrict q, Py_ssize_t n,
                 const Py_ssize_t k, int kind)
{
    const __m256d zero = _mm256_setzero_pd(), infinity = _mm256_set1_pd(HUGE_VAL);
    __m256d pc[MAX_COLUMNS], qc[MAX_COLUMNS];
    for (Py_ssize_t i = 0; i < n; i += 4) {
        const int live = n - i >= 4 ? 4 : (int)(n - i), all = (1 << live) - 1;
        fetch_rows(p, i + FETCH_AHEAD_ROWS, 4, k * 8);
        fetch_rows(q, i + FETCH_AHEAD_ROWS, 4, k * 8);
        columns4(pc, p + i * k, live, k);
        columns4(qc, q + i * k, live, k);
        if (kind == JENSEN_SHANNON_OF_LOGS) {
            _mm256_maskstore_pd(out + i, lanes4(0, live), jensen_shannon_of_logs4(pc, qc, k));
            continue;
        }
        __m256d total_p = zero, total_q = zero;
        int valid = all;
        for (Py_ssize_t j = 0; j < k; j++) {
            valid &= HOLDS4(pc[j], zero, _CMP_GE_OQ) & HOLDS4(qc[j], zero, _CMP_GE_OQ);
            total_p = _mm256_add_pd(total_p, pc[j]);
            total_q = _mm256_add_pd(total_q, qc[j]);
        }
        valid &= HOLDS4(total_p, zero, _CMP_GT_OQ) & HOLDS4(total_p, infinity, _CMP_LT_OQ);
        valid &= HOLDS4(total_q, zero, _CMP_GT_OQ) & HOLDS4(total_q, infinity, _CMP_LT_OQ);
        if (valid != all) {
            return REFUSED;
        }
        const __m256d value = kind == JENSEN_SHANNON ? jensen_shannon4(pc, qc, total_p, total_q, k)
                                                     : kullback_leibler4(pc, qc, total_p, total_q, k);
        _mm256_maskstore_pd(out + i, lanes4(0, live), value);
    }
    return WRITTEN;
}

/* The loops with the row width a constant (1 to 16: the loads, transposes and sums unrolled). */
AVX512 static int
divergence_all8(double *out, const double *p, const double *q, Py_ssize_t n, Py_ssize_t k, int kind)
{
#define LOOP8(w) divergence_loop8(out, p, q, n, w, kind)
    if (k == 1) {
        return LOOP8(1);
    }
    WIDE_CASES(LOOP8, k)
#undef LOOP8
}

AVX2 static int
divergence_all4(double *out, const double *p, const double *q, Py_ssize_t n, Py_ssize_t k, int kind)
{
#define LOOP4(w) divergence_loop4(out, p, q, n, w, kind)
    if (k == 1) {
        return LOOP4(1);
    }
    WIDE_CASES(LOOP4, k)
#undef LOOP4
}

#endif /* DIVERGENCE_LOOPS */

PyDoc_STRVAR(divergence_rows_doc,
"divergence_rows(p, q, out, n, k, kind) -> int\n--\n\n"
"Each row's divergence of two n * k float64 arrays into the n float64 array out: kind 0\n"
"Kullback-Leibler, 1 Jensen-Shannon, of non-negative weights, the rows normalized to sum to 1;\n"
"kind 2 Jensen-Shannon of finite log-probabilities (the rows as they are). Returns 0 (written)\n"
"or 1 (a negative or NaN weight, or a row sum not positive and finite, found: check the batch\n"
"otherwise). Only where VECTOR_LOGS is 1, for 1 <= k <= MAX_COLUMNS.");

static PyObject *
divergence_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "divergence_rows: expected 6 arguments (p, q, out, n, k, kind)");
        return NULL;
    }
    const Py_ssize_t n = PyLong_AsSsize_t(args[3]), k = PyLong_AsSsize_t(args[4]);
    const long kind = PyLong_AsLong(args[5]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (!vector_width) {
        PyErr_SetString(PyExc_RuntimeError, "divergence_rows: the vector logarithms are not available here");
        return NULL;
    }
    if (n < 0 || k < 1 || k > MAX_COLUMNS || kind < KULLBACK_LEIBLER || kind > JENSEN_SHANNON_OF_LOGS) {
        PyErr_SetString(PyExc_ValueError, "divergence_rows: expected n >= 0, 1 <= k <= MAX_COLUMNS, kind 0 to 2");
        return NULL;
    }
    Held held[3];
    memset(held, 0, sizeof held);
    if (hold(args[0], &held[0], "d", n * k, 0, "p") < 0 || hold(args[1], &held[1], "d", n * k, 0, "q") < 0
        || hold(args[2], &held[2], "d", n, 1, "out") < 0) {
        release_all(held, 3);
        return NULL;
    }
    int status = WRITTEN;
#ifdef DIVERGENCE_LOOPS
    Py_BEGIN_ALLOW_THREADS
    if (vector_width == 8) {
        status = divergence_all8(held[2].view.buf, held[0].view.buf, held[1].view.buf, n, k, (int)kind);
    }
    else {
        status = divergence_all4(held[2].view.buf, held[0].view.buf, held[1].view.buf, n, k, (int)kind);
    }
    Py_END_ALLOW_THREADS
#endif
    release_all(held, 3);
    return PyLong_FromLong(status);
}

static PyMethodDef divergences_methods[] = {
    {"divergence_rows", (PyCFunction)(void (*)(void))divergence_rows, METH_FASTCALL, divergence_rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef divergences_module = {
    PyModuleDef_HEAD_INIT,
    "_divergences",
    "The KL and Jensen-Shannon divergences of rows, in one pass (optional; NumPy formulas otherwise).",
    -1,
    divergences_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__divergences(void)
{
#ifdef DIVERGENCE_LOOPS
    vector_width = load_vector_logs();
#endif
    PyObject *module = PyModule_Create(&divergences_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "VECTOR_LOGS", vector_width != 0) < 0
        || PyModule_AddIntConstant(module, "VECTOR_WIDTH", vector_width) < 0
        || PyModule_AddIntConstant(module, "MAX_COLUMNS", MAX_COLUMNS) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
