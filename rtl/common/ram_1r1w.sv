`default_nettype none
// Register-file storage array: Depth words of Width bits, one synchronous write port and one
// asynchronous (combinational) read port. Every storage array of the design lives in an instance
// of this module, so that synthesis can map it to flops or black-box it as a macro with an area
// estimate, and reports can separate memory from logic (docs/architecture.md section 12).
// Reading and writing one address in the same cycle returns the old word (write-before-read is
// not provided: the write lands at the clock edge).
module ram_1r1w #(
  /// Number of words (>= 1; any value, not only powers of two).
  parameter int Depth = 16,
  /// Word width in bits (>= 1).
  parameter int Width = 8,
  /// Address width in bits (derived; do not override).
  localparam int AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  /// Clock; the write lands on its rising edge.
  input  wire logic             clk_i,
  /// Synchronous active-low reset; used only by the assertions (storage is not reset).
  input  wire logic             rst_ni,
  /// Write enable: write wdata_i to waddr_i at the next rising edge.
  input  wire logic             we_i,
  /// Write address (word index, < Depth).
  input  wire logic [AddrW-1:0] waddr_i,
  /// Write data (Width bits).
  input  wire logic [Width-1:0] wdata_i,
  /// Read address (word index, < Depth).
  input  wire logic [AddrW-1:0] raddr_i,
  /// Read data: the word at raddr_i, combinationally (Width bits).
  output logic      [Width-1:0] rdata_o
);
`include "assert.svh"

  if (Depth < 1) begin : g_bad_depth
    $error("ram_1r1w: Depth must be >= 1");
  end
  if (Width < 1) begin : g_bad_width
    $error("ram_1r1w: Width must be >= 1");
  end

  // The stored words stay out of waveform traces: a switch holds megabits of them, tracing them
  // multiplies the Verilated model's code, and what a reviewer needs is the data at the ports.
  /* verilator tracing_off */
  logic [Width-1:0] mem_q [Depth];
  /* verilator tracing_on */

  // The write enable stays inside the clocked block (rather than a next-state copy of the whole
  // array in always_comb) so that both tools see a plain memory write port: Yosys infers a
  // memory it can map or black-box, and Verilator updates one word instead of copying the array.
  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end

  assign rdata_o = mem_q[raddr_i];

  // The extra top bit keeps the comparison meaningful when Depth is a power of two.
  `ASSERT(waddr_in_range, !we_i || ({1'b0, waddr_i} < (AddrW + 1)'(Depth)))

endmodule
`default_nettype wire
