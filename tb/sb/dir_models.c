/* The Verilated dir_ctrl models the tests drive through csim/drv/dir_drv (scripts/mk/dir.mk builds
 * them): default sizes, a small table and cache for back-pressure and evictions, and the default
 * sizes' synthesis form. */
#include <string.h>

#include "dir_models.h"
#include "drv/dir_drv.h"
#include "vw_dir_ctrl.h"
#include "vw_dir_ctrl_small.h"
#include "vw_dir_ctrl_synth.h"

DIR_MODEL_OPS(dir_ops_default, dir_ctrl, 16, 256, 4, 4, 16);
DIR_MODEL_OPS(dir_ops_small, dir_ctrl_small, 4, 2, 1, 2, 1);
DIR_MODEL_OPS(dir_ops_synth, dir_ctrl_synth, 16, 256, 4, 4, 16);
