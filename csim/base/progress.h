/* A progress line for long runs: one line on stderr (or any stream), rewritten in place, with
 * simulated time, wall time, the simulation rate (simulated ns per wall second) and optionally a
 * caller-counted rate ("events/s") and the completion / ETA when the end time is known:
 *
 *   sim 12.35 us (12%)  wall 3.2 s  rate 3.86 k sim-ns/s  1.2 M events/s  ETA 23 s
 *
 * It is refreshed at most every 0.5 s of wall time and stays silent when the stream is not a
 * terminal (PROGRESS_AUTO) or when disabled. progress_update() is cheap enough to call on every
 * simulated event: it reads the wall clock only every `stride` calls, and adapts the stride so
 * that the clock is read roughly every 10-100 ms of wall time. progress_finish() erases the line.
 * No globals: a progress_t is a value the caller owns. */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum progress_mode {
    PROGRESS_AUTO, /* on when the stream is a terminal (isatty) */
    PROGRESS_ON,   /* always (tests; forced by the user) */
    PROGRESS_OFF,  /* never */
} progress_mode_e;

/** Wall clock in nanoseconds (monotonic). Replaceable for tests. */
typedef uint64_t (*progress_clock_fn)(void *arg);

typedef struct progress {
    FILE *out;
    bool active;           /* drawing at all */
    bool shown;            /* a line is on screen (finish must erase it) */
    uint32_t calls_left;   /* updates until the next clock read */
    uint32_t stride;       /* updates between clock reads */
    uint64_t interval_ns;  /* least wall time between two redraws */
    uint64_t t0_ns;        /* wall clock at init */
    uint64_t last_check_ns, last_draw_ns;
    uint64_t last_sim_ps;  /* value at the last redraw, for the rate */
    double last_extra;     /* extra count at the last redraw, for its rate */
    uint64_t end_ps;       /* simulated end time, 0 when unknown */
    const char *extra_unit; /* e.g. "events": shows "<rate> events/s"; NULL: not shown */
    progress_clock_fn clock;
    void *clock_arg;
    uint64_t draws;        /* redraws so far */
} progress_t;

/** Starts a progress line on stderr, drawn when `enabled` (sim.progress) and stderr is a
 *  terminal. extra_unit names the caller's extra counter (a static string, e.g. "events": shows
 *  "<rate> events/s"); NULL hides it. */
void progress_init(progress_t *p, bool enabled, const char *extra_unit);
/** Same on any stream, with an explicit mode (PROGRESS_ON for tests). */
void progress_init_stream(progress_t *p, FILE *out, progress_mode_e mode, const char *extra_unit);
/** The simulated end time, to show a percentage and an ETA (0: unknown). */
void progress_set_target(progress_t *p, uint64_t end_ps);
/** Replaces the wall clock (tests). Resets the start time to the new clock's now. */
void progress_set_clock(progress_t *p, progress_clock_fn fn, void *arg);

/** Slow path of progress_update: reads the clock, maybe redraws. */
void progress_check(progress_t *p, uint64_t sim_ps, double extra);

/** Reports the current simulated time (ps) and the caller's extra count so far (e.g. events). */
static inline void progress_update(progress_t *p, uint64_t sim_ps, double extra)
{
    if (p->active && --p->calls_left == 0)
        progress_check(p, sim_ps, extra);
}

/** The monotonic wall clock the progress line uses, in seconds (for timing a run or a benchmark). */
double progress_wall_seconds(void);

/** Erases the line (if one was drawn). The progress_t may then be dropped. */
void progress_finish(progress_t *p);

#endif
