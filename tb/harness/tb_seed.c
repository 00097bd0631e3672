#include "tb_seed.h"

#include <stdlib.h>

uint64_t tb_seed(uint64_t dflt)
{
    const char *s = getenv("TB_SEED");
    if (!s || !*s)
        return dflt;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    return *end ? dflt : (uint64_t)v;
}
