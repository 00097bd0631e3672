/* The seed of a randomized test. TB_SEED in the environment sets it (make regress walks many);
 * otherwise the test's own default is used, so that `make test` is the same every time.
 * Every randomized test prints its seed in its failure messages: rerun with TB_SEED=<seed>
 * and --filter '<suite>/<test>' to replay it exactly. */
#ifndef TB_SEED_H
#define TB_SEED_H

#include <stdint.h>

/** TB_SEED from the environment when set (decimal or 0x hex), else dflt. */
uint64_t tb_seed(uint64_t dflt);

#endif
