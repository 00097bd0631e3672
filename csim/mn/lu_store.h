/* The MN's side of the Logging Units' dumps: an mn_log store (mn/mn_log.h) on one MN node, fed
 * through mn_node_on_sw and answering through mn_node_sw_send. Each LU dumps to one MN
 * (cn/lu_map.h, lu_map_mn); the store synchronizes the LUs that dump to it. */
#ifndef LU_STORE_H
#define LU_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "mn/mn_log.h"
#include "mn/mn_node.h"
#include "msg_defs.h"

typedef struct lu_store lu_store_t;
/** An mn_log store on MN mn_idx's node (it takes over mn_node_on_sw), synchronizing lus_per_epoch
 *  LUs, compact or not (mn_log_cfg_t). Messages that are not the store's (recovery's) are counted
 *  and passed to other_fn if set. */
lu_store_t *lu_store_create(mn_node_t *mn, unsigned mn_idx, unsigned lus_per_epoch, bool compact);
void lu_store_on_other(lu_store_t *s, void (*fn)(void *obj, const msg_t *m), void *obj);
/** The LU of CN cn failed: the store synchronizes one LU less (mn_log_drop_lu). */
void lu_store_drop_lu(lu_store_t *s, unsigned cn);
void lu_store_free(lu_store_t *s);
mn_log_t *lu_store_log(lu_store_t *s);
/** Messages the store did not take. */
uint64_t lu_store_others(const lu_store_t *s);

#endif
