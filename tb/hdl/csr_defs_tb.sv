`default_nettype none

// Test harness: shows every constant of the generated csr_pkg (its CSR_ALL list, in csr_defs.h's
// CSR_ALL_VALUES order) and msg_pkg's flags on ports, so that tb/test_csr.c can check that the RTL
// package and the C headers agree on every CSR address, field, named value and flag.
module csr_defs_tb (
  /// clock (the harness has no state; the clock and reset exist for the uniform wrapper)
  input  wire logic                              clk_i,
  /// synchronous reset, active low (unused)
  input  wire logic                              rst_ni,
  /// csr_pkg::CSR_ALL[i] at bits i*32 +: 32
  output logic      [csr_pkg::CSR_ALL_N*32-1:0]  all_o,
  /// msg_pkg's flags from bit 0: FLAG_LAST, FLAG_END, FLAG_BUF, FLAG_WR_IN_FLIGHT
  output logic      [4*msg_pkg::FLAGS_W-1:0]     flags_o,
  /// the same flags' bit numbers, 8 bits each in that order
  output logic      [31:0]                       flag_bits_o
);
  for (genvar i = 0; i < csr_pkg::CSR_ALL_N; i++) begin : g_all
    assign all_o[i*32 +: 32] = csr_pkg::CSR_ALL[i];
  end
  assign flags_o     = {msg_pkg::FLAG_WR_IN_FLIGHT, msg_pkg::FLAG_BUF, msg_pkg::FLAG_END, msg_pkg::FLAG_LAST};
  assign flag_bits_o = {8'(msg_pkg::FLAG_WR_IN_FLIGHT_BIT), 8'(msg_pkg::FLAG_BUF_BIT), 8'(msg_pkg::FLAG_END_BIT),
                        8'(msg_pkg::FLAG_LAST_BIT)};

  logic unused;
  assign unused = clk_i ^ rst_ni;

endmodule
`default_nettype wire
