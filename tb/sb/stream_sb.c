#include "stream_sb.h"

#include <stdio.h>
#include <stdlib.h>

void stream_src_init(stream_src_t *s, uint64_t seed, const char *name, unsigned width, double idle)
{
    *s = (stream_src_t){.width = width, .idle = idle};
    rng_init_named(&s->rng, seed, name);
}

void stream_src_drive(stream_src_t *s)
{
    if (s->valid)
        return;
    if (rng_chance(&s->rng, s->idle))
        return;
    s->valid = true;
    s->data = bits_random(&s->rng, s->width);
}

void stream_src_taken(stream_src_t *s, bool taken)
{
    if (!taken)
        return;
    s->valid = false;
    s->sent++;
}

void stream_sink_init(stream_sink_t *k, uint64_t seed, const char *name, unsigned width, double stall)
{
    *k = (stream_sink_t){.width = width, .stall = stall};
    rng_init_named(&k->rng, seed, name);
}

void stream_sink_drive(stream_sink_t *k) { k->ready = !rng_chance(&k->rng, k->stall); }

bool stream_sink_observe(stream_sink_t *k, bool valid, bits_t data, char *why, size_t why_len)
{
    bool ok = true;
    if (k->pending && !valid) {
        snprintf(why, why_len, "valid withdrawn before the beat was taken");
        ok = false;
    } else if (k->pending && !bits_eq(data, k->pending_data)) {
        char a[BITS_MAX_W / 4 + 1], b[BITS_MAX_W / 4 + 1];
        snprintf(why, why_len, "data changed while stalled: 0x%s -> 0x%s", bits_hex(k->pending_data, k->width, a),
                 bits_hex(data, k->width, b));
        ok = false;
    }
    k->pending = valid && !k->ready;
    k->pending_data = data;
    if (valid && k->ready)
        k->received++;
    return ok;
}

void stream_sb_init(stream_sb_t *sb, unsigned width)
{
    *sb = (stream_sb_t){.width = width, .cap = 64};
    sb->q = malloc(sb->cap * sizeof *sb->q);
    if (!sb->q)
        abort();
}

void stream_sb_free(stream_sb_t *sb)
{
    free(sb->q);
    sb->q = NULL;
}

void stream_sb_push(stream_sb_t *sb, bits_t data)
{
    if (sb->len == sb->cap) {
        bits_t *q = malloc(2 * sb->cap * sizeof *q);
        if (!q)
            abort();
        for (size_t i = 0; i < sb->len; i++)
            q[i] = sb->q[(sb->head + i) % sb->cap];
        free(sb->q);
        sb->q = q;
        sb->head = 0;
        sb->cap *= 2;
    }
    sb->q[(sb->head + sb->len) % sb->cap] = data;
    sb->len++;
    sb->pushed++;
}

bool stream_sb_pop(stream_sb_t *sb, bits_t data, char *why, size_t why_len)
{
    if (sb->len == 0) {
        char a[BITS_MAX_W / 4 + 1];
        snprintf(why, why_len, "beat 0x%s received after all %llu sent beats (duplicate or invented)",
                 bits_hex(data, sb->width, a), (unsigned long long)sb->pushed);
        return false;
    }
    bits_t want = sb->q[sb->head];
    sb->head = (sb->head + 1) % sb->cap;
    sb->len--;
    sb->popped++;
    if (!bits_eq(want, data)) {
        char a[BITS_MAX_W / 4 + 1], b[BITS_MAX_W / 4 + 1];
        snprintf(why, why_len, "beat %llu: got 0x%s, expected 0x%s", (unsigned long long)(sb->popped - 1),
                 bits_hex(data, sb->width, a), bits_hex(want, sb->width, b));
        return false;
    }
    return true;
}
