`default_nettype none
`include "assert.svh"

// The directory's counters and CSR read port (32-bit registers, word addresses; the data come the
// cycle after the request). The map is the [dir] table of rtl/include/csrs.toml (csr_pkg::DIR_CSR_*,
// docs/csrs.md): a counter per row of the state x event table, the events counted, the table's use,
// the last walk's cycles and the failed CNs. Other addresses read 0 with csr_err_o. Counters are 32
// bits and wrap. The event numbers (csr_pkg::EV_*: counter e at bits e * 32) are used here only;
// the other parts give one strobe per event.
module dir_csr #(
  /// transaction table entries
  parameter int unsigned TxnEntries = 16,
  localparam int unsigned NumCn = msg_pkg::MAX_CN,
  localparam int unsigned TW    = (TxnEntries > 1) ? $clog2(TxnEntries) : 1
) (
  /// controller clock
  input  wire logic                  clk_i,
  /// synchronous reset, active low: every counter 0
  input  wire logic                  rst_ni,
  // CSR read request, its word address
  /// CSR read request
  input  wire logic                  csr_valid_i,
  /// CSR word address
  input  wire logic [7:0]            csr_addr_i,
  // CSR response valid (the cycle after the request), read data, address refused
  /// CSR response valid (the cycle after the request)
  output logic                       csr_rvalid_o,
  /// CSR read data
  output logic      [31:0]           csr_rdata_o,
  /// CSR address refused
  output logic                       csr_err_o,
  // a row of the table is taken (dir_decide's tr_o: its counter's index)
  /// counted: a row of the table is taken (counter tr_i)
  input  wire logic                  c_tr_i,
  /// the row taken (dir_decide's tr_o: the counter's index, 0x00..0x11)
  input  wire logic [4:0]            tr_i,
  // the engine's violation (1 ADDR .. 6 BAD_MSG; 0 none); the receive port's (a BAD_MSG)
  /// the engine's violation (1 ADDR .. 6 BAD_MSG; 0 none)
  input  wire logic [3:0]            v_kind_i,
  /// the receive port dropped a message (a BAD_MSG)
  input  wire logic                  rx_bad_i,
  // one strobe per event counted (docs/csrs.md): BISNP sent, BIRSP received, cache hit,
  // miss, write-back, stale write, table full, waited, request taken, memory read, memory write,
  // walk's directory line read, sharers lost a failed CN, OWNED, RECOVERED, NOT_OWNED, a failed
  // sharer's answer given up, a failed CN's request dropped
  /// counted: a BISNP sent
  input  wire logic                  c_snp_i,
  /// counted: a BIRSP received
  input  wire logic                  c_bir_i,
  /// counted: a directory cache hit
  input  wire logic                  c_hit_i,
  /// counted: a directory cache miss
  input  wire logic                  c_miss_i,
  /// counted: a directory cache write-back
  input  wire logic                  c_wb_i,
  /// counted: a stale write
  input  wire logic                  c_stale_i,
  /// counted: a new request found the table full
  input  wire logic                  c_full_i,
  /// counted: a request waits behind an older one of its line
  input  wire logic                  c_waited_i,
  /// counted: a request taken
  input  wire logic                  c_reqs_i,
  /// counted: a memory read
  input  wire logic                  c_mrd_i,
  /// counted: a memory write
  input  wire logic                  c_mwr_i,
  /// counted: a directory line read by the walk
  input  wire logic                  c_wline_i,
  /// counted: an entry whose sharers lost a failed CN
  input  wire logic                  c_wsh_i,
  /// counted: OWNED reported
  input  wire logic                  c_owned_i,
  /// counted: a RECOVERED
  input  wire logic                  c_recok_i,
  /// counted: a NOT_OWNED
  input  wire logic                  c_recno_i,
  /// counted: a failed sharer's answer given up
  input  wire logic                  c_purged_i,
  /// counted: a failed CN's request dropped
  input  wire logic                  c_void_i,
  /// per transaction: valid (0x23 counts them)
  input  wire logic [TxnEntries-1:0] txn_valid_i,
  // the last walk's cycles (0x24), the failed CNs (0x2C)
  /// the last walk's cycles (0x24)
  input  wire logic [31:0]           walk_last_i,
  /// the failed CNs (bit per CN)
  input  wire logic [NumCn-1:0]      failed_i,
  /// the controller is stalled (dir_ctrl's stall_o)
  input  wire logic                  stall_i,
  /// clock cycles the simulation skipped before this edge (dir_ctrl's skip_i: EV_FULL's)
  input  wire logic [31:0]           skip_i,
  // the cycle counts no event; only EV_FULL
  /// the cycle counts no event (checks)
  output logic                       ev_none_o,
  /// the cycle counts only EV_FULL
  output logic                       ev_only_full_o,
  /// this edge is a stall's with no other input (the cycles skipped after it are stalled too)
  output logic                       stall_in_o
);
  // Events counted: csr_pkg::EV_* (bit: counter), generated from rtl/include/csrs.toml.

  logic [csr_pkg::EV_NUM-1:0] evc;
  always_comb begin
    evc            = '0;
    if (c_tr_i) evc[32'(tr_i)] = 1'b1;
    evc[csr_pkg::EV_SNP]    = c_snp_i;
    evc[csr_pkg::EV_BIR]    = c_bir_i;
    evc[csr_pkg::EV_HIT]    = c_hit_i;
    evc[csr_pkg::EV_MISS]   = c_miss_i;
    evc[csr_pkg::EV_WB]     = c_wb_i;
    evc[csr_pkg::EV_STALE]  = c_stale_i;
    evc[csr_pkg::EV_FULL]   = c_full_i;
    evc[csr_pkg::EV_WAITED] = c_waited_i;
    evc[csr_pkg::EV_REQS]   = c_reqs_i;
    evc[csr_pkg::EV_MRD]    = c_mrd_i;
    evc[csr_pkg::EV_MWR]    = c_mwr_i;
    evc[csr_pkg::EV_WLINE]  = c_wline_i;
    evc[csr_pkg::EV_WSH]    = c_wsh_i;
    evc[csr_pkg::EV_OWNED]  = c_owned_i;
    evc[csr_pkg::EV_RECOK]  = c_recok_i;
    evc[csr_pkg::EV_RECNO]  = c_recno_i;
    evc[csr_pkg::EV_PURGED] = c_purged_i;
    evc[csr_pkg::EV_VOID]   = c_void_i;
    if (v_kind_i != '0) evc[csr_pkg::EV_VIOL + 32'(v_kind_i) - 1] = 1'b1;
  end
  assign ev_none_o      = evc == '0;
  assign ev_only_full_o = evc == csr_pkg::EV_NUM'(1) << csr_pkg::EV_FULL;

  logic [csr_pkg::EV_NUM*32-1:0] cnt_q;   // counter e: bits e * 32 +: 32
  logic [TW:0] in_use;
  // The cycles a stalled controller was not clocked (stall_o), EV_FULL's: the edge after them
  // counts them, and a read of EV_FULL at that edge adds them, so that the counter reads as if
  // every cycle had been clocked.
  logic        stall_q;
  logic [31:0] full_skip;
`ifndef SYNTHESIS
  assign full_skip = stall_q ? skip_i : 32'd0;
`else
  assign full_skip = 32'd0;
`endif
  // (Counted only when the CSR port reads.)
  always_comb begin
    in_use = '0;
    if (csr_valid_i)
      for (int t = 0; t < TxnEntries; t++) in_use = in_use + (TW + 1)'(txn_valid_i[t]);
  end

  logic        csr_rvalid_q, csr_err_q, csr_err_d;
  logic [31:0] csr_rdata_q, csr_rdata_d;
  always_comb begin
    logic [5:0] hi;   // a counter of the upper range, at 0x25..
    hi          = csr_addr_i[5:0] - 6'd2;
    csr_rdata_d = '0;
    csr_err_d   = 1'b0;
    // Counters 0..34 at 0x00..0x22, then the table's use, the last walk's time, counters 35..41
    // at 0x25..0x2B and the failed CNs (worked out only in a cycle that reads).
    if (!csr_valid_i) begin
      // (no read)
    end else if (32'(csr_addr_i) < 32'(csr_pkg::DIR_CSR_IN_USE))      csr_rdata_d = cnt_q[32'(csr_addr_i[5:0])*32 +: 32] +
                                                                ((32'(csr_addr_i) == csr_pkg::EV_FULL) ? full_skip : 32'd0);
    else if (32'(csr_addr_i) == 32'(csr_pkg::DIR_CSR_IN_USE))         csr_rdata_d = 32'(in_use);
    else if (32'(csr_addr_i) == 32'(csr_pkg::DIR_CSR_TRAV_DIR))     csr_rdata_d = walk_last_i;
    else if (32'(csr_addr_i) < 32'(csr_pkg::DIR_CSR_FAILED))         csr_rdata_d = cnt_q[32'(hi)*32 +: 32];
    else if (32'(csr_addr_i) == 32'(csr_pkg::DIR_CSR_FAILED))        csr_rdata_d = 32'(failed_i);
    else                                          csr_err_d   = 1'b1;
  end
  // The answer, then the counters, in one process. Only the counters of the cycle's events are
  // written (a cycle counts one or two events), with blocking writes: written non-blocking, part
  // by part, the 1 344-bit vector was copied into a shadow and back at every edge of the Verilated
  // model. Nothing but the answer reads them, and this process reads the answer (csr_rdata_d)
  // before it writes them, so the answer is the counters before the edge's events, as before.
  // verilator lint_off BLKSEQ
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      csr_rvalid_q <= 1'b0;
      csr_err_q    <= 1'b0;
      csr_rdata_q  <= '0;
      cnt_q         = '0;
    end else begin
      csr_rvalid_q <= csr_valid_i;
      csr_err_q    <= csr_valid_i & csr_err_d;
      csr_rdata_q  <= csr_valid_i ? csr_rdata_d : '0;
      if (evc != '0 || rx_bad_i || full_skip != '0)
        for (int e = 0; e < csr_pkg::EV_NUM; e++)
          if (evc[e] || (e == csr_pkg::EV_VIOL + 5 && rx_bad_i) || (e == csr_pkg::EV_FULL && full_skip != '0))
            cnt_q[e*32 +: 32] = cnt_q[e*32 +: 32] + ((e == csr_pkg::EV_VIOL + 5) ? 32'(evc[e]) + 32'(rx_bad_i) :
                                                    (e == csr_pkg::EV_FULL)     ? 32'(evc[e]) + full_skip  : 32'd1);
    end
  end
  // verilator lint_on BLKSEQ
  assign csr_rvalid_o = csr_rvalid_q;
  assign csr_rdata_o  = csr_rdata_q;
  assign csr_err_o    = csr_err_q;

  // This edge was a stall's with no other input but send credits (nor a CSR answer to clear): the
  // cycles skipped after it were stalled too. (Credits only change their counts: a stalled
  // controller has nothing to send, and stall_o does not depend on the counts.)
  assign stall_in_o = stall_i & ~csr_valid_i & ~csr_rvalid_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) stall_q <= 1'b0;
    else         stall_q <= stall_in_o;
  end

  // A skip follows only a stalled edge (ignored otherwise, but the driver would be out of step).
  `ASSERT(skip_after_stall, skip_i == '0 || stall_q)

endmodule
`default_nettype wire
