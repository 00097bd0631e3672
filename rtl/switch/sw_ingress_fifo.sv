`default_nettype none
`include "assert.svh"

// One input port of the CXL switch without virtual output queues (cxl_switch with Voq = 0): the
// input-queued FIFO switch that head-of-line blocking caps at 58.6 % of line rate under uniform
// random traffic (Karol, Hluchyj and Morgan, 1987). It exists to be measured against sw_ingress;
// its ports and their meaning are sw_ingress's, but for the change of nonempty_o, which it does
// not announce (a head that leaves can uncover one for another output): the switch reads nonempty_o
// itself.
//
// A message arriving on the link goes, with its output port from the routing table, into the FIFO
// of its class: one FIFO of CrdPerCls entries per class (fifo, storage in a ram_1r1w), so the port
// holds as many messages of each class as sw_ingress and classes still never take each other's
// space. Only the head of each class's FIFO can leave: nonempty_o[o*NumCls + c] is set only while
// the head of class c goes to output o, and a head that waits for a busy output or for a credit
// holds back every message of its class behind it, whatever their outputs. When the allocator
// matches the port to an output, a round-robin over the classes whose head goes there and may be
// sent picks the message, which leaves its FIFO that cycle and is registered toward the crossbar
// for the next (the traversal stage, as in sw_ingress).
//
// Credits, routing, sinking and fencing as in sw_ingress: adv_i (at most CrdPerCls) credits per
// class advertised at (re)start, one returned per message that leaves or is sunk for want of a route; the switch
// takes no request from a fenced port, which drops what arrives, returns no credit and drains its
// FIFOs one message per cycle, class after class, counting every dropped message (drop_o).
module sw_ingress_fifo #(
  /// number of output ports of the switch
  parameter int unsigned NumOut    = 4,
  /// credits (FIFO entries) per message class
  parameter int unsigned CrdPerCls = 4,
  localparam int unsigned NumCls   = msg_pkg::NUM_CLASSES,
  localparam int unsigned FlitW    = msg_pkg::FLIT_W,
  localparam int unsigned OutW     = (NumOut > 1) ? $clog2(NumOut) : 1,
  localparam int unsigned ClsW     = $clog2(NumCls),
  localparam int unsigned AdvW     = $clog2(CrdPerCls + 1)
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
  /// (re)start: advertise adv_i credits per class again, from the next cycle
  input  wire logic                     restart_i,
  /// credits per class to advertise (1 .. CrdPerCls; the switch's CSR CRD_ADV)
  input  wire logic [AdvW-1:0]          adv_i,
  /// the port's node is failed: request nothing, drop arrivals, drain the FIFOs
  input  wire logic                     fenced_i,
  /// messages from the fenced node dropped this cycle (one arriving, one drained)
  output logic      [1:0]               drop_o,
  /// per output and class: the head of the class's FIFO goes to the output (the switch's credit
  /// turn arbiters look at it)
  output logic      [NumOut*NumCls-1:0] nonempty_o,
  /// per class: a message of the class waits in its FIFO and none of it left this cycle
  output logic      [NumCls-1:0]        stall_o,
  /// the allocator matched this port this cycle
  input  wire logic                     match_valid_i,
  /// the output it is matched to
  input  wire logic [OutW-1:0]          match_out_i,
  /// per class: the matched output can take this class's head from this port now
  input  wire logic [NumCls-1:0]        match_elig_i,
  /// the class of the message that leaves toward the matched output (valid with match_valid_i)
  output logic      [ClsW-1:0]          deq_cls_o,
  /// the message matched in the previous cycle (traversal stage)
  output logic      [FlitW-1:0]         deq_msg_o,
  /// nothing in this port will change until an input changes
  output logic                          idle_o
);
  localparam int unsigned EntW  = FlitW + OutW;
  localparam int unsigned CntW  = $clog2(CrdPerCls + 1);

  if (NumOut < 2) begin : g_bad_out
    $error("sw_ingress_fifo: NumOut must be at least 2");
  end
  if (CrdPerCls < 1) begin : g_bad_crd
    $error("sw_ingress_fifo: CrdPerCls must be at least 1");
  end

  // ---- receive: class decode, push into the class's FIFO with the route ----
  msg_pkg::opcode_t rx_op;
  msg_pkg::class_t  rx_cls;
  logic             enq;

  assign rx_op     = rx_msg_i[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::FIELD_OPCODE_W];
  assign rx_cls    = msg_pkg::msg_class(rx_op);
  assign enq       = rx_valid_i & rx_route_valid_i & ~fenced_i;
  assign rx_sunk_o = rx_valid_i & ~rx_route_valid_i & ~fenced_i;

  // ---- one FIFO per class ----
  logic [NumCls-1:0]      push, pop, head_valid, in_ready, empty;
  logic [NumCls*EntW-1:0] head;
  logic [ClsW-1:0]        deq_sel;
  logic                   deq;

  for (genvar c = 0; c < NumCls; c++) begin : g_cls
    logic [CntW-1:0] count_unused;

    assign push[c] = enq && rx_cls[ClsW-1:0] == ClsW'(c);
    assign pop[c]  = deq && deq_sel == ClsW'(c);

    fifo #(
      .Depth (CrdPerCls),
      .Width (EntW)
    ) u_fifo (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .in_valid_i  (push[c]),
      .in_ready_o  (in_ready[c]),
      .in_data_i   ({rx_route_out_i, rx_msg_i}),
      .out_valid_o (head_valid[c]),
      .out_ready_i (pop[c]),
      .out_data_o  (head[c*EntW +: EntW]),
      .count_o     (count_unused),
      .empty_o     (empty[c])
    );
  end

  // ---- where each head goes; requests and the class of the matched output ----
  logic [NumOut*NumCls-1:0] nonempty;
  logic [NumCls-1:0]        elig, pick;
  logic [ClsW-1:0]          pick_idx;
  logic                     pick_valid;

  always_comb begin
    for (int o = 0; o < NumOut; o++)
      for (int c = 0; c < NumCls; c++)
        nonempty[o*NumCls + c] = head_valid[c] & (head[c*EntW + FlitW +: OutW] == OutW'(o));
  end

  assign nonempty_o = nonempty;

  // No request for the round-robin while unmatched (its pointer moves only when a message leaves).
  assign elig = match_elig_i & {NumCls{match_valid_i}};

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

  // ---- drain while fenced: one class after the other, a message per cycle ----
  logic [ClsW-1:0] drain_q, drain_d;
  logic            drain;

  assign drain   = fenced_i & head_valid[drain_q];
  assign drain_d = (!fenced_i || drain) ? drain_q : (drain_q == ClsW'(NumCls - 1)) ? '0 : drain_q + 1'b1;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) drain_q <= '0;
    else         drain_q <= drain_d;
  end

  assign deq     = (match_valid_i & pick_valid) | drain;
  assign deq_sel = drain ? drain_q : pick_idx;
  assign drop_o  = {rx_valid_i & fenced_i, drain};

  // The matched head is registered for the traversal stage (the class FIFOs reuse its slot).
  logic [FlitW-1:0] head_msg, sent_msg_q;

  always_comb begin
    head_msg = '0;
    for (int c = 0; c < NumCls; c++)
      if (ClsW'(c) == pick_idx) head_msg = head[c*EntW +: FlitW];
  end

  always_ff @(posedge clk_i) begin
    if (match_valid_i) sent_msg_q <= head_msg;
  end

  assign deq_msg_o = sent_msg_q;

  assign stall_o = head_valid & ~(pick & {NumCls{deq & ~drain}});

  // ---- credit return (crd_ret) ----
  // One credit per message that leaves the buffer (at most one a cycle) and per message sunk.
  logic              crd_open, crd_idle;
  logic [NumCls-1:0] leave;
  assign leave = pick & {NumCls{deq & ~drain}};

  crd_ret #(
    .CrdPerCls    (CrdPerCls),
    .RetW         (1),
    .Headroom     (1),
    .StartAtReset (1'b0)
  ) u_crd (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .restart_i  (restart_i),
    .adv_i      (adv_i),
    .fenced_i   (fenced_i),
    .ret_i      (leave),
    .sunk_i     (rx_sunk_o),
    .sunk_cls_i (rx_cls[ClsW-1:0]),
    .crd_o      (rx_crd_o),
    .open_o     (crd_open),
    .idle_o     (crd_idle)
  );
  // At most one message of a class leaves per cycle.
  `ASSERT(leave_at_most_one, $onehot0(leave))

  logic buf_idle;
  assign buf_idle = &empty;
  assign idle_o = buf_idle & crd_idle;

  // A sender that respects its credits never finds its class's FIFO full and sends only defined
  // messages; nothing arrives before the credits have been advertised.
  `ASSERT(rx_respects_credits, (push & ~in_ready) == '0)
  `ASSERT(rx_opcode_defined, !(rx_valid_i && !fenced_i && !msg_pkg::msg_op_valid(rx_op)))
  `ASSERT(rx_after_credit_advert, !(rx_valid_i && !fenced_i && !crd_open))
  // A port restarts only with empty FIFOs (at enable, or re-admitted after its drain).
  `ASSERT(restart_empty, !(restart_i && !buf_idle))
  // The allocator only matches a port to an output it requested; never a fenced one; what the
  // matched output can take from the port, the port holds for it.
  `ASSERT(match_was_requested, !(match_valid_i && !pick_valid))
  `ASSERT(fenced_not_matched, !(fenced_i && match_valid_i))
  `ASSERT(elig_is_held, (elig & ~nonempty[32'(match_out_i)*NumCls +: NumCls]) == '0)

endmodule
`default_nettype wire
