/* Valid/ready stream test parts: a random source, a random sink and an in-order scoreboard.
 * The source idles at random and, once it raises valid, holds valid and data until the beat is
 * taken; the sink drops ready at random and checks that the stream it watches does the same.
 * The scoreboard records every beat the source delivers and checks that the sink receives each
 * exactly once, in order, bit-exact. All state lives in the structs (many coexist in one test). */
#ifndef STREAM_SB_H
#define STREAM_SB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "vw_bits.h"

/** Random source of beats of `width` bits. */
typedef struct stream_src {
    rng_t rng;
    unsigned width;
    double idle; /* probability of not offering a new beat in a cycle */
    bool valid;  /* offering `data` this cycle */
    bits_t data;
    uint64_t sent; /* beats taken by the sink side */
} stream_src_t;

void stream_src_init(stream_src_t *s, uint64_t seed, const char *name, unsigned width, double idle);
/** Decides this cycle's valid/data (a beat not yet taken stays offered). */
void stream_src_drive(stream_src_t *s);
/** Tells the source whether its offered beat was taken this cycle (valid && ready). */
void stream_src_taken(stream_src_t *s, bool taken);

/** Random sink that also checks output stability (valid and data held until taken). */
typedef struct stream_sink {
    rng_t rng;
    unsigned width;
    double stall; /* probability of ready low in a cycle */
    bool ready;
    bool pending; /* last cycle showed valid without ready: must still be valid, same data */
    bits_t pending_data;
    uint64_t received;
} stream_sink_t;

void stream_sink_init(stream_sink_t *k, uint64_t seed, const char *name, unsigned width, double stall);
/** Decides this cycle's ready. */
void stream_sink_drive(stream_sink_t *k);
/** Watches this cycle's valid/data (with the ready it drove); returns false and fills why[] when
 *  a beat shown without ready was withdrawn or changed. */
bool stream_sink_observe(stream_sink_t *k, bool valid, bits_t data, char *why, size_t why_len);

/** In-order scoreboard. */
typedef struct stream_sb {
    bits_t *q;
    size_t cap, head, len;
    unsigned width;
    uint64_t pushed, popped;
} stream_sb_t;

void stream_sb_init(stream_sb_t *sb, unsigned width);
void stream_sb_free(stream_sb_t *sb);
/** Records a beat that entered the block. */
void stream_sb_push(stream_sb_t *sb, bits_t data);
/** Checks a beat that left the block against the oldest one recorded; returns false and fills
 *  why[] when nothing was expected or the data differs. */
bool stream_sb_pop(stream_sb_t *sb, bits_t data, char *why, size_t why_len);
/** Beats recorded and not yet received. */
static inline size_t stream_sb_pending(const stream_sb_t *sb) { return sb->len; }

#endif
