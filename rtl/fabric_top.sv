`default_nettype none

// The one Verilated top of the system: every CN and MN port of the fabric.
//
// Port p is node p for p < NumCn (CN p) and node MN_BASE + (p - NumCn) for the others (MN p-NumCn).
// Each port speaks the CXL-style link discipline of link_loopback: one message per cycle each way,
// per-class credits both ways. In this first stage every port loops its messages back to itself;
// the CXL switch, Logging Units and directory controllers replace the loopback in later stages
// without changing this interface.
//
// Vectors are flattened per port: port p's message is bits [p*FLIT_W +: FLIT_W], its credit bits
// [p*NUM_CLASSES +: NUM_CLASSES] (bit = class number).
module fabric_top #(
  /// number of compute-node ports
  parameter int unsigned NumCn        = 4,
  /// number of memory-node ports
  parameter int unsigned NumMn        = 2,
  /// credits per class each port grants its sender (messages)
  parameter int unsigned LinkCredits  = 4,
  /// largest number of credits per class the C side may grant a port (messages)
  parameter int unsigned MaxTxCredits = 64,
  localparam int unsigned NumPorts    = NumCn + NumMn,
  localparam int unsigned FlitW       = msg_pkg::FLIT_W,
  localparam int unsigned NumCls      = msg_pkg::NUM_CLASSES
) (
  /// fabric clock
  input  wire logic                         clk_i,
  /// synchronous reset, active low
  input  wire logic                         rst_ni,
  /// per port: a message arrives from the C link
  input  wire logic [NumPorts-1:0]          rx_valid_i,
  /// per port: the arriving message
  input  wire logic [NumPorts*FlitW-1:0]    rx_msg_i,
  /// per port and class: an ingress credit returned to the C sender
  output logic      [NumPorts*NumCls-1:0]   rx_crd_o,
  /// per port: a message leaves toward the C link
  output logic      [NumPorts-1:0]          tx_valid_o,
  /// per port: the leaving message
  output logic      [NumPorts*FlitW-1:0]    tx_msg_o,
  /// per port and class: an egress credit returned by the C receiver
  input  wire logic [NumPorts*NumCls-1:0]   tx_crd_i,
  /// nothing in the fabric will change until an input changes (the kernel may skip cycles)
  output logic                              idle_o
);
  if (NumCn < 1 || NumCn > msg_pkg::MAX_CN) begin : g_bad_cn
    $error("fabric_top: NumCn must be in 1..MAX_CN");
  end
  if (NumMn < 1 || NumMn > msg_pkg::MAX_MN) begin : g_bad_mn
    $error("fabric_top: NumMn must be in 1..MAX_MN");
  end

  logic [NumPorts-1:0] port_idle;

  for (genvar p = 0; p < NumPorts; p++) begin : g_port
    link_loopback #(
      .LinkCredits  (LinkCredits),
      .MaxTxCredits (MaxTxCredits)
    ) u_port (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .rx_valid_i (rx_valid_i[p]),
      .rx_msg_i   (rx_msg_i[p*FlitW +: FlitW]),
      .rx_crd_o   (rx_crd_o[p*NumCls +: NumCls]),
      .tx_valid_o (tx_valid_o[p]),
      .tx_msg_o   (tx_msg_o[p*FlitW +: FlitW]),
      .tx_crd_i   (tx_crd_i[p*NumCls +: NumCls]),
      .idle_o     (port_idle[p])
    );
  end

  assign idle_o = &port_idle;

endmodule
`default_nettype wire
