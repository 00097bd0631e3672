/* The directory controller's encodings, shared by its C driver (csim/drv/dir_drv), its reference model
 * (tb/ref/dir_ctrl_ref) and their tests. The rows of the state x event table (DIR_TR_*, the RTL's
 * TR_*), violation kinds (DIR_VIOL_*, viol_kind_o), directory entry states (DIR_I, DIR_S, DIR_EM),
 * the CSR map (DIR_CSR_*) and the management port's commands and answers (DIR_MG_*, DIR_MR_*) are
 * generated into csr_defs.h from rtl/include/csrs.toml (docs/csrs.md); here: the entry's layout,
 * the names of rows and violations, and the address map. */
#ifndef DIR_DEFS_H
#define DIR_DEFS_H

#include <stdint.h>

#include "csr_defs.h"

/** A directory entry: state, CN vector (sharers in S, the owner's bit alone in EM), stale-write
 *  vector (CNs whose eviction or write-through crossed a snoop of the line), the line's version mod
 *  2^MSG_TS_W (docs/architecture.md section 11b). In DRAM: bits [1:0], [33:2], [65:34], [72:66]
 *  of the entry's 128-bit slot. */
typedef struct dir_entry {
    unsigned state;
    uint32_t vec, stale;
    unsigned ver;
} dir_entry_t;

/** Name of a row ("S_Upg"), of a violation kind ("NOT_OWNER"). */
const char *dir_tr_name(dir_tr_e tr);
const char *dir_viol_name(dir_viol_e v);

/* The address map of section 11c: 2^mn_shift MNs, chunks of 2^gran_shift lines. */
/** The MN (index) of global line addr. */
static inline unsigned dir_addr_mn(uint64_t addr, unsigned mn_shift, unsigned gran_shift)
{
    return (unsigned)((addr >> gran_shift) & ((1ull << mn_shift) - 1));
}
/** The local line of global line addr inside its MN. */
static inline uint64_t dir_addr_local(uint64_t addr, unsigned mn_shift, unsigned gran_shift)
{
    return ((addr >> gran_shift >> mn_shift) << gran_shift) | (addr & ((1ull << gran_shift) - 1));
}
/** The global line address of local line l of MN mn. */
static inline uint64_t dir_addr_global(uint64_t l, unsigned mn, unsigned mn_shift, unsigned gran_shift)
{
    uint64_t chunk = ((l >> gran_shift) << mn_shift) | mn;
    return (chunk << gran_shift) | (l & ((1ull << gran_shift) - 1));
}

#endif
