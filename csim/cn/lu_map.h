/* The replica map: which LUs hold a line's log records and which MN each LU dumps to.
 *
 * Replica groups, buckets and MNs (docs/architecture.md 11f):
 *   - a line's bucket is its address's 6-bit chunks folded by XOR (lu_map_bucket; the RTL's
 *     line_bucket): 64 buckets, consecutive lines in different ones;
 *   - every bucket has one owner among the live CNs, the live CNs in turn (lu_map_init, lu_map_own);
 *   - the replica set of a line is its bucket's owner and the Nr - 1 live CNs after it, cyclically
 *     (lu_map_replicas); the writer may be one of them;
 *   - every LU dumps its whole DRAM log (the RTL's cfg_own_i stays all ones), to MN i mod num_mn
 *     for LU i: a line's records reach the stores of all its replicas, so that they survive any
 *     replica's failure, and each LU clears only what its own store holds. MN j's store
 *     synchronizes the LUs that dump to it (lu_map_lus_of_mn of them per epoch), and orders
 *     versions from several LUs by dump epoch, then TS (csim/mn/mn_log.h). Every LU dumps in every
 *     epoch (the dump period and Early Flush reach them all), so every store's epoch completes.
 * Live CNs: after a failure, lu_map_fail moves the failed owner's buckets to the next live CN, and
 * the failed LU's MN store expects one LU less (mn/lu_store.h, lu_store_drop_lu). docs/architecture.md 11g. */
#ifndef LU_MAP_H
#define LU_MAP_H

#include <stdint.h>

#define LU_MAP_BUCKETS 64

typedef struct lu_map {
    unsigned num_cn;
    uint32_t live;                 /* bit c: CN c is alive */
    uint8_t owner[LU_MAP_BUCKETS]; /* the live CN that owns (dumps) bucket b */
} lu_map_t;

/** The bucket (0 .. 63) of a line address. */
unsigned lu_map_bucket(uint64_t line);
/** Buckets dealt to the live CNs of live (bit c: CN c; num_cn <= 32) in turn: bucket b to the
 *  (b mod n)-th of the n live ones. */
void lu_map_init(lu_map_t *m, unsigned num_cn, uint32_t live);
/** CN cn failed (recovery, docs/architecture.md 11g): it leaves the live set and its buckets go
 *  to the next live CN after it, its replica sets' second member, which holds every record of
 *  them since the last dump (nr >= 2); no other bucket changes owner, and a replica set only loses
 *  cn and gains the next live CN after its last member. */
void lu_map_fail(lu_map_t *m, unsigned cn);
/** Live CNs. */
unsigned lu_map_live(const lu_map_t *m);
/** The buckets CN cn owns (bit b: bucket b); 0 for a failed CN. */
uint64_t lu_map_own(const lu_map_t *m, unsigned cn);
/** The CN that owns line's bucket. */
unsigned lu_map_owner(const lu_map_t *m, uint64_t line);
/** The replica CNs of line into out[0 .. nr - 1] (owner first, then the live CNs after it);
 *  returns nr, capped at the live CNs. */
unsigned lu_map_replicas(const lu_map_t *m, uint64_t line, unsigned nr, unsigned *out);
/** The MN index CN cn's LU dumps to, and the number of LUs that dump to MN mn. */
unsigned lu_map_mn(unsigned cn, unsigned num_mn);
unsigned lu_map_lus_of_mn(unsigned mn, unsigned num_cn, unsigned num_mn);

#endif
