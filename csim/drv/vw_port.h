/* Moving one wide port (above 64 bits, seen as 32-bit words: scripts/gen_vwrap.py) between a C struct
 * and a Verilated model M through the view of its ports (vw_M_ports), for drivers that step a model
 * port by port (dir_drv.h, lu_drv.h) instead of through its whole-struct set and get. */
#ifndef VW_PORT_H
#define VW_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/** Input port f of model M from src->f, written in place only when it differs (then the next
 *  evaluation takes it: touch). */
#define VW_SET_WORDS(M, p, src, f)                                                                              \
    do {                                                                                                        \
        uint32_t *w_ = vw_##M##_words_##f(p);                                                                   \
        if (memcmp(w_, (src)->f, sizeof (src)->f)) {                                                            \
            memcpy(w_, (src)->f, sizeof (src)->f);                                                              \
            vw_##M##_touch(p);                                                                                  \
        }                                                                                                       \
    } while (0)

/** Output port f of model M into dst->f (after vw_M_settle). */
#define VW_GET_WORDS(M, p, dst, f) memcpy((dst)->f, vw_##M##_words_##f(p), sizeof (dst)->f)

/** DIKTAMO_CHECK_IDLE is set (not empty, not "0"): the wrappers then evaluate every edge tick_idle
 *  would skip and compare the model's signals (scripts/gen_vwrap.py). A driver that would skip the
 *  edges after one it evaluated then steps the next one instead, so that the check sees it. */
static inline bool vw_check_idle(void)
{
    const char *v = getenv("DIKTAMO_CHECK_IDLE");
    return v && *v && strcmp(v, "0") != 0;
}

#endif
