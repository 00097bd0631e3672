`default_nettype none
`include "assert.svh"

// The Logging Unit (LU) of one compute node (DIKTAMO sections IV-B, IV-C): it logs the words of
// the REPLs it receives as a replica, validates them with the VALs, and moves validated words to
// its DRAM log in per-word commit order.
//
//   rx link (two lanes) -> lu_rx (a FIFO and credits per received class) -> lu_log: REPL -> SRAM
//   log buffer (lu_slots + lu_buf) -> REPL_ACK; VAL -> validated; drain -> DRAM log records on the
//   memory port; REPL_QUERY (while a REPL waits for room or for the line rule) and its answer -> link_tx (credits per
//   class from the link partner) -> tx link.
//
// Link ports speak the switch's link discipline (rtl/switch/cxl_switch.sv): messages
// (msg_pkg::msg_t) with per-class credits both ways. The receive port has two lanes: the switch
// port runs at 1 GHz, the LU at 500 MHz, so a 2:1 gearbox hands the LU up to two messages per LU
// cycle (lane 0 the older; any classes; within a class lane 0 is taken first). A one-message-per-
// cycle partner ties lane 1 low. Credits go back one per class per LU cycle (rx_crd_o), which is
// what the LU consumes at most; the send port sends one message per cycle. After reset the LU
// advertises CrdPerCls credits per class; it holds none toward the link until the partner grants
// them.
//
// The DRAM log sits behind the memory port: a write per record (lu_log: 128-bit records, record
// index = mem_req_addr_o), reads answered in order on mem_rsp_*. The C side models the DRAM and
// its latency.
//
// alive_i low freezes the LU at once (fail-stop: a failed CN's LU is gone with it): no state
// changes, nothing is sent, arriving messages are lost, no credit returns.
//
// CSR read port: csr_pkg::LU_CSR_* (rtl/include/csrs.toml, docs/csrs.md), 32-bit registers, word
// addresses; the data come the cycle after the request. Other addresses read 0 with csr_err_o.
// Counters are 32 bits and wrap.
module logging_unit #(
  /// word entries of the SRAM log buffer (256: the paper's 4 KB of 16-byte entries)
  parameter int unsigned Entries      = 256,
  /// REPLs the buffer holds at once (one REPL slot each)
  parameter int unsigned Slots        = 64,
  /// receive buffer entries (credits) per message class
  parameter int unsigned CrdPerCls    = 4,
  /// largest number of credits per class the link partner may grant
  parameter int unsigned MaxTxCredits = 64,
  /// SRAM log buffer as memory macros (1) or flip-flops (0)
  parameter bit          SramMacro    = 1'b1,
  /// FETCH_LATEST_VERS requests served by one traversal of the logs
  parameter int unsigned SearchBatch  = 8,
  localparam int unsigned FlitW  = msg_pkg::FLIT_W,
  localparam int unsigned NumCls = msg_pkg::NUM_CLASSES,
  localparam int unsigned RecW   = 128
) (
  /// LU clock
  input  wire logic                            clk_i,
  /// synchronous reset, active low
  input  wire logic                            rst_ni,
  /// the CN is alive; low stops the LU's clock: nothing changes, nothing leaves (changes only
  /// between clock edges, and once: a failed CN stays failed)
  input  wire logic                            alive_i,
  /// this CN's node id (sampled during reset, as every cfg_* input: held from the reset on)
  input  wire logic [msg_pkg::NODE_ID_W-1:0]   node_id_i,
  /// line addresses at or above this are out of range (malformed)
  input  wire logic [msg_pkg::LINE_ADDR_W-1:0] cfg_addr_lim_i,
  /// DRAM log capacity in records
  input  wire logic [31:0]                     cfg_log_cap_i,
  /// DRAM log high watermark in records: at or above it the LU requests an Early Flush
  input  wire logic [31:0]                     cfg_hwm_i,
  /// the hash buckets of line addresses this LU dumps (lu_dump: bit b owns bucket b)
  input  wire logic [63:0]                     cfg_own_i,
  /// node id of the MN controller the LU dumps to (and synchronizes with)
  input  wire logic [msg_pkg::NODE_ID_W-1:0]   cfg_mn_i,
  /// number of CNs (Early Flush goes to every other one)
  input  wire logic [msg_pkg::NODE_ID_W:0]     cfg_num_cn_i,
  /// start a dump (the platform's dump period)
  input  wire logic                            dump_start_i,
  /// dump port: a log record (or the end beat) for the compression engine
  output logic                                 dp_valid_o,
  /// the engine takes it
  input  wire logic                            dp_ready_i,
  /// the record
  output logic      [RecW-1:0]                 dp_rec_o,
  /// end of the dump (no record on this beat)
  output logic                                 dp_end_o,
  /// a 64-byte compressed chunk from the engine
  input  wire logic                            dc_valid_i,
  /// it is taken
  output logic                                 dc_ready_o,
  /// the chunk
  input  wire logic [msg_pkg::WORDS_PER_LINE*msg_pkg::WORD_W-1:0] dc_data_i,
  /// the last chunk of the dump
  input  wire logic                            dc_last_i,
  /// per receive lane: a message arrives from the link (bit 0: lane 0, the older one)
  input  wire logic [1:0]                      rx_valid_i,
  /// the arriving messages: lane k at [k*FlitW +: FlitW]
  input  wire logic [2*FlitW-1:0]              rx_msg_i,
  /// per class: a credit returned to the link partner
  output logic      [NumCls-1:0]               rx_crd_o,
  /// a message leaves toward the link
  output logic                                 tx_valid_o,
  /// the leaving message
  output logic      [FlitW-1:0]                tx_msg_o,
  /// per class: a credit returned by the link partner
  input  wire logic [NumCls-1:0]               tx_crd_i,
  /// DRAM log access request
  output logic                                 mem_req_valid_o,
  /// the request is taken
  input  wire logic                            mem_req_ready_i,
  /// the request is a write
  output logic                                 mem_req_write_o,
  /// record index in the LU's DRAM log
  output logic      [31:0]                     mem_req_addr_o,
  /// record to write
  output logic      [RecW-1:0]                 mem_req_wdata_o,
  /// read data returned (in request order)
  input  wire logic                            mem_rsp_valid_i,
  /// the record read
  input  wire logic [RecW-1:0]                 mem_rsp_rdata_i,
  /// CSR read request
  input  wire logic                            csr_valid_i,
  /// CSR word address
  input  wire logic [csr_pkg::LU_CSR_ADDR_W-1:0] csr_addr_i,
  /// CSR response valid (the cycle after the request)
  output logic                                 csr_rvalid_o,
  /// CSR read data
  output logic      [31:0]                     csr_rdata_o,
  /// CSR address refused
  output logic                                 csr_err_o,
  /// the DRAM log is at or above its high watermark (Early Flush request)
  output logic                                 early_flush_o,
  /// nothing in the LU will change until an input changes
  output logic                                 idle_o
);
  localparam int unsigned HdrW  = FlitW - msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W;
  localparam int unsigned EntW  = $clog2(Entries);
  localparam int unsigned SlotW = $clog2(Slots);
  localparam int unsigned NumEv = 21;

  if (Slots < 2 || Slots > 256) begin : g_bad_slots
    $error("logging_unit: Slots must be in 2..256");
  end
  if (Entries < msg_pkg::WORDS_PER_LINE || Entries > 65536) begin : g_bad_entries
    $error("logging_unit: Entries must be in WORDS_PER_LINE..65536");
  end

  // ---- fail-stop: a failed CN's LU stops with its clock ----
  // Every register of the LU but the CSR port's is on lu_clk, so nothing inside needs to look at
  // alive_i and no state changes while the CN is dead (the ports toward the CN are gated below).
  // alive_i changes only while clk_i is low, so the gate makes no glitch; a chip would use an
  // integrated clock-gating cell. In simulation this keeps alive_i, an input, out of the logic's
  // fan-in: Verilator evaluates every input's combinational fan-out at each evaluation, and alive_i
  // used to gate nearly all of it.
  logic lu_clk;
  assign lu_clk = clk_i & alive_i;

  // ---- configuration, sampled during reset ----
  // Constant while the LU runs (the driver presents it from the reset on; an assertion checks it),
  // so it is a register: logic that reads it depends on no input (see above).
  logic [msg_pkg::NODE_ID_W-1:0]   node_id;
  logic [msg_pkg::LINE_ADDR_W-1:0] addr_lim;
  logic [31:0]                     log_cap, hwm;
  logic [63:0]                     own;
  logic [msg_pkg::NODE_ID_W-1:0]   mn;
  logic [msg_pkg::NODE_ID_W:0]     num_cn;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      node_id  <= node_id_i;
      addr_lim <= cfg_addr_lim_i;
      log_cap  <= cfg_log_cap_i;
      hwm      <= cfg_hwm_i;
      own      <= cfg_own_i;
      mn       <= cfg_mn_i;
      num_cn   <= cfg_num_cn_i;
    end
  end
  `ASSERT(cfg_held_from_reset, {node_id_i, cfg_addr_lim_i, cfg_log_cap_i, cfg_hwm_i, cfg_own_i, cfg_mn_i,
                                cfg_num_cn_i} == {node_id, addr_lim, log_cap, hwm, own, mn, num_cn})

  // ---- receive ----
  logic [1:0]      rx_bad;
  logic            rx_idle;
  logic            dkq_v, dkq_r, dks_v, dks_r, mgq_v, mgq_r, mgs_v, mgs_r;
  logic [FlitW-1:0] dkq_msg;
  logic [HdrW-1:0] dks_hdr, mgq_hdr, mgs_hdr;
  logic [NumCls-1:0] rx_crd;
  lu_rx #(.CrdPerCls(CrdPerCls)) u_rx (
    .clk_i (lu_clk), .rst_ni (rst_ni),
    .rx_valid_i (rx_valid_i), .rx_msg_i (rx_msg_i), .rx_crd_o (rx_crd), .bad_o (rx_bad),
    .dkq_valid_o (dkq_v), .dkq_ready_i (dkq_r), .dkq_msg_o (dkq_msg),
    .dks_valid_o (dks_v), .dks_ready_i (dks_r), .dks_hdr_o (dks_hdr),
    .mgq_valid_o (mgq_v), .mgq_ready_i (mgq_r), .mgq_hdr_o (mgq_hdr),
    .mgs_valid_o (mgs_v), .mgs_ready_i (mgs_r), .mgs_hdr_o (mgs_hdr),
    .idle_o (rx_idle)
  );

  // ---- log engine ----
  logic             ack_v, ack_r, lw_v, lw_r, log_idle, qry_v, qry_r;
  logic [FlitW-1:0] ack_msg, qry_msg;
  logic [31:0]      lw_idx, log_count;
  logic [RecW-1:0]  lw_rec;
  logic [EntW:0]    ent_used;
  logic [SlotW:0]   slots_used;
  logic [14:0]      ev;
  logic [Slots-1:0] slot_busy_unused;
  // search port of the buffer (lu_search)
  logic                                 s_active, s_reading, s_quiet, paused;
  logic [msg_pkg::LINE_ADDR_W-1:0]      s_line;
  logic [Slots-1:0]                     s_match;
  logic [SlotW-1:0]                     s_slot;
  logic [$clog2(msg_pkg::WORDS_PER_LINE)-1:0] s_word;
  logic [msg_pkg::TS_W-1:0]             s_ts;
  logic [msg_pkg::WORDS_PER_LINE-1:0]   s_pend;
  logic [msg_pkg::WORD_W-1:0]           s_value;
  logic d_clear, d_active, d_reading;
  // purge of a failed CN's unvalidated slots (lu_mgmt's INTERRUPT -> lu_log)
  logic                          p_mark, p_drop, p_cand, p_busy;
  logic [msg_pkg::NODE_ID_W-1:0] p_cn;
  // the end of a recovery (lu_mgmt's RECOV_END): keep marks on the validated slots (lu_log), a
  // dump epoch (lu_dump), and the RECOV_END's answer once it is dumped
  logic                          e_req, e_keep, e_done;
  lu_log #(.Entries(Entries), .Slots(Slots), .SramMacro(SramMacro)) u_log (
    .clk_i (lu_clk), .rst_ni (rst_ni), .repl_en_i (1'b1), .drain_en_i (~d_active),
    .node_id_i (node_id), .cfg_addr_lim_i (addr_lim), .cfg_log_cap_i (log_cap),
    .repl_valid_i (dkq_v), .repl_msg_i (dkq_msg), .repl_ready_o (dkq_r),
    .val_valid_i (dks_v), .val_hdr_i (dks_hdr), .val_ready_o (dks_r),
    .qry_valid_o (qry_v), .qry_msg_o (qry_msg), .qry_ready_i (qry_r),
    .ack_valid_o (ack_v), .ack_msg_o (ack_msg), .ack_ready_i (ack_r),
    .lw_valid_o (lw_v), .lw_idx_o (lw_idx), .lw_rec_o (lw_rec), .lw_ready_i (lw_r),
    .log_count_o (log_count), .log_clear_i (d_clear),
    .srch_active_i (s_active), .srch_line_i (s_line), .srch_match_o (s_match), .srch_slot_i (s_slot),
    .srch_word_i (s_word), .srch_ts_o (s_ts), .srch_pend_o (s_pend), .srch_value_o (s_value),
    .purge_mark_i (p_mark), .purge_cn_i (p_cn), .ack_drop_i (p_drop), .purge_cand_o (p_cand),
    .purge_busy_o (p_busy), .keep_mark_i (e_req), .keep_any_o (e_keep),
    .quiet_o (s_quiet),
    .used_o (ent_used), .slots_used_o (slots_used), .slot_busy_o (slot_busy_unused), .ev_o (ev), .idle_o (log_idle)
  );

  // ---- management: Interrupt / RecovEnd, FetchLatestVers ----
  logic             flv_v, flv_r, mg_resp_v, mg_resp_r, mg_idle, sr_idle, sr_done, sr_trav;
  logic [FlitW-1:0] mg_resp, sr_resp;
  logic             sr_resp_v, sr_resp_r, sr_rd_v, sr_rd_r;
  logic [31:0]      sr_rd_idx;
  logic [1:0]       mg_bad;
  logic             mg_flush, dr_v, dr_done, dr_r, d_idle;
  logic [msg_pkg::TAG_W-1:0] dr_tag, mg_flush_tag;
  lu_mgmt u_mgmt (
    .clk_i (lu_clk), .rst_ni (rst_ni), .node_id_i (node_id),
    .mgq_valid_i (mgq_v), .mgq_hdr_i (mgq_hdr), .mgq_ready_o (mgq_r),
    .mgs_valid_i (mgs_v), .mgs_hdr_i (mgs_hdr), .mgs_ready_o (mgs_r),
    .flv_valid_o (flv_v), .flv_ready_i (flv_r), .flush_o (mg_flush),
    .flush_tag_o (mg_flush_tag),
    .dr_valid_o (dr_v), .dr_done_o (dr_done), .dr_tag_o (dr_tag), .dr_ready_i (dr_r),
    .quiet_i (s_quiet), .search_idle_i (~s_active),
    .purge_mark_o (p_mark), .purge_cn_o (p_cn), .ack_drop_o (p_drop), .purge_cand_i (p_cand),
    .purge_busy_i (p_busy),
    .paused_o (paused), .end_o (e_req), .end_done_i (e_done), .resp_valid_o (mg_resp_v), .resp_msg_o (mg_resp), .resp_ready_i (mg_resp_r),
    .bad_o (mg_bad), .idle_o (mg_idle)
  );

  lu_search #(.Slots(Slots), .Batch(SearchBatch)) u_search (
    .clk_i (lu_clk), .rst_ni (rst_ni), .node_id_i (node_id),
    .req_valid_i (flv_v), .req_hdr_i (mgq_hdr), .req_ready_o (flv_r),
    .log_count_i (log_count), .lw_idle_i (~lw_v), .hold_i (d_reading), .active_o (s_active),
    .reading_o (s_reading),
    .srch_line_o (s_line), .srch_match_i (s_match), .srch_slot_o (s_slot), .srch_word_o (s_word),
    .srch_ts_i (s_ts), .srch_pend_i (s_pend), .srch_value_i (s_value),
    .rd_valid_o (sr_rd_v), .rd_ready_i (sr_rd_r), .rd_idx_o (sr_rd_idx),
    .rsp_valid_i (mem_rsp_valid_i & s_reading), .rsp_rec_i (mem_rsp_rdata_i),
    .resp_valid_o (sr_resp_v), .resp_msg_o (sr_resp), .resp_ready_i (sr_resp_r),
    .done_req_o (sr_done), .trav_o (sr_trav), .idle_o (sr_idle)
  );

  // ---- dumps ----
  logic             d_tx_v, d_tx_r, d_rd_v, d_rd_r;
  logic [FlitW-1:0] d_tx;
  logic [31:0]      d_rd_idx;
  logic [3:0]       d_ev;
  logic             dp_v, dc_r;
  lu_dump u_dump (
    .clk_i (lu_clk), .rst_ni (rst_ni), .allow_i (~paused), .node_id_i (node_id),
    .cfg_own_i (own), .cfg_mn_i (mn),
    .cfg_num_cn_i (num_cn), .start_i (dump_start_i), .end_req_i (e_req), .end_done_o (e_done),
    .hold_start_i (e_keep), .log_full_i (log_count >= log_cap), .hwm_i (hwm_q), .flush_in_i (mg_flush),
    .flush_tag_i (mg_flush_tag),
    .rsp_valid_i (dr_v), .rsp_done_i (dr_done), .rsp_tag_i (dr_tag), .rsp_ready_o (dr_r),
    .search_idle_i (~s_active), .log_count_i (log_count), .lw_idle_i (~lw_v),
    .active_o (d_active), .reading_o (d_reading), .log_clear_o (d_clear),
    .rd_valid_o (d_rd_v), .rd_ready_i (d_rd_r), .rd_idx_o (d_rd_idx),
    .rd_rsp_valid_i (mem_rsp_valid_i & ~s_reading), .rd_rsp_rec_i (mem_rsp_rdata_i),
    .dp_valid_o (dp_v), .dp_ready_i (dp_ready_i), .dp_rec_o (dp_rec_o), .dp_end_o (dp_end_o),
    .dc_valid_i (dc_valid_i), .dc_ready_o (dc_r), .dc_data_i (dc_data_i), .dc_last_i (dc_last_i),
    .tx_valid_o (d_tx_v), .tx_msg_o (d_tx), .tx_ready_i (d_tx_r), .ev_o (d_ev), .idle_o (d_idle)
  );

  // ---- memory port: log writes, or a search's or a dump's reads (the drain holds meanwhile) ----
  // The search owns the port only while it reads (s_reading), not while it waits for the records
  // on their way to the log (they need the port to get there) or for a dump's reads (hold_i): the
  // two readers never read at once (the search starts reading only when no dump reads, a dump only
  // when no search runs), and each one's reads have all returned before it lets go.
  logic rd_mode;
  assign rd_mode         = s_reading | d_reading;
  assign mem_req_valid_o = alive_i & (s_reading ? sr_rd_v : d_reading ? d_rd_v : lw_v);
  assign mem_req_write_o = ~rd_mode;
  assign mem_req_addr_o  = s_reading ? sr_rd_idx : d_reading ? d_rd_idx : lw_idx;
  assign mem_req_wdata_o = lw_rec;
  assign lw_r            = mem_req_ready_i & ~rd_mode;
  assign sr_rd_r         = mem_req_ready_i & s_reading;
  assign d_rd_r          = mem_req_ready_i & ~s_reading & d_reading;
  `ASSERT(one_log_reader, !(s_reading && d_reading))

  // ---- send: REPL_ACKs, management responses, FetchLatestVers answers, dumps, REPL_QUERYs ----
  logic       tx_idle, tx_v;
  logic [4:0] tx_ready;
  link_tx #(.NumSrc(5), .MaxTxCredits(MaxTxCredits)) u_tx (
    .clk_i (lu_clk), .rst_ni (rst_ni),
    .src_valid_i ({qry_v, d_tx_v, sr_resp_v, mg_resp_v, ack_v}),
    .src_msg_i ({qry_msg, d_tx, sr_resp, mg_resp, ack_msg}),
    .src_ready_o (tx_ready),
    .tx_valid_o (tx_v), .tx_msg_o (tx_msg_o), .tx_crd_i (tx_crd_i), .tx_crd_skip_i ('0),
    .idle_o (tx_idle)
  );

  // A dead LU gives the CN nothing: no message, no credit, no record, no compressed chunk taken.
  assign tx_valid_o = alive_i & tx_v;
  assign rx_crd_o   = {NumCls{alive_i}} & rx_crd;
  assign dp_valid_o = alive_i & dp_v;
  assign dc_ready_o = alive_i & dc_r;
  assign {qry_r, d_tx_r, sr_resp_r, mg_resp_r, ack_r} = tx_ready;

  // ---- counters and CSRs ----
  logic [NumEv*32-1:0] cnt_q;
  logic                bad_dks, hwm_q, err_q;
  logic                csr_rvalid_q, csr_err_q, csr_err_d;
  logic [31:0]         csr_rdata_q, csr_rdata_d, hwm_cnt_q;
  logic [NumEv-1:0]    evc;
  logic [4:0]          csr_idx;
  assign csr_idx = csr_addr_i[4:0];
  // Counters 0 .. 11 (lu_log's events, REPLS .. LOG_FULL) are read at their number.
  if (csr_pkg::LU_CSR_REPLS != 0 || csr_pkg::LU_CSR_LOG_FULL != 11) begin : g_bad_csr_map
    $error("logging_unit: the counters REPLS .. LOG_FULL must be at addresses 0 .. 11");
  end

  // Event 8 (bad opcode on DKRSP) also counts the messages lu_rx (one per receive lane) and lu_mgmt
  // dropped: up to five per cycle. Events 12 and 13: a FETCH_LATEST_VERS answered, a traversal cycle
  // (TravLU); 14 .. 17 lu_dump's; 18 a slot purged (lu_log's event 12); 19 a REPL_QUERY sent, 20 an
  // answer that let its slot follow (lu_log's 13 and 14).
  assign bad_dks = ev[8] | (rx_bad != '0) | (mg_bad != '0);
  assign evc     = {ev[14:13], ev[12], d_ev, sr_trav, sr_done, ev[11:0]};
  for (genvar e = 0; e < NumEv; e++) begin : g_cnt
    logic [2:0] inc;
    assign inc = (e == 8) ? {2'b0, ev[8]} + {2'b0, rx_bad[0]} + {2'b0, rx_bad[1]} + {1'b0, mg_bad}
                          : {2'b0, evc[e]};
    always_ff @(posedge lu_clk) begin
      if (!rst_ni) cnt_q[e*32 +: 32] <= '0;
      else         cnt_q[e*32 +: 32] <= cnt_q[e*32 +: 32] + 32'(inc);
    end
  end

  always_ff @(posedge lu_clk) begin
    if (!rst_ni) begin
      hwm_q     <= 1'b0;
      err_q     <= 1'b0;
      hwm_cnt_q <= '0;
    end else begin
      hwm_q     <= log_count >= hwm;
      err_q     <= err_q | (|evc[7:5]) | bad_dks;
      if (log_count >= hwm && !hwm_q) hwm_cnt_q <= hwm_cnt_q + 32'd1;
    end
  end
  assign early_flush_o = hwm_q;

  always_comb begin
    csr_rdata_d = '0;
    csr_err_d   = 1'b0;
    // (Worked out only in a cycle that reads.)
    if (!csr_valid_i) begin
      // (no read)
    end else if (csr_addr_i <= csr_pkg::LU_CSR_LOG_FULL)        csr_rdata_d = cnt_q[csr_idx*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_FLV_REQS)         csr_rdata_d = cnt_q[12*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_TRAV_CYCLES)      csr_rdata_d = cnt_q[13*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_DUMPS)            csr_rdata_d = cnt_q[14*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_DUMP_RECORDS)     csr_rdata_d = cnt_q[15*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_DUMP_CHUNKS)      csr_rdata_d = cnt_q[16*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_EARLY_FLUSH_SENT) csr_rdata_d = cnt_q[17*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_PURGED_SLOTS)     csr_rdata_d = cnt_q[18*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_QUERIES)          csr_rdata_d = cnt_q[19*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_QUERY_HITS)       csr_rdata_d = cnt_q[20*32 +: 32];
    else if (csr_addr_i == csr_pkg::LU_CSR_ENTRIES_USED)     csr_rdata_d = 32'(ent_used);
    else if (csr_addr_i == csr_pkg::LU_CSR_SLOTS_USED)       csr_rdata_d = 32'(slots_used);
    else if (csr_addr_i == csr_pkg::LU_CSR_LOG_COUNT)        csr_rdata_d = log_count;
    else if (csr_addr_i == csr_pkg::LU_CSR_HWM_CROSSINGS)    csr_rdata_d = hwm_cnt_q;
    else if (csr_addr_i == csr_pkg::LU_CSR_STATUS)
      csr_rdata_d = (32'(paused) << csr_pkg::LU_STATUS_PAUSED_LSB) | (32'(err_q) << csr_pkg::LU_STATUS_MALFORMED_LSB) |
                    (32'(hwm_q) << csr_pkg::LU_STATUS_EARLY_FLUSH_LSB);
    else                                                       csr_err_d   = 1'b1;
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      csr_rvalid_q <= 1'b0;
      csr_err_q    <= 1'b0;
      csr_rdata_q  <= '0;
    end else begin
      csr_rvalid_q <= csr_valid_i;
      csr_err_q    <= csr_valid_i & csr_err_d;
      csr_rdata_q  <= csr_valid_i ? csr_rdata_d : '0;
    end
  end
  assign csr_rvalid_o = csr_rvalid_q;
  assign csr_rdata_o  = csr_rdata_q;
  assign csr_err_o    = csr_err_q;

  // The hardware is frozen while dead; outside that, idle when every part is.
  // (Tested one part after the other, the inputs first: an LU that is evaluated is seldom idle, and
  // the Verilated model then stops at the first part that is not, where the whole AND of every
  // block's idle cost it about 60 host instructions at each evaluation.)
  always_comb begin
    idle_o = ~alive_i;
    if (alive_i && rx_valid_i == '0 && !mem_rsp_valid_i && !dc_valid_i && !dump_start_i)
      if (log_idle && rx_idle && tx_idle)
        if (mg_idle && sr_idle && d_idle)
          idle_o = hwm_q == (log_count >= hwm);
  end

endmodule
`default_nettype wire
