#include "drv/link_q.h"

#include <stdlib.h>

static bool less(const link_flight_t *a, const link_flight_t *b)
{
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

void link_q_push(link_q_t *q, uint64_t at, const msg_t *m)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 64;
        q->v = realloc(q->v, q->cap * sizeof *q->v);
        if (!q->v)
            abort();
    }
    link_flight_t f = {.at = at, .seq = q->seq++, .m = *m};
    size_t i = q->n++;
    while (i && less(&f, &q->v[(i - 1) / 2])) {
        q->v[i] = q->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->v[i] = f;
}

msg_t link_q_pop(link_q_t *q)
{
    link_flight_t top = q->v[0], last = q->v[--q->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && less(&q->v[c + 1], &q->v[c]))
            c++;
        if (!less(&q->v[c], &last))
            break;
        q->v[i] = q->v[c];
        i = c;
    }
    if (q->n)
        q->v[i] = last;
    return top.m;
}

void link_q_free(link_q_t *q)
{
    free(q->v);
    *q = (link_q_t){0};
}
