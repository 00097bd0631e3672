#include "base/config.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "msg_defs.h"

/* ---------------------------------------------------------------------------------------------
 * Units */

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define GIB (1ull << 30)
#define TIB (1ull << 40)
#define PS 1ull
#define NS 1000ull
#define US 1000000ull
#define MS 1000000000ull
#define SEC 1000000000000ull
#define HZ 1ull
#define KHZ 1000ull
#define MHZ 1000000ull
#define GHZ 1000000000ull

typedef struct unit {
    const char *name;
    uint64_t scale;
} unit_t;

/* Smallest unit first: it is the unit of the stored value. */
static const unit_t size_units[] = {
    {"B", 1}, {"KiB", KIB}, {"MiB", MIB}, {"GiB", GIB}, {"TiB", TIB}, {NULL, 0}};
static const unit_t time_units[] = {
    {"ps", PS}, {"ns", NS}, {"us", US}, {"ms", MS}, {"s", SEC}, {NULL, 0}};
static const unit_t freq_units[] = {
    {"Hz", HZ}, {"kHz", KHZ}, {"MHz", MHZ}, {"GHz", GHZ}, {NULL, 0}};

/* ---------------------------------------------------------------------------------------------
 * The key table: the single description of every key. */

typedef enum ktype { T_UINT, T_SIZE, T_TIME, T_FREQ, T_REAL, T_BOOL, T_ENUM } ktype_e;

/* A value of any type: u for every integer-like type (bool 0/1, enum index), d for T_REAL. */
typedef union kval {
    uint64_t u;
    double d;
} kval_t;

enum {
    F_POW2 = 1u << 0, /* must be a power of two */
    F_LINE = 1u << 1, /* must be a multiple of the cache line (MSG_LINE_BYTES) */
};

typedef struct cfg_key {
    const char *sec;
    const char *key;
    ktype_e type;
    size_t off;               /* offset of the field in sim_config_t */
    const char *unit;         /* what a T_UINT / T_REAL counts (documentation only) */
    kval_t def, lo, hi;       /* default and inclusive range */
    unsigned flags;           /* F_* */
    const char *const *names; /* T_ENUM: the names, index = stored value, NULL-terminated */
    const char *doc;          /* one line; "Table II" or "assumption" says where the default is from */
} cfg_key_t;

static const char *const protocol_names[] = {"wb", "wt", "baseline", "parallel", "proactive", NULL};
static const char *const sync_names[] = {"replicated", "ideal", NULL};
static const char *const key_dist_names[] = {"uniform", "zipfian", NULL};
static const char *const writeback_names[] = {"line", "word", NULL};
static const char *const reserve_names[] = {"per_core", "none", NULL};
static const char *const skip_flush_names[] = {"none", "reader", "writer", "compactor", "redo", NULL};
static const char *const workload_names[] = {"bodytrack", "fluidanimate", "streamcluster", "canneal", "raytrace",
                                             "barnes", "ocean_ncp", "ocean_cp", "ycsb", "hcmeta", "megalon",
                                             "sc_btree", "sc_art", "sc_lsm", "prism", NULL};
_Static_assert(sizeof(cfg_workload_e) == sizeof(int), "enum fields are stored through an int");
_Static_assert(sizeof(cfg_protocol_e) == sizeof(int), "enum fields are stored through an int");
_Static_assert(sizeof(cfg_head_reserve_e) == sizeof(int), "enum fields are stored through an int");
_Static_assert(sizeof(cfg_skip_flush_e) == sizeof(int), "enum fields are stored through an int");

#define F(path) offsetof(sim_config_t, path)
#define U(x) {.u = (x)}
#define D(x) {.d = (x)}

static const cfg_key_t keys[] = {
    /* [sim] */
    {"sim", "seed", T_UINT, F(sim.seed), "", U(1), U(0), U(UINT64_MAX), 0, NULL,
     "seed of every random stream of a run; same seed, same run"},
    {"sim", "end_time", T_TIME, F(sim.end_time_ps), NULL, U(100 * MS), U(1 * NS), U(1000 * SEC), 0,
     NULL, "longest simulated time of a run: a workload not finished by then fails; a --traffic run "
     "stops there"},
    {"sim", "progress", T_BOOL, F(sim.progress), NULL, U(1), U(0), U(1), 0, NULL,
     "show a progress line on stderr during a run (only when stderr is a terminal)"},
    {"sim", "stall_timeout", T_TIME, F(sim.stall_timeout_ps), NULL, U(1 * MS), U(1 * NS),
     U(1000 * SEC), 0, NULL,
     "simulated time without progress (no instruction retired, no MN DRAM access, no answer taken by an MN's "
     "recovery handler) after which a run stops and dumps what waits on what"},
    {"sim", "threads", T_UINT, F(sim.threads), "threads", U(1), U(1), U(2), 0, NULL,
     "host threads of a run: 1, or 2 to evaluate the switch's RTL on a second thread while the other "
     "models run (the same results; faster on a machine with a core to spare)"},
    {"sim", "zlib_threads", T_UINT, F(sim.zlib_threads), "threads", U(0), U(0), U(CONFIG_MAX_ZLIB_THREADS), 0, NULL,
     "host threads that compress the Logging Units' dumps ahead of the simulation, besides sim.threads "
     "(the same results; 0: each dump is compressed as its records come, on the simulation's thread)"},

    /* [system] */
    {"system", "num_cn", T_UINT, F(system.num_cn), "CNs", U(16), U(2), U(MSG_MAX_CN), 0, NULL,
     "compute nodes (Table II: 16); at most MSG_MAX_CN, fixed by the message format; at least 2, "
     "the switch's smallest shape"},
    {"system", "num_mn", T_UINT, F(system.num_mn), "MNs", U(16), U(2), U(MSG_MAX_MN), F_POW2, NULL,
     "memory nodes (Table II: 16); a power of two (the directories' address map) from 2 (the "
     "switch's smallest shape) to MSG_MAX_MN (the message format)"},
    {"system", "cores_per_cn", T_UINT, F(system.cores_per_cn), "cores", U(4), U(1),
     U(1u << MSG_CORE_ID_W), 0, NULL,
     "out-of-order cores per CN (Table II: 4); at most 2^MSG_CORE_ID_W"},

    /* [core] */
    {"core", "freq", T_FREQ, F(core.freq_hz), NULL, U(2400 * MHZ), U(100 * MHZ), U(10 * GHZ), 0,
     NULL, "core clock (Table II: 2.4 GHz); period = config_period_ps(), rounded to 1 ps"},
    {"core", "lq_size", T_UINT, F(core.lq_size), "entries", U(128), U(1), U(1024), 0, NULL,
     "load queue entries per core (Table II: 128)"},
    {"core", "sq_size", T_UINT, F(core.sq_size), "entries", U(72), U(1), U(1024), 0, NULL,
     "store queue / store buffer entries per core (Table II: 72)"},
    {"core", "rob_size", T_UINT, F(core.rob_size), "entries", U(352), U(1), U(4096), 0, NULL,
     "reorder buffer entries per core (assumption, not in Table II: Sunny Cove's 352, the core "
     "whose LQ/SQ sizes Table II gives)"},
    {"core", "width", T_UINT, F(core.width), "instructions per cycle", U(4), U(1), U(16), 0, NULL,
     "instructions each core dispatches into and retires from its ROB per cycle (assumption)"},
    {"core", "protocol", T_ENUM, F(core.protocol), NULL, U(CFG_PROTO_WB), U(0),
     U(CFG_PROTO_COUNT - 1), 0, protocol_names,
     "remote-store protocol: wb (not resilient), wt, DIKTAMO baseline, parallel or proactive"},
    {"core", "coalesce", T_BOOL, F(core.coalesce), NULL, U(1), U(0), U(1), 0, NULL,
     "a retiring store merges into the youngest not-draining store-buffer entry of its line when it "
     "writes another word (one commit); false with proactive: DIKTAMO-proactive-noC"},
    {"core", "sync", T_ENUM, F(core.sync), NULL, U(CFG_SYNC_REPLICATED), U(0), U(CFG_SYNC_COUNT - 1), 0,
     sync_names,
     "lock and barrier writes: replicated (as real hardware must) or ideal (as under wb in every "
     "protocol: the paper's idealized synchronization; no failure then)"},

    /* [l1] [l2] [l3] */
    {"l1", "size", T_SIZE, F(l1.size_bytes), NULL, U(48 * KIB), U(1 * KIB), U(1 * GIB), 0, NULL,
     "private L1 data cache per core (Table II: 48 KiB)"},
    {"l1", "ways", T_UINT, F(l1.ways), "ways", U(12), U(1), U(64), 0, NULL,
     "L1 associativity (Table II: 12)"},
    {"l1", "latency", T_UINT, F(l1.latency_cycles), "core cycles", U(5), U(1), U(1000), 0, NULL,
     "L1 round-trip hit latency (Table II: 5 cycles)"},
    {"l2", "size", T_SIZE, F(l2.size_bytes), NULL, U(512 * KIB), U(1 * KIB), U(1 * GIB), 0, NULL,
     "private L2 cache per core (Table II: 512 KiB)"},
    {"l2", "ways", T_UINT, F(l2.ways), "ways", U(8), U(1), U(64), 0, NULL,
     "L2 associativity (Table II: 8)"},
    {"l2", "latency", T_UINT, F(l2.latency_cycles), "core cycles", U(13), U(1), U(1000), 0, NULL,
     "L2 round-trip hit latency (Table II: 13 cycles)"},
    {"l3", "size", T_SIZE, F(l3.size_bytes), NULL, U(8 * MIB), U(1 * KIB), U(1 * GIB), 0, NULL,
     "shared inclusive L3 cache, total per CN (Table II: 8 MiB)"},
    {"l3", "ways", T_UINT, F(l3.ways), "ways", U(16), U(1), U(64), 0, NULL,
     "L3 associativity (Table II: 16)"},
    {"l3", "latency", T_UINT, F(l3.latency_cycles), "core cycles", U(36), U(1), U(1000), 0, NULL,
     "L3 round-trip hit latency (Table II: 36 cycles)"},

    /* [mem] */
    {"mem", "dram_latency", T_TIME, F(mem.dram_latency_ps), NULL, U(45 * NS), U(1 * NS),
     U(10 * US), 0, NULL, "DRAM access latency of MN memory (Table II: 45 ns)"},
    {"mem", "interleave", T_SIZE, F(mem.interleave_bytes), NULL, U(4 * KIB), U(64), U(1 * GIB),
     F_POW2 | F_LINE, NULL,
     "granularity at which remote memory is interleaved across the MNs (assumption)"},
    {"mem", "scr_size", T_SIZE, F(mem.scr_size_bytes), NULL, U(0), U(0), U(256 * TIB), F_LINE,
     NULL, "bytes of the Small Coherent Region; 0 = all remote memory is coherent (DIKTAMO)"},
    {"mem", "lnr_writeback", T_ENUM, F(mem.lnr_writeback), NULL, U(CFG_LNR_WB_LINE), U(0), U(CFG_LNR_WB_COUNT - 1), 0,
     writeback_names,
     "what a dirty LNR line writes back: the whole line (real hardware) or only its dirty words"},
    {"mem", "mn_size", T_SIZE, F(mem.mn_size_bytes), NULL, U(1 * GIB), U(4 * KIB), U(128 * GIB),
     F_POW2, NULL, "remote memory on each MN (assumption; a power of two, its lines counted in 32 "
     "bits by the directory)"},
    {"mem", "local_size", T_SIZE, F(mem.local_size_bytes), NULL, U(1 * GIB), U(4 * KIB),
     U(1024 * GIB), F_LINE, NULL, "local memory of each CN, for thread-private data (assumption)"},
    {"mem", "local_latency", T_TIME, F(mem.local_latency_ps), NULL, U(50 * NS), U(1 * NS),
     U(10 * US), 0, NULL,
     "access latency of a CN's local DRAM after an L3 miss (assumption: the 45 ns DRAM plus the "
     "memory controller)"},

    /* [fabric] */
    {"fabric", "freq", T_FREQ, F(fabric.freq_hz), NULL, U(1 * GHZ), U(100 * MHZ), U(5 * GHZ), 0,
     NULL, "clock of the switch and directories (assumption: 1 GHz, 64 B/cycle/port = 4 TB/s "
     "aggregate with 32 ports, Table II)"},
    {"fabric", "link_latency", T_TIME, F(fabric.link_latency_ps), NULL, U(36 * NS), U(1 * NS),
     U(10 * US), 0, NULL,
     "one-way latency between a node's adapter and its switch port (assumption: 4 x 36 ns + "
     "45 ns DRAM + 11 switch and directory cycles = Table II's 200 ns round trip)"},
    {"fabric", "link_jitter", T_TIME, F(fabric.link_jitter_ps), NULL, U(0), U(0), U(10 * US), 0,
     NULL, "largest random extra delay per message on a link; nonzero may reorder messages"},
    {"fabric", "link_credits", T_UINT, F(fabric.link_credits), "credits per class", U(0), U(0),
     U(CONFIG_MAX_LINK_CREDITS), 0, NULL,
     "credits per class each side of a link grants the other (switch inputs, node receive buffers); "
     "0 = bandwidth x delay: 2 x (link_latency + link_jitter) + 2 cycles (74 at 1 GHz, 36 ns)"},
    {"fabric", "heartbeat", T_UINT, F(fabric.heartbeat_cycles), "fabric cycles", U(256), U(0),
     U(1u << 30), 0, NULL,
     "a live CN's link layer sends a heartbeat when its link into the switch has carried nothing "
     "for this long; 0 = never (assumption)"},
    {"fabric", "silence_limit", T_UINT, F(fabric.silence_cycles), "fabric cycles", U(4096), U(0),
     U(0x7fffffff), 0, NULL,
     "the switch declares a CN failed when its link stays silent this long (no message, credit "
     "or heartbeat); switch CSR SILENCE_LIMIT; 0 = rule off (assumption: 16 heartbeats)"},
    {"fabric", "accept_limit", T_UINT, F(fabric.accept_cycles), "fabric cycles", U(65536), U(0),
     U(0x7fffffff), 0, NULL,
     "the switch declares a CN failed when a message for it waits this long for a credit with "
     "none taken; switch CSR ACCEPT_LIMIT; 0 = rule off (assumption)"},

    /* [lu] */
    {"lu", "freq", T_FREQ, F(lu.freq_hz), NULL, U(500 * MHZ), U(50 * MHZ), U(5 * GHZ), 0, NULL,
     "Logging Unit clock (Table II: 500 MHz)"},
    {"lu", "sram_bytes", T_SIZE, F(lu.sram_bytes), NULL, U(4 * KIB), U(64), U(1 * MIB), F_LINE,
     NULL, "SRAM log buffer per LU (Table II: 4 KB, read as 4 KiB)"},
    {"lu", "dram_log_bytes", T_SIZE, F(lu.dram_log_bytes), NULL, U(18 * MIB), U(4 * KIB),
     U(4 * GIB), F_LINE, NULL, "DRAM log per LU (Table II: 18 MB, read as 18 MiB)"},
    {"lu", "dump_period", T_TIME, F(lu.dump_period_ps), NULL, U(2500 * US), U(1 * US),
     U(10 * SEC), 0, NULL, "period between log dumps to the MNs (Table II: 2.5 ms)"},
    {"lu", "nr", T_UINT, F(lu.nr), "copies", U(3), U(1), U(MSG_MAX_CN), 0, NULL,
     "replication factor Nr: LUs each remote store is replicated to (Table II: 3)"},
    {"lu", "zlib_level", T_UINT, F(lu.zlib_level), "level", U(9), U(0), U(9), 0, NULL,
     "compression level of log dumps (paper: gzip level 9)"},
    {"lu", "high_watermark", T_REAL, F(lu.high_watermark), "fraction of dram_log_bytes", D(0.9),
     D(0.05), D(1.0), 0, NULL,
     "DRAM log fill level that triggers an early dump (assumption)"},
    {"lu", "head_reserve", T_ENUM, F(lu.head_reserve), NULL, U(CFG_RESERVE_PER_CORE), U(0),
     U(CFG_RESERVE_COUNT - 1), 0, reserve_names,
     "room each LU's buffer keeps for store-buffer heads: per_core (a REPL set per core; proactive's early "
     "sets share the rest) or none (early sets bounded by the SBs only, as the paper: may deadlock)"},

    /* [recovery] */
    {"recovery", "rec_search", T_TIME, F(recovery.rec_search_ps), NULL, U(1 * NS), U(0), U(1 * US), 0, NULL,
     "an MN recovery handler's search time per log record its store holds (MNMerge; assumption: "
     "16-byte records streamed from MN DRAM)"},

    /* [fail] */
    {"fail", "cn", T_UINT, F(fail.cn), "CN", U(0), U(0), U(MSG_MAX_CN - 1), 0, NULL,
     "the CN that fails (fail-stop) when fail.at or fail.after_commits is set"},
    {"fail", "at", T_TIME, F(fail.at_ps), NULL, U(0), U(0), U(10 * SEC), 0, NULL,
     "fail CN fail.cn this long after the threads start (0: not by time)"},
    {"fail", "after_commits", T_UINT, F(fail.after_commits), "words", U(0), U(0), U(1000000000000ull), 0, NULL,
     "fail CN fail.cn once this many remote store words have committed (0: not by count)"},
    {"fail", "random", T_BOOL, F(fail.random), NULL, U(0), U(0), U(1), 0, NULL,
     "draw the failing CN (any CN) and the moment (1 ps .. fail.at, or 1 .. fail.after_commits words) from "
     "the run's seed instead"},

    /* [traffic] */
    {"traffic", "load", T_REAL, F(traffic.load), "messages per port per fabric cycle", D(0.5),
     D(0.0), D(1.0), 0, NULL, "offered load of the traffic generator (diktamo_sim --traffic)"},
    {"traffic", "messages", T_UINT, F(traffic.messages), "messages per port", U(2000), U(0),
     U(1000000000), 0, NULL, "messages each port's generator sends (diktamo_sim --traffic)"},

    /* [workload] */
    {"workload", "name", T_ENUM, F(workload.name), NULL, U(CFG_WL_OCEAN_CP), U(0), U(CFG_WL_COUNT - 1),
     0, workload_names,
     "the workload: one of the paper's nine applications (section VI), or on partly coherent memory hcmeta, "
     "megalon, sc_btree, sc_art, sc_lsm or prism"},
    {"workload", "threads", T_UINT, F(workload.threads), "threads", U(0), U(0), U(4096), 0, NULL,
     "simulated threads, one per core, spread round-robin over the CNs; 0 = one on every core"},
    {"workload", "bodytrack_particles", T_UINT, F(workload.bodytrack_particles), "particles", U(128), U(1),
     U(1u << 24), 0, NULL, "bodytrack: particles (body poses) the filter weighs in each annealing layer (PARSEC "
     "simmedium: 2000)"},
    {"workload", "bodytrack_layers", T_UINT, F(workload.bodytrack_layers), "layers", U(3), U(1), U(64), 0, NULL,
     "bodytrack: annealing layers per frame (PARSEC: 5)"},
    {"workload", "bodytrack_frames", T_UINT, F(workload.bodytrack_frames), "frames", U(1), U(1), U(100000), 0,
     NULL, "bodytrack: video frames tracked (PARSEC simmedium: 2)"},
    {"workload", "bodytrack_image", T_UINT, F(workload.bodytrack_image), "pixels", U(32), U(8), U(4096), 0, NULL,
     "bodytrack: pixels per side of each camera's square image (PARSEC simmedium: 640 x 480, about 554 a side)"},
    {"workload", "fluidanimate_particles", T_UINT, F(workload.fluidanimate_particles), "particles", U(768), U(16),
     U(1u << 26), 0, NULL, "fluidanimate: fluid particles in the shared grid of cells (PARSEC simmedium: 100 000)"},
    {"workload", "fluidanimate_frames", T_UINT, F(workload.fluidanimate_frames), "frames", U(2), U(1), U(100000),
     0, NULL, "fluidanimate: time steps simulated (PARSEC simmedium: 5)"},
    {"workload", "streamcluster_points", T_UINT, F(workload.streamcluster_points), "points", U(256), U(2),
     U(1u << 26), 0, NULL, "streamcluster: points of the stream, clustered one chunk at a time (PARSEC simmedium: 8192)"},
    {"workload", "streamcluster_dims", T_UINT, F(workload.streamcluster_dims), "dimensions", U(8), U(1), U(1024),
     0, NULL, "streamcluster: coordinates per point (PARSEC simmedium: 64)"},
    {"workload", "streamcluster_centers", T_UINT, F(workload.streamcluster_centers), "centers", U(4), U(1),
     U(1024), 0, NULL, "streamcluster: most medians of a chunk, kmax; the fewest is kmax / 2 (PARSEC: 20 and 10)"},
    {"workload", "streamcluster_chunk", T_UINT, F(workload.streamcluster_chunk), "points", U(128), U(2),
     U(1u << 26), 0, NULL, "streamcluster: points clustered at a time, a chunk of the stream (PARSEC simmedium: 8192)"},
    {"workload", "canneal_elements", T_UINT, F(workload.canneal_elements), "elements", U(2048), U(4), U(1u << 26),
     0, NULL, "canneal: netlist elements placed on the shared grid (PARSEC simmedium: 200 000)"},
    {"workload", "canneal_swaps", T_UINT, F(workload.canneal_swaps), "swaps per thread and step", U(8), U(1),
     U(1u << 30), 0, NULL, "canneal: swaps each thread tries at each temperature (PARSEC simmedium: 15 000 a step "
     "shared by the threads, 234 each at 64 threads)"},
    {"workload", "canneal_steps", T_UINT, F(workload.canneal_steps), "steps", U(32), U(1), U(100000), 0, NULL,
     "canneal: temperature steps, the temperature divided by 1.5 at each (PARSEC simmedium: 64)"},
    {"workload", "raytrace_image", T_UINT, F(workload.raytrace_image), "pixels per side", U(32), U(1), U(1u << 14),
     0, NULL, "raytrace: pixels per side of the rendered image, cut into 4 x 4 tiles (SPLASH-2 car: 256; the "
     "medium input: 1024, with 65 536 triangles)"},
    {"workload", "raytrace_triangles", T_UINT, F(workload.raytrace_triangles), "triangles", U(256), U(1),
     U(1u << 24), 0, NULL, "raytrace: triangles of the shared scene: a floor and up to 24 bumpy spheres (the medium "
     "input: 65 536)"},
    {"workload", "barnes_bodies", T_UINT, F(workload.barnes_bodies), "bodies", U(256), U(2), U(1u << 24), 0, NULL,
     "barnes: bodies of the N-body system, a Plummer model (SPLASH-2 default: 16 384)"},
    {"workload", "barnes_steps", T_UINT, F(workload.barnes_steps), "steps", U(2), U(1), U(100000), 0, NULL,
     "barnes: time steps, each an octree build, centres of mass, forces and a leapfrog update (SPLASH-2 "
     "default: 4, tstop 0.075 at dtime 0.025)"},
    {"workload", "ocean_grid", T_UINT, F(workload.ocean_grid), "points per side", U(64), U(2),
     U(8192), 0, NULL, "ocean_cp, ocean_ncp: interior points per side of the shared grid (a border row and column "
     "around it; SPLASH-2 default: 256)"},
    {"workload", "ocean_iters", T_UINT, F(workload.ocean_iters), "sweeps", U(4), U(1), U(100000), 0,
     NULL, "ocean_cp, ocean_ncp: red-black sweeps (each a red and a black half-sweep, with barriers)"},
    {"workload", "ycsb_records", T_UINT, F(workload.ycsb_records), "records", U(1024), U(1),
     U(1u << 30), 0, NULL, "ycsb: records in the store (paper: 1.6 M); with ycsb_ops = 0 it sizes the operations too"},
    {"workload", "ycsb_record_size", T_SIZE, F(workload.ycsb_record_bytes), NULL, U(1 * KIB), U(64),
     U(1 * MIB), F_LINE, NULL, "ycsb: bytes of one record (paper: 1 KB)"},
    {"workload", "ycsb_ops", T_UINT, F(workload.ycsb_ops), "operations", U(0), U(0), U(1ull << 40),
     0, NULL, "ycsb: get and put operations over all threads (paper: 6.4 M); 0 = four per record, the paper's ratio"},
    {"workload", "ycsb_read_pct", T_UINT, F(workload.ycsb_read_pct), "%", U(80), U(0), U(100), 0,
     NULL, "ycsb: share of the operations that are gets (paper: 80 %)"},
    {"workload", "ycsb_keys", T_ENUM, F(workload.ycsb_keys), NULL, U(CFG_KEYS_UNIFORM), U(0), U(CFG_KEYS_COUNT - 1), 0,
     key_dist_names,
     "ycsb: how keys are drawn: uniform (paper section VI) or zipfian (YCSB's scrambled Zipfian)"},
    {"workload", "ycsb_zipf_theta", T_REAL, F(workload.ycsb_zipf_theta), NULL, D(0.99), D(0.01), D(0.999), 0,
     NULL, "ycsb: the Zipfian's skew when ycsb_keys = zipfian (YCSB: 0.99)"},
    {"workload", "share_objects", T_UINT, F(workload.share_objects), "objects", U(1024), U(1), U(1u << 26), 0,
     NULL, "hcmeta, megalon: shared objects, in the LNR (assumption: the blog's 2.4 M to 24 M scaled by 1/1000); "
     "the indexes (sc_btree, sc_art, sc_lsm, prism): keys, 8 bytes each with a value of 8"},
    {"workload", "share_object_size", T_SIZE, F(workload.share_object_bytes), NULL, U(1 * KIB), U(128),
     U(1 * MIB), F_LINE, NULL, "hcmeta, megalon: bytes of one object, a header line and its payload (blog: 1 to 4 KB)"},
    {"workload", "share_ops", T_UINT, F(workload.share_ops), "operations", U(2048), U(1), U(1ull << 40), 0,
     NULL, "hcmeta, megalon, the indexes: operations over all threads"},
    {"workload", "share_read_pct", T_UINT, F(workload.share_read_pct), "%", U(95), U(0), U(100), 0, NULL,
     "hcmeta, megalon, the indexes: share of the operations that are gets (blog Fig. 6(a): 5 % writes)"},
    {"workload", "share_insert_pct", T_UINT, F(workload.share_insert_pct), "%", U(0), U(0), U(100), 0, NULL,
     "hcmeta, megalon: share of the operations that are inserts (a put that makes a deleted key present)"},
    {"workload", "share_delete_pct", T_UINT, F(workload.share_delete_pct), "%", U(0), U(0), U(100), 0, NULL,
     "hcmeta, megalon: share of the operations that are deletes (the rest, after gets and inserts, are puts)"},
    {"workload", "share_rmw_pct", T_UINT, F(workload.share_rmw_pct), "%", U(0), U(0), U(100), 0, NULL,
     "the indexes: share of the operations that are read-modify-writes (a get, then a put of the key: YCSB-F)"},
    {"workload", "share_scan_pct", T_UINT, F(workload.share_scan_pct), "%", U(0), U(0), U(100), 0, NULL,
     "the indexes: share of the operations that are range scans (the rest, after gets, read-modify-writes and "
     "scans, are puts)"},
    {"workload", "share_scan_len", T_UINT, F(workload.share_scan_len), "keys", U(16), U(1), U(256), 0, NULL,
     "the indexes: keys a range scan returns, from the drawn key on in order (assumption: the blog does not say)"},
    {"workload", "lsm_table_keys", T_UINT, F(workload.lsm_table_keys), "keys", U(8192), U(8), U(1u << 20), 0, NULL,
     "sc_lsm, prism: keys of one SSTable, a multiple of 8 (assumption: the blog does not say)"},
    {"workload", "lsm_l0_tables", T_UINT, F(workload.lsm_l0_tables), "tables", U(4), U(1), U(32), 0, NULL,
     "sc_lsm, prism: L0 tables that start their merge into L1 (LevelDB's 4)"},
    {"workload", "lsm_l1_tables", T_UINT, F(workload.lsm_l1_tables), "tables", U(4), U(1), U(64), 0, NULL,
     "sc_lsm, prism: L1's capacity in tables; a level over its capacity merges a table into the next"},
    {"workload", "lsm_level_ratio", T_UINT, F(workload.lsm_level_ratio), NULL, U(10), U(2), U(100), 0, NULL,
     "sc_lsm, prism: each level's capacity over the one above (LevelDB's 10)"},
    {"workload", "lsm_memtable", T_SIZE, F(workload.lsm_memtable), NULL, U(0), U(0), U(1 * TIB), 0, NULL,
     "sc_lsm, prism: bytes of the SCR budget for the memtable; 0 = prism: half (the blog's 64 of 128 MB), "
     "sc_lsm: all but the manifest"},
    {"workload", "lsm_manifest", T_SIZE, F(workload.lsm_manifest), NULL, U(0), U(0), U(1 * TIB), 0, NULL,
     "sc_lsm, prism: bytes of the SCR budget for the manifest of live SSTables; 0 = 1/64 (the blog's 2 of 128 MB)"},
    {"workload", "share_keys", T_ENUM, F(workload.share_keys), NULL, U(CFG_KEYS_ZIPFIAN), U(0),
     U(CFG_KEYS_COUNT - 1), 0, key_dist_names, "hcmeta, megalon, the indexes: how keys are drawn: uniform or zipfian (blog Fig. 6(a))"},
    {"workload", "share_zipf_theta", T_REAL, F(workload.share_zipf_theta), NULL, D(0.99), D(0.01), D(0.999), 0,
     NULL, "hcmeta, megalon, the indexes: the Zipfian's skew when share_keys = zipfian (YCSB: 0.99)"},
    {"workload", "share_scr_budget", T_SIZE, F(workload.share_scr_budget), NULL, U(100 * KIB), U(0), U(1 * TIB),
     0, NULL, "bytes of SCR for the metadata: 52 per object (hcmeta), 4 per record (megalon), 8 per node "
     "version (the indexes; the rest spill into the LNR) (blog: 100 MB, scaled by 1/1000); 0 = all of them"},
    {"workload", "share_skip_flush", T_ENUM, F(workload.share_skip_flush), NULL, U(CFG_SKIP_NONE), U(0),
     U(CFG_SKIP_COUNT - 1), 0, skip_flush_names, "none, or a mutation the checks must catch: reader (no stale "
     "copy flushed), writer (no new line flushed), compactor (an LSM frees an extent readers may be in), redo (no "
     "redo record)"},
    {"workload", "share_read_pause", T_TIME, F(workload.share_read_pause_ps), NULL, U(0), U(0), U(1 * SEC), 0, NULL,
     "hcmeta, megalon: a reader's pause between finding an object and reading it (an interrupt, a preemption: "
     "its checks must cover it); 0 = none"},
    {"workload", "hcmeta_rpc", T_TIME, F(workload.hcmeta_rpc_ps), NULL, U(55 * US), U(0), U(1 * SEC), 0, NULL,
     "hcmeta: the owner's software time to share an object a host asked for (blog: 55 us in Tigon's artifact)"},
    {"workload", "megalon_log_entries", T_UINT, F(workload.megalon_log_entries), "entries", U(1024), U(4),
     U(1u << 24), 0, NULL, "megalon: entries of the shared log's ring (a line each, in the LNR) (assumption)"},
    {"workload", "megalon_dual_path", T_BOOL, F(workload.megalon_dual_path), NULL, U(1), U(0), U(1), 0, NULL,
     "megalon: the dual-path check at the end of a read (false: a mutation its check must catch)"},
};

#define NUM_KEYS (sizeof keys / sizeof keys[0])
_Static_assert(NUM_KEYS <= CONFIG_MAX_KEYS, "raise CONFIG_MAX_KEYS");

typedef struct section {
    const char *name;
    const char *doc;
} section_t;

static const section_t sections[] = {
    {"sim", "The run: seed, length, progress line, deadlock watchdog, host threads."},
    {"system", "How many nodes and cores (paper Table II, System Configuration)."},
    {"core", "Each out-of-order core and the remote-store protocol it runs."},
    {"l1", "Private L1 data cache of each core (64 B lines throughout)."},
    {"l2", "Private L2 cache of each core."},
    {"l3", "Shared inclusive L3 cache of each CN."},
    {"mem", "Remote (CXL) memory on the memory nodes."},
    {"fabric", "The CXL switch clock and the links between nodes and switch ports."},
    {"lu", "The Logging Unit of each CN (paper Table II, Logging Unit)."},
    {"recovery", "The recovery software's costs (DIKTAMO section V; Table III)."},
    {"fail", "A CN failure injected into a workload run (fail-stop, DIKTAMO section III-B), then recovered."},
    {"traffic", "The synthetic traffic generator that `diktamo_sim --traffic` drives the fabric with, instead of the nodes."},
    {"workload", "The workload the simulated threads run (csim/workloads/)."},
};
#define NUM_SECTIONS (sizeof sections / sizeof sections[0])

/* ---------------------------------------------------------------------------------------------
 * Small helpers */

__attribute__((format(printf, 2, 3))) static void errf(config_err_t *e, const char *fmt, ...)
{
    if (!e)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

static bool known_section(const char *s)
{
    for (size_t i = 0; i < NUM_SECTIONS; i++)
        if (strcmp(sections[i].name, s) == 0)
            return true;
    return false;
}

static int find_key(const char *sec, const char *key)
{
    for (size_t i = 0; i < NUM_KEYS; i++)
        if (strcmp(keys[i].sec, sec) == 0 && strcmp(keys[i].key, key) == 0)
            return (int)i;
    return -1;
}

/* "sim, system, ..." */
static void list_sections(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NUM_SECTIONS && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", sections[i].name);
}

/* "size, ways, latency" */
static void list_keys(const char *sec, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NUM_KEYS && len < n; i++)
        if (strcmp(keys[i].sec, sec) == 0)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", keys[i].key);
}

static const unit_t *units_of(ktype_e t)
{
    switch (t) {
    case T_SIZE: return size_units;
    case T_TIME: return time_units;
    case T_FREQ: return freq_units;
    default: return NULL;
    }
}

static void list_units(const unit_t *u, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; u[i].name && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", u[i].name);
}

static kval_t get_val(const sim_config_t *c, const cfg_key_t *k)
{
    const char *p = (const char *)c + k->off;
    kval_t v = {.u = 0};
    switch (k->type) {
    case T_REAL: memcpy(&v.d, p, sizeof v.d); break;
    case T_BOOL: {
        bool b;
        memcpy(&b, p, sizeof b);
        v.u = b;
        break;
    }
    case T_ENUM: {
        int e;
        memcpy(&e, p, sizeof e);
        v.u = (uint64_t)e;
        break;
    }
    default: memcpy(&v.u, p, sizeof v.u); break;
    }
    return v;
}

static void set_val(sim_config_t *c, const cfg_key_t *k, kval_t v)
{
    char *p = (char *)c + k->off;
    switch (k->type) {
    case T_REAL: memcpy(p, &v.d, sizeof v.d); break;
    case T_BOOL: {
        bool b = v.u != 0;
        memcpy(p, &b, sizeof b);
        break;
    }
    case T_ENUM: {
        int e = (int)v.u;
        memcpy(p, &e, sizeof e);
        break;
    }
    default: memcpy(p, &v.u, sizeof v.u); break;
    }
}

static bool val_eq(const cfg_key_t *k, kval_t a, kval_t b)
{
    /* Reals compare by value: both come from finite parses, so == is exact. */
    return k->type == T_REAL ? a.d == b.d : a.u == b.u;
}

/* ---------------------------------------------------------------------------------------------
 * Formatting values */

/* v in the largest unit that shows it exactly with at most 3 decimals (decimal scales) or
 * exactly as an integer (binary scales, i.e. sizes). */
static void fmt_scaled(uint64_t v, const unit_t *u, bool binary, char *buf, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; u[i].name; i++) {
        uint64_t s = u[i].scale;
        if (v < s)
            break;
        if (binary ? v % s == 0 : v % (s / 1000) == 0)
            best = i;
    }
    uint64_t s = u[best].scale;
    uint64_t ip = v / s, fr = v % s;
    if (fr == 0) {
        snprintf(buf, n, "%" PRIu64 " %s", ip, u[best].name);
        return;
    }
    /* Decimal scales only: fr is a whole number of s/1000. */
    char digits[24];
    snprintf(digits, sizeof digits, "%03u", (unsigned)(fr / (s / 1000) % 1000));
    for (int i = 2; i > 0 && digits[i] == '0'; i--)
        digits[i] = '\0';
    snprintf(buf, n, "%" PRIu64 ".%s %s", ip, digits, u[best].name);
}

/* Shortest "%g" text that reads back as exactly d. */
static void fmt_real(double d, char *buf, size_t n)
{
    if (d == trunc(d) && fabs(d) < 9007199254740992.0) { /* integral: no exponent form */
        snprintf(buf, n, "%.0f", d);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            return;
    }
}

static void fmt_val(const cfg_key_t *k, kval_t v, char *buf, size_t n)
{
    switch (k->type) {
    case T_UINT: snprintf(buf, n, "%" PRIu64, v.u); break;
    case T_SIZE: fmt_scaled(v.u, size_units, true, buf, n); break;
    case T_TIME: fmt_scaled(v.u, time_units, false, buf, n); break;
    case T_FREQ: fmt_scaled(v.u, freq_units, false, buf, n); break;
    case T_REAL: fmt_real(v.d, buf, n); break;
    case T_BOOL: snprintf(buf, n, "%s", v.u ? "true" : "false"); break;
    case T_ENUM: snprintf(buf, n, "%s", k->names[v.u]); break;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Parsing values */

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* "<digits>[.<digits>][ ]<unit>" -> value in the smallest unit of u, exactly. */
static int parse_scaled(const char *s, const unit_t *u, ktype_e t, uint64_t *out, char *why,
                        size_t n)
{
    static const char *const base_name[] = {
        [T_SIZE] = "bytes", [T_TIME] = "picoseconds", [T_FREQ] = "Hz"};
    char ulist[64];
    list_units(u, ulist, sizeof ulist);
    const char *p = s;
    if (!isdigit((unsigned char)*p)) {
        snprintf(why, n, "expected a number with a unit (%s), got '%s'", ulist, s);
        return -1;
    }
    uint64_t ip = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (__builtin_mul_overflow(ip, 10, &ip) || __builtin_add_overflow(ip, *p - '0', &ip)) {
            snprintf(why, n, "'%s' is too large", s);
            return -1;
        }
    }
    uint64_t fr = 0;
    int fr_digits = 0;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) {
            snprintf(why, n, "expected digits after '.' in '%s'", s);
            return -1;
        }
        const char *f0 = p;
        while (isdigit((unsigned char)*p))
            p++;
        const char *f1 = p;
        while (f1 > f0 && f1[-1] == '0') /* trailing zeros change nothing */
            f1--;
        if (f1 - f0 > 18) {
            snprintf(why, n, "too many decimals in '%s'", s);
            return -1;
        }
        for (const char *q = f0; q < f1; q++, fr_digits++)
            fr = fr * 10 + (uint64_t)(*q - '0');
    }
    while (*p == ' ' || *p == '\t')
        p++;
    uint64_t scale = 0;
    if (*p == '\0') {
        if (t != T_SIZE && (ip != 0 || fr != 0)) {
            snprintf(why, n, "'%s' needs a unit (%s)", s, ulist);
            return -1;
        }
        scale = 1;
    } else {
        for (size_t i = 0; u[i].name; i++)
            if (strcmp(p, u[i].name) == 0)
                scale = u[i].scale;
        if (!scale) {
            if (t == T_SIZE)
                snprintf(why, n,
                         "unknown unit '%s' in '%s' (sizes take %s; SI units such as KB or MB "
                         "are not accepted, to avoid ambiguity)",
                         p, s, ulist);
            else
                snprintf(why, n, "unknown unit '%s' in '%s' (expected one of %s)", p, s, ulist);
            return -1;
        }
    }
    uint64_t v;
    if (__builtin_mul_overflow(ip, scale, &v)) {
        snprintf(why, n, "'%s' is too large", s);
        return -1;
    }
    if (fr) {
        uint64_t den = 1;
        for (int i = 0; i < fr_digits; i++)
            den *= 10;
        /* fr/den * scale must be whole: with g = gcd(scale, den), den/g must divide fr. */
        uint64_t g = gcd_u64(scale, den);
        uint64_t d = den / g, sc = scale / g, part;
        if (fr % d != 0) {
            snprintf(why, n, "'%s' is not a whole number of %s", s, base_name[t]);
            return -1;
        }
        if (__builtin_mul_overflow(fr / d, sc, &part) || __builtin_add_overflow(v, part, &v)) {
            snprintf(why, n, "'%s' is too large", s);
            return -1;
        }
    }
    *out = v;
    return 0;
}

static int parse_uint(const char *s, uint64_t *out, char *why, size_t n)
{
    const char *p = s;
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!isxdigit((unsigned char)*p) || (base == 10 && !isdigit((unsigned char)*p))) {
        snprintf(why, n, "expected an unsigned integer, got '%s'", s);
        return -1;
    }
    uint64_t v = 0;
    for (; *p; p++) {
        unsigned dgt;
        if (isdigit((unsigned char)*p))
            dgt = (unsigned)(*p - '0');
        else if (base == 16 && isxdigit((unsigned char)*p))
            dgt = (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
        else {
            snprintf(why, n, "expected an unsigned integer, got '%s'", s);
            return -1;
        }
        if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, dgt, &v)) {
            snprintf(why, n, "'%s' is too large", s);
            return -1;
        }
    }
    *out = v;
    return 0;
}

static int parse_val(const cfg_key_t *k, const char *s, kval_t *out, char *why, size_t n)
{
    if (*s == '\0') {
        snprintf(why, n, "missing value");
        return -1;
    }
    switch (k->type) {
    case T_UINT: return parse_uint(s, &out->u, why, n);
    case T_SIZE:
    case T_TIME:
    case T_FREQ: return parse_scaled(s, units_of(k->type), k->type, &out->u, why, n);
    case T_REAL: {
        char *end;
        errno = 0;
        double d = strtod(s, &end);
        if (end == s || *end != '\0') {
            snprintf(why, n, "expected a real number, got '%s'", s);
            return -1;
        }
        if (!isfinite(d) || errno == ERANGE) {
            snprintf(why, n, "'%s' is not a finite number in range", s);
            return -1;
        }
        out->d = d;
        return 0;
    }
    case T_BOOL: {
        static const char *const yes[] = {"true", "yes", "on", "1"};
        static const char *const no[] = {"false", "no", "off", "0"};
        for (size_t i = 0; i < 4; i++) {
            if (strcmp(s, yes[i]) == 0) {
                out->u = 1;
                return 0;
            }
            if (strcmp(s, no[i]) == 0) {
                out->u = 0;
                return 0;
            }
        }
        snprintf(why, n, "expected true/false, yes/no, on/off or 1/0, got '%s'", s);
        return -1;
    }
    case T_ENUM: {
        char list[128];
        size_t len = 0;
        for (size_t i = 0; k->names[i]; i++) {
            if (strcmp(s, k->names[i]) == 0) {
                out->u = i;
                return 0;
            }
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                    k->names[i]);
            if (len >= sizeof list)
                len = sizeof list - 1;
        }
        snprintf(why, n, "expected one of %s, got '%s'", list, s);
        return -1;
    }
    }
    snprintf(why, n, "internal error: unknown type");
    return -1;
}

/* Range and per-key constraints. */
static int check_val(const cfg_key_t *k, kval_t v, char *why, size_t n)
{
    char vs[64], los[64], his[64];
    bool out = k->type == T_REAL ? (v.d < k->lo.d || v.d > k->hi.d)
                                 : (v.u < k->lo.u || v.u > k->hi.u);
    if (out) {
        fmt_val(k, v, vs, sizeof vs);
        fmt_val(k, k->lo, los, sizeof los);
        fmt_val(k, k->hi, his, sizeof his);
        snprintf(why, n, "%s is out of range %s .. %s", vs, los, his);
        return -1;
    }
    if ((k->flags & F_POW2) && (v.u & (v.u - 1)) != 0) {
        fmt_val(k, v, vs, sizeof vs);
        snprintf(why, n, "%s is not a power of two", vs);
        return -1;
    }
    if ((k->flags & F_LINE) && v.u % MSG_LINE_BYTES != 0) {
        fmt_val(k, v, vs, sizeof vs);
        snprintf(why, n, "%s is not a multiple of the %u B cache line", vs, MSG_LINE_BYTES);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Defaults, origins */

void config_defaults(sim_config_t *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < NUM_KEYS; i++) {
        char why[CONFIG_ERR_MAX];
        int bad = check_val(&keys[i], keys[i].def, why, sizeof why);
        assert(!bad && "a default breaks its own key's range");
        (void)bad;
        set_val(c, &keys[i], keys[i].def);
        c->origin[i] = (config_origin_t){.src = CONFIG_SRC_DEFAULT};
    }
}

uint64_t config_period_ps(uint64_t hz)
{
    if (hz == 0)
        return 0;
    return (SEC + hz / 2) / hz;
}

static void origin_str(const sim_config_t *c, size_t ki, char *buf, size_t n)
{
    const config_origin_t *o = &c->origin[ki];
    switch (o->src) {
    case CONFIG_SRC_FILE: snprintf(buf, n, "%s:%" PRIu32, c->files[o->file], o->line); break;
    case CONFIG_SRC_SET: {
        char v[64];
        fmt_val(&keys[ki], get_val(c, &keys[ki]), v, sizeof v);
        snprintf(buf, n, "--set %s.%s=%s", keys[ki].sec, keys[ki].key, v);
        break;
    }
    default: snprintf(buf, n, "<default>"); break;
    }
}

size_t config_num_keys(void) { return NUM_KEYS; }

const char *config_key_name(size_t i, char *buf, size_t n)
{
    if (i >= NUM_KEYS)
        return NULL;
    snprintf(buf, n, "%s.%s", keys[i].sec, keys[i].key);
    return buf;
}

int config_key_index(const char *dotted)
{
    const char *dot = strchr(dotted, '.');
    if (!dot)
        return -1;
    char sec[64];
    size_t sl = (size_t)(dot - dotted);
    if (sl >= sizeof sec)
        return -1;
    memcpy(sec, dotted, sl);
    sec[sl] = '\0';
    return find_key(sec, dot + 1);
}

int config_value_str(const sim_config_t *c, const char *dotted, char *buf, size_t n)
{
    int ki = config_key_index(dotted);
    if (ki < 0)
        return -1;
    fmt_val(&keys[ki], get_val(c, &keys[ki]), buf, n);
    return 0;
}

int config_origin_str(const sim_config_t *c, const char *dotted, char *buf, size_t n)
{
    int ki = config_key_index(dotted);
    if (ki < 0)
        return -1;
    origin_str(c, (size_t)ki, buf, n);
    return 0;
}

int config_diff(const sim_config_t *a, const sim_config_t *b)
{
    for (size_t i = 0; i < NUM_KEYS; i++)
        if (!val_eq(&keys[i], get_val(a, &keys[i]), get_val(b, &keys[i])))
            return (int)i;
    return -1;
}

const char *config_protocol_name(cfg_protocol_e p)
{
    return (unsigned)p < CFG_PROTO_COUNT ? protocol_names[p] : "?";
}

const char *config_workload_name(cfg_workload_e w)
{
    return (unsigned)w < CFG_WL_COUNT ? workload_names[w] : "?";
}

/* ---------------------------------------------------------------------------------------------
 * Loading a file.
 *
 * inih does the tokenizing; our reader feeds it one line at a time and counts lines (Debian's
 * inih has no INI_HANDLER_LINENO), and on the way it
 *  - strips leading whitespace, so inih never treats an indented line as a multi-line
 *    continuation (which would show up as a confusing "duplicate key");
 *  - rejects lines too long for inih's buffer (inih would split them silently-ish);
 *  - checks section headers ("[name]" with a known name, nothing but a comment after it), so
 *    that an unknown section is reported even when it holds no key;
 *  - reports lines that are neither comment, section nor "key = value" with a clear message.
 * Parsing stops at the first error (the reader then returns end of file). */

typedef struct load_ctx {
    sim_config_t *c;
    const char *path;
    uint8_t file_idx;
    FILE *f;
    char *buf;
    size_t cap;
    uint32_t line;
    int read_errno;
    uint32_t seen[CONFIG_MAX_KEYS]; /* line where a key was set in this file, 0 if not */
    bool failed;
    uint32_t err_line;
    config_err_t *err;
} load_ctx_t;

__attribute__((format(printf, 2, 3))) static void load_fail(load_ctx_t *x, const char *fmt, ...)
{
    if (x->failed)
        return;
    x->failed = true;
    x->err_line = x->line;
    char what[CONFIG_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    errf(x->err, "%s:%" PRIu32 ": %s", x->path, x->line, what);
}

static bool is_comment_start(char ch) { return ch == ';' || ch == '#'; }

/* Validates a (leading-whitespace-stripped) line before inih sees it. */
static void precheck_line(load_ctx_t *x, char *s)
{
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    if (len == 0 || is_comment_start(s[0]))
        return;
    char shown[64];
    snprintf(shown, sizeof shown, "%.*s%s", (int)(len > 40 ? 40 : len), s, len > 40 ? "..." : "");
    if (s[0] == '[') {
        const char *close = memchr(s, ']', len);
        if (!close) {
            load_fail(x, "syntax: section header without ']': '%s'", shown);
            return;
        }
        const char *rest = close + 1;
        while (rest < s + len && isspace((unsigned char)*rest))
            rest++;
        if (rest < s + len && !is_comment_start(*rest)) {
            load_fail(x, "syntax: text after the section header: '%s'", shown);
            return;
        }
        char name[64];
        size_t nl = (size_t)(close - s - 1);
        snprintf(name, sizeof name, "%.*s", (int)(nl < sizeof name ? nl : sizeof name - 1), s + 1);
        if (!known_section(name)) {
            char known[128];
            list_sections(known, sizeof known);
            load_fail(x, "[%s]: unknown section (known: %s)", name, known);
        }
        return;
    }
    /* inih splits at the first '=' or ':'; an inline comment starts at " ;". */
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '=' || s[i] == ':')
            return;
        if (s[i] == ';' && i > 0 && isspace((unsigned char)s[i - 1]))
            break;
    }
    load_fail(x, "syntax: expected '[section]', 'key = value' or a comment, got '%s'", shown);
}

static char *load_reader(char *str, int num, void *stream)
{
    load_ctx_t *x = stream;
    if (x->failed)
        return NULL;
    errno = 0;
    ssize_t got = getline(&x->buf, &x->cap, x->f);
    if (got < 0) {
        if (ferror(x->f))
            x->read_errno = errno ? errno : EIO;
        return NULL;
    }
    x->line++;
    /* Text only: a NUL or another control character (tab and line ends aside) is not a setting. */
    for (ssize_t i = 0; i < got; i++) {
        const unsigned char b = (unsigned char)x->buf[i];
        if ((b < 0x20 && b != '\t' && b != '\r' && b != '\n') || b == 0x7f) {
            load_fail(x, "syntax: byte 0x%02x at column %zd is not text", b, i + 1);
            return NULL;
        }
    }
    char *s = x->buf;
    if (x->line == 1 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) /* UTF-8 byte order mark */
        s += 3;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    if (len + 1 > (size_t)num) {
        load_fail(x, "syntax: line longer than %d characters", num - 2);
        return NULL;
    }
    precheck_line(x, s);
    if (x->failed)
        return NULL;
    memcpy(str, s, len + 1);
    return str;
}

static int load_handler(void *user, const char *section, const char *name, const char *value)
{
    load_ctx_t *x = user;
    if (x->failed)
        return 0;
    if (!*section) {
        load_fail(x, "%s: key outside any section (put it under a [section] header)", name);
        return 0;
    }
    if (!known_section(section)) { /* precheck_line already caught it; kept for safety */
        load_fail(x, "[%s]: unknown section", section);
        return 0;
    }
    int ki = find_key(section, name);
    if (ki < 0) {
        char known[256];
        list_keys(section, known, sizeof known);
        load_fail(x, "%s.%s: unknown key in [%s] (known: %s)", section, name, section, known);
        return 0;
    }
    const cfg_key_t *k = &keys[ki];
    if (x->seen[ki]) {
        load_fail(x, "%s.%s: duplicate key (first set at line %" PRIu32 ")", k->sec, k->key,
                  x->seen[ki]);
        return 0;
    }
    char why[CONFIG_ERR_MAX];
    kval_t v;
    if (parse_val(k, value, &v, why, sizeof why) || check_val(k, v, why, sizeof why)) {
        load_fail(x, "%s.%s: %s", k->sec, k->key, why);
        return 0;
    }
    x->seen[ki] = x->line;
    set_val(x->c, k, v);
    x->c->origin[ki] = (config_origin_t){.src = CONFIG_SRC_FILE, .file = x->file_idx,
                                         .line = x->line};
    return 1;
}

/* What config_load and config_load_stream check of the name and the config before reading. */
static int load_precheck(const sim_config_t *c, const char *path, config_err_t *err)
{
    if (strlen(path) >= CONFIG_PATH_MAX) {
        errf(err, "%s: cannot open: path longer than %d characters", path, CONFIG_PATH_MAX - 1);
        return 1;
    }
    if (c->num_files >= CONFIG_MAX_FILES) {
        errf(err, "%s: cannot open: more than %d configuration files", path, CONFIG_MAX_FILES);
        return 1;
    }
    return 0;
}

/* config_load_stream once load_precheck passed. */
static int load_stream(sim_config_t *c, FILE *f, const char *path, config_err_t *err)
{
    sim_config_t tmp = *c;
    uint8_t idx = (uint8_t)tmp.num_files++;
    snprintf(tmp.files[idx], CONFIG_PATH_MAX, "%s", path);

    load_ctx_t x = {.c = &tmp, .path = path, .file_idx = idx, .f = f, .err = err};
    int r = ini_parse_stream(load_reader, &x, load_handler, &x);
    free(x.buf);

    if (x.read_errno) {
        errf(err, "%s: cannot read: %s", path, strerror(x.read_errno));
        return 1;
    }
    if (r > 0 && (!x.failed || (uint32_t)r < x.err_line)) {
        /* An error inih found that precheck_line did not: report inih's line. */
        errf(err, "%s:%d: syntax: malformed line", path, r);
        return 1;
    }
    if (x.failed)
        return 1;
    if (r < 0) {
        errf(err, "%s: cannot read: out of memory", path);
        return 1;
    }
    *c = tmp;
    return 0;
}

int config_load_stream(sim_config_t *c, FILE *f, const char *name, config_err_t *err)
{
    if (load_precheck(c, name, err))
        return 1;
    return load_stream(c, f, name, err);
}

int config_load(sim_config_t *c, const char *path, config_err_t *err)
{
    if (load_precheck(c, path, err))
        return 1;
    FILE *f = fopen(path, "r");
    if (!f) {
        errf(err, "%s: cannot open: %s", path, strerror(errno));
        return 1;
    }
    int r = load_stream(c, f, path, err);
    fclose(f);
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * --set */

static void trim(char *s)
{
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        s[--len] = '\0';
    size_t i = 0;
    while (isspace((unsigned char)s[i]))
        i++;
    memmove(s, s + i, len - i + 1);
}

int config_set(sim_config_t *c, const char *assignment, config_err_t *err)
{
    const char *eq = strchr(assignment, '=');
    char name[128], value[256];
    size_t nl = eq ? (size_t)(eq - assignment) : strlen(assignment);
    if (nl >= sizeof name || (eq && strlen(eq + 1) >= sizeof value)) {
        errf(err, "--set %s: %.*s: assignment too long", assignment, (int)(nl > 60 ? 60 : nl),
             assignment);
        return 1;
    }
    memcpy(name, assignment, nl);
    name[nl] = '\0';
    trim(name);
    if (!eq) {
        errf(err, "--set %s: %s: expected section.key=value (no '=')", assignment, name);
        return 1;
    }
    snprintf(value, sizeof value, "%s", eq + 1);
    trim(value);
    char *dot = strchr(name, '.');
    if (!dot || dot == name || !dot[1]) {
        errf(err, "--set %s: %s: expected section.key=value (the key needs its section, "
                  "as in l1.size)",
             assignment, name);
        return 1;
    }
    *dot = '\0';
    const char *sec = name, *key = dot + 1;
    if (!known_section(sec)) {
        char known[128];
        list_sections(known, sizeof known);
        errf(err, "--set %s: %s.%s: unknown section [%s] (known: %s)", assignment, sec, key, sec,
             known);
        return 1;
    }
    int ki = find_key(sec, key);
    if (ki < 0) {
        char known[256];
        list_keys(sec, known, sizeof known);
        errf(err, "--set %s: %s.%s: unknown key in [%s] (known: %s)", assignment, sec, key, sec,
             known);
        return 1;
    }
    const cfg_key_t *k = &keys[ki];
    char why[CONFIG_ERR_MAX];
    kval_t v;
    if (parse_val(k, value, &v, why, sizeof why) || check_val(k, v, why, sizeof why)) {
        errf(err, "--set %s: %s.%s: %s", assignment, k->sec, k->key, why);
        return 1;
    }
    set_val(c, k, v);
    c->origin[ki] = (config_origin_t){.src = CONFIG_SRC_SET, .line = ++c->num_sets};
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Cross-key checks */

/* Index of a key known to exist. */
static size_t kidx(const char *dotted)
{
    int i = config_key_index(dotted);
    assert(i >= 0);
    return (size_t)i;
}

/* Of two keys in a contradiction, the one to blame: the first, unless it is a default and the
 * second was set explicitly (then the user's line is the one to point at). */
static size_t blame(const sim_config_t *c, size_t a, size_t b)
{
    if (c->origin[a].src == CONFIG_SRC_DEFAULT && c->origin[b].src != CONFIG_SRC_DEFAULT)
        return b;
    return a;
}

/* "l1.ways = 12 (from small.ini:7)" */
static const char *describe(const sim_config_t *c, size_t ki, char *buf, size_t n)
{
    char v[64], o[CONFIG_PATH_MAX + 32];
    fmt_val(&keys[ki], get_val(c, &keys[ki]), v, sizeof v);
    origin_str(c, ki, o, sizeof o);
    snprintf(buf, n, "%s.%s = %s (%s)", keys[ki].sec, keys[ki].key, v, o);
    return buf;
}

__attribute__((format(printf, 4, 5))) static int vfail(const sim_config_t *c, size_t ki,
                                                       config_err_t *err, const char *fmt, ...)
{
    char o[CONFIG_PATH_MAX + 32], what[CONFIG_ERR_MAX];
    origin_str(c, ki, o, sizeof o);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    errf(err, "%s: %s.%s: %s", o, keys[ki].sec, keys[ki].key, what);
    return 1;
}

int config_validate(const sim_config_t *c, config_err_t *err)
{
    char d1[CONFIG_PATH_MAX + 128], d2[CONFIG_PATH_MAX + 128], d3[CONFIG_PATH_MAX + 128];
    const cfg_cache_t *lv[3] = {&c->l1, &c->l2, &c->l3};
    const char *ln[3] = {"l1", "l2", "l3"};
    size_t size_k[3], ways_k[3], lat_k[3];
    for (int i = 0; i < 3; i++) {
        char nb[32];
        snprintf(nb, sizeof nb, "%s.size", ln[i]);
        size_k[i] = kidx(nb);
        snprintf(nb, sizeof nb, "%s.ways", ln[i]);
        ways_k[i] = kidx(nb);
        snprintf(nb, sizeof nb, "%s.latency", ln[i]);
        lat_k[i] = kidx(nb);
    }

    /* Cache geometry: whole sets, a power-of-two number of them (set index = address bits). */
    for (int i = 0; i < 3; i++) {
        uint64_t set_bytes = lv[i]->ways * MSG_LINE_BYTES;
        size_t b = blame(c, size_k[i], ways_k[i]);
        if (lv[i]->size_bytes % set_bytes != 0)
            return vfail(c, b, err,
                         "%s and %s: the size is not a whole number of %" PRIu64
                         " B sets (ways x %u B lines)",
                         describe(c, size_k[i], d1, sizeof d1), describe(c, ways_k[i], d2, sizeof d2),
                         set_bytes, MSG_LINE_BYTES);
        uint64_t sets = lv[i]->size_bytes / set_bytes;
        if (sets & (sets - 1))
            return vfail(c, b, err,
                         "%s and %s give %" PRIu64 " sets, not a power of two (sets are indexed "
                         "by address bits)",
                         describe(c, size_k[i], d1, sizeof d1), describe(c, ways_k[i], d2, sizeof d2),
                         sets);
    }

    /* Hierarchy: each level larger than the one below; the inclusive L3 holds every L2. */
    if (c->l1.size_bytes >= c->l2.size_bytes) {
        size_t b = blame(c, size_k[0], size_k[1]);
        return vfail(c, b, err, "L1 must be smaller than L2: %s",
                     describe(c, b == size_k[0] ? size_k[1] : size_k[0], d1, sizeof d1));
    }
    size_t cores_k = kidx("system.cores_per_cn");
    if (c->l3.size_bytes < c->system.cores_per_cn * c->l2.size_bytes) {
        size_t b = blame(c, size_k[2], size_k[1]);
        b = blame(c, b, cores_k);
        return vfail(c, b, err,
                     "the inclusive L3 cannot hold the private L2s of all cores: %s, %s, %s",
                     describe(c, size_k[2], d1, sizeof d1), describe(c, size_k[1], d2, sizeof d2),
                     describe(c, cores_k, d3, sizeof d3));
    }
    for (int i = 0; i < 2; i++) {
        if (lv[i]->latency_cycles >= lv[i + 1]->latency_cycles) {
            size_t b = blame(c, lat_k[i + 1], lat_k[i]);
            return vfail(c, b, err,
                         "%s round-trip latency must exceed %s's (a miss looks up the level "
                         "below first): %s, %s",
                         ln[i + 1], ln[i], describe(c, lat_k[i], d1, sizeof d1),
                         describe(c, lat_k[i + 1], d2, sizeof d2));
        }
    }

    /* Threads run one per core. */
    if (c->workload.threads > c->system.num_cn * c->system.cores_per_cn) {
        size_t b = blame(c, kidx("workload.threads"), kidx("system.cores_per_cn"));
        b = blame(c, b, kidx("system.num_cn"));
        return vfail(c, b, err, "%" PRIu64 " threads need as many cores, but %s, %s", c->workload.threads,
                     describe(c, kidx("system.num_cn"), d1, sizeof d1),
                     describe(c, kidx("system.cores_per_cn"), d2, sizeof d2));
    }

    /* The coherent region is part of remote memory. */
    if (c->mem.scr_size_bytes > c->system.num_mn * c->mem.mn_size_bytes) {
        size_t b = blame(c, kidx("mem.scr_size"), kidx("mem.mn_size"));
        return vfail(c, b, err, "the coherent region is larger than remote memory: %s, %s, %s",
                     describe(c, kidx("mem.scr_size"), d1, sizeof d1),
                     describe(c, kidx("mem.mn_size"), d2, sizeof d2),
                     describe(c, kidx("system.num_mn"), d3, sizeof d3));
    }
    /* The sharing workloads and the indexes keep their data in the Large Non-coherent Region. */
    const bool index = c->workload.name == CFG_WL_SC_BTREE || c->workload.name == CFG_WL_SC_ART ||
                       c->workload.name == CFG_WL_SC_LSM || c->workload.name == CFG_WL_PRISM;
    const bool sharing = c->workload.name == CFG_WL_HCMETA || c->workload.name == CFG_WL_MEGALON || index;
    const char *wn = config_workload_name(c->workload.name);
    if (sharing && c->mem.scr_size_bytes == 0) {
        size_t b = blame(c, kidx("mem.scr_size"), kidx("workload.name"));
        return vfail(c, b, err, "%s keeps its objects in the Large Non-coherent Region, which mem.scr_size = 0 "
                     "leaves out (all remote memory coherent): %s, %s", wn,
                     describe(c, kidx("workload.name"), d1, sizeof d1), describe(c, kidx("mem.scr_size"), d2, sizeof d2));
    }
    if (index && c->workload.share_read_pct + c->workload.share_rmw_pct + c->workload.share_scan_pct > 100) {
        size_t b = blame(c, blame(c, kidx("workload.share_read_pct"), kidx("workload.share_rmw_pct")),
                         kidx("workload.share_scan_pct"));
        return vfail(c, b, err, "the index's gets, read-modify-writes and scans exceed 100 %%: %s, %s, %s",
                     describe(c, kidx("workload.share_read_pct"), d1, sizeof d1),
                     describe(c, kidx("workload.share_rmw_pct"), d2, sizeof d2),
                     describe(c, kidx("workload.share_scan_pct"), d3, sizeof d3));
    }
    const char *odd = index ? (c->workload.share_insert_pct   ? "workload.share_insert_pct"
                               : c->workload.share_delete_pct ? "workload.share_delete_pct"
                                                              : NULL)
                      : sharing ? (c->workload.share_rmw_pct    ? "workload.share_rmw_pct"
                                   : c->workload.share_scan_pct ? "workload.share_scan_pct"
                                                                : NULL)
                                : NULL;
    if (odd) {
        size_t b = blame(c, kidx(odd), kidx("workload.name"));
        return vfail(c, b, err, "%s has no such operations (%s): %s, %s", wn,
                     index ? "its key set is fixed: no inserts or deletes" : "no read-modify-writes or scans",
                     describe(c, kidx("workload.name"), d1, sizeof d1), describe(c, kidx(odd), d2, sizeof d2));
    }
    if (c->workload.lsm_table_keys % 8) {
        size_t k = kidx("workload.lsm_table_keys");
        return vfail(c, k, err, "an SSTable's keys fill whole lines: %s is not a multiple of 8",
                     describe(c, k, d1, sizeof d1));
    }
    const bool lsm = c->workload.name == CFG_WL_SC_LSM || c->workload.name == CFG_WL_PRISM;
    if (lsm && !c->workload.share_scr_budget) {
        size_t b = blame(c, kidx("workload.share_scr_budget"), kidx("workload.name"));
        return vfail(c, b, err, "%s sizes its memtable and manifest by the SCR budget, which is 0: %s, %s", wn,
                     describe(c, kidx("workload.name"), d1, sizeof d1),
                     describe(c, kidx("workload.share_scr_budget"), d2, sizeof d2));
    }
    if (lsm && c->workload.lsm_memtable + c->workload.lsm_manifest > c->workload.share_scr_budget) {
        size_t b = blame(c, blame(c, kidx("workload.lsm_memtable"), kidx("workload.lsm_manifest")),
                         kidx("workload.share_scr_budget"));
        return vfail(c, b, err, "the memtable and the manifest exceed the SCR budget: %s, %s, %s",
                     describe(c, kidx("workload.lsm_memtable"), d1, sizeof d1),
                     describe(c, kidx("workload.lsm_manifest"), d2, sizeof d2),
                     describe(c, kidx("workload.share_scr_budget"), d3, sizeof d3));
    }
    if (!index && c->workload.share_read_pct + c->workload.share_insert_pct + c->workload.share_delete_pct > 100) {
        size_t b = blame(c, blame(c, kidx("workload.share_read_pct"), kidx("workload.share_insert_pct")),
                         kidx("workload.share_delete_pct"));
        return vfail(c, b, err, "the sharing workloads' gets, inserts and deletes exceed 100 %%: %s, %s, %s",
                     describe(c, kidx("workload.share_read_pct"), d1, sizeof d1),
                     describe(c, kidx("workload.share_insert_pct"), d2, sizeof d2),
                     describe(c, kidx("workload.share_delete_pct"), d3, sizeof d3));
    }

    /* Replication needs Nr distinct CNs (DIKTAMO protocols only; wb and wt do not replicate). */
    if (c->core.protocol >= CFG_PROTO_BASELINE && c->lu.nr > c->system.num_cn) {
        size_t b = blame(c, kidx("lu.nr"), kidx("system.num_cn"));
        return vfail(c, b, err, "%" PRIu64 " replicas need %" PRIu64
                                " distinct CNs, but %s; %s",
                     c->lu.nr, c->lu.nr, describe(c, kidx("system.num_cn"), d1, sizeof d1),
                     describe(c, kidx("core.protocol"), d2, sizeof d2));
    }

    /* The LU's SRAM buffer drains into the DRAM log: one buffer must fit below the watermark. */
    if ((double)c->lu.sram_bytes > c->lu.high_watermark * (double)c->lu.dram_log_bytes) {
        size_t b = blame(c, kidx("lu.sram_bytes"), kidx("lu.dram_log_bytes"));
        return vfail(c, b, err, "the SRAM buffer does not fit below the DRAM log's watermark: %s, %s",
                     describe(c, kidx("lu.dram_log_bytes"), d1, sizeof d1),
                     describe(c, kidx("lu.high_watermark"), d2, sizeof d2));
    }

    /* A link cannot be crossed in less than one fabric cycle. */
    uint64_t fab_ps = config_period_ps(c->fabric.freq_hz);
    if (c->fabric.link_latency_ps < fab_ps) {
        size_t b = blame(c, kidx("fabric.link_latency"), kidx("fabric.freq"));
        return vfail(c, b, err,
                     "a link takes at least one fabric cycle (%" PRIu64 " ps): %s, %s", fab_ps,
                     describe(c, kidx("fabric.link_latency"), d1, sizeof d1),
                     describe(c, kidx("fabric.freq"), d2, sizeof d2));
    }

    /* A failure names a CN of the system, and one moment. */
    if ((c->fail.at_ps || c->fail.after_commits) && c->fail.cn >= c->system.num_cn) {
        size_t b = blame(c, kidx("fail.cn"), kidx("system.num_cn"));
        return vfail(c, b, err, "the failing CN must be one of the system's: %s, %s",
                     describe(c, kidx("fail.cn"), d1, sizeof d1), describe(c, kidx("system.num_cn"), d2, sizeof d2));
    }
    if (c->fail.random && !c->fail.at_ps && !c->fail.after_commits) {
        size_t b = kidx("fail.random");
        return vfail(c, b, err, "a random failure needs its bound: set fail.at or fail.after_commits: %s",
                     describe(c, kidx("fail.random"), d1, sizeof d1));
    }
    if (c->fail.at_ps && c->fail.after_commits) {
        size_t b = blame(c, kidx("fail.at"), kidx("fail.after_commits"));
        return vfail(c, b, err, "a failure has one moment: set fail.at or fail.after_commits, not both: %s, %s",
                     describe(c, kidx("fail.at"), d1, sizeof d1),
                     describe(c, kidx("fail.after_commits"), d2, sizeof d2));
    }
    if ((c->fail.at_ps || c->fail.after_commits) && c->core.sync == CFG_SYNC_IDEAL) {
        size_t b = blame(c, kidx("core.sync"), kidx(c->fail.at_ps ? "fail.at" : "fail.after_commits"));
        return vfail(c, b, err,
                     "ideal synchronization leaves lock and barrier words unreplicated, so a failure could lose "
                     "them: no failure with it: %s, %s",
                     describe(c, kidx("core.sync"), d1, sizeof d1),
                     describe(c, kidx(c->fail.at_ps ? "fail.at" : "fail.after_commits"), d2, sizeof d2));
    }
    if ((c->fail.at_ps || c->fail.after_commits) && c->fabric.silence_cycles == 0 && c->fabric.accept_cycles == 0) {
        size_t b = blame(c, kidx("fabric.silence_limit"), kidx("fail.cn"));
        return vfail(c, b, err, "a failure must be detected: the switch's silence and accept rules are both off: %s",
                     describe(c, kidx("fabric.silence_limit"), d1, sizeof d1));
    }

    /* Heartbeats keep idle live CNs from being declared failed by the silence rule. */
    if (c->fabric.silence_cycles &&
        (c->fabric.heartbeat_cycles == 0 || c->fabric.heartbeat_cycles >= c->fabric.silence_cycles)) {
        size_t b = blame(c, kidx("fabric.heartbeat"), kidx("fabric.silence_limit"));
        return vfail(c, b, err,
                     "idle live CNs would be declared failed: the heartbeat must be non-zero and "
                     "shorter than the silence limit: %s, %s",
                     describe(c, kidx("fabric.heartbeat"), d1, sizeof d1),
                     describe(c, kidx("fabric.silence_limit"), d2, sizeof d2));
    }

    /* The watchdog must outlast one remote miss, or it stops healthy runs: CN -> switch -> MN
     * -> switch -> CN is 4 link crossings, each up to latency + jitter, plus the MN's DRAM. */
    uint64_t rt = 4 * (c->fabric.link_latency_ps + c->fabric.link_jitter_ps) +
                  c->mem.dram_latency_ps;
    if (c->sim.stall_timeout_ps <= rt) {
        char rts[64];
        fmt_scaled(rt, time_units, false, rts, sizeof rts);
        return vfail(c, kidx("sim.stall_timeout"), err,
                     "must exceed one remote round trip, 4 x (link_latency + link_jitter) + "
                     "dram_latency = %s",
                     rts);
    }

    /* Derived credits must fit the switch's input buffers. */
    if (c->fabric.link_credits == 0 && config_link_credits(c) > CONFIG_MAX_LINK_CREDITS) {
        size_t b = blame(c, kidx("fabric.link_latency"), kidx("fabric.link_jitter"));
        return vfail(c, b, err,
                     "the links' round trip needs %" PRIu64 " credits per class to keep a link busy, more "
                     "than the switch's %u input buffer entries per class: set fabric.link_credits "
                     "(at most %u): %s, %s, %s",
                     config_link_credits(c), CONFIG_MAX_LINK_CREDITS, CONFIG_MAX_LINK_CREDITS,
                     describe(c, kidx("fabric.link_latency"), d1, sizeof d1),
                     describe(c, kidx("fabric.link_jitter"), d2, sizeof d2),
                     describe(c, kidx("fabric.freq"), d3, sizeof d3));
    }
    return 0;
}

uint64_t config_link_credits(const sim_config_t *c)
{
    if (c->fabric.link_credits)
        return c->fabric.link_credits;
    uint64_t period = config_period_ps(c->fabric.freq_hz);
    uint64_t loop = 2 * (c->fabric.link_latency_ps + c->fabric.link_jitter_ps);
    return (loop + period - 1) / period + CFG_CREDIT_TURN_CYCLES;
}

/* ---------------------------------------------------------------------------------------------
 * Writing */

int config_write_ini(const sim_config_t *c, FILE *f)
{
    fprintf(f, "; Effective DIKTAMO simulator configuration: every key, with where its value came\n"
               "; from. Loading this file reproduces the configuration exactly.\n");
    const char *cur = "";
    for (size_t i = 0; i < NUM_KEYS; i++) {
        const cfg_key_t *k = &keys[i];
        if (strcmp(cur, k->sec) != 0) {
            fprintf(f, "\n[%s]\n", k->sec);
            cur = k->sec;
        }
        char v[64], o[CONFIG_PATH_MAX + 32];
        fmt_val(k, get_val(c, k), v, sizeof v);
        origin_str(c, i, o, sizeof o);
        fprintf(f, "; %s\n%s = %s ; %s\n", k->doc, k->key, v, o);
    }
    fflush(f);
    return ferror(f) ? -1 : 0;
}

static const char *type_name(const cfg_key_t *k)
{
    switch (k->type) {
    case T_UINT: return "integer";
    case T_SIZE: return "size";
    case T_TIME: return "time";
    case T_FREQ: return "frequency";
    case T_REAL: return "real";
    case T_BOOL: return "bool";
    case T_ENUM: return "enum";
    }
    return "?";
}

/* Markdown table cell: '|' would end the cell. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
    }
}

int config_write_doc(FILE *f)
{
    fputs("# Simulation configurations\n"
          "\n"
          "<!-- Generated by config_write_doc() in csim/base/config.c from its key table; edit the "
          "table, not this file. A test checks that the two agree. -->\n"
          "\n"
          "A configuration is an INI file (`paper.ini`: the paper's Table II; `small.ini`: a small "
          "system for fast runs) plus command-line overrides. Every key below is optional: a key "
          "that is absent keeps its default. A run writes its effective configuration, every key "
          "with where its value came from, next to its statistics.\n"
          "\n"
          "## Syntax\n"
          "\n"
          "- `[section]` starts a section; `key = value` sets a key of the current section.\n"
          "- A line starting with `;` or `#` is a comment; after a value, ` ;` (a `;` after a "
          "space) starts a comment. Leading indentation is ignored (there are no continuation "
          "lines).\n"
          "- Errors, all reported with the file and line, never ignored: a line that is not one "
          "of the above, a key outside any section, an unknown section or key, a key set twice "
          "in one file, a malformed value, a value out of range. Nothing is clamped.\n"
          "- `--set section.key=value` (repeatable, applied in order after the file; a later one "
          "wins) overrides one key, for example `--set l1.size=32KiB --set core.protocol=wt`.\n"
          "- After the file and the overrides, cross-key checks reject contradictions (below).\n"
          "- Error messages are one line, `FILE:LINE: section.key: what is wrong`; for an "
          "override the place is `--set section.key=value`, for a default `<default>`.\n"
          "\n"
          "## Values\n"
          "\n"
          "| type | syntax | stored as |\n"
          "| --- | --- | --- |\n"
          "| integer | decimal digits or `0x` hex, no sign | unsigned 64-bit |\n"
          "| size | number and unit `B`, `KiB`, `MiB`, `GiB`, `TiB`; a plain number is bytes. "
          "SI units (`KB`, `MB`, ...) are rejected as ambiguous: the paper's \"4KB\" and \"18MB\" "
          "are read as KiB and MiB | bytes (must be whole) |\n"
          "| time | number and unit `ps`, `ns`, `us`, `ms`, `s` (`0` may be bare) | picoseconds "
          "(must be whole) |\n"
          "| frequency | number and unit `Hz`, `kHz`, `MHz`, `GHz` | Hz (must be whole); the clock "
          "period is rounded to the nearest picosecond: 2.4 GHz runs at 417 ps |\n"
          "| real | decimal or exponent notation, finite | double |\n"
          "| bool | `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0` | bool |\n"
          "| enum | one of the listed names | index |\n"
          "\n"
          "Numbers may have decimals when the result is whole (`2.5 ms`, `2.4 GHz`, `1.5 KiB`); "
          "the space before a unit is optional. Units are case-sensitive.\n"
          "\n"
          "## Cross-key checks\n"
          "\n"
          "- Each cache's size is a whole number of sets of `ways` x 64 B lines, and the number of "
          "sets is a power of two.\n"
          "- `l1.size` < `l2.size`; `l3.size` >= `system.cores_per_cn` x `l2.size` (the L3 is "
          "inclusive).\n"
          "- `l1.latency` < `l2.latency` < `l3.latency`.\n"
          "- With a DIKTAMO protocol (`baseline`, `parallel`, `proactive`): `lu.nr` <= "
          "`system.num_cn`.\n"
          "- `lu.sram_bytes` <= `lu.high_watermark` x `lu.dram_log_bytes`.\n"
          "- `fabric.link_latency` >= one fabric clock period.\n"
          "- `sim.stall_timeout` > 4 x (`fabric.link_latency` + `fabric.link_jitter`) + "
          "`mem.dram_latency` (one remote round trip).\n"
          "- A failure (`fail.at` or `fail.after_commits` set) names a CN of the system (`fail.cn` < "
          "`system.num_cn`), has one moment (not both keys), and must be detectable (`fabric.silence_limit` "
          "or `fabric.accept_limit` not 0); `fail.random` needs `fail.at` or `fail.after_commits` as its "
          "bound; no failure with `core.sync = ideal` (its lock and barrier words are not replicated).\n"
          "\n"
          "## Keys\n",
          f);
    for (size_t s = 0; s < NUM_SECTIONS; s++) {
        fprintf(f, "\n### [%s]\n\n%s\n\n", sections[s].name, sections[s].doc);
        fputs("| key | type | default | range | description |\n"
              "| --- | --- | --- | --- | --- |\n",
              f);
        for (size_t i = 0; i < NUM_KEYS; i++) {
            const cfg_key_t *k = &keys[i];
            if (strcmp(k->sec, sections[s].name) != 0)
                continue;
            char def[64], lo[64], hi[64];
            fmt_val(k, k->def, def, sizeof def);
            fmt_val(k, k->lo, lo, sizeof lo);
            fmt_val(k, k->hi, hi, sizeof hi);
            fprintf(f, "| `%s` | %s", k->key, type_name(k));
            if (k->unit && *k->unit)
                fprintf(f, " (%s)", k->unit);
            fprintf(f, " | `%s` | ", def);
            if (k->type == T_ENUM) {
                for (size_t j = 0; k->names[j]; j++)
                    fprintf(f, "%s`%s`", j ? ", " : "", k->names[j]);
            } else if (k->type == T_BOOL) {
                fputs("true, false", f);
            } else {
                fprintf(f, "%s .. %s", lo, hi);
            }
            if (k->flags & F_POW2)
                fputs("; power of two", f);
            if (k->flags & F_LINE)
                fprintf(f, "; multiple of %u B", MSG_LINE_BYTES);
            fputs(" | ", f);
            md_cell(f, k->doc);
            fputs(" |\n", f);
        }
    }
    fflush(f);
    return ferror(f) ? -1 : 0;
}
