`default_nettype none
`include "assert.svh"

// Credit return of the Logging Unit's receive port: the credits the LU gives its link partner (the
// CN's switch port), per message class.
//
// Every class starts with CrdPerCls credits pending, so after reset the LU advertises its receive
// buffers, one credit per class per cycle, as a CXL link does. Then one credit goes back per
// message that leaves a receive buffer or is dropped: ret_i counts them per class, up to three in
// a cycle (the receive port takes two messages per cycle and both may be dropped; a buffer pops one).
// Credits wait in a per-class count (at most CrdPerCls: the partner cannot have more outstanding)
// and leave one per class per cycle, from a register (a credit returned at cycle c is on crd_o
// during c + 1 at the earliest). One per class per cycle is enough: the LU takes at most one
// message of a class out of its buffer per cycle, and only malformed messages, which are rare,
// are dropped two at a time; those credits leave over the next cycles, none lost or invented.
// A failed CN's LU stops with its clock (logging_unit), and this count with it.
module lu_crd_ret #(
  /// credits (receive buffer entries) per message class
  parameter int unsigned CrdPerCls = 4,
  localparam int unsigned NumCls   = msg_pkg::NUM_CLASSES,
  localparam int unsigned RetW     = 2
) (
  /// LU clock
  input  wire logic                   clk_i,
  /// synchronous reset, active low: CrdPerCls credits pending per class
  input  wire logic                   rst_ni,
  /// per class c at [c*RetW +: RetW]: credits to return this cycle, 0 .. 3 (messages of the class
  /// that left their buffer or were dropped)
  input  wire logic [NumCls*RetW-1:0] ret_i,
  /// one credit returned to the link partner per set bit (bit = class; registered)
  output logic      [NumCls-1:0]      crd_o,
  /// no credit pending
  output logic                        idle_o
);
  // pend_q + ret_i may reach CrdPerCls + 3 before the range check below.
  localparam int unsigned PendW = $clog2(CrdPerCls + 4);

  if (CrdPerCls < 1) begin : g_bad_crd
    $error("lu_crd_ret: CrdPerCls must be at least 1");
  end

  logic [NumCls*PendW-1:0] pend_q, pend_d;
  logic [NumCls-1:0]       crd_q, crd_d;

  always_comb begin
    pend_d = pend_q;
    crd_d  = '0;
    if (ret_i != '0 || pend_q != '0) begin
      for (int c = 0; c < NumCls; c++) begin
        pend_d[c*PendW +: PendW] = pend_q[c*PendW +: PendW] + PendW'(ret_i[c*RetW +: RetW]);
        if (pend_d[c*PendW +: PendW] != '0) begin
          crd_d[c]                 = 1'b1;
          pend_d[c*PendW +: PendW] = pend_d[c*PendW +: PendW] - 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      for (int c = 0; c < NumCls; c++) pend_q[c*PendW +: PendW] <= PendW'(CrdPerCls);
      crd_q <= '0;
    end else begin
      pend_q <= pend_d;
      crd_q  <= crd_d;
    end
  end

  assign crd_o  = crd_q;
  assign idle_o = (pend_q == '0) & (crd_q == '0);

  // The partner never holds more than CrdPerCls credits of a class, so no more are ever pending.
  for (genvar c = 0; c < NumCls; c++) begin : g_chk
    `ASSERT(pend_in_range, pend_q[c*PendW +: PendW] <= PendW'(CrdPerCls))
  end

endmodule
`default_nettype wire
