/* The simulation configuration: INI files in sim_configs/ plus `--set section.key=value`
 * overrides, parsed into one plain struct.
 *
 * Every key is described once, in the key table in config.c (section, key, type, unit, default,
 * range, one-line doc); parsing, range checks, the effective-config dump (config_write_ini) and
 * sim_configs/README.md (config_write_doc) are all driven by that table.
 *
 * Value syntax (see config_write_doc for the user-facing version):
 *   integer    decimal digits, or 0x-prefixed hex; no sign
 *   size       integer or decimal with an IEC unit: B, KiB, MiB, GiB, TiB (a plain number is
 *              bytes). SI/ambiguous units (KB, kB, MB, GB, K, M) are rejected, never guessed.
 *              The result must be a whole number of bytes ("1.5 KiB" = 1536 B is fine).
 *   time       number with a unit ps, ns, us, ms, s (0 may be written bare); stored in
 *              picoseconds, must be a whole number of them.
 *   frequency  number with a unit Hz, kHz, MHz, GHz; stored exactly in Hz (whole Hz).
 *              config_period_ps() gives the clock period rounded to the nearest picosecond.
 *   real       strtod syntax, finite
 *   bool       true/false, yes/no, on/off, 1/0
 *   enum       one of the listed names
 * Units are case-sensitive. Nothing is ever clamped: an out-of-range value is an error.
 *
 * Errors: every failing function fills config_err_t with ONE line
 *   ORIGIN: section.key: what is wrong
 * where ORIGIN is `FILE:LINE` for a file (FILE exactly as passed to config_load),
 * `--set ARGUMENT` for a --set argument (config_set quotes the argument as given; a cross-key
 * check shows `--set section.key=VALUE` with the value normalized, e.g. `--set l1.size=32 KiB`),
 * and `<default>` for a default value blamed by a cross-key check. Of two contradicting keys the
 * explicitly set one is blamed, and the other is named with its value and origin. Messages about a whole line without a key use
 * `FILE:LINE: syntax: ...` or `FILE:LINE: [name]: ...` (sections); a file that cannot be read gives
 * `FILE: cannot open: <strerror>`. The caller prints the message and exits with status 2.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONFIG_MAX_KEYS 128  /* capacity of the per-key origin array (the table is smaller) */
#define CONFIG_MAX_FILES 8   /* configuration files one sim_config_t can be loaded from */
#define CONFIG_PATH_MAX 256  /* longest remembered file path, including the NUL */
#define CONFIG_ERR_MAX 512   /* longest error message, including the NUL */
/* Limits of the models that the configuration's ranges follow (the configuration sits below them in
 * csim's layers; each model checks its own limit against these with a _Static_assert). */
#define CONFIG_MAX_LINK_CREDITS 128u /* FABRIC_MAX_CREDITS, drv/fabric.h */
#define CONFIG_MAX_ZLIB_THREADS 64u  /* LU_ZLIB_MAX_THREADS, drv/lu_zlib.h */

/** Coherence/resilience protocol of the remote-store path (paper section VI, Configurations). */
typedef enum cfg_protocol {
    CFG_PROTO_WB = 0,        /* write-back, not resilient */
    CFG_PROTO_WT = 1,        /* write-through, resilient */
    CFG_PROTO_BASELINE = 2,  /* DIKTAMO-baseline: replicate after coherence */
    CFG_PROTO_PARALLEL = 3,  /* DIKTAMO-parallel: replicate alongside coherence */
    CFG_PROTO_PROACTIVE = 4, /* DIKTAMO-proactive: replicate when the store enters the SB */
    CFG_PROTO_COUNT
} cfg_protocol_e;

/** What the writes of locks and barriers (csim/cn/wl_sync.c) do under a resilient protocol. */
typedef enum cfg_sync {
    CFG_SYNC_REPLICATED = 0, /* like every remote write (what real hardware must do) */
    CFG_SYNC_IDEAL = 1,      /* as under WB in every protocol: never written through nor
                                replicated (the paper's trace-driven model's synchronization) */
    CFG_SYNC_COUNT
} cfg_sync_e;

/** What each Logging Unit's buffer keeps out of reach of DIKTAMO-proactive's early REPL sets. */
typedef enum cfg_head_reserve {
    CFG_RESERVE_PER_CORE = 0, /* one full REPL set per core of the system, for sets at a store-buffer
                                 head; early sets share the rest, split over the CNs */
    CFG_RESERVE_NONE = 1,     /* nothing: early sets are bounded by the store buffers only (the
                                 paper's section IV-C); a full buffer holds REPLs back */
    CFG_RESERVE_COUNT
} cfg_head_reserve_e;

/** What a dirty line of the Large Non-coherent Region writes back. */
typedef enum cfg_lnr_wb {
    CFG_LNR_WB_LINE = 0, /* the whole line, as real hardware does */
    CFG_LNR_WB_WORD = 1, /* only its dirty words */
    CFG_LNR_WB_COUNT
} cfg_lnr_wb_e;

/** How ycsb and the data-sharing workloads draw their keys. */
typedef enum cfg_keys {
    CFG_KEYS_UNIFORM = 0, /* uniform (paper section VI) */
    CFG_KEYS_ZIPFIAN = 1, /* YCSB's scrambled Zipfian (rng_zipf_t) */
    CFG_KEYS_COUNT
} cfg_keys_e;

/** A data-sharing workload's flushes left out on purpose (a mutation its checks must catch). */
typedef enum cfg_skip_flush {
    CFG_SKIP_NONE = 0,   /* every flush the design needs */
    CFG_SKIP_READER = 1, /* a reader keeps its stale copy: no flush when the record moved */
    CFG_SKIP_WRITER = 2, /* a writer leaves its new object in its own CN's caches */
    CFG_SKIP_COMPACTOR = 3, /* an LSM's compactor frees a removed extent at once (readers may be in it) */
    CFG_SKIP_REDO = 4,   /* a survivor taking over a lost thread's node lock ignores its redo record */
    CFG_SKIP_COUNT
} cfg_skip_flush_e;

/** The workloads `make run` and the tests run (csim/workloads/). */
typedef enum cfg_workload {
    /* The paper's applications (section VI), in its order. */
    CFG_WL_BODYTRACK = 0,     /* PARSEC bodytrack: annealed particle filter over shared images */
    CFG_WL_FLUIDANIMATE = 1,  /* PARSEC fluidanimate: SPH particles in a shared grid of cells */
    CFG_WL_STREAMCLUSTER = 2, /* PARSEC streamcluster: online k-median over shared points */
    CFG_WL_CANNEAL = 3,       /* PARSEC canneal: simulated annealing of a shared netlist */
    CFG_WL_RAYTRACE = 4,      /* SPLASH-2 raytrace: a read-mostly scene, per-thread tiles */
    CFG_WL_BARNES = 5,        /* SPLASH-2 barnes: Barnes-Hut N-body over a shared octree */
    CFG_WL_OCEAN_NCP = 6,     /* SPLASH-2 ocean_ncp: red-black SOR, blocks of one row-major grid */
    CFG_WL_OCEAN_CP = 7,      /* SPLASH-2 ocean_cp: red-black SOR, each block contiguous */
    CFG_WL_YCSB = 8,          /* YCSB on a hashtable key-value store of 1 KB records */
    CFG_WL_HCMETA = 9, /* objects in the LNR, an index and coherence records in the SCR (HCMeta) */
    CFG_WL_MEGALON = 10, /* objects in the LNR, index replicas kept by a shared log, records in the SCR */
    CFG_WL_SC_BTREE = 11, /* a B+-tree in the LNR, a version per node in the SCR (SC-BTree) */
    CFG_WL_SC_ART = 12,   /* an adaptive radix tree in the LNR, versions in the SCR and spilled (SC-ART) */
    CFG_WL_SC_LSM = 13,   /* an LSM tree: memtable (write buffer) in the SCR, SSTables in the LNR (SC-LSM) */
    CFG_WL_PRISM = 14,    /* Prism: hot-key memtable in the SCR, the BUL, SSTables in the LNR */
    CFG_WL_COUNT
} cfg_workload_e;

/** One cache level of a CN. */
typedef struct cfg_cache {
    uint64_t size_bytes;     /* capacity (L3: total per CN) */
    uint64_t ways;           /* associativity */
    uint64_t latency_cycles; /* round-trip hit latency in core cycles */
} cfg_cache_t;

/** Where a key's value came from. */
typedef enum config_src {
    CONFIG_SRC_DEFAULT = 0,
    CONFIG_SRC_FILE = 1, /* files[file], line `line` */
    CONFIG_SRC_SET = 2,  /* the `line`-th config_set() call on this config (1-based) */
} config_src_e;

typedef struct config_origin {
    uint8_t src;   /* config_src_e */
    uint8_t file;  /* index into sim_config_t.files (CONFIG_SRC_FILE) */
    uint32_t line; /* file line, or --set ordinal */
} config_origin_t;

/** The whole configuration. A plain value: copy it, keep several, no free needed. */
typedef struct sim_config {
    struct {
        uint64_t seed;             /* seed of every random stream */
        uint64_t end_time_ps;      /* simulated time of `make run` */
        bool progress;             /* progress line on stderr (when a terminal) */
        uint64_t stall_timeout_ps; /* no-progress time after which a run stops with a dump */
        uint64_t threads;          /* host threads: 1, or 2 (the switch's evaluation on a worker) */
        uint64_t zlib_threads;     /* host threads compressing the LUs' dumps ahead (0: none) */
    } sim;
    struct {
        uint64_t num_cn;       /* compute nodes */
        uint64_t num_mn;       /* memory nodes */
        uint64_t cores_per_cn; /* cores in each CN */
    } system;
    struct {
        uint64_t freq_hz;
        uint64_t lq_size;
        uint64_t sq_size;
        uint64_t rob_size;
        uint64_t width; /* instructions dispatched / retired per cycle */
        cfg_protocol_e protocol;
        bool coalesce;
        cfg_sync_e sync;
    } core;
    cfg_cache_t l1, l2, l3;
    struct {
        uint64_t dram_latency_ps;
        uint64_t interleave_bytes;
        uint64_t scr_size_bytes; /* 0: all remote memory is coherent */
        cfg_lnr_wb_e lnr_writeback;
        uint64_t mn_size_bytes;   /* remote memory per MN */
        uint64_t local_size_bytes; /* local memory per CN */
        uint64_t local_latency_ps; /* local DRAM access latency */
    } mem;
    struct {
        uint64_t freq_hz;
        uint64_t link_latency_ps;
        uint64_t link_jitter_ps;
        uint64_t link_credits;
        uint64_t heartbeat_cycles; /* 0: no heartbeats */
        uint64_t silence_cycles;   /* 0: silence rule off */
        uint64_t accept_cycles;    /* 0: accept rule off */
    } fabric;
    struct {
        uint64_t freq_hz;
        uint64_t sram_bytes;
        uint64_t dram_log_bytes;
        uint64_t dump_period_ps;
        uint64_t nr;
        uint64_t zlib_level;
        double high_watermark;
        cfg_head_reserve_e head_reserve;
    } lu;
    struct {
        uint64_t rec_search_ps;    /* an MN log store's search time per stored record */
    } recovery;
    struct {
        uint64_t cn;               /* the CN that fails */
        uint64_t at_ps;            /* when, after the threads' start (0: not by time) */
        uint64_t after_commits;    /* or once this many remote store words have committed (0: not) */
        bool random;               /* the CN and the moment drawn from the run's seed, at most these */
    } fail;
    struct {
        double load;
        uint64_t messages;
    } traffic;
    struct {
        cfg_workload_e name;
        uint64_t threads;          /* 0: one per core */
        uint64_t bodytrack_particles;  /* per annealing layer */
        uint64_t bodytrack_layers;     /* annealing layers per frame */
        uint64_t bodytrack_frames;
        uint64_t bodytrack_image;      /* pixels per side of a camera image */
        uint64_t fluidanimate_particles;
        uint64_t fluidanimate_frames;
        uint64_t streamcluster_points;
        uint64_t streamcluster_dims;
        uint64_t streamcluster_centers; /* k */
        uint64_t streamcluster_chunk;   /* points per chunk */
        uint64_t canneal_elements;
        uint64_t canneal_swaps;        /* per thread per temperature step */
        uint64_t canneal_steps;        /* temperature steps */
        uint64_t raytrace_image;       /* pixels per side */
        uint64_t raytrace_triangles;
        uint64_t barnes_bodies;
        uint64_t barnes_steps;
        uint64_t ocean_grid;       /* ocean_cp, ocean_ncp: interior points per side */
        uint64_t ocean_iters;      /* red-black sweeps */
        uint64_t ycsb_records;
        uint64_t ycsb_record_bytes;
        uint64_t ycsb_ops;         /* in all, over the threads; 0: four per record (the paper's ratio) */
        uint64_t ycsb_read_pct;
        cfg_keys_e ycsb_keys;      /* how its keys are drawn */
        double ycsb_zipf_theta;
        /* The data-sharing workloads on partly coherent memory (hcmeta, megalon). */
        uint64_t share_objects;
        uint64_t share_object_bytes;
        uint64_t share_ops;        /* in all, over the threads */
        uint64_t share_read_pct;
        uint64_t share_insert_pct;
        uint64_t share_delete_pct;
        uint64_t share_rmw_pct;    /* the indexes' read-modify-writes (YCSB-F) */
        uint64_t share_scan_pct;   /* the indexes' range scans */
        uint64_t share_scan_len;   /* keys a scan returns */
        uint64_t lsm_table_keys;   /* sc_lsm, prism: keys per SSTable (a multiple of 8) */
        uint64_t lsm_l0_tables;    /* L0 tables that start a merge into L1 */
        uint64_t lsm_l1_tables;    /* L1's capacity in tables */
        uint64_t lsm_level_ratio;  /* each level's capacity over the one above */
        uint64_t lsm_memtable;     /* bytes of SCR for the memtable (0: the blog's share) */
        uint64_t lsm_manifest;     /* bytes of SCR for the manifest (0: the blog's share) */
        cfg_keys_e share_keys;
        double share_zipf_theta;
        uint64_t share_scr_budget; /* bytes of SCR for the sharing metadata; 0: unlimited */
        cfg_skip_flush_e share_skip_flush;
        uint64_t share_read_pause_ps; /* a reader's pause between its lookup and its read */
        uint64_t hcmeta_rpc_ps;    /* the owner's software time per request */
        uint64_t megalon_log_entries;
        bool megalon_dual_path;    /* false: the mutation without the dual-path check */
    } workload;

    /* Bookkeeping: where each value came from (indexed like the key table). */
    config_origin_t origin[CONFIG_MAX_KEYS];
    char files[CONFIG_MAX_FILES][CONFIG_PATH_MAX];
    uint32_t num_files;
    uint32_t num_sets;
} sim_config_t;

typedef struct config_err {
    char msg[CONFIG_ERR_MAX];
} config_err_t;

/** Fills c with every key's default (paper Table II where it gives one); origins "default". */
void config_defaults(sim_config_t *c);

/** Reads the INI file at path over c (which config_defaults or an earlier load filled). On error returns nonzero, fills err, and leaves c
 *  untouched (the load is all-or-nothing). A key may appear once per file; loading a second
 *  file or calling config_set afterwards overrides earlier values. */
int config_load(sim_config_t *c, const char *path, config_err_t *err);
/** config_load of an open stream (read to its end, not closed), named `name` in messages and
 *  origins as a file's path is: what the fuzzing harness tb/fuzz/fuzz_ini.c feeds from memory. */
int config_load_stream(sim_config_t *c, FILE *f, const char *name, config_err_t *err);

/** Applies one "section.key=value" assignment (a --set argument). Same all-or-nothing rule. */
int config_set(sim_config_t *c, const char *assignment, config_err_t *err);

/** Cross-key checks (contradictions no single key can see). Call after every load and set. */
int config_validate(const sim_config_t *c, config_err_t *err);

/** Writes the effective configuration as INI: every key, each with its doc and origin in
 *  comments. Loading the output gives a config with identical values. Returns 0, or -1 on a
 *  write error. */
int config_write_ini(const sim_config_t *c, FILE *f);

/** Writes the markdown reference of every key (the content of sim_configs/README.md).
 *  Returns 0, or -1 on a write error. */
int config_write_doc(FILE *f);

/** Clock period in picoseconds for a frequency in Hz, rounded to the nearest picosecond
 *  (ties up): 2.4 GHz -> 417 ps (exact 416.67 ps, a 0.08 % slower clock), 1 GHz -> 1000 ps.
 *  Returns 0 for hz == 0. */
uint64_t config_period_ps(uint64_t hz);

/* Fabric cycles a credit's round trip takes besides the link's two crossings: the message waits
 * one cycle in the switch's input buffer before it is allocated and leaves it, and the returned
 * credit is registered one more (docs/architecture.md section 5, "Credits"; measured by
 * tb/test_fabric.c). */
#define CFG_CREDIT_TURN_CYCLES 2u

/* Credits per class on each link: fabric.link_credits, or when it is 0 the credits that keep a
 * link busy with one class: ceil(2 x (link_latency + link_jitter) / fabric period) +
 * CFG_CREDIT_TURN_CYCLES. */
uint64_t config_link_credits(const sim_config_t *c);

/** Number of keys in the table. */
size_t config_num_keys(void);
/** "section.key" of key i (i < config_num_keys()), or NULL. */
const char *config_key_name(size_t i, char *buf, size_t n);
/** Index of "section.key", or -1 when unknown. */
int config_key_index(const char *dotted);

/** The value of key "section.key" formatted as it would be written in an INI file.
 *  Returns 0, or -1 when the key is unknown. */
int config_value_str(const sim_config_t *c, const char *dotted, char *buf, size_t n);
/** Where key "section.key" got its value: "FILE:LINE", "--set section.key=value" or
 *  "<default>". Returns 0, or -1 when the key is unknown. */
int config_origin_str(const sim_config_t *c, const char *dotted, char *buf, size_t n);

/** Index of the first key whose value differs between a and b, or -1 when all values are equal
 *  (origins are not compared). */
int config_diff(const sim_config_t *a, const sim_config_t *b);

/** Name of a protocol ("wb", "wt", "baseline", "parallel", "proactive"). */
const char *config_protocol_name(cfg_protocol_e p);
/** Name of a workload ("bodytrack", ..., "ycsb", "hcmeta", "megalon", "sc_btree", "sc_art", "sc_lsm",
 *  "prism"). */
const char *config_workload_name(cfg_workload_e w);

#endif
