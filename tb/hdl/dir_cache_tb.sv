`default_nettype none
// Test harness of dir_cache: one instance, small enough that lines share sets and ways are
// evicted often (Sets 4, Ways 2, 6-bit lines, 9-bit entries); its ports are the block's (see
// dir_cache for their meaning). Verilated twice: as is (the simulation form of the arrays) and with
// SYNTHESIS defined (dir_cache_tb_synth: a ram_1r1w per way), which tb/test_dir_cache.c runs side
// by side.
module dir_cache_tb (
  /// Clock.
  input  wire logic       clk_i,
  /// Synchronous active-low reset.
  input  wire logic       rst_ni,
  /// The block's ports (dir_cache says what each means).
  input  wire logic [5:0] line_i,
  input  wire logic       look_i,
  output logic            hit_o,
  output logic      [8:0] entry_o,
  input  wire logic       fill_i,
  input  wire logic [8:0] fill_entry_i,
  input  wire logic       upd_i,
  input  wire logic [8:0] upd_entry_i,
  input  wire logic       wbsel_i,
  input  wire logic [1:0] wbset_i,
  input  wire logic       wbway_i,
  input  wire logic       clean_i,
  input  wire logic       inv_i,
  output logic            wb_valid_o,
  output logic      [5:0] wb_line_o,
  output logic      [8:0] wb_entry_o
);

  dir_cache #(.Sets(4), .Ways(2), .LineW(6), .EntW(9)) u_dc (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .line_i       (line_i),
    .look_i       (look_i),
    .hit_o        (hit_o),
    .entry_o      (entry_o),
    .fill_i       (fill_i),
    .fill_entry_i (fill_entry_i),
    .upd_i        (upd_i),
    .upd_entry_i  (upd_entry_i),
    .wbsel_i      (wbsel_i),
    .wbset_i      (wbset_i),
    .wbway_i      (wbway_i),
    .clean_i      (clean_i),
    .inv_i        (inv_i),
    .wb_valid_o   (wb_valid_o),
    .wb_line_o    (wb_line_o),
    .wb_entry_o   (wb_entry_o)
  );

endmodule
`default_nettype wire
