`default_nettype none
`include "assert.svh"

// The directory's transaction engine: what the cycle's event (dir_event) does to its transaction.
// From the event's transaction's fields (dir_tbe's e_*), the table's row (dir_decide) and the
// event's inputs (a memory response, a snoop answer, a new request, the management port's
// RECOVER), it works out the transaction's next fields and step (nx_*, written into dir_tbe at
// the edge), the memory request (in the narrow form dir_ctrl's memory request mux widens), the
// response, the directory cache's fill or update, the violations and the events counted. The walk
// and the management commands are dir_walk's and dir_mgmt's.
//
// A transaction's steps: WAIT (behind an older one of its line) -> START (look the entry up in
// the cache) -> FILLW (directory line read from DRAM) -> INSTALL (into the cache) -> DECIDE (the
// table's row: snoops, memory read or write, or a violation) -> SNOOP (answers awaited; a memory
// read may run alongside) / MEMRD (read to issue) / MEMW (data awaited) -> FINISH (the response)
// -> END (the entry written back, the next waiting transaction of the line started). LNR
// transactions skip the entry: NEW -> DECIDE.
module dir_txn #(
  localparam int unsigned FlitW  = msg_pkg::FLIT_W,
  localparam int unsigned DataW  = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned HdrW   = FlitW - DataW,
  localparam int unsigned AddrW  = msg_pkg::LINE_ADDR_W,
  localparam int unsigned NumCn  = msg_pkg::MAX_CN,
  localparam int unsigned CnW    = $clog2(msg_pkg::MAX_CN),
  localparam int unsigned TsW    = msg_pkg::TS_W,
  localparam int unsigned WordN  = msg_pkg::WORDS_PER_LINE,
  localparam int unsigned VerLsb = 2 + 2 * NumCn,
  localparam int unsigned EntW   = VerLsb + TsW    // a directory entry (dir_decide)
) (
  // the cycle's event (one at most): a memory response, a snoop answer, a failed sharer's answer
  // given up (taken as BIRSP_I), the steps END, FINISH, INSTALL, MEMRD, DECIDE, START, a RECOVER
  // that releases a held transaction, a new request (or RECOVER) into the table
  /// the cycle's event is a memory response
  input  wire logic                          ev_memrsp_i,
  /// the cycle's event is a snoop answer (BIRSP)
  input  wire logic                          ev_birsp_i,
  /// the cycle's event is a failed sharer's answer given up (taken as BIRSP_I)
  input  wire logic                          ev_purge_i,
  /// the cycle's event is a transaction's END
  input  wire logic                          ev_end_i,
  /// the cycle's event is a transaction's FINISH
  input  wire logic                          ev_finish_i,
  /// the cycle's event is a transaction's INSTALL
  input  wire logic                          ev_install_i,
  /// the cycle's event is a transaction's MEMRD
  input  wire logic                          ev_memrd_i,
  /// the cycle's event is a transaction's DECIDE
  input  wire logic                          ev_decide_i,
  /// the cycle's event is a transaction's START
  input  wire logic                          ev_start_i,
  /// the cycle's event is a RECOVER releasing the transaction held on its line
  input  wire logic                          ev_release_i,
  /// the cycle's event is a new request (or RECOVER) into the table
  input  wire logic                          ev_new_i,
  // the event's transaction's fields (dir_tbe's e_*_o; e_cn_i: its requester, a CN: only CNs'
  // requests enter the table)
  /// the event's transaction: in use
  input  wire logic                          e_valid_i,
  /// the event's transaction: step (dir_tbe's st_e)
  input  wire logic [3:0]                    e_st_i,
  /// the event's transaction: in the Large Non-coherent Region (no entry)
  input  wire logic                          e_lnr_i,
  /// the event's transaction: line (global address)
  input  wire logic [AddrW-1:0]              e_line_i,
  /// the event's transaction: local line
  input  wire logic [31:0]                   e_lline_i,
  /// the event's transaction: request's opcode
  input  wire logic [msg_pkg::OPCODE_W-1:0]  e_op_i,
  /// the event's transaction: requester (a CN)
  input  wire logic [CnW-1:0]                e_cn_i,
  /// the event's transaction: request's word mask
  input  wire logic [WordN-1:0]              e_mask_i,
  /// the event's transaction: line's directory entry
  input  wire logic [EntW-1:0]               e_ent_i,
  /// the event's transaction: entry changed (written back at END)
  input  wire logic                          e_chg_i,
  /// the event's transaction: CNs whose snoop answers it awaits
  input  wire logic [NumCn-1:0]              e_await_i,
  /// the event's transaction: CNs it has still to snoop
  input  wire logic [NumCn-1:0]              e_snp_i,
  /// the event's transaction: snoops invalidate (BISNP_INV, else BISNP_DATA)
  input  wire logic                          e_snpinv_i,
  /// the event's transaction: needs the line's data
  input  wire logic                          e_need_i,
  /// the event's transaction: has the line's data
  input  wire logic                          e_have_i,
  /// the event's transaction: has issued its memory read
  input  wire logic                          e_rdis_i,
  /// the event's transaction: owner kept a shared copy
  input  wire logic                          e_kepts_i,
  /// the event's transaction: request was a violation (no response)
  input  wire logic                          e_viol_i,
  /// the event's transaction: is the management port's RECOVER
  input  wire logic                          e_rec_i,
  /// the event's transaction: FINISH answers nothing and leaves the entry
  input  wire logic                          e_skip_i,
  /// the event's transaction: RECOVER found a failed owner
  input  wire logic                          e_recok_i,
  /// its request's header (dir_msg: the report of a violation found at DECIDE)
  input  wire logic [HdrW-1:0]               e_hdr_i,
  // the table's row at DECIDE (dir_decide: as its outputs of the same names)
  /// DECIDE: a duplicate request (DUP_REQ)
  input  wire logic                          row_dup_i,
  /// DECIDE: a write the state does not allow (NOT_OWNER)
  input  wire logic                          row_not_owner_i,
  /// DECIDE: a stale write
  input  wire logic                          row_stale_i,
  /// DECIDE: read the line's data
  input  wire logic                          row_rd_i,
  /// DECIDE: write the request's words
  input  wire logic                          row_wr_i,
  /// DECIDE: snoop row_targets_i
  input  wire logic                          row_snoop_i,
  /// DECIDE: the snoops invalidate
  input  wire logic                          row_inv_i,
  /// DECIDE: the CNs to snoop
  input  wire logic [NumCn-1:0]              row_targets_i,
  /// DECIDE: the transaction needs the line's data
  input  wire logic                          row_need_i,
  /// DECIDE: the entry after the row
  input  wire logic [EntW-1:0]               row_ent_i,
  /// DECIDE: the row changed the entry
  input  wire logic                          row_chg_i,
  /// it found a failed owner
  input  wire logic                          rec_ok_i,
  /// a RECOVER's entry (dir_decide)
  input  wire logic [EntW-1:0]               rec_ent_i,
  /// the entry a FINISH leaves (dir_decide)
  input  wire logic [EntW-1:0]               fin_ent_i,
  /// per transaction: its row snoops an owner (dir_decide)
  input  wire logic                          own_snp_i,
  // to dir_decide: the event takes a row of the table; the event is a FINISH that answers
  /// the event takes a row of the table (dir_decide)
  output logic                               row_o,
  /// the event is a FINISH that answers (dir_decide)
  output logic                               fin_o,
  // the memory response is a directory line (else data); its data
  /// the memory response is a directory line (else data)
  input  wire logic                          rsp_dir_i,
  /// the line a memory read returned
  input  wire logic [DataW-1:0]              mem_rsp_rdata_i,
  // the snoop answer at its FIFO's head (msg_pkg::msg_t); a transaction awaits it; a failed
  // sharer's (EV_PURGE)
  /// the snoop answer at its FIFO's head (msg_pkg::msg_t)
  input  wire logic [FlitW-1:0]              bir_msg_i,
  /// a transaction awaits the BIRSP
  input  wire logic                          b_any_i,
  /// the failed CN whose answer is given up
  input  wire logic [CnW-1:0]                pg_cn_i,
  // the directory cache: a hit and the entry (START, END), a dirty victim (INSTALL)
  /// the directory cache hit (START, END)
  input  wire logic                          dc_hit_i,
  /// the entry it holds
  input  wire logic [EntW-1:0]               dc_ent_i,
  /// the flushed way, or the installed line's victim, is dirty
  input  wire logic                          dc_wb_i,
  /// its local line
  input  wire logic [31:0]                   dc_wb_line_i,
  /// its entry
  input  wire logic [EntW-1:0]               dc_wb_ent_i,
  /// the failed CNs (bit per CN)
  input  wire logic [NumCn-1:0]              failed_i,
  // the new message (dir_admit): the management port's RECOVER (else an RWD or a REQ), its
  // header, an RWD's, its local line, in the SCR, its violation (EV_NEW), it enters the table
  /// the new message is the management port's RECOVER
  input  wire logic                          n_mg_i,
  /// its header
  input  wire logic [HdrW-1:0]               n_hdr_i,
  /// the one taken is an RWD
  input  wire logic                          n_is_rwd_i,
  /// the line, local
  input  wire logic [31:0]                   n_lline_i,
  /// the line is in the SCR
  input  wire logic                          n_scr_i,
  /// the new message's violation (dir_admit)
  input  wire logic [3:0]                    n_kind_i,
  /// it enters the table
  input  wire logic                          n_new_i,
  /// the new message's line has a transaction
  input  wire logic                          busy_any_i,
  // the RECOVER's words, a version to set and the version
  /// its words
  input  wire logic [WordN-1:0]              mg_wmask_i,
  /// it sets the line's version
  input  wire logic                          mg_tsv_i,
  /// the version
  input  wire logic [TsW-1:0]                mg_ts_i,
  // the event's transaction's next fields (dir_tbe's nx_*_i)
  // (those a new transaction gets and keeps are dir_admit's)
  /// next: in use
  output logic                               nx_valid_o,
  /// next: step (dir_tbe's st_e)
  output logic      [3:0]                    nx_st_o,
  /// next: line's directory entry
  output logic      [EntW-1:0]               nx_ent_o,
  /// next: entry changed (written back at END)
  output logic                               nx_chg_o,
  /// next: CNs whose snoop answers it awaits
  output logic      [NumCn-1:0]              nx_await_o,
  /// next: CNs it has still to snoop
  output logic      [NumCn-1:0]              nx_snp_o,
  /// next: snoops invalidate (BISNP_INV, else BISNP_DATA)
  output logic                               nx_snpinv_o,
  /// next: needs the line's data
  output logic                               nx_need_o,
  /// next: has the line's data
  output logic                               nx_have_o,
  /// next: has issued its memory read
  output logic                               nx_rdis_o,
  /// next: owner kept a shared copy
  output logic                               nx_kepts_o,
  /// next: request was a violation (no response)
  output logic                               nx_viol_o,
  /// next: FINISH answers nothing and leaves the entry
  output logic                               nx_skip_o,
  /// next: RECOVER found a failed owner
  output logic                               nx_recok_o,
  /// the new transaction waits behind its line's youngest
  output logic                               succ_o,
  // the transaction's data line is written (dir_dpath), from (one-hot; none: the memory
  // response) the snoop answer, the RECOVER's words, the RWD
  /// the transaction's data line is written
  output logic                               td_we_o,
  /// from (one-hot; none: the memory response) the snoop answer, the RECOVER's words, the RWD
  output logic      [2:0]                    td_src_o,
  // a memory request (narrow form): valid, a write, the directory area, the local line (data) or
  // entry group (directory), the words, where the words come from (one-hot: bit 0 the
  // transaction's data line, bit 1 the snoop answer's data, bit 2 the RECOVER's words; none: 0)
  /// a memory request
  output logic                               mq_v_o,
  /// it is a write
  output logic                               mq_w_o,
  /// it is for the directory area
  output logic                               mq_dir_o,
  /// local line (data), entry group (directory read) or local line of the entry written
  output logic      [31:0]                   mq_addr_o,
  /// the words to write
  output logic      [WordN-1:0]              mq_mask_o,
  /// where the words come from (one-hot: the data line, the snoop answer's, the RECOVER's)
  output logic      [2:0]                    mq_src_o,
  // ... or an entry write: the entry of the local line mq_addr_o
  /// it is an entry write
  output logic                               mq_ent_v_o,
  /// the entry written
  output logic      [EntW-1:0]               mq_ent_o,
  // a memory read's tag: issued, a directory line (else data)
  /// a memory read's tag
  output logic                               rq_v_o,
  /// the read is of a directory line
  output logic                               rq_dir_o,
  /// the response (dir_msg's) goes to the send port
  output logic                               sq_v_o,
  // the directory cache: the local line looked up, a fill (INSTALL), an update (END)
  /// the local line the directory cache looks up
  output logic      [31:0]                   dc_line_o,
  /// install the entry (INSTALL)
  output logic                               dc_fill_o,
  /// the entry installed
  output logic      [EntW-1:0]               dc_fill_ent_o,
  /// update the cached entry (END)
  output logic                               dc_upd_o,
  /// the entry written
  output logic      [EntW-1:0]               dc_upd_ent_o,
  /// the BIRSP receive FIFO's head taken
  output logic                               bir_r_o,
  // the event's violation: kind (1 ADDR, 2 REGION, 3 NOT_OWNER, 4 DUP_REQ, 5 BIRSP, 6 BAD_MSG;
  // 0 none) and the offending message's header
  /// the engine's violation (1 ADDR .. 6 BAD_MSG; 0 none)
  output logic      [3:0]                    v_kind_o,
  /// the offending message's header
  output logic      [HdrW-1:0]               v_hdr_o,
  // a RECOVER's transaction finished: the answer (RECOVERED if rec_ok, else NOT_OWNED), its line
  /// a RECOVER's transaction finished (dir_txn)
  output logic                               rec_done_o,
  /// it found a failed owner
  output logic                               rec_ok_o,
  /// its line
  output logic      [AddrW-1:0]              rec_line_o,
  // events counted (dir_csr): a row of the table (tr), BIRSP received, a failed sharer's answer
  // given up, a memory read, a memory write, a directory cache hit, miss, write-back, a stale
  // write, a request waited, a RECOVER found / did not find a failed owner, a failed CN's
  // request dropped
  /// counted: a row of the table is taken (counter tr_i)
  output logic                               c_tr_o,
  /// counted: a BIRSP received
  output logic                               c_bir_o,
  /// counted: a failed sharer's answer given up
  output logic                               c_purged_o,
  /// counted: a memory read
  output logic                               c_mrd_o,
  /// counted: a memory write
  output logic                               c_mwr_o,
  /// counted: a directory cache hit
  output logic                               c_hit_o,
  /// counted: a directory cache miss
  output logic                               c_miss_o,
  /// counted: a directory cache write-back
  output logic                               c_wb_o,
  /// counted: a stale write
  output logic                               c_stale_o,
  /// counted: a request waits behind an older one of its line
  output logic                               c_waited_o,
  /// counted: a RECOVERED
  output logic                               c_recok_o,
  /// counted: a NOT_OWNED
  output logic                               c_recno_o,
  /// counted: a failed CN's request dropped
  output logic                               c_void_o
);

  // A transaction's steps (dir_tbe stores them: the same names, the same order).
  typedef enum logic [3:0] {
    ST_WAIT, ST_START, ST_FILLW, ST_INSTALL, ST_DECIDE, ST_SNOOP, ST_MEMRD, ST_MEMW, ST_FINISH,
    ST_END
  } st_e;
  // Where a memory write's words come from (dir_ctrl's memory request mux).
  localparam logic [2:0] MD_NONE = 3'b000, MD_TXN = 3'b001, MD_BIR = 3'b010, MD_MG = 3'b100;

  // The snoop answer the event takes: the link's BIRSP, or (EV_PURGE) a failed sharer's BIRSP_I.
  msg_pkg::opcode_t a_op;
  logic [CnW-1:0]   a_cn;
  logic             a_wrif;
  assign a_op   = ev_purge_i ? msg_pkg::OP_BIRSP_I : bir_msg_i[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::OPCODE_W];
  assign a_cn   = ev_purge_i ? pg_cn_i : bir_msg_i[msg_pkg::FIELD_SRC_LSB +: CnW];
  assign a_wrif = ev_purge_i ? 1'b0 : bir_msg_i[msg_pkg::FIELD_FLAGS_LSB + msg_pkg::FLAG_WR_IN_FLIGHT_BIT];

  // A failed CN's request not yet decided is dropped at its DECIDE; a RECOVER's DECIDE is its own.
  assign row_o = ev_decide_i & ~e_rec_i & ~failed_i[e_cn_i];
  assign fin_o = ev_finish_i & ~e_skip_i;

  // A memory request of the event (narrow form).
  function automatic logic [2+32+WordN+3-1:0] mreq(logic w, logic dir, logic [31:0] a,
                                                    logic [WordN-1:0] m, logic [2:0] src);
    mreq = {w, dir, a, m, src};
  endfunction

  st_e st;   // the next step
  always_comb begin
    logic data, kept, bad;       // the snoop answer: with data, the owner kept S, a violation
    logic [NumCn-1:0] left;      // the answers still awaited after it
    logic [3:0] vk;              // the row's violation
    data        = 1'b0;
    kept        = 1'b0;
    bad         = 1'b0;
    left        = '0;
    vk          = '0;
    nx_valid_o  = e_valid_i;
    nx_ent_o    = e_ent_i;
    nx_chg_o    = e_chg_i;
    nx_await_o  = e_await_i;
    nx_snp_o    = e_snp_i;
    nx_snpinv_o = e_snpinv_i;
    nx_need_o   = e_need_i;
    nx_have_o   = e_have_i;
    nx_rdis_o   = e_rdis_i;
    nx_kepts_o  = e_kepts_i;
    nx_viol_o   = e_viol_i;
    nx_skip_o   = e_skip_i;
    nx_recok_o  = e_recok_i;
    succ_o      = 1'b0;
    td_we_o     = 1'b0;
    td_src_o    = '0;
    {mq_w_o, mq_dir_o, mq_addr_o, mq_mask_o, mq_src_o} = '0;
    mq_v_o      = 1'b0;
    mq_ent_v_o  = 1'b0;
    mq_ent_o    = e_ent_i;
    rq_v_o      = 1'b0;
    rq_dir_o    = 1'b0;
    sq_v_o      = 1'b0;
    dc_line_o   = e_lline_i;
    dc_fill_o   = 1'b0;
    dc_fill_ent_o = e_ent_i;
    dc_upd_o    = 1'b0;
    dc_upd_ent_o = e_ent_i;
    bir_r_o     = 1'b0;
    v_kind_o    = '0;
    v_hdr_o     = e_hdr_i;
    rec_done_o  = 1'b0;
    rec_ok_o    = e_recok_i;
    rec_line_o  = e_line_i;
    {c_tr_o, c_bir_o, c_purged_o, c_mrd_o, c_mwr_o, c_hit_o, c_miss_o, c_wb_o, c_stale_o,
     c_waited_o, c_recok_o, c_recno_o, c_void_o} = '0;
    // (dir_tbe's value, of the same enum: Yosys 0.23 has no cast to a type)
    // verilator lint_off ENUMVALUE
    st          = e_st_i;
    // verilator lint_on ENUMVALUE

    // A memory response: a directory line (install the entry next) or data.
    if (ev_memrsp_i) begin
      if (rsp_dir_i) begin
        nx_ent_o = mem_rsp_rdata_i[e_lline_i[1:0]*128 +: EntW];
        st       = ST_INSTALL;
      end else begin
        td_we_o   = 1'b1;
        nx_have_o = 1'b1;
        if (e_await_i == '0) st = ST_FINISH;
      end
    end

    // A snoop answer: matched to the transaction awaiting its source, or a violation. A failed
    // sharer's answer (EV_PURGE) is BIRSP_I, taken the same way.
    if (ev_birsp_i || ev_purge_i) begin
      bir_r_o    = ev_birsp_i;
      c_bir_o    = ev_birsp_i;
      c_purged_o = ev_purge_i;
      v_hdr_o    = bir_msg_i[FlitW-1:DataW];
      if (ev_birsp_i && !b_any_i) begin
        v_kind_o = csr_pkg::V_BIRSP;
      end else begin
        data = (a_op == msg_pkg::OP_BIRSP_I_DATA) || (a_op == msg_pkg::OP_BIRSP_S_DATA);
        kept = (a_op == msg_pkg::OP_BIRSP_S) || (a_op == msg_pkg::OP_BIRSP_S_DATA);
        // Only the owner of an EM line may answer with data; only a BISNP_DATA lets it keep S.
        bad  = (data && !own_snp_i) || (kept && e_snpinv_i);
        left = e_await_i & ~(NumCn'(1) << a_cn);
        if (bad) begin
          // Dropped like any violation: the transaction still awaits a valid answer.
          v_kind_o = csr_pkg::V_BIRSP;
        end else begin
          nx_await_o = left;
          nx_snp_o   = e_snp_i & ~(NumCn'(1) << a_cn);
          if (a_wrif) begin
            nx_ent_o[2 + NumCn + 32'(a_cn)] = 1'b1;
            nx_chg_o = 1'b1;
          end
          if (kept) nx_kepts_o = 1'b1;
        end
        if (data && !bad) begin
          // The owner's version comes with its data: the line's newest.
          nx_ent_o[VerLsb +: TsW] = bir_msg_i[msg_pkg::FIELD_TS_LSB +: TsW];
          nx_chg_o = 1'b1;
          // The owner's dirty line: to memory, and kept for the requester.
          td_we_o    = 1'b1;
          td_src_o   = 3'b001;
          nx_have_o  = 1'b1;
          mq_v_o     = 1'b1;
          {mq_w_o, mq_dir_o, mq_addr_o, mq_mask_o, mq_src_o} = mreq(1'b1, 1'b0, e_lline_i, WordN'('1), MD_BIR);
          c_mwr_o    = 1'b1;
        end
        if (!bad && left == '0 && e_st_i == ST_SNOOP) begin
          if (!e_need_i || e_have_i || data) st = ST_FINISH;
          else if (e_rdis_i)                 st = ST_MEMW;
          else                               st = ST_MEMRD;
        end
      end
    end

    // The end: the entry back to the cache (or to DRAM if it left the cache), the transaction
    // freed, the next one of its line started (dir_tbe).
    if (ev_end_i) begin
      if (!e_lnr_i && e_chg_i) begin
        if (dc_hit_i) begin
          dc_upd_o     = 1'b1;
          dc_upd_ent_o = e_ent_i;
        end else begin
          mq_v_o     = 1'b1;
          mq_ent_v_o = 1'b1;
          mq_addr_o  = e_lline_i;
          mq_ent_o   = e_ent_i;
          c_mwr_o    = 1'b1;
        end
      end
      nx_valid_o = 1'b0;
    end

    // The response, and the line's new entry.
    if (ev_finish_i) begin
      sq_v_o = ~e_viol_i & ~e_skip_i;
      if (e_rec_i) begin
        rec_done_o = 1'b1;
        c_recok_o  = e_recok_i;
        c_recno_o  = ~e_recok_i;
      end
      if (fin_ent_i != e_ent_i) begin
        nx_ent_o = fin_ent_i;
        nx_chg_o = 1'b1;
      end
      st = ST_END;
    end

    // A directory line arrived: install its entry (a dirty victim goes back to DRAM).
    if (ev_install_i) begin
      dc_fill_o     = 1'b1;
      dc_fill_ent_o = e_ent_i;
      if (dc_wb_i) begin
        mq_v_o     = 1'b1;
        mq_ent_v_o = 1'b1;
        mq_addr_o  = dc_wb_line_i;
        mq_ent_o   = dc_wb_ent_i;
        c_wb_o     = 1'b1;
        c_mwr_o    = 1'b1;
      end
      st = ST_DECIDE;
    end

    // Read the line's data.
    if (ev_memrd_i) begin
      mq_v_o    = 1'b1;
      {mq_w_o, mq_dir_o, mq_addr_o, mq_mask_o, mq_src_o} = mreq(1'b0, 1'b0, e_lline_i, '0, MD_NONE);
      rq_v_o    = 1'b1;
      c_mrd_o   = 1'b1;
      nx_rdis_o = 1'b1;
      st        = ST_MEMW;
    end

    // The row of the state x event table (dir_decide), or a RECOVER's, or a failed CN's request.
    if (ev_decide_i) begin
      if (e_rec_i) begin
        // The handler's RECOVER: the recovered words to memory and the entry to I, if a failed
        // CN still owns the line (dir_decide).
        if (rec_ok_i) begin
          mq_v_o      = 1'b1;
          {mq_w_o, mq_dir_o, mq_addr_o, mq_mask_o, mq_src_o} = mreq(1'b1, 1'b0, e_lline_i, e_mask_i, MD_TXN);
          c_mwr_o     = 1'b1;
          nx_ent_o    = rec_ent_i;
          nx_chg_o    = 1'b1;
          nx_recok_o  = 1'b1;
        end
        st = ST_FINISH;
      end else if (failed_i[e_cn_i]) begin
        // A failed CN's request not yet decided: dropped, unanswered, the entry unchanged.
        nx_skip_o = 1'b1;
        c_void_o  = 1'b1;
        st        = ST_FINISH;
      end else begin
        vk          = row_dup_i ? csr_pkg::V_DUP_REQ : row_not_owner_i ? csr_pkg::V_NOT_OWNER : 4'd0;
        c_stale_o   = row_stale_i;
        if (row_chg_i) begin
          nx_ent_o = row_ent_i;
          nx_chg_o = 1'b1;
        end
        c_tr_o      = 1'b1;
        v_kind_o    = vk;
        nx_viol_o   = vk != '0;
        nx_need_o   = row_need_i;
        if (vk != '0) begin
          st = ST_FINISH;
        end else if (row_wr_i) begin
          mq_v_o  = 1'b1;
          {mq_w_o, mq_dir_o, mq_addr_o, mq_mask_o, mq_src_o} =
            mreq(1'b1, 1'b0, e_lline_i, (e_op_i == msg_pkg::OP_DIRTY_EVICT) ? WordN'('1) : e_mask_i, MD_TXN);
          c_mwr_o = 1'b1;
          st      = ST_FINISH;
        end else if (row_snoop_i) begin
          nx_snp_o    = row_targets_i;
          nx_await_o  = row_targets_i;
          nx_snpinv_o = row_inv_i;
          st          = ST_SNOOP;
          // S_RdOwn reads memory while the sharers are invalidated.
          if (row_rd_i) begin
            mq_v_o    = 1'b1;
            {mq_w_o, mq_dir_o, mq_addr_o, mq_mask_o, mq_src_o} = mreq(1'b0, 1'b0, e_lline_i, '0, MD_NONE);
            rq_v_o    = 1'b1;
            c_mrd_o   = 1'b1;
            nx_rdis_o = 1'b1;
          end
        end else if (row_rd_i) begin
          mq_v_o    = 1'b1;
          {mq_w_o, mq_dir_o, mq_addr_o, mq_mask_o, mq_src_o} = mreq(1'b0, 1'b0, e_lline_i, '0, MD_NONE);
          rq_v_o    = 1'b1;
          c_mrd_o   = 1'b1;
          nx_rdis_o = 1'b1;
          st        = ST_MEMW;
        end else begin
          st = ST_FINISH;
        end
      end
    end

    // Look the entry up: a hit decides next, a miss reads the directory line.
    if (ev_start_i) begin
      if (dc_hit_i) begin
        nx_ent_o = dc_ent_i;
        st       = ST_DECIDE;
        c_hit_o  = 1'b1;
      end else begin
        mq_v_o   = 1'b1;
        {mq_w_o, mq_dir_o, mq_addr_o, mq_mask_o, mq_src_o} = mreq(1'b0, 1'b1, 32'(e_lline_i >> 2), '0, MD_NONE);
        rq_v_o   = 1'b1;
        rq_dir_o = 1'b1;
        c_miss_o = 1'b1;
        c_mrd_o  = 1'b1;
        st       = ST_FILLW;
      end
    end

    // The management port's RECOVER of a line a failed owner holds a transaction on (dir_mgmt
    // answers it): the words to memory, then the transaction goes on as if the owner had answered
    // BIRSP_I (it reads memory); with a version, as if the answer had carried it, as one with data
    // does: the grant carries it and the entry keeps it.
    if (ev_release_i) begin
      if (mg_tsv_i) begin
        nx_ent_o[VerLsb +: TsW] = mg_ts_i;
        nx_chg_o = 1'b1;
      end
      mq_v_o     = 1'b1;
      {mq_w_o, mq_dir_o, mq_addr_o, mq_mask_o, mq_src_o} = mreq(1'b1, 1'b0, n_lline_i, mg_wmask_i, MD_MG);
      c_mwr_o    = 1'b1;
      nx_await_o = e_await_i & ~failed_i;
      nx_snp_o   = e_snp_i & ~failed_i;
      if ((e_await_i & ~failed_i) == '0 && e_st_i == ST_SNOOP) begin
        if (!e_need_i || e_have_i) st = ST_FINISH;
        else if (e_rdis_i)         st = ST_MEMW;
        else                       st = ST_MEMRD;
      end
    end

    // A new request (checked by dir_admit): into the table, behind the youngest of its line if
    // any.
    if (ev_new_i) begin
      v_hdr_o  = n_hdr_i;
      v_kind_o = n_kind_i;
      if (n_new_i) begin
        nx_valid_o  = 1'b1;
        nx_ent_o    = '0;
        nx_chg_o    = 1'b0;
        nx_await_o  = '0;
        nx_snp_o    = '0;
        nx_snpinv_o = 1'b0;
        nx_need_o   = 1'b0;
        nx_have_o   = 1'b0;
        nx_rdis_o   = 1'b0;
        nx_kepts_o  = 1'b0;
        nx_viol_o   = 1'b0;
        nx_skip_o   = n_mg_i;
        nx_recok_o  = 1'b0;
        if (busy_any_i) begin
          st         = ST_WAIT;
          succ_o     = 1'b1;
          c_waited_o = ~n_mg_i;
        end else begin
          st         = n_scr_i ? ST_START : ST_DECIDE;
        end
        // Data to keep: an RWD's line, a RECOVER's words.
        td_we_o    = n_is_rwd_i | n_mg_i;
        // (An RWD's data; a REQ keeps none: n_is_rwd is low and td_we with it.)
        td_src_o   = n_mg_i ? 3'b010 : 3'b100;
      end
    end
  end
  assign nx_st_o = st;

endmodule
`default_nettype wire
