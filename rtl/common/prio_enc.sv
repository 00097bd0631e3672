`default_nettype none
// Priority encoder: of the set bits of req_i, the lowest index wins.
module prio_enc #(
  /// Number of inputs (>= 1).
  parameter int N = 8,
  /// Index width in bits (derived; do not override).
  localparam int IdxW = (N > 1) ? $clog2(N) : 1
) (
  /// Requests, one bit per input.
  input  wire logic [N-1:0]    req_i,
  /// One-hot winner (all zero when no request).
  output logic      [N-1:0]    onehot_o,
  /// Index of the winner (0 when no request).
  output logic      [IdxW-1:0] idx_o,
  /// At least one request is set.
  output logic                 valid_o
);

  if (N < 1) begin : g_bad_n
    $error("prio_enc: N must be >= 1");
  end

  // Bit b*NW + i is bit b of index i (NW: N, at least 1, so that an illegal N reaches its $error).
  localparam int NW = (N > 0) ? N : 1;
  function automatic logic [IdxW*NW-1:0] index_bits();
    index_bits = '0;
    for (int b = 0; b < IdxW; b++)
      for (int i = 0; i < NW; i++) index_bits[b*NW + i] = 1'((i >> b) & 1);
  endfunction
  localparam logic [IdxW*NW-1:0] IdxBits = index_bits();

  // x & -x isolates the lowest set bit: one carry chain instead of an N-deep mux chain. The index
  // is the OR of the indices of the (at most one) set bits, one reduction per index bit; without a
  // request there is nothing to encode (in simulation an idle encoder costs a test).
  always_comb begin
    onehot_o = req_i & (~req_i + N'(1));
    idx_o    = '0;
    if (req_i != '0)
      for (int b = 0; b < IdxW; b++) idx_o[b] = |(NW'(onehot_o) & IdxBits[b*NW +: NW]);
  end

  assign valid_o = |req_i;

endmodule
`default_nettype wire
