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
  /// Number of counters (>= 1), each with its own credits (a link's classes in one instance):
  /// counter k's ports are bits [k*GiveW +: GiveW], k and [k*CntW +: CntW].
  parameter int Num = 1,
  /// Width in bits of crd_skip_i per counter (>= 1).
  parameter int SkipW = 1,
  /// Width in bits of the count (derived; do not override).
  localparam int CntW = $clog2(MaxCredits + 1)
) (
  /// Clock.
  input  wire logic                 clk_i,
  /// Synchronous active-low reset: count back to InitCredits.
  input  wire logic                 rst_ni,
  /// Credits returned this cycle (a count, 0 .. 2**GiveW - 1), per counter.
  input  wire logic [Num*GiveW-1:0] crd_give_i,
  /// One credit spent this cycle, per counter.
  input  wire logic [Num-1:0]       crd_take_i,
  /// Simulation only (ignored by synthesis, 0 in hardware): credits returned at the cycles the
  /// simulation skipped before this one, which were not clocked, per counter (bits [k*SkipW +:
  /// SkipW]). They count as held before this cycle's edge, as if each had come at its own edge:
  /// crd_avail_o sees them at once and the edge adds them to the count.
  input  wire logic [Num*SkipW-1:0] crd_skip_i,
  /// Credits held now (0 ..= MaxCredits; crd_skip_i's not yet among them), per counter.
  output logic      [Num*CntW-1:0]  crd_left_o,
  /// At least one credit is held now (crd_left_o != 0, or crd_skip_i brings some), per counter.
  output logic      [Num-1:0]       crd_avail_o
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
  if (SkipW < 1) begin : g_bad_skip_w
    $error("credit_cnt: SkipW must be >= 1");
  end
  if (Num < 1) begin : g_bad_num
    $error("credit_cnt: Num must be >= 1");
  end

  // Wide enough for count + give + skipped without wrapping, so the overflow check sees the true
  // sum.
  localparam int MaxW = (CntW > GiveW) ? ((CntW > SkipW) ? CntW : SkipW) : ((GiveW > SkipW) ? GiveW : SkipW);
  localparam int SumW = MaxW + 2;

  logic [Num*CntW-1:0]  crd_q;
  logic [Num-1:0]       avail_q;
  logic [Num*SkipW-1:0] skip;      // credits of skipped cycles: crd_skip_i, none in hardware
  logic [Num-1:0]       skip_nz;   // per counter: some

`ifndef SYNTHESIS
  assign skip = crd_skip_i;
`else
  logic [Num*SkipW-1:0] crd_skip_unused;
  assign skip            = '0;
  assign crd_skip_unused = crd_skip_i;
`endif
  // (Tested whole first: most cycles bring no skipped credit, and a Verilated model then skips
  // the per-counter tests, about 50 host instructions per evaluation of the LU and the directory.)
  always_comb begin
    skip_nz = '0;
    if (skip != '0)
      for (int k = 0; k < Num; k++) skip_nz[k] = skip[k*SkipW +: SkipW] != '0;
  end

  // The next counts in the clocked block, against the house habit of `q <= d` with d
  // combinational: so the credits returned, a top input of the LU and the directory, reach no
  // combinational logic (but the checks', Verilated with assertions), and a cycle that only
  // returns a credit costs their Verilated models no evaluation of the logic of their inputs
  // before the edge (scripts/gen_vwrap.py, clocked_only: paper.ini's short runs 1.4 to 2.9 % fewer
  // host instructions). The counts and their "not zero" are written only in a cycle that returns
  // or spends a credit, so that a Verilated model does nothing for its counters at the other edges
  // (most of them: the LU's and the directory's eleven classes were eleven instances, about a
  // hundred host instructions at every edge). The same flip-flops for synthesis.
  // (n is written only where it is read: an edge that writes no count leaves every signal as it
  // was, which DIKTAMO_CHECK_IDLE checks of an idle block's edge.)
  // (The counts are worked out in a variable and written whole: written part by part, the vector
  // was copied into a shadow and back at every edge of the Verilated model. Within the variable
  // only the counters that move are worked out, one or two of eleven in most such cycles: 0.4 to
  // 0.6 % fewer host instructions on paper.ini's system runs, for 22 more cells at eleven 8-bit
  // counters, the multiplexers of counts that would not change.)
  always_ff @(posedge clk_i) begin
    logic [CntW-1:0]     n;
    logic [Num*CntW-1:0] c;
    logic [Num-1:0]      a;
    if (!rst_ni) begin
      crd_q   <= {Num{CntW'(InitCredits)}};
      avail_q <= {Num{InitCredits != 0}};
    end else if (crd_give_i != '0 || crd_take_i != '0 || skip_nz != '0) begin
      c = crd_q;
      a = avail_q;
      for (int k = 0; k < Num; k++)
        if (crd_give_i[k*GiveW +: GiveW] != '0 || crd_take_i[k] || skip_nz[k]) begin
          n                 = CntW'(SumW'(crd_q[k*CntW +: CntW]) + SumW'(crd_give_i[k*GiveW +: GiveW]) +
                                    SumW'(skip[k*SkipW +: SkipW]) - SumW'(crd_take_i[k]));
          c[k*CntW +: CntW] = n;
          a[k]              = n != '0;
        end
      crd_q   <= c;
      avail_q <= a;
    end
  end

  assign crd_left_o  = crd_q;
  assign crd_avail_o = avail_q | skip_nz;

  for (genvar k = 0; k < Num; k++) begin : g_chk
    logic [SumW-1:0] sum;
    assign sum = SumW'(crd_q[k*CntW +: CntW]) + SumW'(crd_give_i[k*GiveW +: GiveW]) +
                 SumW'(skip[k*SkipW +: SkipW]); // (the checks')
    `ASSERT(crd_no_underflow, !crd_take_i[k] || sum != '0)
    `ASSERT(crd_no_overflow, sum - SumW'(crd_take_i[k]) <= SumW'(MaxCredits))
    `ASSERT(crd_in_range, SumW'(crd_q[k*CntW +: CntW]) <= SumW'(MaxCredits))
    `ASSERT(crd_avail_exact, avail_q[k] == (crd_q[k*CntW +: CntW] != '0))
  end

endmodule
`default_nettype wire
