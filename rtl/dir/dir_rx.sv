`default_nettype none
`include "assert.svh"

// Receive port of the directory controller: messages from the MN's switch port, one per cycle,
// each class on its own credits (crd_ret: the same credit return as the Logging Unit's).
//
// The directory receives six classes, each into its own FIFO of CrdPerCls messages, so that a
// class waiting for the controller (requests while the transaction table is full) never holds
// back another:
//   REQ    reads, upgrades, clean evictions     header (flit bits above the data)
//   RWD    write-backs, write-through, LNR      whole flit
//   BIRSP  snoop responses                      whole flit
//   MGREQ, MGRSP, DUMP  for the MN's software   whole flit, one software port (MGRSP first, then
//                                               MGREQ, then DUMP)
// A credit goes back when the message leaves its FIFO. A message of any other class, or with an
// opcode that does not exist, is dropped at once (its credit returned when it names a class) and
// reported on bad_o with its header.
module dir_rx #(
  /// receive buffer entries (credits) per class
  parameter int unsigned CrdPerCls = 4,
  localparam int unsigned FlitW    = msg_pkg::FLIT_W,
  localparam int unsigned HdrW     = msg_pkg::FLIT_W - msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned NumCls   = msg_pkg::NUM_CLASSES
) (
  /// controller clock
  input  wire logic              clk_i,
  /// synchronous reset, active low
  input  wire logic              rst_ni,
  /// a message arrives from the link
  input  wire logic              rx_valid_i,
  /// the arriving message (msg_pkg::msg_t)
  input  wire logic [FlitW-1:0]  rx_msg_i,
  /// per class: a credit returned to the link partner (registered)
  output logic      [NumCls-1:0] rx_crd_o,
  /// a message was dropped: class not received by a directory, or no such opcode (one cycle)
  output logic                   bad_o,
  /// the dropped message's header
  output logic      [HdrW-1:0]   bad_hdr_o,
  /// REQ head valid
  output logic                   req_valid_o,
  /// REQ head taken
  input  wire logic              req_ready_i,
  /// REQ head: the header
  output logic      [HdrW-1:0]   req_hdr_o,
  /// RWD head valid
  output logic                   rwd_valid_o,
  /// RWD head taken
  input  wire logic              rwd_ready_i,
  /// RWD head: the whole flit
  output logic      [FlitW-1:0]  rwd_msg_o,
  /// BIRSP head valid
  output logic                   bir_valid_o,
  /// BIRSP head taken
  input  wire logic              bir_ready_i,
  /// BIRSP head: the whole flit
  output logic      [FlitW-1:0]  bir_msg_o,
  /// a message for the MN's software (MGREQ, MGRSP or DUMP) is waiting
  output logic                   sw_valid_o,
  /// the software takes it
  input  wire logic              sw_ready_i,
  /// the message
  output logic      [FlitW-1:0]  sw_msg_o,
  /// nothing buffered, no credit pending
  output logic                   idle_o,
  /// nothing buffered but REQ and RWD messages, no credit pending
  output logic                   held_o
);
  localparam int unsigned DataW = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W;
  localparam int unsigned CntW  = $clog2(CrdPerCls + 1);
  // Receive FIFOs, by index: 0 REQ, 1 RWD, 2 BIRSP, 3 MGRSP, 4 MGREQ, 5 DUMP.
  localparam int unsigned NumQ  = 6;

  msg_pkg::opcode_t  op;
  msg_pkg::class_t   cls;
  logic              ok;
  logic [NumQ-1:0]   in_q, q_in_ready, q_valid, q_ready, q_empty;
  // The heads of the whole-flit FIFOs (1 RWD .. 5 DUMP; REQ's is the header alone), each its own
  // signal rather than an array: the Verilated model then reads each FIFO's head register where it
  // is used instead of copying it into an array at every evaluation.
  logic [FlitW-1:0]  rwd_head, bir_head, mgrsp_head, mgreq_head, dump_head;
  logic [NumCls*2-1:0] ret;  // per class, credits to return this cycle (crd_ret's RetW = 2)
  logic              crd_idle;

  assign op    = rx_msg_i[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::OPCODE_W];
  assign cls   = msg_pkg::msg_class(op);
  assign ok    = rx_valid_i & msg_pkg::msg_op_valid(op);
  assign in_q  = {ok & (cls == msg_pkg::CLS_DUMP),  ok & (cls == msg_pkg::CLS_MGREQ),
                  ok & (cls == msg_pkg::CLS_MGRSP), ok & (cls == msg_pkg::CLS_BIRSP),
                  ok & (cls == msg_pkg::CLS_RWD),   ok & (cls == msg_pkg::CLS_REQ)};
  assign bad_o     = rx_valid_i & ~(|in_q);
  assign bad_hdr_o = rx_msg_i[FlitW-1:DataW];

  // The software port: MGRSP before MGREQ before DUMP (each consumed unconditionally by the
  // software, so the order only sets latency).
  always_comb begin
    q_ready    = '0;
    q_ready[0] = req_ready_i;
    q_ready[1] = rwd_ready_i;
    q_ready[2] = bir_ready_i;
    sw_valid_o = q_valid[3] | q_valid[4] | q_valid[5];
    sw_msg_o   = q_valid[3] ? mgrsp_head : q_valid[4] ? mgreq_head : dump_head;
    if (q_valid[3])      q_ready[3] = sw_ready_i;
    else if (q_valid[4]) q_ready[4] = sw_ready_i;
    else                 q_ready[5] = sw_ready_i;
  end

  always_comb begin
    ret = '0;
    ret[msg_pkg::CLS_REQ*2   +: 2] = {1'b0, q_valid[0] & q_ready[0]};
    ret[msg_pkg::CLS_RWD*2   +: 2] = {1'b0, q_valid[1] & q_ready[1]};
    ret[msg_pkg::CLS_BIRSP*2 +: 2] = {1'b0, q_valid[2] & q_ready[2]};
    ret[msg_pkg::CLS_MGRSP*2 +: 2] = {1'b0, q_valid[3] & q_ready[3]};
    ret[msg_pkg::CLS_MGREQ*2 +: 2] = {1'b0, q_valid[4] & q_ready[4]};
    ret[msg_pkg::CLS_DUMP*2  +: 2] = {1'b0, q_valid[5] & q_ready[5]};
    // A dropped message: return its credit too, on top of a pop of its class in the same cycle.
    // One with an opcode that does not exist names no class, so no credit can be returned for it.
    if (bad_o && msg_pkg::msg_op_valid(op)) ret[cls*2 +: 2] = ret[cls*2 +: 2] + 2'd1;
  end

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

  // REQ messages carry no data: only the header is stored.
  logic [HdrW-1:0] req_hdr;
  logic [CntW-1:0] req_cnt_unused;
  fifo #(.Depth(CrdPerCls), .Width(HdrW)) u_req (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_q[0]), .in_ready_o (q_in_ready[0]), .in_data_i (rx_msg_i[FlitW-1:DataW]),
    .out_valid_o (q_valid[0]), .out_ready_i (q_ready[0]), .out_data_o (req_hdr),
    .count_o (req_cnt_unused), .empty_o (q_empty[0])
  );

  logic [CntW-1:0] rwd_cnt_unused, bir_cnt_unused, mgrsp_cnt_unused, mgreq_cnt_unused, dump_cnt_unused;
  fifo #(.Depth(CrdPerCls), .Width(FlitW)) u_rwd (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_q[1]), .in_ready_o (q_in_ready[1]), .in_data_i (rx_msg_i),
    .out_valid_o (q_valid[1]), .out_ready_i (q_ready[1]), .out_data_o (rwd_head),
    .count_o (rwd_cnt_unused), .empty_o (q_empty[1])
  );
  fifo #(.Depth(CrdPerCls), .Width(FlitW)) u_bir (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_q[2]), .in_ready_o (q_in_ready[2]), .in_data_i (rx_msg_i),
    .out_valid_o (q_valid[2]), .out_ready_i (q_ready[2]), .out_data_o (bir_head),
    .count_o (bir_cnt_unused), .empty_o (q_empty[2])
  );
  fifo #(.Depth(CrdPerCls), .Width(FlitW)) u_mgrsp (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_q[3]), .in_ready_o (q_in_ready[3]), .in_data_i (rx_msg_i),
    .out_valid_o (q_valid[3]), .out_ready_i (q_ready[3]), .out_data_o (mgrsp_head),
    .count_o (mgrsp_cnt_unused), .empty_o (q_empty[3])
  );
  fifo #(.Depth(CrdPerCls), .Width(FlitW)) u_mgreq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_q[4]), .in_ready_o (q_in_ready[4]), .in_data_i (rx_msg_i),
    .out_valid_o (q_valid[4]), .out_ready_i (q_ready[4]), .out_data_o (mgreq_head),
    .count_o (mgreq_cnt_unused), .empty_o (q_empty[4])
  );
  fifo #(.Depth(CrdPerCls), .Width(FlitW)) u_dump (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_q[5]), .in_ready_o (q_in_ready[5]), .in_data_i (rx_msg_i),
    .out_valid_o (q_valid[5]), .out_ready_i (q_ready[5]), .out_data_o (dump_head),
    .count_o (dump_cnt_unused), .empty_o (q_empty[5])
  );

  assign req_valid_o = q_valid[0];
  assign req_hdr_o   = req_hdr;
  assign rwd_valid_o = q_valid[1];
  assign rwd_msg_o   = rwd_head;
  assign bir_valid_o = q_valid[2];
  assign bir_msg_o   = bir_head;
  assign idle_o      = crd_idle & (&q_empty);
  assign held_o      = crd_idle & (&q_empty[NumQ-1:2]);

  // The link partner sends only on credits, so a class's FIFO always has room.
  `ASSERT(rx_no_overflow, (in_q & ~q_in_ready) == '0)

endmodule
`default_nettype wire
