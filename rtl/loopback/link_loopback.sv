`default_nettype none
`include "assert.svh"

// One fabric port looped back on itself: every message that enters the port leaves it again,
// unchanged, through the same CXL-style link discipline the switch will use.
//
//   rx (from the C link) -> class decode -> one FIFO per class -> round-robin over the classes that
//   have a message and an egress credit -> register slice -> tx (to the C link)
//
// Flow control is credit based in both directions, per class, as a CXL link layer does it:
// - ingress: after reset the port returns LinkCredits credits per class (one per cycle per class),
//   and one more each time a message of that class leaves its FIFO. The sender may only send a
//   message of a class while it holds a credit for it, so the FIFOs never overflow (asserted).
// - egress: the C side returns credits for its own receive buffers on tx_crd_i; the port sends a
//   message only while it holds a credit for the message's class.
// Classes have separate FIFOs and credits, so a class without egress credit never blocks another.
module link_loopback #(
  /// credits per class this port grants its sender; also the depth of each class FIFO (messages)
  parameter int unsigned LinkCredits  = 4,
  /// largest number of egress credits per class the C side may grant (messages)
  parameter int unsigned MaxTxCredits = 64
) (
  /// fabric clock
  input  wire logic                                clk_i,
  /// synchronous reset, active low
  input  wire logic                                rst_ni,
  /// a message arrives from the link this cycle
  input  wire logic                                rx_valid_i,
  /// the arriving message (msg_pkg::msg_t)
  input  wire logic [msg_pkg::FLIT_W-1:0]          rx_msg_i,
  /// one ingress credit returned to the sender per set bit (bit = class)
  output logic      [msg_pkg::NUM_CLASSES-1:0]     rx_crd_o,
  /// a message leaves toward the link this cycle
  output logic                                     tx_valid_o,
  /// the leaving message (msg_pkg::msg_t)
  output logic      [msg_pkg::FLIT_W-1:0]          tx_msg_o,
  /// one egress credit returned by the receiver per set bit (bit = class)
  input  wire logic [msg_pkg::NUM_CLASSES-1:0]     tx_crd_i,
  /// nothing in this port will change until an input changes
  output logic                                     idle_o
);
  // One copy of the model code serves every port (Verilator would otherwise flatten 64 copies).
  /* verilator no_inline_module */

  localparam int unsigned NumCls = msg_pkg::NUM_CLASSES;
  localparam int unsigned FlitW  = msg_pkg::FLIT_W;
  localparam int unsigned InitW  = $clog2(LinkCredits + 1);
  localparam int unsigned ClsW   = $clog2(NumCls);
  localparam int unsigned CntW   = $clog2(LinkCredits + 1);
  localparam int unsigned TxCrdW = $clog2(MaxTxCredits + 1);

  if (LinkCredits < 1) begin : g_bad_credits
    $error("link_loopback: LinkCredits must be at least 1");
  end
  if (MaxTxCredits < 1) begin : g_bad_tx_credits
    $error("link_loopback: MaxTxCredits must be at least 1");
  end

  // ---- ingress: class decode and per-class FIFOs ----
  msg_pkg::opcode_t    rx_op;
  msg_pkg::class_t     rx_cls;
  logic [NumCls-1:0]   push, fifo_in_ready, fifo_out_valid, fifo_empty, pop;
  logic [NumCls*FlitW-1:0] fifo_out_data;

  assign rx_op  = rx_msg_i[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::FIELD_OPCODE_W];
  assign rx_cls = msg_pkg::msg_class(rx_op);

  always_comb begin
    push = '0;
    push[rx_cls[ClsW-1:0]] = rx_valid_i;
  end

  for (genvar c = 0; c < NumCls; c++) begin : g_cls
    logic [CntW-1:0] count_unused;
    fifo #(
      .Depth (LinkCredits),
      .Width (FlitW)
    ) u_fifo (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .in_valid_i  (push[c]),
      .in_ready_o  (fifo_in_ready[c]),
      .in_data_i   (rx_msg_i),
      .out_valid_o (fifo_out_valid[c]),
      .out_ready_i (pop[c]),
      .out_data_o  (fifo_out_data[c*FlitW +: FlitW]),
      .count_o     (count_unused),
      .empty_o     (fifo_empty[c])
    );
  end

  // ---- egress credits ----
  logic [NumCls-1:0] tx_crd_avail, take;
  for (genvar c = 0; c < NumCls; c++) begin : g_txcrd
    logic [TxCrdW-1:0] left_unused;
    credit_cnt #(
      .MaxCredits  (MaxTxCredits),
      .InitCredits (0)
    ) u_crd (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .crd_give_i  (tx_crd_i[c]),
      .crd_take_i  (take[c]),
      .crd_left_o  (left_unused),
      .crd_avail_o (tx_crd_avail[c])
    );
  end

  // ---- class arbitration into the output register slice ----
  logic [NumCls-1:0] req, gnt;
  logic [ClsW-1:0]   gnt_idx_unused;  // the one-hot grant selects the data
  logic              gnt_valid, slice_ready, fire;

  assign req  = fifo_out_valid & tx_crd_avail & {NumCls{slice_ready}};
  assign fire = gnt_valid & slice_ready;
  assign pop  = gnt & {NumCls{fire}};
  assign take = pop;

  rr_arb #(
    .N (NumCls)
  ) u_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (req),
    .ack_i       (fire),
    .gnt_o       (gnt),
    .gnt_idx_o   (gnt_idx_unused),
    .gnt_valid_o (gnt_valid)
  );

  // The granted FIFO's head, by AND-OR over the one-hot grant (an indexed part-select of the
  // NumCls*FlitW vector would synthesize as a wide shifter, three times the area).
  logic [FlitW-1:0] slice_in;
  always_comb begin
    slice_in = '0;
    for (int c = 0; c < NumCls; c++) slice_in |= {FlitW{gnt[c]}} & fifo_out_data[c*FlitW +: FlitW];
  end

  // The slice's receiver never back-pressures: every message it holds already owns a credit.
  skid_buf #(
    .Width (FlitW)
  ) u_slice (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (fire),
    .in_ready_o  (slice_ready),
    .in_data_i   (slice_in),
    .out_valid_o (tx_valid_o),
    .out_ready_i (1'b1),
    .out_data_o  (tx_msg_o)
  );

  // ---- ingress credit return: LinkCredits per class after reset, then one per pop ----
  logic [InitW-1:0]  init_q, init_d;
  logic [NumCls-1:0] crd_q, crd_d;

  always_comb begin
    init_d = init_q;
    crd_d  = pop;
    if (init_q != '0) begin
      init_d = init_q - 1'b1;
      crd_d  = '1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      init_q <= InitW'(LinkCredits);
      crd_q  <= '0;
    end else begin
      init_q <= init_d;
      crd_q  <= crd_d;
    end
  end

  assign rx_crd_o = crd_q;
  assign idle_o   = &fifo_empty & ~tx_valid_o & (init_q == '0) & ~|crd_q;

  // A sender that respects its credits never finds a full FIFO, and only sends defined messages.
  `ASSERT(rx_respects_credits, !(rx_valid_i && !fifo_in_ready[rx_cls[ClsW-1:0]]))
  `ASSERT(rx_opcode_defined, !(rx_valid_i && !msg_pkg::msg_op_valid(rx_op)))
  `ASSERT(tx_fire_has_credit, !(fire && !(|(gnt & tx_crd_avail))))

endmodule
`default_nettype wire
