`default_nettype none
`include "assert.svh"

// One input port of the CXL switch: the link's receive side.
//
// A message arriving on the link goes into this port's shared buffer (voq_buf), on the virtual
// output queue of its (output port, class); the route comes from the switch's routing table. Each
// cycle the port tells the allocator which outputs it could send to: a queue of that output holds a
// message of a class the switch lets this port send there now (crd_ok_i: the output holds a credit
// of the class and it is this port's turn for it); when the allocator matches it to an output, a
// round-robin over the eligible classes picks the message, which leaves its queue that cycle (the
// allocation stage). The port registers the entry that held it and reads the message out of the
// buffer memory the next cycle, toward the crossbar (the traversal stage): deq_msg_o is the
// message matched in the previous cycle. voq_buf keeps a freed entry's word for that cycle.
//
// Credits: the port advertises CrdPerCls credits per class when the switch (re)starts it
// (restart_i: at enable, and when its node is re-admitted after a failure), one per cycle per class
// as a CXL link advertises its buffers, and returns one each time a message of that class leaves
// the buffer, or is sunk because its destination has no route. The buffer holds
// CrdPerCls * NUM_CLASSES messages, so a sender that respects its credits never finds it full and
// no class can take another's space: a request can never block a response here.
//
// Fenced (fenced_i: the switch declared the port's node failed): the port requests nothing, drops
// whatever arrives, returns no credit, and drains its buffer, one message per cycle, scanning the
// queues in turn; every dropped message is counted (drop_o).
module sw_ingress #(
  /// number of output ports of the switch
  parameter int unsigned NumOut    = 4,
  /// credits (buffer entries) per message class
  parameter int unsigned CrdPerCls = 4,
  localparam int unsigned NumCls   = msg_pkg::NUM_CLASSES,
  localparam int unsigned FlitW    = msg_pkg::FLIT_W,
  localparam int unsigned OutW     = (NumOut > 1) ? $clog2(NumOut) : 1,
  localparam int unsigned ClsW     = $clog2(NumCls)
) (
  /// switch clock
  input  wire logic                     clk_i,
  /// synchronous reset, active low
  input  wire logic                     rst_ni,
  /// a message arrives from the link
  input  wire logic                     rx_valid_i,
  /// the arriving message (msg_pkg::msg_t)
  input  wire logic [FlitW-1:0]         rx_msg_i,
  /// its route: the routing table has an entry for its destination
  input  wire logic                     rx_route_valid_i,
  /// its route: the output port
  input  wire logic [OutW-1:0]          rx_route_out_i,
  /// one credit returned to the link partner per set bit (bit = class)
  output logic      [NumCls-1:0]        rx_crd_o,
  /// a message without a route was sunk this cycle (counted by the switch)
  output logic                          rx_sunk_o,
  /// (re)start: advertise CrdPerCls credits per class again, from the next cycle
  input  wire logic                     restart_i,
  /// the port's node is failed: request nothing, drop arrivals, drain the buffer
  input  wire logic                     fenced_i,
  /// messages from the fenced node dropped this cycle (one arriving, one drained)
  output logic      [1:0]               drop_o,
  /// per output and class, row-major (o*NumCls + c): this port may send the class there now
  input  wire logic [NumOut*NumCls-1:0] crd_ok_i,
  /// per output and class: a queue holds a message (the switch's credit turn arbiters look at it)
  output logic      [NumOut*NumCls-1:0] nonempty_o,
  /// per class: a message of the class waits in the buffer and none of it left this cycle
  output logic      [NumCls-1:0]        stall_o,
  /// per output: this port has a message the output can take now (the allocator's request)
  output logic      [NumOut-1:0]        req_o,
  /// the allocator matched this port this cycle
  input  wire logic                     match_valid_i,
  /// the output it is matched to
  input  wire logic [OutW-1:0]          match_out_i,
  /// the class of the message that leaves toward the matched output (valid with match_valid_i)
  output logic      [ClsW-1:0]          deq_cls_o,
  /// the message matched in the previous cycle (traversal stage)
  output logic      [FlitW-1:0]         deq_msg_o,
  /// nothing in this port will change until an input changes
  output logic                          idle_o
);
  localparam int unsigned NumQ  = NumOut * NumCls;
  localparam int unsigned Depth = CrdPerCls * NumCls;
  localparam int unsigned QW    = (NumQ > 1) ? $clog2(NumQ) : 1;
  localparam int unsigned CntW  = $clog2(Depth + 1);

  if (NumOut < 2) begin : g_bad_out
    $error("sw_ingress: NumOut must be at least 2");
  end
  if (CrdPerCls < 1) begin : g_bad_crd
    $error("sw_ingress: CrdPerCls must be at least 1");
  end

  // ---- receive: class decode, enqueue on (route, class) ----
  msg_pkg::opcode_t rx_op;
  msg_pkg::class_t  rx_cls;
  logic             enq, enq_ready;
  logic [QW-1:0]    enq_q;

  assign rx_op     = rx_msg_i[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::FIELD_OPCODE_W];
  assign rx_cls    = msg_pkg::msg_class(rx_op);
  assign enq       = rx_valid_i & rx_route_valid_i & ~fenced_i;
  assign enq_q     = QW'(rx_route_out_i) * QW'(NumCls) + QW'(rx_cls);
  assign rx_sunk_o = rx_valid_i & ~rx_route_valid_i & ~fenced_i;

  // ---- requests and the class of the matched output ----
  logic [NumQ-1:0]   nonempty;
  logic [NumCls-1:0] elig, pick;
  logic [ClsW-1:0]   pick_idx;
  logic              pick_valid, deq;

  assign nonempty_o = nonempty;

  always_comb begin
    for (int o = 0; o < NumOut; o++)
      req_o[o] = ~fenced_i & |(nonempty[o*NumCls +: NumCls] & crd_ok_i[o*NumCls +: NumCls]);
  end

  assign elig = nonempty[32'(match_out_i)*NumCls +: NumCls] & crd_ok_i[32'(match_out_i)*NumCls +: NumCls];

  rr_arb #(
    .N (NumCls)
  ) u_cls_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (elig),
    .ack_i       (deq),
    .gnt_o       (pick),
    .gnt_idx_o   (pick_idx),
    .gnt_valid_o (pick_valid)
  );

  assign deq_cls_o = pick_idx;

  // ---- drain while fenced: one queue after the other, a message per cycle ----
  logic [QW-1:0] drain_q, drain_d;
  logic          drain;

  assign drain   = fenced_i & nonempty[drain_q];
  assign drain_d = (!fenced_i || drain) ? drain_q : (drain_q == QW'(NumQ - 1)) ? '0 : drain_q + 1'b1;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) drain_q <= '0;
    else         drain_q <= drain_d;
  end

  assign deq    = (match_valid_i & pick_valid) | drain;
  assign drop_o = {rx_valid_i & fenced_i, drain};

  // Word-wide, not bit by bit: Verilator writes a bit loop out per bit and per instance.
  logic [NumCls-1:0] held;

  always_comb begin
    held = '0;
    for (int o = 0; o < NumOut; o++) held = held | nonempty[o*NumCls +: NumCls];
  end

  assign stall_o = held & ~(pick & {NumCls{deq & ~drain}});

  logic [CntW-1:0] free_unused;
  logic            buf_idle;
  logic [$clog2(Depth)-1:0] head_entry, sent_entry_q;

  // The traversal stage reads the entry matched in the previous cycle.
  always_ff @(posedge clk_i) begin
    if (match_valid_i) sent_entry_q <= head_entry;
  end

  voq_buf #(
    .Depth (Depth),
    .Width (FlitW),
    .NumQ  (NumQ)
  ) u_buf (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .enq_valid_i  (enq),
    .enq_q_i      (enq_q),
    .enq_data_i   (rx_msg_i),
    .enq_ready_o  (enq_ready),
    .deq_valid_i  (deq),
    .deq_q_i      (drain ? drain_q : QW'(match_out_i) * QW'(NumCls) + QW'(pick_idx)),
    .deq_entry_o  (head_entry),
    .rd_entry_i   (sent_entry_q),
    .rd_data_o    (deq_msg_o),
    .q_nonempty_o (nonempty),
    .free_o       (free_unused),
    .idle_o       (buf_idle)
  );

  // ---- credit return (sw_crd_ret) ----
  logic crd_open, crd_idle;

  sw_crd_ret #(
    .CrdPerCls (CrdPerCls)
  ) u_crd (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .restart_i  (restart_i),
    .fenced_i   (fenced_i),
    .leave_i    (pick & {NumCls{deq & ~drain}}),
    .sunk_i     (rx_sunk_o),
    .sunk_cls_i (rx_cls[ClsW-1:0]),
    .crd_o      (rx_crd_o),
    .open_o     (crd_open),
    .idle_o     (crd_idle)
  );

  assign idle_o = buf_idle & crd_idle;

  // A sender that respects its credits never finds the buffer full and sends only defined messages;
  // nothing arrives before the credits have been advertised.
  `ASSERT(rx_respects_credits, !(enq && !enq_ready))
  `ASSERT(rx_opcode_defined, !(rx_valid_i && !fenced_i && !msg_pkg::msg_op_valid(rx_op)))
  `ASSERT(rx_after_credit_advert, !(rx_valid_i && !fenced_i && !crd_open))
  // A port restarts only with an empty buffer (at enable, or re-admitted after its drain).
  `ASSERT(restart_empty, !(restart_i && !buf_idle))
  // The allocator only matches a port to an output it requested.
  `ASSERT(match_was_requested, !(match_valid_i && !pick_valid))

endmodule
`default_nettype wire
