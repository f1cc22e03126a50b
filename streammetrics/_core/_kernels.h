/*
 * What the compiled kernels share (streammetrics/_core/_rowkernels.c, _divergences.c): the
 * buffers they read (whole C-contiguous arrays, through the buffer protocol), the spelling of
 * inlining, and whether AVX-512 loops are compiled and chosen.
 */
#ifndef STREAMMETRICS_KERNELS_H
#define STREAMMETRICS_KERNELS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Inlined always (the row width then a constant in each copy); MSVC's spelling of both. */
#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define ALWAYS_INLINE __forceinline
#define restrict __restrict
#else
#define ALWAYS_INLINE inline
#endif

/* AVX-512 loops (intrinsics), compiled with GCC and Clang on x86-64 and chosen at run time on CPUs
 * (and systems) that support AVX-512 F and DQ, unless STREAMMETRICS_NO_AVX512 is set; the portable
 * loops elsewhere. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__has_attribute)
#if __has_attribute(target)
#define AVX512_ROWS 1
#include <immintrin.h>
#define AVX512 __attribute__((target("avx512f,avx512dq")))
#endif
#endif

#ifdef AVX512_ROWS
/* The lanes of a row of m entries (up to 16) in its two vectors of 8; the second's work is left
 * out where m <= 8 (a constant in each copy). */
#define LOW_LANES(m) ((__mmask8)((m) >= 8 ? 0xFF : (1u << (m)) - 1))
#define HIGH_LANES(m) ((__mmask8)((m) > 8 ? (1u << ((m) - 8)) - 1 : 0))

/* Eight vectors of eight transposed in place: vector j then holds entry j of each. */
AVX512 static ALWAYS_INLINE void
transpose8(__m512d v[8])
{
    __m512d pairs[8], quads[8];
    for (int k = 0; k < 4; k++) { /* (entries 2h, 2h + 1 of vectors 2k, 2k + 1) */
        pairs[2 * k] = _mm512_unpacklo_pd(v[2 * k], v[2 * k + 1]);
        pairs[2 * k + 1] = _mm512_unpackhi_pd(v[2 * k], v[2 * k + 1]);
    }
    for (int k = 0; k < 2; k++) { /* (128-bit pieces: entries e, e + 4 of four vectors) */
        quads[4 * k] = _mm512_shuffle_f64x2(pairs[4 * k], pairs[4 * k + 2], 0x88);
        quads[4 * k + 1] = _mm512_shuffle_f64x2(pairs[4 * k + 1], pairs[4 * k + 3], 0x88);
        quads[4 * k + 2] = _mm512_shuffle_f64x2(pairs[4 * k], pairs[4 * k + 2], 0xDD);
        quads[4 * k + 3] = _mm512_shuffle_f64x2(pairs[4 * k + 1], pairs[4 * k + 3], 0xDD);
    }
    for (int e = 0; e < 4; e++) {
        v[e] = _mm512_shuffle_f64x2(quads[e], quads[4 + e], 0x88);
        v[e + 4] = _mm512_shuffle_f64x2(quads[e], quads[4 + e], 0xDD);
    }
}
#endif

/* `return LOOP(width)` for the width m, each width from 2 to 16 a constant (the compiler unrolls
 * the loops over a row: the ranking kernels' comparisons, the divergences' loads and sums). */
#define WIDE_CASES(LOOP, m)                                                                        \
    switch (m) {                                                                                   \
    case 2: return LOOP(2);                                                                        \
    case 3: return LOOP(3);                                                                        \
    case 4: return LOOP(4);                                                                        \
    case 5: return LOOP(5);                                                                        \
    case 6: return LOOP(6);                                                                        \
    case 7: return LOOP(7);                                                                        \
    case 8: return LOOP(8);                                                                        \
    case 9: return LOOP(9);                                                                        \
    case 10: return LOOP(10);                                                                      \
    case 11: return LOOP(11);                                                                      \
    case 12: return LOOP(12);                                                                      \
    case 13: return LOOP(13);                                                                      \
    case 14: return LOOP(14);                                                                      \
    case 15: return LOOP(15);                                                                      \
    default: return LOOP(16);                                                                      \
    }

/* How many rows ahead the AVX-512 loops ask the cache for: their masked loads (a row at a time,
 * nothing read past it) left the CPU's own prefetching behind on a batch not yet in the cache
 * (the divergences of 5 classes: 50-54 M rows/s, 103 with it; 64 and 128 rows measured alike). */
#define FETCH_AHEAD_ROWS 64

/* Asks the cache for `rows` rows of `row_bytes` bytes each from row `first` of an array (a
 * prefetch never faults: past the array's end, the request is dropped). */
static ALWAYS_INLINE void
fetch_rows(const void *array, Py_ssize_t first, Py_ssize_t rows, Py_ssize_t row_bytes)
{
#if defined(__GNUC__) || defined(__clang__)
    const uintptr_t start = (uintptr_t)array + (uintptr_t)(first * row_bytes);
    for (Py_ssize_t b = 0; b < rows * row_bytes; b += 64) {
        __builtin_prefetch((const void *)(start + (uintptr_t)b));
    }
#else
    (void)array, (void)first, (void)rows, (void)row_bytes;
#endif
}

/* Whether the AVX-512 loops should run: compiled, supported, and not switched off. */
static int
avx512_wanted(void)
{
#ifdef AVX512_ROWS
    const char *off = getenv("STREAMMETRICS_NO_AVX512");
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
           && !(off != NULL && off[0] != '\0' && strcmp(off, "0") != 0);
#else
    return 0;
#endif
}

/* ---------------------------------------------------------------------------- buffers */

typedef struct {
    Py_buffer view;
    int held;
} Held;

static inline void
release_all(Held *held, int count)
{
    for (int i = 0; i < count; i++) {
        if (held[i].held) {
            PyBuffer_Release(&held[i].view);
            held[i].held = 0;
        }
    }
}

/* A buffer's struct format without a prefix that says native byte order and size ("=d", "@d",
 * "<d" on a little-endian machine are "d"); NULL for another byte order. */
static inline const char *
native_format(const Py_buffer *view)
{
    const char *f = view->format ? view->format : "B";
#if PY_LITTLE_ENDIAN
    const char same = '<';
#else
    const char same = '>';
#endif
    if (f[0] == '@' || f[0] == '=' || f[0] == same) {
        return f + 1;
    }
    if (f[0] == '<' || f[0] == '>' || f[0] == '!') {
        return NULL;
    }
    return f;
}

/* A C-contiguous buffer of `count` items of the struct format `format` ("d": float64), or an
 * error naming the argument. */
static inline int
hold(PyObject *obj, Held *held, const char *format, Py_ssize_t count, int writable, const char *name)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &held->view, flags) < 0) {
        return -1;
    }
    held->held = 1;
    if (count < 0 || count > PY_SSIZE_T_MAX / 8) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items is out of range", name, count);
        return -1;
    }
    const char *native = native_format(&held->view), *found = held->view.format ? held->view.format : "B";
    if (native == NULL || strcmp(native, format) != 0 || held->view.len != count * held->view.itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of format '%s', found %zd of '%s'", name, count,
                     format, held->view.len / (held->view.itemsize ? held->view.itemsize : 1), found);
        return -1;
    }
    return 0;
}

#endif
