/* diktamo_cfg: reads and checks a configuration without simulating.
 *   --shape  prints the fabric shape the configuration needs (c16m16): scripts/run_sim.sh builds
 *            the simulator for it;
 *   --doc    prints the reference of every key (sim_configs/README.md is this output);
 *   --dump   prints the effective configuration, every key with its origin.
 * Bad input: one line naming file, line and key; exit status 2. */
#include <stdio.h>

#include "base/cli.h"
#include "base/config.h"

static const char usage[] = "[--config FILE] [--set section.key=value]... [--seed N] [--shape | --doc | --dump]";

int main(int argc, char **argv)
{
    cli_opts_t o;
    cli_parse(argc, argv, &o, "diktamo_cfg", usage);
    if (o.doc)
        return config_write_doc(stdout) ? 1 : 0;
    sim_config_t *c = &(sim_config_t){0};
    cli_load_config(&o, c);
    if (o.shape)
        printf("c%llum%llu\n", (unsigned long long)c->system.num_cn, (unsigned long long)c->system.num_mn);
    else if (o.dump)
        return config_write_ini(c, stdout) ? 1 : 0;
    else
        printf("%s: ok\n", o.config);
    return 0;
}
