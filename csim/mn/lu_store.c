#include "mn/lu_store.h"

#include <stdlib.h>

struct lu_store {
    mn_node_t *mn;
    mn_log_t log;
    void (*other_fn)(void *obj, const msg_t *m);
    void *other_obj;
    uint64_t others;
};

/* The store is software without a clock: what it answers leaves through the MN's port now. */
static void store_send(lu_store_t *s)
{
    msg_t a;
    while (mn_log_tx_peek(&s->log, &a)) {
        mn_node_sw_send(s->mn, &a);
        mn_log_tx_pop(&s->log);
    }
}

static void store_sw(void *obj, const msg_t *m)
{
    lu_store_t *s = obj;
    if (mn_log_rx(&s->log, m) == MN_LOG_RX_NOT_MINE) {
        s->others++;
        if (s->other_fn)
            s->other_fn(s->other_obj, m);
    }
    store_send(s);
}

void lu_store_drop_lu(lu_store_t *s, unsigned cn)
{
    mn_log_drop_lu(&s->log, cn);
    store_send(s);
}

lu_store_t *lu_store_create(mn_node_t *mn, unsigned mn_idx, unsigned lus_per_epoch, bool compact)
{
    lu_store_t *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->mn = mn;
    mn_log_cfg_t c = {.node_id = MSG_MN_BASE + mn_idx, .lus_per_epoch = lus_per_epoch, .compact = compact};
    if (mn_log_init(&s->log, &c) != 0) {
        mn_log_free(&s->log);
        free(s);
        return NULL;
    }
    mn_node_on_sw(mn, store_sw, s);
    return s;
}

void lu_store_on_other(lu_store_t *s, void (*fn)(void *obj, const msg_t *m), void *obj)
{
    s->other_fn = fn;
    s->other_obj = obj;
}

void lu_store_free(lu_store_t *s)
{
    if (!s)
        return;
    mn_log_free(&s->log);
    free(s);
}

mn_log_t *lu_store_log(lu_store_t *s) { return &s->log; }
uint64_t lu_store_others(const lu_store_t *s) { return s->others; }
