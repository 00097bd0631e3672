/* The applications' sizes in the system tests (tb/harness/wl_tiny.h). */
#include "wl_tiny.h"

const char *const wl_tiny_sets[] = {
    "workload.bodytrack_particles=16", "workload.bodytrack_layers=2", "workload.bodytrack_frames=1",
    "workload.bodytrack_image=16",
    "workload.fluidanimate_particles=128", "workload.fluidanimate_frames=1",
    "workload.streamcluster_points=64", "workload.streamcluster_dims=4", "workload.streamcluster_centers=4",
    "workload.streamcluster_chunk=32",
    "workload.canneal_elements=128", "workload.canneal_swaps=8", "workload.canneal_steps=4",
    "workload.raytrace_image=16", "workload.raytrace_triangles=64",
    "workload.barnes_bodies=64", "workload.barnes_steps=1",
    "workload.ocean_grid=14", "workload.ocean_iters=2",
    "workload.ycsb_records=48", "workload.ycsb_ops=96",
    NULL,
};
