/* fluidanimate: not written yet (branch-only stub, replaced by its kernel before it reaches main). */
#include "workloads/workloads.h"

static int stub_setup(wl_env_t *e, void **state, char *err)
{
    (void)e, (void)state;
    return wl_errf(err, "fluidanimate: not written yet");
}
static void stub_thread(wl_thread_t *t, void *state) { (void)t, (void)state; }
static int stub_check(wl_env_t *e, void *state, char *err) { (void)e, (void)state, (void)err; return 0; }
static void stub_free(void *state) { (void)state; }

const workload_t wl_fluidanimate = {"fluidanimate", "not written yet", stub_setup, stub_thread, stub_check, stub_free};
