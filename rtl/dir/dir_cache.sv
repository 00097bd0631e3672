`default_nettype none
`include "assert.svh"

// The directory controller's on-chip directory cache: Sets x Ways entries of the MN's directory,
// write-back (a dirty victim goes back to the directory area of MN DRAM), round-robin victim per
// set. Tags and entries live in ram_1r1w arrays, one tag array and one entry array per way (a
// write touches its way's arrays only: no read-modify-write of a whole set's word, which a
// Verilated model would copy at every evaluation), valid and dirty bits in flops (reset empties
// the cache).
//
// One line per cycle: line_i selects the set; hit_o / way / entry_o answer combinationally. In
// the same cycle the controller may
//   fill_i  install line_i (it missed) with fill_entry_i, clean, in the set's next victim way;
//           if that way holds a dirty entry (wb_* name it in every cycle) the caller writes it
//           to DRAM;
//   upd_i   overwrite line_i's entry with upd_entry_i and mark it dirty, if it hits (on a miss
//           nothing changes: the caller writes the entry to DRAM itself).
// inv_i drops every entry at once (after the caller has written the dirty ones back: a flush is
// a walk over the sets with wbset_i, below, then inv_i).
// wbset_i / wbway_i: read a way of a set for a flush (wb_* show it when it is valid and dirty);
// clean_i marks it clean.
module dir_cache #(
  /// sets (power of two)
  parameter int unsigned Sets  = 256,
  /// ways per set
  parameter int unsigned Ways  = 4,
  /// bits of a local line index
  parameter int unsigned LineW = 32,
  /// bits of a directory entry
  parameter int unsigned EntW  = 66,
  localparam int unsigned SetW = $clog2(Sets),
  localparam int unsigned WayW = (Ways > 1) ? $clog2(Ways) : 1,
  localparam int unsigned TagW = LineW - $clog2(Sets)
) (
  /// controller clock
  input  wire logic             clk_i,
  /// synchronous reset, active low: every entry invalid
  input  wire logic             rst_ni,
  /// the local line looked up (and filled or updated) this cycle
  input  wire logic [LineW-1:0] line_i,
  /// the caller reads hit_o, entry_o or wb_* this cycle; in simulation they are 0 in the other
  /// cycles (a Verilated model then reads no way of the set); synthesis does not look at it
  input  wire logic             look_i,
  /// line_i is held
  output logic                  hit_o,
  /// its entry
  output logic      [EntW-1:0]  entry_o,
  /// install line_i (a miss) with fill_entry_i, clean
  input  wire logic             fill_i,
  /// the entry installed
  input  wire logic [EntW-1:0]  fill_entry_i,
  /// overwrite line_i's entry (a hit), dirty
  input  wire logic             upd_i,
  /// the new entry
  input  wire logic [EntW-1:0]  upd_entry_i,
  /// flush walk: look at this set instead of line_i's ...
  input  wire logic             wbsel_i,
  /// ... this set ...
  input  wire logic [SetW-1:0]  wbset_i,
  /// ... and this way
  input  wire logic [WayW-1:0]  wbway_i,
  /// flush walk: mark that way clean
  input  wire logic             clean_i,
  /// drop every entry
  input  wire logic             inv_i,
  /// a dirty entry leaves (fill's victim, or the flush walk's way): write it to DRAM
  output logic                  wb_valid_o,
  /// its local line
  output logic      [LineW-1:0] wb_line_o,
  /// its entry
  output logic      [EntW-1:0]  wb_entry_o
);
  if (Sets < 2 || (Sets & (Sets - 1)) != 0) begin : g_bad_sets
    $error("dir_cache: Sets must be a power of two, at least 2");
  end
  if (Ways < 1) begin : g_bad_ways
    $error("dir_cache: Ways must be at least 1");
  end

  logic [SetW-1:0]      set;
  logic [TagW-1:0]      tag;
  logic [Ways*TagW-1:0] tags_r;
  logic [Ways*EntW-1:0] ents_r;
  // Valid and dirty bits, and the victim pointers, flattened (set s, way w: bit s * Ways + w).
  logic [Sets*Ways-1:0] valid_q, dirty_q;
  logic [Sets*WayW-1:0] vict_q;
  logic [Ways-1:0]      set_valid, set_dirty;
  logic [Ways-1:0]      match;
  logic [WayW-1:0]      hway, vway, wway;
  logic                 we;

  assign set = wbsel_i ? wbset_i : line_i[SetW-1:0];
  assign tag = line_i[LineW-1:LineW-TagW];

  // Only a cycle that looks (look_i) works out the hit, the entry and the write-back: a Verilated
  // directory had read every way of a set at each of its edges, most of which do not use the
  // cache. Two forms of the arrays, with the same outputs cycle for cycle. Synthesis: a ram_1r1w
  // per way for the tags and one for the entries, as the macros a real design would use (read
  // every cycle; the answer is gated). Simulation: the same words in arrays of this module, read
  // only in a cycle that looks.
`ifdef SYNTHESIS
  for (genvar w = 0; w < Ways; w++) begin : g_way
    ram_1r1w #(.Depth(Sets), .Width(TagW)) u_tags (
      .clk_i (clk_i), .rst_ni (rst_ni), .we_i (we && wway == WayW'(w)), .waddr_i (set), .wdata_i (tag),
      .raddr_i (set), .rdata_o (tags_r[w*TagW +: TagW])
    );
    ram_1r1w #(.Depth(Sets), .Width(EntW)) u_ents (
      .clk_i (clk_i), .rst_ni (rst_ni), .we_i (we && wway == WayW'(w)), .waddr_i (set),
      .wdata_i (fill_i ? fill_entry_i : upd_entry_i), .raddr_i (set), .rdata_o (ents_r[w*EntW +: EntW])
    );
  end
`else
  /* verilator tracing_off */
  logic [TagW-1:0] tags_m [Ways][Sets];
  logic [EntW-1:0] ents_m [Ways][Sets];
  /* verilator tracing_on */
  always_ff @(posedge clk_i) begin
    if (we) begin
      tags_m[wway][set] <= tag;
      ents_m[wway][set] <= fill_i ? fill_entry_i : upd_entry_i;
    end
  end
  always_comb begin
    tags_r = '0;
    ents_r = '0;
    if (look_i)
      for (int w = 0; w < Ways; w++) begin
        tags_r[w*TagW +: TagW] = tags_m[w][set];
        ents_r[w*EntW +: EntW] = ents_m[w][set];
      end
  end
`endif

  assign set_valid = valid_q[set*Ways +: Ways];
  assign set_dirty = dirty_q[set*Ways +: Ways];
  always_comb begin
    match = '0;
    hway  = '0;
    if (look_i)
      for (int w = 0; w < Ways; w++) begin
        match[w] = set_valid[w] & (tags_r[w*TagW +: TagW] == tag);
        if (match[w]) hway = WayW'(w);
      end
  end
  assign hit_o   = |match;
  assign entry_o = look_i ? ents_r[hway*EntW +: EntW] : '0;
  assign vway    = vict_q[set*WayW +: WayW];

  // The way written: the victim on a fill, the hit way on an update.
  assign wway = fill_i ? vway : hway;
  assign we   = fill_i | (upd_i & hit_o);

  // Write-back: the set's next victim (what a fill would evict) or the flush walk's way, when
  // valid and dirty (independent of fill_i: the caller decides).
  always_comb begin
    logic [WayW-1:0] bway;
    bway       = wbsel_i ? wbway_i : vway;
    wb_valid_o = 1'b0;
    wb_line_o  = '0;
    wb_entry_o = '0;
    if (look_i) begin
      wb_valid_o = set_valid[bway] & set_dirty[bway];
      wb_line_o  = {tags_r[bway*TagW +: TagW], set};
      wb_entry_o = ents_r[bway*EntW +: EntW];
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni || inv_i) begin
      valid_q <= '0;
      dirty_q <= '0;
      vict_q  <= '0;
    end else begin
      if (fill_i) begin
        valid_q[set*Ways + 32'(vway)] <= 1'b1;
        dirty_q[set*Ways + 32'(vway)] <= 1'b0;
        vict_q[set*WayW +: WayW]      <= (32'(vway) == Ways - 1) ? '0 : vway + WayW'(1);
      end else if (upd_i && hit_o) begin
        dirty_q[set*Ways + 32'(hway)] <= 1'b1;
      end else if (wbsel_i && clean_i) begin
        dirty_q[set*Ways + 32'(wbway_i)] <= 1'b0;
      end
    end
  end

  `ASSERT(fill_only_on_miss, !fill_i || !hit_o)
  `ASSERT(one_op, $countones({fill_i, upd_i, clean_i}) <= 1)
  `ASSERT(one_match, $countones(match) <= 1)

endmodule
`default_nettype wire
