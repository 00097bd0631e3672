`default_nettype none
// Priority encoder: of the set bits of req_i, the lowest index wins.
module prio_enc #(
  /// Number of inputs (>= 1).
  parameter int N = 8,
  /// Index width in bits (derived; do not override).
  localparam int IdxW = (N > 1) ? $clog2(N) : 1
) (
  /// Requests, one bit per input.
  input  logic [N-1:0]    req_i,
  /// One-hot winner (all zero when no request).
  output logic [N-1:0]    onehot_o,
  /// Index of the winner (0 when no request).
  output logic [IdxW-1:0] idx_o,
  /// At least one request is set.
  output logic            valid_o
);

  if (N < 1) begin : g_bad_n
    $error("prio_enc: N must be >= 1");
  end

  // x & -x isolates the lowest set bit: one carry chain instead of an N-deep mux chain.
  assign onehot_o = req_i & (~req_i + N'(1));
  assign valid_o  = |req_i;

  // The index is the OR of the indices of the (at most one) set bits of onehot_o.
  always_comb begin
    idx_o = '0;
    for (int i = 0; i < N; i++) begin
      if (onehot_o[i]) idx_o = idx_o | IdxW'(i);
    end
  end

endmodule
`default_nettype wire
