`default_nettype none

// One column of the CXL switch's crossbar (cxl_switch has one per output port): the message of the
// input the output was matched to, out of every input's message (each read out of its buffer in
// the traversal stage). Combinational.
//
// Two forms of one function. Synthesis (SYNTHESIS defined) compares the index with each input and
// ORs the selected message in: Yosys builds an indexed select in_msg_i[sel_i*FlitW +: FlitW] as a
// shifter behind a multiplier by FlitW (not a power of two), twice the cells (18 364 against 9 146
// for the 8-input egress that held the column before). Simulation reads the one message indexed:
// the comparison form costs Verilator a test and a FlitW-bit copy per input, every cycle, for every
// output. The fabric_top_c4m2_synth model (Verilated with SYNTHESIS defined) and tb/test_fabric.c
// check that the switch behaves the same cycle for cycle either way.
//
// A module of its own so that hierarchical synthesis maps the column once for all outputs
// (constraints/cxl_switch.flow), as it did inside sw_egress; Verilator inlines it, so in_msg_i is
// the switch's own vector, not a copy per output.
module sw_xbar #(
  /// number of input ports of the switch
  parameter int unsigned NumIn = 4,
  /// message (flit) width in bits
  parameter int unsigned Width = msg_pkg::FLIT_W,
  localparam int unsigned InW  = (NumIn > 1) ? $clog2(NumIn) : 1
) (
  /// per input (bits i*Width +: Width): its message
  input  wire logic [NumIn*Width-1:0] in_msg_i,
  /// the input selected (below NumIn)
  input  wire logic [InW-1:0]         sel_i,
  /// its message
  output logic      [Width-1:0]       msg_o
);
  if (NumIn < 2) begin : g_bad_in
    $error("sw_xbar: NumIn must be at least 2");
  end

`ifdef SYNTHESIS
  always_comb begin
    msg_o = '0;
    for (int i = 0; i < NumIn; i++)
      if (sel_i == InW'(i)) msg_o = in_msg_i[i*Width +: Width];
  end
`else
  assign msg_o = in_msg_i[32'(sel_i)*Width +: Width];
`endif

endmodule
`default_nettype wire
