`default_nettype none
// Round-robin arbiter. The grant goes to the first requester at or after the priority pointer,
// wrapping around: a priority encoder over the requests masked to [pointer, N) when any is set
// there, else over all requests (PULP's two encoders, with the choice made before encoding: one
// encoder, and an idle arbiter encodes nothing). The pointer moves just past
// the winner only when the grant is accepted (ack_i), so a requester keeps its turn until served.
// Consequently any requester that keeps requesting is granted within N accepted grants.
// The grant is combinational from req_i and the pointer; requests may change while unacknowledged
// (the grant then follows them; the pointer does not move).
module rr_arb #(
  /// Number of requesters (>= 1).
  parameter int N = 4,
  /// Index width in bits (derived; do not override).
  localparam int IdxW = (N > 1) ? $clog2(N) : 1
) (
  /// Clock.
  input  wire logic            clk_i,
  /// Synchronous active-low reset: pointer back to requester 0.
  input  wire logic            rst_ni,
  /// Requests, one bit per requester.
  input  wire logic [N-1:0]    req_i,
  /// The current grant is accepted this cycle; ignored when gnt_valid_o is low, so it may be tied
  /// to a downstream ready.
  input  wire logic            ack_i,
  /// One-hot grant (all zero when no request).
  output logic      [N-1:0]    gnt_o,
  /// Index of the granted requester (0 when no request).
  output logic      [IdxW-1:0] gnt_idx_o,
  /// Some requester is granted (any request is set).
  output logic                 gnt_valid_o
);
`include "assert.svh"

  if (N < 1) begin : g_bad_n
    $error("rr_arb: N must be >= 1");
  end

  // Thermometer mask: bit i set when requester i is at or after the pointer. Reset: all set
  // (pointer at 0).
  logic [N-1:0] mask_q, mask_d;

  // The requests at or after the pointer when there are any, else all of them: the first of
  // those wins.
  logic [N-1:0] masked, cand;

  assign masked = req_i & mask_q;
  assign cand   = (masked != '0) ? masked : req_i;

  prio_enc #(.N(N)) u_pick (
    .req_i    (cand),
    .onehot_o (gnt_o),
    .idx_o    (gnt_idx_o),
    .valid_o  (gnt_valid_o)
  );

  always_comb begin
    mask_d = mask_q;
    // Bits strictly above the winner: the complement of (winner | everything below it). After the
    // last requester this is all zero, so the next grant falls back to the unmasked encoder.
    if (ack_i && gnt_valid_o) mask_d = ~(gnt_o | (gnt_o - N'(1)));
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) mask_q <= '1;
    else         mask_q <= mask_d;
  end

  `ASSERT(gnt_onehot, $onehot0(gnt_o))
  `ASSERT(gnt_is_requested, (gnt_o & ~req_i) == '0)
  `ASSERT(gnt_valid_iff_req, gnt_valid_o == (req_i != '0))

  // Fairness check: per requester, the accepted grants that went to others while it kept
  // requesting without being served; round robin bounds it by N - 1. Only the assertions read
  // this state, so synthesis (where they are empty) removes it.
  localparam int WaitW = $clog2(N + 1);
  logic [N*WaitW-1:0] wait_q, wait_d;

  always_comb begin
    wait_d = wait_q;
    for (int i = 0; i < N; i++) begin
      if (!req_i[i] || (ack_i && gnt_o[i])) begin
        wait_d[i*WaitW +: WaitW] = '0;
      end else if (ack_i && gnt_valid_o && wait_q[i*WaitW +: WaitW] != WaitW'(N)) begin
        wait_d[i*WaitW +: WaitW] = wait_q[i*WaitW +: WaitW] + WaitW'(1);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) wait_q <= '0;
    else         wait_q <= wait_d;
  end

  // One assertion over all requesters (not one per requester: a switch has hundreds of arbiters,
  // and Verilator writes each assertion out per instance).
  logic starved;

  always_comb begin
    starved = 1'b0;
    for (int i = 0; i < N; i++) starved = starved | (wait_q[i*WaitW +: WaitW] >= WaitW'(N));
  end

  `ASSERT(served_within_n_grants, !starved)

endmodule
`default_nettype wire
