/* What the libFuzzer harnesses of tb/fuzz/ share (make fuzz, scripts/fuzz.py). A harness checks
 * invariants of the parser it drives with FUZZ_CHECK: a broken one prints one line naming the
 * invariant and aborts, which libFuzzer reports as a crash and saves the input that caused it (its
 * replay command is what make fuzz prints). Built with clang -fsanitize=fuzzer,address,undefined. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...)                                                                                   \
    do {                                                                                                        \
        if (!(cond)) {                                                                                          \
            fprintf(stderr, "%s:%d: invariant broken: %s: ", __FILE__, __LINE__, #cond);                      \
            fprintf(stderr, __VA_ARGS__);                                                                       \
            fputc('\n', stderr);                                                                                \
            abort();                                                                                            \
        }                                                                                                       \
    } while (0)

/* An error message is one line: not empty, no line break (STYLE: `file:line: key: what`). */
static inline int fuzz_one_line(const char *msg)
{
    return msg[0] != '\0' && strchr(msg, '\n') == NULL;
}

#endif
