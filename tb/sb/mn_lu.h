/* Test parts shared by the Logging Unit's tests (tb/test_logging_unit.c) and the MN log store's
 * (tb/test_mn_log.c): a Verilated LU (csim/drv/lu_drv) dumping to the MN log store (csim/mn/mn_log), log
 * records packed as the LU writes them, and the failure message of an MN log error. */
#ifndef MN_LU_H
#define MN_LU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drv/lu_drv.h"
#include "mn/mn_log.h"

/** Sends m to the LU behind d once a credit of its class is there (stepping the LU meanwhile; no
 *  credit within 10 000 cycles fails the test). */
void lu_send_when_credit(lu_drv_t *d, const msg_t *m);
/** Sends what the MN log store has queued to the LU behind d (every message is for it) while
 *  credits allow, the oldest first, each arriving delay cycles later. */
void mn_lu_pump(mn_log_t *mn, lu_drv_t *d, uint64_t delay);
/** Fails the test (naming ctx) when the MN log store has listed an error: the first one, with the
 *  message that showed it. */
void mn_lu_assert_clean(const mn_log_t *mn, const char *ctx);
/** All fields equal. */
bool lu_rec_eq(const lu_rec_t *a, const lu_rec_t *b);
/** r in lu_log.sv's 128-bit layout (w[0] holds bits 31:0), as the LU writes it to its DRAM log and
 *  to the dump port; the written marker is set when r->written. */
void lu_rec_pack(const lu_rec_t *r, uint32_t w[4]);

#endif
