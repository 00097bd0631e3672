`default_nettype none
`include "assert.svh"
`include "groups.svh"

// The REPL table of the Logging Unit (the control half of the SRAM log buffer): one slot per REPL
// in the buffer, holding what all of that REPL's word entries share: requester (CN, core), tag,
// line address, word mask still to drain, validated bit and the VAL's timestamp. The words
// themselves are entries of lu_buf.
//
// Ordering. Two entries of one word drain in update (commit) order: the TS of their VALs, a
// per-line version compared modulo 2^TS_W (a precedes b when (b - a) mod 128 is in 1 .. 63; see
// docs/architecture.md, "Logging Unit"). Per pair of slots of one line, before_q[a][b] says that a
// is known to precede b:
//   - at allocation of b (its REPL arrives), every slot a of the line already validated, or
//     validated in the same cycle, precedes b: a committed before its VAL was sent, b had not
//     committed yet (its REPL is only now acknowledged), and a store commits only after its
//     REPL_ACKs. (With two receive lanes a VAL and a REPL of one line often reach the heads of
//     their FIFOs together; which of the two arrived first does not matter, only that b's
//     REPL_ACK has not left yet.)
//   - when both are validated, their TS decide (recomputed when the second one is validated);
//   - when the CN of an unvalidated slot b answers a query (below) that b's store had not committed
//     yet, every slot a validated when the query was issued precedes b: a's store committed
//     before its VAL reached the LU, so before the query left and before the answer, b's after it.
// A validated slot s may drain word w when no other slot of the line still holding w either is
// validated and precedes s, or is not validated and not known to follow s (its VAL may be in
// flight with an older TS). Same-line pairs are found once, when a slot is allocated (same_q).
//
// One word leaves per cycle: a round-robin pick among slots with a word ready, then its lowest
// ready word. A slot is free again when its last word has left.
//
// Queries (lu_log asks while a REPL waits for room, docs/architecture.md section 11b). A word held
// back by an unvalidated slot b waits for b's VAL, and b's store may wait, behind older stores of
// its core, for room in this very buffer: validated words held that way would fill it for good. So
// while ask_en_i is high the table names a holder (ask_*_o: round-robin among the unvalidated,
// unmarked slots that hold back a word of a validated slot); with ask_take_i, when the query about
// it is issued (it leaves later), it remembers the slots validated then (snap_q, each forgotten when
// freed); an answer that the store had not committed (ans_i, looked up like a VAL) makes every
// remembered slot of b's line precede b, and the words it held back may leave.
//
// Line rule (docs/architecture.md section 11b): a REPL is not allocated while a validated slot of
// its line has a word held back by an unvalidated slot, so that the line's version cannot run 64
// ahead of a held word (7-bit TS order). look_i / look_line_i ask that of the REPL's line
// (look_held_o); while the REPL waits so, ask_line_i restricts the query to that line's holders.
//
// Purge (an INTERRUPT for a failed CN, lu_mgmt): purge_mark_i marks every slot of requester
// purge_cn_i that is in use and not validated (pur_q): its store never committed, or its VAL was
// lost with the CN. From then on a marked slot is never validated (a VAL finds no REPL in it),
// never drains, is never found by a search (only validated slots are) and holds back no other
// slot's words (it leaves hold). Its words are then freed one per cycle (purge_* port: the lowest
// marked slot, its lowest word left), without reaching the DRAM log, and the slot with its last
// one. Validated slots of that CN are kept: they are committed stores.
//
// Keep marks (a RECOV_END, lu_mgmt): keep_mark_i marks every validated slot (kp_q), and
// keep_any_o stays high until every marked slot has drained, so that the dump that re-protects
// the stores a failure left with one copy less (lu_dump) finds them in the DRAM log. A mark
// changes nothing else: a marked slot drains, holds back and is found as before.
module lu_slots #(
  /// REPLs the buffer holds at once (>= 2)
  parameter int unsigned Slots = 64,
  localparam int unsigned SlotW = $clog2(Slots),
  localparam int unsigned NodeW = msg_pkg::NODE_ID_W,
  localparam int unsigned CoreW = msg_pkg::CORE_ID_W,
  localparam int unsigned TagW  = msg_pkg::TAG_W,
  localparam int unsigned LineW = msg_pkg::LINE_ADDR_W,
  localparam int unsigned TsW   = msg_pkg::TS_W,
  localparam int unsigned WordN = msg_pkg::WORDS_PER_LINE,
  localparam int unsigned WordW = $clog2(msg_pkg::WORDS_PER_LINE)
) (
  /// LU clock
  input  wire logic             clk_i,
  /// synchronous reset, active low: every slot free
  input  wire logic             rst_ni,
  /// a free slot exists
  output logic                  free_valid_o,
  /// the free slot an allocation takes (lowest free)
  output logic      [SlotW-1:0] free_slot_o,
  /// slots in use
  output logic      [SlotW:0]   used_o,
  /// allocate free_slot_o for a REPL (free_valid_o must be high)
  input  wire logic             alloc_i,
  /// the REPL's requester CN
  input  wire logic [NodeW-1:0] alloc_cn_i,
  /// the REPL's requester core
  input  wire logic [CoreW-1:0] alloc_core_i,
  /// the REPL's tag
  input  wire logic [TagW-1:0]  alloc_tag_i,
  /// the REPL's line address
  input  wire logic [LineW-1:0] alloc_line_i,
  /// the REPL's word mask (not zero)
  input  wire logic [WordN-1:0] alloc_mask_i,
  /// a VAL looks for its REPL this cycle (and validates it when found)
  input  wire logic             val_i,
  /// the VAL's requester CN
  input  wire logic [NodeW-1:0] val_cn_i,
  /// the VAL's requester core
  input  wire logic [CoreW-1:0] val_core_i,
  /// the VAL's tag
  input  wire logic [TagW-1:0]  val_tag_i,
  /// the VAL's line address
  input  wire logic [LineW-1:0] val_line_i,
  /// the VAL's timestamp
  input  wire logic [TsW-1:0]   val_ts_i,
  /// the VAL (or answer) found its REPL (a slot of that requester, tag and line, not yet validated)
  output logic                  val_hit_o,
  /// the VAL found several (the lowest one is validated)
  output logic                  val_multi_o,
  /// a validated slot of the same line holding a common word has the VAL's TS: the order of the
  /// two is unknown (the earlier validated one is taken to be older)
  output logic                  val_ts_clash_o,
  /// a word is ready to drain
  output logic                  drain_valid_o,
  /// its slot
  output logic      [SlotW-1:0] drain_slot_o,
  /// its word index in the line
  output logic      [WordW-1:0] drain_word_o,
  /// its line address
  output logic      [LineW-1:0] drain_line_o,
  /// its timestamp
  output logic      [TsW-1:0]   drain_ts_o,
  /// its requester CN
  output logic      [NodeW-1:0] drain_cn_o,
  /// its requester core
  output logic      [CoreW-1:0] drain_core_o,
  /// the word is taken (written to the DRAM log)
  input  wire logic             drain_take_i,
  /// search: a search is under way (srch_match_o is looked at)
  input  wire logic             srch_i,
  /// search: the line looked for
  input  wire logic [LineW-1:0] srch_line_i,
  /// search: per slot, validated and of that line (0 while srch_i is low)
  output logic      [Slots-1:0] srch_match_o,
  /// search: a slot to read
  input  wire logic [SlotW-1:0] srch_slot_i,
  /// search: its TS
  output logic      [TsW-1:0]   srch_ts_o,
  /// search: its words still in the buffer
  output logic      [WordN-1:0] srch_pend_o,
  /// query: look for a holder this cycle (ask_*_o are looked at)
  input  wire logic             ask_en_i,
  /// query: a holder exists (an unvalidated slot, not marked for purge, that holds back a word of
  /// a validated slot; low while ask_en_i is low)
  output logic                  ask_valid_o,
  /// query: only a holder of a word of a validated slot of line look_line_i may be named
  input  wire logic             ask_line_i,
  /// query: the holder's requester CN
  output logic      [NodeW-1:0] ask_cn_o,
  /// query: its requester core
  output logic      [CoreW-1:0] ask_core_o,
  /// query: its tag
  output logic      [TagW-1:0]  ask_tag_o,
  /// query: its line address
  output logic      [LineW-1:0] ask_line_o,
  /// query: the query about the holder is issued now (ask_valid_o must be high; it leaves later):
  /// remember the slots validated now
  input  wire logic             ask_take_i,
  /// look-up of a line before its REPL is allocated: look_held_o is looked at
  input  wire logic             look_i,
  /// look-up: the line
  input  wire logic [LineW-1:0] look_line_i,
  /// look-up: a validated slot of look_line_i has a word held back by an unvalidated slot (one not
  /// known to follow it; low while look_i is low)
  output logic                  look_held_o,
  /// an answer to the query: the store of the slot named by val_cn_i, val_core_i, val_tag_i,
  /// val_line_i (found as a VAL finds its slot, val_hit_o) had not committed yet; never with val_i
  input  wire logic             ans_i,
  /// purge: mark every slot of requester purge_cn_i that is in use and not validated
  input  wire logic             purge_mark_i,
  /// purge: the failed CN
  input  wire logic [NodeW-1:0] purge_cn_i,
  /// purge: a slot of purge_cn_i is in use, not validated and not marked (while purge_mark_i;
  /// low otherwise)
  output logic                  purge_cand_o,
  /// purge: a marked slot holds a word to free
  output logic                  purge_valid_o,
  /// purge: that slot (the lowest marked)
  output logic      [SlotW-1:0] purge_slot_o,
  /// purge: its word (the lowest left)
  output logic      [WordW-1:0] purge_word_o,
  /// purge: the word's entry is freed this cycle (purge_valid_o must be high)
  input  wire logic             purge_take_i,
  /// purge: this take frees the slot (its last word)
  output logic                  purge_done_o,
  /// keep marks: mark every validated slot (a validated slot stays marked until it has drained)
  input  wire logic             keep_mark_i,
  /// keep marks: a marked slot still holds a word
  output logic                  keep_any_o,
  /// per slot: in use
  output logic      [Slots-1:0] busy_o,
  /// per slot: validated
  output logic      [Slots-1:0] val_o,
  /// every slot free
  output logic                  empty_o
);
  if (Slots < 2) begin : g_bad_slots
    $error("lu_slots: Slots must be at least 2");
  end

  logic [Slots-1:0]       busy_q, val_q, pur_q, snap_q, kp_q;
  // Per slot (slot s at [s*W +: W]); pairs of slots (a, b) at bit a*Slots + b.
  logic [Slots*NodeW-1:0] cn_q;
  logic [Slots*CoreW-1:0] core_q;
  logic [Slots*TagW-1:0]  tag_q;
  logic [Slots*LineW-1:0] line_q;
  logic [Slots*TsW-1:0]   ts_q;
  logic [Slots*WordN-1:0] pend_q;
  logic [Slots*Slots-1:0] same_q, bef_q;
  // Two of the same facts kept turned around, written with them: aft_q[b*Slots + a] = bef_q[a*Slots
  // + b] (row b: the slots known to precede b), pend_t[w*Slots + s] = pend_q[s*WordN + w] (word w of
  // every slot as a vector). The readiness of a slot reads a column of bef_q and a row of pend_q
  // per word; reading them as rows costs a word each, where gathering the columns cost 4 608
  // single-bit moves per evaluation (a test-flavour assertion checks the copies).
  logic [Slots*Slots-1:0] aft_q;
  logic [WordN*Slots-1:0] pend_t;
  // same_q is symmetric (an allocation writes its row and, in every busy row, its column alike)
  // wherever both slots are busy, which is wherever it is read (every read is masked by busy_q):
  // row a doubles as column a. Rows and fields of free slots are stale and never read: an
  // allocation writes its slot's row and fields whole.

  // ---- free slot: the lowest ----
  logic [Slots-1:0] free_oh;
  prio_enc #(.N(Slots)) u_free (
    .req_i (~busy_q), .onehot_o (free_oh), .idx_o (free_slot_o), .valid_o (free_valid_o)
  );

  assign used_o = (SlotW + 1)'($countones(busy_q));

  // a precedes b in TS order, modulo 2^TsW (serial-number arithmetic: half the space ahead)
  function automatic logic ts_before(logic [TsW-1:0] a, logic [TsW-1:0] b);
    logic [TsW-1:0] d;
    d = b - a;
    ts_before = (d != '0) & ~d[TsW-1];
  endfunction

  // Each per-slot loop below runs only when its result is used: a VAL looked up, a REPL allocated,
  // a search under way, a slot validated. In simulation a cycle without them costs a few tests.
  // The loops that run most cycles visit the slots in groups of 8 and skip a group with no slot of
  // interest (busy, validated, touched): the lowest free slot is allocated first, so the busy slots
  // gather at the low end and a Verilated model tests the empty groups above them once each. For
  // synthesis a group is every slot and its test is true: Yosys' generic synthesis of lu_slots gives
  // 309 378 cells, the plain loop 309 376 (groups of 8 there: 310 531).
`ifdef SYNTHESIS
  localparam int unsigned GroupN = Slots;
  localparam int unsigned Groups = 1;
  function automatic logic grp_any(logic [Slots-1:0] m, int g);
    grp_any = 1'b1;
  endfunction
`else
  `SIM_GROUPS(grp_any, GroupN, Groups, Slots)
`endif

  // ---- a VAL: its REPL's slot, and every slot's TS against the VAL's ----
  logic [Slots-1:0] vmatch, vmatch_oh, ts_eq, ts_old, ts_new;
  always_comb begin
    vmatch = '0;
    ts_eq  = '0;
    ts_old = '0;
    ts_new = '0;
    // (Per slot, only what is read: the match of a slot waiting for its VAL; the TS order of a
    // validated one, which is all the order updates and the clash check look at. An answer looks
    // its slot up the same way; the TS are then not read.)
    if (val_i || ans_i) begin
      for (int g = 0; g < Groups; g++) if (grp_any(busy_q, g)) begin
        for (int s = g * GroupN; s < g * GroupN + GroupN && s < Slots; s++) begin
          if (busy_q[s] && !val_q[s] && !pur_q[s])
            vmatch[s] = (cn_q[s*NodeW +: NodeW] == val_cn_i) & (core_q[s*CoreW +: CoreW] == val_core_i) &
                        (tag_q[s*TagW +: TagW] == val_tag_i) & (line_q[s*LineW +: LineW] == val_line_i);
          if (val_i && busy_q[s] && val_q[s]) begin
            ts_eq[s]  = ts_q[s*TsW +: TsW] == val_ts_i;
            ts_old[s] = ts_before(ts_q[s*TsW +: TsW], val_ts_i);
            ts_new[s] = ts_before(val_ts_i, ts_q[s*TsW +: TsW]);
          end
        end
      end
    end
  end

  // ---- an allocation: the slots of its line ----
  logic [Slots-1:0] amatch;
  always_comb begin
    amatch = '0;
    if (alloc_i)
      for (int g = 0; g < Groups; g++) if (grp_any(busy_q, g))
        for (int s = g * GroupN; s < g * GroupN + GroupN && s < Slots; s++)
          amatch[s] = busy_q[s] & (line_q[s*LineW +: LineW] == alloc_line_i);
  end

  // ---- a search: the validated slots of its line ----
  always_comb begin
    srch_match_o = '0;
    if (srch_i)
      for (int s = 0; s < Slots; s++)
        srch_match_o[s] = busy_q[s] & val_q[s] & (line_q[s*LineW +: LineW] == srch_line_i);
  end

  // ---- purge candidates: the failed CN's slots in use and not validated (looked for only while
  // marking: lu_mgmt reads purge_cand_o only then) ----
  logic [Slots-1:0] pcand;
  always_comb begin
    pcand = '0;
    if (purge_mark_i)
      for (int s = 0; s < Slots; s++)
        pcand[s] = busy_q[s] & ~val_q[s] & ~pur_q[s] & (cn_q[s*NodeW +: NodeW] == purge_cn_i);
  end

  // ---- words ready to drain, per validated slot ----
  // Words of s held back by another slot of the line that precedes s or may precede it (hold):
  // validated and known to precede s, or not validated and not known to follow s (its VAL may be in
  // flight with an older TS). A slot marked for purge holds nothing back: its store is known never
  // to commit. (lu_log also holds the drain while a purge runs, so this keeps readiness exact
  // without relying on that: removing it fails no test.)
  // With ask_en_i, the unvalidated slots among the blockers are the holders a query may name.
  // With look_i, the validated slots with a word held back by an unvalidated one (held_u).
  logic [Slots*WordN-1:0] ready;
  logic [Slots-1:0]       ready_any, holders, hold_all, hold_line, held_u;
  always_comb begin
    logic [Slots-1:0] hold;
    logic [WordN-1:0] blk;
    logic             lon;
    ready     = '0;
    ready_any = '0;
    hold_all  = '0;
    hold_line = '0;
    held_u    = '0;
    hold      = '0;
    blk       = '0;
    lon       = 1'b0;
    if ((busy_q & val_q) != '0) begin
      for (int g = 0; g < Groups; g++) if (grp_any(busy_q & val_q, g)) begin
        for (int s = g * GroupN; s < g * GroupN + GroupN && s < Slots; s++) if (busy_q[s] && val_q[s]) begin
          hold = busy_q & ~pur_q & same_q[s*Slots +: Slots] & ~(Slots'(1) << s) &
                 ((val_q & aft_q[s*Slots +: Slots]) | (~val_q & ~bef_q[s*Slots +: Slots]));
          blk  = '0;
          lon  = 1'b0;
          if (hold != '0) begin
            if (ask_en_i) lon = line_q[s*LineW +: LineW] == look_line_i;
            for (int w = 0; w < WordN; w++) begin
              blk[w] = (hold & pend_t[w*Slots +: Slots]) != '0;
              if (pend_q[s*WordN + w] && (hold & ~val_q & pend_t[w*Slots +: Slots]) != '0) begin
                if (look_i) held_u[s] = 1'b1;
                if (ask_en_i) hold_all = hold_all | (hold & ~val_q & pend_t[w*Slots +: Slots]);
                if (ask_en_i && lon) hold_line = hold_line | (hold & ~val_q & pend_t[w*Slots +: Slots]);
              end
            end
          end
          ready[s*WordN +: WordN] = pend_q[s*WordN +: WordN] & ~blk;
          ready_any[s]            = ready[s*WordN +: WordN] != '0;
        end
      end
    end
  end

  assign holders = ask_line_i ? hold_line : hold_all;

  // ---- look-up: is a word of a validated slot of look_line_i held back by an unvalidated slot?
  // (The lines compared only for the few slots held so.) ----
  always_comb begin
    look_held_o = 1'b0;
    if (held_u != '0)
      for (int s = 0; s < Slots; s++)
        look_held_o = look_held_o | (held_u[s] & (line_q[s*LineW +: LineW] == look_line_i));
  end

  logic [SlotW-1:0] vslot;
  prio_enc #(.N(Slots)) u_vmatch (
    .req_i (vmatch), .onehot_o (vmatch_oh), .idx_o (vslot), .valid_o (val_hit_o)
  );
  assign val_multi_o = val_i & ((vmatch & ~vmatch_oh) != '0);

  // ---- query pick: round-robin among the holders, so that one whose answer is slow to help (its
  // VAL on its way) does not keep the others from being asked ----
  logic [Slots-1:0] agnt_unused;
  logic [SlotW-1:0] aslot;
  rr_arb #(.N(Slots)) u_ask_arb (
    .clk_i (clk_i), .rst_ni (rst_ni), .req_i (holders), .ack_i (ask_take_i),
    .gnt_o (agnt_unused), .gnt_idx_o (aslot), .gnt_valid_o (ask_valid_o)
  );
  assign ask_cn_o   = cn_q[aslot*NodeW +: NodeW];
  assign ask_core_o = core_q[aslot*CoreW +: CoreW];
  assign ask_tag_o  = tag_q[aslot*TagW +: TagW];
  assign ask_line_o = line_q[aslot*LineW +: LineW];

  // ---- drain pick ----
  logic [Slots-1:0] dgnt;
  rr_arb #(.N(Slots)) u_drain_arb (
    .clk_i (clk_i), .rst_ni (rst_ni), .req_i (ready_any), .ack_i (drain_take_i),
    .gnt_o (dgnt), .gnt_idx_o (drain_slot_o), .gnt_valid_o (drain_valid_o)
  );
  logic [WordN-1:0] dword_oh;
  logic             dword_v;
  prio_enc #(.N(WordN)) u_dword (
    .req_i (ready[drain_slot_o*WordN +: WordN]), .onehot_o (dword_oh), .idx_o (drain_word_o),
    .valid_o (dword_v)
  );
  // ---- purge pick: the lowest marked slot, its lowest word ----
  logic [Slots-1:0] poh;
  logic [WordN-1:0] pword_oh, ppend;
  logic             pword_v;
  prio_enc #(.N(Slots)) u_purge (
    .req_i (pur_q), .onehot_o (poh), .idx_o (purge_slot_o), .valid_o (purge_valid_o)
  );
  assign ppend = pend_q[purge_slot_o*WordN +: WordN];
  prio_enc #(.N(WordN)) u_pword (
    .req_i (ppend), .onehot_o (pword_oh), .idx_o (purge_word_o), .valid_o (pword_v)
  );
  assign purge_cand_o = pcand != '0;
  assign purge_done_o = purge_take_i & purge_valid_o & ((ppend & ~pword_oh) == '0);

  assign srch_ts_o    = ts_q[srch_slot_i*TsW +: TsW];
  assign srch_pend_o  = pend_q[srch_slot_i*WordN +: WordN];
  assign drain_line_o = line_q[drain_slot_o*LineW +: LineW];
  assign drain_ts_o   = ts_q[drain_slot_o*TsW +: TsW];
  assign drain_cn_o   = cn_q[drain_slot_o*NodeW +: NodeW];
  assign drain_core_o = core_q[drain_slot_o*CoreW +: CoreW];

  // ---- next state ----
  // vsel: the slot this VAL validates; asel: the slot allocated; dsel: the slot a word drains from;
  // psel: the slot a purged word is freed from; msel: the slots marked for purge; ysel: the slot an
  // answer says follows the remembered ones. They are one-hot (msel aside) and never the same slot:
  // an allocation takes a free slot, a VAL validates a busy one not yet validated (an answer comes
  // instead of a VAL), the drain takes a validated one, and a cycle frees one word at most.
  logic             vtake, atake, dtake, ptake, ytake;
  logic [Slots-1:0] vsel, asel, dsel, psel, msel, ysel, freed, vrow, clash_o;
  logic [WordN-1:0] vpend, dleft, pleft;
  assign vtake = val_i & val_hit_o;
  assign ytake = ans_i & val_hit_o;
  assign atake = alloc_i;
  assign dtake = drain_take_i & drain_valid_o;
  assign ptake = purge_take_i & purge_valid_o;
  assign vsel  = vtake ? vmatch_oh : '0;
  assign asel  = atake ? free_oh : '0;
  assign dsel  = dtake ? dgnt : '0;
  assign psel  = ptake ? poh : '0;
  assign msel  = purge_mark_i ? (pcand & ~vsel & ~asel) : '0;
  assign ysel  = ytake ? vmatch_oh : '0;
  assign vrow  = vtake ? same_q[vslot*Slots +: Slots] : '0;
  assign vpend = vtake ? pend_q[vslot*WordN +: WordN] : '0;
  assign dleft = pend_q[drain_slot_o*WordN +: WordN] & ~dword_oh;
  assign pleft = ppend & ~pword_oh;
  // a slot is free again with its last word
  assign freed = (dsel & {Slots{dleft == '0}}) | (psel & {Slots{pleft == '0}});

  // The validated slot's row of other validated slots of the line holding a common word (the
  // words compared only for the slots of the row with the same timestamp, group by group).
  always_comb begin
    logic [Slots-1:0] cand;
    clash_o = '0;
    cand    = vrow & ~vsel & busy_q & val_q & ts_eq;
    if (vtake)
      for (int g = 0; g < Groups; g++) if (grp_any(cand, g))
        for (int a = g * GroupN; a < g * GroupN + GroupN && a < Slots; a++)
          clash_o[a] = cand[a] & ((pend_q[a*WordN +: WordN] & vpend) != '0);
  end
  assign val_ts_clash_o = |clash_o;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      busy_q <= '0;
      val_q  <= '0;
      pur_q  <= '0;
      snap_q <= '0;
      kp_q   <= '0;
    end else begin
      busy_q <= (busy_q | asel) & ~freed;
      val_q  <= (val_q | vsel) & ~asel & ~freed;
      pur_q  <= (pur_q | msel) & ~asel & ~freed;
      // the slots validated when a query is issued (a VAL of this cycle is not among them yet)
      snap_q <= (ask_take_i ? (busy_q & val_q) : snap_q) & ~freed;
      // (a slot validated in the marking cycle is marked too; one freed in it is not)
      kp_q   <= (kp_q | (keep_mark_i ? busy_q & (val_q | vsel) : '0)) & ~freed;
    end
  end

  // Per-slot fields: an allocation writes all of its slot's, a drained or purged word clears its
  // bit, a VAL sets its slot's TS (not reset: busy_q says which slots mean anything). The loop runs
  // only in a cycle that changes a slot, and every index in it is a constant (indexed writes at a
  // computed slot cost Yosys' check of this block a multiple of its time). Its groups (above): a
  // cycle touches four slots at most, one per kind, where the loop over every slot tested 64 (3 % of
  // the LU's evaluation in a paper.ini run of fluid under DIKTAMO-proactive).
  logic [Slots-1:0] touch;
  assign touch = asel | dsel | psel | vsel;
  always_ff @(posedge clk_i) begin
    if (touch != '0) begin
      for (int g = 0; g < Groups; g++) if (grp_any(touch, g)) begin
        for (int a = g * GroupN; a < g * GroupN + GroupN && a < Slots; a++) if (touch[a]) begin
          if (asel[a]) begin
            pend_q[a*WordN +: WordN] <= alloc_mask_i;
            cn_q[a*NodeW +: NodeW]   <= alloc_cn_i;
            core_q[a*CoreW +: CoreW] <= alloc_core_i;
            tag_q[a*TagW +: TagW]    <= alloc_tag_i;
            line_q[a*LineW +: LineW] <= alloc_line_i;
            for (int w = 0; w < WordN; w++) pend_t[w*Slots + a] <= alloc_mask_i[w];
          end
          if (dsel[a] || psel[a]) begin
            pend_q[a*WordN +: WordN] <= dsel[a] ? dleft : pleft;
            for (int w = 0; w < WordN; w++)
              if (dsel[a] ? dword_oh[w] : pword_oh[w]) pend_t[w*Slots + a] <= 1'b0;
          end
          if (vsel[a]) ts_q[a*TsW +: TsW] <= val_ts_i;
        end
      end
    end
  end

  // The pair matrices change only with an allocation, a VAL or an answer (the diagonal is always 0):
  //   - an allocation of b finds the line's other slots, and every slot a of the line validated,
  //     or validated in the same cycle, precedes b;
  //   - a VAL orders its slot against the line's validated slots (equal TS: the one validated
  //     first is taken to precede);
  //   - an answer for b (not committed yet) makes every remembered slot a of b's line precede b
  //     (an answer and a VAL never come in one cycle).
  // Row a of bef_q and row b of aft_q (its column b) follow the same rule, each in its own layout.
  // Only the rows of busy slots and the allocated one are computed: a free slot's rows are never
  // read, and its allocation writes them whole. The loop runs in a cycle with an allocation or a
  // VAL only, and writes each row in place with blocking writes, against the house habit of
  // non-blocking ones (as sw_ports does, for the same reason): row a's new value reads only row a
  // of each matrix, before the write, so the rows written earlier in the loop are never read
  // again, and only combinational logic reads the matrices, after the clocked blocks. Written
  // non-blocking, a row at a time cost a shadow copy of the three 4 096-bit matrices in and out at
  // every edge of every LU (about 770 words); written into copies that were then written whole
  // non-blocking, it cost the same copies in the cycles with an allocation or a VAL (about 2 % of a
  // paper.ini run of fluid under DIKTAMO-proactive). For synthesis a blocking write in a clocked
  // block is the same flip-flop as a non-blocking one when nothing in the block reads it after the
  // write.
  logic [Slots-1:0] rows;
  assign rows = busy_q | asel;
  // verilator lint_off BLKSEQ
  always_ff @(posedge clk_i) begin
    logic [Slots-1:0] diag, m_val_b, m_val_a, same_nx, bef_nx, mb_t, ma_t, aft_nx;
    if (atake || vtake || ytake) begin
      for (int g = 0; g < Groups; g++) if (grp_any(rows, g)) begin
        for (int a = g * GroupN; a < g * GroupN + GroupN && a < Slots; a++) if (rows[a]) begin
          diag    = Slots'(1) << a;
          // row a of bef_q
          m_val_b = ~asel & vsel & {Slots{busy_q[a] & val_q[a]}} & same_q[a*Slots +: Slots];
          m_val_a = ~asel & ~m_val_b & {Slots{vsel[a]}} & busy_q & val_q & same_q[a*Slots +: Slots];
          same_nx = asel[a] ? amatch : ((same_q[a*Slots +: Slots] & ~asel) | (asel & {Slots{amatch[a]}}));
          bef_nx  = asel[a] ? '0 :
                    ((asel & {Slots{amatch[a] & (val_q[a] | vsel[a])}}) |
                     (m_val_b & {Slots{ts_eq[a] | ts_old[a]}}) |
                     (m_val_a & ~ts_eq & ts_new) |
                     (ysel & {Slots{snap_q[a]}} & same_q[a*Slots +: Slots]) |
                     (~asel & ~m_val_b & ~m_val_a & bef_q[a*Slots +: Slots]));
          // row a of aft_q: column a of bef_q, bit b = bef_nx of row b at a
          mb_t    = {Slots{~asel[a] & vsel[a]}} & busy_q & val_q & same_q[a*Slots +: Slots];
          ma_t    = {Slots{~asel[a] & busy_q[a] & val_q[a]}} & ~mb_t & vsel & same_q[a*Slots +: Slots];
          aft_nx  = ~asel & (({Slots{asel[a]}} & amatch & (val_q | vsel)) |
                             (mb_t & (ts_eq | ts_old)) |
                             (ma_t & {Slots{~ts_eq[a] & ts_new[a]}}) |
                             ({Slots{ysel[a]}} & snap_q & same_q[a*Slots +: Slots]) |
                             ({Slots{~asel[a]}} & ~mb_t & ~ma_t & aft_q[a*Slots +: Slots]));
          same_q[a*Slots +: Slots] = same_nx & ~diag;
          bef_q[a*Slots +: Slots]  = bef_nx & ~diag;
          aft_q[a*Slots +: Slots]  = aft_nx & ~diag;
        end
      end
    end
  end
  // verilator lint_on BLKSEQ

  assign busy_o     = busy_q;
  assign val_o      = val_q;
  assign empty_o    = busy_q == '0;
  assign keep_any_o = kp_q != '0;

  `ASSERT(alloc_needs_free, !alloc_i || free_valid_o)
  `ASSERT(alloc_mask_nonzero, !alloc_i || alloc_mask_i != '0)
  `ASSERT(drain_word_ready, !drain_valid_o || dword_v)
  `ASSERT(purge_word_ready, !purge_valid_o || pword_v)
  `ASSERT(purge_take_valid, !purge_take_i || purge_valid_o)
  // A word leaves by the drain or by the purge, never both in one cycle (one free per cycle).
  `ASSERT(one_take, !(purge_take_i && drain_take_i))
  // An answer comes on the DKRSP FIFO's head instead of a VAL; a query leaves about a holder.
  `ASSERT(answer_not_with_val, !(ans_i && val_i))
  `ASSERT(ask_take_valid, !ask_take_i || ask_valid_o)
  // Only validated slots are remembered (so only they come to precede an unvalidated one).
  `ASSERT(snap_validated, (snap_q & ~(busy_q & val_q)) == '0)
  // The turned-around copies are their matrices' transposes, among busy slots: each cycle for the
  // slots the last cycle's allocation and VAL wrote, and for one more slot in turn (every slot once
  // in Slots cycles that change a slot). Checking every pair every cycle made the test-flavour LU
  // 5.5 times slower. The slot in turn moves on only in a cycle that changes a slot, the only kind
  // that can break a copy, so that an edge with nothing to do changes nothing here either: the
  // LU's idle_o promises that, and DIKTAMO_CHECK_IDLE checks it on every signal.
`ifndef SYNTHESIS
  logic [SlotW-1:0] chk_q, wa_q, wv_q;
  logic             wa_v_q, wv_v_q;
  always_ff @(posedge clk_i) begin
    if (touch != '0) chk_q <= chk_q + SlotW'(1);
    wa_q   <= free_slot_o;
    wv_q   <= vslot;
    wa_v_q <= rst_ni & atake;
    wv_v_q <= rst_ni & vtake;
  end
  logic aft_bad, pend_t_bad;
  always_comb begin
    logic [SlotW-1:0] b;
    logic             en;
    aft_bad    = 1'b0;
    pend_t_bad = 1'b0;
    for (int k = 0; k < 3; k++) begin
      b  = (k == 0) ? chk_q : (k == 1) ? wa_q : wv_q;
      en = (k == 0) | (k == 1 && wa_v_q) | (k == 2 && wv_v_q);
      if (en && busy_q[b]) begin
        for (int a = 0; a < Slots; a++)
          aft_bad = aft_bad | (busy_q[a] & ((aft_q[32'(b)*Slots + a] != bef_q[a*Slots + 32'(b)]) |
                                            (aft_q[a*Slots + 32'(b)] != bef_q[32'(b)*Slots + a])));
        for (int w = 0; w < WordN; w++)
          pend_t_bad = pend_t_bad | (pend_t[w*Slots + 32'(b)] != pend_q[32'(b)*WordN + w]);
      end
    end
  end
  `ASSERT(aft_is_bef_turned, !aft_bad)
  `ASSERT(pend_t_is_pend_turned, !pend_t_bad)
`endif
  // A busy slot always has a word left (it is freed with its last one).
  for (genvar s = 0; s < Slots; s++) begin : g_chk
    `ASSERT(busy_has_words, !busy_q[s] || pend_q[s*WordN +: WordN] != '0)
    // Marked for purge: in use and never validated; never a drain candidate.
    `ASSERT(purged_not_validated, !pur_q[s] || (busy_q[s] && !val_q[s]))
    `ASSERT(purged_never_drains, !(pur_q[s] && dsel[s]))
    // Kept: a validated slot in use (marks go only to validated slots, and leave with the slot).
    `ASSERT(kept_is_validated, !kp_q[s] || (busy_q[s] && val_q[s]))
  end

`ifdef LU_SLOTS_ORDER
  // The proof that words drain in commit order (Yosys only: constraints/formal/lu_slots_order.ys).
  `include "lu_slots_order.svh"
`endif

endmodule
`default_nettype wire
