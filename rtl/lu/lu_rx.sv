`default_nettype none
`include "assert.svh"

// Receive port of the Logging Unit: messages from the CN's switch port, up to two per LU cycle,
// each class on its own credits (crd_ret).
//
// Two lanes. The LU runs at half the clock of its switch port (500 MHz against 1 GHz), so a 2:1
// gearbox hands it the messages of two link cycles at once: lane 0 the older, lane 1 the younger,
// either may be empty, and both may carry any class, also the same one. A sender with one message
// per LU cycle uses lane 0 only (lane 1 tied low). Within a class the order is kept: lane 0's
// message enters its FIFO before lane 1's (fifo_2w).
//
// The LU receives four classes, each into its own FIFO of CrdPerCls messages, so that a class
// waiting for the LU (REPLs while the SRAM log buffer is full) never holds back another:
//   DKREQ  REPL                                   whole flit (the words are logged)
//   DKRSP  VAL                                    header (flit bits above the data)
//   MGREQ  Interrupt, RecovEnd, FetchLatestVers,  header
//          Early Flush
//   MGRSP  DUMP_GO, DUMP_DONE                     header
// A credit goes back when the message leaves its FIFO. A message of any other class, or with an
// opcode that does not exist, is dropped at once (its credit returned) and reported on bad_o, per
// lane; an opcode of a received class that the LU does not handle is reported by the consumer.
// Credits leave one per class per cycle (crd_ret counts the rest): the consumers take at most
// one message of a class per cycle, so only dropped messages ever wait for their credit's turn.
module lu_rx #(
  /// receive buffer entries (credits) per class
  parameter int unsigned CrdPerCls = 4,
  localparam int unsigned FlitW    = msg_pkg::FLIT_W,
  localparam int unsigned HdrW     = msg_pkg::FLIT_W - msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned NumCls   = msg_pkg::NUM_CLASSES
) (
  /// LU clock
  input  wire logic                clk_i,
  /// synchronous reset, active low
  input  wire logic                rst_ni,
  /// per lane: a message arrives from the link (bit 0: lane 0, the older one)
  input  wire logic [1:0]          rx_valid_i,
  /// the arriving messages (msg_pkg::msg_t): lane k at [k*FlitW +: FlitW]
  input  wire logic [2*FlitW-1:0]  rx_msg_i,
  /// per class: a credit returned to the link partner (registered)
  output logic      [NumCls-1:0]   rx_crd_o,
  /// per lane: its message was dropped: class not received by an LU, or no such opcode (one cycle)
  output logic      [1:0]          bad_o,
  /// DKREQ head (REPL) valid
  output logic                     dkq_valid_o,
  /// DKREQ head taken
  input  wire logic                dkq_ready_i,
  /// DKREQ head: the whole flit
  output logic      [FlitW-1:0]    dkq_msg_o,
  /// DKRSP head (VAL) valid
  output logic                     dks_valid_o,
  /// DKRSP head taken
  input  wire logic                dks_ready_i,
  /// DKRSP head: the header (flit bits FlitW-1 : data width)
  output logic      [HdrW-1:0]     dks_hdr_o,
  /// MGREQ head valid
  output logic                     mgq_valid_o,
  /// MGREQ head taken
  input  wire logic                mgq_ready_i,
  /// MGREQ head: the header
  output logic      [HdrW-1:0]     mgq_hdr_o,
  /// MGRSP head valid
  output logic                     mgs_valid_o,
  /// MGRSP head taken
  input  wire logic                mgs_ready_i,
  /// MGRSP head: the header
  output logic      [HdrW-1:0]     mgs_hdr_o,
  /// nothing buffered, no credit pending
  output logic                     idle_o
);
  localparam int unsigned DataW = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W;
  localparam int unsigned OpW   = msg_pkg::OPCODE_W;
  localparam int unsigned ClsW  = msg_pkg::CLASS_W;
  localparam int unsigned RetW  = 2;

  // The two lanes by name (also what the waveform view shows).
  logic             lane0_valid, lane1_valid;
  logic [FlitW-1:0] lane0_msg, lane1_msg;
  assign lane0_valid = rx_valid_i[0];
  assign lane1_valid = rx_valid_i[1];
  assign lane0_msg   = rx_msg_i[0 +: FlitW];
  assign lane1_msg   = rx_msg_i[FlitW +: FlitW];

  // Per lane k: opcode, class, and which FIFO takes the message (bit k of each vector).
  logic [1:0]         vld;
  logic [2*FlitW-1:0] msg;
  logic [2*OpW-1:0]   op;
  logic [2*ClsW-1:0]  cls;
  logic [1:0]         op_ok, in_dkq, in_dks, in_mgq, in_mgs;
  assign vld = {lane1_valid, lane0_valid};
  assign msg = {lane1_msg, lane0_msg};
  for (genvar k = 0; k < 2; k++) begin : g_lane
    assign op[k*OpW +: OpW]    = msg[k*FlitW + msg_pkg::FIELD_OPCODE_LSB +: OpW];
    assign cls[k*ClsW +: ClsW] = msg_pkg::msg_class(op[k*OpW +: OpW]);
    assign op_ok[k]  = msg_pkg::msg_op_valid(op[k*OpW +: OpW]);
    assign in_dkq[k] = vld[k] & op_ok[k] & (cls[k*ClsW +: ClsW] == msg_pkg::CLS_DKREQ);
    assign in_dks[k] = vld[k] & op_ok[k] & (cls[k*ClsW +: ClsW] == msg_pkg::CLS_DKRSP);
    assign in_mgq[k] = vld[k] & op_ok[k] & (cls[k*ClsW +: ClsW] == msg_pkg::CLS_MGREQ);
    assign in_mgs[k] = vld[k] & op_ok[k] & (cls[k*ClsW +: ClsW] == msg_pkg::CLS_MGRSP);
    assign bad_o[k]  = vld[k] & ~(in_dkq[k] | in_dks[k] | in_mgq[k] | in_mgs[k]);
  end

  // Credits to return per class this cycle: the message its FIFO gives up, and the dropped ones of
  // the class. A dropped message with an opcode that does not exist names no class, so no credit
  // can be returned for it (the sender's msg_check refuses such messages before they are sent).
  logic [NumCls-1:0]      pop;
  logic [NumCls*RetW-1:0] ret;
  always_comb begin
    pop = '0;
    pop[msg_pkg::CLS_DKREQ] = dkq_valid_o & dkq_ready_i;
    pop[msg_pkg::CLS_DKRSP] = dks_valid_o & dks_ready_i;
    pop[msg_pkg::CLS_MGREQ] = mgq_valid_o & mgq_ready_i;
    pop[msg_pkg::CLS_MGRSP] = mgs_valid_o & mgs_ready_i;
    for (int c = 0; c < NumCls; c++) ret[c*RetW +: RetW] = RetW'(pop[c]);
    // (Dropped messages are rare: the classes are looked at only when one is.)
    if (bad_o != '0)
      for (int c = 0; c < NumCls; c++)
        for (int k = 0; k < 2; k++)
          if (bad_o[k] && op_ok[k] && cls[k*ClsW +: ClsW] == ClsW'(c))
            ret[c*RetW +: RetW] = ret[c*RetW +: RetW] + RetW'(1);
  end

  logic crd_idle;
  localparam int unsigned AdvW = $clog2(CrdPerCls + 1);
  logic crd_open_unused;   // (a node's port is open from reset)
  crd_ret #(.CrdPerCls(CrdPerCls), .RetW(2), .Headroom(3), .StartAtReset(1'b1)) u_crd (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .restart_i  (1'b0),
    .adv_i      (AdvW'(CrdPerCls)),
    .fenced_i   (1'b0),
    .ret_i      (ret),
    .sunk_i     (1'b0),
    .sunk_cls_i ('0),
    .crd_o      (rx_crd_o),
    .open_o     (crd_open_unused),
    .idle_o     (crd_idle)
  );

  // Per class a FIFO that takes both lanes in one cycle, lane 0 first.
  localparam int unsigned CntW = $clog2(CrdPerCls + 1);
  logic [1:0]      dkq_in_ready, dks_in_ready, mgq_in_ready, mgs_in_ready;
  logic            dkq_empty, dks_empty, mgq_empty, mgs_empty;
  logic [CntW-1:0] dkq_cnt_unused, dks_cnt_unused, mgq_cnt_unused, mgs_cnt_unused;
  logic [2*HdrW-1:0] hdrs;
  assign hdrs = {lane1_msg[FlitW-1:DataW], lane0_msg[FlitW-1:DataW]};

  fifo_2w #(.Depth(CrdPerCls), .Width(FlitW)) u_dkq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_dkq), .in_ready_o (dkq_in_ready), .in_data_i (msg),
    .out_valid_o (dkq_valid_o), .out_ready_i (dkq_ready_i), .out_data_o (dkq_msg_o),
    .count_o (dkq_cnt_unused), .empty_o (dkq_empty)
  );
  fifo_2w #(.Depth(CrdPerCls), .Width(HdrW)) u_dks (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_dks), .in_ready_o (dks_in_ready), .in_data_i (hdrs),
    .out_valid_o (dks_valid_o), .out_ready_i (dks_ready_i), .out_data_o (dks_hdr_o),
    .count_o (dks_cnt_unused), .empty_o (dks_empty)
  );
  fifo_2w #(.Depth(CrdPerCls), .Width(HdrW)) u_mgq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_mgq), .in_ready_o (mgq_in_ready), .in_data_i (hdrs),
    .out_valid_o (mgq_valid_o), .out_ready_i (mgq_ready_i), .out_data_o (mgq_hdr_o),
    .count_o (mgq_cnt_unused), .empty_o (mgq_empty)
  );
  fifo_2w #(.Depth(CrdPerCls), .Width(HdrW)) u_mgs (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_mgs), .in_ready_o (mgs_in_ready), .in_data_i (hdrs),
    .out_valid_o (mgs_valid_o), .out_ready_i (mgs_ready_i), .out_data_o (mgs_hdr_o),
    .count_o (mgs_cnt_unused), .empty_o (mgs_empty)
  );

  assign idle_o = crd_idle & dkq_empty & dks_empty & mgq_empty & mgs_empty;

  // The link partner sends only on credits, so a class's FIFO always has room for what arrives:
  // for two messages of the class in one cycle, room for two (fifo_2w's in_ready_o bit 1).
  `ASSERT(dkq_no_overflow, (in_dkq == 2'b11) ? dkq_in_ready[1] : (in_dkq == 2'b00 || dkq_in_ready[0]))
  `ASSERT(dks_no_overflow, (in_dks == 2'b11) ? dks_in_ready[1] : (in_dks == 2'b00 || dks_in_ready[0]))
  `ASSERT(mgq_no_overflow, (in_mgq == 2'b11) ? mgq_in_ready[1] : (in_mgq == 2'b00 || mgq_in_ready[0]))
  `ASSERT(mgs_no_overflow, (in_mgs == 2'b11) ? mgs_in_ready[1] : (in_mgs == 2'b00 || mgs_in_ready[0]))

endmodule
`default_nettype wire
