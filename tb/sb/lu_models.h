/* The logging_unit models of the tests: lu_ops_default (Entries 256, Slots 64, 4 credits per class:
 * the paper's 4 KB buffer) and lu_ops_small (Entries 16, Slots 4, 2 credits: fills at once). */
#ifndef LU_MODELS_H
#define LU_MODELS_H

#include "drv/lu_drv.h"

extern const lu_model_ops_t lu_ops_default, lu_ops_small;

#endif
