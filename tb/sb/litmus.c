/* Litmus tests of the x86-TSO memory model (see litmus.h). */
#include "litmus.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned var_of(char ch)
{
    const char *vs = "xyzw";
    const char *p = strchr(vs, ch);
    cr_assert(p && ch, "bad variable %c", ch);
    return (unsigned)(p - vs);
}

void lm_parse(litmus_t *L, const char *src)
{
    memset(L, 0, sizeof *L);
    L->nthr = 1;
    const char *p = src;
    while (*p) {
        while (*p == ' ')
            p++;
        if (*p == '|') {
            L->nthr++;
            cr_assert(L->nthr <= LM_THR);
            p++;
            continue;
        }
        bool join = *p == '&';
        if (*p == ';' || join) {
            p++;
            if (!join)
                continue;
            while (*p == ' ')
                p++;
        }
        unsigned t = L->nthr - 1;
        cr_assert(L->len[t] < LM_OPS, "too many operations: %s", src);
        lm_op_t *o = &L->op[t][L->len[t]++];
        o->batch = join;
        if (*p == 'F') {
            o->kind = LK_FENCE;
            p++;
        } else if (*p == 'r') {
            unsigned reg = (unsigned)(p[1] - '0');
            cr_assert(reg < LM_REGS && p[2] == '=');
            o->reg = (uint8_t)reg;
            if (reg + 1 > L->nregs)
                L->nregs = reg + 1;
            p += 3;
            if (!strncmp(p, "swap(", 5) || !strncmp(p, "fadd(", 5)) {
                o->kind = p[0] == 's' ? LK_SWAP : LK_FADD;
                o->var = (uint8_t)var_of(p[5]);
                o->val = (uint8_t)strtoul(p + 7, NULL, 10);
                p = strchr(p, ')') + 1;
            } else {
                o->kind = LK_LD;
                o->var = (uint8_t)var_of(*p++);
            }
        } else {
            o->kind = LK_ST;
            o->var = (uint8_t)var_of(p[0]);
            cr_assert(p[1] == '=', "bad store in %s", src);
            char *end;
            o->val = (uint8_t)strtoul(p + 2, &end, 10);
            p = end;
        }
        cr_assert(!join || (o->kind == LK_LD && L->len[t] >= 2 && o[-1].kind == LK_LD),
                  "'&' joins a load to a load: %s", src);
        if (o->kind != LK_FENCE && o->var + 1u > L->nvars)
            L->nvars = o->var + 1u;
    }
}

bool lm_outcome_matches(const litmus_t *L, const outcome_t *o, const char *cond)
{
    const char *p = cond;
    while (*p) {
        unsigned idx;
        if (*p == 'r') {
            idx = (unsigned)(p[1] - '0');
            p += 3;
        } else {
            idx = L->nregs + var_of(p[0]);
            p += 2;
        }
        char *end;
        unsigned v = (unsigned)strtoul(p, &end, 10);
        if (o->v[idx] != v)
            return false;
        p = *end == ',' ? end + 1 : end;
    }
    return true;
}

void lm_outcome_str(const litmus_t *L, const outcome_t *o, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (unsigned r = 0; r < L->nregs && k < n; r++)
        k += (size_t)snprintf(buf + k, n - k, "r%u=%u ", r, o->v[r]);
    for (unsigned v = 0; v < L->nvars && k < n; v++)
        k += (size_t)snprintf(buf + k, n - k, "%c=%u ", "xyzw"[v], o->v[L->nregs + v]);
}


size_t lm_outset_find(const outset_t *s, const outcome_t *o)
{
    for (size_t i = 0; i < s->n; i++)
        if (!memcmp(&s->o[i], o, sizeof *o))
            return i;
    return SIZE_MAX;
}

void lm_outset_add(outset_t *s, const outcome_t *o)
{
    size_t i = lm_outset_find(s, o);
    if (i == SIZE_MAX) {
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 16;
            s->o = realloc(s->o, s->cap * sizeof *s->o);
            s->count = realloc(s->count, s->cap * sizeof *s->count);
        }
        i = s->n++;
        s->o[i] = *o;
        s->count[i] = 0;
    }
    s->count[i]++;
}

void lm_outset_free(outset_t *s)
{
    free(s->o);
    free(s->count);
}

/* --- The operational x86-TSO model (Sewell et al.): per-thread FIFO store buffers, a load reads
 * its own buffer's youngest store to the variable or else memory, fences and locked instructions
 * need an empty buffer, a buffer's oldest store may reach memory at any time. Explored
 * exhaustively with a visited set. */

typedef struct lm_state {
    uint8_t pc[LM_THR], sbn[LM_THR];
    uint8_t sbvar[LM_THR][LM_OPS], sbval[LM_THR][LM_OPS];
    uint8_t mem[LM_VARS], reg[LM_REGS];
} lm_state_t;

typedef struct visited {
    lm_state_t *s;
    bool *used;
    size_t cap, n;
} visited_t;

static uint64_t st_hash(const lm_state_t *s)
{
    const uint8_t *b = (const uint8_t *)s;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *s; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static bool visit(visited_t *v, const lm_state_t *s)
{
    if (2 * (v->n + 1) > v->cap) {
        visited_t nv = {.cap = v->cap ? 2 * v->cap : 1024};
        nv.s = malloc(nv.cap * sizeof *nv.s);
        nv.used = calloc(nv.cap, 1);
        for (size_t i = 0; i < v->cap; i++)
            if (v->used[i])
                visit(&nv, &v->s[i]);
        free(v->s);
        free(v->used);
        *v = nv;
    }
    size_t i = st_hash(s) & (v->cap - 1);
    while (v->used[i]) {
        if (!memcmp(&v->s[i], s, sizeof *s))
            return false;
        i = (i + 1) & (v->cap - 1);
    }
    v->used[i] = true;
    v->s[i] = *s;
    v->n++;
    return true;
}

static void explore(const litmus_t *L, const lm_state_t *s, visited_t *vis, outset_t *out)
{
    if (!visit(vis, s))
        return;
    bool moved = false;
    for (unsigned t = 0; t < L->nthr; t++) {
        if (s->sbn[t] > 0) { /* the oldest buffered store reaches memory */
            lm_state_t n = *s;
            n.mem[n.sbvar[t][0]] = n.sbval[t][0];
            memmove(n.sbvar[t], n.sbvar[t] + 1, LM_OPS - 1);
            memmove(n.sbval[t], n.sbval[t] + 1, LM_OPS - 1);
            n.sbn[t]--;
            n.sbvar[t][n.sbn[t]] = n.sbval[t][n.sbn[t]] = 0;
            explore(L, &n, vis, out);
            moved = true;
        }
        if (s->pc[t] >= L->len[t])
            continue;
        const lm_op_t *o = &L->op[t][s->pc[t]];
        lm_state_t n = *s;
        n.pc[t]++;
        switch (o->kind) {
        case LK_ST:
            n.sbvar[t][n.sbn[t]] = o->var;
            n.sbval[t][n.sbn[t]++] = o->val;
            break;
        case LK_LD: {
            uint8_t v = n.mem[o->var];
            for (unsigned i = 0; i < n.sbn[t]; i++)
                if (n.sbvar[t][i] == o->var)
                    v = n.sbval[t][i];
            n.reg[o->reg] = v;
            break;
        }
        case LK_FENCE:
            if (s->sbn[t])
                continue;
            break;
        case LK_SWAP:
        case LK_FADD:
            if (s->sbn[t])
                continue;
            n.reg[o->reg] = n.mem[o->var];
            n.mem[o->var] = (uint8_t)(o->kind == LK_SWAP ? o->val : n.mem[o->var] + o->val);
            break;
        }
        explore(L, &n, vis, out);
        moved = true;
    }
    if (!moved) {
        outcome_t oc = {{0}};
        memcpy(oc.v, s->reg, L->nregs);
        memcpy(oc.v + L->nregs, s->mem, L->nvars);
        lm_outset_add(out, &oc);
    }
}

void lm_tso_allowed(const litmus_t *L, outset_t *out)
{
    visited_t vis = {0};
    lm_state_t s0;
    memset(&s0, 0, sizeof s0);
    explore(L, &s0, &vis, out);
    free(vis.s);
    free(vis.used);
}

void lm_outcome_without(const litmus_t *L, unsigned f, outcome_t *o)
{
    for (unsigned i = 0; i < L->len[f]; i++) {
        const lm_op_t *op = &L->op[f][i];
        if (op->kind == LK_LD || op->kind == LK_SWAP || op->kind == LK_FADD)
            o->v[op->reg] = 0;
    }
}

void lm_tso_allowed_cut(const litmus_t *L, unsigned f, unsigned kmin, unsigned kmax, outset_t *out)
{
    for (unsigned k = kmin; k <= kmax && k <= L->len[f]; k++) {
        litmus_t cut = *L;
        cut.len[f] = k;
        outset_t some = {0};
        lm_tso_allowed(&cut, &some);
        for (size_t i = 0; i < some.n; i++) {
            outcome_t o = some.o[i];
            lm_outcome_without(L, f, &o);
            if (lm_outset_find(out, &o) == SIZE_MAX)
                lm_outset_add(out, &o);
        }
        lm_outset_free(&some);
    }
}

void lm_body(wl_thread_t *t, void *arg)
{
    lm_thread_t *a = arg;
    const litmus_t *L = a->L;
    for (unsigned i = 0; i < L->len[a->t]; i++) {
        wl_compute(t, a->delay[i]);
        const lm_op_t *o = &L->op[a->t][i];
        uint64_t addr = a->base + a->stride * o->var;
        switch (o->kind) {
        case LK_ST: wl_st(t, addr, o->val); break;
        case LK_LD: {
            /* o and the loads joined to it: one batch (no delay between them) */
            uint64_t ad[LM_OPS], v[LM_OPS];
            unsigned n = 0;
            do {
                ad[n] = a->base + a->stride * L->op[a->t][i + n].var;
                n++;
            } while (i + n < L->len[a->t] && L->op[a->t][i + n].batch);
            wl_ld_batch(t, ad, v, n);
            for (unsigned j = 0; j < n; j++)
                a->reg[L->op[a->t][i + j].reg] = v[j];
            i += n - 1;
            break;
        }
        case LK_FENCE: wl_fence(t); break;
        case LK_SWAP: a->reg[o->reg] = wl_swap(t, addr, o->val); break;
        case LK_FADD: a->reg[o->reg] = wl_fadd(t, addr, o->val); break;
        }
    }
    wl_compute(t, a->delay[LM_OPS]);
}

void lm_check(const char *name, const char *src, const char *const *forbid, const char *const *must, unsigned n,
              lm_run_fn run, void *ctx, uint64_t seed, const char *verbose_env)
{
    litmus_t L;
    lm_parse(&L, src);
    outset_t allowed = {0}, seen = {0};
    lm_tso_allowed(&L, &allowed);
    for (const char *const *f = forbid; f && *f; f++)
        for (size_t i = 0; i < allowed.n; i++)
            cr_assert(!lm_outcome_matches(&L, &allowed.o[i], *f), "%s: TSO model allows the forbidden %s", name, *f);
    for (const char *const *m = must; m && *m; m++) {
        bool ok = false;
        for (size_t i = 0; i < allowed.n; i++)
            ok |= lm_outcome_matches(&L, &allowed.o[i], *m);
        cr_assert(ok, "%s: TSO model does not allow %s", name, *m);
    }
    rng_t r;
    rng_init_named(&r, seed, name);
    outcome_t *oc = calloc(n ? n : 1, sizeof *oc);
    char line[256];
    snprintf(line, sizeof line, "%s; seed %" PRIu64 " (replay: TB_SEED=%" PRIu64 ")", name, seed, seed);
    run(ctx, &L, &r, n, oc, line);
    for (unsigned it = 0; it < n; it++) {
        if (lm_outset_find(&allowed, &oc[it]) == SIZE_MAX) {
            char buf[160];
            lm_outcome_str(&L, &oc[it], buf, sizeof buf);
            cr_assert_fail("%s (%s): outcome %s is not allowed by x86-TSO; seed %" PRIu64 " run %u "
                           "(replay: TB_SEED=%" PRIu64 ")",
                           name, src, buf, seed, it, seed);
        }
        lm_outset_add(&seen, &oc[it]);
    }
    free(oc);
    for (const char *const *m = must; m && *m; m++) {
        uint64_t cnt = 0;
        for (size_t i = 0; i < seen.n; i++)
            if (lm_outcome_matches(&L, &seen.o[i], *m))
                cnt += seen.count[i];
        if (!cnt) {
            char seen_s[1024] = "";
            size_t k = 0;
            for (size_t i = 0; i < seen.n && k < sizeof seen_s - 200; i++) {
                char buf[160];
                lm_outcome_str(&L, &seen.o[i], buf, sizeof buf);
                k += (size_t)snprintf(seen_s + k, sizeof seen_s - k, "[%sx%" PRIu64 "] ", buf, seen.count[i]);
            }
            cr_assert_fail("%s: allowed outcome %s never seen in %u runs (seen: %s); seed %" PRIu64, name, *m, n,
                           seen_s, seed);
        }
    }
    if (verbose_env && getenv(verbose_env))
        for (size_t i = 0; i < seen.n; i++) {
            char buf[160];
            lm_outcome_str(&L, &seen.o[i], buf, sizeof buf);
            fprintf(stderr, "%s: %s x%" PRIu64 "\n", name, buf, seen.count[i]);
        }
    lm_outset_free(&allowed);
    lm_outset_free(&seen);
}
