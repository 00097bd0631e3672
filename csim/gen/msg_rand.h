/* Random well-formed messages, for traffic generators and tests. */
#ifndef MSG_RAND_H
#define MSG_RAND_H

#include "base/rng.h"
#include "msg_defs.h"

/** Fills m as a message of type op: every field op uses random (truncated to its width), every
 *  other field zero; the mask all ones for line data and non-zero for word data; random words where
 *  the mask is set. msg_check accepts the result. */
void msg_fill_random(rng_t *r, msg_op_t op, msg_t *m);

#endif
