/* Port access by descriptor for the generated Verilator wrappers (build/gen/vw/vw_*.h).
 * A harness top holds several instances of a block, each with its own ports (<set>_<port>);
 * a test describes each instance once as a table of field descriptors and drives them all with
 * the same code. Values are bit vectors of up to BITS_MAX_W bits, word 0 holding bits 31:0.
 *
 * A port field may be uint8_t/16/32/64 or a uint32_t array (word 0 = bits 31:0), whichever the
 * generator chooses for its width: on a little-endian host all of these are the same bytes as
 * the value's low sizeof(field) bytes, so a field is copied by its size without knowing its type. */
#ifndef VW_BITS_H
#define VW_BITS_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/rng.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "vw_bits.h copies port fields as little-endian bytes"
#endif

/** Widest value handled, in bits. */
#define BITS_MAX_W 128

/** A bit vector of up to BITS_MAX_W bits; bits above its width are zero. */
typedef struct bits {
    uint32_t w[BITS_MAX_W / 32];
} bits_t;

/** Where a port lives in a vw_*_in or vw_*_out struct. */
typedef struct vw_field {
    size_t off, size;
} vw_field_t;

/** Descriptor of member M of struct type T. */
#define VW_FIELD(T, M) ((vw_field_t){offsetof(T, M), sizeof(((T *)0)->M)})

/** Writes v into the field f of the port struct s (v's bits above the field's size are dropped). */
static inline void vw_put(void *s, vw_field_t f, bits_t v)
{
    assert(f.size <= sizeof v.w);
    memcpy((char *)s + f.off, v.w, f.size);
}

/** Reads the field f of the port struct s. */
static inline bits_t vw_get(const void *s, vw_field_t f)
{
    bits_t v = {{0}};
    assert(f.size <= sizeof v.w);
    memcpy(v.w, (const char *)s + f.off, f.size);
    return v;
}

/** Writes a value of up to 64 bits. */
static inline void vw_put_u(void *s, vw_field_t f, uint64_t x)
{
    bits_t v = {{(uint32_t)x, (uint32_t)(x >> 32)}};
    vw_put(s, f, v);
}

/** Reads a value of up to 64 bits. */
static inline uint64_t vw_get_u(const void *s, vw_field_t f)
{
    bits_t v = vw_get(s, f);
    return (uint64_t)v.w[0] | (uint64_t)v.w[1] << 32;
}

/** Uniform random value of width bits. */
static inline bits_t bits_random(rng_t *r, unsigned width)
{
    bits_t v = {{0}};
    assert(width <= BITS_MAX_W);
    for (unsigned i = 0; i * 32 < width; i++) {
        uint32_t x = (uint32_t)rng_next(r);
        v.w[i] = width - i * 32 >= 32 ? x : x & ((1u << (width - i * 32)) - 1);
    }
    return v;
}

/** Bit i of v. */
static inline bool bits_test(bits_t v, unsigned i) { return v.w[i / 32] >> (i % 32) & 1; }

/** v with bit i set. */
static inline bits_t bits_set(bits_t v, unsigned i)
{
    v.w[i / 32] |= 1u << (i % 32);
    return v;
}

static inline bool bits_eq(bits_t a, bits_t b) { return memcmp(a.w, b.w, sizeof a.w) == 0; }

/** Hex text of the low width bits of v, most significant first, into buf (>= BITS_MAX_W/4 + 1). */
static inline const char *bits_hex(bits_t v, unsigned width, char *buf)
{
    static const char hex[] = "0123456789abcdef";
    unsigned n = width ? (width + 3) / 4 : 1;
    for (unsigned i = 0; i < n; i++)
        buf[n - 1 - i] = hex[v.w[i / 8] >> (i % 8 * 4) & 0xf];
    buf[n] = '\0';
    return buf;
}

#endif
