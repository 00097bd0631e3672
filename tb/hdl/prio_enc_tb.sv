`default_nettype none
// Test harness of prio_enc: one instance per parameter set (<set> = n<N>).
// Each instance's ports are its block's ports renamed <set>_<port>; see the block for their
// meaning. One Verilated model covers the whole parameter matrix.
module prio_enc_tb (
  /// Clock of every instance.
  input  wire logic        clk_i,
  /// Synchronous active-low reset of every instance.
  input  wire logic        rst_ni,
  /// n1: prio_enc N 1.
  input  wire logic        n1_req_i,
  output logic             n1_onehot_o,
  output logic             n1_idx_o,
  output logic             n1_valid_o,
  /// n2: prio_enc N 2.
  input  wire logic [1:0]  n2_req_i,
  output logic      [1:0]  n2_onehot_o,
  output logic             n2_idx_o,
  output logic             n2_valid_o,
  /// n3: prio_enc N 3.
  input  wire logic [2:0]  n3_req_i,
  output logic      [2:0]  n3_onehot_o,
  output logic      [1:0]  n3_idx_o,
  output logic             n3_valid_o,
  /// n4: prio_enc N 4.
  input  wire logic [3:0]  n4_req_i,
  output logic      [3:0]  n4_onehot_o,
  output logic      [1:0]  n4_idx_o,
  output logic             n4_valid_o,
  /// n5: prio_enc N 5.
  input  wire logic [4:0]  n5_req_i,
  output logic      [4:0]  n5_onehot_o,
  output logic      [2:0]  n5_idx_o,
  output logic             n5_valid_o,
  /// n8: prio_enc N 8.
  input  wire logic [7:0]  n8_req_i,
  output logic      [7:0]  n8_onehot_o,
  output logic      [2:0]  n8_idx_o,
  output logic             n8_valid_o,
  /// n13: prio_enc N 13.
  input  wire logic [12:0] n13_req_i,
  output logic      [12:0] n13_onehot_o,
  output logic      [3:0]  n13_idx_o,
  output logic             n13_valid_o,
  /// n64: prio_enc N 64.
  input  wire logic [63:0] n64_req_i,
  output logic      [63:0] n64_onehot_o,
  output logic      [5:0]  n64_idx_o,
  output logic             n64_valid_o,
  /// n100: prio_enc N 100.
  input  wire logic [99:0] n100_req_i,
  output logic      [99:0] n100_onehot_o,
  output logic      [6:0]  n100_idx_o,
  output logic             n100_valid_o
);

  // The blocks are combinational; the clock and reset only satisfy the wrapper generator.
  logic unused_clk_rst;
  assign unused_clk_rst = clk_i ^ rst_ni;

  prio_enc #(.N(1)) u_n1 (
    .req_i    (n1_req_i),
    .onehot_o (n1_onehot_o),
    .idx_o    (n1_idx_o),
    .valid_o  (n1_valid_o)
  );

  prio_enc #(.N(2)) u_n2 (
    .req_i    (n2_req_i),
    .onehot_o (n2_onehot_o),
    .idx_o    (n2_idx_o),
    .valid_o  (n2_valid_o)
  );

  prio_enc #(.N(3)) u_n3 (
    .req_i    (n3_req_i),
    .onehot_o (n3_onehot_o),
    .idx_o    (n3_idx_o),
    .valid_o  (n3_valid_o)
  );

  prio_enc #(.N(4)) u_n4 (
    .req_i    (n4_req_i),
    .onehot_o (n4_onehot_o),
    .idx_o    (n4_idx_o),
    .valid_o  (n4_valid_o)
  );

  prio_enc #(.N(5)) u_n5 (
    .req_i    (n5_req_i),
    .onehot_o (n5_onehot_o),
    .idx_o    (n5_idx_o),
    .valid_o  (n5_valid_o)
  );

  prio_enc #(.N(8)) u_n8 (
    .req_i    (n8_req_i),
    .onehot_o (n8_onehot_o),
    .idx_o    (n8_idx_o),
    .valid_o  (n8_valid_o)
  );

  prio_enc #(.N(13)) u_n13 (
    .req_i    (n13_req_i),
    .onehot_o (n13_onehot_o),
    .idx_o    (n13_idx_o),
    .valid_o  (n13_valid_o)
  );

  prio_enc #(.N(64)) u_n64 (
    .req_i    (n64_req_i),
    .onehot_o (n64_onehot_o),
    .idx_o    (n64_idx_o),
    .valid_o  (n64_valid_o)
  );

  prio_enc #(.N(100)) u_n100 (
    .req_i    (n100_req_i),
    .onehot_o (n100_onehot_o),
    .idx_o    (n100_idx_o),
    .valid_o  (n100_valid_o)
  );

endmodule
`default_nettype wire
