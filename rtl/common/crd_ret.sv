`default_nettype none
`include "assert.svh"

// Credit return of a receive port (the Logging Unit's lu_rx, the directory's dir_rx, each switch
// input port: sw_ingress, sw_ingress_fifo): the credits the port gives back to its link partner,
// per message class.
//
// Per class the port counts the credits it owes its link partner and returns one per cycle while
// it owes any, as a CXL link advertises its buffers: at start it owes adv_i, the credits per class
// it advertises (at most CrdPerCls, its buffer entries per class); then one more for each message
// that leaves its buffer or is dropped (ret_i counts them per class; sunk_i adds one of class
// sunk_cls_i). A credit earned while earlier ones are still going back (during the advertisement,
// or two in one cycle) waits in the count and is never lost. The count never exceeds adv_i: the
// sender's credits, the messages on the link and in the buffer, and the credits owed or on their
// way back are always adv_i in all. Credits leave from a register (a credit earned at cycle c is on
// crd_o during c + 1 at the earliest).
//
// Start: a node's port (StartAtReset = 1: the LU's, the directory's) owes CrdPerCls per class from
// reset, its link up with the node; a switch port (StartAtReset = 0) owes nothing until restart_i
// (at enable, and when its node is re-admitted), and nothing goes back to a fenced node (fenced_i).
// A node port ties restart_i and fenced_i to 0 and adv_i to CrdPerCls.
module crd_ret #(
  /// credits (buffer entries) per message class
  parameter int unsigned CrdPerCls    = 4,
  /// bits per class of ret_i: up to 2^RetW - 1 credits of a class earned in a cycle
  parameter int unsigned RetW         = 2,
  /// headroom of the count above CrdPerCls (it holds 0 .. CrdPerCls + Headroom): the LU's and
  /// directory's 3 (the count plus a cycle's returns, before the one that leaves); the switch's 1
  parameter int unsigned Headroom     = 3,
  /// 1: CrdPerCls owed per class from reset (a node's port); 0: nothing until restart_i
  parameter bit          StartAtReset = 1'b1,
  localparam int unsigned NumCls = msg_pkg::NUM_CLASSES,
  localparam int unsigned ClsW   = $clog2(NumCls),
  localparam int unsigned AdvW   = $clog2(CrdPerCls + 1)
) (
  /// the port's clock
  input  wire logic                   clk_i,
  /// synchronous reset, active low: CrdPerCls owed per class (StartAtReset), else nothing
  /// advertised until the first restart
  input  wire logic                   rst_ni,
  /// (re)start: advertise adv_i credits per class again, from the next cycle
  input  wire logic                   restart_i,
  /// credits per class to advertise at (re)start (1 .. CrdPerCls; constant while the link runs)
  input  wire logic [AdvW-1:0]        adv_i,
  /// the port's node is failed: return nothing
  input  wire logic                   fenced_i,
  /// per class c at [c*RetW +: RetW]: credits earned this cycle (messages of the class that left
  /// their buffer or were dropped)
  input  wire logic [NumCls*RetW-1:0] ret_i,
  /// one more credit earned this cycle (a message sunk for want of a route) ...
  input  wire logic                   sunk_i,
  /// ... of this class
  input  wire logic [ClsW-1:0]        sunk_cls_i,
  /// one credit returned to the link partner per set bit (bit = class; registered)
  output logic      [NumCls-1:0]      crd_o,
  /// the link partner may hold credits: started, and the advertisement under way or done
  output logic                        open_o,
  /// no credit is being advertised, returned or waiting
  output logic                        idle_o
);
  localparam int unsigned OweW = $clog2(CrdPerCls + Headroom + 1);

  if (CrdPerCls < 1) begin : g_bad_crd
    $error("crd_ret: CrdPerCls must be at least 1");
  end

  logic                   started_q, open_q;
  logic [NumCls-1:0]      crd_q, crd_d;
  logic [NumCls*OweW-1:0] owe_q, owe_d;

  // Nothing owed, nothing earned: nothing to count (in simulation an idle port costs a test).
  always_comb begin
    owe_d = owe_q;
    crd_d = '0;
    if (owe_q != '0 || ret_i != '0 || sunk_i) begin
      for (int c = 0; c < NumCls; c++) begin
        owe_d[c*OweW +: OweW] = owe_q[c*OweW +: OweW] + OweW'(ret_i[c*RetW +: RetW]) +
                                OweW'(sunk_i && sunk_cls_i == ClsW'(c));
        if (owe_d[c*OweW +: OweW] != '0) begin
          crd_d[c]              = 1'b1;
          owe_d[c*OweW +: OweW] = owe_d[c*OweW +: OweW] - 1'b1;
        end
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
      started_q <= StartAtReset;
      open_q    <= 1'b0;
      crd_q     <= '0;
      owe_q     <= StartAtReset ? {NumCls{OweW'(CrdPerCls)}} : '0;
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

endmodule
`default_nettype wire
