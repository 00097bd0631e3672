`default_nettype none

// The performance counters of one port of the CXL switch (sw_perf has one per port): four 32-bit
// counters (wrapping) per class, counter k of class c read at rd_idx_i = c*4 + k:
//   k = 0  MSGS    messages of the class that left the port toward its node
//   k = 1  BYTES   their bytes on the link
//   k = 2  STARVE  cycles a message of the class waited for the port with no credit of the class
//   k = 3  STALL   cycles a message of the class waited in the port's input buffer, none leaving
// A module per port rather than one loop over every port: hierarchical synthesis maps it once for
// all the switch's ports (constraints/cxl_switch.flow), and the Verilated model shares its code.
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
  /// counter to read: class * 4 + k (below NumCnt)
  input  wire logic [IdxW-1:0]   rd_idx_i,
  /// the counter read
  output logic      [31:0]       rd_data_o
);
  logic [NumCnt*32-1:0] cnt_q;

  // The counters of the class sent, and of the classes starved or stalled; a cycle without any
  // of them touches nothing (in simulation an idle port costs a test).
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      cnt_q <= '0;
    end else begin
      if (tx_i) begin
        cnt_q[32'(tx_cls_i)*128 +: 32]      <= cnt_q[32'(tx_cls_i)*128 +: 32] + 32'd1;
        cnt_q[32'(tx_cls_i)*128 + 32 +: 32] <= cnt_q[32'(tx_cls_i)*128 + 32 +: 32] + 32'(tx_bytes_i);
      end
      if (starve_i != '0 || stall_i != '0) begin
        for (int c = 0; c < NumCls; c++) begin
          if (starve_i[c]) cnt_q[c*128 + 64 +: 32] <= cnt_q[c*128 + 64 +: 32] + 32'd1;
          if (stall_i[c])  cnt_q[c*128 + 96 +: 32] <= cnt_q[c*128 + 96 +: 32] + 32'd1;
        end
      end
    end
  end

  assign rd_data_o = cnt_q[32'(rd_idx_i)*32 +: 32];

endmodule
`default_nettype wire
