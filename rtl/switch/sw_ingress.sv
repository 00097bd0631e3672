`default_nettype none
`include "assert.svh"

// One input port of the CXL switch: the link's receive side.
//
// A message arriving on the link goes into this port's shared buffer, on the virtual output queue of
// its (output port, class); the route comes from the switch's routing table. This block manages the
// buffer's entries (voq_buf) and tells the switch which entry takes the message (enq_o,
// enq_entry_o); the switch keeps the words (sw_words). The
// port shows which queues hold a message (nonempty_o, and each cycle's change of it, ne_set_* and
// ne_clr_*); the switch's outputs turn that into the allocator's requests (sw_egress: a queue of the
// output holds a message of a class the output may take from this port now, by its credits and
// turns). When the allocator matches the port to an output, a round-robin over the classes that
// output can take from it (match_elig_i) picks the message, which leaves its queue that cycle (the
// allocation stage). The port registers the entry that held it (rd_entry_o), whose word the switch
// reads out of the buffer memory the next cycle, toward the crossbar (the traversal stage); voq_buf
// hands a freed entry out again no earlier than that cycle.
//
// Credits: the port advertises adv_i credits per class (at most CrdPerCls; the switch's CSR
// CRD_ADV) when the switch (re)starts it (restart_i: at enable, and when its node is re-admitted
// after a failure), one per cycle per class as a CXL link advertises its buffers, and returns one
// each time a message of that class leaves the buffer, or is sunk because its destination has no
// route. The buffer holds CrdPerCls * NUM_CLASSES messages, so a sender that respects its credits
// never finds it full and no class can take another's space: a request can never block a response
// here.
//
// Fenced (fenced_i: the switch declared the port's node failed): the switch takes no request from
// it; the port drops whatever arrives, returns no credit, and drains its buffer, one message per
// cycle, scanning the queues in turn; every dropped message is counted (drop_o).
module sw_ingress #(
  /// number of output ports of the switch
  parameter int unsigned NumOut    = 4,
  /// credits (buffer entries) per message class
  parameter int unsigned CrdPerCls = 4,
  localparam int unsigned NumCls   = msg_pkg::NUM_CLASSES,
  localparam int unsigned OpW      = msg_pkg::FIELD_OPCODE_W,
  localparam int unsigned OutW     = (NumOut > 1) ? $clog2(NumOut) : 1,
  localparam int unsigned ClsW     = $clog2(NumCls),
  localparam int unsigned QW       = $clog2(NumOut * NumCls),
  localparam int unsigned EntryW   = $clog2(CrdPerCls * NumCls),
  localparam int unsigned AdvW     = $clog2(CrdPerCls + 1)
) (
  /// switch clock
  input  wire logic                     clk_i,
  /// synchronous reset, active low
  input  wire logic                     rst_ni,
  /// a message arrives from the link
  input  wire logic                     rx_valid_i,
  /// the arriving message's opcode (the switch keeps its word: sw_words)
  input  wire logic [OpW-1:0]           rx_op_i,
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
  /// the port's node is failed: request nothing, drop arrivals, drain the buffer
  input  wire logic                     fenced_i,
  /// messages from the fenced node dropped this cycle (one arriving, one drained)
  output logic      [1:0]               drop_o,
  /// per output and class, row-major (o*NumCls + c): a queue holds a message
  output logic      [NumOut*NumCls-1:0] nonempty_o,
  /// this cycle sets bit ne_set_q_o of nonempty_o (from the next cycle on)
  output logic                          ne_set_o,
  /// the queue (o*NumCls + c) whose bit ne_set_o sets
  output logic      [QW-1:0]            ne_set_q_o,
  /// this cycle clears bit ne_clr_q_o of nonempty_o (from the next cycle on)
  output logic                          ne_clr_o,
  /// the queue whose bit ne_clr_o clears
  output logic      [QW-1:0]            ne_clr_q_o,
  /// per class: a message of the class waits in the buffer and none of it left this cycle
  output logic      [NumCls-1:0]        stall_o,
  /// the allocator matched this port this cycle
  input  wire logic                     match_valid_i,
  /// the output it is matched to
  input  wire logic [OutW-1:0]          match_out_i,
  /// per class: the matched output can take a message of the class from this port now (a queue
  /// holds one, and the output's credits and turns allow it)
  input  wire logic [NumCls-1:0]        match_elig_i,
  /// the class of the message that leaves toward the matched output (valid with match_valid_i)
  output logic      [ClsW-1:0]          deq_cls_o,
  /// the arriving message goes into the buffer this cycle ...
  output logic                          enq_o,
  /// ... in this entry (the switch writes the message there)
  output logic      [EntryW-1:0]        enq_entry_o,
  /// the entry of the message matched in the previous cycle, whose word the traversal stage reads
  output logic      [EntryW-1:0]        rd_entry_o,
  /// nothing in this port will change until an input changes
  output logic                          idle_o
);
  localparam int unsigned NumQ  = NumOut * NumCls;
  localparam int unsigned Depth = CrdPerCls * NumCls;
  localparam int unsigned CntW  = $clog2(Depth + 1);
  localparam int unsigned OccW  = $clog2(CrdPerCls + 1);

  if (NumOut < 2) begin : g_bad_out
    $error("sw_ingress: NumOut must be at least 2");
  end
  if (CrdPerCls < 1) begin : g_bad_crd
    $error("sw_ingress: CrdPerCls must be at least 1");
  end

  // ---- receive: class decode, enqueue on (route, class) ----
  // Decoded only when a message arrives: an idle link costs a test.
  msg_pkg::opcode_t rx_op;
  msg_pkg::class_t  rx_cls;
  logic             enq, enq_ready;
  logic [QW-1:0]    enq_q;

  assign rx_op = rx_op_i;

  always_comb begin
    rx_cls    = '0;
    enq       = 1'b0;
    enq_q     = '0;
    rx_sunk_o = 1'b0;
    if (rx_valid_i) begin
      rx_cls    = msg_pkg::msg_class(rx_op);
      enq       = rx_route_valid_i & ~fenced_i;
      enq_q     = QW'(rx_route_out_i) * QW'(NumCls) + QW'(rx_cls);
      rx_sunk_o = ~rx_route_valid_i & ~fenced_i;
    end
  end

  // ---- the class of the matched output ----
  logic [NumQ-1:0]   nonempty;
  logic [NumCls-1:0] elig, pick;
  logic [ClsW-1:0]   pick_idx;
  logic              pick_valid, deq;

  assign nonempty_o = nonempty;
  // The round-robin sees no request while the port is unmatched (its pointer moves only when a
  // message leaves, so this changes nothing it decides).
  assign elig       = match_elig_i & {NumCls{match_valid_i}};

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
  // The queue drained is (drain_out_q, drain_cls_q), stepping through the classes of an output,
  // then to the next output: queue number drain_out_q * NumCls + drain_cls_q counting up, wrapping.
  logic [OutW-1:0] drain_out_q, drain_out_d;
  logic [ClsW-1:0] drain_cls_q, drain_cls_d;
  logic [QW-1:0]   drain_q;
  logic            drain;

  assign drain_q = QW'(drain_out_q) * QW'(NumCls) + QW'(drain_cls_q);
  assign drain   = fenced_i & nonempty[drain_q];

  always_comb begin
    drain_out_d = drain_out_q;
    drain_cls_d = drain_cls_q;
    if (fenced_i && !drain) begin
      if (drain_cls_q != ClsW'(NumCls - 1)) begin
        drain_cls_d = drain_cls_q + 1'b1;
      end else begin
        drain_cls_d = '0;
        drain_out_d = (drain_out_q == OutW'(NumOut - 1)) ? '0 : drain_out_q + 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      drain_out_q <= '0;
      drain_cls_q <= '0;
    end else begin
      drain_out_q <= drain_out_d;
      drain_cls_q <= drain_cls_d;
    end
  end

  assign deq    = (match_valid_i & pick_valid) | drain;
  assign drop_o = {rx_valid_i & fenced_i, drain};

  // ---- per class: messages in the buffer (for stall_o), counted as they enter and leave ----
  // Cheaper than OR-ing the class's bit of every output's queues each cycle, and the same.
  logic [NumCls*OccW-1:0] occ_q, occ_d;
  logic [NumCls-1:0]      held;
  logic [ClsW-1:0]        deq_cls;

  assign deq_cls = drain ? drain_cls_q : pick_idx;

  always_comb begin
    occ_d = occ_q;
    if (enq) occ_d[32'(rx_cls[ClsW-1:0])*OccW +: OccW] = occ_d[32'(rx_cls[ClsW-1:0])*OccW +: OccW] + OccW'(1);
    if (deq) occ_d[32'(deq_cls)*OccW +: OccW] = occ_d[32'(deq_cls)*OccW +: OccW] - OccW'(1);
  end

  always_comb begin
    held = '0;
    if (occ_q != '0)
      for (int c = 0; c < NumCls; c++) held[c] = occ_q[c*OccW +: OccW] != '0;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) occ_q <= '0;
    else         occ_q <= occ_d;
  end

  assign stall_o = held & ~(pick & {NumCls{deq & ~drain}});

  logic [CntW-1:0] free_unused;
  logic            buf_idle;
  logic [QW-1:0]   deq_q;

  assign deq_q      = drain ? drain_q : QW'(match_out_i) * QW'(NumCls) + QW'(pick_idx);
  assign ne_set_q_o = enq_q;
  assign ne_clr_q_o = deq_q;
  logic [EntryW-1:0] head_entry, sent_entry_q;

  // The traversal stage reads the entry matched in the previous cycle.
  always_ff @(posedge clk_i) begin
    if (match_valid_i) sent_entry_q <= head_entry;
  end

  // The buffer's own enqueue (q_set_o): the command, once voq_buf has checked it.
  assign enq_o      = ne_set_o;
  assign rd_entry_o = sent_entry_q;

  voq_buf #(
    .Depth (Depth),
    .NumQ  (NumQ)
  ) u_buf (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .enq_valid_i  (enq),
    .enq_q_i      (enq_q),
    .enq_entry_o  (enq_entry_o),
    .enq_ready_o  (enq_ready),
    .deq_valid_i  (deq),
    .deq_q_i      (deq_q),
    .deq_entry_o  (head_entry),
    .q_nonempty_o (nonempty),
    .q_set_o      (ne_set_o),
    .q_clr_o      (ne_clr_o),
    .free_o       (free_unused),
    .idle_o       (buf_idle)
  );

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
  // A fenced port is never matched; what the matched output can take from it, it holds.
  `ASSERT(fenced_not_matched, !(fenced_i && match_valid_i))
  `ASSERT(elig_is_held, (elig & ~nonempty[32'(match_out_i)*NumCls +: NumCls]) == '0)
  // The per-class counts are the buffer's contents class by class, never more than the credits
  // advertised for the class.
  `ASSERT(occupancy_in_range, !(enq && !deq && occ_q[32'(rx_cls[ClsW-1:0])*OccW +: OccW] >= OccW'(adv_i)))

endmodule
`default_nettype wire
