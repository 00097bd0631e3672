/* The Verilated logging_unit models the tests drive through csim/drv/lu_drv (scripts/mk/lu.mk builds
 * them): the paper's sizes, and a small buffer for back-pressure. */
#include <string.h>

#include "drv/lu_drv.h"
#include "lu_models.h"
#include "vw_logging_unit.h"
#include "vw_logging_unit_small.h"

LU_MODEL_OPS(lu_ops_default, logging_unit, 256, 64, 4);
LU_MODEL_OPS(lu_ops_small, logging_unit_small, 16, 4, 2);
