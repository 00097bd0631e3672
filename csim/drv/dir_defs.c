#include "drv/dir_defs.h"

static const char *const tr_names[DIR_TR_NUM] = DIR_TR_NAMES;
static const char *const viol_names[DIR_VIOL_NUM] = DIR_VIOL_NAMES;

const char *dir_tr_name(dir_tr_e tr) { return (unsigned)tr < DIR_TR_NUM ? tr_names[tr] : "?"; }
const char *dir_viol_name(dir_viol_e v) { return (unsigned)v < DIR_VIOL_NUM ? viol_names[v] : "?"; }

