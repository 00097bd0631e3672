#include "cn/lu_map.h"

#include <assert.h>

#include "drv/lu_drv.h" /* lu_line_bucket: the RTL's line_bucket */
#include "msg_defs.h"

unsigned lu_map_bucket(uint64_t line) { return lu_line_bucket(line); }

void lu_map_init(lu_map_t *m, unsigned num_cn, uint32_t live)
{
    assert(num_cn >= 1 && num_cn <= MSG_MAX_CN && num_cn <= 32);
    m->num_cn = num_cn;
    m->live = live & (num_cn == 32 ? ~0u : (1u << num_cn) - 1);
    unsigned ids[32], n = 0;
    for (unsigned c = 0; c < num_cn; c++)
        if (m->live >> c & 1u)
            ids[n++] = c;
    for (unsigned b = 0; b < LU_MAP_BUCKETS; b++)
        m->owner[b] = (uint8_t)(n ? ids[b % n] : 0);
}

void lu_map_fail(lu_map_t *m, unsigned cn)
{
    if (cn >= m->num_cn || !(m->live >> cn & 1u))
        return;
    m->live &= ~(1u << cn);
    if (!m->live)
        return;
    unsigned next = cn;
    do
        next = (next + 1) % m->num_cn;
    while (!(m->live >> next & 1u));
    for (unsigned b = 0; b < LU_MAP_BUCKETS; b++)
        if (m->owner[b] == cn)
            m->owner[b] = (uint8_t)next;
}

unsigned lu_map_live(const lu_map_t *m)
{
    return (unsigned)__builtin_popcount(m->live);
}

uint64_t lu_map_own(const lu_map_t *m, unsigned cn)
{
    uint64_t own = 0;
    if (!(m->live >> cn & 1u))
        return 0;
    for (unsigned b = 0; b < LU_MAP_BUCKETS; b++)
        if (m->owner[b] == cn)
            own |= 1ull << b;
    return own;
}

unsigned lu_map_owner(const lu_map_t *m, uint64_t line) { return m->owner[lu_map_bucket(line)]; }

unsigned lu_map_replicas(const lu_map_t *m, uint64_t line, unsigned nr, unsigned *out)
{
    unsigned live = lu_map_live(m);
    if (nr > live)
        nr = live;
    unsigned c = lu_map_owner(m, line);
    for (unsigned k = 0; k < nr; k++) {
        out[k] = c;
        do
            c = (c + 1) % m->num_cn;
        while (!(m->live >> c & 1u));
    }
    return nr;
}

unsigned lu_map_mn(unsigned cn, unsigned num_mn) { return cn % num_mn; }

unsigned lu_map_lus_of_mn(unsigned mn, unsigned num_cn, unsigned num_mn)
{
    return mn < num_cn ? (num_cn - 1 - mn) / num_mn + 1 : 0;
}

