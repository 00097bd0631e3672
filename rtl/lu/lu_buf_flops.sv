`default_nettype none
`include "assert.svh"

// Storage of the Logging Unit's SRAM log buffer as flip-flops: the same array as ram_1r1w (its
// ports and behaviour), under a name synthesis does not take for a macro, so that `make synth`
// maps it to cells (logging_unit SramMacro = 0: the 4 KB buffer as flops, constraints/
// logging_unit.flops.params).
module lu_buf_flops #(
  /// number of words (>= 1)
  parameter int unsigned Depth = 256,
  /// word width in bits (>= 1)
  parameter int unsigned Width = 64,
  localparam int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  /// clock; the write lands on its rising edge
  input  wire logic             clk_i,
  /// synchronous reset, active low; used only by the assertions (storage is not reset)
  input  wire logic             rst_ni,
  /// write enable
  input  wire logic             we_i,
  /// write address (< Depth)
  input  wire logic [AddrW-1:0] waddr_i,
  /// write data
  input  wire logic [Width-1:0] wdata_i,
  /// read address (< Depth)
  input  wire logic [AddrW-1:0] raddr_i,
  /// read data: the word at raddr_i, combinationally (old word when written in the same cycle)
  output logic      [Width-1:0] rdata_o
);
  if (Depth < 1 || Width < 1) begin : g_bad
    $error("lu_buf_flops: Depth and Width must be >= 1");
  end

  
  logic [Width-1:0] mem_q [Depth];
  

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end
  assign rdata_o = mem_q[raddr_i];

  `ASSERT(waddr_in_range, !we_i || ({1'b0, waddr_i} < (AddrW + 1)'(Depth)))

endmodule
`default_nettype wire
