`default_nettype none
`include "assert.svh"

// Credit return of one switch input port (sw_ingress, sw_ingress_fifo): the credits the port gives
// back to its link partner, per message class.
//
// Per class the port counts the credits it owes its link partner and returns one per cycle while
// it owes any, as a CXL link advertises its buffers: at (re)start (restart_i: at enable, and when
// the port's node is re-admitted) it owes adv_i, the credits per class the switch advertises (at
// most CrdPerCls, the buffer entries per class; CSR CRD_ADV); then one more for each message that
// leaves its buffer (leave_i) and each one sunk for want of a route (sunk_i). A credit earned while
// earlier ones are still going back (during the advertisement, or two in one cycle) waits in the
// count and is never lost. The count never exceeds adv_i: the sender's credits, the messages on the
// link and in the buffer, and the credits owed or on their way back are always adv_i in all.
// Nothing goes back to a fenced node (fenced_i).
module sw_crd_ret #(
  /// credits (buffer entries) per message class
  parameter int unsigned CrdPerCls = 4,
  localparam int unsigned NumCls   = msg_pkg::NUM_CLASSES,
  localparam int unsigned ClsW     = $clog2(NumCls),
  localparam int unsigned AdvW     = $clog2(CrdPerCls + 1)
) (
  /// switch clock
  input  wire logic              clk_i,
  /// synchronous reset, active low: nothing advertised until the first restart
  input  wire logic              rst_ni,
  /// (re)start: advertise adv_i credits per class again, from the next cycle
  input  wire logic              restart_i,
  /// credits per class to advertise at (re)start (1 .. CrdPerCls; constant while the link runs)
  input  wire logic [AdvW-1:0]   adv_i,
  /// the port's node is failed: return nothing
  input  wire logic              fenced_i,
  /// per class: a message of the class left the buffer this cycle
  input  wire logic [NumCls-1:0] leave_i,
  /// a message was sunk this cycle ...
  input  wire logic              sunk_i,
  /// ... of this class
  input  wire logic [ClsW-1:0]   sunk_cls_i,
  /// one credit returned to the link partner per set bit (bit = class)
  output logic      [NumCls-1:0] crd_o,
  /// the link partner may hold credits: started, and the advertisement under way or done
  output logic                   open_o,
  /// no credit is being advertised, returned or waiting
  output logic                   idle_o
);
  localparam int unsigned OweW = $clog2(CrdPerCls + 2);

  if (CrdPerCls < 1) begin : g_bad_crd
    $error("sw_crd_ret: CrdPerCls must be at least 1");
  end

  logic                   started_q, open_q;
  logic [NumCls-1:0]      crd_q, crd_d;
  logic [NumCls*OweW-1:0] owe_q, owe_d;

  // Nothing owed, nothing leaving, nothing sunk: nothing to count (in simulation an idle port costs
  // a test).
  always_comb begin
    owe_d = owe_q;
    crd_d = '0;
    if (owe_q != '0 || leave_i != '0 || sunk_i) begin
      for (int c = 0; c < NumCls; c++) begin
        owe_d[c*OweW +: OweW] = owe_q[c*OweW +: OweW] + OweW'(leave_i[c]) +
                                OweW'(sunk_i && sunk_cls_i == ClsW'(c));
        crd_d[c]              = owe_d[c*OweW +: OweW] != '0;
        owe_d[c*OweW +: OweW] = owe_d[c*OweW +: OweW] - OweW'(crd_d[c]);
      end
    end
    if (fenced_i) begin
      crd_d = '0;
      owe_d = '0;
    end
    if (restart_i)
      owe_d = {NumCls{OweW'(adv_i)}};
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      started_q <= 1'b0;
      open_q    <= 1'b0;
      crd_q     <= '0;
      owe_q     <= '0;
    end else begin
      started_q <= started_q | restart_i;
      open_q    <= ~restart_i & (open_q | |crd_q);
      crd_q     <= crd_d;
      owe_q     <= owe_d;
    end
  end

  assign crd_o  = crd_q;
  assign open_o = started_q & (open_q | |crd_q);
  assign idle_o = ~|crd_q & ~|owe_q;

  // The count stays within the advertised credits (a sender that respects its credits cannot earn
  // more), and what is advertised fits the buffer.
  for (genvar c = 0; c < NumCls; c++) begin : g_chk
    `ASSERT(owe_bounded, owe_q[c*OweW +: OweW] <= OweW'(adv_i))
  end
  `ASSERT(adv_in_range, !restart_i || (adv_i != '0 && 32'(adv_i) <= CrdPerCls))
  // At most one message of a class leaves per cycle.
  `ASSERT(leave_at_most_one, $onehot0(leave_i))

endmodule
`default_nettype wire
