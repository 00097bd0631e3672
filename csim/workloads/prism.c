/* prism: Prism, the Prism blog's index for partly coherent CXL memory: a memtable in the Small
 * Coherent Region that caches proven-hot keys (a key enters it on its second write), the bounded
 * updatable layer (BUL: nodes in the Large Non-coherent Region updated in place, their versions all
 * in the SCR) that takes new keys, immutable SSTables in the LNR with rising ids flushed once on
 * first sight, a manifest in the SCR, and a background compactor that writes full BUL ranges to L0
 * and merges the levels, freeing an old extent only once every thread has moved past it. The SCR
 * budget is split as the blog's 128 MB: 64 to the memtable, 2 to the manifest, the rest (62) to the
 * BUL's versions. The engine: lsm.h. */
#include "workloads/lsm.h"

static int prism_setup(wl_env_t *e, void **state, char *err) { return lsm_setup(e, state, err, "prism", true); }

const workload_t wl_prism = {
    .name = "prism",
    .doc = "Prism: a hot-key memtable in the SCR, the bounded updatable layer (BUL) in the LNR with its versions in "
           "the SCR, SSTables in the LNR flushed once on first sight",
    .setup = prism_setup,
    .thread = lsm_thread,
    .check = lsm_check,
    .free = lsm_free,
};
