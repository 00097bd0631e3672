#include "drv/dir_defs.h"

static const char *const tr_names[DIR_TR_NUM] = {
    "I_RdS",        "I_RdOwn",       "I_Evict",   "S_RdS",     "S_ReRead",      "S_RdOwn",
    "S_Upg",        "S_CleanEvict",  "S_StaleWr", "EM_RdS",    "EM_RdOwn",      "EM_ReRead",
    "EM_CleanEvict", "EM_DirtyEvict", "EM_WtWr",   "EM_StaleWr", "LNR_Rd",       "LNR_Wr",
};
static const char *const viol_names[DIR_VIOL_NUM] = {"NONE",    "ADDR",  "REGION", "NOT_OWNER",
                                                     "DUP_REQ", "BIRSP", "BAD_MSG"};

const char *dir_tr_name(dir_tr_e tr) { return (unsigned)tr < DIR_TR_NUM ? tr_names[tr] : "?"; }
const char *dir_viol_name(dir_viol_e v) { return (unsigned)v < DIR_VIOL_NUM ? viol_names[v] : "?"; }

