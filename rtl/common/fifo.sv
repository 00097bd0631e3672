`default_nettype none
// Synchronous first-word-fall-through FIFO with valid/ready on both sides. The head word is on
// out_data_o whenever out_valid_o is high (no read request). Storage is a ram_1r1w; pointers wrap
// at Depth, so any Depth >= 1 works.
//
// Every output is a function of the state only: no combinational path from any input to any
// output. Two consequences, both chosen on purpose:
//   - A word pushed into an empty FIFO appears on the output the next cycle (no bypass).
//   - in_ready_o is !full and does not look at out_ready_i: a full FIFO does not take a push in
//     the cycle it pops. Depth >= 2 sustains one beat per cycle; Depth 1 sustains one beat every
//     two cycles (use skid_buf for a full-rate one-stage slice).
module fifo #(
  /// Capacity in words (>= 1; any value, not only powers of two).
  parameter int Depth = 4,
  /// Word width in bits (>= 1).
  parameter int Width = 8,
  /// Width in bits of count_o (derived; do not override).
  localparam int CntW = $clog2(Depth + 1)
) (
  /// Clock.
  input  wire logic             clk_i,
  /// Synchronous active-low reset: empties the FIFO (stored words are not cleared).
  input  wire logic             rst_ni,
  /// Input word valid.
  input  wire logic             in_valid_i,
  /// FIFO can take a word (not full).
  output logic                  in_ready_o,
  /// Input word (Width bits).
  input  wire logic [Width-1:0] in_data_i,
  /// Head word valid (not empty).
  output logic                  out_valid_o,
  /// Sink takes the head word this cycle.
  input  wire logic             out_ready_i,
  /// Head word (Width bits); meaningful only while out_valid_o is high.
  output logic      [Width-1:0] out_data_o,
  /// Words held (0 ..= Depth).
  output logic      [CntW-1:0]  count_o,
  /// FIFO is empty: nothing changes until in_valid_i is raised (the block's idle indication).
  output logic                  empty_o
);
`include "assert.svh"

  if (Depth < 1) begin : g_bad_depth
    $error("fifo: Depth must be >= 1");
  end
  if (Width < 1) begin : g_bad_width
    $error("fifo: Width must be >= 1");
  end

  localparam int AddrW = (Depth > 1) ? $clog2(Depth) : 1;

  logic [AddrW-1:0] wr_ptr_q, rd_ptr_q;
  logic [CntW-1:0]  count_q;
  logic             push, pop;

  // The ring position after p.
  function automatic logic [AddrW-1:0] next_ptr(logic [AddrW-1:0] p);
    next_ptr = (p == AddrW'(Depth - 1)) ? '0 : p + AddrW'(1);
  endfunction

  assign in_ready_o  = count_q != CntW'(Depth);
  assign out_valid_o = count_q != '0;
  assign empty_o     = count_q == '0;
  assign count_o     = count_q;

  assign push = in_valid_i && in_ready_o;
  assign pop  = out_valid_o && out_ready_i;

  // The pointers and the count are clock-enabled registers, each written only when it changes
  // (the write pointer on a push, the read pointer on a pop, the count on one without the other),
  // with the next value worked out in the clocked block rather than as a _d signal: a Verilated
  // model computes a _d signal at every evaluation whether the register takes it or not.
  //
  // Two forms of the storage. Synthesis (SYNTHESIS defined): a ram_1r1w read at the head pointer,
  // as the macro a real design would use. Simulation: the head word kept in a register of its own,
  // written in the clocked block only when the head changes (a push into an empty FIFO, or one
  // that meets the pop of the last word; a pop with words behind it), so that a Verilated model
  // does not copy the head word out of the array at every evaluation (a directory evaluates a dozen
  // such FIFOs per cycle, most of them 640 bits wide). The outputs are the same cycle for cycle:
  // the head register holds the word the ram would be read at rd_ptr_q
  // (test_fifo.c runs the same tests on both forms). The simulation form writes everything in one
  // process, all of it under push || pop, the head and the array before the pointers that address
  // them: a cycle that neither pushes nor pops (most cycles of a directory's dozen FIFOs) costs
  // the Verilated model one test, and it keeps no shadow copies of the pointers and the count
  // (with the head in a process of its own, which reads them, it copied each one in and out at
  // every edge). make instr: 2.5 to 4 % fewer host instructions on paper.ini's system rows.
`ifdef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q  <= '0;
    end else begin
      if (push)        wr_ptr_q <= next_ptr(wr_ptr_q);
      if (pop)         rd_ptr_q <= next_ptr(rd_ptr_q);
      if (push != pop) count_q  <= pop ? count_q - CntW'(1) : count_q + CntW'(1);
    end
  end
  ram_1r1w #(.Depth(Depth), .Width(Width)) u_ram (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (push),
    .waddr_i (wr_ptr_q),
    .wdata_i (in_data_i),
    .raddr_i (rd_ptr_q),
    .rdata_o (out_data_o)
  );
`else
  //
  // The array is written blocking, after the head's read of it, against the habit of non-blocking
  // writes (as sw_ports' state, rtl/switch/sw_ports.sv says why that is the same machine): nothing
  // but this process reads it, it reads before it writes, and the word read (behind the popped
  // one) is never the place written (the free place after the last word). Written non-blocking,
  // each push went through a shadow copy of the word and a flag (Verilator 5.006's delayed write
  // of an array element: two copies of a 640-bit word per push of a directory's FIFOs).
  /* verilator tracing_off */
  logic [Width-1:0] mem_q [Depth];
  /* verilator tracing_on */
  logic [Width-1:0] head_q;
  always_ff @(posedge clk_i) begin
    if (push || pop) begin
      // The next head: the pushed word when it lands on an empty place at the head, else the
      // word behind the popped one (a pop leaving words: written at an earlier edge).
      if (push && (count_q == '0 || (pop && count_q == CntW'(1)))) head_q <= in_data_i;
      else if (pop && count_q != CntW'(1))                        head_q <= mem_q[next_ptr(rd_ptr_q)];
      // verilator lint_off BLKSEQ
      if (push) mem_q[wr_ptr_q] = in_data_i;
      // verilator lint_on BLKSEQ
    end
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q  <= '0;
    end else if (push || pop) begin
      if (push)        wr_ptr_q <= next_ptr(wr_ptr_q);
      if (pop)         rd_ptr_q <= next_ptr(rd_ptr_q);
      if (push != pop) count_q  <= pop ? count_q - CntW'(1) : count_q + CntW'(1);
    end
  end
  assign out_data_o = head_q;
`endif

  `ASSERT(count_in_range, {1'b0, count_q} <= (CntW + 1)'(Depth))
  // The pointers are Depth apart modulo Depth exactly when the count says so.
  `ASSERT(ptrs_match_count,
          (CntW + AddrW + 1)'(wr_ptr_q) ==
          ((CntW + AddrW + 1)'(rd_ptr_q) + (CntW + AddrW + 1)'(count_q)) % (CntW + AddrW + 1)'(Depth))

endmodule
`default_nettype wire
