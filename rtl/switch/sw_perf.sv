`default_nettype none

// Performance counters of the CXL switch, four 32-bit counters (wrapping) per port and class,
// read through the switch's CSR port at word address 0x1000 + port*64 + class*4 + k:
//   k = 0  MSGS    messages of the class that left the port toward its node
//   k = 1  BYTES   their bytes on the link (HEADER_BYTES + 8 per meaningful data word, as msg_bytes)
//   k = 2  STARVE  cycles a message of the class waited for the port while the port held no credit
//                  of the class from its node (credit starvation, output side)
//   k = 3  STALL   cycles a message of the class waited in the port's input buffer and none of the
//                  class left it (input side: blocked by allocation, credits or its turn)
// Writing a counter is refused; so are addresses of ports or classes that do not exist.
// csr_hit_o and csr_err_o answer the request combinationally; csr_rdata_o is registered: the
// counter the read of the last cycle named, as that cycle's edge found it (0 after any other
// access), so that the switch answers it the cycle after the request, as its other registers.
module sw_perf #(
  /// number of ports
  parameter int unsigned NumPorts = 6,
  localparam int unsigned NumCls  = msg_pkg::NUM_CLASSES,
  localparam int unsigned ClsW    = $clog2(NumCls),
  localparam int unsigned IdxW    = $clog2(NumCls * 4)
) (
  /// switch clock
  input  wire logic                       clk_i,
  /// synchronous reset, active low
  input  wire logic                       rst_ni,
  /// per port: a message left toward the node
  input  wire logic [NumPorts-1:0]        tx_i,
  /// per port: its class
  input  wire logic [NumPorts*ClsW-1:0]   tx_cls_i,
  /// per port: its bytes
  input  wire logic [NumPorts*8-1:0]      tx_bytes_i,
  /// per port and class (p*NumCls + c): starved of credits this cycle
  input  wire logic [NumPorts*NumCls-1:0] starve_i,
  /// per port and class: stalled in the input buffer this cycle
  input  wire logic [NumPorts*NumCls-1:0] stall_i,
  /// register access for this block
  input  wire logic                       csr_valid_i,
  /// the access is a write
  input  wire logic                       csr_write_i,
  /// word address
  input  wire logic [15:0]                csr_addr_i,
  /// the address is one of this block's registers
  output logic                            csr_hit_o,
  /// the access is refused
  output logic                            csr_err_o,
  /// the data of the read the last cycle made (0 unless it hit)
  output logic      [31:0]                csr_rdata_o
);
  localparam logic [15:0] Base = 16'h1000;

  if (NumPorts < 4 || NumPorts > 64) begin : g_bad_ports
    $error("sw_perf: NumPorts must be in 4..64");
  end

  // One sw_perf_port per port; the addressed one samples the counter of the addressed class and
  // kind at the edge of a read, and the next cycle returns it.
  logic [15:0]            off;
  logic [9:0]             port;
  logic [3:0]             cls;
  logic [NumPorts-1:0]    rd;
  logic [NumPorts*32-1:0] rd_data;
  logic                   rd_q;
  logic [9:0]             port_q;

  assign off  = csr_addr_i - Base;
  assign port = off[15:6];
  assign cls  = off[5:2];

  for (genvar p = 0; p < NumPorts; p++) begin : g_port
    sw_perf_port u_port (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .tx_i       (tx_i[p]),
      .tx_cls_i   (tx_cls_i[p*ClsW +: ClsW]),
      .tx_bytes_i (tx_bytes_i[p*8 +: 8]),
      .starve_i   (starve_i[p*NumCls +: NumCls]),
      .stall_i    (stall_i[p*NumCls +: NumCls]),
      .rd_i       (rd[p]),
      .rd_idx_i   (IdxW'({cls, off[1:0]})),
      .rd_data_o  (rd_data[p*32 +: 32])
    );
  end

  always_comb begin
    csr_hit_o = csr_valid_i && csr_addr_i >= Base && port < 10'(NumPorts) && cls < 4'(NumCls);
    csr_err_o = csr_hit_o && csr_write_i;
    rd        = (csr_hit_o && !csr_write_i) ? NumPorts'(1) << port : '0;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      rd_q   <= 1'b0;
      port_q <= '0;
    end else begin
      rd_q   <= rd != '0;
      port_q <= port;
    end
  end

  // (A statement under the test, not a ?: expression: Verilated, the whole rd_data vector is then
  // gathered only in a cycle that answers a read, not at every evaluation.)
  always_comb begin
    csr_rdata_o = '0;
    if (rd_q) csr_rdata_o = rd_data[32'(port_q)*32 +: 32];
  end

endmodule
`default_nettype wire
