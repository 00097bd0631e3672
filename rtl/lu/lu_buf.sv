`default_nettype none
`include "assert.svh"

// Storage of the Logging Unit's SRAM log buffer (the data half; lu_slots is the control half):
//   - Entries word entries, each the value of one logged word (its requester, line, TS and valid
//     bit are its REPL's, kept once per REPL in lu_slots);
//   - per slot and word of the line, the index of the entry holding that word (a REPL's entries
//     need not be contiguous: one entry per word of the mask, as the paper's Fig. 5);
//   - the free list of entries: never-used entries first (fresh_q counts them out after reset),
//     then a ring of entries given back.
// One entry is allocated and one freed per cycle at most. All three arrays are storage wrappers:
// ram_1r1w (the design's storage wrapper: a macro for synthesis) or lu_buf_flops (flip-flops),
// chosen by SramMacro.
module lu_buf #(
  /// word entries (>= 2)
  parameter int unsigned Entries   = 256,
  /// REPL slots (lu_slots)
  parameter int unsigned Slots     = 64,
  /// storage as memory macros (1) or flip-flops (0)
  parameter bit          SramMacro = 1'b1,
  localparam int unsigned EntW  = $clog2(Entries),
  localparam int unsigned SlotW = $clog2(Slots),
  localparam int unsigned WordW = $clog2(msg_pkg::WORDS_PER_LINE),
  localparam int unsigned ValW  = msg_pkg::WORD_W
) (
  /// LU clock
  input  wire logic             clk_i,
  /// synchronous reset, active low: every entry free
  input  wire logic             rst_ni,
  /// entries free now
  output logic      [EntW:0]    free_o,
  /// allocate an entry (free_o must be non-zero) for word word_i of slot slot_i, value value_i
  input  wire logic             alloc_i,
  /// the slot the entry belongs to
  input  wire logic [SlotW-1:0] alloc_slot_i,
  /// the word of the line it holds
  input  wire logic [WordW-1:0] alloc_word_i,
  /// its value
  input  wire logic [ValW-1:0]  alloc_value_i,
  /// read: the slot ...
  input  wire logic [SlotW-1:0] rd_slot_i,
  /// ... and word whose value is wanted (combinational)
  input  wire logic [WordW-1:0] rd_word_i,
  /// the value of (rd_slot_i, rd_word_i)
  output logic      [ValW-1:0]  rd_value_o,
  /// free the entry of (rd_slot_i, rd_word_i) (it was drained)
  input  wire logic             free_i
);
  localparam int unsigned SwN = Slots * msg_pkg::WORDS_PER_LINE;
  localparam int unsigned SwW = $clog2(SwN);

  if (Entries < 2) begin : g_bad_entries
    $error("lu_buf: Entries must be at least 2");
  end

  logic [EntW:0]   fresh_q, fresh_d, used_q, used_d;
  logic [EntW-1:0] rp_q, rp_d, wp_q, wp_d;   // free ring: read (allocate) and write (free) pointers
  logic [EntW-1:0] alloc_idx, ring_head, rd_idx;
  logic [SwW-1:0]  alloc_sw, rd_sw;

  assign alloc_sw  = SwW'({alloc_slot_i, alloc_word_i});
  assign rd_sw     = SwW'({rd_slot_i, rd_word_i});
  assign alloc_idx = (fresh_q != (EntW + 1)'(Entries)) ? EntW'(fresh_q) : ring_head;
  assign free_o    = (EntW + 1)'(Entries) - used_q;

  // Ring entries beyond the never-used ones: wp - rp (mod Entries) = fresh - used, the entries
  // given back and not yet taken again.
  always_comb begin
    fresh_d = fresh_q;
    used_d  = used_q;
    rp_d    = rp_q;
    wp_d    = wp_q;
    if (alloc_i) begin
      used_d = used_d + 1'b1;
      if (fresh_q != (EntW + 1)'(Entries)) fresh_d = fresh_q + 1'b1;
      else rp_d = (rp_q == EntW'(Entries - 1)) ? '0 : rp_q + 1'b1;
    end
    if (free_i) begin
      used_d = used_d - 1'b1;
      wp_d   = (wp_q == EntW'(Entries - 1)) ? '0 : wp_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      fresh_q <= '0;
      used_q  <= '0;
      rp_q    <= '0;
      wp_q    <= '0;
    end else begin
      fresh_q <= fresh_d;
      used_q  <= used_d;
      rp_q    <= rp_d;
      wp_q    <= wp_d;
    end
  end

  if (SramMacro) begin : g_macro
    ram_1r1w #(.Depth(Entries), .Width(ValW)) u_data (
      .clk_i (clk_i), .rst_ni (rst_ni), .we_i (alloc_i), .waddr_i (alloc_idx), .wdata_i (alloc_value_i),
      .raddr_i (rd_idx), .rdata_o (rd_value_o)
    );
    ram_1r1w #(.Depth(SwN), .Width(EntW)) u_idx (
      .clk_i (clk_i), .rst_ni (rst_ni), .we_i (alloc_i), .waddr_i (alloc_sw), .wdata_i (alloc_idx),
      .raddr_i (rd_sw), .rdata_o (rd_idx)
    );
    ram_1r1w #(.Depth(Entries), .Width(EntW)) u_free (
      .clk_i (clk_i), .rst_ni (rst_ni), .we_i (free_i), .waddr_i (wp_q), .wdata_i (rd_idx),
      .raddr_i (rp_q), .rdata_o (ring_head)
    );
  end else begin : g_flops
    lu_buf_flops #(.Depth(Entries), .Width(ValW)) u_data (
      .clk_i (clk_i), .rst_ni (rst_ni), .we_i (alloc_i), .waddr_i (alloc_idx), .wdata_i (alloc_value_i),
      .raddr_i (rd_idx), .rdata_o (rd_value_o)
    );
    lu_buf_flops #(.Depth(SwN), .Width(EntW)) u_idx (
      .clk_i (clk_i), .rst_ni (rst_ni), .we_i (alloc_i), .waddr_i (alloc_sw), .wdata_i (alloc_idx),
      .raddr_i (rd_sw), .rdata_o (rd_idx)
    );
    lu_buf_flops #(.Depth(Entries), .Width(EntW)) u_free (
      .clk_i (clk_i), .rst_ni (rst_ni), .we_i (free_i), .waddr_i (wp_q), .wdata_i (rd_idx),
      .raddr_i (rp_q), .rdata_o (ring_head)
    );
  end

  `ASSERT(alloc_needs_free, !alloc_i || free_o != '0)
  `ASSERT(free_needs_used, !free_i || used_q != '0)
  `ASSERT(used_le_fresh, used_q <= fresh_q)

endmodule
`default_nettype wire
