`default_nettype none
// Test harness of credit_cnt: one instance per parameter set
// (<set> = m<MaxCredits>i<InitCredits>g<GiveW>, n<Num> when Num > 1, s<SkipW> when crd_skip_i is
// driven: 0 elsewhere).
// Each instance's ports are its block's ports renamed <set>_<port>; see the block for their
// meaning. An instance of several counters has each counter's ports on their own, as sets of
// their own (<set><a, b, c>_<port>). One Verilated model covers the whole parameter matrix.
module credit_cnt_tb (
  /// Clock of every instance.
  input  wire logic       clk_i,
  /// Synchronous active-low reset of every instance.
  input  wire logic       rst_ni,
  /// m1i1g1: credit_cnt MaxCredits 1, InitCredits 1, GiveW 1.
  input  wire logic       m1i1g1_crd_give_i,
  input  wire logic       m1i1g1_crd_take_i,
  output logic            m1i1g1_crd_left_o,
  output logic            m1i1g1_crd_avail_o,
  /// m4i0g1: credit_cnt MaxCredits 4, InitCredits 0, GiveW 1.
  input  wire logic       m4i0g1_crd_give_i,
  input  wire logic       m4i0g1_crd_take_i,
  output logic      [2:0] m4i0g1_crd_left_o,
  output logic            m4i0g1_crd_avail_o,
  /// m7i7g3: credit_cnt MaxCredits 7, InitCredits 7, GiveW 3.
  input  wire logic [2:0] m7i7g3_crd_give_i,
  input  wire logic       m7i7g3_crd_take_i,
  output logic      [2:0] m7i7g3_crd_left_o,
  output logic            m7i7g3_crd_avail_o,
  /// m13i5g2: credit_cnt MaxCredits 13, InitCredits 5, GiveW 2.
  input  wire logic [1:0] m13i5g2_crd_give_i,
  input  wire logic       m13i5g2_crd_take_i,
  output logic      [3:0] m13i5g2_crd_left_o,
  output logic            m13i5g2_crd_avail_o,
  /// m200i200g4: credit_cnt MaxCredits 200, InitCredits 200, GiveW 4.
  input  wire logic [3:0] m200i200g4_crd_give_i,
  input  wire logic       m200i200g4_crd_take_i,
  output logic      [7:0] m200i200g4_crd_left_o,
  output logic            m200i200g4_crd_avail_o,
  /// m5i2g2n3: credit_cnt MaxCredits 5, InitCredits 2, GiveW 2, Num 3 (counters a, b, c).
  input  wire logic [1:0] m5i2g2n3a_crd_give_i,
  input  wire logic       m5i2g2n3a_crd_take_i,
  output logic      [2:0] m5i2g2n3a_crd_left_o,
  output logic            m5i2g2n3a_crd_avail_o,
  input  wire logic [1:0] m5i2g2n3b_crd_give_i,
  input  wire logic       m5i2g2n3b_crd_take_i,
  output logic      [2:0] m5i2g2n3b_crd_left_o,
  output logic            m5i2g2n3b_crd_avail_o,
  input  wire logic [1:0] m5i2g2n3c_crd_give_i,
  input  wire logic       m5i2g2n3c_crd_take_i,
  output logic      [2:0] m5i2g2n3c_crd_left_o,
  output logic            m5i2g2n3c_crd_avail_o,
  /// m9i0g1s4: credit_cnt MaxCredits 9, InitCredits 0, GiveW 1, SkipW 4 (credits of skipped cycles).
  input  wire logic       m9i0g1s4_crd_give_i,
  input  wire logic       m9i0g1s4_crd_take_i,
  input  wire logic [3:0] m9i0g1s4_crd_skip_i,
  output logic      [3:0] m9i0g1s4_crd_left_o,
  output logic            m9i0g1s4_crd_avail_o
);

  credit_cnt #(.MaxCredits(1), .InitCredits(1), .GiveW(1)) u_m1i1g1 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .crd_give_i  (m1i1g1_crd_give_i),
    .crd_take_i  (m1i1g1_crd_take_i),
    .crd_skip_i  ('0),
    .crd_left_o  (m1i1g1_crd_left_o),
    .crd_avail_o (m1i1g1_crd_avail_o)
  );

  credit_cnt #(.MaxCredits(4), .InitCredits(0), .GiveW(1)) u_m4i0g1 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .crd_give_i  (m4i0g1_crd_give_i),
    .crd_take_i  (m4i0g1_crd_take_i),
    .crd_skip_i  ('0),
    .crd_left_o  (m4i0g1_crd_left_o),
    .crd_avail_o (m4i0g1_crd_avail_o)
  );

  credit_cnt #(.MaxCredits(7), .InitCredits(7), .GiveW(3)) u_m7i7g3 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .crd_give_i  (m7i7g3_crd_give_i),
    .crd_take_i  (m7i7g3_crd_take_i),
    .crd_skip_i  ('0),
    .crd_left_o  (m7i7g3_crd_left_o),
    .crd_avail_o (m7i7g3_crd_avail_o)
  );

  credit_cnt #(.MaxCredits(13), .InitCredits(5), .GiveW(2)) u_m13i5g2 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .crd_give_i  (m13i5g2_crd_give_i),
    .crd_take_i  (m13i5g2_crd_take_i),
    .crd_skip_i  ('0),
    .crd_left_o  (m13i5g2_crd_left_o),
    .crd_avail_o (m13i5g2_crd_avail_o)
  );

  credit_cnt #(.MaxCredits(200), .InitCredits(200), .GiveW(4)) u_m200i200g4 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .crd_give_i  (m200i200g4_crd_give_i),
    .crd_take_i  (m200i200g4_crd_take_i),
    .crd_skip_i  ('0),
    .crd_left_o  (m200i200g4_crd_left_o),
    .crd_avail_o (m200i200g4_crd_avail_o)
  );

  credit_cnt #(.MaxCredits(5), .InitCredits(2), .GiveW(2), .Num(3)) u_m5i2g2n3 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .crd_give_i  ({m5i2g2n3c_crd_give_i, m5i2g2n3b_crd_give_i, m5i2g2n3a_crd_give_i}),
    .crd_take_i  ({m5i2g2n3c_crd_take_i, m5i2g2n3b_crd_take_i, m5i2g2n3a_crd_take_i}),
    .crd_skip_i  ('0),
    .crd_left_o  ({m5i2g2n3c_crd_left_o, m5i2g2n3b_crd_left_o, m5i2g2n3a_crd_left_o}),
    .crd_avail_o ({m5i2g2n3c_crd_avail_o, m5i2g2n3b_crd_avail_o, m5i2g2n3a_crd_avail_o})
  );

  credit_cnt #(.MaxCredits(9), .InitCredits(0), .GiveW(1), .SkipW(4)) u_m9i0g1s4 (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .crd_give_i  (m9i0g1s4_crd_give_i),
    .crd_take_i  (m9i0g1s4_crd_take_i),
    .crd_skip_i  (m9i0g1s4_crd_skip_i),
    .crd_left_o  (m9i0g1s4_crd_left_o),
    .crd_avail_o (m9i0g1s4_crd_avail_o)
  );

endmodule
`default_nettype wire
