`default_nettype none
`include "assert.svh"

// Send port of a node on a CXL link (the Logging Unit's, the directory controller's): NumSrc
// message sources share the link, one message per cycle, a message leaving only on a credit of its
// class from the link partner (per-class credit_cnt, starting from zero: the partner grants its
// buffers). A round-robin pick among the sources whose
// head message's class holds a credit, so a class without credits never blocks another. The
// picked message goes into the output register (tx_valid_o / tx_msg_o) and leaves the next cycle.
module link_tx #(
  /// number of message sources (>= 1)
  parameter int unsigned NumSrc       = 2,
  /// largest number of credits per class the link partner may grant
  parameter int unsigned MaxTxCredits = 64,
  localparam int unsigned FlitW  = msg_pkg::FLIT_W,
  localparam int unsigned NumCls = msg_pkg::NUM_CLASSES
) (
  /// the node's clock
  input  wire logic                     clk_i,
  /// synchronous reset, active low: no credits
  input  wire logic                     rst_ni,
  /// per source: a message is waiting
  input  wire logic [NumSrc-1:0]        src_valid_i,
  /// per source: the message (bits s*FLIT_W +: FLIT_W, msg_pkg::msg_t)
  input  wire logic [NumSrc*FlitW-1:0]  src_msg_i,
  /// per source: its message is taken this cycle
  output logic      [NumSrc-1:0]        src_ready_o,
  /// a message leaves toward the link (registered)
  output logic                          tx_valid_o,
  /// the leaving message
  output logic      [FlitW-1:0]         tx_msg_o,
  /// per class: a credit returned by the link partner
  input  wire logic [NumCls-1:0]        tx_crd_i,
  /// simulation only (0 in hardware, ignored by synthesis): per class (bits 8c +: 8), the credits
  /// returned at the cycles the simulation skipped before this one (credit_cnt's crd_skip_i)
  input  wire logic [NumCls*8-1:0]      tx_crd_skip_i,
  /// nothing in the output register
  output logic                          idle_o
);
  localparam int unsigned SrcW = (NumSrc > 1) ? $clog2(NumSrc) : 1;

  if (NumSrc < 1) begin : g_bad_src
    $error("link_tx: NumSrc must be at least 1");
  end
  if (MaxTxCredits < 1 || MaxTxCredits > 255) begin : g_bad_crd
    $error("link_tx: MaxTxCredits must be in 1..255 (a class's skipped credits are 8 bits)");
  end

  logic [NumCls-1:0] crd_avail, take;
  logic [NumSrc-1:0] req, gnt;
  logic [SrcW-1:0]   gidx;
  logic              gvalid;
  msg_pkg::opcode_t  ops [NumSrc];
  msg_pkg::opcode_t  gop;
  logic              valid_q;
  logic [FlitW-1:0]  msg_q;

  // The credits of every class in one counter instance: it does nothing at an edge that neither
  // returns nor spends one.
  logic [NumCls*$clog2(MaxTxCredits + 1)-1:0] left_unused;
  credit_cnt #(.MaxCredits(MaxTxCredits), .InitCredits(0), .Num(NumCls), .SkipW(8)) u_crd (
    .clk_i (clk_i), .rst_ni (rst_ni), .crd_give_i (tx_crd_i), .crd_take_i (take),
    .crd_skip_i (tx_crd_skip_i), .crd_left_o (left_unused), .crd_avail_o (crd_avail)
  );

  for (genvar s = 0; s < NumSrc; s++) begin : g_req
    assign ops[s] = src_msg_i[s*FlitW + msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::OPCODE_W];
    assign req[s] = src_valid_i[s] & crd_avail[msg_pkg::msg_class(ops[s])];
  end

  rr_arb #(.N(NumSrc)) u_arb (
    .clk_i (clk_i), .rst_ni (rst_ni), .req_i (req), .ack_i (1'b1),
    .gnt_o (gnt), .gnt_idx_o (gidx), .gnt_valid_o (gvalid)
  );
  assign gop         = ops[gidx];
  assign src_ready_o = gnt;

  always_comb begin
    take = '0;
    if (gvalid) take[msg_pkg::msg_class(gop)] = 1'b1;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) valid_q <= 1'b0;
    else valid_q <= gvalid;
  end
  // The granted message is selected where it is loaded (a Verilated model then moves it only in a
  // cycle that sends one).
  always_ff @(posedge clk_i) begin
    if (gvalid) msg_q <= src_msg_i[gidx*FlitW +: FlitW];
  end

  assign tx_valid_o = valid_q;
  assign tx_msg_o   = msg_q;
  assign idle_o     = ~valid_q;

endmodule
`default_nettype wire
