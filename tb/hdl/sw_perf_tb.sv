`default_nettype none
// Test harness of sw_perf, the CXL switch's performance counters, at 4 ports (its smallest
// shape); see the block for the meaning of its ports, which keep their names here.
module sw_perf_tb (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic [3:0]  tx_i,
  input  wire logic [15:0] tx_cls_i,
  input  wire logic [31:0] tx_bytes_i,
  input  wire logic [43:0] starve_i,
  input  wire logic [43:0] stall_i,
  input  wire logic        csr_valid_i,
  input  wire logic        csr_write_i,
  input  wire logic [15:0] csr_addr_i,
  output logic             csr_hit_o,
  output logic             csr_err_o,
  output logic      [31:0] csr_rdata_o
);

  sw_perf #(.NumPorts(4)) u_perf (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .tx_i        (tx_i),
    .tx_cls_i    (tx_cls_i),
    .tx_bytes_i  (tx_bytes_i),
    .starve_i    (starve_i),
    .stall_i     (stall_i),
    .csr_valid_i (csr_valid_i),
    .csr_write_i (csr_write_i),
    .csr_addr_i  (csr_addr_i),
    .csr_hit_o   (csr_hit_o),
    .csr_err_o   (csr_err_o),
    .csr_rdata_o (csr_rdata_o)
  );

endmodule
`default_nettype wire
