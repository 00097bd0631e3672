/* The reference directory controller (tb/ref/dir_ctrl_ref) as a home of the random coherence
 * tester (tb/sb/coh_tester): one dir_ctrl_ref per MN, configured from the tester's cfg (address
 * map, SCR, transaction entries, directory cache, memory latency, credits, mutations). */
#ifndef COH_HOME_REF_H
#define COH_HOME_REF_H

#include "../ref/dir_ctrl_ref.h"
#include "coh_tester.h"

/** coh_home_make_fn for the reference model (arg unused). */
bool coh_home_ref_make(void *arg, const coh_cfg_t *cfg, unsigned mn, coh_home_t *out);
/** The model behind a home made by coh_home_ref_make. */
dir_ctrl_ref_t *coh_home_ref_model(const coh_home_t *h);

#endif
