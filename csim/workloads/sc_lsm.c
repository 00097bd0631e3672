/* sc_lsm: SC-LSM, the Prism blog's straight port of a log-structured merge tree to partly coherent
 * CXL memory: the memtable in the Small Coherent Region is its write buffer (every put goes there;
 * when full it is written out as L0 SSTables), immutable SSTables in the Large Non-coherent Region
 * flushed once on first sight of a new id, a manifest in the SCR, a background compactor, and no
 * BUL. The engine: lsm.h. */
#include "workloads/lsm.h"

static int sclsm_setup(wl_env_t *e, void **state, char *err) { return lsm_setup(e, state, err, "sc_lsm", false); }

const workload_t wl_sc_lsm = {
    .name = "sc_lsm",
    .doc = "SC-LSM: an LSM tree with its memtable as write buffer in the SCR, SSTables in the LNR flushed once on "
           "first sight, a manifest in the SCR",
    .setup = sclsm_setup,
    .thread = lsm_thread,
    .check = lsm_check,
    .free = lsm_free,
};
