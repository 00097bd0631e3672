#include "base/run.h"

run_end_e run_loop(kernel_t *k, const run_params_t *p)
{
    const uint64_t slice = p->stall_timeout_ps / 4 ? p->stall_timeout_ps / 4 : 1;
    uint64_t last = p->progress(p->obj), last_t = k->now;
    for (;;) {
        if (k->now >= p->end_ps)
            return RUN_END_TIME;
        uint64_t until = p->end_ps - k->now > slice ? k->now + slice : p->end_ps;
        kernel_run(k, until);
        if (k->stop)
            return RUN_DONE;
        if (!kernel_pending(k))
            return RUN_IDLE;
        uint64_t now_progress = p->progress(p->obj);
        if (now_progress != last) {
            last = now_progress;
            last_t = k->now;
        } else if (k->now - last_t >= p->stall_timeout_ps) {
            return RUN_STALLED;
        }
        if (p->line)
            progress_update(p->line, k->now, (double)k->events);
    }
}

const char *run_end_name(run_end_e e)
{
    switch (e) {
    case RUN_DONE:
        return "done";
    case RUN_END_TIME:
        return "end time";
    case RUN_IDLE:
        return "idle";
    case RUN_STALLED:
        return "stalled";
    case RUN_FAULT:
        return "fault";
    }
    return "?";
}
