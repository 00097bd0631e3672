`default_nettype none

// The directory's event arbiter: the one event the engine takes this cycle, and its transaction
// (ei_o). In priority: a memory response (never held back: the port cannot wait), a BIRSP, a
// failed sharer's answer given up, then the transactions' own steps (END, FINISH, INSTALL, MEMRD,
// DECIDE, START: the lowest transaction at each), the walk's (scan a directory line, flush a way
// of the cache, end), the management port's command, then a new RWD or REQ. Each is taken only
// when what it pushes fits. While the walk flushes and scans, the transactions' steps wait (only
// memory responses and snoop answers, which cannot wait, are taken).
module dir_event #(
  /// transaction table entries
  parameter int unsigned TxnEntries = 16,
  localparam int unsigned TW      = (TxnEntries > 1) ? $clog2(TxnEntries) : 1,
  localparam int unsigned NumStep = 6
) (
  // a memory response arrives; for the walk (else a transaction's: rsp_txn_i)
  /// a read's answer arrives (it pops its tag)
  input  wire logic                  mem_rsp_valid_i,
  /// the answer is the walk's
  input  wire logic                  rsp_walk_i,
  /// else its transaction
  input  wire logic [TW-1:0]         rsp_txn_i,
  // a BIRSP waits; the transaction awaiting it (dir_tbe)
  /// a BIRSP waits
  input  wire logic                  bir_v_i,
  /// the transaction awaiting it (dir_tbe)
  input  wire logic [TW-1:0]         b_i,
  // a failed sharer's answer to give up; its transaction
  /// a failed sharer's answer to give up
  input  wire logic                  pg_any_i,
  /// its transaction
  input  wire logic [TW-1:0]         pg_i,
  // per step (END, FINISH, INSTALL, MEMRD, DECIDE, START): a transaction is at it, the lowest
  /// per step: a transaction is at it
  input  wire logic [NumStep-1:0]    step_v_i,
  /// per step: the lowest (bits k*TW +: TW)
  input  wire logic [NumStep*TW-1:0] step_i,
  // room: a memory request; a response; a management answer; a memory request and a read tag
  /// a memory request fits
  input  wire logic                  mq_room_i,
  /// a response fits
  input  wire logic                  sq_room_i,
  /// an answer fits
  input  wire logic                  mr_room_i,
  /// a memory request and a read tag fit
  input  wire logic                  res_ok_i,
  // the walk flushes or scans; its events can be taken (dir_walk)
  /// the walk flushes or scans
  input  wire logic                  walking_i,
  /// the walk has a directory line to scan
  input  wire logic                  wproc_ok_i,
  /// the walk flushes
  input  wire logic                  flush_ok_i,
  /// the walk can end
  input  wire logic                  wdone_ok_i,
  // the management port's command can be taken (dir_mgmt); it is a RECOVER that may enter the
  // table
  /// the management command can be taken (dir_mgmt)
  input  wire logic                  mg_go_i,
  /// it is a RECOVER that may enter the table
  input  wire logic                  rec_pend_i,
  // the RECOVER's line is this MN's, in the SCR; a transaction is held on it, which (dir_tbe)
  /// the line is this MN's
  input  wire logic                  n_here_i,
  /// the line is in the SCR
  input  wire logic                  n_scr_i,
  /// a transaction is held on the RECOVER's line
  input  wire logic                  h_any_i,
  /// which
  input  wire logic [TW-1:0]         h_i,
  // a free entry, the lowest (dir_tbe)
  /// a free entry
  input  wire logic                  free_any_i,
  /// the lowest
  input  wire logic [TW-1:0]         free_i,
  // a new message waits; recovery mode (no new request enters the table)
  /// a new message waits (RWD or REQ)
  input  wire logic                  n_v_i,
  /// recovery mode: no new request enters the table
  input  wire logic                  rec_mode_i,
  /// no event above the management port's and new messages': only then the table's same-line
  /// look-up, which only those two use, is made
  output logic                       low_turn_o,
  /// the cycle has an event
  output logic                       ev_any_o,
  /// the event's transaction
  output logic      [TW-1:0]         ei_o,
  // the event (one at most)
  /// the cycle's event is a memory response
  output logic                       ev_memrsp_o,
  /// the cycle's event is a snoop answer (BIRSP)
  output logic                       ev_birsp_o,
  /// the cycle's event is a failed sharer's answer given up (taken as BIRSP_I)
  output logic                       ev_purge_o,
  /// the cycle's event is a transaction's END
  output logic                       ev_end_o,
  /// the cycle's event is a transaction's FINISH
  output logic                       ev_finish_o,
  /// the cycle's event is a transaction's INSTALL
  output logic                       ev_install_o,
  /// the cycle's event is a transaction's MEMRD
  output logic                       ev_memrd_o,
  /// the cycle's event is a transaction's DECIDE
  output logic                       ev_decide_o,
  /// the cycle's event is a transaction's START
  output logic                       ev_start_o,
  /// the cycle's event is the walk scanning a directory line
  output logic                       ev_wproc_o,
  /// the cycle's event is the walk flushing a way of the cache
  output logic                       ev_flush_o,
  /// the cycle's event is the walk's end
  output logic                       ev_wdone_o,
  /// the cycle's event is a management command
  output logic                       ev_mg_o,
  /// the cycle's event is a new request (or RECOVER) into the table
  output logic                       ev_new_o
);

  typedef enum logic [3:0] {
    EV_NONE, EV_MEMRSP, EV_BIRSP, EV_PURGE, EV_END, EV_FINISH, EV_INSTALL, EV_MEMRD, EV_DECIDE,
    EV_START, EV_WPROC, EV_FLUSH, EV_WDONE, EV_MG, EV_NEW
  } ev_e;
  ev_e           ev, ev_hi;
  logic [TW-1:0] ei_hi;

  // The events above the management port's and new messages' first (low_turn: none of them).
  always_comb begin
    ev_hi = EV_NONE;
    ei_hi = '0;
    if (mem_rsp_valid_i && !rsp_walk_i) begin
      ev_hi = EV_MEMRSP;
      ei_hi = rsp_txn_i;
    end else if (bir_v_i && mq_room_i) begin
      ev_hi = EV_BIRSP;
      ei_hi = b_i;
    end else if (!walking_i && pg_any_i) begin
      ev_hi = EV_PURGE;
      ei_hi = pg_i;
    end else if (!walking_i && step_v_i[0] && mq_room_i) begin
      ev_hi = EV_END;
      ei_hi = step_i[0*TW +: TW];
    end else if (!walking_i && step_v_i[1] && sq_room_i && mr_room_i) begin
      ev_hi = EV_FINISH;
      ei_hi = step_i[1*TW +: TW];
    end else if (!walking_i && step_v_i[2] && mq_room_i) begin
      ev_hi = EV_INSTALL;
      ei_hi = step_i[2*TW +: TW];
    end else if (!walking_i && step_v_i[3] && res_ok_i) begin
      ev_hi = EV_MEMRD;
      ei_hi = step_i[3*TW +: TW];
    end else if (!walking_i && step_v_i[4] && res_ok_i) begin
      ev_hi = EV_DECIDE;
      ei_hi = step_i[4*TW +: TW];
    end else if (!walking_i && step_v_i[5] && res_ok_i) begin
      ev_hi = EV_START;
      ei_hi = step_i[5*TW +: TW];
    end else if (wproc_ok_i && mq_room_i && mr_room_i) begin
      ev_hi = EV_WPROC;
    end else if (flush_ok_i && mq_room_i) begin
      ev_hi = EV_FLUSH;
    end else if (wdone_ok_i && mr_room_i) begin
      ev_hi = EV_WDONE;
    end
  end
  assign low_turn_o = ev_hi == EV_NONE;

  always_comb begin
    ev = ev_hi;
    ei_o = ei_hi;
    if (!low_turn_o) begin
      // (the event above)
    end else if (mg_go_i) begin
      // A RECOVER that needs a transaction of its own (no held one to release) enters the table
      // as a new request would.
      ev   = (rec_pend_i && n_here_i && n_scr_i && !h_any_i && free_any_i) ? EV_NEW : EV_MG;
      ei_o = h_any_i ? h_i : free_i;
    end else if (n_v_i && !rec_mode_i && !rec_pend_i) begin
      ev   = EV_NEW;
      ei_o = free_i;
    end
  end

  assign ev_any_o     = ev != EV_NONE;
  assign ev_memrsp_o  = ev == EV_MEMRSP;
  assign ev_birsp_o   = ev == EV_BIRSP;
  assign ev_purge_o   = ev == EV_PURGE;
  assign ev_end_o     = ev == EV_END;
  assign ev_finish_o  = ev == EV_FINISH;
  assign ev_install_o = ev == EV_INSTALL;
  assign ev_memrd_o   = ev == EV_MEMRD;
  assign ev_decide_o  = ev == EV_DECIDE;
  assign ev_start_o   = ev == EV_START;
  assign ev_wproc_o   = ev == EV_WPROC;
  assign ev_flush_o   = ev == EV_FLUSH;
  assign ev_wdone_o   = ev == EV_WDONE;
  assign ev_mg_o      = ev == EV_MG;
  assign ev_new_o     = ev == EV_NEW;

endmodule
`default_nettype wire
