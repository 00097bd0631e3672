`default_nettype none
`include "assert.svh"

// The log engine of the Logging Unit: REPLs into the SRAM log buffer, VALs validating them, and
// validated words drained to the DRAM log in per-word commit order.
//
//   REPL  The head REPL starts when a REPL slot and an entry for every word of its mask are free
//         (a full buffer back-pressures: the REPL stays in its receive FIFO, which holds its
//         credit; every cycle it waits counts as a stall). One word entry is written per cycle,
//         lowest word first; with the last one the REPL leaves its FIFO and its REPL_ACK is
//         queued. A zero word mask or a line address at or above cfg_addr_lim_i is malformed:
//         counted, dropped, not acknowledged.
//   VAL   One per cycle: validates the not-yet-validated slot of the same requester (CN, core),
//         tag and line, with the VAL's TS (lu_slots). A VAL that finds none is malformed (counted,
//         dropped), as is a REPL_ACK sent to an LU.
//   query While the head REPL waits for room and a validated word waits behind an unvalidated slot
//         (lu_slots names one such holder), a REPL_QUERY asks the holder's CN whether its store has
//         committed; one query is outstanding at a time. Its REPL_QUERY_RESP (on DKRSP, like a VAL)
//         with PENDING set makes the slot follow every slot validated when the query left, so the
//         words it held back may drain; without PENDING the store has committed and its VAL is on
//         its way. An answer that matches no outstanding query is malformed (counted as a bad
//         opcode). A purge of the queried CN forgets the query (a failed CN answers nothing).
//         (docs/architecture.md section 11b: without the query, validated words held behind early
//         REPLs whose stores wait for this buffer's room could fill it for good.)
//   line  The head REPL also waits while a validated word of its line is held back by an
//         unvalidated slot (lu_slots' look_held_o), and the LU asks about that line's holders
//         meanwhile: a line's version then cannot run 64 ahead of a held word, where the 7-bit TS
//         order turns round (docs/architecture.md 11b, "The line rule"). Not while ack_drop_i.
//   drain One word per cycle (lu_slots picks it) into a 128-bit record at the DRAM log's next
//         index, while the log holds fewer than cfg_log_cap_i records.
//   purge (an INTERRUPT for failed CN purge_cn_i, lu_mgmt) purge_mark_i, given only while quiet_o,
//         marks that CN's slots that are in use and not validated; their words are then freed one
//         per cycle, never written to the DRAM log, and each slot with its last word (event 12).
//         The buffer frees one entry per cycle: the drain waits for the purge, the purge for a
//         search (which reads the buffer; it never looks at slots not validated, so it need not
//         wait for the purge). While ack_drop_i is high, a REPL_ACK to purge_cn_i leaves the ACK
//         queue without being sent: from the INTERRUPT on, the failed CN's REPLs are logged (and
//         purged) but never acknowledged.
//   keep  (a RECOV_END, lu_mgmt) keep_mark_i marks every validated slot; keep_any_o is high until
//         each has drained (lu_slots): the dump that ends a recovery waits for them (lu_dump).
//
// DRAM log record (128 bits; the C side stores record i at bytes 16*i of the LU's log):
//   [63:0] value, [105:64] line address, [108:106] word, [115:109] TS, [121:116] requester CN,
//   [125:122] requester core, [127:126] 2'b01 (a written record).
module lu_log #(
  /// word entries of the SRAM log buffer
  parameter int unsigned Entries   = 256,
  /// REPL slots
  parameter int unsigned Slots     = 64,
  /// storage as memory macros (1) or flip-flops (0)
  parameter bit          SramMacro = 1'b1,
  localparam int unsigned FlitW = msg_pkg::FLIT_W,
  localparam int unsigned HdrW  = msg_pkg::FLIT_W - msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned EntW  = $clog2(Entries),
  localparam int unsigned SlotW = $clog2(Slots),
  localparam int unsigned RecW  = 128
) (
  /// LU clock
  input  wire logic                          clk_i,
  /// synchronous reset, active low: buffer empty, DRAM log empty
  input  wire logic                          rst_ni,
  /// REPLs may start (low while the LU is paused)
  input  wire logic                          repl_en_i,
  /// validated words may drain (low while the LU is paused or its log is being dumped)
  input  wire logic                          drain_en_i,
  /// this CN's node id (source of REPL_ACKs)
  input  wire logic [msg_pkg::NODE_ID_W-1:0] node_id_i,
  /// line addresses at or above this are out of range
  input  wire logic [msg_pkg::LINE_ADDR_W-1:0] cfg_addr_lim_i,
  /// DRAM log capacity in records
  input  wire logic [31:0]                   cfg_log_cap_i,
  /// head REPL valid (DKREQ receive FIFO)
  input  wire logic                          repl_valid_i,
  /// head REPL (whole flit)
  input  wire logic [FlitW-1:0]              repl_msg_i,
  /// head REPL leaves its FIFO
  output logic                               repl_ready_o,
  /// head DKRSP message valid
  input  wire logic                          val_valid_i,
  /// head DKRSP header
  input  wire logic [HdrW-1:0]               val_hdr_i,
  /// head DKRSP message leaves its FIFO
  output logic                               val_ready_o,
  /// a REPL_QUERY waits to be sent
  output logic                               qry_valid_o,
  /// the REPL_QUERY
  output logic      [FlitW-1:0]              qry_msg_o,
  /// the REPL_QUERY is taken
  input  wire logic                          qry_ready_i,
  /// a REPL_ACK waits to be sent
  output logic                               ack_valid_o,
  /// the REPL_ACK
  output logic      [FlitW-1:0]              ack_msg_o,
  /// the REPL_ACK is taken
  input  wire logic                          ack_ready_i,
  /// a DRAM log record waits to be written
  output logic                               lw_valid_o,
  /// its log index
  output logic      [31:0]                   lw_idx_o,
  /// the record
  output logic      [RecW-1:0]               lw_rec_o,
  /// the record is written (taken by the memory port)
  input  wire logic                          lw_ready_i,
  /// records in the DRAM log (written or on their way)
  output logic      [31:0]                   log_count_o,
  /// empty the DRAM log (after a dump); no record may be on its way
  input  wire logic                          log_clear_i,
  /// a search owns the buffer's read port (the drain holds)
  input  wire logic                          srch_active_i,
  /// search: the line looked for
  input  wire logic [msg_pkg::LINE_ADDR_W-1:0] srch_line_i,
  /// search: per slot, validated and of that line
  output logic      [Slots-1:0]              srch_match_o,
  /// search: slot ...
  input  wire logic [SlotW-1:0]              srch_slot_i,
  /// ... and word to read
  input  wire logic [$clog2(msg_pkg::WORDS_PER_LINE)-1:0] srch_word_i,
  /// search: the slot's TS
  output logic      [msg_pkg::TS_W-1:0]      srch_ts_o,
  /// search: the slot's words still in the buffer
  output logic      [msg_pkg::WORDS_PER_LINE-1:0] srch_pend_o,
  /// search: the value of (srch_slot_i, srch_word_i)
  output logic      [msg_pkg::WORD_W-1:0]    srch_value_o,
  /// purge: mark the not-validated slots of purge_cn_i (only while quiet_o and no search runs)
  input  wire logic                          purge_mark_i,
  /// purge: the failed CN (also the REPL_ACKs dropped)
  input  wire logic [msg_pkg::NODE_ID_W-1:0] purge_cn_i,
  /// REPL_ACKs to purge_cn_i are dropped, not sent
  input  wire logic                          ack_drop_i,
  /// purge: a slot of purge_cn_i is in use, not validated and not marked yet
  output logic                               purge_cand_o,
  /// purge: marked slots still hold words (being freed; the drain waits)
  output logic                               purge_busy_o,
  /// keep marks: mark every validated slot (lu_slots; a RECOV_END)
  input  wire logic                          keep_mark_i,
  /// keep marks: a marked slot has not drained yet
  output logic                               keep_any_o,
  /// no REPL or VAL waiting or in progress, no REPL_ACK or log record queued
  output logic                               quiet_o,
  /// word entries in use
  output logic      [EntW:0]                 used_o,
  /// REPL slots in use
  output logic      [SlotW:0]                slots_used_o,
  /// per slot: in use / validated (searches)
  output logic      [Slots-1:0]              slot_busy_o,
  /// events of this cycle, for the counters (bit: event): 0 REPL logged, 1 word entry written,
  /// 2 VAL validated its REPL, 3 word drained, 4 REPL stalled on a full buffer, malformed: 5 VAL
  /// without REPL, 6 zero word mask, 7 address out of range, 8 opcode an LU does not take on
  /// DKRSP (or an answer to no outstanding query); 9 several REPLs for one VAL, 10 TS clash, 11
  /// drain held by a full DRAM log; 12 a slot purged (its last word freed); 13 a REPL_QUERY sent;
  /// 14 an answer (PENDING) let its slot follow the slots validated before its query
  output logic      [14:0]                   ev_o,
  /// nothing will change until an input changes
  output logic                               idle_o
);
  localparam int unsigned WordN = msg_pkg::WORDS_PER_LINE;
  localparam int unsigned WordW = $clog2(WordN);
  localparam int unsigned DataW = WordN * msg_pkg::WORD_W;
  localparam int unsigned AckW  = msg_pkg::NODE_ID_W + msg_pkg::CORE_ID_W + msg_pkg::TAG_W +
                                  msg_pkg::LINE_ADDR_W;

  if (Entries < WordN) begin : g_bad_entries
    $error("lu_log: Entries must be at least WORDS_PER_LINE (a REPL of a whole line must fit)");
  end

  // Fields of the head REPL (whole flit) and of the head DKRSP message (header: bit DataW of the
  // flit is bit 0 of the header).
  logic [msg_pkg::NODE_ID_W-1:0]   r_src, v_src;
  logic [msg_pkg::CORE_ID_W-1:0]   r_core, v_core;
  logic [msg_pkg::TAG_W-1:0]       r_tag, v_tag;
  logic [msg_pkg::LINE_ADDR_W-1:0] r_addr, v_addr;
  logic [WordN-1:0]                r_mask;
  logic [DataW-1:0]                r_data;
  msg_pkg::opcode_t                v_op;
  logic [msg_pkg::TS_W-1:0]        v_ts;
  logic [msg_pkg::FLAGS_W-1:0]     v_flags;
  assign r_src  = repl_msg_i[msg_pkg::FIELD_SRC_LSB +: msg_pkg::NODE_ID_W];
  assign r_core = repl_msg_i[msg_pkg::FIELD_CORE_LSB +: msg_pkg::CORE_ID_W];
  assign r_tag  = repl_msg_i[msg_pkg::FIELD_TAG_LSB +: msg_pkg::TAG_W];
  assign r_addr = repl_msg_i[msg_pkg::FIELD_ADDR_LSB +: msg_pkg::LINE_ADDR_W];
  assign r_mask = repl_msg_i[msg_pkg::FIELD_MASK_LSB +: WordN];
  assign r_data = repl_msg_i[msg_pkg::FIELD_DATA_LSB +: DataW];
  assign v_op   = val_hdr_i[msg_pkg::FIELD_OPCODE_LSB - DataW +: msg_pkg::OPCODE_W];
  assign v_src  = val_hdr_i[msg_pkg::FIELD_SRC_LSB - DataW +: msg_pkg::NODE_ID_W];
  assign v_core = val_hdr_i[msg_pkg::FIELD_CORE_LSB - DataW +: msg_pkg::CORE_ID_W];
  assign v_tag  = val_hdr_i[msg_pkg::FIELD_TAG_LSB - DataW +: msg_pkg::TAG_W];
  assign v_addr = val_hdr_i[msg_pkg::FIELD_ADDR_LSB - DataW +: msg_pkg::LINE_ADDR_W];
  assign v_ts   = val_hdr_i[msg_pkg::FIELD_TS_LSB - DataW +: msg_pkg::TS_W];
  assign v_flags = val_hdr_i[msg_pkg::FIELD_FLAGS_LSB - DataW +: msg_pkg::FLAGS_W];
  // The other fields (dst, subject; REPL's ts and flags) are not the log's business.
  logic fields_unused;
  assign fields_unused = ^{repl_msg_i, val_hdr_i};

  // ---- REPL engine ----
  logic             rp_act_q, rp_act_d;
  logic [SlotW-1:0] rp_slot_q, rp_slot_d;
  logic [WordN-1:0] rp_left_q, rp_left_d;
  logic             s_free_v, s_alloc;
  logic [SlotW-1:0] s_free_slot;
  logic [EntW:0]    b_free;
  logic             b_alloc;
  logic [SlotW-1:0] b_slot;
  logic [WordW-1:0] b_word;
  logic [WordN-1:0] left, word_oh;
  logic             word_v_unused, ackq_empty_unused;
  logic [1:0]       lwq_cnt_unused;
  logic [Slots-1:0] val_unused;
  logic [WordW-1:0] word_idx;
  logic [3:0]       nwords;
  logic             ack_push, ack_in_ready;
  logic [1:0]       ack_cnt;
  logic             ev_repl, ev_stall, ev_zero, ev_range, ev_hold;
  // The line rule (docs/architecture.md 11b): the REPL at the head waits while a validated word of
  // its line is held back by an unvalidated REPL (l_held), and the LU asks about that line's
  // holders meanwhile; not while an INTERRUPT is handled (its purge needs the LU quiet).
  logic             at_head, look, l_held;
  assign at_head = repl_valid_i & repl_en_i & ~rp_act_q;
  assign look    = at_head & ~ack_drop_i;

  always_comb begin
    nwords = '0;
    for (int w = 0; w < WordN; w++) nwords = nwords + 4'(r_mask[w]);
  end

  assign left = rp_act_q ? rp_left_q : r_mask;
  prio_enc #(.N(WordN)) u_word (.req_i (left), .onehot_o (word_oh), .idx_o (word_idx), .valid_o (word_v_unused));

  always_comb begin
    rp_act_d     = rp_act_q;
    rp_slot_d    = rp_slot_q;
    rp_left_d    = rp_left_q;
    repl_ready_o = 1'b0;
    s_alloc      = 1'b0;
    b_alloc      = 1'b0;
    b_slot       = rp_slot_q;
    ack_push     = 1'b0;
    ev_repl      = 1'b0;
    ev_stall     = 1'b0;
    ev_zero      = 1'b0;
    ev_range     = 1'b0;
    ev_hold      = 1'b0;
    if (rp_act_q) begin
      b_alloc   = 1'b1;
      rp_left_d = rp_left_q & ~word_oh;
      if (rp_left_d == '0) begin
        rp_act_d     = 1'b0;
        repl_ready_o = 1'b1;
        ack_push     = 1'b1;
        ev_repl      = 1'b1;
      end
    end else if (repl_valid_i && repl_en_i) begin
      if (r_mask == '0) begin
        repl_ready_o = 1'b1;
        ev_zero      = 1'b1;
      end else if (r_addr >= cfg_addr_lim_i) begin
        repl_ready_o = 1'b1;
        ev_range     = 1'b1;
      end else if (s_free_v && b_free >= (EntW + 1)'(nwords) && ack_cnt != 2'd2 && !l_held) begin
        s_alloc   = 1'b1;
        b_alloc   = 1'b1;
        b_slot    = s_free_slot;
        rp_slot_d = s_free_slot;
        rp_left_d = r_mask & ~word_oh;
        if (rp_left_d == '0) begin
          repl_ready_o = 1'b1;
          ack_push     = 1'b1;
          ev_repl      = 1'b1;
        end else begin
          rp_act_d = 1'b1;
        end
      end else begin
        ev_stall = ~s_free_v | (b_free < (EntW + 1)'(nwords));
        ev_hold  = l_held;
      end
    end
  end
  assign b_word = word_idx;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) rp_act_q <= 1'b0;
    else         rp_act_q <= rp_act_d;
  end
  always_ff @(posedge clk_i) begin
    rp_slot_q <= rp_slot_d;
    rp_left_q <= rp_left_d;
  end

  // REPL_ACKs wait in a two-entry queue (a REPL starts only with room in it for its ACK).
  // An ACK to the CN being purged is popped without being sent (ack_drop).
  logic [AckW-1:0] ack_q_data;
  logic            ackq_v, ack_drop;
  fifo #(.Depth(2), .Width(AckW)) u_ackq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (ack_push), .in_ready_o (ack_in_ready),
    .in_data_i ({r_src, r_core, r_tag, r_addr}),
    .out_valid_o (ackq_v), .out_ready_i (ack_ready_i | ack_drop), .out_data_o (ack_q_data),
    .count_o (ack_cnt), .empty_o (ackq_empty_unused)
  );
  assign ack_drop    = ackq_v & ack_drop_i &
                       (ack_q_data[AckW-1 -: msg_pkg::NODE_ID_W] == purge_cn_i);
  assign ack_valid_o = ackq_v & ~ack_drop;
  msg_pkg::msg_t ack_m;
  // (Built only while the queue has one.)
  always_comb begin
    ack_m = '0;
    if (ackq_v) begin
      ack_m.opcode = msg_pkg::OP_REPL_ACK;
      ack_m.src    = node_id_i;
      {ack_m.dst, ack_m.core, ack_m.tag, ack_m.addr} = ack_q_data;
    end
  end
  assign ack_msg_o = ack_m;

  // ---- VAL engine (and the answers to queries, which come the same way) ----
  logic v_hit, v_multi, v_clash, v_lookup, a_resp, a_match, a_lookup;
  logic ev_val, ev_noval, ev_badop;
  logic                            q_send_q, q_send_d, q_wait_q, q_wait_d;
  logic [msg_pkg::NODE_ID_W-1:0]   q_cn_q, q_cn_d;
  logic [msg_pkg::CORE_ID_W-1:0]   q_core_q, q_core_d;
  logic [msg_pkg::TAG_W-1:0]       q_tag_q, q_tag_d;
  logic [msg_pkg::LINE_ADDR_W-1:0] q_line_q, q_line_d;
  assign val_ready_o = val_valid_i;
  assign v_lookup    = val_ready_o & (v_op == msg_pkg::OP_VAL);
  assign a_resp      = val_ready_o & (v_op == msg_pkg::OP_REPL_QUERY_RESP);
  assign a_match     = a_resp & q_wait_q & (v_src == q_cn_q) & (v_core == q_core_q) & (v_tag == q_tag_q) &
                       (v_addr == q_line_q);
  assign a_lookup    = a_match & v_flags[msg_pkg::FLAG_PENDING_BIT];
  assign ev_val      = v_lookup & v_hit;
  assign ev_noval    = v_lookup & ~v_hit;
  assign ev_badop    = val_ready_o & (v_op != msg_pkg::OP_VAL) & ~a_match;

  // ---- queries: one outstanding; asked only while the head REPL waits for room or for the line rule ----
  logic s_ask_v, ask_en, ask_take;
  logic [msg_pkg::NODE_ID_W-1:0]   s_ask_cn;
  logic [msg_pkg::CORE_ID_W-1:0]   s_ask_core;
  logic [msg_pkg::TAG_W-1:0]       s_ask_tag;
  logic [msg_pkg::LINE_ADDR_W-1:0] s_ask_line;
  logic                            q_forget;
  assign ask_en   = at_head & ~q_send_q & ~q_wait_q;
  assign ask_take = (ev_stall | ev_hold) & ask_en & s_ask_v;
  assign q_forget = purge_mark_i & (q_cn_q == purge_cn_i);
  always_comb begin
    q_send_d = (ask_take | (q_send_q & ~qry_ready_i)) & ~q_forget;
    q_wait_d = (ask_take | (q_wait_q & ~a_match)) & ~q_forget;
    q_cn_d   = q_cn_q;
    q_core_d = q_core_q;
    q_tag_d  = q_tag_q;
    q_line_d = q_line_q;
    if (ask_take) begin
      q_cn_d   = s_ask_cn;
      q_core_d = s_ask_core;
      q_tag_d  = s_ask_tag;
      q_line_d = s_ask_line;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      q_send_q <= 1'b0;
      q_wait_q <= 1'b0;
    end else begin
      q_send_q <= q_send_d;
      q_wait_q <= q_wait_d;
    end
  end
  always_ff @(posedge clk_i) begin
    q_cn_q   <= q_cn_d;
    q_core_q <= q_core_d;
    q_tag_q  <= q_tag_d;
    q_line_q <= q_line_d;
  end
  msg_pkg::msg_t qry_m;
  // (Built only while one waits.)
  always_comb begin
    qry_m = '0;
    if (q_send_q) begin
      qry_m.opcode = msg_pkg::OP_REPL_QUERY;
      qry_m.src    = node_id_i;
      qry_m.dst    = q_cn_q;
      qry_m.core   = q_core_q;
      qry_m.tag    = q_tag_q;
      qry_m.addr   = q_line_q;
    end
  end
  assign qry_valid_o = q_send_q;
  assign qry_msg_o   = qry_m;

  // ---- drain ----
  logic                         d_valid, d_take, lwq_in_ready, log_full;
  logic [SlotW-1:0]             d_slot;
  logic [WordW-1:0]             d_word;
  logic [msg_pkg::LINE_ADDR_W-1:0] d_line;
  logic [msg_pkg::TS_W-1:0]     d_ts;
  logic [msg_pkg::NODE_ID_W-1:0] d_cn;
  logic [msg_pkg::CORE_ID_W-1:0] d_core;
  logic [msg_pkg::WORD_W-1:0]   d_value;
  logic [31:0]                  log_cnt_q, log_cnt_d;
  logic [RecW-1:0]              rec;
  logic                         lwq_empty;

  // ---- purge: the marked slots' words are freed, one per cycle, ahead of the drain ----
  logic             p_valid, p_take, p_done;
  logic [SlotW-1:0] p_slot;
  logic [WordW-1:0] p_word;
  assign p_take = p_valid & ~srch_active_i;

  assign log_full = log_cnt_q >= cfg_log_cap_i;
  assign d_take   = drain_en_i & ~srch_active_i & ~p_valid & d_valid & lwq_in_ready & ~log_full;
  assign rec      = {2'b01, d_core, d_cn, d_ts, d_word, d_line, d_value};

  always_comb begin
    log_cnt_d = log_cnt_q;
    if (d_take) log_cnt_d = log_cnt_q + 32'd1;
    if (log_clear_i) log_cnt_d = '0;
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) log_cnt_q <= '0;
    else         log_cnt_q <= log_cnt_d;
  end
  assign log_count_o = log_cnt_q;

  fifo #(.Depth(2), .Width(32 + RecW)) u_lwq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (d_take), .in_ready_o (lwq_in_ready), .in_data_i ({log_cnt_q, rec}),
    .out_valid_o (lw_valid_o), .out_ready_i (lw_ready_i), .out_data_o ({lw_idx_o, lw_rec_o}),
    .count_o (lwq_cnt_unused), .empty_o (lwq_empty)
  );

  // ---- the buffer ----
  logic s_empty_unused;
  lu_slots #(.Slots(Slots)) u_slots (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .free_valid_o (s_free_v), .free_slot_o (s_free_slot), .used_o (slots_used_o),
    .alloc_i (s_alloc), .alloc_cn_i (r_src), .alloc_core_i (r_core), .alloc_tag_i (r_tag),
    .alloc_line_i (r_addr), .alloc_mask_i (r_mask),
    .val_i (v_lookup), .val_cn_i (v_src), .val_core_i (v_core), .val_tag_i (v_tag),
    .val_line_i (v_addr), .val_ts_i (v_ts),
    .ask_en_i (ask_en), .ask_line_i (~ev_stall), .look_i (look), .look_line_i (r_addr),
    .look_held_o (l_held), .ask_valid_o (s_ask_v), .ask_cn_o (s_ask_cn), .ask_core_o (s_ask_core),
    .ask_tag_o (s_ask_tag), .ask_line_o (s_ask_line), .ask_take_i (ask_take), .ans_i (a_lookup),
    .val_hit_o (v_hit), .val_multi_o (v_multi), .val_ts_clash_o (v_clash),
    .drain_valid_o (d_valid), .drain_slot_o (d_slot), .drain_word_o (d_word), .drain_line_o (d_line),
    .drain_ts_o (d_ts), .drain_cn_o (d_cn), .drain_core_o (d_core), .drain_take_i (d_take),
    .srch_i (srch_active_i), .srch_line_i (srch_line_i), .srch_match_o (srch_match_o), .srch_slot_i (srch_slot_i),
    .srch_ts_o (srch_ts_o), .srch_pend_o (srch_pend_o),
    .purge_mark_i (purge_mark_i), .purge_cn_i (purge_cn_i), .purge_cand_o (purge_cand_o),
    .purge_valid_o (p_valid), .purge_slot_o (p_slot), .purge_word_o (p_word), .purge_take_i (p_take),
    .purge_done_o (p_done), .keep_mark_i (keep_mark_i), .keep_any_o (keep_any_o),
    .busy_o (slot_busy_o), .val_o (val_unused), .empty_o (s_empty_unused)
  );

  lu_buf #(.Entries(Entries), .Slots(Slots), .SramMacro(SramMacro)) u_buf (
    .clk_i (clk_i), .rst_ni (rst_ni), .free_o (b_free),
    .alloc_i (b_alloc), .alloc_slot_i (b_slot), .alloc_word_i (b_word),
    .alloc_value_i (r_data[word_idx*msg_pkg::WORD_W +: msg_pkg::WORD_W]),
    .rd_slot_i (srch_active_i ? srch_slot_i : p_valid ? p_slot : d_slot),
    .rd_word_i (srch_active_i ? srch_word_i : p_valid ? p_word : d_word),
    .rd_value_o (d_value), .free_i (d_take | p_take)
  );
  assign used_o       = (EntW + 1)'(Entries) - b_free;
  assign srch_value_o = d_value;
  assign quiet_o      = ~rp_act_q & ~repl_valid_i & ~val_valid_i & ~ackq_v & lwq_empty;
  assign purge_busy_o = p_valid;

  assign ev_o = {a_lookup & v_hit, ask_take, p_done, d_valid & drain_en_i & log_full, v_clash & ev_val,
                 v_multi & ev_val, ev_badop, ev_range, ev_zero, ev_noval, ev_stall, d_take, ev_val, b_alloc,
                 ev_repl};

  // Idle: no REPL in progress or startable, no word drainable or to purge, nothing queued. A REPL
  // stalled on a full buffer is not idle (its stall is counted every cycle).
  assign idle_o = ~rp_act_q & ~repl_valid_i & ~val_valid_i & ~p_valid &
                  ~(d_valid & drain_en_i & ~srch_active_i & ~log_full) & ~ackq_v & lwq_empty & ~q_send_q;

  `ASSERT(ack_room, !ack_push || ack_in_ready)
  `ASSERT(no_clear_in_flight, !log_clear_i || (lwq_empty && !d_take))
  `ASSERT(alloc_fits, !s_alloc || b_free >= (EntW + 1)'(nwords))
  // Slots are marked only when no REPL is being written (its REPL_ACK not out yet) and no VAL waits.
  `ASSERT(mark_when_quiet, !purge_mark_i || (!rp_act_q && !val_valid_i))

endmodule
`default_nettype wire
