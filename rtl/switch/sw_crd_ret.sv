`default_nettype none
`include "assert.svh"

// Credit return of one switch input port (sw_ingress, sw_ingress_fifo): the credits the port gives
// back to its link partner, per message class.
//
// At (re)start (restart_i: at enable, and when the port's node is re-admitted) the port advertises
// CrdPerCls credits per class, one per cycle per class, as a CXL link advertises its buffers. Then
// it returns one credit per message that leaves its buffer (leave_i) and one per message sunk for
// want of a route (sunk_i). When a message of the sunk one's class leaves in the same cycle, the
// sunk one's credit waits in a per-class count (at most CrdPerCls: the sender cannot have more
// outstanding). Nothing goes back to a fenced node (fenced_i).
module sw_crd_ret #(
  /// credits (buffer entries) per message class
  parameter int unsigned CrdPerCls = 4,
  localparam int unsigned NumCls   = msg_pkg::NUM_CLASSES,
  localparam int unsigned ClsW     = $clog2(NumCls)
) (
  /// switch clock
  input  wire logic              clk_i,
  /// synchronous reset, active low: nothing advertised until the first restart
  input  wire logic              rst_ni,
  /// (re)start: advertise CrdPerCls credits per class again, from the next cycle
  input  wire logic              restart_i,
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
  localparam int unsigned InitW = $clog2(CrdPerCls + 1);

  if (CrdPerCls < 1) begin : g_bad_crd
    $error("sw_crd_ret: CrdPerCls must be at least 1");
  end

  logic [InitW-1:0]        init_q, init_d;
  logic                    started_q;
  logic [NumCls-1:0]       crd_q, crd_d;
  logic [NumCls*InitW-1:0] pend_q, pend_d;

  always_comb begin
    init_d = init_q;
    pend_d = pend_q;
    crd_d  = leave_i;
    if (sunk_i)
      pend_d[sunk_cls_i*InitW +: InitW] = pend_q[sunk_cls_i*InitW +: InitW] + 1'b1;
    for (int c = 0; c < NumCls; c++) begin
      if (!crd_d[c] && pend_d[c*InitW +: InitW] != '0) begin
        crd_d[c]                 = 1'b1;
        pend_d[c*InitW +: InitW] = pend_d[c*InitW +: InitW] - 1'b1;
      end
    end
    if (init_q != '0) begin
      init_d = init_q - 1'b1;
      crd_d  = '1;
    end
    if (fenced_i) begin
      crd_d  = '0;
      pend_d = '0;
    end
    if (restart_i) begin
      init_d = InitW'(CrdPerCls);
      pend_d = '0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      init_q    <= '0;
      started_q <= 1'b0;
      crd_q     <= '0;
      pend_q    <= '0;
    end else begin
      init_q    <= init_d;
      started_q <= started_q | restart_i;
      crd_q     <= crd_d;
      pend_q    <= pend_d;
    end
  end

  assign crd_o  = crd_q;
  assign open_o = started_q & (init_q != InitW'(CrdPerCls));
  assign idle_o = (init_q == '0) & ~|crd_q & ~|pend_q;

  // At most one message of a class leaves per cycle.
  `ASSERT(leave_at_most_one, $onehot0(leave_i))

endmodule
`default_nettype wire
