/* The dir_ctrl models of the tests: dir_ops_default (16 transactions, a 256 x 4 directory cache,
 * 4 credits per class), dir_ops_small (4 transactions, a 2 x 1 cache, 2 credits: the table
 * fills and the cache evicts at once) and dir_ops_synth (dir_ops_default's sizes, Verilated with
 * SYNTHESIS defined: the form Yosys synthesizes). */
#ifndef DIR_MODELS_H
#define DIR_MODELS_H

#include "drv/dir_drv.h"

extern const dir_model_ops_t dir_ops_default, dir_ops_small, dir_ops_synth;

#endif
