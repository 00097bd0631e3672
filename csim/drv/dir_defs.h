/* The directory controller's encodings, shared by its C driver (csim/drv/dir_drv), its reference model
 * (tb/ref/dir_ctrl_ref) and their tests: the rows of the state x event table (docs/architecture.md
 * section 11c; rtl/dir/dir_ctrl.sv names them TR_<row>), violation kinds (viol_kind_o), directory
 * entry states and layout, the CSR map, and the address map. */
#ifndef DIR_DEFS_H
#define DIR_DEFS_H

#include <stdint.h>

/** Rows of the state x event table (section 11c), in its order; the RTL's TR_* constants. */
typedef enum dir_tr {
    DIR_TR_I_RdS,
    DIR_TR_I_RdOwn,
    DIR_TR_I_Evict,
    DIR_TR_S_RdS,
    DIR_TR_S_ReRead,
    DIR_TR_S_RdOwn,
    DIR_TR_S_Upg,
    DIR_TR_S_CleanEvict,
    DIR_TR_S_StaleWr,
    DIR_TR_EM_RdS,
    DIR_TR_EM_RdOwn,
    DIR_TR_EM_ReRead,
    DIR_TR_EM_CleanEvict,
    DIR_TR_EM_DirtyEvict,
    DIR_TR_EM_WtWr,
    DIR_TR_EM_StaleWr,
    DIR_TR_LNR_Rd,
    DIR_TR_LNR_Wr,
    DIR_TR_NUM
} dir_tr_e;

/** Violation kinds, numbered as on the RTL's violation port (viol_kind_o). */
typedef enum dir_viol {
    DIR_VIOL_NONE = 0,
    DIR_VIOL_ADDR = 1,      /* not this MN's line, or beyond its memory */
    DIR_VIOL_REGION = 2,    /* coherent request to an LNR line, LNR request to an SCR line */
    DIR_VIOL_NOT_OWNER = 3, /* a write or eviction the state does not allow, not stale */
    DIR_VIOL_DUP_REQ = 4,   /* a request from a CN that already holds the line */
    DIR_VIOL_BIRSP = 5,     /* a snoop answer nobody awaits, or of a kind the snoop does not allow */
    DIR_VIOL_BAD_MSG = 6,   /* a class or opcode a directory does not take, or a source not a CN */
    DIR_VIOL_NUM
} dir_viol_e;

/** Directory entry states (bits [1:0] of an entry). */
enum { DIR_I = 0, DIR_S = 1, DIR_EM = 2 };

/** A directory entry: state, CN vector (sharers in S, the owner's bit alone in EM), stale-write
 *  vector (CNs whose eviction or write-through crossed a snoop of the line), the line's version mod
 *  2^MSG_TS_W (docs/architecture.md section 11b). In DRAM: bits [1:0], [33:2], [65:34], [72:66]
 *  of the entry's 128-bit slot. */
typedef struct dir_entry {
    unsigned state;
    uint32_t vec, stale;
    unsigned ver;
} dir_entry_t;

/** CSR word addresses of dir_ctrl.sv besides the rows' counters (row r at address r). */
enum dir_csr {
    DIR_CSR_SNOOPS = 0x12,     /* BISNP sent */
    DIR_CSR_BIRSPS = 0x13,     /* BIRSP received */
    DIR_CSR_DC_HITS = 0x14,    /* directory cache hits */
    DIR_CSR_DC_MISSES = 0x15,  /* directory cache misses */
    DIR_CSR_DC_WBS = 0x16,     /* directory cache write-backs */
    DIR_CSR_STALE = 0x17,      /* stale writes */
    DIR_CSR_VIOL = 0x18,       /* + kind - 1: violations of that kind */
    DIR_CSR_FULL = 0x1E,       /* cycles a new request found the table full */
    DIR_CSR_WAITED = 0x1F,     /* requests that waited behind an older one of their line */
    DIR_CSR_REQS = 0x20,       /* requests taken (REQ and RWD) */
    DIR_CSR_MEM_READS = 0x21,  /* memory reads */
    DIR_CSR_MEM_WRITES = 0x22, /* memory writes */
    DIR_CSR_IN_USE = 0x23,     /* transactions in the table now */
    DIR_CSR_TRAV_DIR = 0x24,   /* cycles of the last directory walk (TravDir) */
    DIR_CSR_WALK_LINES = 0x25, /* directory lines read by walks */
    DIR_CSR_WALK_SH = 0x26,    /* entries whose sharers lost a failed CN */
    DIR_CSR_OWNED = 0x27,      /* lines of failed owners reported (OWNED) */
    DIR_CSR_RECOVERED = 0x28,  /* lines recovered (RECOVERED) */
    DIR_CSR_NOT_OWNED = 0x29,  /* RECOVERs of lines no failed CN owned (NOT_OWNED) */
    DIR_CSR_PURGED = 0x2A,     /* snoop answers of failed sharers taken as BIRSP_I */
    DIR_CSR_VOIDED = 0x2B,     /* failed CNs' requests dropped before their decision */
    DIR_CSR_FAILED = 0x2C,     /* the failed CNs (bit per CN) */
};

/** Management port commands (mg_req_op_i) and answers (mg_rsp_kind_o). */
typedef enum dir_mg_op { DIR_MG_FAIL = 0, DIR_MG_WALK = 1, DIR_MG_RECOVER = 2, DIR_MG_RESUME = 3 } dir_mg_op_e;
typedef enum dir_mg_rsp_kind {
    DIR_MR_DONE = 0,      /* FAIL or RESUME carried out */
    DIR_MR_WALKED = 1,    /* the walk ended; count = its cycles */
    DIR_MR_OWNED = 2,     /* line was owned by a failed CN */
    DIR_MR_RECOVERED = 3, /* line's words written, its entry I (or its held transaction released) */
    DIR_MR_NOT_OWNED = 4, /* RECOVER of a line no failed CN owns: nothing done */
    DIR_MR_REFUSED = 5,   /* RECOVER of a line not this MN's, or not coherent */
    DIR_MR_BUSY = 6,      /* RECOVER that needs a transaction of its own, the table full: send it again */
} dir_mg_rsp_e;

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
