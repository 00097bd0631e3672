`default_nettype none
`include "assert.svh"

// The directory controller of one memory node (DIKTAMO sections II-A, IV-D; docs/architecture.md
// section 11c, which holds the state x event table this file implements): the home of the MN's
// share of CXL memory. A MESI directory (I; S with a sharer vector over all CNs; EM with an owner:
// the directory cannot tell E from M) for the Small Coherent Region, back-invalidation snoops
// (BISNP) to sharers and owners, plain reads and writes for the Large Non-coherent Region.
//
//   rx link -> dir_rx (a FIFO and credits per class) -> the engine, one event per cycle, in
//   priority: a memory response (never held back), a BIRSP, then the transactions' own steps
//   (end, finish, install a directory line, read memory, decide, start), then a new RWD or REQ
//   (the two in turn) -> transaction table (TxnEntries; per line one active, the rest waiting in arrival
//   order) -> memory port (MN DRAM: data lines and directory entries) -> dir_cache (directory
//   entries on chip) -> responses, snoops and the software's messages -> lu_tx -> tx link.
//
// A transaction's steps (t_st): WAIT (behind an older one of its line) -> START (look the entry
// up in the cache) -> FILLW (directory line read from DRAM) -> INSTALL (into the cache) -> DECIDE
// (the table's row: snoops, memory read or write, or a violation) -> SNOOP (answers awaited; a
// memory read may run alongside) / MEMRD (read to issue) / MEMW (data awaited) -> FINISH (the
// response) -> END (the entry written back, the next waiting transaction of the line started).
// LNR transactions skip the entry: NEW -> DECIDE.
//
// Memory port: 64-byte DRAM lines; mem_req_dir_o selects the directory area, where the 128-bit
// entry of local line l sits in group l >> 2, words 2(l & 3) and 2(l & 3) + 1. Reads return in
// request order on mem_rsp_* (at most MemReads outstanding; the port cannot be held back, so every
// response is taken the cycle it arrives).
//
// Directory entry (EntW = 73 bits; bits 127:73 of its DRAM slot are zero):
//   [1:0] state (0 I, 1 S, 2 EM), [33:2] CN vector (sharers; the owner alone in EM),
//   [65:34] stale-write vector (CNs whose eviction or write-through crossed a snoop),
//   [72:66] the line's version mod 2^TS_W (section 11b: taken from the owner's DIRTY_EVICT, WT_WR
//   and snoop answer with data, and from a RECOVER that carries one; sent with DATA_E, DATA_S and
//   CMP_E; 0 for a line never written).
//
// CSR read port (32-bit registers, word addresses; the data come the cycle after the request):
//   0x00..0x11 one counter per row of the state x event table (TR_* below)
//   0x12 BISNP sent            0x13 BIRSP received        0x14 directory cache hits
//   0x15 directory cache misses                           0x16 directory cache write-backs
//   0x17 stale writes          0x18..0x1D violations: ADDR, REGION, NOT_OWNER, DUP_REQ, BIRSP,
//   BAD_MSG                    0x1E cycles a new request found the table full
//   0x1F requests that waited behind an older one of their line
//   0x20 requests taken (REQ and RWD)   0x21 memory reads    0x22 memory writes
//   0x23 transactions in the table now
//   0x24 cycles of the last walk (TravDir)   0x25 directory lines read by walks
//   0x26 entries whose sharers lost a failed CN   0x27 OWNED reported   0x28 RECOVERED
//   0x29 NOT_OWNED             0x2A failed sharers' answers taken as BIRSP_I
//   0x2B failed CNs' requests dropped        0x2C the failed CNs (bit per CN)
// Other addresses read 0 with csr_err_o. Counters are 32 bits and wrap.
//
// Management port (the MN's recovery handler, section 11c): FAIL cn (no BISNP to it any more; a
// failed sharer's awaited answer is taken as BIRSP_I, a failed owner's holds its transaction;
// new requests wait until RESUME), WALK (once only held and waiting transactions are left, a FAIL
// still taken until then: flush the directory cache, read every directory line, report lines
// owned by failed CNs, remove them from sharer and stale-write vectors), RECOVER line (words to memory and the entry to I while a
// failed CN owns it, or release the transaction held on it; with mg_req_tsv_i, the line's version
// becomes mg_req_ts_i, the failed owner's last commit; answered BUSY when it needs a transaction
// of its own and the table is full: the handler sends it again), RESUME.
module dir_ctrl #(
  /// transaction table entries
  parameter int unsigned TxnEntries   = 16,
  /// directory cache sets (power of two)
  parameter int unsigned DcSets       = 256,
  /// directory cache ways
  parameter int unsigned DcWays       = 4,
  /// memory reads outstanding at most
  parameter int unsigned MemReads     = 16,
  /// receive buffer entries (credits) per message class
  parameter int unsigned CrdPerCls    = 4,
  /// largest number of credits per class the link partner may grant
  parameter int unsigned MaxTxCredits = 64,
  /// directory lines a walk (management port) reads ahead of its scan (<= MemReads)
  parameter int unsigned WalkReads    = 4,
  localparam int unsigned FlitW  = msg_pkg::FLIT_W,
  localparam int unsigned NumCls = msg_pkg::NUM_CLASSES,
  localparam int unsigned DataW  = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned HdrW   = FlitW - DataW,
  localparam int unsigned AddrW  = msg_pkg::LINE_ADDR_W,
  localparam int unsigned NodeW  = msg_pkg::NODE_ID_W,
  localparam int unsigned MnIdxW = $clog2(msg_pkg::MAX_MN),
  localparam int unsigned CnW    = $clog2(msg_pkg::MAX_CN)
) (
  /// controller clock
  input  wire logic                      clk_i,
  /// synchronous reset, active low: no transaction, the directory cache empty
  input  wire logic                      rst_ni,
  /// this MN's node id (source of its messages; sampled during reset, as every cfg_* input: held
  /// from the reset on)
  input  wire logic [NodeW-1:0]          node_id_i,
  /// this MN's index among the MNs
  input  wire logic [MnIdxW-1:0]         cfg_mn_idx_i,
  /// log2 of the number of MNs
  input  wire logic [2:0]                cfg_mn_shift_i,
  /// log2 of the interleave granularity, in lines
  input  wire logic [4:0]                cfg_gran_shift_i,
  /// lines of memory this MN holds (local lines at or above are out of range)
  input  wire logic [31:0]               cfg_lines_i,
  /// first line address (global) of the Small Coherent Region
  input  wire logic [AddrW-1:0]          cfg_scr_lo_i,
  /// line address just past the Small Coherent Region
  input  wire logic [AddrW-1:0]          cfg_scr_hi_i,
  /// a message arrives from the link
  input  wire logic                      rx_valid_i,
  /// the arriving message (msg_pkg::msg_t)
  input  wire logic [FlitW-1:0]          rx_msg_i,
  /// per class: a credit returned to the link partner
  output logic      [NumCls-1:0]         rx_crd_o,
  /// a message leaves toward the link
  output logic                           tx_valid_o,
  /// the leaving message
  output logic      [FlitW-1:0]          tx_msg_o,
  /// per class: a credit returned by the link partner
  input  wire logic [NumCls-1:0]         tx_crd_i,
  /// simulation only (0 in hardware): per class (bits 8c +: 8), the credits returned at the cycles
  /// the simulation skipped before this one, counted as held before this edge (lu_tx)
  input  wire logic [NumCls*8-1:0]       tx_crd_skip_i,
  /// a message for the MN's software (MGREQ, MGRSP, DUMP)
  output logic                           sw_rx_valid_o,
  /// the software takes it
  input  wire logic                      sw_rx_ready_i,
  /// the message
  output logic      [FlitW-1:0]          sw_rx_msg_o,
  /// the software sends a message (MGREQ or MGRSP)
  input  wire logic                      sw_tx_valid_i,
  /// it is taken
  output logic                           sw_tx_ready_o,
  /// the message
  input  wire logic [FlitW-1:0]          sw_tx_msg_i,
  /// MN DRAM access request
  output logic                           mem_req_valid_o,
  /// the request is taken
  input  wire logic                      mem_req_ready_i,
  /// the request is a write
  output logic                           mem_req_write_o,
  /// the request is for the directory area (else data)
  output logic                           mem_req_dir_o,
  /// local line (data) or entry group (directory)
  output logic      [31:0]               mem_req_addr_o,
  /// data to write
  output logic      [DataW-1:0]          mem_req_wdata_o,
  /// words to write (bit i: word i)
  output logic      [msg_pkg::WORDS_PER_LINE-1:0] mem_req_wmask_o,
  /// read data returned (in request order)
  input  wire logic                      mem_rsp_valid_i,
  /// the line read
  input  wire logic [DataW-1:0]          mem_rsp_rdata_i,
  /// per lane: a protocol violation (lane 0 the engine's, lane 1 the receive port's)
  output logic      [1:0]                viol_valid_o,
  /// per lane: its kind (1 ADDR, 2 REGION, 3 NOT_OWNER, 4 DUP_REQ, 5 BIRSP, 6 BAD_MSG)
  output logic      [7:0]                viol_kind_o,
  /// per lane: the offending message's header
  output logic      [2*HdrW-1:0]         viol_hdr_o,
  /// management port (the MN's recovery handler): a command
  input  wire logic                      mg_req_valid_i,
  /// it is taken
  output logic                           mg_req_ready_o,
  /// 0 FAIL (mg_req_cn_i failed), 1 WALK, 2 RECOVER (a line owned by a failed CN), 3 RESUME
  input  wire logic [1:0]                mg_req_op_i,
  /// FAIL: the CN
  input  wire logic [CnW-1:0]            mg_req_cn_i,
  /// RECOVER: the line (global address)
  input  wire logic [AddrW-1:0]          mg_req_addr_i,
  /// RECOVER: the words to write (bit i: word i)
  input  wire logic [msg_pkg::WORDS_PER_LINE-1:0] mg_req_wmask_i,
  /// RECOVER: their values
  input  wire logic [DataW-1:0]          mg_req_wdata_i,
  /// RECOVER: set the line's version to mg_req_ts_i (else the entry keeps its own)
  input  wire logic                      mg_req_tsv_i,
  /// RECOVER: the line's version mod 2^TS_W (the newest TS the logs hold for the line)
  input  wire logic [msg_pkg::TS_W-1:0]  mg_req_ts_i,
  /// an answer of the management port
  output logic                           mg_rsp_valid_o,
  /// it is taken
  input  wire logic                      mg_rsp_ready_i,
  /// 0 DONE (FAIL, RESUME), 1 WALKED, 2 OWNED, 3 RECOVERED, 4 NOT_OWNED, 5 REFUSED
  output logic      [2:0]                mg_rsp_kind_o,
  /// OWNED, RECOVERED, NOT_OWNED, REFUSED: the line (global address)
  output logic      [AddrW-1:0]          mg_rsp_line_o,
  /// WALKED: the walk's cycles (TravDir)
  output logic      [31:0]               mg_rsp_count_o,
  /// CSR read request
  input  wire logic                      csr_valid_i,
  /// CSR word address
  input  wire logic [7:0]                csr_addr_i,
  /// CSR response valid (the cycle after the request)
  output logic                           csr_rvalid_o,
  /// CSR read data
  output logic      [31:0]               csr_rdata_o,
  /// CSR address refused
  output logic                           csr_err_o,
  /// nothing in the controller will change until an input changes
  output logic                           idle_o,
  /// idle but for new requests waiting for an entry of the full table: until an input changes,
  /// each cycle only counts EV_FULL (simulation only: 0 in synthesis)
  output logic                           stall_o,
  /// clock cycles the simulation skipped before this edge (a stalled controller's, counted as
  /// EV_FULL's); 0 in hardware, where every cycle is an edge (ignored in synthesis)
  input  wire logic [31:0]               skip_i
);

  // ---- configuration, sampled during reset ----
  // Constant while the directory runs (the driver presents it from the reset on; an assertion
  // checks it), so it is a register: the address decode that reads it depends on no input, and a
  // Verilated model evaluates it once per edge instead of at every evaluation of the inputs.
  logic [NodeW-1:0]  node_id;
  logic [MnIdxW-1:0] cfg_mn_idx;
  logic [2:0]        cfg_mn_shift;
  logic [4:0]        cfg_gran_shift;
  logic [31:0]       cfg_lines;
  logic [AddrW-1:0]  cfg_scr_lo, cfg_scr_hi;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      node_id        <= node_id_i;
      cfg_mn_idx     <= cfg_mn_idx_i;
      cfg_mn_shift   <= cfg_mn_shift_i;
      cfg_gran_shift <= cfg_gran_shift_i;
      cfg_lines      <= cfg_lines_i;
      cfg_scr_lo     <= cfg_scr_lo_i;
      cfg_scr_hi     <= cfg_scr_hi_i;
    end
  end
  `ASSERT(cfg_held_from_reset, {node_id_i, cfg_mn_idx_i, cfg_mn_shift_i, cfg_gran_shift_i, cfg_lines_i,
                                cfg_scr_lo_i, cfg_scr_hi_i} ==
                               {node_id, cfg_mn_idx, cfg_mn_shift, cfg_gran_shift, cfg_lines, cfg_scr_lo,
                                cfg_scr_hi})
  localparam int unsigned TW      = (TxnEntries > 1) ? $clog2(TxnEntries) : 1;
  localparam int unsigned NumCn   = msg_pkg::MAX_CN;
  localparam int unsigned TsW     = msg_pkg::TS_W;
  localparam int unsigned VerLsb  = 2 + 2 * NumCn;   // the version's place in an entry
  localparam int unsigned EntW    = VerLsb + TsW;
  localparam int unsigned WordN   = msg_pkg::WORDS_PER_LINE;
  localparam int unsigned MemReqW = 1 + 1 + 32 + DataW + WordN;
  localparam int unsigned TagQW   = 2 + TW;   // {walk read, directory line, transaction}
  localparam int unsigned NumEv   = 42;
  localparam int unsigned SetW    = $clog2(DcSets);
  localparam int unsigned WayW    = (DcWays > 1) ? $clog2(DcWays) : 1;
  localparam int unsigned WOutW   = $clog2(WalkReads + 1);

  if (EntW > 128) begin : g_bad_ent
    $error("dir_ctrl: a directory entry must fit its 128-bit DRAM slot");
  end
  if (TxnEntries < 2 || TxnEntries > 4096) begin : g_bad_txn
    $error("dir_ctrl: TxnEntries must be in 2..4096 (a snoop's tag names the transaction)");
  end
  if (MemReads < 2) begin : g_bad_reads
    $error("dir_ctrl: MemReads must be at least 2");
  end
  if (WalkReads < 1 || WalkReads > MemReads) begin : g_bad_walk
    $error("dir_ctrl: WalkReads must be in 1..MemReads");
  end

  // ---- directory entry states, rows of the state x event table, transaction steps ----
  localparam logic [1:0] E_I = 2'd0, E_S = 2'd1, E_EM = 2'd2;
  typedef enum logic [4:0] {
    TR_I_RdS, TR_I_RdOwn, TR_I_Evict, TR_S_RdS, TR_S_ReRead, TR_S_RdOwn, TR_S_Upg,
    TR_S_CleanEvict, TR_S_StaleWr, TR_EM_RdS, TR_EM_RdOwn, TR_EM_ReRead, TR_EM_CleanEvict,
    TR_EM_DirtyEvict, TR_EM_WtWr, TR_EM_StaleWr, TR_LNR_Rd, TR_LNR_Wr
  } tr_e;
  typedef enum logic [3:0] {
    ST_WAIT, ST_START, ST_FILLW, ST_INSTALL, ST_DECIDE, ST_SNOOP, ST_MEMRD, ST_MEMW, ST_FINISH,
    ST_END
  } st_e;
  localparam logic [3:0] V_ADDR = 4'd1, V_REGION = 4'd2, V_NOT_OWNER = 4'd3, V_DUP_REQ = 4'd4,
                         V_BIRSP = 4'd5, V_BAD_MSG = 4'd6;
  // Events counted (bit: counter, see the CSR map above).
  localparam int unsigned EV_SNP = 18, EV_BIR = 19, EV_HIT = 20, EV_MISS = 21, EV_WB = 22,
                          EV_STALE = 23, EV_VIOL = 24, EV_FULL = 30, EV_WAITED = 31,
                          EV_REQS = 32, EV_MRD = 33, EV_MWR = 34, EV_WLINE = 35, EV_WSH = 36,
                          EV_OWNED = 37, EV_RECOK = 38, EV_RECNO = 39, EV_PURGED = 40,
                          EV_VOID = 41;
  // Management port: commands and answers.
  localparam logic [1:0] MG_FAIL = 2'd0, MG_WALK = 2'd1, MG_RECOVER = 2'd2, MG_RESUME = 2'd3;
  localparam logic [2:0] MR_DONE = 3'd0, MR_WALKED = 3'd1, MR_OWNED = 3'd2, MR_RECOVERED = 3'd3,
                         MR_NOT_OWNED = 3'd4, MR_REFUSED = 3'd5, MR_BUSY = 3'd6;

  // ---- receive ----
  logic             rx_bad, rx_idle, rx_held;
  logic [HdrW-1:0]  rx_bad_hdr, req_hdr;
  logic             req_v, req_r, rwd_v, rwd_r, bir_v, bir_r;
  logic [FlitW-1:0] rwd_msg, bir_msg;

  dir_rx #(.CrdPerCls(CrdPerCls)) u_rx (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .rx_valid_i  (rx_valid_i),
    .rx_msg_i    (rx_msg_i),
    .rx_crd_o    (rx_crd_o),
    .bad_o       (rx_bad),
    .bad_hdr_o   (rx_bad_hdr),
    .req_valid_o (req_v),
    .req_ready_i (req_r),
    .req_hdr_o   (req_hdr),
    .rwd_valid_o (rwd_v),
    .rwd_ready_i (rwd_r),
    .rwd_msg_o   (rwd_msg),
    .bir_valid_o (bir_v),
    .bir_ready_i (bir_r),
    .bir_msg_o   (bir_msg),
    .sw_valid_o  (sw_rx_valid_o),
    .sw_ready_i  (sw_rx_ready_i),
    .sw_msg_o    (sw_rx_msg_o),
    .idle_o      (rx_idle),
    .held_o      (rx_held)
  );

  // ---- transaction table (control in flops; data in a ram_1r1w for synthesis, an array in
  // simulation: below, beside the event) ----
  logic [TxnEntries-1:0] t_valid_q;
  st_e [TxnEntries-1:0] t_st_q;   // packed: the wakes and the event write one word (below)
  tr_e              t_tr_q     [TxnEntries];
  logic             t_lnr_q    [TxnEntries];
  logic [AddrW-1:0] t_line_q   [TxnEntries];
  logic [31:0]      t_lline_q  [TxnEntries];
  msg_pkg::opcode_t t_op_q     [TxnEntries];
  logic [NodeW-1:0] t_src_q    [TxnEntries];
  logic [msg_pkg::CORE_ID_W-1:0] t_core_q [TxnEntries];
  logic [msg_pkg::TAG_W-1:0]     t_tag_q  [TxnEntries];
  logic [WordN-1:0] t_mask_q   [TxnEntries];
  logic [TsW-1:0]   t_ts_q     [TxnEntries];   // an RWD's, a RECOVER's version
  logic [EntW-1:0]  t_ent_q    [TxnEntries];
  logic             t_chg_q    [TxnEntries];
  logic [NumCn-1:0] t_await_q  [TxnEntries];
  logic [NumCn-1:0] t_snp_q    [TxnEntries];
  // Per transaction: snoops left to send (t_snp_q != 0), kept beside t_snp_q so that the snoop
  // sender finds its transaction by one word, not by testing every entry's vector each cycle.
  logic [TxnEntries-1:0] t_snpany_q;
  logic             t_snpinv_q [TxnEntries];
  logic             t_need_q   [TxnEntries];
  logic             t_have_q   [TxnEntries];
  logic             t_rdis_q   [TxnEntries];
  logic             t_kepts_q  [TxnEntries];
  logic             t_viol_q   [TxnEntries];
  logic             t_succ_q   [TxnEntries];
  logic [TW-1:0]    t_pred_q   [TxnEntries];
  // A RECOVER of the management port (not a CN's request), and a transaction whose FINISH
  // neither answers nor changes the entry (a RECOVER, or a failed CN's request not yet decided).
  logic             t_rec_q    [TxnEntries];
  logic             t_skip_q   [TxnEntries];
  logic             t_recok_q  [TxnEntries];
  // A RECOVER that sets the line's version to t_ts (mg_req_tsv_i).
  logic             t_setv_q   [TxnEntries];

  // The event's entry's next fields (worked out for the event, written into the table at the edge,
  // in the clocked block below). Those a transaction gets when it enters the table and keeps (its
  // line, request, link to its line's predecessor, RECOVER's fields) are written only then (nx_new)
  // and are 0 otherwise.
  logic             nx_new;
  logic             nx_valid;
  st_e              nx_st;
  tr_e              nx_tr;
  logic             nx_lnr;
  logic [AddrW-1:0] nx_line;
  logic [31:0]      nx_lline;
  msg_pkg::opcode_t nx_op;
  logic [NodeW-1:0] nx_src;
  logic [msg_pkg::CORE_ID_W-1:0] nx_core;
  logic [msg_pkg::TAG_W-1:0] nx_tag;
  logic [WordN-1:0] nx_mask;
  logic [EntW-1:0]  nx_ent;
  logic [TsW-1:0]   nx_ts;
  logic             nx_chg;
  logic [NumCn-1:0] nx_await;
  logic [NumCn-1:0] nx_snp;
  logic             nx_snpinv;
  logic             nx_need;
  logic             nx_have;
  logic             nx_rdis;
  logic             nx_kepts;
  logic             nx_viol;
  logic             nx_succ;
  logic [TW-1:0]    nx_pred;
  logic             nx_rec;
  logic             nx_skip;
  logic             nx_recok;
  logic             nx_setv;
  logic [TxnEntries-1:0] wake;  // the waiting successors an END starts
  logic             succ_set;   // a new transaction: its line's tail gets a successor

  // The transactions' data (written at td_waddr; read at the event's entry, below).
  logic             td_we;
  logic [TW-1:0]    td_waddr;
  logic [DataW-1:0] td_wdata;

  // ---- memory request queue and the read tags (which transaction, directory or data) ----
  logic               mq_push, mq_room, mq_v, mq_empty;
  logic [MemReqW-1:0] mq_in, mq_out;
  logic [$clog2(3)-1:0] mq_cnt_unused;
  fifo #(.Depth(2), .Width(MemReqW)) u_memq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (mq_push), .in_ready_o (mq_room), .in_data_i (mq_in),
    .out_valid_o (mq_v), .out_ready_i (mem_req_ready_i), .out_data_o (mq_out),
    .count_o (mq_cnt_unused), .empty_o (mq_empty)
  );
  assign mem_req_valid_o = mq_v;
  assign {mem_req_write_o, mem_req_dir_o, mem_req_addr_o, mem_req_wmask_o, mem_req_wdata_o} = mq_out;

  logic             rq_push, rq_room, rq_v, rq_empty;
  logic [TagQW-1:0] rq_in, rq_out;
  logic [$clog2(MemReads + 1)-1:0] rq_cnt_unused;
  fifo #(.Depth(MemReads), .Width(TagQW)) u_rdq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (rq_push), .in_ready_o (rq_room), .in_data_i (rq_in),
    .out_valid_o (rq_v), .out_ready_i (mem_rsp_valid_i), .out_data_o (rq_out),
    .count_o (rq_cnt_unused), .empty_o (rq_empty)
  );

  // ---- response queue (to the send port) ----
  logic             sq_push, sq_room, sq_v, sq_r, sq_empty;
  logic [FlitW-1:0] sq_in, sq_out;
  logic [$clog2(3)-1:0] sq_cnt_unused;
  fifo #(.Depth(2), .Width(FlitW)) u_rspq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (sq_push), .in_ready_o (sq_room), .in_data_i (sq_in),
    .out_valid_o (sq_v), .out_ready_i (sq_r), .out_data_o (sq_out),
    .count_o (sq_cnt_unused), .empty_o (sq_empty)
  );

  // ---- management port: the answers queue (at most one a cycle, from the engine's event) ----
  localparam int unsigned MrW = 3 + AddrW + 32;
  logic           mr_push, mr_room, mr_empty;
  logic [MrW-1:0] mr_in, mr_out;
  logic [$clog2(3)-1:0] mr_cnt_unused;
  fifo #(.Depth(2), .Width(MrW)) u_mrq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (mr_push), .in_ready_o (mr_room), .in_data_i (mr_in),
    .out_valid_o (mg_rsp_valid_o), .out_ready_i (mg_rsp_ready_i), .out_data_o (mr_out),
    .count_o (mr_cnt_unused), .empty_o (mr_empty)
  );
  assign {mg_rsp_kind_o, mg_rsp_line_o, mg_rsp_count_o} = mr_out;

  // ---- recovery state: failed CNs, recovery mode, the directory walk ----
  // failed_q: CNs the handler declared failed (FAIL); they stay failed until reset. rec_q: from
  // FAIL to RESUME no new request enters the table. The walk: W_QUIET until every transaction
  // is held on a failed owner or waits, W_FLUSH writes the directory cache's dirty entries back
  // and drops them, W_SCAN reads every directory line (up to WalkReads of them ahead of the scan,
  // the reads issued besides the engine's events) and scans a line a cycle, stopping a cycle at
  // each entry that needs something.
  typedef enum logic [1:0] {W_IDLE, W_QUIET, W_FLUSH, W_SCAN} wph_e;
  logic [NumCn-1:0] failed_q, failed_d;
  logic             rec_q, rec_d;
  wph_e             w_ph_q, w_ph_d;
  logic [SetW-1:0]  w_set_q, w_set_d;
  logic [WayW-1:0]  w_way_q, w_way_d;
  logic [31:0]      w_grp_q, w_grp_d;     // next directory line to read
  logic [31:0]      w_pgrp_q, w_pgrp_d;   // the directory line at the head of the walk queue
  logic [1:0]       w_k_q, w_k_d;         // its entry processed next
  logic [WOutW-1:0] w_out_q, w_out_d;     // directory lines read and not yet processed
  logic [31:0]      w_cyc_q, w_last_q, w_last_d, w_ngrp;
  logic             walking, quiet;
  assign walking = (w_ph_q == W_FLUSH) || (w_ph_q == W_SCAN);
  assign w_ngrp  = 32'((33'(cfg_lines) + 33'd3) >> 2);

  logic             wf_push, wf_pop, wf_v, wf_room_unused, wf_empty_unused;
  logic [DataW-1:0] wf_out;
  logic [WOutW-1:0] wf_cnt_unused;
  fifo #(.Depth(WalkReads), .Width(DataW)) u_walkq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (wf_push), .in_ready_o (wf_room_unused), .in_data_i (mem_rsp_rdata_i),
    .out_valid_o (wf_v), .out_ready_i (wf_pop), .out_data_o (wf_out),
    .count_o (wf_cnt_unused), .empty_o (wf_empty_unused)
  );

  // ---- directory cache ----
  logic [31:0]   dc_line;
  logic          dc_wbsel, dc_clean, dc_inv, dc_look;
  logic          dc_hit, dc_fill, dc_upd, dc_wb;
  logic [EntW-1:0] dc_ent, dc_fill_ent, dc_upd_ent, dc_wb_ent;
  logic [31:0]   dc_wb_line;
  dir_cache #(.Sets(DcSets), .Ways(DcWays), .LineW(32), .EntW(EntW)) u_dc (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .line_i       (dc_line),
    .look_i       (dc_look),
    .hit_o        (dc_hit),
    .entry_o      (dc_ent),
    .fill_i       (dc_fill),
    .fill_entry_i (dc_fill_ent),
    .upd_i        (dc_upd),
    .upd_entry_i  (dc_upd_ent),
    .wbsel_i      (dc_wbsel),
    .wbset_i      (w_set_q),
    .wbway_i      (w_way_q),
    .clean_i      (dc_clean),
    .inv_i        (dc_inv),
    .wb_valid_o   (dc_wb),
    .wb_line_o    (dc_wb_line),
    .wb_entry_o   (dc_wb_ent)
  );

  // ---- helpers ----
  // A memory request as the queue holds it: {write, dir, addr, mask, data}, the data at the low
  // bits so that the port's 512 data bits leave the queue's head word-aligned (no shifts in a
  // Verilated model).
  function automatic logic [MemReqW-1:0] mreq(logic w, logic dir, logic [31:0] a, logic [DataW-1:0] data,
                                              logic [WordN-1:0] m);
    mreq = {w, dir, a, m, data};
  endfunction

  // A directory entry's DRAM write: the 128-bit slot of local line l in its group's line.
  function automatic logic [MemReqW-1:0] ent_write(logic [31:0] l, logic [EntW-1:0] e);
    // Shifted into place, not written at a computed part-select (which Yosys unrolls bit by bit).
    logic [DataW-1:0] d;
    logic [WordN-1:0] m;
    d = DataW'(128'(e)) << (32'(l[1:0]) * 128);
    m = WordN'(2'b11) << (2 * l[1:0]);
    ent_write = mreq(1'b1, 1'b1, 32'(l >> 2), d, m);
  endfunction

  function automatic logic [EntW-1:0] ent_make(logic [1:0] st, logic [NumCn-1:0] vec,
                                               logic [NumCn-1:0] stale, logic [TsW-1:0] ver);
    ent_make = {ver, stale, vec, st};
  endfunction

  // Global line address -> (MN index, local line, in this MN's range), and the region.
  function automatic logic [AddrW-1:0] chunk_of(logic [AddrW-1:0] a);
    chunk_of = a >> cfg_gran_shift;
  endfunction

  logic [AddrW-1:0] n_addr, n_chunk, n_lwide;
  logic [MnIdxW-1:0] n_mn;
  logic             n_here, n_scr;
  logic [NodeW-1:0] n_src;
  msg_pkg::opcode_t n_op;
  logic             n_is_rwd, n_lnr_op, n_v, n_src_cn, n_mg;
  logic [HdrW-1:0]  n_hdr;

  // The new message the engine would take: RWD and REQ in turn (after a cycle that took one of the
  // two, the other goes first when both wait), so that neither starves the other.
  logic req_first_q;
  assign n_is_rwd = rwd_v & ~(req_v & req_first_q);
  assign n_v      = rwd_v | req_v;
  // (Its header only: an RWD's data are read where EV_NEW keeps them, so that no flit-wide value
  // is selected at every evaluation.)
  assign n_hdr    = n_is_rwd ? rwd_msg[FlitW-1:DataW] : req_hdr;
  assign n_op     = n_hdr[msg_pkg::FIELD_OPCODE_LSB - DataW +: msg_pkg::OPCODE_W];
  assign n_src    = n_hdr[msg_pkg::FIELD_SRC_LSB - DataW +: NodeW];
  // The management port's RECOVER is looked up in the table as a new request would be (it goes
  // before new messages).
  assign n_mg     = mg_req_valid_i & (mg_req_op_i == MG_RECOVER) & (w_ph_q == W_IDLE);
  assign n_addr   = n_mg ? mg_req_addr_i : n_hdr[msg_pkg::FIELD_ADDR_LSB - DataW +: AddrW];
  assign n_chunk  = chunk_of(n_addr);
  assign n_mn     = MnIdxW'(n_chunk) & ~(MnIdxW'('1) << cfg_mn_shift);
  assign n_lwide  = ((n_chunk >> cfg_mn_shift) << cfg_gran_shift) |
                    (n_addr & ~(AddrW'('1) << cfg_gran_shift));
  assign n_here   = (n_mn == cfg_mn_idx) && (n_lwide < AddrW'(cfg_lines));
  assign n_scr    = (n_addr >= cfg_scr_lo) && (n_addr < cfg_scr_hi);
  assign n_lnr_op = (n_op == msg_pkg::OP_LNR_RD) || (n_op == msg_pkg::OP_LNR_WR);
  assign n_src_cn = n_src < NodeW'(NumCn);

  // Table look-ups for a new message: a free entry, the youngest entry of the same line.
  logic [TxnEntries-1:0] free_v, same_line, tail_v, free_oh_unused, tail_oh_unused;
  logic [TW-1:0]         free_i, tail_i;
  logic                  free_any, busy_any;
  logic                  low_turn;   // no event above the management port's and new messages'
  // (Each per-transaction look-up below is made only when its result can be used: here, a new
  // message or a management command in a cycle whose event can be theirs; in simulation a cycle
  // without one costs a test.)
  assign free_v = ~t_valid_q;
  always_comb begin
    same_line = '0;
    tail_v    = '0;
    if ((n_v || mg_req_valid_i) && low_turn)
      for (int t = 0; t < TxnEntries; t++) begin
        same_line[t] = t_valid_q[t] & (t_line_q[t] == n_addr);
        tail_v[t]    = same_line[t] & ~t_succ_q[t];
      end
  end
  prio_enc #(.N(TxnEntries)) u_free (.req_i (free_v), .onehot_o (free_oh_unused), .idx_o (free_i),
                                     .valid_o (free_any));
  prio_enc #(.N(TxnEntries)) u_tail (.req_i (tail_v), .onehot_o (tail_oh_unused), .idx_o (tail_i),
                                     .valid_o (busy_any));

  // BIRSP head: the transaction awaiting it.
  msg_pkg::opcode_t      b_op;
  logic [NodeW-1:0]      b_src;
  logic [AddrW-1:0]      b_addr;
  logic                  b_wrif;
  logic [TxnEntries-1:0] b_match, b_oh_unused;
  logic [TW-1:0]         b_i;
  logic                  b_any, b_src_cn;
  assign b_op     = bir_msg[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::OPCODE_W];
  assign b_src    = bir_msg[msg_pkg::FIELD_SRC_LSB +: NodeW];
  assign b_addr   = bir_msg[msg_pkg::FIELD_ADDR_LSB +: AddrW];
  assign b_wrif   = bir_msg[msg_pkg::FIELD_FLAGS_LSB + 2];   // WR_IN_FLIGHT
  assign b_src_cn = b_src < NodeW'(NumCn);
  always_comb begin
    b_match = '0;
    if (bir_v)
      for (int t = 0; t < TxnEntries; t++)
        b_match[t] = t_valid_q[t] & (t_st_q[t] == ST_SNOOP || t_st_q[t] == ST_MEMW ||
                                     t_st_q[t] == ST_MEMRD) &
                     (t_line_q[t] == b_addr) & b_src_cn & t_await_q[t][CnW'(b_src)];
  end
  prio_enc #(.N(TxnEntries)) u_bm (.req_i (b_match), .onehot_o (b_oh_unused), .idx_o (b_i),
                                   .valid_o (b_any));

  // Transactions that await a failed CN. An owner's answer (EM_RdS, EM_RdOwn) is held: the line's
  // latest data are in the logs, and the handler's RECOVER of the line releases it. A sharer's
  // answer is BIRSP_I (a shared copy is clean): the engine answers it itself (EV_PURGE).
  logic [TxnEntries-1:0] held, pg_v, h_match, pg_oh_unused, h_oh_unused;
  logic [TW-1:0]         pg_i, h_i;
  logic                  pg_any, h_any, pg_cn_v_unused;
  logic [NumCn-1:0]      pg_cn_oh_unused;
  logic [CnW-1:0]        pg_cn;
  // (None while no CN has failed.)
  always_comb begin
    logic em_row, aw;
    em_row  = 1'b0;
    aw      = 1'b0;
    held    = '0;
    pg_v    = '0;
    if (failed_q != '0)
      for (int t = 0; t < TxnEntries; t++) begin
        em_row     = (t_tr_q[t] == TR_EM_RdS) || (t_tr_q[t] == TR_EM_RdOwn);
        aw         = t_valid_q[t] & ((t_await_q[t] & failed_q) != '0);
        held[t]    = aw & em_row;
        pg_v[t]    = aw & ~em_row;
      end
  end
  // (Apart: the same-line look-up waits for the events above the management port's, PURGE
  // among them.)
  assign h_match = held & same_line;
  prio_enc #(.N(TxnEntries)) u_pg (.req_i (pg_v), .onehot_o (pg_oh_unused), .idx_o (pg_i),
                                   .valid_o (pg_any));
  prio_enc #(.N(NumCn)) u_pgc (.req_i (t_await_q[pg_i] & failed_q), .onehot_o (pg_cn_oh_unused),
                               .idx_o (pg_cn), .valid_o (pg_cn_v_unused));
  prio_enc #(.N(TxnEntries)) u_hm (.req_i (h_match), .onehot_o (h_oh_unused), .idx_o (h_i),
                                   .valid_o (h_any));
  // The walk begins when nothing but held transactions and those waiting behind them is left
  // (looked at only while the walk waits for it).
  always_comb begin
    quiet = 1'b1;
    if (w_ph_q == W_QUIET)
      for (int t = 0; t < TxnEntries; t++) begin
        if (t_valid_q[t] && !held[t] && t_st_q[t] != ST_WAIT) quiet = 1'b0;
      end
  end

  // Per step: the lowest transaction at that step. at_step_q[k] holds the valid transactions at
  // step k, kept beside t_st_q where the table is written (below), so that finding the steps'
  // transactions is six priority encoders, not a look at every entry's state each cycle.
  localparam int unsigned NumStep = 6;   // END, FINISH, INSTALL, MEMRD, DECIDE, START
  localparam int unsigned StepDecide = 4, StepStart = 5;
  logic [NumStep*TxnEntries-1:0] at_step_q;   // step k, transaction t: bit k * TxnEntries + t
  logic [TxnEntries-1:0] at_step [NumStep];
  logic [TW-1:0]         step_i  [NumStep];
  logic [NumStep-1:0]    step_v;
  function automatic logic [NumStep-1:0] step_of(st_e st);
    step_of = {st == ST_START, st == ST_DECIDE, st == ST_MEMRD, st == ST_INSTALL, st == ST_FINISH,
               st == ST_END};
  endfunction
  function automatic logic step_is(st_e st, logic [2:0] k);
    logic [NumStep-1:0] b;
    b       = step_of(st);
    step_is = b[k];
  endfunction
  logic [NumStep-1:0] nx_step;   // the step of the event's entry's next state, if it is valid
  for (genvar k = 0; k < NumStep; k++) begin : g_at_step
    assign at_step[k] = at_step_q[k*TxnEntries +: TxnEntries];
  end
  for (genvar k = 0; k < NumStep; k++) begin : g_step
    logic [TxnEntries-1:0] oh_unused;
    prio_enc #(.N(TxnEntries)) u_pick (.req_i (at_step[k]), .onehot_o (oh_unused),
                                       .idx_o (step_i[k]), .valid_o (step_v[k]));
  end

  // ---- snoop sender: BISNPs of the lowest transaction with snoops to send, lowest CN first ----
  logic [TxnEntries-1:0] snp_v, snp_oh_unused;
  logic [TW-1:0]         s_i;
  logic                  s_any, s_take;
  logic [NumCn-1:0]      s_cn_oh;
  logic [CnW-1:0]        s_cn;
  logic                  s_cn_v_unused;
  logic [FlitW-1:0]      s_msg;
  // (With a failed CN, its snoops are never sent: each vector is looked at then.)
  always_comb begin
    snp_v = t_valid_q & t_snpany_q;
    if (failed_q != '0)
      for (int t = 0; t < TxnEntries; t++) snp_v[t] = t_valid_q[t] & ((t_snp_q[t] & ~failed_q) != '0);
  end
  prio_enc #(.N(TxnEntries)) u_sp (.req_i (snp_v), .onehot_o (snp_oh_unused), .idx_o (s_i),
                                   .valid_o (s_any));
  prio_enc #(.N(NumCn)) u_sc (.req_i (t_snp_q[s_i] & ~failed_q), .onehot_o (s_cn_oh), .idx_o (s_cn),
                              .valid_o (s_cn_v_unused));
  // (Built only while there is one to send.)
  always_comb begin
    s_msg = '0;
    if (s_any) begin
      s_msg[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::OPCODE_W] =
        t_snpinv_q[s_i] ? msg_pkg::OP_BISNP_INV : msg_pkg::OP_BISNP_DATA;
      s_msg[msg_pkg::FIELD_SRC_LSB +: NodeW]             = node_id;
      s_msg[msg_pkg::FIELD_DST_LSB +: NodeW]             = NodeW'(s_cn);
      s_msg[msg_pkg::FIELD_TAG_LSB +: msg_pkg::TAG_W]    = msg_pkg::TAG_W'(s_i);
      s_msg[msg_pkg::FIELD_ADDR_LSB +: AddrW]            = t_line_q[s_i];
    end
  end

  // ---- send port: responses, snoops, the software's messages ----
  logic [2:0] tx_ready;
  logic       tx_idle;
  lu_tx #(.NumSrc(3), .MaxTxCredits(MaxTxCredits)) u_tx (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .src_valid_i ({sw_tx_valid_i, s_any, sq_v}),
    .src_msg_i   ({sw_tx_msg_i, s_msg, sq_out}),
    .src_ready_o (tx_ready),
    .tx_valid_o  (tx_valid_o),
    .tx_msg_o    (tx_msg_o),
    .tx_crd_i    (tx_crd_i),
    .tx_crd_skip_i (tx_crd_skip_i),
    .idle_o      (tx_idle)
  );
  assign sq_r          = tx_ready[0];
  assign s_take        = tx_ready[1];
  assign sw_tx_ready_o = tx_ready[2];

  // ---- the engine: one event per cycle ----
  typedef enum logic [3:0] {
    EV_NONE, EV_MEMRSP, EV_BIRSP, EV_PURGE, EV_END, EV_FINISH, EV_INSTALL, EV_MEMRD, EV_DECIDE,
    EV_START, EV_WPROC, EV_FLUSH, EV_WDONE, EV_MG, EV_NEW
  } ev_e;
  ev_e           ev;
  logic [TW-1:0] ei;
  logic          ev_any;   // the cycle has an event (else no transaction's fields or step change)
  logic          res_ok;   // a memory request and a read tag fit (conservative for every step)
  logic          mg_ok;    // the management port's command can be carried out this cycle

  // The transactions' data, read at the event's entry. Two forms. Synthesis (SYNTHESIS defined):
  // a ram_1r1w read at ei, the macro a real design would use. Simulation: the array, read where an
  // event uses the data (a FINISH's response, a RECOVER's write to memory): the ram's read copied
  // the 512-bit line at every evaluation of the Verilated model, about 100 host instructions an
  // edge. DIR_TD_RDATA names the data read in either form; the dir_ctrl_synth tests
  // (tb/test_dir_ctrl.c) run the synthesis form.
`ifdef SYNTHESIS
  logic [DataW-1:0] td_rdata;
  ram_1r1w #(.Depth(TxnEntries), .Width(DataW)) u_tdata (
    .clk_i (clk_i), .rst_ni (rst_ni), .we_i (td_we), .waddr_i (td_waddr), .wdata_i (td_wdata),
    .raddr_i (ei), .rdata_o (td_rdata)
  );
  `define DIR_TD_RDATA td_rdata
`else
  /* verilator tracing_off */
  logic [DataW-1:0] td_mem_q [TxnEntries];
  /* verilator tracing_on */
  always_ff @(posedge clk_i) begin
    if (td_we) td_mem_q[td_waddr] <= td_wdata;
  end
  `define DIR_TD_RDATA td_mem_q[ei]
`endif

  assign res_ok = mq_room & rq_room;
  // A RECOVER that needs an entry of its own when none is free is answered BUSY (below).
  assign mg_ok  = mr_room & mq_room;
  // While the walk flushes and scans, the transactions' steps wait (only memory responses and
  // snoop answers, which cannot wait, are taken); no command but FAIL (while it waits
  // for quiet) is taken until it has ended.
  // The walk's reads and their answers are not events (the prefetcher after the events' case
  // below, and wf_push): it reads ahead while the engine scans.
  // The events above the management port's and new messages' first (low_turn: none of them), so
  // that the table's same-line look-up, which only those two use, is made only when one of them
  // can be the cycle's event.
  ev_e           ev_hi;
  logic [TW-1:0] ei_hi;
  always_comb begin
    ev_hi = EV_NONE;
    ei_hi = '0;
    if (mem_rsp_valid_i && !rq_out[TW+1]) begin
      ev_hi = EV_MEMRSP;
      ei_hi = rq_out[TW-1:0];
    end else if (bir_v && mq_room) begin
      ev_hi = EV_BIRSP;
      ei_hi = b_i;
    end else if (!walking && pg_any) begin
      ev_hi = EV_PURGE;
      ei_hi = pg_i;
    end else if (!walking && step_v[0] && mq_room) begin
      ev_hi = EV_END;
      ei_hi = step_i[0];
    end else if (!walking && step_v[1] && sq_room && mr_room) begin
      ev_hi = EV_FINISH;
      ei_hi = step_i[1];
    end else if (!walking && step_v[2] && mq_room) begin
      ev_hi = EV_INSTALL;
      ei_hi = step_i[2];
    end else if (!walking && step_v[3] && res_ok) begin
      ev_hi = EV_MEMRD;
      ei_hi = step_i[3];
    end else if (!walking && step_v[4] && res_ok) begin
      ev_hi = EV_DECIDE;
      ei_hi = step_i[4];
    end else if (!walking && step_v[5] && res_ok) begin
      ev_hi = EV_START;
      ei_hi = step_i[5];
    end else if (w_ph_q == W_SCAN && wf_v && mq_room && mr_room) begin
      ev_hi = EV_WPROC;
    end else if (w_ph_q == W_FLUSH && mq_room) begin
      ev_hi = EV_FLUSH;
    end else if (w_ph_q == W_SCAN && w_grp_q >= w_ngrp && w_out_q == '0 && mr_room) begin
      ev_hi = EV_WDONE;
    end
  end
  assign low_turn = ev_hi == EV_NONE;
  always_comb begin
    ev = ev_hi;
    ei = ei_hi;
    if (!low_turn) begin
      // (the event above)
    end else if (mg_req_valid_i && mg_ok &&
                 (w_ph_q == W_IDLE || (w_ph_q == W_QUIET && mg_req_op_i == MG_FAIL))) begin
      // A RECOVER that needs a transaction of its own enters the table as a new request would. A
      // FAIL is taken while the walk waits for quiet too: a CN that fails during a recovery holds
      // transactions up that only its FAIL releases (they then wait as held ones).
      ev = (n_mg && n_here && n_scr && !h_any && free_any) ? EV_NEW : EV_MG;
      ei = h_any ? h_i : free_i;
    end else if (n_v && !rec_q && !n_mg) begin
      ev = EV_NEW;
      ei = free_i;
    end
  end
  assign ev_any         = ev != EV_NONE;
  assign mg_req_ready_o = (ev == EV_MG) || (ev == EV_NEW && n_mg);
  // The flush looks at its own set and way of the directory cache.
  assign dc_wbsel       = (ev == EV_FLUSH);
  // The events that read the directory cache's answer (a hit, an entry or a dirty victim).
  assign dc_look        = ev == EV_START || ev == EV_END || ev == EV_INSTALL || ev == EV_FLUSH;

  // Fields of the event's transaction.
  logic [EntW-1:0]  e_ent;
  logic [1:0]       e_st;
  logic [NumCn-1:0] e_vec, e_stale, r_oh;
  logic [TsW-1:0]   e_ver;
  logic [NodeW-1:0] e_r;
  logic             r_sh, r_own, r_stale;
  msg_pkg::opcode_t e_op;
  assign e_ent   = t_ent_q[ei];
  assign e_st    = e_ent[1:0];
  assign e_vec   = e_ent[2 +: NumCn];
  assign e_stale = e_ent[2 + NumCn +: NumCn];
  assign e_ver   = e_ent[VerLsb +: TsW];
  assign e_r     = t_src_q[ei];
  assign e_op    = t_op_q[ei];
  // Only CNs' requests enter the table (EV_NEW refuses the others).
  assign r_oh    = NumCn'(1) << e_r[CnW-1:0];
  assign r_sh    = (e_vec & r_oh) != '0;
  assign r_own   = (e_st == E_EM) && r_sh;
  assign r_stale = (e_stale & r_oh) != '0;

  // The snoop answer the event takes: the link's BIRSP, or (EV_PURGE) a failed sharer's BIRSP_I.
  msg_pkg::opcode_t a_op;
  logic [CnW-1:0]   a_cn;
  logic             a_wrif;
  assign a_op   = (ev == EV_PURGE) ? msg_pkg::OP_BIRSP_I : b_op;
  assign a_cn   = (ev == EV_PURGE) ? pg_cn : b_src[CnW-1:0];
  assign a_wrif = (ev == EV_PURGE) ? 1'b0 : b_wrif;

  // The header of the event transaction's request (violations found at DECIDE report it; built
  // only then).
  logic [HdrW-1:0] e_hdr;
  always_comb begin
    e_hdr = '0;
    if (ev == EV_DECIDE) begin
      e_hdr[msg_pkg::FIELD_OPCODE_LSB - DataW +: msg_pkg::OPCODE_W] = e_op;
      e_hdr[msg_pkg::FIELD_SRC_LSB - DataW +: NodeW]                = e_r;
      e_hdr[msg_pkg::FIELD_DST_LSB - DataW +: NodeW]                = node_id;
      e_hdr[msg_pkg::FIELD_CORE_LSB - DataW +: msg_pkg::CORE_ID_W]  = t_core_q[ei];
      e_hdr[msg_pkg::FIELD_TAG_LSB - DataW +: msg_pkg::TAG_W]       = t_tag_q[ei];
      e_hdr[msg_pkg::FIELD_ADDR_LSB - DataW +: AddrW]               = t_line_q[ei];
      e_hdr[msg_pkg::FIELD_MASK_LSB - DataW +: WordN]               = t_mask_q[ei];
    end
  end

  // The response of a finished transaction, and its line's new entry (worked out only at FINISH,
  // the one event that reads them: the Verilated model would otherwise build the entry of every
  // transition at every edge).
  msg_pkg::opcode_t f_op;
  logic             f_has;
  logic [EntW-1:0]  f_ent;
  always_comb begin
    f_has = ~t_viol_q[ei] & ~t_skip_q[ei];
    f_ent = e_ent;
    f_op  = msg_pkg::OP_CMP;
    if (ev == EV_FINISH && !t_skip_q[ei]) unique case (t_tr_q[ei])
      TR_I_RdS, TR_I_RdOwn, TR_S_RdOwn, TR_EM_RdOwn: begin
        f_op  = msg_pkg::OP_DATA_E;
        f_ent = ent_make(E_EM, r_oh, e_stale, e_ver);
      end
      TR_S_Upg: begin
        f_op  = msg_pkg::OP_CMP_E;
        f_ent = ent_make(E_EM, r_oh, e_stale, e_ver);
      end
      TR_S_RdS: begin
        f_op  = msg_pkg::OP_DATA_S;
        f_ent = ent_make(E_S, e_vec | r_oh, e_stale, e_ver);
      end
      TR_EM_RdS: begin
        // The owner kept a shared copy: both share; else the requester alone, granted E.
        f_op  = t_kepts_q[ei] ? msg_pkg::OP_DATA_S : msg_pkg::OP_DATA_E;
        f_ent = t_kepts_q[ei] ? ent_make(E_S, e_vec | r_oh, e_stale, e_ver) : ent_make(E_EM, r_oh, e_stale, e_ver);
      end
      TR_S_CleanEvict: f_ent = ent_make(((e_vec & ~r_oh) != '0) ? E_S : E_I, e_vec & ~r_oh, e_stale, e_ver);
      TR_EM_CleanEvict, TR_EM_DirtyEvict: f_ent = ent_make(E_I, '0, e_stale, e_ver);
      TR_LNR_Rd: f_op = msg_pkg::OP_DATA_NC;
      default: ;
    endcase
  end
  // (Built only when FINISH pushes it.)
  always_comb begin
    logic data;
    data  = msg_pkg::msg_has_data(f_op);
    sq_in = '0;
    if (ev == EV_FINISH) begin
      sq_in[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::OPCODE_W] = f_op;
      sq_in[msg_pkg::FIELD_SRC_LSB +: NodeW]                = node_id;
      sq_in[msg_pkg::FIELD_DST_LSB +: NodeW]                = e_r;
      sq_in[msg_pkg::FIELD_CORE_LSB +: msg_pkg::CORE_ID_W]  = t_core_q[ei];
      sq_in[msg_pkg::FIELD_TAG_LSB +: msg_pkg::TAG_W]       = t_tag_q[ei];
      sq_in[msg_pkg::FIELD_ADDR_LSB +: AddrW]               = t_line_q[ei];
      sq_in[msg_pkg::FIELD_MASK_LSB +: WordN]               = data ? '1 : '0;
      sq_in[DataW-1:0]                                      = data ? `DIR_TD_RDATA : '0;
      // Grants carry the line's version (section 11b); DATA_NC and CMP carry none.
      if (f_op == msg_pkg::OP_DATA_E || f_op == msg_pkg::OP_DATA_S || f_op == msg_pkg::OP_CMP_E)
        sq_in[msg_pkg::FIELD_TS_LSB +: TsW] = e_ver;
    end
  end

  // Every event's effects.
  logic [3:0]       v_kind;
  logic [HdrW-1:0]  v_hdr;
  logic [NumEv-1:0] evc;
  always_comb begin
    nx_valid = t_valid_q[ei];
    nx_st = t_st_q[ei];
    nx_tr = t_tr_q[ei];
    nx_lnr = '0;
    nx_line = '0;
    nx_lline = '0;
    nx_op = '0;
    nx_src = '0;
    nx_core = '0;
    nx_tag = '0;
    nx_mask = '0;
    nx_ent = t_ent_q[ei];
    nx_ts = '0;
    nx_chg = t_chg_q[ei];
    nx_await = t_await_q[ei];
    nx_snp = t_snp_q[ei];
    nx_snpinv = t_snpinv_q[ei];
    nx_need = t_need_q[ei];
    nx_have = t_have_q[ei];
    nx_rdis = t_rdis_q[ei];
    nx_kepts = t_kepts_q[ei];
    nx_viol = t_viol_q[ei];
    nx_succ = '0;
    nx_pred = '0;
    nx_rec = '0;
    nx_skip = t_skip_q[ei];
    nx_recok = t_recok_q[ei];
    nx_setv = '0;
    nx_new   = 1'b0;
    wake     = '0;
    succ_set = 1'b0;
    failed_d = failed_q;
    rec_d    = rec_q;
    w_set_d  = w_set_q;
    w_way_d  = w_way_q;
    w_grp_d  = w_grp_q;
    w_pgrp_d = w_pgrp_q;
    w_k_d    = w_k_q;
    w_out_d  = w_out_q;
    w_last_d = w_last_q;
    w_ph_d   = (w_ph_q == W_QUIET && quiet) ? W_FLUSH : w_ph_q;
    mr_push  = 1'b0;
    mr_in    = '0;
    wf_push  = mem_rsp_valid_i && rq_out[TW+1];
    wf_pop   = 1'b0;
    dc_clean = 1'b0;
    dc_inv   = 1'b0;
    td_we    = 1'b0;
    td_waddr = ei;
    td_wdata = mem_rsp_rdata_i;
    mq_push  = 1'b0;
    mq_in    = '0;
    rq_push  = 1'b0;
    rq_in    = {2'b00, ei};
    sq_push  = 1'b0;
    dc_line  = t_lline_q[ei];
    dc_fill  = 1'b0;
    dc_fill_ent = e_ent;
    dc_upd   = 1'b0;
    dc_upd_ent = e_ent;
    req_r    = 1'b0;
    rwd_r    = 1'b0;
    bir_r    = 1'b0;
    v_kind   = '0;
    v_hdr    = e_hdr;
    evc      = '0;

    unique case (ev)
      // A memory response: a directory line (install the entry next) or data.
      EV_MEMRSP: begin
        if (rq_out[TW]) begin
          nx_ent = mem_rsp_rdata_i[t_lline_q[ei][1:0]*128 +: EntW];
          nx_st  = ST_INSTALL;
        end else begin
          td_we       = 1'b1;
          nx_have = 1'b1;
          if (t_await_q[ei] == '0) nx_st = ST_FINISH;
        end
      end

      // A snoop answer: matched to the transaction awaiting its source, or a violation. A failed
      // sharer's answer (EV_PURGE) is BIRSP_I, taken the same way.
      EV_BIRSP, EV_PURGE: begin
        bir_r          = (ev == EV_BIRSP);
        evc[EV_BIR]    = (ev == EV_BIRSP);
        evc[EV_PURGED] = (ev == EV_PURGE);
        v_hdr          = bir_msg[FlitW-1:DataW];
        if (ev == EV_BIRSP && !b_any) begin
          v_kind = V_BIRSP;
        end else begin
          logic data, kept, bad;
          logic [NumCn-1:0] left;
          data = (a_op == msg_pkg::OP_BIRSP_I_DATA) || (a_op == msg_pkg::OP_BIRSP_S_DATA);
          kept = (a_op == msg_pkg::OP_BIRSP_S) || (a_op == msg_pkg::OP_BIRSP_S_DATA);
          // Only the owner of an EM line may answer with data; only a BISNP_DATA lets it keep S.
          bad  = (data && t_tr_q[ei] != TR_EM_RdS && t_tr_q[ei] != TR_EM_RdOwn) ||
                 (kept && t_snpinv_q[ei]);
          left = t_await_q[ei] & ~(NumCn'(1) << a_cn);
          if (bad) begin
            // Dropped like any violation: the transaction still awaits a valid answer.
            v_kind = V_BIRSP;
          end else begin
            nx_await = left;
            nx_snp   = t_snp_q[ei] & ~(NumCn'(1) << a_cn);
            if (a_wrif) begin
              nx_ent[2 + NumCn + 32'(a_cn)] = 1'b1;
              nx_chg = 1'b1;
            end
            if (kept) nx_kepts = 1'b1;
          end
          if (data && !bad) begin
            // The owner's version comes with its data: the line's newest.
            nx_ent[VerLsb +: TsW] = bir_msg[msg_pkg::FIELD_TS_LSB +: TsW];
            nx_chg = 1'b1;
            // The owner's dirty line: to memory, and kept for the requester.
            td_we    = 1'b1;
            td_wdata = bir_msg[DataW-1:0];
            nx_have = 1'b1;
            mq_push  = 1'b1;
            mq_in    = mreq(1'b1, 1'b0, t_lline_q[ei], bir_msg[DataW-1:0], WordN'('1));
            evc[EV_MWR] = 1'b1;
          end
          if (!bad && left == '0 && t_st_q[ei] == ST_SNOOP) begin
            if (!t_need_q[ei] || t_have_q[ei] || data) nx_st = ST_FINISH;
            else if (t_rdis_q[ei])                               nx_st = ST_MEMW;
            else                                                 nx_st = ST_MEMRD;
          end
        end
      end

      // The end: the entry back to the cache (or to DRAM if it left the cache), the transaction
      // freed, the next one of its line started.
      EV_END: begin
        if (!t_lnr_q[ei] && t_chg_q[ei]) begin
          if (dc_hit) begin
            dc_upd     = 1'b1;
            dc_upd_ent = e_ent;
          end else begin
            mq_push = 1'b1;
            mq_in   = ent_write(t_lline_q[ei], e_ent);
            evc[EV_MWR] = 1'b1;
          end
        end
        nx_valid = 1'b0;
        for (int t = 0; t < TxnEntries; t++) begin
          if (t_valid_q[t] && t_st_q[t] == ST_WAIT && t_pred_q[t] == ei) begin
            wake[t] = 1'b1;
          end
        end
      end

      // The response, and the line's new entry.
      EV_FINISH: begin
        sq_push = f_has;
        if (t_rec_q[ei]) begin
          mr_push = 1'b1;
          mr_in   = {t_recok_q[ei] ? MR_RECOVERED : MR_NOT_OWNED, t_line_q[ei], 32'd0};
          evc[t_recok_q[ei] ? EV_RECOK : EV_RECNO] = 1'b1;
        end
        if (f_ent != e_ent) begin
          nx_ent = f_ent;
          nx_chg = 1'b1;
        end
        nx_st = ST_END;
      end

      // A directory line arrived: install its entry (a dirty victim goes back to DRAM).
      EV_INSTALL: begin
        dc_fill     = 1'b1;
        dc_fill_ent = e_ent;
        if (dc_wb) begin
          mq_push = 1'b1;
          mq_in   = ent_write(dc_wb_line, dc_wb_ent);
          evc[EV_WB]  = 1'b1;
          evc[EV_MWR] = 1'b1;
        end
        nx_st = ST_DECIDE;
      end

      // Read the line's data.
      EV_MEMRD: begin
        mq_push = 1'b1;
        mq_in   = mreq(1'b0, 1'b0, t_lline_q[ei], DataW'(0), WordN'(0));
        rq_push = 1'b1;
        evc[EV_MRD]   = 1'b1;
        nx_rdis  = 1'b1;
        nx_st    = ST_MEMW;
      end

      // The row of the state x event table.
      EV_DECIDE: begin
        if (t_rec_q[ei]) begin
          // The handler's RECOVER: the recovered words to memory and the entry to I, if a failed
          // CN still owns the line (else nothing: the line has been given away meanwhile). With a
          // version, the line's becomes the failed owner's last commit's: the entry's is the one
          // the owner was granted, and the next owner must build on the versions the logs hold.
          if (e_st == E_EM && (e_vec & failed_q) != '0) begin
            mq_push = 1'b1;
            mq_in   = mreq(1'b1, 1'b0, t_lline_q[ei], `DIR_TD_RDATA, t_mask_q[ei]);
            evc[EV_MWR]  = 1'b1;
            nx_ent  = ent_make(E_I, '0, e_stale & ~failed_q, t_setv_q[ei] ? t_ts_q[ei] : e_ver);
            nx_chg  = 1'b1;
            nx_recok = 1'b1;
          end
          nx_st = ST_FINISH;
        end else if (failed_q[e_r[CnW-1:0]]) begin
          // A failed CN's request not yet decided: dropped, unanswered, the entry unchanged.
          nx_skip = 1'b1;
          evc[EV_VOID] = 1'b1;
          nx_st   = ST_FINISH;
        end else begin
          tr_e          tr;
          logic         rd, wr, viol_own, snoop, inv;
          logic [3:0]   vk;
          logic [NumCn-1:0] targets;
          tr       = TR_LNR_Rd;
          rd       = 1'b0;   // read the line's data
          wr       = 1'b0;   // write the request's words
          viol_own = 1'b0;   // a write or eviction the state does not allow: stale or a violation
          vk       = '0;
          snoop    = 1'b0;
          inv      = 1'b1;
          targets  = '0;
          if (t_lnr_q[ei]) begin
            tr = (e_op == msg_pkg::OP_LNR_RD) ? TR_LNR_Rd : TR_LNR_Wr;
            rd = (e_op == msg_pkg::OP_LNR_RD);
            wr = (e_op == msg_pkg::OP_LNR_WR);
          end else begin
            unique case (e_st)
              E_I: begin
                unique case (e_op)
                  msg_pkg::OP_RD_SHARED: begin tr = TR_I_RdS; rd = 1'b1; end
                  msg_pkg::OP_RD_OWN, msg_pkg::OP_RD_UPGRADE: begin tr = TR_I_RdOwn; rd = 1'b1; end
                  default: begin tr = TR_I_Evict; viol_own = 1'b1; end
                endcase
              end
              E_S: begin
                unique case (e_op)
                  msg_pkg::OP_RD_SHARED, msg_pkg::OP_RD_OWN, msg_pkg::OP_RD_UPGRADE: begin
                    // A sharer asks for ownership with RD_UPGRADE only: after RD_OWN it could not
                    // tell a snoop of its S copy from one of the line granted (section 11c).
                    targets = e_vec & ~r_oh;
                    snoop   = targets != '0;
                    if (r_sh && e_op != msg_pkg::OP_RD_UPGRADE) begin
                      tr    = TR_S_ReRead;
                      vk    = V_DUP_REQ;
                      snoop = 1'b0;
                    end else if (r_sh) begin
                      tr = TR_S_Upg;
                    end else if (e_op == msg_pkg::OP_RD_SHARED) begin
                      tr    = TR_S_RdS;
                      rd    = 1'b1;
                      snoop = 1'b0;
                    end else begin
                      tr = TR_S_RdOwn;
                      rd = 1'b1;
                    end
                  end
                  msg_pkg::OP_CLEAN_EVICT: begin
                    if (r_sh) tr = TR_S_CleanEvict;
                    else begin tr = TR_S_StaleWr; viol_own = 1'b1; end
                  end
                  default: begin tr = TR_S_StaleWr; viol_own = 1'b1; end
                endcase
              end
              default: begin   // E_EM
                unique case (e_op)
                  msg_pkg::OP_RD_SHARED, msg_pkg::OP_RD_OWN, msg_pkg::OP_RD_UPGRADE: begin
                    if (r_own) begin tr = TR_EM_ReRead; vk = V_DUP_REQ; end
                    else begin
                      tr      = (e_op == msg_pkg::OP_RD_SHARED) ? TR_EM_RdS : TR_EM_RdOwn;
                      targets = e_vec;
                      snoop   = 1'b1;
                      inv     = (e_op != msg_pkg::OP_RD_SHARED);
                    end
                  end
                  msg_pkg::OP_CLEAN_EVICT: begin
                    if (r_own) tr = TR_EM_CleanEvict;
                    else begin tr = TR_EM_StaleWr; viol_own = 1'b1; end
                  end
                  msg_pkg::OP_DIRTY_EVICT: begin
                    if (r_own) begin tr = TR_EM_DirtyEvict; wr = 1'b1; end
                    else begin tr = TR_EM_StaleWr; viol_own = 1'b1; end
                  end
                  default: begin   // WT_WR
                    if (r_own) begin tr = TR_EM_WtWr; wr = 1'b1; end
                    else begin tr = TR_EM_StaleWr; viol_own = 1'b1; end
                  end
                endcase
              end
            endcase
          end
          // A write the state does not allow: stale if the CN's snoop answer announced it.
          if (viol_own) begin
            if (r_stale) evc[EV_STALE] = 1'b1;
            else         vk = V_NOT_OWNER;
          end
          // Every request served clears its CN's stale-write bit: a CN sends a request for a line
          // only after the CMP of its previous write to it, so none of its writes is on its way.
          if (vk == '0 && r_stale) begin
            nx_ent = ent_make(e_st, e_vec, e_stale & ~r_oh, e_ver);
            nx_chg = 1'b1;
          end
          // The owner's write-back or write-through: its version is the line's newest.
          if (wr && !t_lnr_q[ei]) begin
            nx_ent[VerLsb +: TsW] = t_ts_q[ei];
            nx_chg = 1'b1;
          end
          evc[32'(tr)] = 1'b1;
          nx_tr   = tr;
          v_kind       = vk;
          nx_viol = vk != '0;
          nx_need = rd | snoop & (tr == TR_EM_RdS || tr == TR_EM_RdOwn);
          if (vk != '0) begin
            nx_st = ST_FINISH;
          end else if (wr) begin
            mq_push = 1'b1;
            mq_in   = mreq(1'b1, 1'b0, t_lline_q[ei], `DIR_TD_RDATA,
                           (e_op == msg_pkg::OP_DIRTY_EVICT) ? WordN'('1) : t_mask_q[ei]);
            evc[EV_MWR] = 1'b1;
            nx_st  = ST_FINISH;
          end else if (snoop) begin
            nx_snp    = targets;
            nx_await  = targets;
            nx_snpinv = inv;
            nx_st     = ST_SNOOP;
            // S_RdOwn reads memory while the sharers are invalidated.
            if (rd) begin
              mq_push = 1'b1;
              mq_in   = mreq(1'b0, 1'b0, t_lline_q[ei], DataW'(0), WordN'(0));
              rq_push = 1'b1;
              evc[EV_MRD]  = 1'b1;
              nx_rdis = 1'b1;
            end
          end else if (rd) begin
            mq_push = 1'b1;
            mq_in   = mreq(1'b0, 1'b0, t_lline_q[ei], DataW'(0), WordN'(0));
            rq_push = 1'b1;
            evc[EV_MRD]  = 1'b1;
            nx_rdis = 1'b1;
            nx_st   = ST_MEMW;
          end else begin
            nx_st = ST_FINISH;
          end
        end
      end

      // Look the entry up: a hit decides next, a miss reads the directory line.
      EV_START: begin
        if (dc_hit) begin
          nx_ent = dc_ent;
          nx_st  = ST_DECIDE;
          evc[EV_HIT] = 1'b1;
        end else begin
          mq_push = 1'b1;
          mq_in   = mreq(1'b0, 1'b1, 32'(t_lline_q[ei] >> 2), DataW'(0), WordN'(0));
          rq_push = 1'b1;
          rq_in   = {2'b01, ei};
          evc[EV_MISS] = 1'b1;
          evc[EV_MRD]  = 1'b1;
          nx_st   = ST_FILLW;
        end
      end

      // The directory line at the walk queue's head: its entries from w_k_q on that need nothing
      // are passed over in this cycle; the first that needs something (a failed owner's line is
      // reported, OWNED; failed CNs leave a sharer or stale-write vector, the entry rewritten) is
      // handled, and the next event goes on after it. A line of entries needing nothing takes one
      // cycle (the scan keeps up with the reads WalkReads ahead: the sequential prefetching).
      EV_WPROC: begin
        logic [31:0]      l;
        logic [EntW-1:0]  we;
        logic [1:0]       wst;
        logic [NumCn-1:0] wvec, wstale, nvec;
        logic [TsW-1:0]   wver;
        logic [AddrW-1:0] lchunk, gline;
        logic [3:0]       act;
        logic [1:0]       k;
        logic             any;
        for (int j = 0; j < 4; j++) begin
          logic [1:0]       sj;
          logic [NumCn-1:0] vj, tj;
          sj = wf_out[j*128 +: 2];
          vj = wf_out[j*128 + 2 +: NumCn];
          tj = wf_out[j*128 + 2 + NumCn +: NumCn];
          act[j] = (2'(j) >= w_k_q) && ({w_pgrp_q[29:0], 2'(j)} < cfg_lines) &&
                   ((vj & failed_q) != '0 && (sj == E_EM || sj == E_S) || (tj & failed_q) != '0);
        end
        any = act != '0;
        k   = act[0] ? 2'd0 : act[1] ? 2'd1 : act[2] ? 2'd2 : 2'd3;
        l      = {w_pgrp_q[29:0], k};
        we     = wf_out[32'(k)*128 +: EntW];
        wst    = we[1:0];
        wvec   = we[2 +: NumCn];
        wstale = we[2 + NumCn +: NumCn];
        wver   = we[VerLsb +: TsW];
        nvec   = (wst == E_S) ? wvec & ~failed_q : wvec;
        // The line's global address (the address map, backwards).
        lchunk = ((AddrW'(l) >> cfg_gran_shift) << cfg_mn_shift) | AddrW'(cfg_mn_idx);
        gline  = (lchunk << cfg_gran_shift) | (AddrW'(l) & ~(AddrW'('1) << cfg_gran_shift));
        if (any) begin
          if (wst == E_EM && (wvec & failed_q) != '0) begin
            mr_push = 1'b1;
            mr_in   = {MR_OWNED, gline, 32'd0};
            evc[EV_OWNED] = 1'b1;
          end else begin
            mq_push = 1'b1;
            mq_in   = ent_write(l, ent_make((wst == E_S && nvec == '0) ? E_I : wst, nvec,
                                            wstale & ~failed_q, wver));
            evc[EV_MWR] = 1'b1;
            evc[EV_WSH] = nvec != wvec;
          end
        end
        w_k_d = k + 2'd1;
        if (!any || k == 2'd3) begin
          wf_pop   = 1'b1;
          w_pgrp_d = w_pgrp_q + 32'd1;
          w_out_d  = w_out_q - WOutW'(1);
          w_k_d    = 2'd0;
        end
      end

      // The flush before the scan: one way of one set a cycle; dirty entries go to DRAM; at the
      // last one every entry is dropped (the scan reads DRAM, and writes it).
      EV_FLUSH: begin
        if (dc_wb) begin
          dc_clean = 1'b1;
          mq_push  = 1'b1;
          mq_in    = ent_write(dc_wb_line, dc_wb_ent);
          evc[EV_WB]  = 1'b1;
          evc[EV_MWR] = 1'b1;
        end
        if (32'(w_way_q) == DcWays - 1) begin
          w_way_d = '0;
          w_set_d = w_set_q + SetW'(1);
          if (32'(w_set_q) == DcSets - 1) begin
            dc_inv = 1'b1;
            w_ph_d = W_SCAN;
          end
        end else begin
          w_way_d = w_way_q + WayW'(1);
        end
      end

      // The walk has read and processed every directory line: its time (TravDir) to the handler.
      EV_WDONE: begin
        mr_push  = 1'b1;
        mr_in    = {MR_WALKED, AddrW'(0), w_cyc_q};
        w_last_d = w_cyc_q;
        w_ph_d   = W_IDLE;
      end

      // A management command.
      EV_MG: begin
        unique case (mg_req_op_i)
          MG_FAIL: begin
            failed_d[mg_req_cn_i] = 1'b1;
            rec_d   = 1'b1;
            mr_push = 1'b1;
            mr_in   = {MR_DONE, AddrW'(0), 32'd0};
          end
          MG_RESUME: begin
            rec_d   = 1'b0;
            mr_push = 1'b1;
            mr_in   = {MR_DONE, AddrW'(0), 32'd0};
          end
          MG_WALK: begin
            w_ph_d   = W_QUIET;
            w_set_d  = '0;
            w_way_d  = '0;
            w_grp_d  = '0;
            w_pgrp_d = '0;
            w_k_d    = '0;
          end
          default: begin   // MG_RECOVER
            mr_in = {MR_REFUSED, mg_req_addr_i, 32'd0};
            if (!n_here || !n_scr) begin
              // Not this MN's line, or not a coherent one: the handler is wrong.
              mr_push = 1'b1;
            end else if (!h_any) begin
              // It needs a transaction of its own and the table is full: answered BUSY, for the
              // handler to send it again later. Waiting here would hold the port, and the
              // RECOVERs behind it may be the ones that release the held transactions filling
              // the table (they only go on once their lines are recovered).
              mr_push = 1'b1;
              mr_in   = {MR_BUSY, mg_req_addr_i, 32'd0};
            end else begin
              // A transaction awaits the failed owner's answer: the words to memory, then the
              // transaction goes on as if the owner had answered BIRSP_I (it reads memory); with
              // a version, as if the answer had carried it, as one with data does: the grant
              // carries it and the entry keeps it.
              if (mg_req_tsv_i) begin
                nx_ent[VerLsb +: TsW] = mg_req_ts_i;
                nx_chg = 1'b1;
              end
              mq_push = 1'b1;
              mq_in   = mreq(1'b1, 1'b0, 32'(n_lwide), mg_req_wdata_i, mg_req_wmask_i);
              evc[EV_MWR]   = 1'b1;
              evc[EV_RECOK] = 1'b1;
              mr_push = 1'b1;
              mr_in   = {MR_RECOVERED, mg_req_addr_i, 32'd0};
              nx_await = t_await_q[ei] & ~failed_q;
              nx_snp   = t_snp_q[ei] & ~failed_q;
              if ((t_await_q[ei] & ~failed_q) == '0 && t_st_q[ei] == ST_SNOOP) begin
                if (!t_need_q[ei] || t_have_q[ei]) nx_st = ST_FINISH;
                else if (t_rdis_q[ei])             nx_st = ST_MEMW;
                else                               nx_st = ST_MEMRD;
              end
            end
          end
        endcase
      end

      // A new request: checked, then into the table (behind the youngest of its line, if any).
      EV_NEW: begin
        logic take;
        v_hdr = n_hdr;
        take  = 1'b0;
        if (n_mg) begin
          // The management port's RECOVER (checked already): a transaction of its own, in the
          // line's order; at its turn the entry decides.
          take = 1'b1;
        end else if (!n_src_cn) begin
          v_kind = V_BAD_MSG;
          take   = 1'b1;
        end else if (failed_q[n_src[CnW-1:0]]) begin
          // A failed CN's message, left in the receive FIFO: refused.
          v_kind = V_BAD_MSG;
          take   = 1'b1;
        end else if (!n_here) begin
          v_kind = V_ADDR;
          take   = 1'b1;
        end else if (n_scr == n_lnr_op) begin
          v_kind = V_REGION;
          take   = 1'b1;
        end else if (!free_any) begin
          evc[EV_FULL] = 1'b1;
        end else begin
          take         = 1'b1;
          evc[EV_REQS] = 1'b1;
        end
        if (take && (n_mg || v_kind == '0)) begin
          nx_new      = 1'b1;
          nx_valid    = 1'b1;
          nx_lnr      = ~n_scr;
          nx_line     = n_addr;
          nx_lline    = 32'(n_lwide);
          nx_op       = n_mg ? msg_pkg::OP_WT_WR : n_op;
          nx_src      = n_mg ? '0 : n_src;
          nx_core     = n_mg ? '0 : n_hdr[msg_pkg::FIELD_CORE_LSB - DataW +: msg_pkg::CORE_ID_W];
          nx_tag      = n_mg ? '0 : n_hdr[msg_pkg::FIELD_TAG_LSB - DataW +: msg_pkg::TAG_W];
          nx_mask     = n_mg ? mg_req_wmask_i : n_hdr[msg_pkg::FIELD_MASK_LSB - DataW +: WordN];
          nx_ts       = n_mg ? mg_req_ts_i : n_hdr[msg_pkg::FIELD_TS_LSB - DataW +: TsW];
          nx_ent      = '0;
          nx_chg      = 1'b0;
          nx_await    = '0;
          nx_snp      = '0;
          nx_snpinv   = 1'b0;
          nx_need     = 1'b0;
          nx_have     = 1'b0;
          nx_rdis     = 1'b0;
          nx_kepts    = 1'b0;
          nx_viol     = 1'b0;
          nx_succ     = 1'b0;
          nx_pred     = tail_i;
          nx_rec      = n_mg;
          nx_skip     = n_mg;
          nx_recok    = 1'b0;
          nx_setv     = n_mg & mg_req_tsv_i;
          if (busy_any) begin
            nx_st     = ST_WAIT;
            succ_set = 1'b1;
            evc[EV_WAITED] = ~n_mg;
          end else begin
            nx_st     = n_scr ? ST_START : ST_DECIDE;
          end
          // Data to keep: an RWD's line, a RECOVER's words.
          td_we    = n_is_rwd | n_mg;
          // (An RWD's data; a REQ keeps none: n_is_rwd is low and td_we with it.)
          td_wdata = n_mg ? mg_req_wdata_i : rwd_msg[DataW-1:0];
        end
        rwd_r = take & ~n_mg & n_is_rwd;
        req_r = take & ~n_mg & ~n_is_rwd;
      end
      default: ;
    endcase

    // The walk's sequential prefetcher: the next directory line is read in any cycle of the scan
    // whose event sends no memory request, WalkReads lines ahead of the scan at most (read and
    // not yet scanned); the answers go to the walk queue as they come (wf_push).
    if (w_ph_q == W_SCAN && w_grp_q < w_ngrp && 32'(w_out_q) < WalkReads && !mq_push && res_ok) begin
      mq_push = 1'b1;
      mq_in   = mreq(1'b0, 1'b1, w_grp_q, DataW'(0), WordN'(0));
      rq_push = 1'b1;
      rq_in   = {2'b11, TW'(0)};
      evc[EV_MRD]   = 1'b1;
      evc[EV_WLINE] = 1'b1;
      w_grp_d = w_grp_q + 32'd1;
      w_out_d = w_out_d + WOutW'(1);
    end

    evc[EV_SNP] = s_take;
    if (v_kind != '0) evc[EV_VIOL + 32'(v_kind) - 1] = 1'b1;
  end

  // The event's entry takes its new fields (when there is no event, ei's own: nothing changes);
  // then the changes to other entries: the waiting successors an END starts, the new transaction's
  // link from its line's tail, the snoop sender's bit clear (a transaction gets new targets only
  // while it has none), each after the event's entry's fields, so that it wins where it is the
  // event's entry too. Written at their indices in the clocked block: the Verilated model writes
  // one entry per cycle, where next-state copies of the whole table (28 fields x TxnEntries) cost
  // it most of a directory's evaluation.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) t_valid_q     <= '0;
    else         t_valid_q[ei] <= nx_valid;
    t_st_q[ei]     <= nx_st;     t_tr_q[ei]    <= nx_tr;    t_ent_q[ei]   <= nx_ent;
    t_chg_q[ei]    <= nx_chg;    t_await_q[ei] <= nx_await; t_snp_q[ei]   <= nx_snp;
    t_snpinv_q[ei] <= nx_snpinv; t_need_q[ei]  <= nx_need;  t_have_q[ei]  <= nx_have;
    t_rdis_q[ei]   <= nx_rdis;   t_kepts_q[ei] <= nx_kepts; t_viol_q[ei]  <= nx_viol;
    t_skip_q[ei]   <= nx_skip;   t_recok_q[ei] <= nx_recok;
    if (nx_new) begin
      t_lnr_q[ei]  <= nx_lnr;    t_line_q[ei]  <= nx_line;  t_lline_q[ei] <= nx_lline;
      t_op_q[ei]   <= nx_op;     t_src_q[ei]   <= nx_src;   t_core_q[ei]  <= nx_core;
      t_tag_q[ei]  <= nx_tag;    t_mask_q[ei]  <= nx_mask;  t_ts_q[ei]    <= nx_ts;
      t_succ_q[ei] <= nx_succ;   t_pred_q[ei]  <= nx_pred;  t_rec_q[ei]   <= nx_rec;
      t_setv_q[ei] <= nx_setv;
    end
    if (wake != '0)
      for (int t = 0; t < TxnEntries; t++)
        if (wake[t]) t_st_q[t] <= t_lnr_q[t] ? ST_DECIDE : ST_START;
    if (succ_set) t_succ_q[tail_i] <= 1'b1;
    if (s_take)   t_snp_q[s_i]     <= (s_i == ei ? nx_snp : t_snp_q[s_i]) & ~s_cn_oh;
  end

  assign nx_step = nx_valid ? step_of(nx_st) : '0;
  // The snoop sender's summary follows t_snp_q's writes: the event's entry's, then the sender's.
  always_ff @(posedge clk_i) begin
    logic [TxnEntries-1:0] sa;
    sa     = t_snpany_q;
    sa[ei] = nx_snp != '0;
    if (s_take) sa[s_i] = ((s_i == ei ? nx_snp : t_snp_q[s_i]) & ~s_cn_oh) != '0;
    t_snpany_q <= sa;
  end

  // The steps' vectors follow the same writes: the event's entry, then the successors an END
  // wakes (each was waiting: at no step). The entry's bit of each step is set or cleared through
  // its one-hot mask: a bit at a computed index of the whole vector cost the Verilated model a
  // range test and a word select per step at every edge.
  // (Only at an edge with an event: without one the event's entry keeps its state, and an END is
  // an event, so nothing wakes.)
  always_ff @(posedge clk_i) begin
    logic [NumStep*TxnEntries-1:0] as;
    logic [TxnEntries-1:0]         oh;
    if (!rst_ni) begin
      at_step_q <= '0;
    end else if (ev_any) begin
      as = at_step_q;
      oh = TxnEntries'(1) << ei;
      for (int k = 0; k < NumStep; k++)
        as[k*TxnEntries +: TxnEntries] = nx_step[k] ? as[k*TxnEntries +: TxnEntries] | oh
                                                    : as[k*TxnEntries +: TxnEntries] & ~oh;
      if (wake != '0)
        for (int t = 0; t < TxnEntries; t++)
          if (wake[t]) as[(t_lnr_q[t] ? StepDecide : StepStart)*TxnEntries + t] = 1'b1;
      at_step_q <= as;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni)              req_first_q <= 1'b0;
    else if (rwd_r || req_r)  req_first_q <= rwd_r;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      failed_q <= '0;
      rec_q    <= 1'b0;
      w_ph_q   <= W_IDLE;
      w_set_q  <= '0;
      w_way_q  <= '0;
      w_grp_q  <= '0;
      w_pgrp_q <= '0;
      w_k_q    <= '0;
      w_out_q  <= '0;
      w_cyc_q  <= '0;
      w_last_q <= '0;
    end else begin
      failed_q <= failed_d;
      rec_q    <= rec_d;
      w_ph_q   <= w_ph_d;
      w_set_q  <= w_set_d;
      w_way_q  <= w_way_d;
      w_grp_q  <= w_grp_d;
      w_pgrp_q <= w_pgrp_d;
      w_k_q    <= w_k_d;
      w_out_q  <= w_out_d;
      w_last_q <= w_last_d;
      // TravDir: from the flush's first cycle to the walk's end.
      if (w_ph_q == W_QUIET) w_cyc_q <= '0;
      else if (walking)      w_cyc_q <= w_cyc_q + 32'd1;
    end
  end

  // ---- violations ----
  assign viol_valid_o = {rx_bad, v_kind != '0};
  assign viol_kind_o  = {rx_bad ? V_BAD_MSG : 4'd0, v_kind};
  assign viol_hdr_o   = {rx_bad_hdr, v_hdr};

  // ---- counters and CSRs ----
  logic [NumEv*32-1:0] cnt_q;   // counter e: bits e * 32 +: 32
  logic [TW:0] in_use;
  // The cycles a stalled controller was not clocked (stall_o below), EV_FULL's: the edge after them
  // counts them, and a read of EV_FULL at that edge adds them, so that the counter reads as if
  // every cycle had been clocked.
  logic        stall_q;
  logic [31:0] full_skip;
`ifndef SYNTHESIS
  assign full_skip = stall_q ? skip_i : 32'd0;
`else
  assign full_skip = 32'd0;
`endif
  // (Counted only when the CSR port reads.)
  always_comb begin
    in_use = '0;
    if (csr_valid_i)
      for (int t = 0; t < TxnEntries; t++) in_use = in_use + (TW + 1)'(t_valid_q[t]);
  end

  logic        csr_rvalid_q, csr_err_q, csr_err_d;
  logic [31:0] csr_rdata_q, csr_rdata_d;
  always_comb begin
    logic [5:0] hi;   // a counter of the upper range, at 0x25..
    hi          = csr_addr_i[5:0] - 6'd2;
    csr_rdata_d = '0;
    csr_err_d   = 1'b0;
    // Counters 0..34 at 0x00..0x22, then the table's use, the last walk's time, counters 35..41
    // at 0x25..0x2B and the failed CNs (worked out only in a cycle that reads).
    if (!csr_valid_i) begin
      // (no read)
    end else if (32'(csr_addr_i) < EV_WLINE)      csr_rdata_d = cnt_q[32'(csr_addr_i[5:0])*32 +: 32] +
                                                                ((32'(csr_addr_i) == EV_FULL) ? full_skip : 32'd0);
    else if (32'(csr_addr_i) == EV_WLINE)         csr_rdata_d = 32'(in_use);
    else if (32'(csr_addr_i) == EV_WLINE + 1)     csr_rdata_d = w_last_q;
    else if (32'(csr_addr_i) < NumEv + 2)         csr_rdata_d = cnt_q[32'(hi)*32 +: 32];
    else if (32'(csr_addr_i) == NumEv + 2)        csr_rdata_d = 32'(failed_q);
    else                                          csr_err_d   = 1'b1;
  end
  // The answer, then the counters, in one process. Only the counters of the cycle's events are
  // written (a cycle counts one or two events), with blocking writes: written non-blocking, part
  // by part, the 1 344-bit vector was copied into a shadow and back at every edge of the Verilated
  // model. Nothing but the answer reads them, and this process reads the answer (csr_rdata_d)
  // before it writes them, so the answer is the counters before the edge's events, as before.
  // verilator lint_off BLKSEQ
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      csr_rvalid_q <= 1'b0;
      csr_err_q    <= 1'b0;
      csr_rdata_q  <= '0;
      cnt_q         = '0;
    end else begin
      csr_rvalid_q <= csr_valid_i;
      csr_err_q    <= csr_valid_i & csr_err_d;
      csr_rdata_q  <= csr_valid_i ? csr_rdata_d : '0;
      if (evc != '0 || rx_bad || full_skip != '0)
        for (int e = 0; e < NumEv; e++)
          if (evc[e] || (e == EV_VIOL + 5 && rx_bad) || (e == EV_FULL && full_skip != '0))
            cnt_q[e*32 +: 32] = cnt_q[e*32 +: 32] + ((e == EV_VIOL + 5) ? 32'(evc[e]) + 32'(rx_bad) :
                                                    (e == EV_FULL)     ? 32'(evc[e]) + full_skip  : 32'd1);
    end
  end
  // verilator lint_on BLKSEQ
  assign csr_rvalid_o = csr_rvalid_q;
  assign csr_rdata_o  = csr_rdata_q;
  assign csr_err_o    = csr_err_q;

  // Idle: nothing changes until an input does. No transaction at a step it takes by itself (END,
  // FINISH, INSTALL, MEMRD, DECIDE, START: step_v), with a failed CN's answers to give up (pg_any)
  // or with snoops to send; the others wait on an input: the data of a read issued (FILLW, MEMW:
  // mem_rsp_valid_i), snoop answers (SNOOP: the link), the handler (held), or a transaction of their
  // line that waits so itself (WAIT). Nothing queued or arriving. A directory waiting on DRAM is
  // idle, so the kernel skips it until the DRAM answers.
  // (What idle and stalled have in common, worked out once and one part after the other, the
  // inputs first: a controller that is evaluated is seldom idle, and the Verilated model then stops
  // at the first part that is not.)
  logic no_work;
  always_comb begin
    no_work = 1'b0;
    if (!rx_valid_i && !mem_rsp_valid_i && !sw_tx_valid_i && !mg_req_valid_i)
      if (step_v == '0 && !pg_any && !s_any)
        no_work = tx_idle & mq_empty & sq_empty & mr_empty & (w_ph_q == W_IDLE);
  end
  assign idle_o  = no_work & rx_idle;

  // Stalled: idle but for new requests waiting in the receive FIFOs for an entry of the full table
  // (the engine's one event is EV_FULL, counted every cycle). Until an input changes every cycle is
  // the same, so the simulation may skip them: it tells the next edge how many (skip_i), which
  // counts them. A table full of transactions that wait on DRAM holds the controller so for most
  // of a DRAM round trip: at paper.ini's shape about a fifth of the edges of an ocean run. Hardware
  // clocks every cycle: synthesis has neither the stall nor the count of skipped cycles.
`ifndef SYNTHESIS
  assign stall_o = no_work & rx_held & ~rx_bad & (evc == NumEv'(1) << EV_FULL);
`else
  logic rx_held_unused;   // (the receive FIFOs' stall indication: for the simulation's skips)
  assign stall_o        = 1'b0;
  assign rx_held_unused = rx_held;
`endif
  // This edge was a stall's with no other input but send credits (nor a CSR answer to clear): the
  // cycles skipped after it were stalled too. (Credits only change their counts: a stalled
  // controller has nothing to send, and stall_o does not depend on the counts.)
  logic stall_in;
  assign stall_in = stall_o & ~csr_valid_i & ~csr_rvalid_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) stall_q <= 1'b0;
    else         stall_q <= stall_in;
  end

  // Honest idle: an edge with idle_o high and no other input changes nothing (checked on what every
  // step and event writes: no event counted, nothing queued, no transaction moved); a stalled edge
  // likewise changes nothing but EV_FULL's count (no message taken from the receive FIFOs).
  logic idle_in, txn_same;
  assign idle_in = idle_o & ~csr_valid_i & (tx_crd_i == '0);
  assign txn_same = nx_valid == t_valid_q[ei] && nx_st == t_st_q[ei] && wake == '0;
  // A read outstanding (idle or not) is a walk's or a live transaction's, which waits for it.
  `ASSERT(read_outstanding_is_awaited, rq_empty || rq_out[TW+1] || t_valid_q[rq_out[TW-1:0]])
  `ASSERT(idle_changes_nothing, !idle_in || (evc == '0 && !mq_push && !rq_push && !sq_push && !mr_push &&
                                              txn_same))
  `ASSERT(stall_changes_only_full, !stall_in || (!mq_push && !rq_push && !sq_push && !mr_push && txn_same &&
                                                 !req_r && !rwd_r && !bir_r))
  // A skip follows only a stalled edge (ignored otherwise, but the driver would be out of step).
  `ASSERT(skip_after_stall, skip_i == '0 || stall_q)

  // ---- assertions ----
  // A memory response always has its read tag; the table never overflows its read tags.
  `ASSERT(rsp_has_tag, !mem_rsp_valid_i || rq_v)
  `ASSERT(push_fits, (!mq_push || mq_room) && (!rq_push || rq_room) && (!sq_push || sq_room))
  // A data response names a transaction that waits for it.
  `ASSERT(rsp_awaited, !mem_rsp_valid_i || rq_out[TW+1] || (t_valid_q[rq_out[TW-1:0]] &&
          (rq_out[TW] ? t_st_q[rq_out[TW-1:0]] == ST_FILLW : t_rdis_q[rq_out[TW-1:0]])))
  // The walk never reads more directory lines than its queue holds.
  `ASSERT(walk_fits, !wf_push || wf_room_unused)
  // A held transaction awaits its answers (nothing but RECOVER moves it).
  for (genvar t = 0; t < TxnEntries; t++) begin : g_as_held
    `ASSERT(held_snoops, !held[t] || t_st_q[t] == ST_SNOOP)
  end
  // Only a RECOVER sets a line's version from the management port.
  for (genvar t = 0; t < TxnEntries; t++) begin : g_as_setv
    `ASSERT(setv_is_recover, !t_valid_q[t] || !t_setv_q[t] || t_rec_q[t])
  end
  // A RECOVER releases only a transaction of a line that a failed CN owns: the version it sets
  // replaces that owner's.
  `ASSERT(release_failed_owner, !(ev == EV_MG && mg_req_op_i == MG_RECOVER && h_any) ||
          (e_st == E_EM && (e_vec & failed_q) != '0))
  // The steps' vectors match the transactions' states.
  for (genvar t = 0; t < TxnEntries; t++) begin : g_as_step
    for (genvar k = 0; k < NumStep; k++) begin : g_k
      `ASSERT(step_matches, at_step_q[k*TxnEntries + t] == (t_valid_q[t] && step_is(t_st_q[t], 3'(k))))
    end
  end
  // The snoop sender's summary matches the vectors.
  for (genvar t = 0; t < TxnEntries; t++) begin : g_as_snp
    `ASSERT(snpany_matches, !t_valid_q[t] || t_snpany_q[t] == (t_snp_q[t] != '0))
  end
  // An EM entry names exactly one owner.
  for (genvar t = 0; t < TxnEntries; t++) begin : g_as
    `ASSERT(em_one_owner, !t_valid_q[t] || t_ent_q[t][1:0] != E_EM || $countones(t_ent_q[t][2 +: NumCn]) == 1)
    `ASSERT(no_state_3, !t_valid_q[t] || t_ent_q[t][1:0] != 2'd3)
  end

`undef DIR_TD_RDATA

endmodule
`default_nettype wire
