`default_nettype none
// Test harness of skid_buf: one instance per parameter set (<set> = w<Width>).
// Each instance's ports are its block's ports renamed <set>_<port>; see the block for their
// meaning. One Verilated model covers the whole parameter matrix.
module skid_buf_tb (
  /// Clock of every instance.
  input  wire logic        clk_i,
  /// Synchronous active-low reset of every instance.
  input  wire logic        rst_ni,
  /// w1: skid_buf Width 1.
  input  wire logic        w1_in_valid_i,
  output logic             w1_in_ready_o,
  input  wire logic        w1_in_data_i,
  output logic             w1_out_valid_o,
  input  wire logic        w1_out_ready_i,
  output logic             w1_out_data_o,
  /// w8: skid_buf Width 8.
  input  wire logic        w8_in_valid_i,
  output logic             w8_in_ready_o,
  input  wire logic [7:0]  w8_in_data_i,
  output logic             w8_out_valid_o,
  input  wire logic        w8_out_ready_i,
  output logic      [7:0]  w8_out_data_o,
  /// w70: skid_buf Width 70.
  input  wire logic        w70_in_valid_i,
  output logic             w70_in_ready_o,
  input  wire logic [69:0] w70_in_data_i,
  output logic             w70_out_valid_o,
  input  wire logic        w70_out_ready_i,
  output logic      [69:0] w70_out_data_o
);

  skid_buf #(.Width(1)) u_w1 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (w1_in_valid_i),
    .in_ready_o  (w1_in_ready_o),
    .in_data_i   (w1_in_data_i),
    .out_valid_o (w1_out_valid_o),
    .out_ready_i (w1_out_ready_i),
    .out_data_o  (w1_out_data_o)
  );

  skid_buf #(.Width(8)) u_w8 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (w8_in_valid_i),
    .in_ready_o  (w8_in_ready_o),
    .in_data_i   (w8_in_data_i),
    .out_valid_o (w8_out_valid_o),
    .out_ready_i (w8_out_ready_i),
    .out_data_o  (w8_out_data_o)
  );

  skid_buf #(.Width(70)) u_w70 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (w70_in_valid_i),
    .in_ready_o  (w70_in_ready_o),
    .in_data_i   (w70_in_data_i),
    .out_valid_o (w70_out_valid_o),
    .out_ready_i (w70_out_ready_i),
    .out_data_o  (w70_out_data_o)
  );

endmodule
`default_nettype wire
