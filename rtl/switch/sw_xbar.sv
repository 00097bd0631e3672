`default_nettype none

// One column of the CXL switch's crossbar and the output register it fills (sw_words has one per
// output port): in the traversal stage the word of the input the output was matched to (in_msg_i:
// every input's word, each read out of its buffer), or the MSI the output sends, enters the
// register. sw_words' simulation form of a switch with virtual output queues moves the words
// without it (see there).
//
// Two forms of the column. Synthesis (SYNTHESIS defined) compares the index with each input and
// ORs the selected word in: Yosys builds an indexed select in_msg_i[sel_i*FlitW +: FlitW] as a
// shifter behind a multiplier by FlitW (not a power of two), twice the cells (18 364 against 9 146
// for the 8-input egress that held the column before). Simulation reads the one word indexed, and
// only in a cycle that loads it. The fabric_top_c4m2_synth model (Verilated with SYNTHESIS defined)
// and tb/test_fabric.c check that the switch behaves the same cycle for cycle either way.
//
// A module of its own so that hierarchical synthesis maps the column and its register once for all
// outputs (constraints/cxl_switch.flow).
module sw_xbar #(
  /// number of input ports of the switch
  parameter int unsigned NumIn = 4,
  localparam int unsigned FlitW = msg_pkg::FLIT_W,
  localparam int unsigned InW   = (NumIn > 1) ? $clog2(NumIn) : 1
) (
  /// switch clock
  input  wire logic                   clk_i,
  /// per input (bits i*FlitW +: FlitW): its word
  input  wire logic [NumIn*FlitW-1:0] in_msg_i,
  /// the input selected (below NumIn)
  input  wire logic [InW-1:0]         sel_i,
  /// a word enters the register this cycle: the selected input's, or the MSI
  input  wire logic                   load_i,
  /// it is the MSI
  input  wire logic                   msi_i,
  /// the MSI
  input  wire logic [FlitW-1:0]       msi_msg_i,
  /// the bytes on the link of the word loaded this cycle (valid with load_i)
  output logic      [7:0]             bytes_o,
  /// the output register
  output logic      [FlitW-1:0]       msg_o
);
  if (NumIn < 2) begin : g_bad_in
    $error("sw_xbar: NumIn must be at least 2");
  end

  logic [FlitW-1:0] col, msg_q;

`ifdef SYNTHESIS
  always_comb begin
    col = '0;
    for (int i = 0; i < NumIn; i++)
      if (sel_i == InW'(i)) col = in_msg_i[i*FlitW +: FlitW];
  end
`else
  assign col = in_msg_i[32'(sel_i)*FlitW +: FlitW];
`endif

  // An MSI carries no data words: its bytes are the header's.
  always_comb begin
    bytes_o = 8'(msg_pkg::HEADER_BYTES);
    if (load_i && !msi_i)
      bytes_o = msg_pkg::msg_bytes(col[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::FIELD_OPCODE_W],
                                   col[msg_pkg::FIELD_MASK_LSB +: msg_pkg::FIELD_MASK_W]);
  end

  always_ff @(posedge clk_i) begin
    if (load_i) msg_q <= msi_i ? msi_msg_i : col;
  end

  assign msg_o = msg_q;

endmodule
`default_nettype wire
