`default_nettype none
`include "assert.svh"

// Failure detection of the CXL switch (DIKTAMO section V-A): one Viral_Status bit per compute
// node, the Configuration Manager (CM) choice, and the MSIs that tell the CM of each failure.
//
// A live CN i is declared failed in the cycle when either
//   silence: SILENCE_LIMIT != 0 and its link has carried nothing (no message, no credit return, no
//            link-layer heartbeat: act_i[i]) for SILENCE_LIMIT cycles, or
//   accept:  ACCEPT_LIMIT != 0 and a message for it has waited for a credit (wait_i[i]) without any
//            message leaving toward it (sent_i[i]) for ACCEPT_LIMIT cycles.
// Ages are now_i minus the cycle of the last event, in 32-bit modular arithmetic (limits below
// 2^31), so the switch needs no clock while nothing happens: now_i is the platform's cycle count.
// A CN is watched from its (re)start: CTRL.ENABLE for all, READMIT for one.
//
// On detection the CN's Viral_Status bit and its fence are set, the cycle is recorded, and one MSI
// becomes pending. The switch sends pending MSIs, lowest failed CN first, to the CM: the CN named
// by the CM register if it is live, else the lowest-numbered live CN; a failed CM thus hands its
// role, and its own MSI, to the next live CN. Software clears the Viral_Status bit after recovery
// (write 1 to clear) and may then re-admit the CN (READMIT), which lifts the fence and restarts
// the CN's port (restart_o).
//
// Registers VIRAL, FENCED, READMIT, CM, SILENCE_LIMIT, ACCEPT_LIMIT, MSI_SENT, DETECT_ACCEPT and
// DETECT_TIME[i] of the switch's map (csr_pkg::SW_CSR_*, docs/csrs.md); the switch decodes
// csr_valid_i for this block's addresses only and registers the response. Writes of bits that
// name no CN, limits of 2^31 or more, and accesses of the wrong direction are refused (csr_err_o).
module sw_viral #(
  /// number of compute-node ports
  parameter int unsigned NumCn        = 4,
  /// SILENCE_LIMIT after reset (cycles)
  parameter int unsigned SilenceReset = 2048,
  /// ACCEPT_LIMIT after reset (cycles)
  parameter int unsigned AcceptReset  = 16384,
  localparam int unsigned CnW         = (NumCn > 1) ? $clog2(NumCn) : 1
) (
  /// switch clock
  input  wire logic                 clk_i,
  /// synchronous reset, active low
  input  wire logic                 rst_ni,
  /// the platform's cycle count
  input  wire logic [31:0]          now_i,
  /// CTRL.ENABLE is set this cycle: start watching every CN
  input  wire logic                 start_i,
  /// per CN: its link carried a message, a credit or a heartbeat this cycle
  input  wire logic [NumCn-1:0]     act_i,
  /// per CN: a message for it waits for a credit
  input  wire logic [NumCn-1:0]     wait_i,
  /// per CN: a message left toward it this cycle
  input  wire logic [NumCn-1:0]     sent_i,
  /// register access for this block
  input  wire logic                 csr_valid_i,
  /// the access is a write
  input  wire logic                 csr_write_i,
  /// word address
  input  wire logic [csr_pkg::SW_CSR_ADDR_W-1:0] csr_addr_i,
  /// write data
  input  wire logic [31:0]          csr_wdata_i,
  /// the address is one of this block's registers
  output logic                      csr_hit_o,
  /// the access is refused
  output logic                      csr_err_o,
  /// read data (0 unless a read hits)
  output logic      [31:0]          csr_rdata_o,
  /// per CN: failed and not re-admitted; the switch isolates it
  output logic      [NumCn-1:0]     fenced_o,
  /// per CN: restart its port (re-admitted), one cycle, with fenced_o already low
  output logic      [NumCn-1:0]     restart_o,
  /// an MSI is pending and a CM exists
  output logic                      msi_valid_o,
  /// the CM (CN number) the MSI goes to
  output logic      [CnW-1:0]       msi_cm_o,
  /// the failed CN the MSI is about
  output logic      [CnW-1:0]       msi_subject_o,
  /// an MSI left this cycle (it stays pending until then, and is offered again if the switch could
  /// not deliver it: its CM failed meanwhile) ...
  input  wire logic                 msi_ack_i,
  /// ... about this failed CN (the subject it was offered with, a cycle or more earlier)
  input  wire logic [CnW-1:0]       msi_ack_subject_i,
  /// some failure timer is running (a CN is watched)
  output logic                      timer_valid_o,
  /// cycles from now until the earliest running timer expires (0: it expires now)
  output logic      [31:0]          timer_left_o,
  /// nothing will change before timer_left_o cycles unless an input other than now_i changes
  output logic                      idle_o
);
  localparam int unsigned AddrW = csr_pkg::SW_CSR_ADDR_W;
  localparam logic [AddrW-1:0] AddrViral   = csr_pkg::SW_CSR_VIRAL;
  localparam logic [AddrW-1:0] AddrFenced  = csr_pkg::SW_CSR_FENCED;
  localparam logic [AddrW-1:0] AddrReadmit = csr_pkg::SW_CSR_READMIT;
  localparam logic [AddrW-1:0] AddrCm      = csr_pkg::SW_CSR_CM;
  localparam logic [AddrW-1:0] AddrSilence = csr_pkg::SW_CSR_SILENCE_LIMIT;
  localparam logic [AddrW-1:0] AddrAccept  = csr_pkg::SW_CSR_ACCEPT_LIMIT;
  localparam logic [AddrW-1:0] AddrMsiSent = csr_pkg::SW_CSR_MSI_SENT;
  localparam logic [AddrW-1:0] AddrDetAcc  = csr_pkg::SW_CSR_DETECT_ACCEPT;
  localparam logic [AddrW-1:0] AddrDetTime = csr_pkg::SW_CSR_DETECT_TIME_BASE;

  if (NumCn < 2 || NumCn > 32) begin : g_bad_cn
    $error("sw_viral: NumCn must be in 2..32");
  end
  if (SilenceReset >= 32'h8000_0000 || AcceptReset >= 32'h8000_0000) begin : g_bad_limit
    $error("sw_viral: limits must be below 2^31");
  end

  logic [NumCn-1:0]    viral_q, viral_d, fenced_q, fenced_d, armed_q, armed_d;
  logic [NumCn-1:0]    restart_q, restart_d, msi_q, msi_d, det_acc_q, det_acc_d;
  logic [31:0]         last_act_q [NumCn];
  logic [31:0]         last_prog_q [NumCn];
  logic [31:0]         det_time_q [NumCn];
  logic [31:0]         sil_lim_q, sil_lim_d, acc_lim_q, acc_lim_d, msi_sent_q;
  logic                cm_named_q, cm_named_d;
  logic [CnW-1:0]      cm_cn_q, cm_cn_d;
  logic [NumCn-1:0]    sil_exp, acc_exp, detect, wait_q;

  // ---- timers ----
  // The accept age counts from the last message sent while waiting, or from the cycle the wait
  // began (wait_q: the CN was waiting at the last clock), so it depends on no cycle that a skipping
  // simulator leaves out. timer_valid_o / timer_left_o give the earliest expiry, for a simulator
  // that skips idle cycles (not a timing path of the design).
`ifdef SYNTHESIS
  logic [31:0] prog_base [NumCn];

  always_comb begin
    for (int i = 0; i < NumCn; i++) begin
      prog_base[i] = wait_q[i] ? last_prog_q[i] : now_i;
      sil_exp[i]   = armed_q[i] && sil_lim_q != '0 && (now_i - last_act_q[i]) >= sil_lim_q;
      acc_exp[i]   = armed_q[i] && acc_lim_q != '0 && wait_i[i] && (now_i - prog_base[i]) >= acc_lim_q;
    end
  end

  logic [31:0] left;

  always_comb begin
    left          = '0;
    timer_valid_o = 1'b0;
    timer_left_o  = '0;
    for (int i = 0; i < NumCn; i++) begin
      if (armed_q[i] && sil_lim_q != '0) begin
        left = ((now_i - last_act_q[i]) >= sil_lim_q) ? '0 : sil_lim_q - (now_i - last_act_q[i]);
        if (!timer_valid_o || left < timer_left_o) timer_left_o = left;
        timer_valid_o = 1'b1;
      end
      if (armed_q[i] && acc_lim_q != '0 && wait_i[i]) begin
        left = ((now_i - prog_base[i]) >= acc_lim_q) ? '0 : acc_lim_q - (now_i - prog_base[i]);
        if (!timer_valid_o || left < timer_left_o) timer_left_o = left;
        timer_valid_o = 1'b1;
      end
    end
  end
`else
  // Simulation form (the same outputs every cycle; tb/test_fabric.c compares it with the synthesis
  // form above): now_i changes every cycle, so the synthesis form's loops over every CN ran at every
  // edge. Silence ages all grow together, so the armed CN silent longest (sil_old_q, worked out
  // again only when it or the armed set changes) decides the earliest silence expiry, and the
  // other CNs are looked at only in the cycle it expires; accept ages only for CNs that wait.
  logic [CnW-1:0] sil_old_q;
  logic [31:0]    age, left;

  always_comb begin
    sil_exp       = '0;
    acc_exp       = '0;
    timer_valid_o = 1'b0;
    timer_left_o  = '0;
    age           = '0;
    left          = '0;
    if (armed_q != '0 && sil_lim_q != '0) begin
      age           = now_i - last_act_q[sil_old_q];
      timer_valid_o = 1'b1;
      timer_left_o  = (age >= sil_lim_q) ? '0 : sil_lim_q - age;
      if (age >= sil_lim_q) begin
        for (int i = 0; i < NumCn; i++)
          sil_exp[i] = armed_q[i] && (now_i - last_act_q[i]) >= sil_lim_q;
      end
    end
    if (acc_lim_q != '0 && (armed_q & wait_i) != '0) begin
      for (int i = 0; i < NumCn; i++) begin
        if (armed_q[i] && wait_i[i]) begin
          age        = now_i - (wait_q[i] ? last_prog_q[i] : now_i);
          acc_exp[i] = age >= acc_lim_q;
          left       = (age >= acc_lim_q) ? '0 : acc_lim_q - age;
          if (!timer_valid_o || left < timer_left_o) timer_left_o = left;
          timer_valid_o = 1'b1;
        end
      end
    end
  end
`endif
  assign detect = sil_exp | acc_exp;

  // ---- the CM and the MSI to send ----
  logic [CnW-1:0] low_live, low_msi;
  logic           any_live;

  // In simulation the loops run only while a CN is fenced or an MSI pending, nearly never (with
  // none fenced, CN 0 is the lowest live one); in synthesis their tests are constant true.
`ifdef SYNTHESIS
  localparam bit Sim = 1'b0;
`else
  localparam bit Sim = 1'b1;
`endif

  always_comb begin
    any_live = 1'b1;
    low_live = '0;
    low_msi  = '0;
    if (!Sim || fenced_q != '0) begin
      any_live = 1'b0;
      for (int i = NumCn - 1; i >= 0; i--) begin
        if (!fenced_q[i]) begin
          any_live = 1'b1;
          low_live = CnW'(i);
        end
      end
    end
    if (!Sim || msi_q != '0)
      for (int i = NumCn - 1; i >= 0; i--)
        if (msi_q[i]) low_msi = CnW'(i);
  end

  assign msi_cm_o      = (cm_named_q && !fenced_q[cm_cn_q]) ? cm_cn_q : low_live;
  assign msi_subject_o = low_msi;
  assign msi_valid_o   = |msi_q & any_live;

  // ---- registers ----
  logic [NumCn-1:0] wbits;
  logic             wbits_ok;

  assign wbits    = csr_wdata_i[NumCn-1:0];
  assign wbits_ok = (NumCn == 32) || (csr_wdata_i >> NumCn) == '0;

  always_comb begin
    viral_d     = viral_q;
    fenced_d    = fenced_q;
    armed_d     = armed_q;
    restart_d   = '0;
    msi_d       = msi_q;
    det_acc_d   = det_acc_q;
    sil_lim_d   = sil_lim_q;
    acc_lim_d   = acc_lim_q;
    cm_named_d  = cm_named_q;
    cm_cn_d     = cm_cn_q;
    csr_hit_o   = 1'b1;
    csr_err_o   = 1'b0;
    csr_rdata_o = '0;

    if (msi_ack_i) msi_d[msi_ack_subject_i] = 1'b0;
    if (start_i) armed_d = ~fenced_q;

    if (csr_valid_i) begin
      if (csr_addr_i == AddrViral) begin
        if (!csr_write_i)   csr_rdata_o = 32'(viral_q);
        else if (!wbits_ok) csr_err_o   = 1'b1;
        else                viral_d     = viral_q & ~wbits;
      end else if (csr_addr_i == AddrFenced) begin
        if (csr_write_i) csr_err_o   = 1'b1;
        else             csr_rdata_o = 32'(fenced_q);
      end else if (csr_addr_i == AddrReadmit) begin
        if (!csr_write_i || !wbits_ok || (wbits & ~(fenced_q & ~viral_q)) != '0) begin
          csr_err_o = 1'b1;
        end else begin
          fenced_d  = fenced_q & ~wbits;
          armed_d   = armed_q | wbits;
          restart_d = wbits;
        end
      end else if (csr_addr_i == AddrCm) begin
        if (!csr_write_i) begin
          csr_rdata_o = (32'(cm_named_q) << csr_pkg::SW_CM_NAMED_LSB) | (32'(any_live) << csr_pkg::SW_CM_EXISTS_LSB) |
                        (32'(msi_cm_o) << csr_pkg::SW_CM_NOW_LSB) | (32'(cm_cn_q) << csr_pkg::SW_CM_CN_LSB);
        end else if ((csr_wdata_i & ~(csr_pkg::SW_CM_NAMED_MASK | csr_pkg::SW_CM_CN_MASK)) != '0 ||
                     (csr_wdata_i[csr_pkg::SW_CM_NAMED_LSB] &&
                      csr_wdata_i[csr_pkg::SW_CM_CN_LSB +: csr_pkg::SW_CM_CN_W] >= 8'(NumCn))) begin
          csr_err_o = 1'b1;
        end else begin
          cm_named_d = csr_wdata_i[csr_pkg::SW_CM_NAMED_LSB];
          cm_cn_d    = csr_wdata_i[csr_pkg::SW_CM_NAMED_LSB] ? csr_wdata_i[csr_pkg::SW_CM_CN_LSB +: CnW] : '0;
        end
      end else if (csr_addr_i == AddrSilence || csr_addr_i == AddrAccept) begin
        if (!csr_write_i)                csr_rdata_o = (csr_addr_i == AddrSilence) ? sil_lim_q : acc_lim_q;
        else if (csr_wdata_i[31])        csr_err_o   = 1'b1;
        else if (csr_addr_i == AddrSilence) sil_lim_d = csr_wdata_i;
        else                             acc_lim_d   = csr_wdata_i;
      end else if (csr_addr_i == AddrMsiSent || csr_addr_i == AddrDetAcc) begin
        if (csr_write_i)                 csr_err_o   = 1'b1;
        else if (csr_addr_i == AddrMsiSent) csr_rdata_o = msi_sent_q;
        else                             csr_rdata_o = 32'(det_acc_q);
      end else if (csr_addr_i >= AddrDetTime && csr_addr_i < AddrDetTime + AddrW'(NumCn)) begin
        if (csr_write_i) csr_err_o   = 1'b1;
        else             csr_rdata_o = det_time_q[CnW'(csr_addr_i - AddrDetTime)];
      end else begin
        csr_hit_o = 1'b0;
      end
    end else begin
      csr_hit_o = 1'b0;
    end

    // Detection last: it wins over a re-admission in the same cycle (which needs the CN fenced).
    // As whole vectors under one test of any detection (nearly never): the Verilated model tested
    // every CN's bit and wrote five bits of each at every edge, about 350 host instructions at 16
    // CNs.
    if (detect != '0) begin
      viral_d   = viral_d | detect;
      fenced_d  = fenced_d | detect;
      armed_d   = armed_d & ~detect;
      msi_d     = msi_d | detect;
      det_acc_d = (det_acc_d & ~detect) | (acc_exp & detect);
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      viral_q    <= '0;
      fenced_q   <= '0;
      armed_q    <= '0;
      restart_q  <= '0;
      msi_q      <= '0;
      det_acc_q  <= '0;
      sil_lim_q  <= 32'(SilenceReset);
      acc_lim_q  <= 32'(AcceptReset);
      cm_named_q <= 1'b0;
      cm_cn_q    <= '0;
      msi_sent_q <= '0;
    end else begin
      viral_q    <= viral_d;
      fenced_q   <= fenced_d;
      armed_q    <= armed_d;
      restart_q  <= restart_d;
      msi_q      <= msi_d;
      det_acc_q  <= det_acc_d;
      sil_lim_q  <= sil_lim_d;
      acc_lim_q  <= acc_lim_d;
      cm_named_q <= cm_named_d;
      cm_cn_q    <= cm_cn_d;
      msi_sent_q <= msi_sent_q + {31'd0, msi_ack_i};
    end
  end

  // Timestamps: the last activity and the last progress of every CN, and detection times. A CN
  // (re)started now counts its silence from now.
`ifdef SYNTHESIS
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < NumCn; i++) begin
      if (!rst_ni) begin
        last_act_q[i]  <= '0;
        last_prog_q[i] <= '0;
        det_time_q[i]  <= '0;
        wait_q[i]      <= 1'b0;
      end else begin
        if (act_i[i] || (armed_d[i] && !armed_q[i])) last_act_q[i] <= now_i;
        last_prog_q[i] <= sent_i[i] ? now_i : prog_base[i];
        wait_q[i]      <= wait_i[i];
        if (detect[i]) det_time_q[i] <= now_i;
      end
    end
  end
`else
  // Simulation form: each loop runs only in a cycle with something to record. last_prog_q is
  // written when a message is sent and when a wait begins, the only values the accept age reads
  // (the synthesis form also writes it while no wait is on, where it is never read). The three
  // arrays of stamps are written with blocking assignments, as sw_ports writes its ports' state
  // (its header says why it is the same machine): no other clocked block reads them, only this
  // module's combinational blocks, and this process reads last_act_q after writing it only where
  // the two agree (a CN that acted has age 0 either way). Written non-blocking, each element had a
  // flag the Verilated model cleared and tested at every edge (48 at 16 + 16).
  logic [NumCn-1:0] act_now, prog_now;

  assign act_now  = act_i | (armed_d & ~armed_q);
  assign prog_now = sent_i | (wait_i & ~wait_q);

  // verilator lint_off BLKSEQ
  always_ff @(posedge clk_i) begin : p_stamps
    logic           found;
    logic [31:0]    old_age, cand_age;
    logic [CnW-1:0] pick;
    if (!rst_ni) begin
      for (int i = 0; i < NumCn; i++) begin
        last_act_q[i]  = '0;
        last_prog_q[i] = '0;
        det_time_q[i]  = '0;
      end
      wait_q    <= '0;
      sil_old_q <= '0;
    end else begin
      wait_q <= wait_i;
      if (act_now != '0) begin
        for (int i = 0; i < NumCn; i++)
          if (act_now[i]) last_act_q[i] = now_i;
      end
      if (prog_now != '0) begin
        for (int i = 0; i < NumCn; i++)
          if (prog_now[i]) last_prog_q[i] = now_i;
      end
      if (detect != '0) begin
        for (int i = 0; i < NumCn; i++)
          if (detect[i]) det_time_q[i] = now_i;
      end
      // The armed CN silent longest after this edge: unchanged unless it acted, the armed set or
      // the limit changed (another CN's activity only makes that one younger).
      if (armed_d != armed_q || act_now[sil_old_q] || sil_lim_d != sil_lim_q) begin
        found   = 1'b0;
        old_age = '0;
        pick    = '0;
        for (int i = 0; i < NumCn; i++) begin
          cand_age = act_now[i] ? '0 : now_i - last_act_q[i];
          if (armed_d[i] && (!found || cand_age > old_age)) begin
            found   = 1'b1;
            old_age = cand_age;
            pick    = CnW'(i);
          end
        end
        sil_old_q <= pick;
      end
    end
  end
  // verilator lint_on BLKSEQ
`endif

  assign fenced_o  = fenced_q;
  assign restart_o = restart_q;
  assign idle_o    = ~msi_valid_o & ~|restart_q & ~|detect;

  // An MSI leaves only when one is pending about its subject.
  `ASSERT(msi_ack_pending, !(msi_ack_i && !msi_q[msi_ack_subject_i]))

endmodule
`default_nettype wire
