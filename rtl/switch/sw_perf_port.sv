`default_nettype none

// The performance counters of one port of the CXL switch (sw_perf has one per port): four 32-bit
// counters (wrapping) per class, counter k of class c read at rd_idx_i = c*4 + k:
//   k = 0  MSGS    messages of the class that left the port toward its node
//   k = 1  BYTES   their bytes on the link
//   k = 2  STARVE  cycles a message of the class waited for the port with no credit of the class
//   k = 3  STALL   cycles a message of the class waited in the port's input buffer, none leaving
// A module per port rather than one loop over every port: hierarchical synthesis maps it once for
// all the switch's ports (constraints/cxl_switch.flow), and the Verilated model shares its code.
//
// A read is registered: rd_i at an edge samples the counter rd_idx_i names as that edge found it
// into rd_data_o, held until the next read (sw_perf answers the switch's CSR port from it the
// cycle after the request, as the switch's other registers).
//
// How the counters are kept, for simulation's sake (the hardware is the same counters either way):
// two vectors, each read before it is written in one process and written only in a cycle with
// its event, at most once for a sent message (its class's {BYTES, MSGS} at once), once per
// starved or stalled class (its {STALL, STARVE}, from the values read first). So the Verilated
// model updates them in place, with no shadow copy, and an idle port costs a test. (Counters
// written one by one, each read after the writes before it, cost the Verilated model a shadow
// copy of every counter of every port each cycle, busy or not: 4 000 host instructions a cycle
// at 16 + 16.)
module sw_perf_port #(
  localparam int unsigned NumCls = msg_pkg::NUM_CLASSES,
  localparam int unsigned ClsW   = $clog2(NumCls),
  localparam int unsigned NumCnt = NumCls * 4,
  localparam int unsigned IdxW   = $clog2(NumCnt)
) (
  /// switch clock
  input  wire logic              clk_i,
  /// synchronous reset, active low: every counter to 0
  input  wire logic              rst_ni,
  /// a message left toward the node
  input  wire logic              tx_i,
  /// its class
  input  wire logic [ClsW-1:0]   tx_cls_i,
  /// its bytes on the link
  input  wire logic [7:0]        tx_bytes_i,
  /// per class: starved of credits this cycle
  input  wire logic [NumCls-1:0] starve_i,
  /// per class: stalled in the input buffer this cycle
  input  wire logic [NumCls-1:0] stall_i,
  /// read a counter at this edge ...
  input  wire logic              rd_i,
  /// ... this one: class * 4 + k (below NumCnt)
  input  wire logic [IdxW-1:0]   rd_idx_i,
  /// the counter read at the last edge with rd_i
  output logic      [31:0]       rd_data_o
);
  localparam int unsigned AtW = $clog2(NumCls * 64);

  logic [NumCls*64-1:0] sent_q;   // class c: MSGS bits c*64 +: 32, BYTES c*64 + 32 +: 32
  logic [NumCls*64-1:0] wait_q;   // class c: STARVE bits c*64 +: 32, STALL c*64 + 32 +: 32
  logic [31:0]          rd_q;

  always_ff @(posedge clk_i) begin
    logic [63:0]    w [NumCls];
    logic [AtW-1:0] at;   // counter k of class c: bits c*64 + 32*k[0] +: 32 of wait_q (k[1]) or sent_q
    if (rd_i) begin
      at   = AtW'({rd_idx_i[IdxW-1:2], rd_idx_i[0], 5'd0});
      rd_q <= rd_idx_i[1] ? wait_q[at +: 32] : sent_q[at +: 32];
    end
    if (!rst_ni) begin
      sent_q <= '0;
      wait_q <= '0;
    end else begin
      if (tx_i)
        sent_q[32'(tx_cls_i)*64 +: 64] <= {sent_q[32'(tx_cls_i)*64 + 32 +: 32] + 32'(tx_bytes_i),
                                           sent_q[32'(tx_cls_i)*64 +: 32] + 32'd1};
      if (starve_i != '0 || stall_i != '0) begin
        for (int c = 0; c < NumCls; c++) w[c] = wait_q[c*64 +: 64];
        for (int c = 0; c < NumCls; c++)
          if (starve_i[c] || stall_i[c])
            wait_q[c*64 +: 64] <= {w[c][63:32] + 32'(stall_i[c]), w[c][31:0] + 32'(starve_i[c])};
      end
    end
  end

  assign rd_data_o = rd_q;

endmodule
`default_nettype wire
