`default_nettype none
`include "assert.svh"

// Credit turns of the CXL switch: for each of NumK (output, class) pairs, the input whose turn it
// is to use that output's credits of that class. Pair k holds a round-robin pointer; its turn goes
// to the first holder (an input with a message of the class for the output) at or after the
// pointer, wrapping around, and the pointer moves just past that input when it sends one (ack_i).
// So an input that keeps holding gets the turn after at most NumIn - 1 sends by others.
//
// One module for several pairs rather than one rr_arb per pair: the pointer is an index (log2
// NumIn flops instead of an NumIn-bit mask) and the pairs are a word-wide loop, which keeps the
// arbiters small in synthesis and in the Verilated model alike. The switch has one per output port
// (in sw_egress, NumK = the classes): one per switch, with all 352 pairs of a 16 + 16 switch in one
// loop, took Yosys 3.5 minutes to elaborate and 2.5 more in proc, and was one big netlist.
module sw_turns #(
  /// number of inputs (>= 2)
  parameter int unsigned NumIn = 6,
  /// number of (output, class) pairs (>= 1)
  parameter int unsigned NumK  = 66,
  localparam int unsigned IdxW = $clog2(NumIn)
) (
  /// switch clock
  input  wire logic                  clk_i,
  /// synchronous reset, active low: every pointer at input 0
  input  wire logic                  rst_ni,
  /// bit k*NumIn + i: input i holds a message for pair k
  input  wire logic [NumK*NumIn-1:0] holders_i,
  /// pair k: the input whose turn it is sent a message (moves the pointer past it)
  input  wire logic [NumK-1:0]       ack_i,
  /// bit k*NumIn + i: it is input i's turn at pair k (one-hot per pair, only among holders)
  output logic      [NumK*NumIn-1:0] turn_o,
  /// pair k has a holder
  output logic      [NumK-1:0]       valid_o
);
  if (NumIn < 2) begin : g_bad_in
    $error("sw_turns: NumIn must be at least 2");
  end
  if (NumK < 1) begin : g_bad_k
    $error("sw_turns: NumK must be at least 1");
  end

  // Bit b*NumIn + i is bit b of index i: turns a one-hot pick into its index word-wide (a loop
  // over the index bits, not over the inputs, which Verilator would write out per bit and per
  // instance).
  function automatic logic [IdxW*NumIn-1:0] index_bits(int unsigned n);
    index_bits = '0;
    for (int b = 0; b < IdxW; b++)
      for (int i = 0; i < n; i++) index_bits[b*n + i] = 1'((i >> b) & 1);
  endfunction
  localparam logic [IdxW*NumIn-1:0] IdxBits = index_bits(NumIn);

  logic [NumK*IdxW-1:0] ptr_q, ptr_d, pick;

  // A pair without holders is skipped (no turn, pick 0), and so is the whole loop when no pair has
  // one: in simulation an idle output costs a test.
  always_comb begin
    logic [NumIn-1:0] h, at_or_after, first;
    valid_o     = '0;
    turn_o      = '0;
    pick        = '0;
    h           = '0;
    at_or_after = '0;
    first       = '0;
    if (holders_i != '0) begin
      for (int k = 0; k < NumK; k++) begin
        h = holders_i[k*NumIn +: NumIn];
        if (h != '0) begin
          valid_o[k]  = 1'b1;
          at_or_after = h & ~((NumIn'(1) << ptr_q[k*IdxW +: IdxW]) - NumIn'(1));
          if (at_or_after == '0) at_or_after = h;
          first       = at_or_after & (~at_or_after + NumIn'(1)); // its lowest set bit
          for (int b = 0; b < IdxW; b++) pick[k*IdxW + b] = |(first & IdxBits[b*NumIn +: NumIn]);
          turn_o[k*NumIn +: NumIn] = first;
        end
      end
    end
  end

  always_comb begin
    ptr_d = ptr_q;
    if (ack_i != '0) begin
      for (int k = 0; k < NumK; k++)
        if (ack_i[k] && valid_o[k])
          ptr_d[k*IdxW +: IdxW] = (pick[k*IdxW +: IdxW] == IdxW'(NumIn - 1)) ? '0 : pick[k*IdxW +: IdxW] + IdxW'(1);
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) ptr_q <= '0;
    else         ptr_q <= ptr_d;
  end

  // A turn is acknowledged only where there is one.
  `ASSERT(ack_has_turn, (ack_i & ~valid_o) == '0)

endmodule
`default_nettype wire
