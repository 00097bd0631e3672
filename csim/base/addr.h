/* The address space the simulated threads see (byte addresses, 8-byte words, 64-byte lines).
 *
 *   remote (CXL) memory   [0, remote_bytes): shared by every CN; global line address = addr >> 6
 *                         (msg_t.addr), interleaved over the MNs by the directories' address map
 *                         (docs/architecture.md section 11c); the Small Coherent Region is a range
 *                         of line addresses, the rest of remote memory is the Large Non-coherent
 *                         Region.
 *   local memory          ADDR_LOCAL_BASE + [0, local_bytes): each CN's own DRAM. The same address
 *                         on two CNs names two different words (thread-private data of the threads
 *                         of that CN). Never leaves the CN, never snooped by a directory.
 */
#ifndef CN_ADDR_H
#define CN_ADDR_H

#include <stdbool.h>
#include <stdint.h>

#define ADDR_LINE_BYTES 64u
#define ADDR_WORD_BYTES 8u
#define ADDR_WORDS_PER_LINE 8u
#define ADDR_LOCAL_BASE (1ull << 47)

static inline bool addr_is_local(uint64_t a) { return a >= ADDR_LOCAL_BASE; }
/** Byte address of the line holding a. */
static inline uint64_t addr_line(uint64_t a) { return a & ~(uint64_t)(ADDR_LINE_BYTES - 1); }
/** Word index of a within its line (0..7). */
static inline unsigned addr_word(uint64_t a) { return (unsigned)(a >> 3) & 7u; }
/** Global line address of a remote byte address (msg_t.addr). */
static inline uint64_t addr_gline(uint64_t a) { return a >> 6; }
/** True when a is 8-byte aligned. */
static inline bool addr_aligned(uint64_t a) { return (a & 7u) == 0; }

#endif
