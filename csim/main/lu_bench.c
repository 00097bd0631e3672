/* Benchmark of the Logging Unit (`make bench`): the sustained logging rate, in word entries per LU
 * cycle, of the Verilated logging_unit (fast flavour) driven through csim/drv/lu_drv, for REPLs of 8, 4,
 * 2 and 1 words. Each REPL is sent as soon as a DKREQ credit is there (at most one per cycle), its
 * VAL as soon as its REPL_ACK is back (link delay 1 cycle, DRAM log 45 ns with up to 64 writes in
 * flight), to distinct lines, so nothing waits on ordering. Measured over a window after a warm-up,
 * from what crosses the LU's ports (no CSR read inside the window: a read takes two cycles in which
 * nothing is sent): words logged (the words of the REPLs acknowledged: a REPL_ACK leaves after its
 * last word entry is written), words drained (DRAM log records written) and messages presented per
 * cycle. The receive port takes two messages per LU cycle (two lanes), so a one-word REPL and its
 * VAL fit in one cycle: 2.000 messages per cycle at one word per cycle. After the window the run
 * settles and the LU's own counters must agree (WORDS = words acknowledged, DRAINED = records
 * written, no error counted); otherwise the bench stops with status 1.
 *
 *   lu_bench [--out DIR] [--seed N]     prints a table; writes DIR/lu.csv and DIR/lu.json
 *   lu_bench --trace FILE.fst           instead: traces a short scenario for the GTKWave view
 *                                       waves/logging_unit.gtkw (REPL -> REPL_ACK -> VAL -> drain), on
 *                                       the test flavour of the LU (the fast one is built untraced) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/outfile.h"
#include "drv/lu_drv.h"
#include "vw_logging_unit.h"
#include "vw_logging_unit_fast.h"

/* The fast flavour for the measurement; the test flavour (assertions, FST tracing) for --trace. */
LU_MODEL_OPS(lu_ops_fast, logging_unit_fast, 256, 64, 4);
LU_MODEL_OPS(lu_ops_traced, logging_unit, 256, 64, 4);

typedef struct bench {
    lu_drv_t *d;
    unsigned words; /* per REPL */
    uint64_t acks, next_line;
    msg_t pending_val[64];
    size_t npv;
    uint64_t rx_msgs;
    msg_t mn_q[8]; /* the MN controller's answers (DUMP_GO, DUMP_DONE) */
    size_t nmn;
    uint64_t chunks;
    bool dump_done;
} bench_t;

static void on_tx(void *ctx, const msg_t *m, uint64_t cyc)
{
    bench_t *b = ctx;
    (void)cyc;
    if (m->opcode == OP_DUMP_REQ || (m->opcode == OP_DUMP_DATA && (m->flags & MSG_FLAG_LAST))) {
        b->mn_q[b->nmn++] = (msg_t){.opcode = m->opcode == OP_DUMP_REQ ? OP_DUMP_GO : OP_DUMP_DONE, .src = m->dst,
                                    .dst = m->src, .tag = 0};
        b->dump_done = m->opcode == OP_DUMP_DATA;
    }
    b->chunks += m->opcode == OP_DUMP_DATA;
    if (m->opcode != OP_REPL_ACK)
        return;
    b->acks++;
    if (b->npv == sizeof b->pending_val / sizeof b->pending_val[0]) {
        fprintf(stderr, "lu_bench: more than %zu VALs wait for a DKRSP credit\n", b->npv);
        exit(1);
    }
    b->pending_val[b->npv++] = (msg_t){.opcode = OP_VAL, .src = (uint8_t)m->dst, .dst = m->src, .core = m->core,
                                       .tag = m->tag, .addr = m->addr, .ts = 1};
}

static void on_rx(void *ctx, const msg_t *m, uint64_t cyc)
{
    bench_t *b = ctx;
    (void)m, (void)cyc;
    b->rx_msgs++;
}

static uint32_t csr(lu_drv_t *d, unsigned a) { return lu_drv_csr(d, a, NULL); }

/* Runs REPLs of `words` words; fills the words logged, drained and messages per cycle. */
typedef struct dump_res {
    uint64_t records, in, out, cycles;
} dump_res_t;

/* Sends the VALs waiting for a credit, oldest first. */
static void send_vals(bench_t *b)
{
    while (b->npv && lu_drv_credits(b->d, CLS_DKRSP)) {
        lu_drv_send(b->d, &b->pending_val[0], 1);
        memmove(b->pending_val, b->pending_val + 1, --b->npv * sizeof b->pending_val[0]);
    }
}

/* The LU's counter at CSR address a must be want (after the run settled); else the bench stops. */
static void expect_csr(bench_t *b, unsigned a, const char *what, uint64_t want)
{
    uint32_t v = csr(b->d, a);
    if (v != (uint32_t)want) {
        fprintf(stderr, "lu_bench: %u-word REPLs: CSR %s = %u, the bench counted %" PRIu64 "\n", b->words, what, v,
                want);
        exit(1);
    }
}

static void run(unsigned words, uint64_t seed, double *logged, double *drained, double *msgs, dump_res_t *dr)
{
    bench_t b = {.words = words};
    lu_drv_cfg_t c = lu_drv_cfg_default();
    c.node_id = 0;
    c.tx_credits = 16;
    b.d = lu_drv_create(&lu_ops_fast, &c, seed, on_tx, &b);
    lu_drv_on_rx(b.d, on_rx);
    const uint64_t warm = 2000, window = 20000;
    uint64_t a0 = 0, l0 = 0, m0 = 0, c0 = 0, tag = 0;
    for (uint64_t i = 0; i < warm + window; i++) {
        if (i == warm)
            a0 = b.acks, l0 = lu_drv_log_writes(b.d), m0 = b.rx_msgs, c0 = lu_drv_cycle(b.d);
        /* VALs first (they free the buffer), then a REPL. */
        send_vals(&b);
        if (lu_drv_credits(b.d, CLS_DKREQ)) {
            msg_t r = {.opcode = OP_REPL, .src = 1, .dst = 0, .core = (uint8_t)(tag % 4), .tag = (uint16_t)(tag % 4096),
                       .addr = 0x10000 + b.next_line++, .mask = (uint8_t)((1u << words) - 1)};
            for (unsigned k = 0; k < words; k++)
                r.data[k] = tag * 8 + k;
            lu_drv_send(b.d, &r, 1);
            tag++;
        }
        lu_drv_step(b.d);
    }
    uint64_t cyc = lu_drv_cycle(b.d) - c0;
    *logged = (double)((b.acks - a0) * words) / (double)cyc;
    *drained = (double)(lu_drv_log_writes(b.d) - l0) / (double)cyc;
    *msgs = (double)(b.rx_msgs - m0) / (double)cyc;
    /* Settle (the last VALs, the drain), then the LU's counters must say the same. */
    for (int i = 0; i < 100000 && !(b.npv == 0 && lu_drv_idle(b.d)); i++) {
        send_vals(&b);
        lu_drv_step(b.d);
    }
    if (b.npv || !lu_drv_idle(b.d) || b.acks != tag) {
        fprintf(stderr, "lu_bench: %u-word REPLs: %" PRIu64 " of %" PRIu64 " REPLs acknowledged, the LU did not "
                        "settle\n", words, b.acks, tag);
        exit(1);
    }
    expect_csr(&b, LU_CSR_REPLS, "REPLS", b.acks);
    expect_csr(&b, LU_CSR_WORDS, "WORDS", b.acks * words);
    expect_csr(&b, LU_CSR_VALS, "VALS", b.acks);
    expect_csr(&b, LU_CSR_DRAINED, "DRAINED", lu_drv_log_writes(b.d));
    expect_csr(&b, LU_CSR_DRAINED, "DRAINED", b.acks * words);
    expect_csr(&b, LU_CSR_ERR_VAL_NO_REPL, "ERR_VAL_NO_REPL", 0);
    expect_csr(&b, LU_CSR_ERR_BAD_MSG, "ERR_BAD_MSG", 0);
    if (dr) {
        /* Then a dump of the whole log (every bucket owned) through the level-9 engine. */
        uint64_t t0 = lu_drv_cycle(b.d);
        dr->records = csr(b.d, LU_CSR_LOG_COUNT);
        lu_drv_dump_start(b.d);
        for (uint64_t i = 0; i < 10000000 && !b.dump_done; i++) {
            while (b.nmn && lu_drv_credits(b.d, CLS_MGRSP)) {
                lu_drv_send(b.d, &b.mn_q[0], 1);
                memmove(b.mn_q, b.mn_q + 1, --b.nmn * sizeof b.mn_q[0]);
            }
            lu_drv_step(b.d);
        }
        dr->cycles = lu_drv_cycle(b.d) - t0;
        lu_drv_zlib_bytes(b.d, &dr->in, &dr->out);
    }
    lu_drv_free(b.d);
}

/* Two REPLs (three words, then one word of the same line by another CN), their REPL_ACKs, the
 * second one's VAL first (its word waits), then the first one's VAL: both drain, in order. */
static int trace(const char *path, uint64_t seed)
{
    bench_t b = {.words = 3};
    lu_drv_cfg_t c = lu_drv_cfg_default();
    c.node_id = 0;
    b.d = lu_drv_create(&lu_ops_traced, &c, seed, on_tx, &b);
    if (lu_drv_trace(b.d, path) != 0) {
        fprintf(stderr, "lu_bench: cannot trace to %s\n", path);
        return 1;
    }
    for (int i = 0; i < 8; i++)
        lu_drv_step(b.d);
    msg_t r1 = {.opcode = OP_REPL, .src = 1, .dst = 0, .core = 2, .tag = 7, .addr = 0x1234, .mask = 0x0b,
                .data = {0x11, 0x22, 0, 0x44}};
    msg_t r2 = {.opcode = OP_REPL, .src = 3, .dst = 0, .core = 0, .tag = 9, .addr = 0x1234, .mask = 0x01, .data = {0x99}};
    lu_drv_send(b.d, &r1, 1);
    lu_drv_send(b.d, &r2, 1); /* the same cycle: r1 on receive lane 0, r2 on lane 1 */
    for (int i = 0; i < 12; i++)
        lu_drv_step(b.d);
    msg_t v2 = {.opcode = OP_VAL, .src = 3, .dst = 0, .core = 0, .tag = 9, .addr = 0x1234, .ts = 6};
    msg_t v1 = {.opcode = OP_VAL, .src = 1, .dst = 0, .core = 2, .tag = 7, .addr = 0x1234, .ts = 5};
    lu_drv_send(b.d, &v2, 1);
    for (int i = 0; i < 6; i++)
        lu_drv_step(b.d);
    lu_drv_send(b.d, &v1, 1);
    for (int i = 0; i < 40; i++)
        lu_drv_step(b.d);
    printf("lu_bench: traced %zu DRAM log records to %s\n", lu_drv_log_writes(b.d), path);
    lu_drv_free(b.d);
    return 0;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *trace_path = NULL;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--trace") && i + 1 < argc)
            trace_path = argv[++i];
        else {
            fprintf(stderr, "usage: lu_bench [--out DIR] [--seed N] [--trace FILE.fst]\n");
            return 2;
        }
    }
    char why[256];
    if (trace_path) {
        if (outfile_check_path(trace_path, why, sizeof why)) {
            fprintf(stderr, "lu_bench: --trace %s: cannot write: %s\n", trace_path, why);
            return 2;
        }
        return trace(trace_path, seed);
    }
    static const char *const outs[] = {"lu.csv", "lu.json"};
    if (out && outfile_check_dir("lu_bench", out, outs, 2))
        return 2;
    static const unsigned sizes[] = {8, 4, 2, 1};
    double lg[4], dr[4], ms[4];
    printf("Logging Unit: sustained logging rate (word entries per LU cycle; 1 cycle = 2 ns at 500 MHz)\n");
    printf("%-16s %14s %14s %16s\n", "words per REPL", "logged/cycle", "drained/cycle", "messages/cycle");
    dump_res_t dump = {0};
    for (int i = 0; i < 4; i++) {
        run(sizes[i], seed, &lg[i], &dr[i], &ms[i], i == 0 ? &dump : NULL);
        printf("%-16u %14.3f %14.3f %16.3f\n", sizes[i], lg[i], dr[i], ms[i]);
    }
    double factor = dump.out ? (double)dump.in / (double)dump.out : 0;
    /* DRAM log bandwidth at the measured drain rate: 16-byte records at 500 MHz. */
    double log_gbs = dr[0] * 16 * 500e6 / 1e9;
    printf("DRAM log bandwidth at %.3f records/cycle: %.1f GB/s\n", dr[0], log_gbs);
    printf("dump of %" PRIu64 " records (%" PRIu64 " bytes) at zlib level 9: %" PRIu64
           " bytes of DUMP_DATA, factor %.2f, %" PRIu64 " cycles\n",
           dump.records, dump.in, dump.out, factor, dump.cycles);
    printf("(the bench's values are word indices of consecutive lines: far more regular than real data;\n"
           " the paper reports a factor of 5.8 on its workloads)\n");
    if (out) {
        char p[1024];
        outfile_t f;
        snprintf(p, sizeof p, "%s/lu.csv", out);
        if (outfile_open(&f, p, why, sizeof why) == 0) {
            fprintf(f.f, "words_per_repl,logged_per_cycle,drained_per_cycle,messages_per_cycle\n");
            for (int i = 0; i < 4; i++)
                fprintf(f.f, "%u,%.4f,%.4f,%.4f\n", sizes[i], lg[i], dr[i], ms[i]);
        }
        if (!f.f || outfile_commit(&f, why, sizeof why)) {
            fprintf(stderr, "lu_bench: cannot write %s: %s\n", p, why);
            return 1;
        }
        snprintf(p, sizeof p, "%s/lu.json", out);
        if (outfile_open(&f, p, why, sizeof why) == 0) {
            fprintf(f.f, "{\"seed\": %" PRIu64 ", \"rates\": [", seed);
            for (int i = 0; i < 4; i++)
                fprintf(f.f, "%s{\"words_per_repl\": %u, \"logged_per_cycle\": %.4f, \"drained_per_cycle\": %.4f, "
                             "\"messages_per_cycle\": %.4f}",
                        i ? ", " : "", sizes[i], lg[i], dr[i], ms[i]);
            fprintf(f.f, "], \"log_bandwidth_gbs\": %.3f, \"dump\": {\"records\": %" PRIu64 ", \"bytes_in\": %" PRIu64
                         ", \"bytes_out\": %" PRIu64 ", \"factor\": %.3f, \"cycles\": %" PRIu64 "}}\n",
                    log_gbs, dump.records, dump.in, dump.out, factor, dump.cycles);
        }
        if (!f.f || outfile_commit(&f, why, sizeof why)) {
            fprintf(stderr, "lu_bench: cannot write %s: %s\n", p, why);
            return 1;
        }
    }
    return 0;
}
