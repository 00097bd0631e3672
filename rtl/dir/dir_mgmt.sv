`default_nettype none

// The directory's management port (the MN's recovery handler, docs/architecture.md section 11c):
// its commands (FAIL cn, WALK, RECOVER line, RESUME), the failed CNs and the recovery mode they
// hold, and its answers, queued (u_mrq) from whichever part gives them: the commands' own (DONE,
// REFUSED, BUSY, RECOVERED of a released transaction), the walk's (OWNED, WALKED), a RECOVER's
// transaction's (RECOVERED, NOT_OWNED). The command codes (MG_*) and answer codes (MR_*) are
// named here only.
//
// FAIL cn: no BISNP to it any more; a failed sharer's awaited answer is taken as BIRSP_I, a failed
// owner's holds its transaction; new requests wait until RESUME. WALK (dir_walk): once only held
// and waiting transactions are left (a FAIL is still taken until then). RECOVER line: words to
// memory and the entry to I while a failed CN owns it, or release the transaction held on it
// (dir_txn); answered BUSY when it needs a transaction of its own and the table is full (the
// handler sends it again); REFUSED when the line is not this MN's or not coherent.
module dir_mgmt #(
  localparam int unsigned AddrW = msg_pkg::LINE_ADDR_W,
  localparam int unsigned NumCn = msg_pkg::MAX_CN,
  localparam int unsigned CnW   = $clog2(msg_pkg::MAX_CN)
) (
  /// controller clock
  input  wire logic              clk_i,
  /// synchronous reset, active low: no CN failed, no answer queued
  input  wire logic              rst_ni,
  // a command (dir_ctrl's mg_req_*_i: 0 FAIL, 1 WALK, 2 RECOVER, 3 RESUME)
  /// a command
  input  wire logic              mg_req_valid_i,
  /// 0 FAIL, 1 WALK, 2 RECOVER, 3 RESUME
  input  wire logic [1:0]        mg_req_op_i,
  // FAIL: the CN; RECOVER: the line
  /// FAIL: the CN
  input  wire logic [CnW-1:0]    mg_req_cn_i,
  /// RECOVER: the line
  input  wire logic [AddrW-1:0]  mg_req_addr_i,
  /// the command is taken
  output logic                   mg_req_ready_o,
  // an answer (0 DONE, 1 WALKED, 2 OWNED, 3 RECOVERED, 4 NOT_OWNED, 5 REFUSED, 6 BUSY), its line,
  // the walk's cycles
  /// an answer
  output logic                   mg_rsp_valid_o,
  /// it is taken
  input  wire logic              mg_rsp_ready_i,
  /// 0 DONE, 1 WALKED, 2 OWNED, 3 RECOVERED, 4 NOT_OWNED, 5 REFUSED, 6 BUSY
  output logic      [2:0]        mg_rsp_kind_o,
  /// its line
  output logic      [AddrW-1:0]  mg_rsp_line_o,
  /// WALKED: the walk's cycles
  output logic      [31:0]       mg_rsp_count_o,
  // the walk is idle; it waits for quiet
  /// the walk is idle
  input  wire logic              walk_idle_i,
  /// the walk waits for quiet
  input  wire logic              walk_quiet_i,
  /// a RECOVER waits and may enter the table as a new request (before new messages)
  output logic                   rec_pend_o,
  /// the command can be the cycle's event (dir_event; given no event above it): an answer and a
  /// memory request fit, and the walk allows it
  output logic                   go_o,
  /// a memory request fits
  input  wire logic              mq_room_i,
  // the cycle's event is the command (EV_MG), or the RECOVER entering the table (EV_NEW)
  /// the cycle's event is a management command
  input  wire logic              ev_mg_i,
  /// the cycle's event is a new request (or RECOVER) into the table
  input  wire logic              ev_new_i,
  // the RECOVER's line is this MN's, in the SCR; a transaction is held on it (dir_tbe)
  /// the line is this MN's
  input  wire logic              n_here_i,
  /// the line is in the SCR
  input  wire logic              n_scr_i,
  /// a transaction is held on the RECOVER's line
  input  wire logic              h_any_i,
  /// the WALK is taken (dir_walk starts)
  output logic                   walk_start_o,
  /// the RECOVER releases the transaction held on its line (dir_txn)
  output logic                   release_o,
  // the failed CNs (bit per CN); from FAIL to RESUME no new request enters the table
  /// the failed CNs (bit per CN)
  output logic      [NumCn-1:0]  failed_o,
  /// recovery mode: no new request enters the table
  output logic                   rec_mode_o,
  // a RECOVER's transaction finished (dir_txn): it found a failed owner, its line
  /// a RECOVER's transaction finished (dir_txn)
  input  wire logic              rec_done_i,
  /// it found a failed owner
  input  wire logic              rec_ok_i,
  /// its line
  input  wire logic [AddrW-1:0]  rec_line_i,
  // the walk found a line a failed CN owns, the line; the walk ended, its cycles (dir_walk)
  /// the walk found a line a failed CN owns
  input  wire logic              owned_i,
  /// the line (global)
  input  wire logic [AddrW-1:0]  owned_line_i,
  /// the walk ended
  input  wire logic              walked_i,
  /// its cycles
  input  wire logic [31:0]       walked_cyc_i,
  // an answer fits; no answer queued; an answer is queued this cycle
  /// an answer fits
  output logic                   mr_room_o,
  /// no answer queued
  output logic                   mr_empty_o,
  /// an answer is queued this cycle
  output logic                   mr_push_o,
  /// counted (dir_csr): a released transaction's RECOVERED
  output logic                   c_recok_o
);
  // Management port: commands (csr_pkg::MG_*) and answers (csr_pkg::MR_*), generated from
  // rtl/include/csrs.toml.

  logic [NumCn-1:0] failed_q, failed_d;
  logic             rec_q, rec_d;
  assign failed_o   = failed_q;
  assign rec_mode_o = rec_q;

  // ---- the answers queue (at most one a cycle, from the cycle's event) ----
  localparam int unsigned MrW = 3 + AddrW + 32;
  logic           mr_push;
  logic [MrW-1:0] mr_in, mr_out;
  logic [$clog2(3)-1:0] mr_cnt_unused;
  fifo #(.Depth(2), .Width(MrW)) u_mrq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (mr_push), .in_ready_o (mr_room_o), .in_data_i (mr_in),
    .out_valid_o (mg_rsp_valid_o), .out_ready_i (mg_rsp_ready_i), .out_data_o (mr_out),
    .count_o (mr_cnt_unused), .empty_o (mr_empty_o)
  );
  assign {mg_rsp_kind_o, mg_rsp_line_o, mg_rsp_count_o} = mr_out;
  assign mr_push_o = mr_push;

  // A RECOVER that needs a transaction of its own enters the table as a new request would (it is
  // looked up in the table as one); a RECOVER that needs one when none is free is answered BUSY.
  // A FAIL is taken while the walk waits for quiet too: a CN that fails during a recovery holds
  // transactions up that only its FAIL releases (they then wait as held ones). No other command
  // is taken until the walk has ended.
  assign rec_pend_o     = mg_req_valid_i & (mg_req_op_i == csr_pkg::MG_RECOVER) & walk_idle_i;
  assign go_o           = mg_req_valid_i && mr_room_o && mq_room_i &&
                          (walk_idle_i || (walk_quiet_i && mg_req_op_i == csr_pkg::MG_FAIL));
  assign mg_req_ready_o = ev_mg_i || (ev_new_i && rec_pend_o);
  assign walk_start_o   = ev_mg_i && mg_req_op_i == csr_pkg::MG_WALK;
  assign release_o      = ev_mg_i && mg_req_op_i == csr_pkg::MG_RECOVER && n_here_i && n_scr_i && h_any_i;

  always_comb begin
    failed_d  = failed_q;
    rec_d     = rec_q;
    mr_push   = 1'b0;
    mr_in     = '0;
    c_recok_o = 1'b0;
    // Answers of the engine's and the walk's events.
    if (rec_done_i) begin
      mr_push = 1'b1;
      mr_in   = {rec_ok_i ? csr_pkg::MR_RECOVERED : csr_pkg::MR_NOT_OWNED, rec_line_i, 32'd0};
    end
    if (owned_i) begin
      mr_push = 1'b1;
      mr_in   = {csr_pkg::MR_OWNED, owned_line_i, 32'd0};
    end
    if (walked_i) begin
      mr_push = 1'b1;
      mr_in   = {csr_pkg::MR_WALKED, AddrW'(0), walked_cyc_i};
    end
    // A command.
    if (ev_mg_i) unique case (mg_req_op_i)
      csr_pkg::MG_FAIL: begin
        failed_d[mg_req_cn_i] = 1'b1;
        rec_d   = 1'b1;
        mr_push = 1'b1;
        mr_in   = {csr_pkg::MR_DONE, AddrW'(0), 32'd0};
      end
      csr_pkg::MG_RESUME: begin
        rec_d   = 1'b0;
        mr_push = 1'b1;
        mr_in   = {csr_pkg::MR_DONE, AddrW'(0), 32'd0};
      end
      csr_pkg::MG_WALK: ;   // (dir_walk: answered WALKED at its end)
      default: begin   // MG_RECOVER
        mr_push = 1'b1;
        mr_in   = {csr_pkg::MR_REFUSED, mg_req_addr_i, 32'd0};
        if (!n_here_i || !n_scr_i) begin
          // Not this MN's line, or not a coherent one: the handler is wrong.
        end else if (!h_any_i) begin
          // It needs a transaction of its own and the table is full: answered BUSY, for the
          // handler to send it again later. Waiting here would hold the port, and the RECOVERs
          // behind it may be the ones that release the held transactions filling the table
          // (they only go on once their lines are recovered).
          mr_in = {csr_pkg::MR_BUSY, mg_req_addr_i, 32'd0};
        end else begin
          // A transaction awaits the failed owner's answer: released (dir_txn).
          mr_in     = {csr_pkg::MR_RECOVERED, mg_req_addr_i, 32'd0};
          c_recok_o = 1'b1;
        end
      end
    endcase
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      failed_q <= '0;
      rec_q    <= 1'b0;
    end else begin
      failed_q <= failed_d;
      rec_q    <= rec_d;
    end
  end

endmodule
`default_nettype wire
