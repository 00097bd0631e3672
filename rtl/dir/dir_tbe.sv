`default_nettype none
`include "assert.svh"

// The directory's transaction table (gem5's TBE table): per transaction its request, its line's
// entry as it goes, its step (t_st_q), the snoops it sends and awaits, its link to the transaction
// of its line before it, and its data line; and the look-ups over all transactions that the
// engine needs (a free entry, the youngest of a line, the transaction a snoop answer or a
// failed CN is for, the lowest at each step, the snoops to send).
//
// One transaction changes per cycle: the event's (ei_i), whose next fields nx_*_i the engine
// (dir_txn) works out; besides it, the waiting successors an END wakes, the new transaction's
// link from its line's tail, and the snoop sender's CN. The transactions' data lines are
// dir_dpath's, beside the multiplexers that read them.
module dir_tbe #(
  /// transaction table entries
  parameter int unsigned TxnEntries = 16,
  localparam int unsigned AddrW  = msg_pkg::LINE_ADDR_W,
  localparam int unsigned NodeW  = msg_pkg::NODE_ID_W,
  localparam int unsigned NumCn  = msg_pkg::MAX_CN,
  localparam int unsigned CnW    = $clog2(msg_pkg::MAX_CN),
  localparam int unsigned TsW    = msg_pkg::TS_W,
  localparam int unsigned WordN  = msg_pkg::WORDS_PER_LINE,
  localparam int unsigned EntW   = 2 + 2 * NumCn + TsW,   // a directory entry (dir_decide)
  localparam int unsigned TW     = (TxnEntries > 1) ? $clog2(TxnEntries) : 1,
  localparam int unsigned TagQW  = 2 + TW,
  localparam int unsigned NumStep = 6
) (
  /// controller clock
  input  wire logic                          clk_i,
  /// synchronous reset, active low: no transaction
  input  wire logic                          rst_ni,
  /// the event's transaction: read at nx_*_i's old values (e_*_o), written with nx_*_i
  input  wire logic [TW-1:0]                 ei_i,
  /// the cycle has an event (else the event's transaction keeps its fields)
  input  wire logic                          event_i,
  /// a new transaction enters at ei_i: the fields it keeps (line, request, links) are written
  input  wire logic                          new_i,
  // the event's transaction's next fields (as the e_*_o of the same names); the kept ones are
  // written only with new_i
  /// next: in use
  input  wire logic                          nx_valid_i,
  /// next: step (dir_tbe's st_e)
  input  wire logic [3:0]                    nx_st_i,
  /// next: in the Large Non-coherent Region (no entry)
  input  wire logic                          nx_lnr_i,
  /// next: line (global address)
  input  wire logic [AddrW-1:0]              nx_line_i,
  /// next: local line
  input  wire logic [31:0]                   nx_lline_i,
  /// next: request's opcode
  input  wire logic [msg_pkg::OPCODE_W-1:0]  nx_op_i,
  /// next: requester's node id
  input  wire logic [NodeW-1:0]              nx_src_i,
  /// next: requester's core
  input  wire logic [msg_pkg::CORE_ID_W-1:0] nx_core_i,
  /// next: request's tag
  input  wire logic [msg_pkg::TAG_W-1:0]     nx_tag_i,
  /// next: request's word mask
  input  wire logic [WordN-1:0]              nx_mask_i,
  /// next: version an RWD or a RECOVER carried
  input  wire logic [TsW-1:0]                nx_ts_i,
  /// next: line's directory entry
  input  wire logic [EntW-1:0]               nx_ent_i,
  /// next: entry changed (written back at END)
  input  wire logic                          nx_chg_i,
  /// next: CNs whose snoop answers it awaits
  input  wire logic [NumCn-1:0]              nx_await_i,
  /// next: CNs it has still to snoop
  input  wire logic [NumCn-1:0]              nx_snp_i,
  /// next: snoops invalidate (BISNP_INV, else BISNP_DATA)
  input  wire logic                          nx_snpinv_i,
  /// next: needs the line's data
  input  wire logic                          nx_need_i,
  /// next: has the line's data
  input  wire logic                          nx_have_i,
  /// next: has issued its memory read
  input  wire logic                          nx_rdis_i,
  /// next: owner kept a shared copy
  input  wire logic                          nx_kepts_i,
  /// next: request was a violation (no response)
  input  wire logic                          nx_viol_i,
  /// next: is the management port's RECOVER
  input  wire logic                          nx_rec_i,
  /// next: FINISH answers nothing and leaves the entry
  input  wire logic                          nx_skip_i,
  /// next: RECOVER found a failed owner
  input  wire logic                          nx_recok_i,
  /// next: RECOVER sets the line's version
  input  wire logic                          nx_setv_i,
  /// the event is the transaction's END: the transactions waiting behind it start
  input  wire logic                          end_i,
  /// the new transaction waits behind its line's youngest, which gets a successor
  input  wire logic                          succ_i,
  // the event's transaction's fields: valid, step (dir_txn's st_e), in the LNR (no entry)
  /// the event's transaction: in use
  output logic                               e_valid_o,
  /// the event's transaction: step (dir_tbe's st_e)
  output logic      [3:0]                    e_st_o,
  /// the event's transaction: in the Large Non-coherent Region (no entry)
  output logic                               e_lnr_o,
  // its line (global) and local line
  /// the event's transaction: line (global address)
  output logic      [AddrW-1:0]              e_line_o,
  /// the event's transaction: local line
  output logic      [31:0]                   e_lline_o,
  // its request: opcode, source, core, tag, word mask, version (an RWD's, a RECOVER's)
  /// the event's transaction: request's opcode
  output logic      [msg_pkg::OPCODE_W-1:0]  e_op_o,
  /// the event's transaction: requester's node id
  output logic      [NodeW-1:0]              e_src_o,
  /// the event's transaction: requester's core
  output logic      [msg_pkg::CORE_ID_W-1:0] e_core_o,
  /// the event's transaction: request's tag
  output logic      [msg_pkg::TAG_W-1:0]     e_tag_o,
  /// the event's transaction: request's word mask
  output logic      [WordN-1:0]              e_mask_o,
  /// the event's transaction: version an RWD or a RECOVER carried
  output logic      [TsW-1:0]                e_ts_o,
  // its line's entry, and whether it changed (to be written back at END)
  /// the event's transaction: line's directory entry
  output logic      [EntW-1:0]               e_ent_o,
  /// the event's transaction: entry changed (written back at END)
  output logic                               e_chg_o,
  // the CNs whose answers it awaits, and those still to snoop; the snoops invalidate
  /// the event's transaction: CNs whose snoop answers it awaits
  output logic      [NumCn-1:0]              e_await_o,
  /// the event's transaction: CNs it has still to snoop
  output logic      [NumCn-1:0]              e_snp_o,
  /// the event's transaction: snoops invalidate (BISNP_INV, else BISNP_DATA)
  output logic                               e_snpinv_o,
  // it needs the line's data, has it, has read it from memory; the owner kept S
  /// the event's transaction: needs the line's data
  output logic                               e_need_o,
  /// the event's transaction: has the line's data
  output logic                               e_have_o,
  /// the event's transaction: has issued its memory read
  output logic                               e_rdis_o,
  /// the event's transaction: owner kept a shared copy
  output logic                               e_kepts_o,
  /// its request was a violation (no response)
  output logic                               e_viol_o,
  // it is a RECOVER; its FINISH answers nothing; the RECOVER found a failed owner; it sets the
  // line's version
  /// the event's transaction: is the management port's RECOVER
  output logic                               e_rec_o,
  /// the event's transaction: FINISH answers nothing and leaves the entry
  output logic                               e_skip_o,
  /// the event's transaction: RECOVER found a failed owner
  output logic                               e_recok_o,
  /// the event's transaction: RECOVER sets the line's version
  output logic                               e_setv_o,
  /// look up a new message's line (busy_any_o, h_*): only in a cycle whose event can be a
  /// new message's or a management command's
  input  wire logic                          look_i,
  /// the new message's (or RECOVER's) line
  input  wire logic [AddrW-1:0]              look_line_i,
  // a free entry exists; the lowest free one
  /// a free entry
  output logic                               free_any_o,
  /// the lowest
  output logic      [TW-1:0]                 free_o,
  /// the line has a transaction (the new one waits behind its youngest)
  output logic                               busy_any_o,
  // the line has a transaction held on a failed owner; which
  /// a transaction is held on the RECOVER's line
  output logic                               h_any_o,
  /// which
  output logic      [TW-1:0]                 h_o,
  // a snoop answer (BIRSP) is at its FIFO's head: its line, its source CN, the source is a CN
  /// a BIRSP waits
  input  wire logic                          bir_v_i,
  /// the BIRSP's line
  input  wire logic [AddrW-1:0]              bir_line_i,
  /// its source CN
  input  wire logic [CnW-1:0]                bir_cn_i,
  /// its source is a CN
  input  wire logic                          bir_cn_ok_i,
  // a transaction awaits it; which
  /// a transaction awaits the BIRSP
  output logic                               b_any_o,
  /// the transaction awaiting it (dir_tbe)
  output logic      [TW-1:0]                 b_o,
  /// the failed CNs (bit per CN)
  input  wire logic [NumCn-1:0]              failed_i,
  /// per transaction: its row snoops an owner (dir_decide)
  input  wire logic [TxnEntries-1:0]         own_snp_i,
  // a transaction awaits a failed sharer's answer (taken as BIRSP_I); which, and the CN
  /// a failed sharer's answer to give up
  output logic                               pg_any_o,
  /// its transaction
  output logic      [TW-1:0]                 pg_o,
  /// the failed CN whose answer is given up
  output logic      [CnW-1:0]                pg_cn_o,
  /// look whether only held and waiting transactions are left (the walk waits for it)
  input  wire logic                          quiet_look_i,
  /// they are (1 while not looked)
  output logic                               quiet_o,
  // per step (END, FINISH, INSTALL, MEMRD, DECIDE, START): a transaction is at it; the lowest
  // (bits k*TW +: TW)
  /// per step: a transaction is at it
  output logic      [NumStep-1:0]            step_v_o,
  /// per step: the lowest (bits k*TW +: TW)
  output logic      [NumStep*TW-1:0]         step_o,
  // the snoop sender: a transaction has a snoop to send (to a CN that has not failed); which,
  // to which CN, invalidating, for which line
  /// the snoop sender has a BISNP to send
  output logic                               s_any_o,
  /// which transaction
  output logic      [TW-1:0]                 s_o,
  /// the CN
  output logic      [CnW-1:0]                s_cn_o,
  /// it invalidates
  output logic                               s_inv_o,
  /// the line
  output logic      [AddrW-1:0]              s_line_o,
  /// the send port takes the snoop
  input  wire logic                          s_take_i,
  /// per transaction: valid
  output logic      [TxnEntries-1:0]         valid_o,
  /// an END wakes a waiting transaction this cycle
  output logic                               wake_any_o,
  // checks only: the read tag FIFO holds a tag; its head ({walk, directory line, transaction});
  // a memory response arrives
  /// checks only: the read tag FIFO holds a tag
  input  wire logic                          rd_head_v_i,
  /// checks only: its head
  input  wire logic [TagQW-1:0]              rd_head_i,
  /// checks only: a memory response arrives
  input  wire logic                          rd_rsp_i
);

  // A transaction's steps: WAIT (behind an older one of its line) -> START -> FILLW -> INSTALL ->
  // DECIDE -> SNOOP / MEMRD / MEMW -> FINISH -> END. dir_txn, which moves a transaction from step
  // to step, names them the same, in the same order: the table stores its nx_st_i as it comes
  // (Yosys 0.23 has no cast to a type, and a decoder would cost logic for nothing), so this enum
  // only names the values, for the checks below and the waves (waves/dir_ctrl.gtkw).
  typedef enum logic [3:0] {
    ST_WAIT, ST_START, ST_FILLW, ST_INSTALL, ST_DECIDE, ST_SNOOP, ST_MEMRD, ST_MEMW, ST_FINISH,
    ST_END
  } st_e;

  logic [TxnEntries-1:0] t_valid_q;
  st_e [TxnEntries-1:0] t_st_q;   // packed: the wakes and the event write one word (below)
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

  // ---- the event's transaction ----
  assign e_valid_o  = t_valid_q[ei_i];
  assign e_st_o     = t_st_q[ei_i];
  assign e_lnr_o    = t_lnr_q[ei_i];
  assign e_line_o   = t_line_q[ei_i];
  assign e_lline_o  = t_lline_q[ei_i];
  assign e_op_o     = t_op_q[ei_i];
  assign e_src_o    = t_src_q[ei_i];
  assign e_core_o   = t_core_q[ei_i];
  assign e_tag_o    = t_tag_q[ei_i];
  assign e_mask_o   = t_mask_q[ei_i];
  assign e_ts_o     = t_ts_q[ei_i];
  assign e_ent_o    = t_ent_q[ei_i];
  assign e_chg_o    = t_chg_q[ei_i];
  assign e_await_o  = t_await_q[ei_i];
  assign e_snp_o    = t_snp_q[ei_i];
  assign e_snpinv_o = t_snpinv_q[ei_i];
  assign e_need_o   = t_need_q[ei_i];
  assign e_have_o   = t_have_q[ei_i];
  assign e_rdis_o   = t_rdis_q[ei_i];
  assign e_kepts_o  = t_kepts_q[ei_i];
  assign e_viol_o   = t_viol_q[ei_i];
  assign e_rec_o    = t_rec_q[ei_i];
  assign e_skip_o   = t_skip_q[ei_i];
  assign e_recok_o  = t_recok_q[ei_i];
  assign e_setv_o   = t_setv_q[ei_i];
  assign valid_o    = t_valid_q;

  // ---- look-ups for a new message: a free entry, the youngest entry of the same line ----
  logic [TxnEntries-1:0] free_v, same_line, tail_v, free_oh_unused, tail_oh_unused;
  logic [TW-1:0]         tail_i;   // the line's youngest (the new transaction's predecessor)
  // (Each per-transaction look-up below is made only when its result can be used: here, a new
  // message or a management command in a cycle whose event can be theirs; in simulation a cycle
  // without one costs a test.)
  assign free_v = ~t_valid_q;
  always_comb begin
    same_line = '0;
    tail_v    = '0;
    if (look_i)
      for (int t = 0; t < TxnEntries; t++) begin
        same_line[t] = t_valid_q[t] & (t_line_q[t] == look_line_i);
        tail_v[t]    = same_line[t] & ~t_succ_q[t];
      end
  end
  prio_enc #(.N(TxnEntries)) u_free (.req_i (free_v), .onehot_o (free_oh_unused), .idx_o (free_o),
                                     .valid_o (free_any_o));
  prio_enc #(.N(TxnEntries)) u_tail (.req_i (tail_v), .onehot_o (tail_oh_unused), .idx_o (tail_i),
                                     .valid_o (busy_any_o));

  // ---- BIRSP head: the transaction awaiting it ----
  logic [TxnEntries-1:0] b_match, b_oh_unused;
  always_comb begin
    b_match = '0;
    if (bir_v_i)
      for (int t = 0; t < TxnEntries; t++)
        b_match[t] = t_valid_q[t] & (t_st_q[t] == ST_SNOOP || t_st_q[t] == ST_MEMW ||
                                     t_st_q[t] == ST_MEMRD) &
                     (t_line_q[t] == bir_line_i) & bir_cn_ok_i & t_await_q[t][bir_cn_i];
  end
  prio_enc #(.N(TxnEntries)) u_bm (.req_i (b_match), .onehot_o (b_oh_unused), .idx_o (b_o),
                                   .valid_o (b_any_o));

  // ---- transactions that await a failed CN ----
  // An owner's answer (EM_RdS, EM_RdOwn) is held: the line's latest data are in the logs, and the
  // handler's RECOVER of the line releases it. A sharer's answer is BIRSP_I (a shared copy is
  // clean): the engine answers it itself (EV_PURGE).
  logic [TxnEntries-1:0] held, pg_v, h_match, pg_oh_unused, h_oh_unused;
  logic                  pg_cn_v_unused;
  logic [NumCn-1:0]      pg_cn_oh_unused;
  // (None while no CN has failed.)
  always_comb begin
    logic aw;
    aw   = 1'b0;
    held = '0;
    pg_v = '0;
    if (failed_i != '0)
      for (int t = 0; t < TxnEntries; t++) begin
        aw      = t_valid_q[t] & ((t_await_q[t] & failed_i) != '0);
        held[t] = aw & own_snp_i[t];
        pg_v[t] = aw & ~own_snp_i[t];
      end
  end
  // (Apart: the same-line look-up waits for the events above the management port's, PURGE
  // among them.)
  assign h_match = held & same_line;
  prio_enc #(.N(TxnEntries)) u_pg (.req_i (pg_v), .onehot_o (pg_oh_unused), .idx_o (pg_o),
                                   .valid_o (pg_any_o));
  prio_enc #(.N(NumCn)) u_pgc (.req_i (t_await_q[pg_o] & failed_i), .onehot_o (pg_cn_oh_unused),
                               .idx_o (pg_cn_o), .valid_o (pg_cn_v_unused));
  prio_enc #(.N(TxnEntries)) u_hm (.req_i (h_match), .onehot_o (h_oh_unused), .idx_o (h_o),
                                   .valid_o (h_any_o));
  // The walk begins when nothing but held transactions and those waiting behind them is left
  // (looked at only while the walk waits for it).
  always_comb begin
    quiet_o = 1'b1;
    if (quiet_look_i)
      for (int t = 0; t < TxnEntries; t++) begin
        if (t_valid_q[t] && !held[t] && t_st_q[t] != ST_WAIT) quiet_o = 1'b0;
      end
  end

  // ---- per step: the lowest transaction at that step ----
  // at_step_q[k] holds the valid transactions at step k, kept beside t_st_q where the table is
  // written (below), so that finding the steps' transactions is six priority encoders, not a look
  // at every entry's state each cycle.
  localparam int unsigned StepDecide = 4, StepStart = 5;
  logic [NumStep*TxnEntries-1:0] at_step_q;   // step k, transaction t: bit k * TxnEntries + t
  function automatic logic [NumStep-1:0] step_of(logic [3:0] st);
    step_of = {st == ST_START, st == ST_DECIDE, st == ST_MEMRD, st == ST_INSTALL, st == ST_FINISH,
               st == ST_END};
  endfunction
  function automatic logic step_is(logic [3:0] st, logic [2:0] k);
    logic [NumStep-1:0] b;
    b       = step_of(st);
    step_is = b[k];
  endfunction
  logic [NumStep-1:0] nx_step;   // the step of the event's entry's next state, if it is valid
  for (genvar k = 0; k < NumStep; k++) begin : g_step
    logic [TxnEntries-1:0] oh_unused;
    prio_enc #(.N(TxnEntries)) u_pick (.req_i (at_step_q[k*TxnEntries +: TxnEntries]),
                                       .onehot_o (oh_unused), .idx_o (step_o[k*TW +: TW]),
                                       .valid_o (step_v_o[k]));
  end

  // ---- snoop sender: the lowest transaction with snoops to send, lowest CN first ----
  logic [TxnEntries-1:0] snp_v, snp_oh_unused;
  logic [NumCn-1:0]      s_cn_oh;
  logic                  s_cn_v_unused;
  // (With a failed CN, its snoops are never sent: each vector is looked at then.)
  always_comb begin
    snp_v = t_valid_q & t_snpany_q;
    if (failed_i != '0)
      for (int t = 0; t < TxnEntries; t++) snp_v[t] = t_valid_q[t] & ((t_snp_q[t] & ~failed_i) != '0);
  end
  prio_enc #(.N(TxnEntries)) u_sp (.req_i (snp_v), .onehot_o (snp_oh_unused), .idx_o (s_o),
                                   .valid_o (s_any_o));
  prio_enc #(.N(NumCn)) u_sc (.req_i (t_snp_q[s_o] & ~failed_i), .onehot_o (s_cn_oh), .idx_o (s_cn_o),
                              .valid_o (s_cn_v_unused));
  assign s_inv_o  = t_snpinv_q[s_o];
  assign s_line_o = t_line_q[s_o];

  // ---- the END's successors ----
  logic [TxnEntries-1:0] wake;   // the waiting successors an END starts
  always_comb begin
    wake = '0;
    if (end_i)
      for (int t = 0; t < TxnEntries; t++)
        if (t_valid_q[t] && t_st_q[t] == ST_WAIT && t_pred_q[t] == ei_i) wake[t] = 1'b1;
  end
  assign wake_any_o = wake != '0;

  // ---- writes ----
  // The event's entry takes its new fields (when there is no event, ei's own: nothing changes);
  // then the changes to other entries: the waiting successors an END starts, the new transaction's
  // link from its line's tail, the snoop sender's bit clear (a transaction gets new targets only
  // while it has none), each after the event's entry's fields, so that it wins where it is the
  // event's entry too. Written at their indices in the clocked block: the Verilated model writes
  // one entry per cycle, where next-state copies of the whole table (28 fields x TxnEntries) cost
  // it most of a directory's evaluation.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) t_valid_q       <= '0;
    else         t_valid_q[ei_i] <= nx_valid_i;
    // verilator lint_off ENUMVALUE
    t_st_q[ei_i]     <= nx_st_i;
    // verilator lint_on ENUMVALUE
    t_ent_q[ei_i]    <= nx_ent_i;    t_chg_q[ei_i]   <= nx_chg_i;   t_await_q[ei_i] <= nx_await_i;
    t_snp_q[ei_i]    <= nx_snp_i;    t_snpinv_q[ei_i] <= nx_snpinv_i;
    t_need_q[ei_i]   <= nx_need_i;   t_have_q[ei_i]  <= nx_have_i;  t_rdis_q[ei_i]  <= nx_rdis_i;
    t_kepts_q[ei_i]  <= nx_kepts_i;  t_viol_q[ei_i]  <= nx_viol_i;  t_skip_q[ei_i]  <= nx_skip_i;
    t_recok_q[ei_i]  <= nx_recok_i;
    if (new_i) begin
      t_lnr_q[ei_i]  <= nx_lnr_i;    t_line_q[ei_i]  <= nx_line_i;  t_lline_q[ei_i] <= nx_lline_i;
      t_op_q[ei_i]   <= nx_op_i;     t_src_q[ei_i]   <= nx_src_i;   t_core_q[ei_i]  <= nx_core_i;
      t_tag_q[ei_i]  <= nx_tag_i;    t_mask_q[ei_i]  <= nx_mask_i;  t_ts_q[ei_i]    <= nx_ts_i;
      t_succ_q[ei_i] <= 1'b0;        t_pred_q[ei_i]  <= tail_i;     t_rec_q[ei_i]   <= nx_rec_i;
      t_setv_q[ei_i] <= nx_setv_i;
    end
    if (wake != '0)
      for (int t = 0; t < TxnEntries; t++)
        if (wake[t]) t_st_q[t] <= t_lnr_q[t] ? ST_DECIDE : ST_START;
    if (succ_i)   t_succ_q[tail_i] <= 1'b1;
    if (s_take_i) t_snp_q[s_o]     <= (s_o == ei_i ? nx_snp_i : t_snp_q[s_o]) & ~s_cn_oh;
  end

  assign nx_step = nx_valid_i ? step_of(nx_st_i) : '0;
  // The snoop sender's summary follows t_snp_q's writes: the event's entry's, then the sender's.
  always_ff @(posedge clk_i) begin
    logic [TxnEntries-1:0] sa;
    sa       = t_snpany_q;
    sa[ei_i] = nx_snp_i != '0;
    if (s_take_i) sa[s_o] = ((s_o == ei_i ? nx_snp_i : t_snp_q[s_o]) & ~s_cn_oh) != '0;
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
    end else if (event_i) begin
      as = at_step_q;
      oh = TxnEntries'(1) << ei_i;
      for (int k = 0; k < NumStep; k++)
        as[k*TxnEntries +: TxnEntries] = nx_step[k] ? as[k*TxnEntries +: TxnEntries] | oh
                                                    : as[k*TxnEntries +: TxnEntries] & ~oh;
      if (wake != '0)
        for (int t = 0; t < TxnEntries; t++)
          if (wake[t]) as[(t_lnr_q[t] ? StepDecide : StepStart)*TxnEntries + t] = 1'b1;
      at_step_q <= as;
    end
  end

  // ---- assertions ----
  // A read outstanding (idle or not) is a walk's or a live transaction's, which waits for it.
  `ASSERT(read_outstanding_is_awaited, !rd_head_v_i || rd_head_i[TW+1] || t_valid_q[rd_head_i[TW-1:0]])
  // A data response names a transaction that waits for it.
  `ASSERT(rsp_awaited, !rd_rsp_i || rd_head_i[TW+1] || (t_valid_q[rd_head_i[TW-1:0]] &&
          (rd_head_i[TW] ? t_st_q[rd_head_i[TW-1:0]] == ST_FILLW : t_rdis_q[rd_head_i[TW-1:0]])))
  // A held transaction awaits its answers (nothing but RECOVER moves it).
  for (genvar t = 0; t < TxnEntries; t++) begin : g_as_held
    `ASSERT(held_snoops, !held[t] || t_st_q[t] == ST_SNOOP)
  end
  // Only a RECOVER sets a line's version from the management port.
  for (genvar t = 0; t < TxnEntries; t++) begin : g_as_setv
    `ASSERT(setv_is_recover, !t_valid_q[t] || !t_setv_q[t] || t_rec_q[t])
  end
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
    `ASSERT(em_one_owner, !t_valid_q[t] || t_ent_q[t][1:0] != csr_pkg::E_EM || $countones(t_ent_q[t][2 +: NumCn]) == 1)
    `ASSERT(no_state_3, !t_valid_q[t] || t_ent_q[t][1:0] != 2'd3)
  end

endmodule
`default_nettype wire
