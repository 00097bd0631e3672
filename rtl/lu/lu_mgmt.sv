`default_nettype none
`include "assert.svh"

// Management of the Logging Unit (DIKTAMO §V-B, Table I): the MGREQ and MGRSP messages it receives.
//   FETCH_LATEST_VERS  handed to lu_search
//   INTERRUPT          finish outstanding work (every received REPL logged and acknowledged, every
//                      received VAL applied, every record written: quiet_i, no search traversal
//                      running; a FETCH_LATEST_VERS list still being collected does not count: the
//                      rest of it may wait behind a second INTERRUPT, from a CM that took over),
//                      purge the failed CN's (subject's) slots that are not validated (lu_log,
//                      lu_slots), then pause (the drain holds, so the log stays as the searches see
//                      it) and answer INTERRUPT_RESP to the sender. From the INTERRUPT's arrival to
//                      its answer no REPL_ACK goes to the subject (ack_drop_o: those of its REPLs
//                      are dropped, and the REPLs purged). Marking is repeated in every quiet cycle
//                      until no unvalidated, unmarked slot of the subject is left and the marked
//                      ones are freed, so a REPL of the subject received before the answer is
//                      purged too. REPLs and VALs of other CNs are logged as usual (a live CN
//                      finishing its stores needs their REPL_ACKs).
//   RECOV_END          resume; mark the validated slots (lu_slots' keep marks) and request a dump
//                      epoch (end_o); answer RECOV_END_RESP, with the RECOV_END's tag (the CM's
//                      run), once that epoch is dumped (end_done_i: lu_dump), so that the recovery
//                      ends only when every store the failure left with one copy less is in an MN
//                      log store again. An INTERRUPT taken meanwhile drops the answer (the CM that
//                      sends it no longer waits for it: a CN failed before the recovery ended,
//                      csim/sw/cm.c); a second RECOV_END replaces it.
//   EARLY_FLUSH        another LU reached its high watermark: a dump starts (lu_dump)
//   DUMP_GO, DUMP_DONE (MGRSP) the MN controller's synchronization: handed to lu_dump
// Anything else on these classes (MSI, INIT_RECOV, DUMP_REQ, responses of other kinds) is malformed
// for an LU: dropped, reported on bad_o.
module lu_mgmt #(
  localparam int unsigned FlitW = msg_pkg::FLIT_W,
  localparam int unsigned HdrW  = msg_pkg::FLIT_W - msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W
) (
  /// LU clock
  input  wire logic                          clk_i,
  /// synchronous reset, active low: running, not paused
  input  wire logic                          rst_ni,
  /// this CN's node id
  input  wire logic [msg_pkg::NODE_ID_W-1:0] node_id_i,
  /// MGREQ head valid
  input  wire logic                          mgq_valid_i,
  /// MGREQ head header
  input  wire logic [HdrW-1:0]               mgq_hdr_i,
  /// MGREQ head leaves its FIFO
  output logic                               mgq_ready_o,
  /// MGRSP head valid
  input  wire logic                          mgs_valid_i,
  /// MGRSP head header
  input  wire logic [HdrW-1:0]               mgs_hdr_i,
  /// MGRSP head leaves its FIFO
  output logic                               mgs_ready_o,
  /// a FETCH_LATEST_VERS for lu_search
  output logic                               flv_valid_o,
  /// lu_search takes it
  input  wire logic                          flv_ready_i,
  /// an EARLY_FLUSH arrived (one cycle)
  output logic                               flush_o,
  /// its tag (the epoch it requests)
  output logic      [msg_pkg::TAG_W-1:0]     flush_tag_o,
  /// a DUMP_GO or DUMP_DONE waits for lu_dump
  output logic                               dr_valid_o,
  /// it is DUMP_DONE
  output logic                               dr_done_o,
  /// its tag
  output logic      [msg_pkg::TAG_W-1:0]     dr_tag_o,
  /// lu_dump takes it
  input  wire logic                          dr_ready_i,
  /// the log engine is quiet (nothing received waits, nothing queued)
  input  wire logic                          quiet_i,
  /// no search traversal is running
  input  wire logic                          search_idle_i,
  /// purge: mark the subject's not-validated slots (lu_log), this cycle
  output logic                               purge_mark_o,
  /// purge: the INTERRUPT's subject (the failed CN)
  output logic      [msg_pkg::NODE_ID_W-1:0] purge_cn_o,
  /// REPL_ACKs to purge_cn_o are dropped (an INTERRUPT is being handled)
  output logic                               ack_drop_o,
  /// purge: a slot of the subject is in use, not validated, not marked yet
  input  wire logic                          purge_cand_i,
  /// purge: marked slots are still being freed
  input  wire logic                          purge_busy_i,
  /// paused by an INTERRUPT (until RECOV_END)
  output logic                               paused_o,
  /// a RECOV_END was taken (one cycle): mark the validated slots, request a dump epoch
  output logic                               end_o,
  /// that epoch is dumped (one cycle): the RECOV_END is answered
  input  wire logic                          end_done_i,
  /// a response waits to be sent
  output logic                               resp_valid_o,
  /// the response
  output logic      [FlitW-1:0]              resp_msg_o,
  /// it is taken
  input  wire logic                          resp_ready_i,
  /// messages dropped as malformed this cycle (0 .. 2: one per class)
  output logic      [1:0]                    bad_o,
  /// no INTERRUPT waiting, no response queued
  output logic                               idle_o
);
  localparam int unsigned DataW = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W;
  localparam int unsigned NodeW = msg_pkg::NODE_ID_W;
  localparam int unsigned TagW  = msg_pkg::TAG_W;
  // a response: opcode, destination, subject and tag (a RECOV_END's, echoed: the CM's run)
  localparam int unsigned RespW = msg_pkg::OPCODE_W + 2 * NodeW + TagW;

  msg_pkg::opcode_t q_op, s_op;
  logic [NodeW-1:0] q_src, q_subj;
  logic [TagW-1:0]  q_tag;
  assign q_op   = mgq_hdr_i[msg_pkg::FIELD_OPCODE_LSB - DataW +: msg_pkg::OPCODE_W];
  assign q_src  = mgq_hdr_i[msg_pkg::FIELD_SRC_LSB - DataW +: NodeW];
  assign q_subj = mgq_hdr_i[msg_pkg::FIELD_SUBJECT_LSB - DataW +: NodeW];
  assign q_tag  = mgq_hdr_i[msg_pkg::FIELD_TAG_LSB - DataW +: TagW];
  assign s_op   = mgs_hdr_i[msg_pkg::FIELD_OPCODE_LSB - DataW +: msg_pkg::OPCODE_W];
  logic hdr_unused;
  assign hdr_unused = ^{mgq_hdr_i, mgs_hdr_i};

  logic             int_q, int_d, paused_q, paused_d;
  logic [NodeW-1:0] int_src_q, int_subj_q;
  // A RECOV_END's answer waits for its epoch's dump (endp_q), then for the response queue (endr_q).
  logic             endp_q, endp_d, endr_q, endr_d;
  logic [NodeW-1:0] end_src_q, end_subj_q;
  logic [TagW-1:0]  end_tag_q;
  logic             rq_push, rq_in_ready, rq_empty;
  logic [RespW-1:0] rq_in, rq_out;
  logic [1:0]       rq_cnt_unused;

  logic is_flv, is_int, is_end, is_flush, q_bad, s_dump;
  assign is_flv   = q_op == msg_pkg::OP_FETCH_LATEST_VERS;
  assign is_flush = q_op == msg_pkg::OP_EARLY_FLUSH;
  assign s_dump   = (s_op == msg_pkg::OP_DUMP_GO) | (s_op == msg_pkg::OP_DUMP_DONE);
  assign is_int = q_op == msg_pkg::OP_INTERRUPT;
  assign is_end = q_op == msg_pkg::OP_RECOV_END;

  assign flv_valid_o = mgq_valid_i & is_flv;

  // The INTERRUPT's work is done in a quiet cycle (nothing received waits, no search): the
  // subject's unvalidated slots are marked then (purge_mark_o), and it is answered in a quiet cycle
  // in which none is left to mark or to free.
  logic int_quiet;
  assign int_quiet    = int_q & quiet_i & search_idle_i;
  assign purge_mark_o = int_quiet;
  assign purge_cn_o   = int_subj_q;
  assign ack_drop_o   = int_q;

  always_comb begin
    int_d       = int_q;
    paused_d    = paused_q;
    endp_d      = endp_q;
    endr_d      = endr_q | (endp_q & end_done_i);
    rq_push     = 1'b0;
    rq_in       = '0;
    mgq_ready_o = 1'b0;
    q_bad       = 1'b0;
    end_o       = 1'b0;
    // An INTERRUPT being answered takes the response queue this cycle; a RECOV_END's answer waits
    // for it.
    if (int_quiet && !purge_cand_i && !purge_busy_i && rq_in_ready) begin
      int_d    = 1'b0;
      paused_d = 1'b1;
      rq_push  = 1'b1;
      rq_in    = {msg_pkg::OP_INTERRUPT_RESP, int_src_q, int_subj_q, TagW'(0)};
    end else if (endr_q && rq_in_ready) begin
      endp_d  = 1'b0;
      endr_d  = 1'b0;
      rq_push = 1'b1;
      rq_in   = {msg_pkg::OP_RECOV_END_RESP, end_src_q, end_subj_q, end_tag_q};
    end
    if (mgq_valid_i) begin
      if (is_flv) begin
        mgq_ready_o = flv_ready_i;
      end else if (is_int) begin
        if (!int_q && !rq_push) begin
          mgq_ready_o = 1'b1;
          int_d       = 1'b1;
          endp_d      = 1'b0;
          endr_d      = 1'b0;
        end
      end else if (is_flush) begin
        mgq_ready_o = 1'b1;
      end else if (is_end) begin
        if (!int_q && !rq_push) begin
          mgq_ready_o = 1'b1;
          paused_d    = 1'b0;
          endp_d      = 1'b1;
          endr_d      = 1'b0;
          end_o       = 1'b1;
        end
      end else begin
        mgq_ready_o = 1'b1;
        q_bad       = 1'b1;
      end
    end
  end

  assign flush_o     = mgq_ready_o & is_flush;
  assign flush_tag_o = mgq_hdr_i[msg_pkg::FIELD_TAG_LSB - DataW +: msg_pkg::TAG_W];

  // MGRSP: the dump synchronization goes to lu_dump, anything else is malformed.
  assign dr_valid_o  = mgs_valid_i & s_dump;
  assign dr_done_o   = s_op == msg_pkg::OP_DUMP_DONE;
  assign dr_tag_o    = mgs_hdr_i[msg_pkg::FIELD_TAG_LSB - DataW +: msg_pkg::TAG_W];
  assign mgs_ready_o = mgs_valid_i & (s_dump ? dr_ready_i : 1'b1);
  assign bad_o       = {1'b0, q_bad} + {1'b0, mgs_ready_o & ~s_dump};

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      int_q    <= 1'b0;
      paused_q <= 1'b0;
      endp_q   <= 1'b0;
      endr_q   <= 1'b0;
    end else begin
      int_q    <= int_d;
      paused_q <= paused_d;
      endp_q   <= endp_d;
      endr_q   <= endr_d;
    end
  end
  always_ff @(posedge clk_i) begin
    if (mgq_ready_o && is_int) begin
      int_src_q  <= q_src;
      int_subj_q <= q_subj;
    end
    if (end_o) begin
      end_src_q  <= q_src;
      end_subj_q <= q_subj;
      end_tag_q  <= q_tag;
    end
  end

  fifo #(.Depth(2), .Width(RespW)) u_rq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (rq_push), .in_ready_o (rq_in_ready), .in_data_i (rq_in),
    .out_valid_o (resp_valid_o), .out_ready_i (resp_ready_i), .out_data_o (rq_out),
    .count_o (rq_cnt_unused), .empty_o (rq_empty)
  );
  msg_pkg::msg_t rmsg;
  always_comb begin
    rmsg        = '0;
    rmsg.opcode  = rq_out[TagW + 2*NodeW +: msg_pkg::OPCODE_W];
    rmsg.src     = node_id_i;
    rmsg.dst     = rq_out[TagW + NodeW +: NodeW];
    rmsg.subject = rq_out[TagW +: NodeW];
    rmsg.tag     = rq_out[0 +: TagW];
  end
  assign resp_msg_o = rmsg;
  assign paused_o   = paused_q;
  assign idle_o     = ~int_q & ~endr_q & rq_empty & ~mgq_valid_i & ~mgs_valid_i;

  `ASSERT(push_has_room, !rq_push || rq_in_ready)

endmodule
`default_nettype wire
