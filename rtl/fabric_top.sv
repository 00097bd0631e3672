`default_nettype none

// The fabric's Verilated top: every CN and MN port of the fabric, joined by the CXL switch
// (rtl/switch/cxl_switch.sv). The Logging Units (one per CN, on the CN's side of its port) and the
// directory controllers (one per MN, on the MN ports) are Verilated models of their own that the
// C side connects to these ports (docs/architecture.md sections 11d and 11f): one directory model
// serves every shape, where inside this top each fabric shape would build it again.
//
// Port p is node p for p < NumCn (CN p) and node MN_BASE + (p - NumCn) for the others (MN p-NumCn).
// Each port speaks the CXL-style link discipline: one message per cycle each way, per-class
// credits both ways, and a link-layer heartbeat (rx_hb_i) from a live node whose link is
// otherwise quiet. The switch's CSR port is the management interface: the C side writes the
// routing table and CTRL.ENABLE at initialization, and software (the Configuration Manager)
// reads and clears Viral_Status through it.
//
// Vectors are flattened per port: port p's message is bits [p*FLIT_W +: FLIT_W], its credit bits
// [p*NUM_CLASSES +: NUM_CLASSES] (bit = class number).
module fabric_top #(
  /// number of compute-node ports
  parameter int unsigned NumCn        = 4,
  /// number of memory-node ports
  parameter int unsigned NumMn        = 2,
  /// switch input buffer entries per class and port: the most credits per class a port may
  /// advertise (the C side sets how many it does, CSR CRD_ADV, from the links' round trip)
  parameter int unsigned LinkCredits  = 128,
  /// largest number of credits per class the C side may grant a port (messages)
  parameter int unsigned MaxTxCredits = 128,
  /// iSLIP iterations per cycle
  parameter int unsigned Iters        = 3,
  localparam int unsigned NumPorts    = NumCn + NumMn,
  localparam int unsigned FlitW       = msg_pkg::FLIT_W,
  localparam int unsigned NumCls      = msg_pkg::NUM_CLASSES
) (
  /// fabric clock
  input  wire logic                         clk_i,
  /// synchronous reset, active low
  input  wire logic                         rst_ni,
  /// the fabric cycle count (failure-detection timers)
  input  wire logic [31:0]                  now_i,
  /// per port: a message arrives from the C link
  input  wire logic [NumPorts-1:0]          rx_valid_i,
  /// per port: the arriving message
  input  wire logic [NumPorts*FlitW-1:0]    rx_msg_i,
  /// per port: a link-layer heartbeat arrives
  input  wire logic [NumPorts-1:0]          rx_hb_i,
  /// per port and class: an ingress credit returned to the C sender
  output logic      [NumPorts*NumCls-1:0]   rx_crd_o,
  /// per port: a message leaves toward the C link
  output logic      [NumPorts-1:0]          tx_valid_o,
  /// per port: the leaving message
  output logic      [NumPorts*FlitW-1:0]    tx_msg_o,
  /// per port and class: an egress credit returned by the C receiver
  input  wire logic [NumPorts*NumCls-1:0]   tx_crd_i,
  /// switch CSR request
  input  wire logic                         csr_valid_i,
  /// the request is a write
  input  wire logic                         csr_write_i,
  /// CSR word address
  input  wire logic [15:0]                  csr_addr_i,
  /// CSR write data
  input  wire logic [31:0]                  csr_wdata_i,
  /// CSR response (the cycle after the request)
  output logic                              csr_rvalid_o,
  /// CSR read data
  output logic      [31:0]                  csr_rdata_o,
  /// CSR access refused
  output logic                              csr_err_o,
  /// a failure timer runs
  output logic                              timer_valid_o,
  /// cycles until the earliest failure timer expires
  output logic      [31:0]                  timer_left_o,
  /// nothing in the fabric will change until an input other than now_i changes, or for
  /// timer_left_o cycles while timer_valid_o (the kernel may skip cycles)
  output logic                              idle_o
);
  cxl_switch #(
    .NumCn        (NumCn),
    .NumMn        (NumMn),
    .CrdPerCls    (LinkCredits),
    .MaxTxCredits (MaxTxCredits),
    .Iters        (Iters)
  ) u_switch (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .now_i         (now_i),
    .rx_valid_i    (rx_valid_i),
    .rx_msg_i      (rx_msg_i),
    .rx_hb_i       (rx_hb_i),
    .rx_crd_o      (rx_crd_o),
    .tx_valid_o    (tx_valid_o),
    .tx_msg_o      (tx_msg_o),
    .tx_crd_i      (tx_crd_i),
    .csr_valid_i   (csr_valid_i),
    .csr_write_i   (csr_write_i),
    .csr_addr_i    (csr_addr_i),
    .csr_wdata_i   (csr_wdata_i),
    .csr_rvalid_o  (csr_rvalid_o),
    .csr_rdata_o   (csr_rdata_o),
    .csr_err_o     (csr_err_o),
    .timer_valid_o (timer_valid_o),
    .timer_left_o  (timer_left_o),
    .idle_o        (idle_o)
  );

endmodule
`default_nettype wire
