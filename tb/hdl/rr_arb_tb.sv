`default_nettype none
// Test harness of rr_arb: one instance per parameter set (<set> = n<N>).
// Each instance's ports are its block's ports renamed <set>_<port>; see the block for their
// meaning. One Verilated model covers the whole parameter matrix.
module rr_arb_tb (
  /// Clock of every instance.
  input  wire logic        clk_i,
  /// Synchronous active-low reset of every instance.
  input  wire logic        rst_ni,
  /// n1: rr_arb N 1.
  input  wire logic        n1_req_i,
  input  wire logic        n1_ack_i,
  output logic             n1_gnt_o,
  output logic             n1_gnt_idx_o,
  output logic             n1_gnt_valid_o,
  /// n2: rr_arb N 2.
  input  wire logic [1:0]  n2_req_i,
  input  wire logic        n2_ack_i,
  output logic      [1:0]  n2_gnt_o,
  output logic             n2_gnt_idx_o,
  output logic             n2_gnt_valid_o,
  /// n3: rr_arb N 3.
  input  wire logic [2:0]  n3_req_i,
  input  wire logic        n3_ack_i,
  output logic      [2:0]  n3_gnt_o,
  output logic      [1:0]  n3_gnt_idx_o,
  output logic             n3_gnt_valid_o,
  /// n5: rr_arb N 5.
  input  wire logic [4:0]  n5_req_i,
  input  wire logic        n5_ack_i,
  output logic      [4:0]  n5_gnt_o,
  output logic      [2:0]  n5_gnt_idx_o,
  output logic             n5_gnt_valid_o,
  /// n16: rr_arb N 16.
  input  wire logic [15:0] n16_req_i,
  input  wire logic        n16_ack_i,
  output logic      [15:0] n16_gnt_o,
  output logic      [3:0]  n16_gnt_idx_o,
  output logic             n16_gnt_valid_o,
  /// n64: rr_arb N 64.
  input  wire logic [63:0] n64_req_i,
  input  wire logic        n64_ack_i,
  output logic      [63:0] n64_gnt_o,
  output logic      [5:0]  n64_gnt_idx_o,
  output logic             n64_gnt_valid_o
);

  rr_arb #(.N(1)) u_n1 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (n1_req_i),
    .ack_i       (n1_ack_i),
    .gnt_o       (n1_gnt_o),
    .gnt_idx_o   (n1_gnt_idx_o),
    .gnt_valid_o (n1_gnt_valid_o)
  );

  rr_arb #(.N(2)) u_n2 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (n2_req_i),
    .ack_i       (n2_ack_i),
    .gnt_o       (n2_gnt_o),
    .gnt_idx_o   (n2_gnt_idx_o),
    .gnt_valid_o (n2_gnt_valid_o)
  );

  rr_arb #(.N(3)) u_n3 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (n3_req_i),
    .ack_i       (n3_ack_i),
    .gnt_o       (n3_gnt_o),
    .gnt_idx_o   (n3_gnt_idx_o),
    .gnt_valid_o (n3_gnt_valid_o)
  );

  rr_arb #(.N(5)) u_n5 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (n5_req_i),
    .ack_i       (n5_ack_i),
    .gnt_o       (n5_gnt_o),
    .gnt_idx_o   (n5_gnt_idx_o),
    .gnt_valid_o (n5_gnt_valid_o)
  );

  rr_arb #(.N(16)) u_n16 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (n16_req_i),
    .ack_i       (n16_ack_i),
    .gnt_o       (n16_gnt_o),
    .gnt_idx_o   (n16_gnt_idx_o),
    .gnt_valid_o (n16_gnt_valid_o)
  );

  rr_arb #(.N(64)) u_n64 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .req_i       (n64_req_i),
    .ack_i       (n64_ack_i),
    .gnt_o       (n64_gnt_o),
    .gnt_idx_o   (n64_gnt_idx_o),
    .gnt_valid_o (n64_gnt_valid_o)
  );

endmodule
`default_nettype wire
