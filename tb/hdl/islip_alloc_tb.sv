`default_nettype none
// Test harness of islip_alloc: one instance per parameter set (<set> = n<NumIn>x<NumOut>i<Iters>).
// Each instance's ports are its block's ports renamed <set>_<port>; see the block for their
// meaning. One Verilated model covers the whole parameter matrix.
module islip_alloc_tb (
  /// Clock of every instance.
  input  wire logic           clk_i,
  /// Synchronous active-low reset of every instance.
  input  wire logic           rst_ni,
  /// n1x1i1: islip_alloc NumIn 1, NumOut 1, Iters 1.
  input  wire logic           n1x1i1_req_i,
  input  wire logic           n1x1i1_en_i,
  output logic                n1x1i1_match_o,
  output logic                n1x1i1_in_match_valid_o,
  output logic                n1x1i1_in_match_idx_o,
  output logic                n1x1i1_out_match_valid_o,
  output logic                n1x1i1_out_match_idx_o,
  /// n2x3i1: islip_alloc NumIn 2, NumOut 3, Iters 1.
  input  wire logic [5:0]     n2x3i1_req_i,
  input  wire logic           n2x3i1_en_i,
  output logic      [5:0]     n2x3i1_match_o,
  output logic      [1:0]     n2x3i1_in_match_valid_o,
  output logic      [3:0]     n2x3i1_in_match_idx_o,
  output logic      [2:0]     n2x3i1_out_match_valid_o,
  output logic      [2:0]     n2x3i1_out_match_idx_o,
  /// n3x5i4: islip_alloc NumIn 3, NumOut 5, Iters 4.
  input  wire logic [14:0]    n3x5i4_req_i,
  input  wire logic           n3x5i4_en_i,
  output logic      [14:0]    n3x5i4_match_o,
  output logic      [2:0]     n3x5i4_in_match_valid_o,
  output logic      [8:0]     n3x5i4_in_match_idx_o,
  output logic      [4:0]     n3x5i4_out_match_valid_o,
  output logic      [9:0]     n3x5i4_out_match_idx_o,
  /// n4x4i1: islip_alloc NumIn 4, NumOut 4, Iters 1.
  input  wire logic [15:0]    n4x4i1_req_i,
  input  wire logic           n4x4i1_en_i,
  output logic      [15:0]    n4x4i1_match_o,
  output logic      [3:0]     n4x4i1_in_match_valid_o,
  output logic      [7:0]     n4x4i1_in_match_idx_o,
  output logic      [3:0]     n4x4i1_out_match_valid_o,
  output logic      [7:0]     n4x4i1_out_match_idx_o,
  /// n4x4i2: islip_alloc NumIn 4, NumOut 4, Iters 2.
  input  wire logic [15:0]    n4x4i2_req_i,
  input  wire logic           n4x4i2_en_i,
  output logic      [15:0]    n4x4i2_match_o,
  output logic      [3:0]     n4x4i2_in_match_valid_o,
  output logic      [7:0]     n4x4i2_in_match_idx_o,
  output logic      [3:0]     n4x4i2_out_match_valid_o,
  output logic      [7:0]     n4x4i2_out_match_idx_o,
  /// n5x3i3: islip_alloc NumIn 5, NumOut 3, Iters 3.
  input  wire logic [14:0]    n5x3i3_req_i,
  input  wire logic           n5x3i3_en_i,
  output logic      [14:0]    n5x3i3_match_o,
  output logic      [4:0]     n5x3i3_in_match_valid_o,
  output logic      [9:0]     n5x3i3_in_match_idx_o,
  output logic      [2:0]     n5x3i3_out_match_valid_o,
  output logic      [8:0]     n5x3i3_out_match_idx_o,
  /// n16x16i1: islip_alloc NumIn 16, NumOut 16, Iters 1.
  input  wire logic [255:0]   n16x16i1_req_i,
  input  wire logic           n16x16i1_en_i,
  output logic      [255:0]   n16x16i1_match_o,
  output logic      [15:0]    n16x16i1_in_match_valid_o,
  output logic      [63:0]    n16x16i1_in_match_idx_o,
  output logic      [15:0]    n16x16i1_out_match_valid_o,
  output logic      [63:0]    n16x16i1_out_match_idx_o,
  /// n16x16i2: islip_alloc NumIn 16, NumOut 16, Iters 2.
  input  wire logic [255:0]   n16x16i2_req_i,
  input  wire logic           n16x16i2_en_i,
  output logic      [255:0]   n16x16i2_match_o,
  output logic      [15:0]    n16x16i2_in_match_valid_o,
  output logic      [63:0]    n16x16i2_in_match_idx_o,
  output logic      [15:0]    n16x16i2_out_match_valid_o,
  output logic      [63:0]    n16x16i2_out_match_idx_o,
  /// n32x32i1: islip_alloc NumIn 32, NumOut 32, Iters 1.
  input  wire logic [1023:0]  n32x32i1_req_i,
  input  wire logic           n32x32i1_en_i,
  output logic      [1023:0]  n32x32i1_match_o,
  output logic      [31:0]    n32x32i1_in_match_valid_o,
  output logic      [159:0]   n32x32i1_in_match_idx_o,
  output logic      [31:0]    n32x32i1_out_match_valid_o,
  output logic      [159:0]   n32x32i1_out_match_idx_o,
  /// n32x32i2: islip_alloc NumIn 32, NumOut 32, Iters 2.
  input  wire logic [1023:0]  n32x32i2_req_i,
  input  wire logic           n32x32i2_en_i,
  output logic      [1023:0]  n32x32i2_match_o,
  output logic      [31:0]    n32x32i2_in_match_valid_o,
  output logic      [159:0]   n32x32i2_in_match_idx_o,
  output logic      [31:0]    n32x32i2_out_match_valid_o,
  output logic      [159:0]   n32x32i2_out_match_idx_o,
  /// n12x10i3: islip_alloc NumIn 12, NumOut 10, Iters 3 (the simulation form's groups of 8 ports:
  /// a full and a partial one each way).
  input  wire logic [119:0]   n12x10i3_req_i,
  input  wire logic           n12x10i3_en_i,
  output logic      [119:0]   n12x10i3_match_o,
  output logic      [11:0]    n12x10i3_in_match_valid_o,
  output logic      [47:0]    n12x10i3_in_match_idx_o,
  output logic      [9:0]     n12x10i3_out_match_valid_o,
  output logic      [39:0]    n12x10i3_out_match_idx_o
);

  islip_alloc #(.NumIn(1), .NumOut(1), .Iters(1)) u_n1x1i1 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n1x1i1_req_i),
    .en_i              (n1x1i1_en_i),
    .match_o           (n1x1i1_match_o),
    .in_match_valid_o  (n1x1i1_in_match_valid_o),
    .in_match_idx_o    (n1x1i1_in_match_idx_o),
    .out_match_valid_o (n1x1i1_out_match_valid_o),
    .out_match_idx_o   (n1x1i1_out_match_idx_o)
  );

  islip_alloc #(.NumIn(2), .NumOut(3), .Iters(1)) u_n2x3i1 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n2x3i1_req_i),
    .en_i              (n2x3i1_en_i),
    .match_o           (n2x3i1_match_o),
    .in_match_valid_o  (n2x3i1_in_match_valid_o),
    .in_match_idx_o    (n2x3i1_in_match_idx_o),
    .out_match_valid_o (n2x3i1_out_match_valid_o),
    .out_match_idx_o   (n2x3i1_out_match_idx_o)
  );

  islip_alloc #(.NumIn(3), .NumOut(5), .Iters(4)) u_n3x5i4 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n3x5i4_req_i),
    .en_i              (n3x5i4_en_i),
    .match_o           (n3x5i4_match_o),
    .in_match_valid_o  (n3x5i4_in_match_valid_o),
    .in_match_idx_o    (n3x5i4_in_match_idx_o),
    .out_match_valid_o (n3x5i4_out_match_valid_o),
    .out_match_idx_o   (n3x5i4_out_match_idx_o)
  );

  islip_alloc #(.NumIn(4), .NumOut(4), .Iters(1)) u_n4x4i1 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n4x4i1_req_i),
    .en_i              (n4x4i1_en_i),
    .match_o           (n4x4i1_match_o),
    .in_match_valid_o  (n4x4i1_in_match_valid_o),
    .in_match_idx_o    (n4x4i1_in_match_idx_o),
    .out_match_valid_o (n4x4i1_out_match_valid_o),
    .out_match_idx_o   (n4x4i1_out_match_idx_o)
  );

  islip_alloc #(.NumIn(4), .NumOut(4), .Iters(2)) u_n4x4i2 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n4x4i2_req_i),
    .en_i              (n4x4i2_en_i),
    .match_o           (n4x4i2_match_o),
    .in_match_valid_o  (n4x4i2_in_match_valid_o),
    .in_match_idx_o    (n4x4i2_in_match_idx_o),
    .out_match_valid_o (n4x4i2_out_match_valid_o),
    .out_match_idx_o   (n4x4i2_out_match_idx_o)
  );

  islip_alloc #(.NumIn(5), .NumOut(3), .Iters(3)) u_n5x3i3 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n5x3i3_req_i),
    .en_i              (n5x3i3_en_i),
    .match_o           (n5x3i3_match_o),
    .in_match_valid_o  (n5x3i3_in_match_valid_o),
    .in_match_idx_o    (n5x3i3_in_match_idx_o),
    .out_match_valid_o (n5x3i3_out_match_valid_o),
    .out_match_idx_o   (n5x3i3_out_match_idx_o)
  );

  islip_alloc #(.NumIn(16), .NumOut(16), .Iters(1)) u_n16x16i1 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n16x16i1_req_i),
    .en_i              (n16x16i1_en_i),
    .match_o           (n16x16i1_match_o),
    .in_match_valid_o  (n16x16i1_in_match_valid_o),
    .in_match_idx_o    (n16x16i1_in_match_idx_o),
    .out_match_valid_o (n16x16i1_out_match_valid_o),
    .out_match_idx_o   (n16x16i1_out_match_idx_o)
  );

  islip_alloc #(.NumIn(16), .NumOut(16), .Iters(2)) u_n16x16i2 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n16x16i2_req_i),
    .en_i              (n16x16i2_en_i),
    .match_o           (n16x16i2_match_o),
    .in_match_valid_o  (n16x16i2_in_match_valid_o),
    .in_match_idx_o    (n16x16i2_in_match_idx_o),
    .out_match_valid_o (n16x16i2_out_match_valid_o),
    .out_match_idx_o   (n16x16i2_out_match_idx_o)
  );

  islip_alloc #(.NumIn(32), .NumOut(32), .Iters(1)) u_n32x32i1 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n32x32i1_req_i),
    .en_i              (n32x32i1_en_i),
    .match_o           (n32x32i1_match_o),
    .in_match_valid_o  (n32x32i1_in_match_valid_o),
    .in_match_idx_o    (n32x32i1_in_match_idx_o),
    .out_match_valid_o (n32x32i1_out_match_valid_o),
    .out_match_idx_o   (n32x32i1_out_match_idx_o)
  );

  islip_alloc #(.NumIn(32), .NumOut(32), .Iters(2)) u_n32x32i2 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n32x32i2_req_i),
    .en_i              (n32x32i2_en_i),
    .match_o           (n32x32i2_match_o),
    .in_match_valid_o  (n32x32i2_in_match_valid_o),
    .in_match_idx_o    (n32x32i2_in_match_idx_o),
    .out_match_valid_o (n32x32i2_out_match_valid_o),
    .out_match_idx_o   (n32x32i2_out_match_idx_o)
  );

  islip_alloc #(.NumIn(12), .NumOut(10), .Iters(3)) u_n12x10i3 (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (n12x10i3_req_i),
    .en_i              (n12x10i3_en_i),
    .match_o           (n12x10i3_match_o),
    .in_match_valid_o  (n12x10i3_in_match_valid_o),
    .in_match_idx_o    (n12x10i3_in_match_idx_o),
    .out_match_valid_o (n12x10i3_out_match_valid_o),
    .out_match_idx_o   (n12x10i3_out_match_idx_o)
  );

endmodule
`default_nettype wire
