`default_nettype none
// Test harness of voq_buf: one instance per parameter set (<set> = d<Depth>w<Width>q<NumQ>).
// Each instance's ports are its block's ports renamed <set>_<port>; see the block for their
// meaning, except enq_data_i and deq_data_o: voq_buf manages entries, not words, so each instance
// keeps its words in a ram_1r1w beside it, as the switch does (sw_words): written at enq_entry_o
// when an enqueue is taken, read at deq_entry_o, so deq_data_o is the head word of queue deq_q_i.
// One Verilated model covers the whole parameter matrix.
module voq_buf_tb (
  /// Clock of every instance.
  input  wire logic        clk_i,
  /// Synchronous active-low reset of every instance.
  input  wire logic        rst_ni,
  /// d2w8q1: voq_buf Depth 2, Width 8, NumQ 1.
  input  wire logic        d2w8q1_enq_valid_i,
  input  wire logic        d2w8q1_enq_q_i,
  input  wire logic [7:0]  d2w8q1_enq_data_i,
  output logic             d2w8q1_enq_ready_o,
  input  wire logic        d2w8q1_deq_valid_i,
  input  wire logic        d2w8q1_deq_q_i,
  output logic      [7:0]  d2w8q1_deq_data_o,
  output logic             d2w8q1_q_nonempty_o,
  output logic             d2w8q1_q_set_o,
  output logic             d2w8q1_q_clr_o,
  output logic      [1:0]  d2w8q1_free_o,
  output logic             d2w8q1_idle_o,
  /// d4w8q3: voq_buf Depth 4, Width 8, NumQ 3.
  input  wire logic        d4w8q3_enq_valid_i,
  input  wire logic [1:0]  d4w8q3_enq_q_i,
  input  wire logic [7:0]  d4w8q3_enq_data_i,
  output logic             d4w8q3_enq_ready_o,
  input  wire logic        d4w8q3_deq_valid_i,
  input  wire logic [1:0]  d4w8q3_deq_q_i,
  output logic      [7:0]  d4w8q3_deq_data_o,
  output logic      [2:0]  d4w8q3_q_nonempty_o,
  output logic             d4w8q3_q_set_o,
  output logic             d4w8q3_q_clr_o,
  output logic      [2:0]  d4w8q3_free_o,
  output logic             d4w8q3_idle_o,
  /// d5w8q2: voq_buf Depth 5, Width 8, NumQ 2.
  input  wire logic        d5w8q2_enq_valid_i,
  input  wire logic        d5w8q2_enq_q_i,
  input  wire logic [7:0]  d5w8q2_enq_data_i,
  output logic             d5w8q2_enq_ready_o,
  input  wire logic        d5w8q2_deq_valid_i,
  input  wire logic        d5w8q2_deq_q_i,
  output logic      [7:0]  d5w8q2_deq_data_o,
  output logic      [1:0]  d5w8q2_q_nonempty_o,
  output logic             d5w8q2_q_set_o,
  output logic             d5w8q2_q_clr_o,
  output logic      [2:0]  d5w8q2_free_o,
  output logic             d5w8q2_idle_o,
  /// d3w1q4: voq_buf Depth 3, Width 1, NumQ 4.
  input  wire logic        d3w1q4_enq_valid_i,
  input  wire logic [1:0]  d3w1q4_enq_q_i,
  input  wire logic        d3w1q4_enq_data_i,
  output logic             d3w1q4_enq_ready_o,
  input  wire logic        d3w1q4_deq_valid_i,
  input  wire logic [1:0]  d3w1q4_deq_q_i,
  output logic             d3w1q4_deq_data_o,
  output logic      [3:0]  d3w1q4_q_nonempty_o,
  output logic             d3w1q4_q_set_o,
  output logic             d3w1q4_q_clr_o,
  output logic      [1:0]  d3w1q4_free_o,
  output logic             d3w1q4_idle_o,
  /// d16w70q11: voq_buf Depth 16, Width 70, NumQ 11.
  input  wire logic        d16w70q11_enq_valid_i,
  input  wire logic [3:0]  d16w70q11_enq_q_i,
  input  wire logic [69:0] d16w70q11_enq_data_i,
  output logic             d16w70q11_enq_ready_o,
  input  wire logic        d16w70q11_deq_valid_i,
  input  wire logic [3:0]  d16w70q11_deq_q_i,
  output logic      [69:0] d16w70q11_deq_data_o,
  output logic      [10:0] d16w70q11_q_nonempty_o,
  output logic             d16w70q11_q_set_o,
  output logic             d16w70q11_q_clr_o,
  output logic      [4:0]  d16w70q11_free_o,
  output logic             d16w70q11_idle_o,
  /// d64w70q352: voq_buf Depth 64, Width 70, NumQ 352.
  input  wire logic        d64w70q352_enq_valid_i,
  input  wire logic [8:0]  d64w70q352_enq_q_i,
  input  wire logic [69:0] d64w70q352_enq_data_i,
  output logic             d64w70q352_enq_ready_o,
  input  wire logic        d64w70q352_deq_valid_i,
  input  wire logic [8:0]  d64w70q352_deq_q_i,
  output logic      [69:0] d64w70q352_deq_data_o,
  output logic      [351:0]d64w70q352_q_nonempty_o,
  output logic             d64w70q352_q_set_o,
  output logic             d64w70q352_q_clr_o,
  output logic      [6:0]  d64w70q352_free_o,
  output logic             d64w70q352_idle_o
);

  logic [0:0] d2w8q1_entry, d2w8q1_wentry;
  voq_buf #(.Depth(2), .NumQ(1)) u_d2w8q1 (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .enq_valid_i  (d2w8q1_enq_valid_i),
    .enq_q_i      (d2w8q1_enq_q_i),
    .enq_entry_o  (d2w8q1_wentry),
    .enq_ready_o  (d2w8q1_enq_ready_o),
    .deq_valid_i  (d2w8q1_deq_valid_i),
    .deq_q_i      (d2w8q1_deq_q_i),
    .deq_entry_o  (d2w8q1_entry),
    .q_nonempty_o (d2w8q1_q_nonempty_o),
    .q_set_o      (d2w8q1_q_set_o),
    .q_clr_o      (d2w8q1_q_clr_o),
    .free_o       (d2w8q1_free_o),
    .idle_o       (d2w8q1_idle_o)
  );
  ram_1r1w #(.Depth(2), .Width(8)) u_d2w8q1_words (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (d2w8q1_enq_valid_i & d2w8q1_enq_ready_o),
    .waddr_i (d2w8q1_wentry),
    .wdata_i (d2w8q1_enq_data_i),
    .raddr_i (d2w8q1_entry),
    .rdata_o (d2w8q1_deq_data_o)
  );

  logic [1:0] d4w8q3_entry, d4w8q3_wentry;
  voq_buf #(.Depth(4), .NumQ(3)) u_d4w8q3 (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .enq_valid_i  (d4w8q3_enq_valid_i),
    .enq_q_i      (d4w8q3_enq_q_i),
    .enq_entry_o  (d4w8q3_wentry),
    .enq_ready_o  (d4w8q3_enq_ready_o),
    .deq_valid_i  (d4w8q3_deq_valid_i),
    .deq_q_i      (d4w8q3_deq_q_i),
    .deq_entry_o  (d4w8q3_entry),
    .q_nonempty_o (d4w8q3_q_nonempty_o),
    .q_set_o      (d4w8q3_q_set_o),
    .q_clr_o      (d4w8q3_q_clr_o),
    .free_o       (d4w8q3_free_o),
    .idle_o       (d4w8q3_idle_o)
  );
  ram_1r1w #(.Depth(4), .Width(8)) u_d4w8q3_words (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (d4w8q3_enq_valid_i & d4w8q3_enq_ready_o),
    .waddr_i (d4w8q3_wentry),
    .wdata_i (d4w8q3_enq_data_i),
    .raddr_i (d4w8q3_entry),
    .rdata_o (d4w8q3_deq_data_o)
  );

  logic [2:0] d5w8q2_entry, d5w8q2_wentry;
  voq_buf #(.Depth(5), .NumQ(2)) u_d5w8q2 (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .enq_valid_i  (d5w8q2_enq_valid_i),
    .enq_q_i      (d5w8q2_enq_q_i),
    .enq_entry_o  (d5w8q2_wentry),
    .enq_ready_o  (d5w8q2_enq_ready_o),
    .deq_valid_i  (d5w8q2_deq_valid_i),
    .deq_q_i      (d5w8q2_deq_q_i),
    .deq_entry_o  (d5w8q2_entry),
    .q_nonempty_o (d5w8q2_q_nonempty_o),
    .q_set_o      (d5w8q2_q_set_o),
    .q_clr_o      (d5w8q2_q_clr_o),
    .free_o       (d5w8q2_free_o),
    .idle_o       (d5w8q2_idle_o)
  );
  ram_1r1w #(.Depth(5), .Width(8)) u_d5w8q2_words (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (d5w8q2_enq_valid_i & d5w8q2_enq_ready_o),
    .waddr_i (d5w8q2_wentry),
    .wdata_i (d5w8q2_enq_data_i),
    .raddr_i (d5w8q2_entry),
    .rdata_o (d5w8q2_deq_data_o)
  );

  logic [1:0] d3w1q4_entry, d3w1q4_wentry;
  voq_buf #(.Depth(3), .NumQ(4)) u_d3w1q4 (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .enq_valid_i  (d3w1q4_enq_valid_i),
    .enq_q_i      (d3w1q4_enq_q_i),
    .enq_entry_o  (d3w1q4_wentry),
    .enq_ready_o  (d3w1q4_enq_ready_o),
    .deq_valid_i  (d3w1q4_deq_valid_i),
    .deq_q_i      (d3w1q4_deq_q_i),
    .deq_entry_o  (d3w1q4_entry),
    .q_nonempty_o (d3w1q4_q_nonempty_o),
    .q_set_o      (d3w1q4_q_set_o),
    .q_clr_o      (d3w1q4_q_clr_o),
    .free_o       (d3w1q4_free_o),
    .idle_o       (d3w1q4_idle_o)
  );
  ram_1r1w #(.Depth(3), .Width(1)) u_d3w1q4_words (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (d3w1q4_enq_valid_i & d3w1q4_enq_ready_o),
    .waddr_i (d3w1q4_wentry),
    .wdata_i (d3w1q4_enq_data_i),
    .raddr_i (d3w1q4_entry),
    .rdata_o (d3w1q4_deq_data_o)
  );

  logic [3:0] d16w70q11_entry, d16w70q11_wentry;
  voq_buf #(.Depth(16), .NumQ(11)) u_d16w70q11 (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .enq_valid_i  (d16w70q11_enq_valid_i),
    .enq_q_i      (d16w70q11_enq_q_i),
    .enq_entry_o  (d16w70q11_wentry),
    .enq_ready_o  (d16w70q11_enq_ready_o),
    .deq_valid_i  (d16w70q11_deq_valid_i),
    .deq_q_i      (d16w70q11_deq_q_i),
    .deq_entry_o  (d16w70q11_entry),
    .q_nonempty_o (d16w70q11_q_nonempty_o),
    .q_set_o      (d16w70q11_q_set_o),
    .q_clr_o      (d16w70q11_q_clr_o),
    .free_o       (d16w70q11_free_o),
    .idle_o       (d16w70q11_idle_o)
  );
  ram_1r1w #(.Depth(16), .Width(70)) u_d16w70q11_words (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (d16w70q11_enq_valid_i & d16w70q11_enq_ready_o),
    .waddr_i (d16w70q11_wentry),
    .wdata_i (d16w70q11_enq_data_i),
    .raddr_i (d16w70q11_entry),
    .rdata_o (d16w70q11_deq_data_o)
  );

  logic [5:0] d64w70q352_entry, d64w70q352_wentry;
  voq_buf #(.Depth(64), .NumQ(352)) u_d64w70q352 (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .enq_valid_i  (d64w70q352_enq_valid_i),
    .enq_q_i      (d64w70q352_enq_q_i),
    .enq_entry_o  (d64w70q352_wentry),
    .enq_ready_o  (d64w70q352_enq_ready_o),
    .deq_valid_i  (d64w70q352_deq_valid_i),
    .deq_q_i      (d64w70q352_deq_q_i),
    .deq_entry_o  (d64w70q352_entry),
    .q_nonempty_o (d64w70q352_q_nonempty_o),
    .q_set_o      (d64w70q352_q_set_o),
    .q_clr_o      (d64w70q352_q_clr_o),
    .free_o       (d64w70q352_free_o),
    .idle_o       (d64w70q352_idle_o)
  );
  ram_1r1w #(.Depth(64), .Width(70)) u_d64w70q352_words (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (d64w70q352_enq_valid_i & d64w70q352_enq_ready_o),
    .waddr_i (d64w70q352_wentry),
    .wdata_i (d64w70q352_enq_data_i),
    .raddr_i (d64w70q352_entry),
    .rdata_o (d64w70q352_deq_data_o)
  );

endmodule
`default_nettype wire
