/* dir_waves: traces the directory controller's read-for-ownership scenario (csim/gen/dir_scn.h: three
 * CNs share a line, a fourth reads it for ownership) to an FST for the saved GTKWave view
 * waves/dir_ctrl.gtkw. `make waves-dir` runs it and renders the view to build/waves/dir.png.
 *
 *   dir_waves --trace FILE.fst [--window FILE]
 *
 * Prints every message of the run (cycle, direction, opcode, source, destination, tag, line) and
 * the read for ownership's time window; --window writes that window as scripts/waves.sh options
 * (`--from <ps>ps --to <ps>ps`). Exit status 1 when the scenario does not complete, 2 on wrong
 * arguments. The model is dir_ctrl (test flavour: assertions on), the default sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv/dir_drv.h"
#include "gen/dir_scn.h"
#include "vw_dir_ctrl.h"

DIR_MODEL_OPS(dir_waves_ops, dir_ctrl, 16, 256, 4, 4, 16);

static const char *node(unsigned id, char *buf, size_t n)
{
    if (id >= MSG_MN_BASE)
        snprintf(buf, n, "MN%u", id - MSG_MN_BASE);
    else
        snprintf(buf, n, "CN%u", id);
    return buf;
}

int main(int argc, char **argv)
{
    const char *trace = NULL, *window = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trace") && i + 1 < argc)
            trace = argv[++i];
        else if (!strcmp(argv[i], "--window") && i + 1 < argc)
            window = argv[++i];
        else {
            fprintf(stderr, "usage: dir_waves --trace FILE.fst [--window FILE]\n");
            return 2;
        }
    }
    if (!trace) {
        fprintf(stderr, "usage: dir_waves --trace FILE.fst [--window FILE]\n");
        return 2;
    }
    static dir_scn_t s;
    int rc = dir_scn_rdx(&dir_waves_ops, trace, &s);
    for (size_t i = 0; i < s.nmsg; i++) {
        const dir_scn_msg_t *x = &s.msg[i];
        char a[8], b[8];
        printf("%s cycle %4llu  %-4s %-12s %s -> %s  tag 0x%03x  line 0x%llx\n", i == s.rdx ? "*" : " ",
               (unsigned long long)x->cycle, x->to_dir ? "in" : "out", msg_name(x->m.opcode),
               node(x->m.src, a, sizeof a), node(x->m.dst, b, sizeof b), x->m.tag, (unsigned long long)x->m.addr);
    }
    if (rc != 0) {
        fprintf(stderr, "dir_waves: the scenario did not complete: %s\n", s.err);
        return 1;
    }
    uint64_t from = s.from_cycle * s.period_ps, to = s.to_cycle * s.period_ps;
    printf("dir_waves: traced to %s; the read for ownership (*) from %llu to %llu ps (cycles %llu to %llu; its "
           "memory read at cycle %llu)\n",
           trace, (unsigned long long)from, (unsigned long long)to, (unsigned long long)s.from_cycle,
           (unsigned long long)s.to_cycle, (unsigned long long)s.mem_rd_cycle);
    if (window) {
        FILE *f = fopen(window, "w");
        if (!f || fprintf(f, "--from %llups --to %llups\n", (unsigned long long)from, (unsigned long long)to) < 0 ||
            fclose(f) != 0) {
            fprintf(stderr, "dir_waves: cannot write %s\n", window);
            return 1;
        }
    }
    return 0;
}
