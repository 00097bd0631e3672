/* The Verilated directory controller (rtl/dir/dir_ctrl.sv through csim/drv/dir_drv) as a home of the
 * random coherence tester (tb/sb/coh_tester): one model per MN, configured from the tester's cfg
 * (address map, SCR, memory latency). The Verilated shapes are fixed: a cfg with a table of at
 * most 4 entries, a directory cache of at most 2 entries or 2 credits per class gets dir_ctrl_small
 * (4 transactions, 2 x 1 cache, 2 credits), any other dir_ctrl (16, 256 x 4, 4). For the
 * tester's directory check at the end, the home walks its directory once through the management
 * port (no CN failed: the walk only writes the directory cache back), then reads DRAM. */
#ifndef COH_HOME_RTL_H
#define COH_HOME_RTL_H

#include "coh_tester.h"
#include "drv/dir_drv.h"

/** coh_home_make_fn for the RTL. arg: NULL (the shape the cfg asks for, above), or the
 *  dir_model_ops_t to use instead (tb/sb/dir_models.h: dir_ops_synth, the synthesis form). */
bool coh_home_rtl_make(void *arg, const coh_cfg_t *cfg, unsigned mn, coh_home_t *out);
/** The driver behind a home made by coh_home_rtl_make. */
dir_drv_t *coh_home_rtl_drv(const coh_home_t *h);

#endif
