// The ordering proof of lu_slots (constraints/formal/lu_slots_order.ys; make formal). Included into
// lu_slots' body when LU_SLOTS_ORDER is defined (Yosys -formal only), so that the properties read
// the block's own state: Yosys 0.23 has no hierarchical references.
//
// The environment is the protocol's, with a ghost commit order:
//   - a store commits only once its REPL is in the buffer (it waits for the REPL_ACKs, this LU's
//     among them), at most once, and with its line's next version (the directory's per-line
//     version: every commit of the line takes the next one, whether or not its REPL comes here:
//     f_bump);
//   - a VAL comes only after its store committed, and carries that version as its TS;
//   - a line never has more than 63 versions between the oldest committed update in the buffer and
//     its newest (docs/architecture.md, "Logging Unit": the TS are compared modulo 2^TS_W);
//   - a REPL's requester, tag and line name no other REPL in the buffer; its mask is not zero; it is
//     allocated only to a free slot;
//   - a purge marks only stores that never committed (their CN failed before its VALs, section 11g's
//     assumption), and takes a word only when one is marked; drain and purge never take in one cycle;
//   - an answer to a query (ans_i) names a store that had not committed when its CN answered, after
//     every slot remembered when the query was issued had committed (their VALs had reached the
//     LU): if it has committed since, its version follows theirs; an answer never comes with a VAL.
// Everything else is free: when REPLs, commits, VALs, queries, answers, drains, searches and purges
// happen, the masks, the requesters, two lines (address 0 and 1), the initial versions.
//
// The property (f_prop_bad never rises): when a word leaves for the DRAM log, its slot is
// validated with its store's version as TS, and no other update of that word committed before it
// is still in the buffer, validated or not. Since an update's REPL is in the buffer before the update commits, the
// log receives each word's updates in commit order. Also: a VAL finds one slot, and no two
// validated updates of one word ever carry the same TS (val_ts_clash_o never rises).
// f_inv_bad (never rises either) is the inductive strengthening the proof needs: facts about
// reachable states, what the pair matrices mean, the ghost against the block's state. The script
// proves both with sat -prove on these wires rather than through assert cells, whose check Yosys
// registers a cycle late.

  // The environment's free choices, each cycle.
  (* anyseq *) logic             f_commit;      // a store commits
  (* anyseq *) logic [SlotW-1:0] f_commit_slot; // the slot of its REPL
  (* anyseq *) logic [1:0]       f_bump;        // per line: a store of it commits whose REPL is not here

  // Ghost state: per slot, its store committed and with which version; per line, its last version.
  logic [Slots-1:0]     f_com_q;
  logic [Slots*TsW-1:0] f_ver_q;
  logic [2*TsW-1:0]     f_lv_q;

  function automatic logic f_line(int unsigned s);
    f_line = line_q[s*LineW];
  endfunction

  // The line's versions after this cycle's commit stay within 63 of every committed update of the
  // line still in the buffer.
  logic [Slots-1:0] f_csel;
  logic [1:0]       f_inc;
  logic             f_span_ok;
  always_comb begin
    logic [TsW-1:0] nv, d;
    f_csel    = f_commit ? (Slots'(1) << f_commit_slot) : '0;
    f_inc     = f_bump;
    if (f_commit && f_commit_slot < SlotW'(Slots)) f_inc[f_line(32'(f_commit_slot))] = 1'b1;
    f_span_ok = 1'b1;
    for (int s = 0; s < Slots; s++) begin
      nv = f_lv_q[32'(f_line(s))*TsW +: TsW] + TsW'(1);
      d  = nv - f_ver_q[s*TsW +: TsW];
      if (busy_q[s] && f_com_q[s] && f_inc[f_line(s)] && d[TsW-1]) f_span_ok = 1'b0;
    end
  end

  // The control (lu_slots_order_late_repl.fail.ys, LU_SLOTS_ORDER_LATE_REPL): a REPL may arrive after
  // its store committed, with an earlier version of its line (what a VAL sent before all REPL_ACKs
  // would allow). The proof must then fail.
  (* anyseq *) logic           f_late;
  (* anyseq *) logic [TsW-1:0] f_late_ver;
  logic [Slots-1:0] f_lsel;
`ifdef LU_SLOTS_ORDER_LATE_REPL
  assign f_lsel = f_late ? asel : '0;
`else
  assign f_lsel = '0;
`endif

  always_ff @(posedge clk_i) begin
    if (!rst_ni) f_com_q <= '0;
    else         f_com_q <= ((f_com_q & ~asel) | f_csel | f_lsel) & ~freed;
    for (int s = 0; s < Slots; s++)
      if (f_csel[s])      f_ver_q[s*TsW +: TsW] <= f_lv_q[32'(f_line(s))*TsW +: TsW] + TsW'(1);
      else if (f_lsel[s]) f_ver_q[s*TsW +: TsW] <= f_late_ver;
    for (int l = 0; l < 2; l++)
      if (f_inc[l]) f_lv_q[l*TsW +: TsW] <= f_lv_q[l*TsW +: TsW] + TsW'(1);
  end

  // The control (lu_slots_order_any_answer.fail.ys, LU_SLOTS_ORDER_ANY_ANSWER): an answer may come
  // for a store that committed before a remembered one (what an answer sent without looking at the
  // store's state, or a query's snapshot taken after it left, would allow). The proof must then fail.
  logic f_ans_ok;
  always_comb begin
    f_ans_ok = 1'b1;
    if (ans_i && val_hit_o && f_com_q[vslot])
      for (int s = 0; s < Slots; s++)
        if (snap_q[s] && f_line(s) == f_line(32'(vslot)) &&
            !ts_before(f_ver_q[s*TsW +: TsW], f_ver_q[32'(vslot)*TsW +: TsW]))
          f_ans_ok = 1'b0;
`ifdef LU_SLOTS_ORDER_ANY_ANSWER
    f_ans_ok = 1'b1;
`endif
  end

  // ---- the environment ----
  logic f_alloc_fresh;
  always_comb begin
    f_alloc_fresh = 1'b1;
    for (int s = 0; s < Slots; s++)
      if (busy_q[s] && cn_q[s*NodeW +: NodeW] == alloc_cn_i && core_q[s*CoreW +: CoreW] == alloc_core_i &&
          tag_q[s*TagW +: TagW] == alloc_tag_i && line_q[s*LineW +: LineW] == alloc_line_i)
        f_alloc_fresh = 1'b0;
  end
  always @* begin
    if (rst_ni) begin
      assume (!alloc_i || (free_valid_o && alloc_mask_i != '0 && alloc_line_i[LineW-1:1] == '0 && f_alloc_fresh));
      assume (!f_commit || (f_commit_slot < SlotW'(Slots) && busy_q[f_commit_slot] && !f_com_q[f_commit_slot] &&
                            !pur_q[f_commit_slot] && !purge_mark_i));
      assume (!(f_commit && f_bump[f_line(32'(f_commit_slot))]));
      assume (f_span_ok);
      assume (!(val_i && val_hit_o) ||
              (f_com_q[vslot] && val_ts_i == f_ver_q[32'(vslot)*TsW +: TsW]));
      assume ((pcand & f_com_q) == '0);
      assume (!(ans_i && val_i));
      assume (!ask_take_i || ask_valid_o);
      assume (f_ans_ok);
      assume (!purge_take_i || purge_valid_o);
      assume (!(purge_take_i && drain_take_i));
    end
  end

  // ---- the property ----
  logic order_bad, order_src_bad;
  always_comb begin
    logic [TsW-1:0] v;
    order_bad     = 1'b0;
    order_src_bad = 1'b0;
    v             = f_ver_q[32'(drain_slot_o)*TsW +: TsW];
    if (dtake) begin
      order_src_bad = !val_q[drain_slot_o] || !f_com_q[drain_slot_o] || drain_ts_o != v;
      for (int t = 0; t < Slots; t++)
        if (32'(t) != 32'(drain_slot_o) && busy_q[t] && !pur_q[t] && f_com_q[t] &&
            f_line(t) == f_line(32'(drain_slot_o)) && pend_q[t*WordN + 32'(drain_word_o)] &&
            ts_before(f_ver_q[t*TsW +: TsW], v))
          order_bad = 1'b1;
    end
  end

  // ---- the inductive strengthening ----
  logic inv_slot_bad, inv_pair_bad;
  always_comb begin
    logic [TsW-1:0] d;
    inv_slot_bad = 1'b0;
    inv_pair_bad = 1'b0;
    for (int s = 0; s < Slots; s++) begin
      d = f_lv_q[32'(f_line(s))*TsW +: TsW] - f_ver_q[s*TsW +: TsW];
      if (f_com_q[s] && !busy_q[s]) inv_slot_bad = 1'b1;
      if (pur_q[s] && (!busy_q[s] || val_q[s] || f_com_q[s])) inv_slot_bad = 1'b1;
      // only validated slots are remembered for an answer
      if (snap_q[s] && (!busy_q[s] || !val_q[s])) inv_slot_bad = 1'b1;
      if (val_q[s] && (!f_com_q[s] || ts_q[s*TsW +: TsW] != f_ver_q[s*TsW +: TsW])) inv_slot_bad = 1'b1;
      if (busy_q[s] && line_q[s*LineW+1 +: LineW-1] != '0) inv_slot_bad = 1'b1;
      if (busy_q[s] && f_com_q[s] && d[TsW-1]) inv_slot_bad = 1'b1;
      if (busy_q[s] && (same_q[s*Slots + s] || bef_q[s*Slots + s])) inv_slot_bad = 1'b1;
      if (busy_q[s] && pend_q[s*WordN +: WordN] == '0) inv_slot_bad = 1'b1;
      for (int w = 0; w < WordN; w++)
        if (busy_q[s] && pend_t[w*Slots + s] != pend_q[s*WordN + w]) inv_slot_bad = 1'b1;
      for (int b = 0; b < Slots; b++) begin
        if (b != s && busy_q[s] && busy_q[b]) begin
          // same_q: the line's other slots; aft_q: bef_q turned around; only a validated slot
          // precedes another, of its line
          if (same_q[s*Slots + b] != (line_q[s*LineW +: LineW] == line_q[b*LineW +: LineW])) inv_pair_bad = 1'b1;
          if (aft_q[b*Slots + s] != bef_q[s*Slots + b]) inv_pair_bad = 1'b1;
          if (bef_q[s*Slots + b] && (!val_q[s] || !same_q[s*Slots + b])) inv_pair_bad = 1'b1;
          // two validated slots of a line: ordered by their TS
          if (same_q[s*Slots + b] && val_q[s] && val_q[b] &&
              bef_q[s*Slots + b] != ts_before(ts_q[s*TsW +: TsW], ts_q[b*TsW +: TsW])) inv_pair_bad = 1'b1;
          // a validated slot known to precede an unvalidated one: that one commits after it
          if (bef_q[s*Slots + b] && !val_q[b] && f_com_q[b] &&
              !ts_before(f_ver_q[s*TsW +: TsW], f_ver_q[b*TsW +: TsW])) inv_pair_bad = 1'b1;
          // two committed updates of a line have different versions
          if (f_com_q[s] && f_com_q[b] && f_line(s) == f_line(b) &&
              f_ver_q[s*TsW +: TsW] == f_ver_q[b*TsW +: TsW]) inv_pair_bad = 1'b1;
          // no two REPLs in the buffer share requester, tag and line
          if (cn_q[s*NodeW +: NodeW] == cn_q[b*NodeW +: NodeW] && core_q[s*CoreW +: CoreW] == core_q[b*CoreW +: CoreW] &&
              tag_q[s*TagW +: TagW] == tag_q[b*TagW +: TagW] && line_q[s*LineW +: LineW] == line_q[b*LineW +: LineW])
            inv_pair_bad = 1'b1;
        end
      end
    end
  end

  // Non-vacuity (lu_slots_order_reach.fail.ys): the environment reaches a state where the order
  // matters (f_reorder: a validated update waits in the buffer beside an older committed update
  // of a common word whose VAL is still in flight), and a word drains after it.
  logic f_reorder, f_reorder_seen_q;
  (* keep *) logic f_reorder_then_drain;
  always_ff @(posedge clk_i) begin
    if (!rst_ni)        f_reorder_seen_q <= 1'b0;
    else if (f_reorder) f_reorder_seen_q <= 1'b1;
  end
  assign f_reorder_then_drain = rst_ni & f_reorder_seen_q & dtake;
  always_comb begin
    f_reorder = 1'b0;
    for (int s = 0; s < Slots; s++)
      for (int t = 0; t < Slots; t++)
        if (s != t && busy_q[s] && val_q[s] && busy_q[t] && !val_q[t] && f_com_q[t] && f_line(s) == f_line(t) &&
            (pend_q[s*WordN +: WordN] & pend_q[t*WordN +: WordN]) != '0 &&
            ts_before(f_ver_q[t*TsW +: TsW], f_ver_q[s*TsW +: TsW]))
          f_reorder = rst_ni;
  end

  // What the proof proves never rises (outside reset): the property and its strengthening.
  (* keep *) logic f_prop_bad, f_inv_bad;
  assign f_prop_bad = rst_ni & (order_src_bad | order_bad | (val_i & val_multi_o) | val_ts_clash_o);
  assign f_inv_bad  = rst_ni & (inv_slot_bad | inv_pair_bad);
