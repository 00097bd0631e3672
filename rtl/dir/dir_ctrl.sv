`default_nettype none
`include "assert.svh"

// The directory controller of one memory node (DIKTAMO sections II-A, IV-D; docs/architecture.md
// section 11c, which holds the state x event table dir_decide implements): the home of the MN's
// share of CXL memory. A MESI directory (I; S with a sharer vector over all CNs; EM with an owner:
// the directory cannot tell E from M) for the Small Coherent Region, back-invalidation snoops
// (BISNP) to sharers and owners, plain reads and writes for the Large Non-coherent Region.
//
// This module wires the directory's parts (one event per cycle, a transaction's at most):
//   rx link -> dir_rx (a FIFO and credits per class) -> dir_admit (the new request: RWD and REQ
//   in turn, the address map, its checks) -> dir_event (the cycle's event, in priority: a memory
//   response, a BIRSP, the transactions' own steps, the walk's, the management port's command, a
//   new request) -> dir_txn (what the event does to its transaction, with dir_decide's row of the
//   state x event table) -> dir_tbe (the transaction table: TxnEntries transactions, per line one
//   active, the rest waiting in arrival order) -> the memory request queue (MN DRAM: data lines
//   and directory entries; dir_cache holds directory entries on chip) -> dir_msg (responses,
//   snoops) and the software's messages -> link_tx -> tx link.
//   Beside them: dir_walk (the recovery walk), dir_mgmt (the management port: failed CNs, the
//   recovery mode, the answers), dir_csr (the counters and the CSR port).
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
// CSR read port: 32-bit registers, word addresses, the map in dir_csr.
//
// Management port (the MN's recovery handler, section 11c): FAIL cn, WALK, RECOVER line, RESUME;
// dir_mgmt says what each does.
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
  /// the simulation skipped before this one, counted as held before this edge (link_tx)
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
  localparam int unsigned EntW    = 2 + 2 * NumCn + TsW;
  localparam int unsigned WordN   = msg_pkg::WORDS_PER_LINE;
  localparam int unsigned TagQW   = 2 + TW;   // {walk read, directory line, transaction}
  localparam int unsigned NumStep = 6;
  localparam int unsigned SetW    = $clog2(DcSets);
  localparam int unsigned WayW    = (DcWays > 1) ? $clog2(DcWays) : 1;

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

  // ---- receive ----
  logic             rx_bad, rx_idle, rx_held;
  logic [HdrW-1:0]  rx_bad_hdr, req_hdr;
  logic             req_v, req_r, rwd_v, rwd_r, bir_v, bir_r;
  logic [FlitW-1:0] rwd_msg, bir_msg;
  dir_rx #(.CrdPerCls(CrdPerCls)) u_rx (
    .clk_i (clk_i), .rst_ni (rst_ni), .rx_valid_i (rx_valid_i), .rx_msg_i (rx_msg_i),
    .rx_crd_o (rx_crd_o), .bad_o (rx_bad), .bad_hdr_o (rx_bad_hdr),
    .req_valid_o (req_v), .req_ready_i (req_r), .req_hdr_o (req_hdr),
    .rwd_valid_o (rwd_v), .rwd_ready_i (rwd_r), .rwd_msg_o (rwd_msg),
    .bir_valid_o (bir_v), .bir_ready_i (bir_r), .bir_msg_o (bir_msg),
    .sw_valid_o (sw_rx_valid_o), .sw_ready_i (sw_rx_ready_i), .sw_msg_o (sw_rx_msg_o),
    .idle_o (rx_idle), .held_o (rx_held)
  );

  // ---- signals between the parts ----
  // the cycle's event (dir_event)
  logic             ev_any, low_turn, ev_memrsp, ev_birsp, ev_purge, ev_end, ev_finish, ev_install,
                    ev_memrd, ev_decide, ev_start, ev_wproc, ev_flush, ev_wdone, ev_mg, ev_new;
  logic [TW-1:0]    ei;
  // the new message (dir_admit)
  logic             n_v, n_is_rwd, n_here, n_scr, n_new, n_lnr, n_rec, n_setv, c_full, c_reqs;
  logic [HdrW-1:0]  n_hdr;
  logic [AddrW-1:0] n_addr;
  logic [31:0]      n_lline;
  logic [3:0]       n_kind;
  msg_pkg::opcode_t n_op;
  logic [NodeW-1:0] n_src;
  logic [msg_pkg::CORE_ID_W-1:0] n_core;
  logic [msg_pkg::TAG_W-1:0]     n_tag;
  logic [WordN-1:0] n_mask;
  logic [TsW-1:0]   n_ts;
  // the event's transaction (dir_tbe) and its next fields (dir_txn)
  logic             e_valid, e_lnr, e_chg, e_snpinv, e_need, e_have, e_rdis, e_kepts, e_viol, e_rec,
                    e_skip, e_recok, e_setv;
  logic [3:0]       e_st;
  logic [AddrW-1:0] e_line;
  logic [31:0]      e_lline;
  msg_pkg::opcode_t e_op;
  logic [NodeW-1:0] e_src;
  logic [msg_pkg::CORE_ID_W-1:0] e_core;
  logic [msg_pkg::TAG_W-1:0]     e_tag;
  logic [WordN-1:0] e_mask;
  logic [TsW-1:0]   e_ts;
  logic [EntW-1:0]  e_ent;
  logic [NumCn-1:0] e_await, e_snp;
  logic [2:0]       td_src;
  logic [HdrW-1:0]  e_hdr, rsp_hdr;
  logic             rsp_data;
  logic             nx_valid, nx_chg, nx_snpinv, nx_need, nx_have, nx_rdis, nx_kepts, nx_viol,
                    nx_skip, nx_recok, succ, td_we;
  logic [3:0]       nx_st;
  logic [EntW-1:0]  nx_ent;
  logic [NumCn-1:0] nx_await, nx_snp;
  // the table's look-ups (dir_tbe)
  logic             free_any, busy_any, h_any, b_any, pg_any, quiet, s_any, s_inv, wake_any;
  logic [TW-1:0]    free_i, h_i, b_i, pg_i, s_i;
  logic [CnW-1:0]   pg_cn, s_cn;
  logic [AddrW-1:0] s_line;
  logic [NumStep-1:0]    step_v;
  logic [NumStep*TW-1:0] step_i;
  logic [TxnEntries-1:0] txn_valid, own_snp_all;
  // the table's row (dir_decide)
  logic             row, fin, release_ev, row_dup, row_not_owner, row_stale, row_rd, row_wr,
                    row_snoop, row_inv, row_need, row_chg, rec_ok, own_snp;
  logic [4:0]       row_tr;
  logic [NumCn-1:0] row_targets;
  logic [EntW-1:0]  row_ent, rec_ent, fin_ent;
  msg_pkg::opcode_t fin_op;
  // the walk (dir_walk) and the management port (dir_mgmt)
  logic             w_idle, w_quiet_look, walking, wproc_ok, flush_ok, wdone_ok, walk_start;
  logic             rec_pend, mg_go, rec_mode, mr_room, mr_empty, mr_push;
  logic [NumCn-1:0] failed;
  logic [31:0]      w_last;
  // memory requests and read tags: the engine's, the walk's (narrow: dir_dpath widens them)
  logic             t_mq_v, t_mq_w, t_mq_dir, t_mq_ent_v, t_rq_v, t_rq_dir;
  logic [31:0]      t_mq_addr;
  logic [WordN-1:0] t_mq_mask;
  logic [2:0]       t_mq_src;
  logic [EntW-1:0]  t_mq_ent;
  logic             w_mq_v, w_mq_ent_v, w_rq_v;
  logic [31:0]      w_mq_addr;
  logic [EntW-1:0]  w_mq_ent;
  // the directory cache
  logic [31:0]      dc_line, dc_wb_line;
  logic             dc_clean, dc_inv, dc_look, dc_hit, dc_fill, dc_upd, dc_wb;
  logic [EntW-1:0]  dc_ent, dc_fill_ent, dc_upd_ent, dc_wb_ent;
  logic [SetW-1:0]  dc_set;
  logic [WayW-1:0]  dc_way;
  // answers of a RECOVER's transaction and the walk; violations; counted events
  logic             rec_done, rec_done_ok, w_owned, w_walked;
  logic [AddrW-1:0] rec_line, w_owned_line;
  logic [31:0]      w_walked_cyc;
  logic [3:0]       v_kind;
  logic [HdrW-1:0]  v_hdr;
  logic             tc_tr, tc_bir, tc_purged, tc_mrd, tc_mwr, tc_hit, tc_miss, tc_wb, tc_stale,
                    tc_waited, tc_recok, tc_recno, tc_void, wc_mrd, wc_mwr, wc_wb, wc_wline, wc_wsh,
                    wc_owned, mc_recok;
  // queues
  logic             mq_push, mq_room, mq_empty, rq_push, rq_room, rq_v, rq_empty;
  logic             sq_push, sq_room, sq_v, sq_r, sq_empty, s_take, res_ok;
  logic [TagQW-1:0] rq_out;
  logic [FlitW-1:0] sq_in, sq_out, s_msg;

  // ---- new requests ----
  dir_admit u_admit (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .cfg_mn_idx_i (cfg_mn_idx), .cfg_mn_shift_i (cfg_mn_shift), .cfg_gran_shift_i (cfg_gran_shift),
    .cfg_lines_i (cfg_lines), .cfg_scr_lo_i (cfg_scr_lo), .cfg_scr_hi_i (cfg_scr_hi),
    .req_v_i (req_v), .req_hdr_i (req_hdr), .rwd_v_i (rwd_v), .rwd_hdr_i (rwd_msg[FlitW-1:DataW]),
    .mg_rec_i (rec_pend), .mg_addr_i (mg_req_addr_i), .mg_wmask_i (mg_req_wmask_i),
    .mg_tsv_i (mg_req_tsv_i), .mg_ts_i (mg_req_ts_i), .failed_i (failed), .free_any_i (free_any),
    .ev_new_i (ev_new),
    .n_v_o (n_v), .n_is_rwd_o (n_is_rwd), .n_hdr_o (n_hdr), .n_addr_o (n_addr), .n_lline_o (n_lline),
    .n_here_o (n_here), .n_scr_o (n_scr), .kind_o (n_kind), .new_o (n_new), .full_o (c_full),
    .reqs_o (c_reqs), .req_r_o (req_r), .rwd_r_o (rwd_r),
    .lnr_o (n_lnr), .op_o (n_op), .src_o (n_src), .core_o (n_core), .tag_o (n_tag), .mask_o (n_mask),
    .ts_o (n_ts), .rec_o (n_rec), .setv_o (n_setv)
  );

  // ---- the transaction table ----
  dir_tbe #(.TxnEntries(TxnEntries)) u_tbe (
    .clk_i (clk_i), .rst_ni (rst_ni), .ei_i (ei), .event_i (ev_any), .new_i (n_new),
    .nx_valid_i (nx_valid), .nx_st_i (nx_st), .nx_lnr_i (n_lnr), .nx_line_i (n_addr),
    .nx_lline_i (n_lline), .nx_op_i (n_op), .nx_src_i (n_src), .nx_core_i (n_core), .nx_tag_i (n_tag),
    .nx_mask_i (n_mask), .nx_ts_i (n_ts), .nx_ent_i (nx_ent), .nx_chg_i (nx_chg),
    .nx_await_i (nx_await), .nx_snp_i (nx_snp), .nx_snpinv_i (nx_snpinv), .nx_need_i (nx_need),
    .nx_have_i (nx_have), .nx_rdis_i (nx_rdis), .nx_kepts_i (nx_kepts), .nx_viol_i (nx_viol),
    .nx_rec_i (n_rec), .nx_skip_i (nx_skip), .nx_recok_i (nx_recok), .nx_setv_i (n_setv),
    .end_i (ev_end), .succ_i (succ),
    .e_valid_o (e_valid), .e_st_o (e_st), .e_lnr_o (e_lnr), .e_line_o (e_line), .e_lline_o (e_lline),
    .e_op_o (e_op), .e_src_o (e_src), .e_core_o (e_core), .e_tag_o (e_tag), .e_mask_o (e_mask),
    .e_ts_o (e_ts), .e_ent_o (e_ent), .e_chg_o (e_chg), .e_await_o (e_await), .e_snp_o (e_snp),
    .e_snpinv_o (e_snpinv), .e_need_o (e_need), .e_have_o (e_have), .e_rdis_o (e_rdis),
    .e_kepts_o (e_kepts), .e_viol_o (e_viol), .e_rec_o (e_rec), .e_skip_o (e_skip),
    .e_recok_o (e_recok), .e_setv_o (e_setv),
    .look_i ((n_v || mg_req_valid_i) && low_turn), .look_line_i (n_addr),
    .free_any_o (free_any), .free_o (free_i), .busy_any_o (busy_any),
    .h_any_o (h_any), .h_o (h_i),
    .bir_v_i (bir_v), .bir_line_i (bir_msg[msg_pkg::FIELD_ADDR_LSB +: AddrW]),
    .bir_cn_i (bir_msg[msg_pkg::FIELD_SRC_LSB +: CnW]),
    .bir_cn_ok_i (bir_msg[msg_pkg::FIELD_SRC_LSB +: NodeW] < NodeW'(NumCn)),
    .b_any_o (b_any), .b_o (b_i), .failed_i (failed), .own_snp_i (own_snp_all),
    .pg_any_o (pg_any), .pg_o (pg_i), .pg_cn_o (pg_cn), .quiet_look_i (w_quiet_look), .quiet_o (quiet),
    .step_v_o (step_v), .step_o (step_i),
    .s_any_o (s_any), .s_o (s_i), .s_cn_o (s_cn), .s_inv_o (s_inv), .s_line_o (s_line),
    .s_take_i (s_take), .valid_o (txn_valid), .wake_any_o (wake_any),
    .rd_head_v_i (!rq_empty), .rd_head_i (rq_out), .rd_rsp_i (mem_rsp_valid_i)
  );

  // ---- the table's rows ----
  dir_decide #(.TxnEntries(TxnEntries)) u_decide (
    .clk_i (clk_i), .rst_ni (rst_ni), .ei_i (ei), .decide_i (row), .rec_i (ev_decide & e_rec), .release_i (release_ev),
    .finish_i (fin), .ent_i (e_ent), .op_i (e_op), .req_cn_i (e_src[CnW-1:0]), .lnr_i (e_lnr),
    .ts_i (e_ts), .kepts_i (e_kepts), .setv_i (e_setv), .failed_i (failed),
    .tr_o (row_tr), .dup_o (row_dup), .not_owner_o (row_not_owner), .stale_o (row_stale),
    .rd_o (row_rd), .wr_o (row_wr), .snoop_o (row_snoop), .inv_o (row_inv), .targets_o (row_targets),
    .need_o (row_need), .ent_o (row_ent), .chg_o (row_chg), .rec_ok_o (rec_ok), .rec_ent_o (rec_ent),
    .fin_op_o (fin_op), .fin_ent_o (fin_ent), .own_snp_o (own_snp), .own_snp_all_o (own_snp_all)
  );

  // ---- the cycle's event ----
  assign res_ok = mq_room & rq_room;
  dir_event #(.TxnEntries(TxnEntries)) u_event (
    .mem_rsp_valid_i (mem_rsp_valid_i), .rsp_walk_i (rq_out[TW+1]), .rsp_txn_i (rq_out[TW-1:0]),
    .bir_v_i (bir_v), .b_i (b_i), .pg_any_i (pg_any), .pg_i (pg_i), .step_v_i (step_v),
    .step_i (step_i), .mq_room_i (mq_room), .sq_room_i (sq_room), .mr_room_i (mr_room),
    .res_ok_i (res_ok), .walking_i (walking), .wproc_ok_i (wproc_ok), .flush_ok_i (flush_ok),
    .wdone_ok_i (wdone_ok), .mg_go_i (mg_go), .rec_pend_i (rec_pend), .n_here_i (n_here),
    .n_scr_i (n_scr), .h_any_i (h_any), .h_i (h_i), .free_any_i (free_any), .free_i (free_i),
    .n_v_i (n_v), .rec_mode_i (rec_mode), .low_turn_o (low_turn), .ev_any_o (ev_any), .ei_o (ei),
    .ev_memrsp_o (ev_memrsp), .ev_birsp_o (ev_birsp), .ev_purge_o (ev_purge), .ev_end_o (ev_end),
    .ev_finish_o (ev_finish), .ev_install_o (ev_install), .ev_memrd_o (ev_memrd),
    .ev_decide_o (ev_decide), .ev_start_o (ev_start), .ev_wproc_o (ev_wproc), .ev_flush_o (ev_flush),
    .ev_wdone_o (ev_wdone), .ev_mg_o (ev_mg), .ev_new_o (ev_new)
  );

  // ---- what the event does to its transaction ----
  dir_txn u_txn (
    .ev_memrsp_i (ev_memrsp), .ev_birsp_i (ev_birsp), .ev_purge_i (ev_purge),
    .ev_end_i (ev_end), .ev_finish_i (ev_finish), .ev_install_i (ev_install), .ev_memrd_i (ev_memrd),
    .ev_decide_i (ev_decide), .ev_start_i (ev_start), .ev_release_i (release_ev), .ev_new_i (ev_new),
    .e_valid_i (e_valid), .e_st_i (e_st), .e_lnr_i (e_lnr), .e_line_i (e_line), .e_lline_i (e_lline),
    .e_op_i (e_op), .e_cn_i (e_src[CnW-1:0]), .e_mask_i (e_mask), .e_ent_i (e_ent), .e_chg_i (e_chg),
    .e_await_i (e_await), .e_snp_i (e_snp), .e_snpinv_i (e_snpinv), .e_need_i (e_need),
    .e_have_i (e_have), .e_rdis_i (e_rdis), .e_kepts_i (e_kepts), .e_viol_i (e_viol),
    .e_rec_i (e_rec), .e_skip_i (e_skip), .e_recok_i (e_recok), .e_hdr_i (e_hdr),
    .row_dup_i (row_dup), .row_not_owner_i (row_not_owner),
    .row_stale_i (row_stale), .row_rd_i (row_rd), .row_wr_i (row_wr), .row_snoop_i (row_snoop),
    .row_inv_i (row_inv), .row_targets_i (row_targets), .row_need_i (row_need), .row_ent_i (row_ent),
    .row_chg_i (row_chg), .rec_ok_i (rec_ok), .rec_ent_i (rec_ent), .fin_ent_i (fin_ent),
    .own_snp_i (own_snp), .row_o (row), .fin_o (fin),
    .rsp_dir_i (rq_out[TW]), .mem_rsp_rdata_i (mem_rsp_rdata_i), .bir_msg_i (bir_msg),
    .b_any_i (b_any), .pg_cn_i (pg_cn), .dc_hit_i (dc_hit), .dc_ent_i (dc_ent), .dc_wb_i (dc_wb),
    .dc_wb_line_i (dc_wb_line), .dc_wb_ent_i (dc_wb_ent), .failed_i (failed),
    .n_mg_i (rec_pend), .n_hdr_i (n_hdr), .n_is_rwd_i (n_is_rwd), .n_lline_i (n_lline),
    .n_scr_i (n_scr), .n_kind_i (n_kind), .n_new_i (n_new), .busy_any_i (busy_any),
    .mg_wmask_i (mg_req_wmask_i), .mg_tsv_i (mg_req_tsv_i), .mg_ts_i (mg_req_ts_i),
    .nx_valid_o (nx_valid), .nx_st_o (nx_st), .nx_ent_o (nx_ent), .nx_chg_o (nx_chg),
    .nx_await_o (nx_await), .nx_snp_o (nx_snp), .nx_snpinv_o (nx_snpinv), .nx_need_o (nx_need),
    .nx_have_o (nx_have), .nx_rdis_o (nx_rdis), .nx_kepts_o (nx_kepts), .nx_viol_o (nx_viol),
    .nx_skip_o (nx_skip), .nx_recok_o (nx_recok), .succ_o (succ), .td_we_o (td_we),
    .td_src_o (td_src),
    .mq_v_o (t_mq_v), .mq_w_o (t_mq_w), .mq_dir_o (t_mq_dir), .mq_addr_o (t_mq_addr),
    .mq_mask_o (t_mq_mask), .mq_src_o (t_mq_src), .mq_ent_v_o (t_mq_ent_v), .mq_ent_o (t_mq_ent),
    .rq_v_o (t_rq_v), .rq_dir_o (t_rq_dir), .sq_v_o (sq_push),
    .dc_line_o (dc_line), .dc_fill_o (dc_fill), .dc_fill_ent_o (dc_fill_ent), .dc_upd_o (dc_upd),
    .dc_upd_ent_o (dc_upd_ent), .bir_r_o (bir_r), .v_kind_o (v_kind), .v_hdr_o (v_hdr),
    .rec_done_o (rec_done), .rec_ok_o (rec_done_ok), .rec_line_o (rec_line),
    .c_tr_o (tc_tr), .c_bir_o (tc_bir), .c_purged_o (tc_purged), .c_mrd_o (tc_mrd),
    .c_mwr_o (tc_mwr), .c_hit_o (tc_hit), .c_miss_o (tc_miss), .c_wb_o (tc_wb),
    .c_stale_o (tc_stale), .c_waited_o (tc_waited), .c_recok_o (tc_recok), .c_recno_o (tc_recno),
    .c_void_o (tc_void)
  );

  // ---- the messages built from the transactions ----
  dir_msg u_msg (
    .node_id_i (node_id), .ev_finish_i (ev_finish), .ev_decide_i (ev_decide), .e_op_i (e_op),
    .e_src_i (e_src), .e_core_i (e_core), .e_tag_i (e_tag), .e_line_i (e_line), .e_mask_i (e_mask),
    .e_ver_i (e_ent[EntW-TsW +: TsW]), .fin_op_i (fin_op), .rsp_hdr_o (rsp_hdr), .rsp_data_o (rsp_data),
    .req_hdr_o (e_hdr), .s_any_i (s_any), .s_tag_i (msg_pkg::TAG_W'(s_i)), .s_cn_i (s_cn),
    .s_inv_i (s_inv), .s_line_i (s_line), .snp_o (s_msg)
  );

  // ---- the recovery walk and the management port ----
  dir_walk #(.DcSets(DcSets), .DcWays(DcWays), .WalkReads(WalkReads)) u_walk (
    .clk_i (clk_i), .rst_ni (rst_ni), .cfg_mn_idx_i (cfg_mn_idx), .cfg_mn_shift_i (cfg_mn_shift),
    .cfg_gran_shift_i (cfg_gran_shift), .cfg_lines_i (cfg_lines), .start_i (walk_start),
    .quiet_i (quiet), .failed_i (failed), .idle_o (w_idle), .quiet_look_o (w_quiet_look),
    .walking_o (walking), .wproc_ok_o (wproc_ok), .flush_ok_o (flush_ok), .wdone_ok_o (wdone_ok),
    .ev_wproc_i (ev_wproc), .ev_flush_i (ev_flush), .ev_wdone_i (ev_wdone), .txn_mq_v_i (t_mq_v),
    .res_ok_i (res_ok), .mem_rsp_valid_i (mem_rsp_valid_i), .rsp_walk_i (rq_out[TW+1]),
    .mem_rsp_rdata_i (mem_rsp_rdata_i), .dc_set_o (dc_set), .dc_way_o (dc_way),
    .dc_clean_o (dc_clean), .dc_inv_o (dc_inv), .dc_wb_i (dc_wb), .dc_wb_line_i (dc_wb_line),
    .dc_wb_ent_i (dc_wb_ent), .mq_v_o (w_mq_v), .mq_ent_v_o (w_mq_ent_v), .mq_addr_o (w_mq_addr),
    .mq_ent_o (w_mq_ent), .rq_v_o (w_rq_v), .owned_o (w_owned), .owned_line_o (w_owned_line),
    .walked_o (w_walked), .walked_cyc_o (w_walked_cyc), .last_o (w_last),
    .c_mrd_o (wc_mrd), .c_mwr_o (wc_mwr), .c_wb_o (wc_wb), .c_wline_o (wc_wline), .c_wsh_o (wc_wsh),
    .c_owned_o (wc_owned)
  );

  dir_mgmt u_mgmt (
    .clk_i (clk_i), .rst_ni (rst_ni), .mg_req_valid_i (mg_req_valid_i), .mg_req_op_i (mg_req_op_i),
    .mg_req_cn_i (mg_req_cn_i), .mg_req_addr_i (mg_req_addr_i), .mg_req_ready_o (mg_req_ready_o),
    .mg_rsp_valid_o (mg_rsp_valid_o), .mg_rsp_ready_i (mg_rsp_ready_i), .mg_rsp_kind_o (mg_rsp_kind_o),
    .mg_rsp_line_o (mg_rsp_line_o), .mg_rsp_count_o (mg_rsp_count_o), .walk_idle_i (w_idle),
    .walk_quiet_i (w_quiet_look), .rec_pend_o (rec_pend), .go_o (mg_go), .mq_room_i (mq_room),
    .ev_mg_i (ev_mg), .ev_new_i (ev_new), .n_here_i (n_here), .n_scr_i (n_scr), .h_any_i (h_any),
    .walk_start_o (walk_start), .release_o (release_ev), .failed_o (failed), .rec_mode_o (rec_mode),
    .rec_done_i (rec_done), .rec_ok_i (rec_done_ok), .rec_line_i (rec_line), .owned_i (w_owned),
    .owned_line_i (w_owned_line), .walked_i (w_walked), .walked_cyc_i (w_walked_cyc),
    .mr_room_o (mr_room), .mr_empty_o (mr_empty), .mr_push_o (mr_push), .c_recok_o (mc_recok)
  );

  // ---- directory cache ----
  // (The events that read its answer: a hit, an entry or a dirty victim.)
  assign dc_look = ev_start || ev_end || ev_install || ev_flush;
  dir_cache #(.Sets(DcSets), .Ways(DcWays), .LineW(32), .EntW(EntW)) u_dc (
    .clk_i (clk_i), .rst_ni (rst_ni), .line_i (dc_line), .look_i (dc_look), .hit_o (dc_hit),
    .entry_o (dc_ent), .fill_i (dc_fill), .fill_entry_i (dc_fill_ent), .upd_i (dc_upd),
    .upd_entry_i (dc_upd_ent), .wbsel_i (ev_flush), .wbset_i (dc_set), .wbway_i (dc_way),
    .clean_i (dc_clean), .inv_i (dc_inv), .wb_valid_o (dc_wb), .wb_line_o (dc_wb_line),
    .wb_entry_o (dc_wb_ent)
  );

  // ---- the wide data path and the memory port: data lines, memory requests, read tags, responses ----
  dir_dpath #(.TxnEntries(TxnEntries), .MemReads(MemReads)) u_dpath (
    .clk_i (clk_i), .rst_ni (rst_ni), .ei_i (ei), .td_we_i (td_we), .td_src_i (td_src),
    .mem_rsp_rdata_i (mem_rsp_rdata_i), .bir_data_i (bir_msg[DataW-1:0]), .mg_wdata_i (mg_req_wdata_i),
    .rwd_data_i (rwd_msg[DataW-1:0]),
    .t_mq_v_i (t_mq_v), .t_mq_w_i (t_mq_w), .t_mq_dir_i (t_mq_dir), .t_mq_addr_i (t_mq_addr),
    .t_mq_mask_i (t_mq_mask), .t_mq_src_i (t_mq_src), .t_mq_ent_v_i (t_mq_ent_v), .t_mq_ent_i (t_mq_ent),
    .w_mq_v_i (w_mq_v), .w_mq_ent_v_i (w_mq_ent_v), .w_mq_addr_i (w_mq_addr), .w_mq_ent_i (w_mq_ent),
    .t_rq_v_i (t_rq_v), .t_rq_dir_i (t_rq_dir), .w_rq_v_i (w_rq_v), .rq_room_o (rq_room), .rq_v_o (rq_v),
    .rq_head_o (rq_out), .rq_empty_o (rq_empty), .rq_push_o (rq_push),
    .mq_room_o (mq_room), .mq_empty_o (mq_empty), .mq_push_o (mq_push),
    .mem_req_valid_o (mem_req_valid_o), .mem_req_ready_i (mem_req_ready_i),
    .mem_req_write_o (mem_req_write_o), .mem_req_dir_o (mem_req_dir_o), .mem_req_addr_o (mem_req_addr_o),
    .mem_req_wdata_o (mem_req_wdata_o), .mem_req_wmask_o (mem_req_wmask_o),
    .mem_rsp_valid_i (mem_rsp_valid_i),
    .rsp_v_i (ev_finish), .rsp_hdr_i (rsp_hdr), .rsp_data_i (rsp_data), .rsp_o (sq_in)
  );

  // ---- response queue, send port: responses, snoops, the software's messages ----
  logic [$clog2(3)-1:0] sq_cnt_unused;
  fifo #(.Depth(2), .Width(FlitW)) u_rspq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (sq_push), .in_ready_o (sq_room), .in_data_i (sq_in),
    .out_valid_o (sq_v), .out_ready_i (sq_r), .out_data_o (sq_out),
    .count_o (sq_cnt_unused), .empty_o (sq_empty)
  );
  logic [2:0] tx_ready;
  logic       tx_idle;
  link_tx #(.NumSrc(3), .MaxTxCredits(MaxTxCredits)) u_tx (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .src_valid_i ({sw_tx_valid_i, s_any, sq_v}), .src_msg_i ({sw_tx_msg_i, s_msg, sq_out}),
    .src_ready_o (tx_ready), .tx_valid_o (tx_valid_o), .tx_msg_o (tx_msg_o), .tx_crd_i (tx_crd_i),
    .tx_crd_skip_i (tx_crd_skip_i), .idle_o (tx_idle)
  );
  assign sq_r          = tx_ready[0];
  assign s_take        = tx_ready[1];
  assign sw_tx_ready_o = tx_ready[2];

  // ---- violations ----
  assign viol_valid_o = {rx_bad, v_kind != '0};
  assign viol_kind_o  = {rx_bad ? 4'd6 : 4'd0, v_kind};   // the receive port's: BAD_MSG
  assign viol_hdr_o   = {rx_bad_hdr, v_hdr};

  // ---- counters and CSRs ----
  logic ev_none, ev_only_full, stall_in;
  dir_csr #(.TxnEntries(TxnEntries)) u_csr (
    .clk_i (clk_i), .rst_ni (rst_ni), .csr_valid_i (csr_valid_i), .csr_addr_i (csr_addr_i),
    .csr_rvalid_o (csr_rvalid_o), .csr_rdata_o (csr_rdata_o), .csr_err_o (csr_err_o),
    .c_tr_i (tc_tr), .tr_i (row_tr), .v_kind_i (v_kind), .rx_bad_i (rx_bad), .c_snp_i (s_take),
    .c_bir_i (tc_bir), .c_hit_i (tc_hit), .c_miss_i (tc_miss), .c_wb_i (tc_wb | wc_wb),
    .c_stale_i (tc_stale), .c_full_i (c_full), .c_waited_i (tc_waited), .c_reqs_i (c_reqs),
    .c_mrd_i (tc_mrd | wc_mrd), .c_mwr_i (tc_mwr | wc_mwr), .c_wline_i (wc_wline), .c_wsh_i (wc_wsh),
    .c_owned_i (wc_owned), .c_recok_i (tc_recok | mc_recok), .c_recno_i (tc_recno),
    .c_purged_i (tc_purged), .c_void_i (tc_void), .txn_valid_i (txn_valid), .walk_last_i (w_last),
    .failed_i (failed), .stall_i (stall_o), .skip_i (skip_i), .ev_none_o (ev_none),
    .ev_only_full_o (ev_only_full), .stall_in_o (stall_in)
  );

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
        no_work = tx_idle & mq_empty & sq_empty & mr_empty & w_idle;
  end
  assign idle_o  = no_work & rx_idle;

  // Stalled: idle but for new requests waiting in the receive FIFOs for an entry of the full table
  // (the engine's one event is EV_FULL, counted every cycle). Until an input changes every cycle is
  // the same, so the simulation may skip them: it tells the next edge how many (skip_i), which
  // dir_csr counts. A table full of transactions that wait on DRAM holds the controller so for most
  // of a DRAM round trip: at paper.ini's shape about a fifth of the edges of an ocean run. Hardware
  // clocks every cycle: synthesis has neither the stall nor the count of skipped cycles.
`ifndef SYNTHESIS
  assign stall_o = no_work & rx_held & ~rx_bad & ev_only_full;
`else
  logic rx_held_unused, ev_only_full_unused;   // (for the simulation's skips)
  assign stall_o             = 1'b0;
  assign rx_held_unused      = rx_held;
  assign ev_only_full_unused = ev_only_full;
`endif

  // Honest idle: an edge with idle_o high and no other input changes nothing (checked on what every
  // step and event writes: no event counted, nothing queued, no transaction moved); a stalled edge
  // likewise changes nothing but EV_FULL's count (no message taken from the receive FIFOs).
  logic idle_in, txn_same;
  assign idle_in  = idle_o & ~csr_valid_i & (tx_crd_i == '0);
  assign txn_same = nx_valid == e_valid && nx_st == e_st && !wake_any;
  `ASSERT(idle_changes_nothing, !idle_in || (ev_none && !mq_push && !rq_push && !sq_push && !mr_push &&
                                              txn_same))
  `ASSERT(stall_changes_only_full, !stall_in || (!mq_push && !rq_push && !sq_push && !mr_push && txn_same &&
                                                 !req_r && !rwd_r && !bir_r))
  // A memory response always has its read tag; the table never overflows its read tags.
  `ASSERT(rsp_has_tag, !mem_rsp_valid_i || rq_v)
  `ASSERT(push_fits, (!mq_push || mq_room) && (!rq_push || rq_room) && (!sq_push || sq_room))

endmodule
`default_nettype wire
