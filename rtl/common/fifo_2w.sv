`default_nettype none
// Synchronous first-word-fall-through FIFO that takes up to two words per cycle (two write lanes,
// lane 0 the older word) and gives one. Built for a 2:1 gearbox: a link at twice the block's
// clock delivers two words in one cycle of the block.
//
// Write rule: the valid words of a cycle enter in lane order, into consecutive places; the n-th
// valid word of the cycle (n = 0, 1, counted in lane order) is taken when in_ready_o[n] is high.
// in_ready_o is a thermometer of the free places: bit 0 = room for one word, bit 1 = room for two.
// So lane 1 alone is taken with room for one, and when lane 0's word is refused so is lane 1's:
// order is never broken. A source keeps a refused word (and the younger ones) for a later cycle.
//
// Storage: two ram_1r1w banks, even and odd places (ceil(Depth/2) words each); the pointers wrap
// at twice that, so the two places a cycle writes are always in different banks and each bank
// keeps one write port. With an odd Depth one place of the ring is never used at a time. (That is
// the synthesis form; simulation keeps the same places as one array, below.)
//
// As in fifo: every output is a function of the state only (no combinational path from an input
// to an output): a word pushed into an empty FIFO appears the next cycle, and in_ready_o does not
// look at out_ready_i (a full FIFO does not take a push in the cycle it pops).
module fifo_2w #(
  /// Capacity in words (>= 1; any value, not only powers of two).
  parameter int Depth = 4,
  /// Word width in bits (>= 1).
  parameter int Width = 8,
  /// Width in bits of count_o (derived; do not override).
  localparam int CntW = $clog2(Depth + 1)
) (
  /// Clock.
  input  wire logic               clk_i,
  /// Synchronous active-low reset: empties the FIFO (stored words are not cleared).
  input  wire logic               rst_ni,
  /// Input word valid, per lane (bit 0: lane 0, the older word).
  input  wire logic [1:0]         in_valid_i,
  /// Room in the FIFO: bit 0 for one word, bit 1 for two (the n-th valid word needs bit n).
  output logic      [1:0]         in_ready_o,
  /// Input words: lane k at bits [k*Width +: Width].
  input  wire logic [2*Width-1:0] in_data_i,
  /// Head word valid (not empty).
  output logic                    out_valid_o,
  /// Sink takes the head word this cycle.
  input  wire logic               out_ready_i,
  /// Head word (Width bits); meaningful only while out_valid_o is high.
  output logic      [Width-1:0]   out_data_o,
  /// Words held (0 ..= Depth).
  output logic      [CntW-1:0]    count_o,
  /// FIFO is empty: nothing changes until in_valid_i is raised (the block's idle indication).
  output logic                    empty_o
);
`include "assert.svh"

  if (Depth < 1) begin : g_bad_depth
    $error("fifo_2w: Depth must be >= 1");
  end
  if (Width < 1) begin : g_bad_width
    $error("fifo_2w: Width must be >= 1");
  end

  // Places in the ring (even) and words per bank.
  localparam int BankDepth = (Depth + 1) / 2;
  localparam int Places    = 2 * BankDepth;
  localparam int PtrW      = $clog2(Places);

  logic [PtrW-1:0]  wr_ptr_q, wr_ptr_d, rd_ptr_q, rd_ptr_d, wr_ptr1, wr_ptr2;
  logic [CntW-1:0]  count_q, count_d;
  logic [1:0]       push;
  logic [1:0]       npush;
  logic             pop;

  // The ring position after p.
  function automatic logic [PtrW-1:0] next_ptr(logic [PtrW-1:0] p);
    next_ptr = (p == PtrW'(Places - 1)) ? '0 : p + PtrW'(1);
  endfunction

  assign in_ready_o[0] = count_q != CntW'(Depth);
  assign in_ready_o[1] = ({1'b0, count_q} + (CntW + 1)'(2)) <= (CntW + 1)'(Depth);
  assign out_valid_o   = count_q != '0;
  assign empty_o       = count_q == '0;
  assign count_o       = count_q;

  // Lane 0 is the first valid word when valid; lane 1 is the first or the second.
  assign push[0] = in_valid_i[0] & in_ready_o[0];
  assign push[1] = in_valid_i[1] & (in_valid_i[0] ? in_ready_o[1] : in_ready_o[0]);
  assign npush   = {1'b0, push[0]} + {1'b0, push[1]};
  assign pop     = out_valid_o & out_ready_i;

  // The first word taken goes to wr_ptr_q, the second (always lane 1) to the place after it.
  assign wr_ptr1 = next_ptr(wr_ptr_q);
  assign wr_ptr2 = next_ptr(wr_ptr1);

  always_comb begin
    wr_ptr_d = wr_ptr_q;
    rd_ptr_d = rd_ptr_q;
    count_d  = count_q;
    if (npush == 2'd1) wr_ptr_d = wr_ptr1;
    if (npush == 2'd2) wr_ptr_d = wr_ptr2;
    if (pop)           rd_ptr_d = next_ptr(rd_ptr_q);
    count_d = count_q + CntW'(npush) - CntW'(pop);
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q  <= '0;
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
      count_q  <= count_d;
    end
  end

  // Two forms of the storage, as in fifo. Synthesis (SYNTHESIS defined): the two ram_1r1w banks,
  // written through one port each and read at the head pointer. Simulation: the places as one
  // array, and the head word in a register of its own, both written in the clocked block only in a
  // cycle that pushes or pops, so that a Verilated model neither works out the banks' write ports
  // (two words as wide as the FIFO, selected from the lanes) nor copies the head word out of a bank
  // at every evaluation: the Logging Unit's receive port evaluates four such FIFOs per cycle, one of
  // them a whole flit wide. The outputs are the same cycle for cycle: the head register holds the
  // word the banks would be read at rd_ptr_q (test_fifo_2w.c runs the same tests on both forms).
`ifdef SYNTHESIS
  localparam int RowW = (BankDepth > 1) ? $clog2(BankDepth) : 1;
  logic [Width-1:0] first_data, second_data;
  // Per bank b (0: even places, 1: odd places) at [b*W +: W].
  logic [1:0]         bank_we;
  logic [2*RowW-1:0]  bank_waddr;
  logic [2*Width-1:0] bank_wdata, bank_rdata;

  assign first_data  = push[0] ? in_data_i[0 +: Width] : in_data_i[Width +: Width];
  assign second_data = in_data_i[Width +: Width];

  always_comb begin
    for (int b = 0; b < 2; b++) begin
      if (wr_ptr_q[0] == 1'(b)) begin
        bank_we[b]                   = npush != 2'd0;
        bank_waddr[b*RowW +: RowW]   = RowW'(wr_ptr_q >> 1);
        bank_wdata[b*Width +: Width] = first_data;
      end else begin
        bank_we[b]                   = npush == 2'd2;
        bank_waddr[b*RowW +: RowW]   = RowW'(wr_ptr1 >> 1);
        bank_wdata[b*Width +: Width] = second_data;
      end
    end
  end

  for (genvar b = 0; b < 2; b++) begin : g_bank
    ram_1r1w #(.Depth(BankDepth), .Width(Width)) u_ram (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni),
      .we_i    (bank_we[b]),
      .waddr_i (bank_waddr[b*RowW +: RowW]),
      .wdata_i (bank_wdata[b*Width +: Width]),
      .raddr_i (RowW'(rd_ptr_q >> 1)),
      .rdata_o (bank_rdata[b*Width +: Width])
    );
  end

  assign out_data_o = rd_ptr_q[0] ? bank_rdata[Width +: Width] : bank_rdata[0 +: Width];
`else
  /* verilator tracing_off */
  logic [Width-1:0] mem_q [Places];
  /* verilator tracing_on */
  logic [Width-1:0] head_q;
  always_ff @(posedge clk_i) begin
    if (npush != 2'd0 || pop) begin
      if (npush != 2'd0) mem_q[wr_ptr_q] <= push[0] ? in_data_i[0 +: Width] : in_data_i[Width +: Width];
      if (npush == 2'd2) mem_q[wr_ptr1]  <= in_data_i[Width +: Width];
      // The next head, when the head moves (a pop) or the FIFO is empty: the first word written this
      // cycle when it lands at rd_ptr_d (the FIFO empty, or holding one word that leaves), else the
      // word already there (written at an earlier edge; the second word of a cycle never lands at
      // rd_ptr_d, which would take a FIFO holding Places words, or none, that pops).
      if (pop || count_q == '0) begin
        if (npush != 2'd0 && rd_ptr_d == wr_ptr_q)
          head_q <= push[0] ? in_data_i[0 +: Width] : in_data_i[Width +: Width];
        else
          head_q <= mem_q[rd_ptr_d];
      end
    end
  end
  assign out_data_o = head_q;
`endif

  `ASSERT(count_in_range, {1'b0, count_q} <= (CntW + 1)'(Depth))
  // The pointers are count places apart around the ring.
  `ASSERT(ptrs_match_count,
          (CntW + PtrW + 1)'(wr_ptr_q) ==
          ((CntW + PtrW + 1)'(rd_ptr_q) + (CntW + PtrW + 1)'(count_q)) % (CntW + PtrW + 1)'(Places))
  `ASSERT(ptrs_in_range, {1'b0, wr_ptr_q} < (PtrW + 1)'(Places) && {1'b0, rd_ptr_q} < (PtrW + 1)'(Places))

endmodule
`default_nettype wire
