/* The directory controller's read-for-ownership scenario (DIKTAMO Fig. 7), driven through
 * csim/drv/dir_drv on a Verilated dir_ctrl: CNs 1, 2 and 3 read line DIR_SCN_LINE shared (the first is
 * granted E; the second snoops it with BISNP_DATA, it keeps S; the third is served from memory),
 * then CN 4 reads it for ownership (RD_OWN): the directory sends BISNP_INV to the three sharers
 * while it reads memory, collects their BIRSP_I answers (the last one after the data is in) and
 * answers DATA_E with memory's line.
 *
 * One function runs it, so that the program tracing it for the saved GTKWave view
 * (csim/main/dir_waves.c, `make waves-dir`, waves/dir_ctrl.gtkw) and the test checking its messages
 * (tb/test_dir_ctrl.c, dir_ctrl/rdx_scenario_of_the_waves_view) see the same run. */
#ifndef DIR_SCN_H
#define DIR_SCN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drv/dir_drv.h"
#include "msg_defs.h"

/** The line (global = local address: one MN, all of it coherent). */
#define DIR_SCN_LINE 0x2a5u
/** The CNs: three sharers, then the requester for ownership. */
#define DIR_SCN_SHARERS 3u
#define DIR_SCN_OWNER 4u
/** DRAM latency (ps): shorter than Table II's 45 ns so that the picture stays short. */
#define DIR_SCN_MEM_PS 20000u
/** Cycles from a BISNP_INV leaving to its BIRSP_I reaching the directory, per sharer (CN 1, 2, 3):
 *  the last answer comes after memory's data, so DATA_E waits for it. */
#define DIR_SCN_ANSWER_CYCLES {4u, 8u, 20u}
/** Messages the scenario exchanges at most (it exchanges 15). */
#define DIR_SCN_MAX_MSGS 32u

/** One message on the link. */
typedef struct dir_scn_msg {
    bool to_dir;    /* a CN sent it to the directory (else the directory sent it) */
    uint64_t cycle; /* to_dir: the cycle it is presented on rx_valid_i (the edge of that cycle takes
                       it; the trace shows it from that edge on); else the cycle whose edge the
                       driver takes it from tx_valid_o at (the trace shows it up to that edge) */
    msg_t m;
} dir_scn_msg_t;

/** What the scenario did. */
typedef struct dir_scn {
    dir_scn_msg_t msg[DIR_SCN_MAX_MSGS]; /* every message, both ways, in cycle order */
    size_t nmsg;
    size_t rdx;                  /* index in msg[] of the RD_OWN */
    uint64_t from_cycle, to_cycle; /* the read for ownership: from 2 cycles before the RD_OWN is
                                      presented to 3 cycles after DATA_E leaves */
    uint64_t mem_rd_cycle;       /* the read for ownership's memory read leaves (the edge that takes it) */
    uint64_t period_ps;          /* controller clock period: cycle c's rising edge is at c x period */
    uint64_t line[MSG_WORDS_PER_LINE]; /* memory's line (DATA_E must carry it) */
    uint32_t tr_s_rdown, snoops, birsps; /* CSRs after the run: the S_RdOwn row, BISNPs, BIRSPs */
    size_t viols;                /* violations reported */
    char err[160];               /* why the run stopped early (empty when it completed) */
} dir_scn_t;

/** Runs the scenario on a fresh controller of model ops (with an FST trace of the whole run to
 *  trace_path, unless NULL). 0 when it completed; else -1 and s->err says what was missing. */
int dir_scn_rdx(const dir_model_ops_t *ops, const char *trace_path, dir_scn_t *s);

#endif
