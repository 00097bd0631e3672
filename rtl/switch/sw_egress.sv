`default_nettype none
`include "assert.svh"

// One output port of the CXL switch (cxl_switch has one per port): the credits its link partner
// granted, the credit turns, the class of the message allocated to it, and the traversal stage's
// control (the word itself moves in sw_words: crossbar column and output register).
//
// Allocation stage (combinational from registers, the queue states and the allocator's match): per
// class a count of the partner's credits (avail_o: a credit, or the node is fenced; plenty: two or
// more, or fenced) and the credit turns (sw_turns: per class the holder whose turn it is);
// from both, which input may send which class here now, and so the allocator's requests for this
// output (req_o: inputs holding such a message) and, for the input the allocator matched here, the
// classes it may send (match_elig_o). When the allocator matches an input here, the class that
// input's round-robin picked (in_cls_i) takes a credit and, when the input owned the turn, the
// turn; an MSI (msi_i) takes an MGREQ credit instead. A fenced output takes no credit. The match
// is registered.
//
// Traversal stage (the next cycle): the matched input's message (xbar_sel_o), or the MSI
// (msi_busy_o), enters the output register (send_o: sw_words moves the word). A message matched while
// the output's node was fenced, or whose node is fenced now, is sunk instead (sunk_o): a fenced
// output took no credit, and a dead node receives nothing.
module sw_egress #(
  /// number of input ports of the switch
  parameter int unsigned NumIn        = 4,
  /// largest number of credits per class the link partner may grant
  parameter int unsigned MaxTxCredits = 64,
  localparam int unsigned NumCls      = msg_pkg::NUM_CLASSES,
  localparam int unsigned ClsW        = $clog2(NumCls),
  localparam int unsigned InW         = (NumIn > 1) ? $clog2(NumIn) : 1
) (
  /// switch clock
  input  wire logic                    clk_i,
  /// synchronous reset, active low
  input  wire logic                    rst_ni,
  /// this output's node is fenced: its credits restart from zero, it takes anything and sinks it
  input  wire logic                    fenced_i,
  /// per class: a credit returned by the link partner
  input  wire logic [NumCls-1:0]       crd_give_i,
  /// per class: the output holds a credit of the class
  output logic      [NumCls-1:0]       crd_avail_o,
  /// per class: the output can take a message of the class (a credit, or fenced)
  output logic      [NumCls-1:0]       avail_o,
  /// bit c*NumIn + i: input i holds a message of class c for this output
  input  wire logic [NumCls*NumIn-1:0] holders_i,
  /// per class: some input holds a message of the class for this output
  output logic      [NumCls-1:0]       held_o,
  /// per input: the allocator's request, input i holds a message of a class it may send here now
  /// (a credit, and two or more of them or its turn)
  output logic      [NumIn-1:0]        req_o,
  /// the allocator matched an input to this output (allocation stage)
  input  wire logic                    match_valid_i,
  /// the matched input
  input  wire logic [InW-1:0]          match_in_i,
  /// per class: the matched input holds a message of the class and may send it here now
  output logic      [NumCls-1:0]       match_elig_o,
  /// per input (bits i*ClsW +: ClsW): the class its round-robin picks for the matched output
  input  wire logic [NumIn*ClsW-1:0]   in_cls_i,
  /// an MSI takes this output instead (it is not matched this cycle)
  input  wire logic                    msi_i,
  /// the input matched in the previous cycle, whose message the crossbar column brings (traversal)
  output logic      [InW-1:0]          xbar_sel_o,
  /// a message enters the output register this cycle (traversal stage): the matched input's, or
  /// the MSI while msi_busy_o
  output logic                         send_o,
  /// its class
  output logic      [ClsW-1:0]         send_cls_o,
  /// a message matched here is sunk this cycle: the node was or is fenced
  output logic                         sunk_o,
  /// an MSI is in the traversal stage
  output logic                         msi_busy_o,
  /// the MSI in the traversal stage enters the output register (is acknowledged)
  output logic                         msi_sent_o,
  /// a message leaves toward the link (sw_words holds it)
  output logic                         tx_valid_o,
  /// a message is in the traversal stage or the output register
  output logic                         busy_o
);
  localparam int unsigned TxCrdW = $clog2(MaxTxCredits + 1);

  if (NumIn < 2) begin : g_bad_in
    $error("sw_egress: NumIn must be at least 2");
  end

  // ---- credits from the link partner, per class ----
  // One count per class, word-wide, with its two flags (a credit; two or more) registered beside it,
  // so that a cycle in which no credit comes back and none is taken reads flops and computes
  // nothing: in simulation an idle output costs a test. (A credit_cnt per class did the same job;
  // at 16 + 16 its 352 instances cost Verilator a call each, every evaluation.) A fenced output
  // holds no credit and takes none.
  logic [NumCls*TxCrdW-1:0] crd_q, crd_d;
  logic [NumCls-1:0]        nz_q, nz_d, many_q, many_d, take, take_turn, plenty;

  always_comb begin
    crd_d  = crd_q;
    nz_d   = nz_q;
    many_d = many_q;
    if (crd_give_i != '0 || take != '0) begin
      for (int c = 0; c < NumCls; c++) begin
        crd_d[c*TxCrdW +: TxCrdW] = crd_q[c*TxCrdW +: TxCrdW] + TxCrdW'(crd_give_i[c]) - TxCrdW'(take[c]);
        nz_d[c]   = crd_d[c*TxCrdW +: TxCrdW] != '0;
        many_d[c] = crd_d[c*TxCrdW +: TxCrdW] > TxCrdW'(1);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni || fenced_i) begin
      crd_q  <= '0;
      nz_q   <= '0;
      many_q <= '0;
    end else begin
      crd_q  <= crd_d;
      nz_q   <= nz_d;
      many_q <= many_d;
    end
  end

  assign crd_avail_o = nz_q;
  assign avail_o     = nz_q | {NumCls{fenced_i}};
  assign plenty      = many_q | {NumCls{fenced_i}};

  // ---- credit turns, per class ----
  logic [NumCls*NumIn-1:0] turn;

  sw_turns #(
    .NumIn (NumIn),
    .NumK  (NumCls)
  ) u_turns (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .holders_i (holders_i),
    .ack_i     (take_turn),
    .turn_o    (turn),
    .valid_o   (held_o)
  );

  // Per class, the inputs that may send it here now; the requests are the inputs that hold such a
  // message for a class, word-wide per class (holders_i is in the layout this needs: no transpose).
  // No holder, no request: an output nobody sends to costs a test.
  logic [NumCls*NumIn-1:0] crd_ok;

  always_comb begin
    req_o  = '0;
    crd_ok = '0;
    if (holders_i != '0) begin
      for (int c = 0; c < NumCls; c++) begin
        crd_ok[c*NumIn +: NumIn] = {NumIn{avail_o[c]}} & ({NumIn{plenty[c]}} | turn[c*NumIn +: NumIn]);
        req_o = req_o | (holders_i[c*NumIn +: NumIn] & crd_ok[c*NumIn +: NumIn]);
      end
    end
  end

  // ---- allocation: the class sent, its credit and turn taken ----
  // The matched input's classes (its bit of each class's holders and permissions), the class its
  // round-robin picked, and the credit and turn that class takes; nothing while unmatched.
  logic [ClsW-1:0] cls;

  always_comb begin
    match_elig_o = '0;
    take_turn    = '0;
    take         = '0;
    cls          = '0;
    if (match_valid_i) begin
      for (int c = 0; c < NumCls; c++)
        match_elig_o[c] = holders_i[c*NumIn + 32'(match_in_i)] & crd_ok[c*NumIn + 32'(match_in_i)];
      cls            = in_cls_i[32'(match_in_i)*ClsW +: ClsW];
      take_turn[cls] = turn[32'(cls)*NumIn + 32'(match_in_i)];
    end
    if (msi_i) cls = ClsW'(msg_pkg::CLS_MGREQ);
    if (match_valid_i || msi_i) take[cls] = ~fenced_i;
  end

  // ---- the match, registered for the traversal stage ----
  logic            s2_valid_q, s2_msi_q, s2_sink_q;
  logic [InW-1:0]  s2_in_q;
  logic [ClsW-1:0] s2_cls_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      s2_valid_q <= 1'b0;
      s2_msi_q   <= 1'b0;
    end else begin
      s2_valid_q <= match_valid_i;
      s2_msi_q   <= msi_i;
    end
  end

  // The matched input and class go with the match (unmatched, the registers keep what they had).
  always_ff @(posedge clk_i) begin
    s2_sink_q <= fenced_i;
    if (match_valid_i || msi_i) begin
      s2_in_q  <= match_in_i;
      s2_cls_q <= cls;
    end
  end

  // ---- traversal: what enters the output register ----
  logic lost, tx_valid_q;

  assign lost       = s2_sink_q | fenced_i;
  assign xbar_sel_o = s2_in_q;
  assign send_o     = (s2_valid_q | s2_msi_q) & ~lost;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) tx_valid_q <= 1'b0;
    else         tx_valid_q <= send_o;
  end

  assign send_cls_o = s2_cls_q;
  assign sunk_o     = s2_valid_q & lost;
  assign msi_busy_o = s2_msi_q;
  assign msi_sent_o = s2_msi_q & ~lost;
  assign tx_valid_o = tx_valid_q;
  assign busy_o     = s2_valid_q | s2_msi_q | tx_valid_q;

  // A message is allocated the output only with a credit of its class; the partner never returns
  // more than MaxTxCredits (credit_cnt's checks, per class); the flags are their counts'; an output
  // taken by an MSI is not matched.
  `ASSERT(tx_has_credit, (take & ~crd_avail_o) == '0)
  for (genvar c = 0; c < NumCls; c++) begin : g_chk_crd
    `ASSERT(crd_no_overflow, (TxCrdW + 1)'(crd_q[c*TxCrdW +: TxCrdW]) + (TxCrdW + 1)'(crd_give_i[c]) <=
                             (TxCrdW + 1)'(MaxTxCredits) + (TxCrdW + 1)'(take[c]))
    `ASSERT(crd_flags_match, nz_q[c] == (crd_q[c*TxCrdW +: TxCrdW] != '0) &&
                             many_q[c] == (crd_q[c*TxCrdW +: TxCrdW] > TxCrdW'(1)))
  end
  `ASSERT(msi_output_free, !(msi_i && match_valid_i))

endmodule
`default_nettype wire
