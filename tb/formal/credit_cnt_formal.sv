`default_nettype none
// Formal harness of credit_cnt (Yosys -formal; see constraints/formal/credit_cnt.ys). Beside the
// counter it models the receiver's side of the credit loop: the credits the receiver holds
// (initially MaxCredits - InitCredits, then every credit the sender spends). Under the assumption
// that the receiver returns only credits it holds and the sender spends only credits it has (or
// is given in the same cycle), credits are conserved, so the count never exceeds MaxCredits.
module credit_cnt_formal #(
  /// credit_cnt MaxCredits (credits, >= 1).
  parameter int MaxCredits = 5,
  /// credit_cnt InitCredits (credits, 0 ..= MaxCredits).
  parameter int InitCredits = 2,
  /// credit_cnt GiveW (bits of crd_give_i, >= 1).
  parameter int GiveW = 2,
  /// 1: assume the legal environment above; 0: let the receiver return credits it never had (the
  /// proof must then fail: a check that the assumption is what makes it hold).
  parameter bit EnvLegal = 1,
  /// Width in bits of the count (derived; do not override).
  localparam int CntW = $clog2(MaxCredits + 1)
) (
  /// Clock.
  input  logic             clk_i,
  /// Synchronous active-low reset (free: the solver may reset at any step).
  input  logic             rst_ni,
  /// Credits returned (free input, constrained by the assumptions).
  input  logic [GiveW-1:0] crd_give_i,
  /// One credit spent (free input, constrained by the assumptions).
  input  logic             crd_take_i,
  /// The counter's count, for counterexample traces.
  output logic [CntW-1:0]  crd_left_o
);
`include "assert.svh"

  logic crd_avail;

  credit_cnt #(
    .MaxCredits  (MaxCredits),
    .InitCredits (InitCredits),
    .GiveW       (GiveW)
  ) u_dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .crd_give_i  (crd_give_i),
    .crd_take_i  (crd_take_i),
    .crd_skip_i  ('0),
    .crd_left_o  (crd_left_o),
    .crd_avail_o (crd_avail)
  );

  // Wide enough that sums of two counts and a give never wrap.
  localparam int SumW = ((CntW > GiveW) ? CntW : GiveW) + 2;

  logic [SumW-1:0] at_recv_q, at_recv_d;

  assign at_recv_d = at_recv_q - SumW'(crd_give_i) + SumW'(crd_take_i);

  always_ff @(posedge clk_i) begin
    if (!rst_ni) at_recv_q <= SumW'(MaxCredits - InitCredits);
    else         at_recv_q <= at_recv_d;
  end

  // The environment: the receiver returns only credits it holds, the sender spends only credits
  // it has or is given in the same cycle. Assumed under formal; checked when simulated.
  logic give_ok, take_ok;
  assign give_ok = !EnvLegal || SumW'(crd_give_i) <= at_recv_q;
  assign take_ok = !crd_take_i || crd_avail || crd_give_i != '0;

`ifdef FORMAL
  always @* begin
    if (rst_ni) assume (give_ok && take_ok);
  end
`else
  `ASSERT(env_give_ok, give_ok)
  `ASSERT(env_take_ok, take_ok)
`endif

  `ASSERT(credits_conserved, SumW'(crd_left_o) + at_recv_q == SumW'(MaxCredits))
  `ASSERT(count_le_max, SumW'(crd_left_o) <= SumW'(MaxCredits))
  `ASSERT(avail_iff_nonzero, crd_avail == (crd_left_o != '0))

endmodule
`default_nettype wire
