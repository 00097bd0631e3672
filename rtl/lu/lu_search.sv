`default_nettype none
`include "assert.svh"

// FetchLatestVers in the Logging Unit (DIKTAMO §V-C): for a list of line addresses (FETCH_LATEST_VERS
// messages, one per line, LAST on the final one), the latest validated version of each requested
// word, from the DRAM log and the SRAM log buffer.
//
// Requests are collected until one carries LAST, Batch are held, or none waits behind those held
// (req_valid_i low); then one traversal serves them all (the paper's TravLU, counted in cycles on
// trav_o). The fabric may reorder a list's messages (link jitter): a LAST that overtakes an earlier
// request of its list ends a batch, and the straggler, with nothing behind it, is served by a
// traversal of its own instead of waiting for a LAST that has come already. A list sent back to
// back arrives faster than requests are taken (two per LU cycle against one), so it is not cut
// short by a gap:
//   1. wait until no record is on its way to the DRAM log, and hold the drain (active_o), so that
//      no entry moves between the two places searched;
//   2. the DRAM log: every record, index 0 .. log_count_i - 1, read in order on the memory port; a
//      record of a requested word replaces what was found before (a word's records are in commit
//      order in the log);
//   3. the SRAM log buffer: the validated slots of each requested line (lu_slots' search port), one
//      word per cycle; a validated word still in the buffer is younger than every record of it in
//      the log (it would have drained first otherwise), and among buffered ones the TS decides.
//      Entries not validated are never looked at.
// Then per request the answer: FETCH_LATEST_VERS_RESP messages, one per group of found words
// sharing a TS (mask = those words, ts = their TS, their values), flags bit 1 (END) on the last one
// of the request, bit 0 (LAST) too when the request had LAST, bit 2 (BUF) when a word of the group
// was found in the SRAM log buffer (a validated slot not drained yet) rather than only in the DRAM
// log; a request with nothing found gets one message with mask 0 (and no BUF). BUF is for the
// recovery handler, which must give the directory the line's latest version: only the validated
// updates still buffered are guaranteed to lie within 64 versions of each other (the bound the
// LU's ordering rests on, docs/architecture.md "Ordering"), so it takes the serial maximum of the
// BUF groups' TS; TS of records read back from the DRAM log may be any number of versions apart.
module lu_search #(
  /// REPL slots of the buffer
  parameter int unsigned Slots = 64,
  /// requests served by one traversal
  parameter int unsigned Batch = 8,
  localparam int unsigned FlitW = msg_pkg::FLIT_W,
  localparam int unsigned HdrW  = msg_pkg::FLIT_W - msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned SlotW = $clog2(Slots),
  localparam int unsigned WordN = msg_pkg::WORDS_PER_LINE,
  localparam int unsigned WordW = $clog2(msg_pkg::WORDS_PER_LINE),
  localparam int unsigned TsW   = msg_pkg::TS_W,
  localparam int unsigned LineW = msg_pkg::LINE_ADDR_W,
  localparam int unsigned ValW  = msg_pkg::WORD_W,
  localparam int unsigned RecW  = 128
) (
  /// LU clock
  input  wire logic                          clk_i,
  /// synchronous reset, active low
  input  wire logic                          rst_ni,
  /// this CN's node id
  input  wire logic [msg_pkg::NODE_ID_W-1:0] node_id_i,
  /// a FETCH_LATEST_VERS waits
  input  wire logic                          req_valid_i,
  /// its header
  input  wire logic [HdrW-1:0]               req_hdr_i,
  /// it is taken
  output logic                               req_ready_o,
  /// records in the DRAM log
  input  wire logic [31:0]                   log_count_i,
  /// no record is on its way to the DRAM log
  input  wire logic                          lw_idle_i,
  /// a dump owns the memory port: wait
  input  wire logic                          hold_i,
  /// a traversal runs: the drain holds, the buffer's read port is the search's
  output logic                               active_o,
  /// the traversal reads the DRAM log: the memory port is the search's (not while it waits for
  /// the records on their way to the log, which need the port to get there)
  output logic                               reading_o,
  /// the line whose slots are looked at
  output logic      [LineW-1:0]              srch_line_o,
  /// per slot: validated, of that line
  input  wire logic [Slots-1:0]              srch_match_i,
  /// slot read
  output logic      [SlotW-1:0]              srch_slot_o,
  /// word read
  output logic      [WordW-1:0]              srch_word_o,
  /// the slot's TS
  input  wire logic [TsW-1:0]                srch_ts_i,
  /// the slot's words in the buffer
  input  wire logic [WordN-1:0]              srch_pend_i,
  /// the word's value
  input  wire logic [ValW-1:0]               srch_value_i,
  /// DRAM log read request
  output logic                               rd_valid_o,
  /// it is taken
  input  wire logic                          rd_ready_i,
  /// record index
  output logic      [31:0]                   rd_idx_o,
  /// a record read returns (in request order)
  input  wire logic                          rsp_valid_i,
  /// the record
  input  wire logic [RecW-1:0]               rsp_rec_i,
  /// an answer waits
  output logic                               resp_valid_o,
  /// the answer (FETCH_LATEST_VERS_RESP)
  output logic      [FlitW-1:0]              resp_msg_o,
  /// it is taken
  input  wire logic                          resp_ready_i,
  /// a FETCH_LATEST_VERS request was answered completely (one cycle)
  output logic                               done_req_o,
  /// a traversal cycle (TravLU)
  output logic                               trav_o,
  /// nothing held, no traversal
  output logic                               idle_o
);
  localparam int unsigned KW = (Batch > 1) ? $clog2(Batch) : 1;
  localparam int unsigned DataW = WordN * ValW;

  if (Batch < 1 || Batch > 64) begin : g_bad_batch
    $error("lu_search: Batch must be in 1..64");
  end

  typedef enum logic [2:0] { S_COLLECT, S_WAIT, S_DRAM, S_SRAM, S_RESP } state_e;
  state_e st_q, st_d;

  // ---- the batch ----
  logic [Batch*LineW-1:0]              line_q;
  logic [Batch*WordN-1:0]              mask_q;
  logic [Batch*msg_pkg::TAG_W-1:0]     tag_q;
  logic [Batch*msg_pkg::NODE_ID_W-1:0] src_q, subj_q;
  logic [Batch-1:0]                    last_q;
  logic [KW:0]                         n_q, n_d;
  // per (request, word): found, found in the buffer, TS, value
  logic [Batch*WordN-1:0]              fnd_q, sram_q;
  logic [Batch*WordN*TsW-1:0]          ts_q;
  logic [Batch*WordN*ValW-1:0]         val_q;

  logic [KW-1:0]    k_q, k_d;            // request being worked on
  logic [31:0]      iss_q, iss_d, got_q, got_d, cnt_q, cnt_d;
  logic [Slots-1:0] vis_q, vis_d;        // slots of the request's line done
  logic [WordN-1:0] wdone_q, wdone_d, sent_q, sent_d;

  // ---- request fields ----
  logic [msg_pkg::NODE_ID_W-1:0] q_src, q_subj;
  logic [msg_pkg::TAG_W-1:0]     q_tag;
  logic [msg_pkg::FLAGS_W-1:0]   q_flags;
  logic [LineW-1:0]              q_line;
  logic [WordN-1:0]              q_mask;
  assign q_src   = req_hdr_i[msg_pkg::FIELD_SRC_LSB - DataW +: msg_pkg::NODE_ID_W];
  assign q_subj  = req_hdr_i[msg_pkg::FIELD_SUBJECT_LSB - DataW +: msg_pkg::NODE_ID_W];
  assign q_tag   = req_hdr_i[msg_pkg::FIELD_TAG_LSB - DataW +: msg_pkg::TAG_W];
  assign q_flags = req_hdr_i[msg_pkg::FIELD_FLAGS_LSB - DataW +: msg_pkg::FLAGS_W];
  assign q_line  = req_hdr_i[msg_pkg::FIELD_ADDR_LSB - DataW +: LineW];
  assign q_mask  = req_hdr_i[msg_pkg::FIELD_MASK_LSB - DataW +: WordN];
  logic hdr_unused;
  assign hdr_unused = ^{req_hdr_i, q_flags};

  // ---- DRAM record fields ----
  logic [ValW-1:0]  r_val;
  logic [LineW-1:0] r_line;
  logic [WordW-1:0] r_word;
  logic [TsW-1:0]   r_ts;
  assign r_val  = rsp_rec_i[63:0];
  assign r_line = rsp_rec_i[64 +: LineW];
  assign r_word = rsp_rec_i[106 +: WordW];
  assign r_ts   = rsp_rec_i[109 +: TsW];
  logic rec_unused;
  assign rec_unused = ^rsp_rec_i;

  function automatic logic ts_before(logic [TsW-1:0] a, logic [TsW-1:0] b);
    logic [TsW-1:0] d;
    d = b - a;
    ts_before = (d != '0) & ~d[TsW-1];
  endfunction

  // ---- SRAM scan: next slot and word of the current request ----
  logic [Slots-1:0] sm, sm_oh_unused;
  logic             sm_v;
  logic [SlotW-1:0] sslot;
  logic [WordN-1:0] swords, sw_oh;
  logic             sw_v;
  logic [WordW-1:0] sword;
  assign srch_line_o = line_q[k_q*LineW +: LineW];
  assign sm          = srch_match_i & ~vis_q;
  prio_enc #(.N(Slots)) u_sslot (.req_i (sm), .onehot_o (sm_oh_unused), .idx_o (sslot), .valid_o (sm_v));
  assign srch_slot_o = sslot;
  assign swords      = srch_pend_i & mask_q[k_q*WordN +: WordN] & ~wdone_q;
  prio_enc #(.N(WordN)) u_sword (.req_i (swords), .onehot_o (sw_oh), .idx_o (sword), .valid_o (sw_v));
  assign srch_word_o = sword;

  // ---- answers: the next group of found words sharing a TS ----
  logic [WordN-1:0] rem, grp, rem_oh_unused;
  logic [WordW-1:0] rem_w;
  logic             rem_v;
  logic [TsW-1:0]   gts;
  assign rem = fnd_q[k_q*WordN +: WordN] & ~sent_q;
  prio_enc #(.N(WordN)) u_rem (.req_i (rem), .onehot_o (rem_oh_unused), .idx_o (rem_w), .valid_o (rem_v));
  assign gts = ts_q[(32'(k_q)*WordN + 32'(rem_w))*TsW +: TsW];
  // (Looked at only while words remain: with none, the group is empty anyway.)
  always_comb begin
    grp = '0;
    if (rem != '0)
      for (int w = 0; w < WordN; w++) grp[w] = rem[w] & (ts_q[(k_q*WordN + w)*TsW +: TsW] == gts);
  end
  logic          grp_end, grp_buf;
  msg_pkg::msg_t rmsg;
  assign grp_end = (rem & ~grp) == '0;
  assign grp_buf = (grp & sram_q[k_q*WordN +: WordN]) != '0;
  // (Built only while it is offered: resp_msg_o means nothing without resp_valid_o.)
  always_comb begin
    rmsg         = '0;
    if (st_q == S_RESP) begin
      rmsg.opcode  = msg_pkg::OP_FETCH_LATEST_VERS_RESP;
      rmsg.src     = node_id_i;
      rmsg.dst     = src_q[k_q*msg_pkg::NODE_ID_W +: msg_pkg::NODE_ID_W];
      rmsg.subject = subj_q[k_q*msg_pkg::NODE_ID_W +: msg_pkg::NODE_ID_W];
      rmsg.tag     = tag_q[k_q*msg_pkg::TAG_W +: msg_pkg::TAG_W];
      rmsg.addr    = line_q[k_q*LineW +: LineW];
      rmsg.flags[msg_pkg::FLAG_BUF_BIT]  = grp_buf;
      rmsg.flags[msg_pkg::FLAG_END_BIT]  = grp_end;
      rmsg.flags[msg_pkg::FLAG_LAST_BIT] = grp_end & last_q[k_q];
      if (rem_v) begin
        rmsg.mask = grp;
        rmsg.ts   = gts;
        for (int w = 0; w < WordN; w++)
          if (grp[w]) rmsg.data[w*ValW +: ValW] = val_q[(k_q*WordN + w)*ValW +: ValW];
      end
    end
  end
  assign resp_msg_o   = rmsg;
  assign resp_valid_o = (st_q == S_RESP);

  // ---- next state ----
  logic take_req, rd_fire, resp_fire;
  assign take_req  = (st_q == S_COLLECT) & req_valid_i;
  assign rd_fire   = (st_q == S_DRAM) & (iss_q != cnt_q) & rd_ready_i;
  assign resp_fire = resp_valid_o & resp_ready_i;

  always_comb begin
    st_d    = st_q;
    n_d     = n_q;
    k_d     = k_q;
    iss_d   = iss_q;
    got_d   = got_q;
    cnt_d   = cnt_q;
    vis_d   = vis_q;
    wdone_d = wdone_q;
    sent_d  = sent_q;
    done_req_o = 1'b0;
    unique case (st_q)
      S_COLLECT: if (take_req) begin
        n_d = n_q + 1'b1;
        if (q_flags[msg_pkg::FLAG_LAST_BIT] || n_d == (KW + 1)'(Batch)) st_d = S_WAIT;
      end else if (n_q != '0) begin
        st_d = S_WAIT;
      end
      S_WAIT: if (lw_idle_i && !hold_i) begin
        st_d  = S_DRAM;
        iss_d = '0;
        got_d = '0;
        cnt_d = log_count_i;
      end
      S_DRAM: begin
        if (rd_fire) iss_d = iss_q + 32'd1;
        if (rsp_valid_i) got_d = got_q + 32'd1;
        if (got_d == cnt_q && iss_d == cnt_q) begin
          st_d    = S_SRAM;
          k_d     = '0;
          vis_d   = '0;
          wdone_d = '0;
        end
      end
      S_SRAM: begin
        if (!sm_v) begin
          // every validated slot of this request's line seen
          vis_d   = '0;
          wdone_d = '0;
          if ((KW + 1)'(k_q) + 1'b1 == n_q) begin
            st_d   = S_RESP;
            k_d    = '0;
            sent_d = '0;
          end else begin
            k_d = k_q + 1'b1;
          end
        end else if (!sw_v) begin
          vis_d[sslot] = 1'b1;
          wdone_d      = '0;
        end else begin
          wdone_d = wdone_q | sw_oh;
        end
      end
      S_RESP: if (resp_fire) begin
        sent_d = sent_q | (rem_v ? grp : '0);
        if (!rem_v || grp_end) begin
          done_req_o = 1'b1;
          sent_d     = '0;
          if ((KW + 1)'(k_q) + 1'b1 == n_q) begin
            st_d = S_COLLECT;
            n_d  = '0;
            k_d  = '0;
          end else begin
            k_d = k_q + 1'b1;
          end
        end
      end
      default: st_d = S_COLLECT;
    endcase
  end

  // Per (request k, word w): cleared when request k is collected; a DRAM record of the word replaces
  // what was found (records arrive in commit order); a buffered word replaces a record, or an older
  // buffered one (TS order). Each step's loop runs only in its state: an idle LU, or one in another
  // step of a search, computes nothing for the 64 pairs. (Every index is a constant of the loops:
  // indexed writes at a computed pair took Yosys' check of this block from 2 s to 140 s.)
  logic dram_go, sram_go;
  assign dram_go = (st_q == S_DRAM) & rsp_valid_i;
  assign sram_go = (st_q == S_SRAM) & sm_v & sw_v;
  always_ff @(posedge clk_i) begin
    if (take_req) begin
      for (int k = 0; k < Batch; k++) begin
        if (n_q[KW-1:0] == KW'(k)) begin
          fnd_q[k*WordN +: WordN]  <= '0;
          sram_q[k*WordN +: WordN] <= '0;
        end
      end
    end
    if (dram_go) begin
      for (int k = 0; k < Batch; k++) begin
        for (int w = 0; w < WordN; w++) begin
          if ((KW + 1)'(k) < n_q && r_word == WordW'(w) && mask_q[k*WordN + w] &&
              r_line == line_q[k*LineW +: LineW]) begin
            fnd_q[k*WordN + w]                <= 1'b1;
            ts_q[(k*WordN + w)*TsW +: TsW]    <= r_ts;
            val_q[(k*WordN + w)*ValW +: ValW] <= r_val;
          end
        end
      end
    end
    if (sram_go) begin
      for (int k = 0; k < Batch; k++) begin
        for (int w = 0; w < WordN; w++) begin
          if (k_q == KW'(k) && sword == WordW'(w) &&
              (!sram_q[k*WordN + w] || ts_before(ts_q[(k*WordN + w)*TsW +: TsW], srch_ts_i))) begin
            fnd_q[k*WordN + w]                <= 1'b1;
            sram_q[k*WordN + w]               <= 1'b1;
            ts_q[(k*WordN + w)*TsW +: TsW]    <= srch_ts_i;
            val_q[(k*WordN + w)*ValW +: ValW] <= srch_value_i;
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      st_q <= S_COLLECT;
      n_q  <= '0;
      k_q  <= '0;
    end else begin
      st_q <= st_d;
      n_q  <= n_d;
      k_q  <= k_d;
    end
  end
  always_ff @(posedge clk_i) begin
    iss_q   <= iss_d;
    got_q   <= got_d;
    cnt_q   <= cnt_d;
    vis_q   <= vis_d;
    wdone_q <= wdone_d;
    sent_q  <= sent_d;
  end
  for (genvar k = 0; k < Batch; k++) begin : g_req
    always_ff @(posedge clk_i) begin
      if (take_req && n_q[KW-1:0] == KW'(k)) begin
        line_q[k*LineW +: LineW]                           <= q_line;
        mask_q[k*WordN +: WordN]                           <= q_mask;
        tag_q[k*msg_pkg::TAG_W +: msg_pkg::TAG_W]          <= q_tag;
        src_q[k*msg_pkg::NODE_ID_W +: msg_pkg::NODE_ID_W]  <= q_src;
        subj_q[k*msg_pkg::NODE_ID_W +: msg_pkg::NODE_ID_W] <= q_subj;
        last_q[k]                                          <= q_flags[msg_pkg::FLAG_LAST_BIT];
      end
    end
  end

  assign req_ready_o = take_req;
  assign active_o    = (st_q != S_COLLECT);
  assign reading_o   = (st_q == S_DRAM);
  assign rd_valid_o  = (st_q == S_DRAM) & (iss_q != cnt_q);
  assign rd_idx_o    = iss_q;
  assign trav_o      = (st_q != S_COLLECT);
  assign idle_o      = (st_q == S_COLLECT) & (n_q == '0) & ~req_valid_i;

  `ASSERT(rsp_only_when_reading, !rsp_valid_i || (st_q == S_DRAM && got_q != iss_q))

endmodule
`default_nettype wire
