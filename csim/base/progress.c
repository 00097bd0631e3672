#include "base/progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK_MIN_NS 10000000ull  /* read the clock at least this far apart ... */
#define CHECK_MAX_NS 100000000ull /* ... and at most this far apart (adaptive stride) */
#define STRIDE_MAX (1u << 20)

static uint64_t wall_ns(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double progress_wall_seconds(void) { return (double)wall_ns(NULL) * 1e-9; }

void progress_init(progress_t *p, bool enabled, const char *extra_unit)
{
    progress_init_stream(p, stderr, enabled ? PROGRESS_AUTO : PROGRESS_OFF, extra_unit);
}

void progress_init_stream(progress_t *p, FILE *out, progress_mode_e mode, const char *extra_unit)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->extra_unit = extra_unit;
    p->active = mode == PROGRESS_ON || (mode == PROGRESS_AUTO && out && isatty(fileno(out)));
    p->stride = p->calls_left = 1;
    p->interval_ns = 500000000ull;
    progress_set_clock(p, wall_ns, NULL);
}

void progress_set_target(progress_t *p, uint64_t end_ps) { p->end_ps = end_ps; }

void progress_set_clock(progress_t *p, progress_clock_fn fn, void *arg)
{
    p->clock = fn;
    p->clock_arg = arg;
    p->t0_ns = p->last_check_ns = p->last_draw_ns = fn(arg);
}

/* "12.3 k" */
static void si(double v, char *buf, size_t n)
{
    static const char *const pre[] = {"", " k", " M", " G", " T"};
    int i = 0;
    while (v >= 999.5 && i < 4) {
        v /= 1000.0;
        i++;
    }
    snprintf(buf, n, "%.3g%s", v, pre[i]);
}

/* Simulated time in a readable unit: "12.35 us". */
static void sim_time(uint64_t ps, char *buf, size_t n)
{
    static const char *const unit[] = {"ps", "ns", "us", "ms", "s"};
    double v = (double)ps;
    int i = 0;
    while (v >= 1000.0 && i < 4) {
        v /= 1000.0;
        i++;
    }
    snprintf(buf, n, "%.4g %s", v, unit[i]);
}

static void draw(progress_t *p, uint64_t now, uint64_t sim_ps, double extra)
{
    char st[32], rate[32], line[256];
    double dt = (double)(now - p->last_draw_ns) / 1e9;
    double ds_ns = sim_ps >= p->last_sim_ps ? (double)(sim_ps - p->last_sim_ps) / 1e3 : 0.0;
    sim_time(sim_ps, st, sizeof st);
    si(dt > 0 ? ds_ns / dt : 0.0, rate, sizeof rate);
    int len = snprintf(line, sizeof line, "sim %s", st);
    if (p->end_ps)
        len += snprintf(line + len, sizeof line - (size_t)len, " (%.0f%%)",
                        100.0 * (double)sim_ps / (double)p->end_ps);
    len += snprintf(line + len, sizeof line - (size_t)len, "  wall %.1f s  rate %s sim-ns/s",
                    (double)(now - p->t0_ns) / 1e9, rate);
    if (p->extra_unit) {
        char er[32];
        si(dt > 0 && extra >= p->last_extra ? (extra - p->last_extra) / dt : 0.0, er,
           sizeof er);
        len += snprintf(line + len, sizeof line - (size_t)len, "  %s %s/s", er, p->extra_unit);
    }
    if (p->end_ps && sim_ps > 0 && sim_ps < p->end_ps) {
        /* ETA from the average rate since the start. */
        double eta = (double)(now - p->t0_ns) / 1e9 * (double)(p->end_ps - sim_ps) / (double)sim_ps;
        snprintf(line + len, sizeof line - (size_t)len, "  ETA %.0f s", eta);
    }
    /* \r: back to column 0; ESC[K: erase what a longer previous line left. */
    fprintf(p->out, "\r%s\033[K", line);
    fflush(p->out);
    p->shown = true;
    p->draws++;
    p->last_draw_ns = now;
    p->last_sim_ps = sim_ps;
    p->last_extra = extra;
}

void progress_check(progress_t *p, uint64_t sim_ps, double extra)
{
    if (!p->active)
        return;
    uint64_t now = p->clock(p->clock_arg);
    uint64_t since = now - p->last_check_ns;
    if (since < CHECK_MIN_NS && p->stride < STRIDE_MAX)
        p->stride *= 2;
    else if (since > CHECK_MAX_NS && p->stride > 1)
        p->stride /= 2;
    p->calls_left = p->stride;
    p->last_check_ns = now;
    if (now - p->last_draw_ns >= p->interval_ns)
        draw(p, now, sim_ps, extra);
}

void progress_finish(progress_t *p)
{
    if (p->shown) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
        p->shown = false;
    }
    p->active = false;
}
