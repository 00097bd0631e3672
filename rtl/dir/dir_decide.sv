`default_nettype none
`include "assert.svh"

// The directory's state x event table (docs/architecture.md section 11c, whose rows carry the
// TR_* names below, as do the tests): what a transaction does at DECIDE, given its line's entry
// and its request, and what its FINISH answers and leaves in the entry. The rows' names live here
// and only here, with the one register that holds them (t_tr_q: each transaction's row, written
// at its DECIDE), and the directory entry's states (E_*). Everything is combinational but t_tr_q;
// each part is worked out only at the event that reads it (decide_i, finish_i), so that a
// Verilated model does not build every row at every evaluation.
//
// Directory entry (EntW bits): [1:0] state (0 I, 1 S, 2 EM), then the CN vector (sharers; the
// owner alone in EM), the stale-write vector, the line's version (dir_ctrl's header).
module dir_decide #(
  /// transaction table entries
  parameter int unsigned TxnEntries = 16,
  localparam int unsigned NumCn  = msg_pkg::MAX_CN,
  localparam int unsigned CnW    = $clog2(msg_pkg::MAX_CN),
  localparam int unsigned TsW    = msg_pkg::TS_W,
  localparam int unsigned VerLsb = 2 + 2 * NumCn,   // the version's place in an entry
  localparam int unsigned EntW   = VerLsb + TsW,
  localparam int unsigned TW     = (TxnEntries > 1) ? $clog2(TxnEntries) : 1
) (
  /// controller clock
  input  wire logic                     clk_i,
  /// synchronous reset, active low (t_tr_q holds no reset: a row is read only after its DECIDE)
  input  wire logic                     rst_ni,
  /// the event's transaction (the table's entry the event reads and writes)
  input  wire logic [TW-1:0]            ei_i,
  /// the event is the transaction's DECIDE and takes a row of the table (not a RECOVER's, nor a
  /// failed CN's request's)
  input  wire logic                     decide_i,
  /// the event is the DECIDE of a RECOVER's transaction
  input  wire logic                     rec_i,
  /// the event is a RECOVER that releases the transaction held on its line (checked: a failed CN
  /// owns the line)
  input  wire logic                     release_i,
  /// the event is the FINISH of a transaction that answers (its response and the entry it leaves)
  input  wire logic                     finish_i,
  /// the transaction's line entry (EntW bits, the format above)
  input  wire logic [EntW-1:0]          ent_i,
  /// the transaction's request opcode
  input  wire logic [msg_pkg::OPCODE_W-1:0] op_i,
  /// the requester (a CN: only CNs' requests enter the table)
  input  wire logic [CnW-1:0]           req_cn_i,
  /// the transaction is in the Large Non-coherent Region (no entry)
  input  wire logic                     lnr_i,
  /// the version an RWD carried (the owner's write-back or write-through), a RECOVER's version
  input  wire logic [TsW-1:0]           ts_i,
  /// the owner kept a shared copy (its snoop answer was BIRSP_S or BIRSP_S_DATA)
  input  wire logic                     kepts_i,
  /// the transaction is the management port's RECOVER, which sets the line's version (ts_i)
  input  wire logic                     setv_i,
  /// the failed CNs (bit per CN)
  input  wire logic [NumCn-1:0]         failed_i,
  /// DECIDE: the row (tr_e) taken: its counter's index too (the CSR map's 0x00..0x11)
  output logic      [4:0]               tr_o,
  /// DECIDE: the request is a duplicate (DUP_REQ violation: the requester already holds the line)
  output logic                          dup_o,
  /// DECIDE: a write or eviction the state does not allow that no snoop answer announced
  /// (NOT_OWNER violation)
  output logic                          not_owner_o,
  /// DECIDE: a stale write (one the requester's snoop answer announced with WR_IN_FLIGHT)
  output logic                          stale_o,
  /// DECIDE: read the line's data
  output logic                          rd_o,
  /// DECIDE: write the request's words
  output logic                          wr_o,
  /// DECIDE: snoop the CNs of targets_o
  output logic                          snoop_o,
  /// DECIDE: the snoops are BISNP_INV (else BISNP_DATA: the owner may keep S)
  output logic                          inv_o,
  /// DECIDE: the CNs to snoop
  output logic      [NumCn-1:0]         targets_o,
  /// DECIDE: the transaction needs the line's data (from memory or the owner's answer)
  output logic                          need_o,
  /// DECIDE: the entry after the row (the requester's stale-write bit cleared, an owner's version)
  output logic      [EntW-1:0]          ent_o,
  /// DECIDE: ent_o differs from ent_i (the entry must be written back)
  output logic                          chg_o,
  /// DECIDE of a RECOVER (and a release): a failed CN owns the line (its words go to memory, the
  /// entry to I)
  output logic                          rec_ok_o,
  /// DECIDE of a RECOVER: the entry after it (valid with rec_ok_o)
  output logic      [EntW-1:0]          rec_ent_o,
  /// FINISH: the response's opcode (CMP where none is sent)
  output logic [msg_pkg::OPCODE_W-1:0]  fin_op_o,
  /// FINISH: the entry the transaction leaves
  output logic      [EntW-1:0]          fin_ent_o,
  /// the event's transaction snoops an owner (rows EM_RdS, EM_RdOwn): only then may an answer
  /// carry data
  output logic                          own_snp_o,
  /// per transaction: it snoops an owner (as own_snp_o; worked out only while a CN has failed,
  /// when held transactions are looked for)
  output logic      [TxnEntries-1:0]    own_snp_all_o
);

  // ---- directory entry states, rows of the state x event table ----
  // Entry states (csr_pkg::E_*) and the table's rows (csr_pkg::tr_e, TR_*): generated from
  // rtl/include/csrs.toml, as are the C side's DIR_TR_* and docs/csrs.md.

  // Each transaction's row, written at its DECIDE (read at its FINISH, and by the snoop answers).
  csr_pkg::tr_e t_tr_q [TxnEntries];

  function automatic logic [EntW-1:0] ent_make(logic [1:0] st, logic [NumCn-1:0] vec,
                                               logic [NumCn-1:0] stale, logic [TsW-1:0] ver);
    ent_make = {ver, stale, vec, st};
  endfunction

  logic [1:0]       e_st;
  logic [NumCn-1:0] e_vec, e_stale, r_oh;
  logic [TsW-1:0]   e_ver;
  logic             r_sh, r_own, r_stale;
  assign e_st    = ent_i[1:0];
  assign e_vec   = ent_i[2 +: NumCn];
  assign e_stale = ent_i[2 + NumCn +: NumCn];
  assign e_ver   = ent_i[VerLsb +: TsW];
  assign r_oh    = NumCn'(1) << req_cn_i;
  assign r_sh    = (e_vec & r_oh) != '0;
  assign r_own   = (e_st == csr_pkg::E_EM) && r_sh;
  assign r_stale = (e_stale & r_oh) != '0;

  // ---- DECIDE: the row ----
  csr_pkg::tr_e tr;
  always_comb begin
    logic viol_own;   // a write or eviction the state does not allow: stale or a violation
    tr          = csr_pkg::TR_LNR_Rd;
    rd_o        = 1'b0;
    wr_o        = 1'b0;
    viol_own    = 1'b0;
    dup_o       = 1'b0;
    not_owner_o = 1'b0;
    stale_o     = 1'b0;
    snoop_o     = 1'b0;
    inv_o       = 1'b1;
    targets_o   = '0;
    ent_o       = ent_i;
    chg_o       = 1'b0;
    need_o      = 1'b0;
    if (decide_i) begin
      if (lnr_i) begin
        tr   = (op_i == msg_pkg::OP_LNR_RD) ? csr_pkg::TR_LNR_Rd : csr_pkg::TR_LNR_Wr;
        rd_o = (op_i == msg_pkg::OP_LNR_RD);
        wr_o = (op_i == msg_pkg::OP_LNR_WR);
      end else begin
        unique case (e_st)
          csr_pkg::E_I: begin
            unique case (op_i)
              msg_pkg::OP_RD_SHARED: begin tr = csr_pkg::TR_I_RdS; rd_o = 1'b1; end
              msg_pkg::OP_RD_OWN, msg_pkg::OP_RD_UPGRADE: begin tr = csr_pkg::TR_I_RdOwn; rd_o = 1'b1; end
              default: begin tr = csr_pkg::TR_I_Evict; viol_own = 1'b1; end
            endcase
          end
          csr_pkg::E_S: begin
            unique case (op_i)
              msg_pkg::OP_RD_SHARED, msg_pkg::OP_RD_OWN, msg_pkg::OP_RD_UPGRADE: begin
                // A sharer asks for ownership with RD_UPGRADE only: after RD_OWN it could not
                // tell a snoop of its S copy from one of the line granted (section 11c).
                targets_o = e_vec & ~r_oh;
                snoop_o   = targets_o != '0;
                if (r_sh && op_i != msg_pkg::OP_RD_UPGRADE) begin
                  tr      = csr_pkg::TR_S_ReRead;
                  dup_o   = 1'b1;
                  snoop_o = 1'b0;
                end else if (r_sh) begin
                  tr = csr_pkg::TR_S_Upg;
                end else if (op_i == msg_pkg::OP_RD_SHARED) begin
                  tr      = csr_pkg::TR_S_RdS;
                  rd_o    = 1'b1;
                  snoop_o = 1'b0;
                end else begin
                  tr   = csr_pkg::TR_S_RdOwn;
                  rd_o = 1'b1;
                end
              end
              msg_pkg::OP_CLEAN_EVICT: begin
                if (r_sh) tr = csr_pkg::TR_S_CleanEvict;
                else begin tr = csr_pkg::TR_S_StaleWr; viol_own = 1'b1; end
              end
              default: begin tr = csr_pkg::TR_S_StaleWr; viol_own = 1'b1; end
            endcase
          end
          default: begin   // E_EM
            unique case (op_i)
              msg_pkg::OP_RD_SHARED, msg_pkg::OP_RD_OWN, msg_pkg::OP_RD_UPGRADE: begin
                if (r_own) begin tr = csr_pkg::TR_EM_ReRead; dup_o = 1'b1; end
                else begin
                  tr        = (op_i == msg_pkg::OP_RD_SHARED) ? csr_pkg::TR_EM_RdS : csr_pkg::TR_EM_RdOwn;
                  targets_o = e_vec;
                  snoop_o   = 1'b1;
                  inv_o     = (op_i != msg_pkg::OP_RD_SHARED);
                end
              end
              msg_pkg::OP_CLEAN_EVICT: begin
                if (r_own) tr = csr_pkg::TR_EM_CleanEvict;
                else begin tr = csr_pkg::TR_EM_StaleWr; viol_own = 1'b1; end
              end
              msg_pkg::OP_DIRTY_EVICT: begin
                if (r_own) begin tr = csr_pkg::TR_EM_DirtyEvict; wr_o = 1'b1; end
                else begin tr = csr_pkg::TR_EM_StaleWr; viol_own = 1'b1; end
              end
              default: begin   // WT_WR
                if (r_own) begin tr = csr_pkg::TR_EM_WtWr; wr_o = 1'b1; end
                else begin tr = csr_pkg::TR_EM_StaleWr; viol_own = 1'b1; end
              end
            endcase
          end
        endcase
      end
      // A write the state does not allow: stale if the CN's snoop answer announced it.
      if (viol_own) begin
        if (r_stale) stale_o     = 1'b1;
        else         not_owner_o = 1'b1;
      end
      // Every request served clears its CN's stale-write bit: a CN sends a request for a line
      // only after the CMP of its previous write to it, so none of its writes is on its way.
      if (!dup_o && !not_owner_o && r_stale) begin
        ent_o[2 + NumCn +: NumCn] = e_stale & ~r_oh;
        chg_o = 1'b1;
      end
      // The owner's write-back or write-through: its version is the line's newest.
      if (wr_o && !lnr_i) begin
        ent_o[VerLsb +: TsW] = ts_i;
        chg_o = 1'b1;
      end
      need_o = rd_o | snoop_o & (tr == csr_pkg::TR_EM_RdS || tr == csr_pkg::TR_EM_RdOwn);
    end
  end
  assign tr_o = tr;

  // The handler's RECOVER, at its DECIDE: the recovered words to memory and the entry to I, if a
  // failed CN still owns the line (else nothing: the line has been given away meanwhile). With a
  // version, the line's becomes the failed owner's last commit's: the entry's is the one the
  // owner was granted, and the next owner must build on the versions the logs hold.
  // (Worked out only then.)
  always_comb begin
    rec_ok_o  = 1'b0;
    rec_ent_o = ent_i;
    if (rec_i || release_i) begin
      rec_ok_o  = (e_st == csr_pkg::E_EM) && ((e_vec & failed_i) != '0);
      rec_ent_o = ent_make(csr_pkg::E_I, '0, e_stale & ~failed_i, setv_i ? ts_i : e_ver);
    end
  end

  // ---- FINISH: the response, and the line's new entry (worked out only then) ----
  // A row changes only the entry's state and CN vector (the stale-write vector and the version
  // are the entry's); they are chosen per row and put in place once (the entry built whole in
  // each row cost a Verilated model every row's entry at every evaluation: Verilator's DFG pass
  // hoists such expressions out of their branches).
  always_comb begin
    logic [1:0]       st;
    logic [NumCn-1:0] vec;
    st        = e_st;
    vec       = e_vec;
    fin_op_o  = msg_pkg::OP_CMP;
    if (finish_i) unique case (t_tr_q[ei_i])
      csr_pkg::TR_I_RdS, csr_pkg::TR_I_RdOwn, csr_pkg::TR_S_RdOwn, csr_pkg::TR_EM_RdOwn: begin
        fin_op_o = msg_pkg::OP_DATA_E;
        st       = csr_pkg::E_EM;
        vec      = r_oh;
      end
      csr_pkg::TR_S_Upg: begin
        fin_op_o = msg_pkg::OP_CMP_E;
        st       = csr_pkg::E_EM;
        vec      = r_oh;
      end
      csr_pkg::TR_S_RdS: begin
        fin_op_o = msg_pkg::OP_DATA_S;
        st       = csr_pkg::E_S;
        vec      = e_vec | r_oh;
      end
      csr_pkg::TR_EM_RdS: begin
        // The owner kept a shared copy: both share; else the requester alone, granted E.
        fin_op_o = kepts_i ? msg_pkg::OP_DATA_S : msg_pkg::OP_DATA_E;
        st       = kepts_i ? csr_pkg::E_S : csr_pkg::E_EM;
        vec      = kepts_i ? e_vec | r_oh : r_oh;
      end
      csr_pkg::TR_S_CleanEvict: begin
        st  = ((e_vec & ~r_oh) != '0) ? csr_pkg::E_S : csr_pkg::E_I;
        vec = e_vec & ~r_oh;
      end
      csr_pkg::TR_EM_CleanEvict, csr_pkg::TR_EM_DirtyEvict: begin
        st  = csr_pkg::E_I;
        vec = '0;
      end
      csr_pkg::TR_LNR_Rd: fin_op_o = msg_pkg::OP_DATA_NC;
      default: ;
    endcase
    fin_ent_o           = ent_i;
    fin_ent_o[1:0]      = st;
    fin_ent_o[2 +: NumCn] = vec;
  end

  // ---- the rows that snoop an owner ----
  assign own_snp_o = (t_tr_q[ei_i] == csr_pkg::TR_EM_RdS) || (t_tr_q[ei_i] == csr_pkg::TR_EM_RdOwn);
  // (None while no CN has failed.)
  always_comb begin
    own_snp_all_o = '0;
    if (failed_i != '0)
      for (int t = 0; t < TxnEntries; t++)
        own_snp_all_o[t] = (t_tr_q[t] == csr_pkg::TR_EM_RdS) || (t_tr_q[t] == csr_pkg::TR_EM_RdOwn);
  end

  // The row is the transaction's from its DECIDE on (a RECOVER and a failed CN's request take
  // none: their FINISH answers nothing).
  always_ff @(posedge clk_i) begin
    if (decide_i) t_tr_q[ei_i] <= tr;
  end

  // A RECOVER releases only a transaction of a line that a failed CN owns: the version it sets
  // replaces that owner's.
  `ASSERT(release_failed_owner, !release_i || rec_ok_o)

endmodule
`default_nettype wire
