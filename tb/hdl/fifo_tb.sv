`default_nettype none
// Test harness of fifo: one instance per parameter set (<set> = d<Depth>w<Width>).
// Each instance's ports are its block's ports renamed <set>_<port>; see the block for their
// meaning. One Verilated model covers the whole parameter matrix.
module fifo_tb (
  /// Clock of every instance.
  input  wire logic        clk_i,
  /// Synchronous active-low reset of every instance.
  input  wire logic        rst_ni,
  /// d1w8: fifo Depth 1, Width 8.
  input  wire logic        d1w8_in_valid_i,
  output logic             d1w8_in_ready_o,
  input  wire logic [7:0]  d1w8_in_data_i,
  output logic             d1w8_out_valid_o,
  input  wire logic        d1w8_out_ready_i,
  output logic      [7:0]  d1w8_out_data_o,
  output logic             d1w8_count_o,
  output logic             d1w8_empty_o,
  /// d2w1: fifo Depth 2, Width 1.
  input  wire logic        d2w1_in_valid_i,
  output logic             d2w1_in_ready_o,
  input  wire logic        d2w1_in_data_i,
  output logic             d2w1_out_valid_o,
  input  wire logic        d2w1_out_ready_i,
  output logic             d2w1_out_data_o,
  output logic      [1:0]  d2w1_count_o,
  output logic             d2w1_empty_o,
  /// d3w70: fifo Depth 3, Width 70.
  input  wire logic        d3w70_in_valid_i,
  output logic             d3w70_in_ready_o,
  input  wire logic [69:0] d3w70_in_data_i,
  output logic             d3w70_out_valid_o,
  input  wire logic        d3w70_out_ready_i,
  output logic      [69:0] d3w70_out_data_o,
  output logic      [1:0]  d3w70_count_o,
  output logic             d3w70_empty_o,
  /// d5w8: fifo Depth 5, Width 8.
  input  wire logic        d5w8_in_valid_i,
  output logic             d5w8_in_ready_o,
  input  wire logic [7:0]  d5w8_in_data_i,
  output logic             d5w8_out_valid_o,
  input  wire logic        d5w8_out_ready_i,
  output logic      [7:0]  d5w8_out_data_o,
  output logic      [2:0]  d5w8_count_o,
  output logic             d5w8_empty_o,
  /// d16w70: fifo Depth 16, Width 70.
  input  wire logic        d16w70_in_valid_i,
  output logic             d16w70_in_ready_o,
  input  wire logic [69:0] d16w70_in_data_i,
  output logic             d16w70_out_valid_o,
  input  wire logic        d16w70_out_ready_i,
  output logic      [69:0] d16w70_out_data_o,
  output logic      [4:0]  d16w70_count_o,
  output logic             d16w70_empty_o
);

  fifo #(.Depth(1), .Width(8)) u_d1w8 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d1w8_in_valid_i),
    .in_ready_o  (d1w8_in_ready_o),
    .in_data_i   (d1w8_in_data_i),
    .out_valid_o (d1w8_out_valid_o),
    .out_ready_i (d1w8_out_ready_i),
    .out_data_o  (d1w8_out_data_o),
    .count_o     (d1w8_count_o),
    .empty_o     (d1w8_empty_o)
  );

  fifo #(.Depth(2), .Width(1)) u_d2w1 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d2w1_in_valid_i),
    .in_ready_o  (d2w1_in_ready_o),
    .in_data_i   (d2w1_in_data_i),
    .out_valid_o (d2w1_out_valid_o),
    .out_ready_i (d2w1_out_ready_i),
    .out_data_o  (d2w1_out_data_o),
    .count_o     (d2w1_count_o),
    .empty_o     (d2w1_empty_o)
  );

  fifo #(.Depth(3), .Width(70)) u_d3w70 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d3w70_in_valid_i),
    .in_ready_o  (d3w70_in_ready_o),
    .in_data_i   (d3w70_in_data_i),
    .out_valid_o (d3w70_out_valid_o),
    .out_ready_i (d3w70_out_ready_i),
    .out_data_o  (d3w70_out_data_o),
    .count_o     (d3w70_count_o),
    .empty_o     (d3w70_empty_o)
  );

  fifo #(.Depth(5), .Width(8)) u_d5w8 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d5w8_in_valid_i),
    .in_ready_o  (d5w8_in_ready_o),
    .in_data_i   (d5w8_in_data_i),
    .out_valid_o (d5w8_out_valid_o),
    .out_ready_i (d5w8_out_ready_i),
    .out_data_o  (d5w8_out_data_o),
    .count_o     (d5w8_count_o),
    .empty_o     (d5w8_empty_o)
  );

  fifo #(.Depth(16), .Width(70)) u_d16w70 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d16w70_in_valid_i),
    .in_ready_o  (d16w70_in_ready_o),
    .in_data_i   (d16w70_in_data_i),
    .out_valid_o (d16w70_out_valid_o),
    .out_ready_i (d16w70_out_ready_i),
    .out_data_o  (d16w70_out_data_o),
    .count_o     (d16w70_count_o),
    .empty_o     (d16w70_empty_o)
  );

endmodule
`default_nettype wire
