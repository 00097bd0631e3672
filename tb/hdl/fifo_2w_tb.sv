`default_nettype none
// Test harness of fifo_2w: one instance per parameter set (<set> = d<Depth>w<Width>).
// Each instance's ports are its block's ports renamed <set>_<port>, except that in_data_i is split
// into its two lanes, <set>_in0_data_i and <set>_in1_data_i (one C value each, however wide); see
// the block for their meaning. One Verilated model covers the whole parameter matrix.
module fifo_2w_tb (
  /// Clock of every instance.
  input  wire logic        clk_i,
  /// Synchronous active-low reset of every instance.
  input  wire logic        rst_ni,
  /// d1w8: fifo_2w Depth 1, Width 8.
  input  wire logic [1:0]  d1w8_in_valid_i,
  output logic      [1:0]  d1w8_in_ready_o,
  input  wire logic [7:0]  d1w8_in0_data_i,
  input  wire logic [7:0]  d1w8_in1_data_i,
  output logic             d1w8_out_valid_o,
  input  wire logic        d1w8_out_ready_i,
  output logic      [7:0]  d1w8_out_data_o,
  output logic             d1w8_count_o,
  output logic             d1w8_empty_o,
  /// d2w1: fifo_2w Depth 2, Width 1.
  input  wire logic [1:0]  d2w1_in_valid_i,
  output logic      [1:0]  d2w1_in_ready_o,
  input  wire logic        d2w1_in0_data_i,
  input  wire logic        d2w1_in1_data_i,
  output logic             d2w1_out_valid_o,
  input  wire logic        d2w1_out_ready_i,
  output logic             d2w1_out_data_o,
  output logic      [1:0]  d2w1_count_o,
  output logic             d2w1_empty_o,
  /// d3w70: fifo_2w Depth 3, Width 70.
  input  wire logic [1:0]  d3w70_in_valid_i,
  output logic      [1:0]  d3w70_in_ready_o,
  input  wire logic [69:0] d3w70_in0_data_i,
  input  wire logic [69:0] d3w70_in1_data_i,
  output logic             d3w70_out_valid_o,
  input  wire logic        d3w70_out_ready_i,
  output logic      [69:0] d3w70_out_data_o,
  output logic      [1:0]  d3w70_count_o,
  output logic             d3w70_empty_o,
  /// d4w8: fifo_2w Depth 4, Width 8.
  input  wire logic [1:0]  d4w8_in_valid_i,
  output logic      [1:0]  d4w8_in_ready_o,
  input  wire logic [7:0]  d4w8_in0_data_i,
  input  wire logic [7:0]  d4w8_in1_data_i,
  output logic             d4w8_out_valid_o,
  input  wire logic        d4w8_out_ready_i,
  output logic      [7:0]  d4w8_out_data_o,
  output logic      [2:0]  d4w8_count_o,
  output logic             d4w8_empty_o,
  /// d7w70: fifo_2w Depth 7, Width 70.
  input  wire logic [1:0]  d7w70_in_valid_i,
  output logic      [1:0]  d7w70_in_ready_o,
  input  wire logic [69:0] d7w70_in0_data_i,
  input  wire logic [69:0] d7w70_in1_data_i,
  output logic             d7w70_out_valid_o,
  input  wire logic        d7w70_out_ready_i,
  output logic      [69:0] d7w70_out_data_o,
  output logic      [2:0]  d7w70_count_o,
  output logic             d7w70_empty_o
);

  fifo_2w #(.Depth(1), .Width(8)) u_d1w8 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d1w8_in_valid_i),
    .in_ready_o  (d1w8_in_ready_o),
    .in_data_i   ({d1w8_in1_data_i, d1w8_in0_data_i}),
    .out_valid_o (d1w8_out_valid_o),
    .out_ready_i (d1w8_out_ready_i),
    .out_data_o  (d1w8_out_data_o),
    .count_o     (d1w8_count_o),
    .empty_o     (d1w8_empty_o)
  );

  fifo_2w #(.Depth(2), .Width(1)) u_d2w1 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d2w1_in_valid_i),
    .in_ready_o  (d2w1_in_ready_o),
    .in_data_i   ({d2w1_in1_data_i, d2w1_in0_data_i}),
    .out_valid_o (d2w1_out_valid_o),
    .out_ready_i (d2w1_out_ready_i),
    .out_data_o  (d2w1_out_data_o),
    .count_o     (d2w1_count_o),
    .empty_o     (d2w1_empty_o)
  );

  fifo_2w #(.Depth(3), .Width(70)) u_d3w70 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d3w70_in_valid_i),
    .in_ready_o  (d3w70_in_ready_o),
    .in_data_i   ({d3w70_in1_data_i, d3w70_in0_data_i}),
    .out_valid_o (d3w70_out_valid_o),
    .out_ready_i (d3w70_out_ready_i),
    .out_data_o  (d3w70_out_data_o),
    .count_o     (d3w70_count_o),
    .empty_o     (d3w70_empty_o)
  );

  fifo_2w #(.Depth(4), .Width(8)) u_d4w8 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d4w8_in_valid_i),
    .in_ready_o  (d4w8_in_ready_o),
    .in_data_i   ({d4w8_in1_data_i, d4w8_in0_data_i}),
    .out_valid_o (d4w8_out_valid_o),
    .out_ready_i (d4w8_out_ready_i),
    .out_data_o  (d4w8_out_data_o),
    .count_o     (d4w8_count_o),
    .empty_o     (d4w8_empty_o)
  );

  fifo_2w #(.Depth(7), .Width(70)) u_d7w70 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (d7w70_in_valid_i),
    .in_ready_o  (d7w70_in_ready_o),
    .in_data_i   ({d7w70_in1_data_i, d7w70_in0_data_i}),
    .out_valid_o (d7w70_out_valid_o),
    .out_ready_i (d7w70_out_ready_i),
    .out_data_o  (d7w70_out_data_o),
    .count_o     (d7w70_count_o),
    .empty_o     (d7w70_empty_o)
  );

endmodule
`default_nettype wire
