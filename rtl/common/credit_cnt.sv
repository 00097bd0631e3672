`default_nettype none
// Credit counter (as in PULP common_cells' credit_counter): counts the credits a sender holds for
// a receiver's buffer. The receiver returns credits (crd_give_i, several per cycle when GiveW > 1);
// the sender spends one per message (crd_take_i). A credit returned in a cycle can be spent in the
// same cycle: the count moves by give - take. The receiver must never return more than it was
// given and the sender must never spend a credit it does not have; both are asserted (overflow
// above MaxCredits, underflow below zero) and the count is not clamped, so a protocol error shows
// instead of being hidden.
module credit_cnt #(
  /// Largest number of credits the counter can hold (>= 1): the receiver's buffer size, in messages.
  parameter int MaxCredits = 4,
  /// Credits held after reset (0 ..= MaxCredits); 0 when the receiver hands them out itself.
  parameter int InitCredits = MaxCredits,
  /// Width in bits of crd_give_i (>= 1): up to 2**GiveW - 1 credits returned per cycle.
  parameter int GiveW = 1,
  /// Width in bits of the count (derived; do not override).
  localparam int CntW = $clog2(MaxCredits + 1)
) (
  /// Clock.
  input  logic             clk_i,
  /// Synchronous active-low reset: count back to InitCredits.
  input  logic             rst_ni,
  /// Credits returned this cycle (a count, 0 .. 2**GiveW - 1).
  input  logic [GiveW-1:0] crd_give_i,
  /// One credit spent this cycle.
  input  logic             crd_take_i,
  /// Credits held now (0 ..= MaxCredits).
  output logic [CntW-1:0]  crd_left_o,
  /// At least one credit is held now (crd_left_o != 0).
  output logic             crd_avail_o
);
`include "assert.svh"

  if (MaxCredits < 1) begin : g_bad_max
    $error("credit_cnt: MaxCredits must be >= 1");
  end
  if (InitCredits < 0 || InitCredits > MaxCredits) begin : g_bad_init
    $error("credit_cnt: InitCredits must be in 0 ..= MaxCredits");
  end
  if (GiveW < 1) begin : g_bad_give_w
    $error("credit_cnt: GiveW must be >= 1");
  end

  // Wide enough for count + give without wrapping, so the overflow check sees the true sum.
  localparam int SumW = ((CntW > GiveW) ? CntW : GiveW) + 1;

  logic [CntW-1:0] crd_q;
  logic [SumW-1:0] sum;

  assign sum = SumW'(crd_q) + SumW'(crd_give_i); // (the checks')

  // The next count in the clocked block, against the house habit of `q <= d` with d combinational:
  // so the credits returned, a top input of the LU and the directory, reach no combinational logic
  // (but the checks', Verilated with assertions), and a cycle that only returns a credit costs
  // their Verilated models no evaluation of the logic of their inputs before the edge
  // (scripts/gen_vwrap.py, clocked_only: paper.ini's short runs 1.4 to 2.9 % fewer host
  // instructions). The same flip-flops for synthesis.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) crd_q <= CntW'(InitCredits);
    else         crd_q <= CntW'(SumW'(crd_q) + SumW'(crd_give_i) - SumW'(crd_take_i));
  end

  assign crd_left_o  = crd_q;
  assign crd_avail_o = crd_q != '0;

  `ASSERT(crd_no_underflow, !crd_take_i || sum != '0)
  `ASSERT(crd_no_overflow, sum - SumW'(crd_take_i) <= SumW'(MaxCredits))
  `ASSERT(crd_in_range, SumW'(crd_q) <= SumW'(MaxCredits))

endmodule
`default_nettype wire
