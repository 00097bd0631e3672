`default_nettype none
`include "assert.svh"

// The directory's recovery walk (TravDir, docs/architecture.md section 11c): after the
// management port's WALK, W_QUIET until every transaction is held on a failed owner or waits,
// W_FLUSH writes the directory cache's dirty entries back and drops them, W_SCAN reads every
// directory line (up to WalkReads of them ahead of the scan, the reads issued besides the
// engine's events: the sequential prefetching) and scans a line a cycle, stopping a cycle at each
// entry that needs something: a line a failed CN owns is reported (OWNED), failed CNs leave the
// sharer and stale-write vectors. The walk's lines wait in its own queue (u_walkq).
module dir_walk #(
  /// directory cache sets (power of two)
  parameter int unsigned DcSets    = 256,
  /// directory cache ways
  parameter int unsigned DcWays    = 4,
  /// directory lines the walk reads ahead of its scan
  parameter int unsigned WalkReads = 4,
  localparam int unsigned DataW  = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned AddrW  = msg_pkg::LINE_ADDR_W,
  localparam int unsigned MnIdxW = $clog2(msg_pkg::MAX_MN),
  localparam int unsigned NumCn  = msg_pkg::MAX_CN,
  localparam int unsigned TsW    = msg_pkg::TS_W,
  localparam int unsigned VerLsb = 2 + 2 * NumCn,
  localparam int unsigned EntW   = VerLsb + TsW,   // a directory entry (dir_decide)
  localparam int unsigned SetW   = $clog2(DcSets),
  localparam int unsigned WayW   = (DcWays > 1) ? $clog2(DcWays) : 1
) (
  /// controller clock
  input  wire logic              clk_i,
  /// synchronous reset, active low: no walk
  input  wire logic              rst_ni,
  /// this MN's index among the MNs (held from the reset on, as every cfg_* input)
  input  wire logic [MnIdxW-1:0] cfg_mn_idx_i,
  /// log2 of the number of MNs
  input  wire logic [2:0]        cfg_mn_shift_i,
  /// log2 of the interleave granularity, in lines
  input  wire logic [4:0]        cfg_gran_shift_i,
  /// lines of memory this MN holds
  input  wire logic [31:0]       cfg_lines_i,
  /// the management port's WALK is taken: the walk waits for quiet
  input  wire logic              start_i,
  /// only held and waiting transactions are left (dir_tbe; looked at while quiet_look_o)
  input  wire logic              quiet_i,
  /// the failed CNs (bit per CN)
  input  wire logic [NumCn-1:0]  failed_i,
  // the walk is idle; it waits for quiet (dir_tbe looks); it flushes or scans (the
  // transactions' steps wait)
  /// the walk is idle
  output logic                   idle_o,
  /// the walk waits for quiet (dir_tbe looks)
  output logic                   quiet_look_o,
  /// the walk flushes or scans (the transactions' steps wait)
  output logic                   walking_o,
  // the walk's events can be taken (dir_event: given room in the queues): a directory line to
  // scan (EV_WPROC), a way to flush (EV_FLUSH), the walk's end (EV_WDONE)
  /// a directory line to scan (EV_WPROC, given room)
  output logic                   wproc_ok_o,
  /// a way to flush (EV_FLUSH)
  output logic                   flush_ok_o,
  /// the walk can end (EV_WDONE)
  output logic                   wdone_ok_o,
  // the cycle's event is the walk's
  /// the cycle's event is the walk scanning a directory line
  input  wire logic              ev_wproc_i,
  /// the cycle's event is the walk flushing a way of the cache
  input  wire logic              ev_flush_i,
  /// the cycle's event is the walk's end
  input  wire logic              ev_wdone_i,
  /// the engine's event pushes a memory request (then the walk reads nothing ahead)
  input  wire logic              txn_mq_v_i,
  /// a memory request and a read tag fit
  input  wire logic              res_ok_i,
  // a memory response arrives, is the walk's read; its data
  /// a read's answer arrives (it pops its tag)
  input  wire logic              mem_rsp_valid_i,
  /// the answer is the walk's
  input  wire logic              rsp_walk_i,
  /// the line a memory read returned
  input  wire logic [DataW-1:0]  mem_rsp_rdata_i,
  // the directory cache: the set and way the flush looks at, clean it (written back), drop
  // every entry (the flush's last way)
  /// the set the flush looks at
  output logic      [SetW-1:0]   dc_set_o,
  /// the way
  output logic      [WayW-1:0]   dc_way_o,
  /// the flushed way is written back (clean it)
  output logic                   dc_clean_o,
  /// drop every entry (the flush's last way)
  output logic                   dc_inv_o,
  // the flushed way's dirty entry: there is one, its local line, the entry
  /// the flushed way, or the installed line's victim, is dirty
  input  wire logic              dc_wb_i,
  /// its local line
  input  wire logic [31:0]       dc_wb_line_i,
  /// its entry
  input  wire logic [EntW-1:0]   dc_wb_ent_i,
  // a memory request: valid, an entry write (of mq_ent_o at the local line mq_addr_o), else a
  // directory line read (the entry group mq_addr_o)
  /// a memory request
  output logic                   mq_v_o,
  /// it is an entry write (else a directory line read)
  output logic                   mq_ent_v_o,
  /// an entry write's local line, or the entry group read
  output logic      [31:0]       mq_addr_o,
  /// the entry written
  output logic      [EntW-1:0]   mq_ent_o,
  /// a directory line read's tag (a walk's)
  output logic                   rq_v_o,
  // answers: a failed CN owns a line (OWNED) and the line (global); the walk ended (WALKED),
  // its cycles
  /// answer OWNED: a failed CN owns the line
  output logic                   owned_o,
  /// the line (global)
  output logic      [AddrW-1:0]  owned_line_o,
  /// answer WALKED: the walk ended
  output logic                   walked_o,
  /// its cycles
  output logic      [31:0]       walked_cyc_o,
  /// the last walk's cycles (CSR)
  output logic      [31:0]       last_o,
  // events counted (dir_csr): a memory read, a memory write, a directory cache write-back, a
  // directory line read, an entry whose sharers lost a failed CN, OWNED reported
  /// counted (dir_csr): a memory read
  output logic                   c_mrd_o,
  /// counted (dir_csr): a memory write
  output logic                   c_mwr_o,
  /// counted (dir_csr): a directory cache write-back
  output logic                   c_wb_o,
  /// counted (dir_csr): a directory line read by the walk
  output logic                   c_wline_o,
  /// counted (dir_csr): an entry whose sharers lost a failed CN
  output logic                   c_wsh_o,
  /// counted (dir_csr): OWNED reported
  output logic                   c_owned_o
);
  localparam int unsigned WOutW = $clog2(WalkReads + 1);

  typedef enum logic [1:0] {W_IDLE, W_QUIET, W_FLUSH, W_SCAN} wph_e;
  wph_e             w_ph_q, w_ph_d;
  logic [SetW-1:0]  w_set_q, w_set_d;
  logic [WayW-1:0]  w_way_q, w_way_d;
  logic [31:0]      w_grp_q, w_grp_d;     // next directory line to read
  logic [31:0]      w_pgrp_q, w_pgrp_d;   // the directory line at the head of the walk queue
  logic [1:0]       w_k_q, w_k_d;         // its entry processed next
  logic [WOutW-1:0] w_out_q, w_out_d;     // directory lines read and not yet processed
  logic [31:0]      w_cyc_q, w_last_q, w_last_d, w_ngrp;
  assign w_ngrp       = 32'((33'(cfg_lines_i) + 33'd3) >> 2);
  assign idle_o       = w_ph_q == W_IDLE;
  assign quiet_look_o = w_ph_q == W_QUIET;
  assign walking_o    = (w_ph_q == W_FLUSH) || (w_ph_q == W_SCAN);
  assign dc_set_o     = w_set_q;
  assign dc_way_o     = w_way_q;
  assign last_o       = w_last_q;

  logic             wf_push, wf_pop, wf_v, wf_room, wf_empty_unused;
  logic [DataW-1:0] wf_out;
  logic [WOutW-1:0] wf_cnt_unused;
  assign wf_push = mem_rsp_valid_i && rsp_walk_i;
  fifo #(.Depth(WalkReads), .Width(DataW)) u_walkq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (wf_push), .in_ready_o (wf_room), .in_data_i (mem_rsp_rdata_i),
    .out_valid_o (wf_v), .out_ready_i (wf_pop), .out_data_o (wf_out),
    .count_o (wf_cnt_unused), .empty_o (wf_empty_unused)
  );
  assign wproc_ok_o = (w_ph_q == W_SCAN) && wf_v;
  assign flush_ok_o = w_ph_q == W_FLUSH;
  assign wdone_ok_o = (w_ph_q == W_SCAN) && w_grp_q >= w_ngrp && w_out_q == '0;

  function automatic logic [EntW-1:0] ent_make(logic [1:0] st, logic [NumCn-1:0] vec,
                                               logic [NumCn-1:0] stale, logic [TsW-1:0] ver);
    ent_make = {ver, stale, vec, st};
  endfunction

  always_comb begin
    // (the scan's: the entries of the line at the walk queue's head)
    logic [31:0]      l;
    logic [EntW-1:0]  we;
    logic [1:0]       wst, sj;
    logic [NumCn-1:0] wvec, wstale, nvec, vj, tj;
    logic [TsW-1:0]   wver;
    logic [AddrW-1:0] lchunk;
    logic [3:0]       act;
    logic [1:0]       k;
    logic             any;
    {l, we, wst, sj, wvec, wstale, nvec, vj, tj, wver, lchunk, act, k, any} = '0;
    w_set_d      = w_set_q;
    w_way_d      = w_way_q;
    w_grp_d      = w_grp_q;
    w_pgrp_d     = w_pgrp_q;
    w_k_d        = w_k_q;
    w_out_d      = w_out_q;
    w_last_d     = w_last_q;
    w_ph_d       = (w_ph_q == W_QUIET && quiet_i) ? W_FLUSH : w_ph_q;
    wf_pop       = 1'b0;
    dc_clean_o   = 1'b0;
    dc_inv_o     = 1'b0;
    mq_v_o       = 1'b0;
    mq_ent_v_o   = 1'b0;
    mq_addr_o    = '0;
    mq_ent_o     = '0;
    rq_v_o       = 1'b0;
    owned_o      = 1'b0;
    owned_line_o = '0;
    walked_o     = 1'b0;
    walked_cyc_o = w_cyc_q;
    {c_mrd_o, c_mwr_o, c_wb_o, c_wline_o, c_wsh_o, c_owned_o} = '0;

    // The directory line at the walk queue's head: its entries from w_k_q on that need nothing
    // are passed over in this cycle; the first that needs something (a failed owner's line is
    // reported, OWNED; failed CNs leave a sharer or stale-write vector, the entry rewritten) is
    // handled, and the next event goes on after it. A line of entries needing nothing takes one
    // cycle (the scan keeps up with the reads WalkReads ahead: the sequential prefetching).
    if (ev_wproc_i) begin
      for (int j = 0; j < 4; j++) begin
        sj = wf_out[j*128 +: 2];
        vj = wf_out[j*128 + 2 +: NumCn];
        tj = wf_out[j*128 + 2 + NumCn +: NumCn];
        act[j] = (2'(j) >= w_k_q) && ({w_pgrp_q[29:0], 2'(j)} < cfg_lines_i) &&
                 ((vj & failed_i) != '0 && (sj == csr_pkg::E_EM || sj == csr_pkg::E_S) || (tj & failed_i) != '0);
      end
      any = act != '0;
      k   = act[0] ? 2'd0 : act[1] ? 2'd1 : act[2] ? 2'd2 : 2'd3;
      l      = {w_pgrp_q[29:0], k};
      we     = wf_out[32'(k)*128 +: EntW];
      wst    = we[1:0];
      wvec   = we[2 +: NumCn];
      wstale = we[2 + NumCn +: NumCn];
      wver   = we[VerLsb +: TsW];
      nvec   = (wst == csr_pkg::E_S) ? wvec & ~failed_i : wvec;
      // The line's global address (the address map, backwards).
      lchunk       = ((AddrW'(l) >> cfg_gran_shift_i) << cfg_mn_shift_i) | AddrW'(cfg_mn_idx_i);
      owned_line_o = (lchunk << cfg_gran_shift_i) | (AddrW'(l) & ~(AddrW'('1) << cfg_gran_shift_i));
      if (any) begin
        if (wst == csr_pkg::E_EM && (wvec & failed_i) != '0) begin
          owned_o   = 1'b1;
          c_owned_o = 1'b1;
        end else begin
          mq_v_o     = 1'b1;
          mq_ent_v_o = 1'b1;
          mq_addr_o  = l;
          mq_ent_o   = ent_make((wst == csr_pkg::E_S && nvec == '0) ? csr_pkg::E_I : wst, nvec, wstale & ~failed_i, wver);
          c_mwr_o    = 1'b1;
          c_wsh_o    = nvec != wvec;
        end
      end
      w_k_d = k + 2'd1;
      if (!any || k == 2'd3) begin
        wf_pop   = 1'b1;
        w_pgrp_d = w_pgrp_q + 32'd1;
        w_out_d  = w_out_q - WOutW'(1);
        w_k_d    = 2'd0;
      end
    end

    // The flush before the scan: one way of one set a cycle; dirty entries go to DRAM; at the
    // last one every entry is dropped (the scan reads DRAM, and writes it).
    if (ev_flush_i) begin
      if (dc_wb_i) begin
        dc_clean_o = 1'b1;
        mq_v_o     = 1'b1;
        mq_ent_v_o = 1'b1;
        mq_addr_o  = dc_wb_line_i;
        mq_ent_o   = dc_wb_ent_i;
        c_wb_o     = 1'b1;
        c_mwr_o    = 1'b1;
      end
      if (32'(w_way_q) == DcWays - 1) begin
        w_way_d = '0;
        w_set_d = w_set_q + SetW'(1);
        if (32'(w_set_q) == DcSets - 1) begin
          dc_inv_o = 1'b1;
          w_ph_d   = W_SCAN;
        end
      end else begin
        w_way_d = w_way_q + WayW'(1);
      end
    end

    // The walk has read and processed every directory line: its time (TravDir) to the handler.
    if (ev_wdone_i) begin
      walked_o = 1'b1;
      w_last_d = w_cyc_q;
      w_ph_d   = W_IDLE;
    end

    // The management port's WALK: wait for quiet, then flush and scan from the start.
    if (start_i) begin
      w_ph_d   = W_QUIET;
      w_set_d  = '0;
      w_way_d  = '0;
      w_grp_d  = '0;
      w_pgrp_d = '0;
      w_k_d    = '0;
    end

    // The sequential prefetcher: the next directory line is read in any cycle of the scan whose
    // event sends no memory request, WalkReads lines ahead of the scan at most (read and not yet
    // scanned); the answers go to the walk queue as they come (wf_push).
    if (w_ph_q == W_SCAN && w_grp_q < w_ngrp && 32'(w_out_q) < WalkReads && !txn_mq_v_i && !mq_v_o &&
        res_ok_i) begin
      mq_v_o    = 1'b1;
      mq_addr_o = w_grp_q;
      rq_v_o    = 1'b1;
      c_mrd_o   = 1'b1;
      c_wline_o = 1'b1;
      w_grp_d   = w_grp_q + 32'd1;
      w_out_d   = w_out_d + WOutW'(1);
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      w_ph_q   <= W_IDLE;
      w_set_q  <= '0;
      w_way_q  <= '0;
      w_grp_q  <= '0;
      w_pgrp_q <= '0;
      w_k_q    <= '0;
      w_out_q  <= '0;
      w_cyc_q  <= '0;
      w_last_q <= '0;
    end else begin
      w_ph_q   <= w_ph_d;
      w_set_q  <= w_set_d;
      w_way_q  <= w_way_d;
      w_grp_q  <= w_grp_d;
      w_pgrp_q <= w_pgrp_d;
      w_k_q    <= w_k_d;
      w_out_q  <= w_out_d;
      w_last_q <= w_last_d;
      // TravDir: from the flush's first cycle to the walk's end.
      if (w_ph_q == W_QUIET) w_cyc_q <= '0;
      else if (walking_o)    w_cyc_q <= w_cyc_q + 32'd1;
    end
  end

  // The walk never reads more directory lines than its queue holds.
  `ASSERT(walk_fits, !wf_push || wf_room)

endmodule
`default_nettype wire
