`default_nettype none
// iSLIP separable allocator (McKeown, "The iSLIP scheduling algorithm for input-queued switches",
// IEEE/ACM ToN 7(2), 1999) for a switch with virtual output queues. Each cycle every input
// presents the outputs it has a message for (req_i); the allocator returns a matching: every input
// gets at most one output and every output at most one input.
//
// Each iteration runs request, grant and accept among the ports still unmatched:
//   request: unmatched input i requests every unmatched output o with req_i[o*NumIn + i];
//   grant:   each output grants the first requesting input at or after its grant pointer,
//            wrapping around;
//   accept:  each input accepts the first granting output at or after its accept pointer.
// The pointers move only for matches of the first iteration, and only when en_i is high: the
// accepting input's accept pointer to one past the accepted output, the granting output's grant
// pointer to one past the accepting input. A grant that is not accepted moves nothing, so an
// output keeps granting the same input until it is served. This keeps the output pointers apart
// under heavy load: from reset under full requests the matching grows by one pair per cycle
// from Iters pairs, and once perfect it stays perfect every cycle (checked by the tests).
// Later iterations only fill in ports left unmatched; each adds at least one match while any
// unmatched input requests an unmatched output, so Iters >= min(NumIn, NumOut) gives a maximal
// matching (asserted).
//
// Starvation: a request that stays up until served, among requests that all do so, is matched
// within NumOut * NumIn * (NumIn + 1) / 2 enabled cycles (proof in tb/test_islip_alloc.c).
// Requests that drop unserved void the bound, and that includes masking requests with "the
// output can take a message now": an output whose availability toggles every other cycle can be
// starved (shown in the tests). A switch that needs the bound must keep such requests up, or add
// its own aging.
//
// The matching is combinational from req_i and the pointers. Each round-robin pick is the lowest
// set bit of the requests at or after the pointer, else of all requests, as in rr_arb, with
// prio_enc's x & -x written in line: two prio_enc instances per pick would also bring their index
// loops, unused here but kept by Verilator for tracing, which tripled the C++ of the test model
// (300 000 lines instead of 110 000). The pointers are stored as indices and decoded into
// thermometer masks, (NumIn + NumOut) * log2 flops instead of 2 * NumIn * NumOut.
//
// Requests come column-major (a column is one output's view), the layout the switch builds them
// in (per output, from the holders of its queues and its credits) and the one the grant step reads,
// so no request matrix is ever transposed. The accept step reads grants per row. In hardware the
// transpose of the grants is wiring, and synthesis (SYNTHESIS defined) builds it so; in
// simulation it is NumIn * NumOut single-bit moves per iteration, the bulk of the allocator's cost
// under Verilator, so the simulation form writes each output's grant into its row at the granted
// input's index instead (one bit per output). Both forms compute the same grants; the
// fabric_top_c4m2_synth model (Verilated with SYNTHESIS defined) and tb/test_fabric.c check that
// the whole switch behaves the same cycle for cycle either way.
module islip_alloc #(
  /// Number of input ports (>= 1).
  parameter int NumIn = 4,
  /// Number of output ports (>= 1).
  parameter int NumOut = 4,
  /// Request-grant-accept iterations per cycle (1 ..= 4).
  parameter int Iters = 1,
  /// Width in bits of an input index (derived; do not override).
  localparam int InIdxW = (NumIn > 1) ? $clog2(NumIn) : 1,
  /// Width in bits of an output index (derived; do not override).
  localparam int OutIdxW = (NumOut > 1) ? $clog2(NumOut) : 1
) (
  /// Clock.
  input  wire logic                      clk_i,
  /// Synchronous active-low reset: every grant and accept pointer back to port 0.
  input  wire logic                      rst_ni,
  /// Requests, column-major: bit o*NumIn + i set when input i has a message for output o that
  /// output o can take this cycle.
  input  wire logic [NumOut*NumIn-1:0]   req_i,
  /// The matching of this cycle is used: the pointers advance. When low the matching is still
  /// computed but nothing changes (the switch stalls).
  input  wire logic                      en_i,
  /// The matching, row-major: bit i*NumOut + o set when input i sends to output o.
  /// At most one bit per row and per column, only where requested.
  output logic      [NumIn*NumOut-1:0]   match_o,
  /// Input i is matched (bit i).
  output logic      [NumIn-1:0]          in_match_valid_o,
  /// Output matched to input i (bits i*OutIdxW +: OutIdxW; 0 when unmatched).
  output logic      [NumIn*OutIdxW-1:0]  in_match_idx_o,
  /// Output o is matched (bit o).
  output logic      [NumOut-1:0]         out_match_valid_o,
  /// Input matched to output o (bits o*InIdxW +: InIdxW; 0 when unmatched).
  output logic      [NumOut*InIdxW-1:0]  out_match_idx_o
);
`include "assert.svh"
`include "groups.svh"

  if (NumIn < 1) begin : g_bad_num_in
    $error("islip_alloc: NumIn must be >= 1");
  end
  if (NumOut < 1) begin : g_bad_num_out
    $error("islip_alloc: NumOut must be >= 1");
  end
  if (Iters < 1 || Iters > 4) begin : g_bad_iters
    $error("islip_alloc: Iters must be in 1..4");
  end

  localparam int NumReq = NumIn * NumOut;
  // Iters for the generate loop, kept >= 1 so that an illegal Iters reaches its $error above
  // instead of failing elaboration first.
  localparam int NumIters = (Iters < 1) ? 1 : Iters;

  // Matrices are kept in two layouts: row-major (bit i*NumOut + o: a row is one input's view) and
  // column-major (bit o*NumIn + i, names ending in _t, as req_i: a column is one output's view).
  // Grants are picked per column and accepts per row, so each iteration turns its grants into
  // rows once (see the header); everything else is whole-vector or per-row/column slice logic.

  // ---- Pointers and their thermometer masks ----
  // gptr: per output, the input it grants first; aptr: per input, the output it accepts first.
  // A mask has the bits at and after its pointer set.
  logic [NumOut*InIdxW-1:0] gptr_q, gptr_d;
  logic [NumIn*OutIdxW-1:0] aptr_q, aptr_d;

  // One-hot to index: bit b of the index is the OR of the one-hot bits whose position has bit b
  // set (a constant mask per b), as in prio_enc but with one reduction per index bit.
  function automatic logic [OutIdxW*NumOut-1:0] out_bit_masks();
    out_bit_masks = '0;
    for (int b = 0; b < OutIdxW; b++) begin
      for (int o = 0; o < NumOut; o++) out_bit_masks[b*NumOut + o] = ((o >> b) & 1) == 1;
    end
  endfunction
  function automatic logic [InIdxW*NumIn-1:0] in_bit_masks();
    in_bit_masks = '0;
    for (int b = 0; b < InIdxW; b++) begin
      for (int i = 0; i < NumIn; i++) in_bit_masks[b*NumIn + i] = ((i >> b) & 1) == 1;
    end
  endfunction
  localparam logic [OutIdxW*NumOut-1:0] OutBitMasks = out_bit_masks();
  localparam logic [InIdxW*NumIn-1:0]   InBitMasks  = in_bit_masks();

  // ---- Simulation form ----
  // The same iterations over one word per output (its requests among the inputs) and one per input
  // (the grants it got), each loop skipping the ports with nothing to do: an output without a
  // request costs a test, an allocator without any request one test in all. The matching is kept as
  // indices and valid bits, and match_o is built from them. The synthesis form below works on the
  // whole matrices, as the hardware does; both give the same matching (the fabric_top_c4m2_synth
  // model, Verilated with SYNTHESIS defined, and tb/test_fabric.c check it cycle for cycle, and
  // tb/test_islip_alloc.c checks this form against the reference model).
`ifndef SYNTHESIS
  // The loops over ports visit them in groups of 8 and skip a group with nothing to do (groups.svh,
  // as sw_ports does): at light load one or two ports of a 32-port switch are matched in a cycle.
  `SIM_GROUPS(gi_any, GI, NGI, NumIn)
  `SIM_GROUPS(go_any, GO, NGO, NumOut)

  logic [NumOut-1:0]  gnt_row [NumIn];  // this iteration's grants to input i (bit o)
  logic [NumIn-1:0]   in_free, in_first;
  logic [NumOut-1:0]  out_free, out_first;
  logic [InIdxW-1:0]  omi [NumOut];     // input matched to output o
  logic [OutIdxW-1:0] imi [NumIn];      // output matched to input i
  logic               progress_bad;     // an iteration with a request among free ports added nothing

  always_comb begin
    logic [NumIn-1:0]   r, hi, pick;
    logic [NumOut-1:0]  g, ghi, acc;
    logic [InIdxW-1:0]  gi;
    logic [OutIdxW-1:0] ai;
    logic               asked, added, live;
    logic [NumOut-1:0]  rq;       // outputs with a request
    logic [NumIn-1:0]   gin;      // inputs granted this iteration
    in_free      = '1;
    out_free     = '1;
    in_first     = '0;
    out_first    = '0;
    progress_bad = 1'b0;
    r = '0; hi = '0; pick = '0; g = '0; ghi = '0; acc = '0; gi = '0; ai = '0; asked = 1'b0; added = 1'b0;
    live = 1'b1;
    rq   = '0;
    gin  = '0;
    for (int i = 0; i < NumIn; i++) begin
      gnt_row[i] = '0;
      imi[i]     = '0;
    end
    for (int o = 0; o < NumOut; o++) omi[o] = '0;
    // An iteration that matched nothing changed nothing (no grant was made: a granted input always
    // accepts one), so the ones after it would match nothing either: they are not run.
    if (req_i != '0) begin
      for (int o = 0; o < NumOut; o++) rq[o] = req_i[o*NumIn +: NumIn] != '0;
      for (int k = 0; k < NumIters; k++) if (live) begin
        asked = 1'b0;
        added = 1'b0;
        gin   = '0;
        // Grant: each free output picks the first free requesting input at or after its pointer.
        for (int og = 0; og < NGO; og++) if (go_any(rq & out_free, og))
        for (int o = og * GO; o < og * GO + GO && o < NumOut; o++) begin
          r = req_i[o*NumIn +: NumIn] & in_free;
          if (out_free[o] && r != '0) begin
            asked = 1'b1;
            hi    = r & ({NumIn{1'b1}} << gptr_q[o*InIdxW +: InIdxW]);
            pick  = (hi != '0) ? (hi & (~hi + NumIn'(1))) : (r & (~r + NumIn'(1)));
            for (int b = 0; b < InIdxW; b++) gi[b] = |(pick & InBitMasks[b*NumIn +: NumIn]);
            gnt_row[gi][o] = 1'b1;
            gin[gi]        = 1'b1;
          end
        end
        // Accept: each input with a grant picks the first granting output at or after its pointer.
        for (int ig = 0; ig < NGI; ig++) if (gi_any(gin, ig))
        for (int i = ig * GI; i < ig * GI + GI && i < NumIn; i++) begin
          g = gnt_row[i];
          if (g != '0) begin
            ghi = g & ({NumOut{1'b1}} << aptr_q[i*OutIdxW +: OutIdxW]);
            acc = (ghi != '0) ? (ghi & (~ghi + NumOut'(1))) : (g & (~g + NumOut'(1)));
            for (int b = 0; b < OutIdxW; b++) ai[b] = |(acc & OutBitMasks[b*NumOut +: NumOut]);
            in_free[i]   = 1'b0;
            out_free[ai] = 1'b0;
            imi[i]       = ai;
            omi[ai]      = InIdxW'(i);
            added        = 1'b1;
            if (k == 0) begin
              in_first[i]   = 1'b1;
              out_first[ai] = 1'b1;
            end
            gnt_row[i] = '0;
          end
        end
        progress_bad = progress_bad | (asked & ~added);
        live         = added;
      end
    end
  end

  assign in_match_valid_o  = ~in_free;
  assign out_match_valid_o = ~out_free;

  always_comb begin
    match_o        = '0;
    in_match_idx_o = '0;
    if (in_free != '1)
      for (int ig = 0; ig < NGI; ig++) if (gi_any(~in_free, ig))
      for (int i = ig * GI; i < ig * GI + GI && i < NumIn; i++)
        if (!in_free[i]) begin
          in_match_idx_o[i*OutIdxW +: OutIdxW] = imi[i];
          match_o[i*NumOut + 32'(imi[i])]      = 1'b1;
        end
  end

  always_comb begin
    out_match_idx_o = '0;
    if (out_free != '1)
      for (int og = 0; og < NGO; og++) if (go_any(~out_free, og))
      for (int o = og * GO; o < og * GO + GO && o < NumOut; o++)
        if (!out_free[o]) out_match_idx_o[o*InIdxW +: InIdxW] = omi[o];
  end

  // Pointer update: first-iteration matches only, and only when the matching is used.
  always_comb begin
    gptr_d = gptr_q;
    aptr_d = aptr_q;
    if (en_i && out_first != '0) begin
      for (int og = 0; og < NGO; og++) if (go_any(out_first, og))
      for (int o = og * GO; o < og * GO + GO && o < NumOut; o++)
        if (out_first[o])
          gptr_d[o*InIdxW +: InIdxW] = (omi[o] == InIdxW'(NumIn - 1)) ? '0 : omi[o] + InIdxW'(1);
      for (int ig = 0; ig < NGI; ig++) if (gi_any(in_first, ig))
      for (int i = ig * GI; i < ig * GI + GI && i < NumIn; i++)
        if (in_first[i])
          aptr_d[i*OutIdxW +: OutIdxW] = (imi[i] == OutIdxW'(NumOut - 1)) ? '0 : imi[i] + OutIdxW'(1);
    end
  end

  // The matching column-major, for the checks below.
  logic [NumReq-1:0] match_t;
  always_comb begin
    match_t = '0;
    if (out_free != '1)
      for (int og = 0; og < NGO; og++) if (go_any(~out_free, og))
      for (int o = og * GO; o < og * GO + GO && o < NumOut; o++)
        if (!out_free[o]) match_t[o*NumIn + 32'(omi[o])] = 1'b1;
  end

  // While some free input requests a free output, an iteration adds a match: that output grants
  // someone, and an input with a grant always accepts one.
  `ASSERT(iteration_makes_progress, !progress_bad)
`else
  logic [NumReq-1:0]        gmask_t; // column-major: output o's mask over the inputs
  logic [NumReq-1:0]        amask;   // row-major: input i's mask over the outputs

  // The masks, the iterations, the indices and the pointer update each skip their work when there
  // is nothing to do (no request, no match): in simulation an idle allocator costs a few tests.
  always_comb begin
    gmask_t = '0;
    amask   = '0;
    if (req_i != '0) begin
      for (int o = 0; o < NumOut; o++) gmask_t[o*NumIn +: NumIn] = {NumIn{1'b1}} << gptr_q[o*InIdxW +: InIdxW];
      for (int i = 0; i < NumIn; i++) amask[i*NumOut +: NumOut] = {NumOut{1'b1}} << aptr_q[i*OutIdxW +: OutIdxW];
    end
  end

  logic [NumReq-1:0] req_t; // req_i (column-major)

  assign req_t = req_i;

  // ---- Iterations ----
  // Iteration k sees the ports left free by iteration k-1 and adds its accepts to the matching.
  // Each stage has its own signals (not slices of one vector) and each always_comb writes only its
  // step's signals, so no variable feeds itself and Verilator sees no combinational loop.
  for (genvar k = 0; k < NumIters; k++) begin : g_iter
    logic [NumIn-1:0]  in_free;        // input unmatched before this iteration
    logic [NumOut-1:0] out_free;       // output unmatched before this iteration
    logic [NumReq-1:0] match_before;   // matching before this iteration, row-major
    logic [NumReq-1:0] match_t_before; // the same, column-major
    logic [NumReq-1:0] out_free_t;     // out_free[o] over column o
    logic [NumReq-1:0] rq_t;           // requests between free ports, column-major
    logic [NumReq-1:0] gnt_t;          // grants, column-major: at most one per column
    logic [NumReq-1:0] gnt;            // the same, row-major
    logic [NumReq-1:0] acc;            // accepts, row-major: at most one per row
    logic [NumReq-1:0] acc_t;          // the same, column-major
    logic [NumIn-1:0]  in_acc;         // input accepted an output
    logic [NumOut-1:0] out_acc;        // output's grant was accepted
    logic [NumIn-1:0]  in_free_next;   // input unmatched after this iteration
    logic [NumOut-1:0] out_free_next;  // output unmatched after this iteration
    logic [NumReq-1:0] match;          // matching after this iteration, row-major
    logic [NumReq-1:0] match_t;        // the same, column-major

    if (k == 0) begin : g_first
      assign in_free        = '1;
      assign out_free       = '1;
      assign match_before   = '0;
      assign match_t_before = '0;
    end else begin : g_later
      assign in_free        = g_iter[k-1].in_free_next;
      assign out_free       = g_iter[k-1].out_free_next;
      assign match_before   = g_iter[k-1].match;
      assign match_t_before = g_iter[k-1].match_t;
    end

    always_comb begin
      for (int o = 0; o < NumOut; o++) out_free_t[o*NumIn +: NumIn] = {NumIn{out_free[o]}};
    end
    assign rq_t = req_t & {NumOut{in_free}} & out_free_t;

    // Grant: each output picks the first requesting input at or after its pointer, wrapping.
    always_comb begin
      logic [NumIn-1:0] req, hi;
      gnt_t = '0;
      req   = '0;
      hi    = '0;
      if (rq_t != '0) begin
        for (int o = 0; o < NumOut; o++) begin
          req = rq_t[o*NumIn +: NumIn];
          hi  = req & gmask_t[o*NumIn +: NumIn];
          gnt_t[o*NumIn +: NumIn] = (hi != '0) ? (hi & (~hi + NumIn'(1))) : (req & (~req + NumIn'(1)));
        end
      end
    end

`ifdef SYNTHESIS
    always_comb begin
      for (int i = 0; i < NumIn; i++) begin
        for (int o = 0; o < NumOut; o++) gnt[i*NumOut + o] = gnt_t[o*NumIn + i];
      end
    end
`else
    // Each granting output sets its bit in the row of the input it granted (at most one per column).
    always_comb begin
      logic [InIdxW-1:0] gi;
      gnt = '0;
      gi  = '0;
      if (gnt_t != '0) begin
        for (int o = 0; o < NumOut; o++) begin
          if (gnt_t[o*NumIn +: NumIn] != '0) begin
            for (int b = 0; b < InIdxW; b++) gi[b] = |(gnt_t[o*NumIn +: NumIn] & InBitMasks[b*NumIn +: NumIn]);
            gnt[32'(gi)*NumOut + o] = 1'b1;
          end
        end
      end
    end
`endif

    // Accept: each input picks the first granting output at or after its pointer, wrapping; an
    // output is accepted when some row accepts it, and its column of acc_t is then its grant.
    always_comb begin
      logic [NumOut-1:0] req, hi;
      acc     = '0;
      acc_t   = '0;
      in_acc  = '0;
      out_acc = '0;
      req     = '0;
      hi      = '0;
      if (gnt != '0) begin
        for (int i = 0; i < NumIn; i++) begin
          req = gnt[i*NumOut +: NumOut];
          hi  = req & amask[i*NumOut +: NumOut];
          acc[i*NumOut +: NumOut] = (hi != '0) ? (hi & (~hi + NumOut'(1))) : (req & (~req + NumOut'(1)));
          in_acc[i] = req != '0;
          out_acc   = out_acc | acc[i*NumOut +: NumOut];
        end
        for (int o = 0; o < NumOut; o++)
          acc_t[o*NumIn +: NumIn] = gnt_t[o*NumIn +: NumIn] & {NumIn{out_acc[o]}};
      end
    end

    assign in_free_next  = in_free & ~in_acc;
    assign out_free_next = out_free & ~out_acc;
    assign match         = match_before | acc;
    assign match_t       = match_t_before | acc_t;

    // While some free input requests a free output, the iteration adds a match: that output
    // grants someone, and an input with a grant always accepts one.
    `ASSERT(iteration_makes_progress, rq_t == '0 || acc != '0)
  end

  // ---- The matching and its indices ----
  // Later iterations see only free ports, so the last stage's OR of accepts is the matching.
  logic [NumReq-1:0] match_t; // column-major

  assign match_o           = g_iter[NumIters-1].match;
  assign match_t           = g_iter[NumIters-1].match_t;
  assign in_match_valid_o  = ~g_iter[NumIters-1].in_free_next;
  assign out_match_valid_o = ~g_iter[NumIters-1].out_free_next;

  always_comb begin
    in_match_idx_o = '0;
    if (match_o != '0) begin
      for (int i = 0; i < NumIn; i++) begin
        for (int b = 0; b < OutIdxW; b++) begin
          in_match_idx_o[i*OutIdxW + b] =
              |(match_o[i*NumOut +: NumOut] & OutBitMasks[b*NumOut +: NumOut]);
        end
      end
    end
  end
  always_comb begin
    out_match_idx_o = '0;
    if (match_t != '0) begin
      for (int o = 0; o < NumOut; o++) begin
        for (int b = 0; b < InIdxW; b++) begin
          out_match_idx_o[o*InIdxW + b] =
              |(match_t[o*NumIn +: NumIn] & InBitMasks[b*NumIn +: NumIn]);
        end
      end
    end
  end

  // ---- Pointer update: first-iteration matches only, and only when the matching is used ----
  // A port matched in the first iteration keeps its partner in the final matching, so the
  // partner's index is the final one.
  always_comb begin
    gptr_d = gptr_q;
    aptr_d = aptr_q;
    if (en_i && g_iter[0].out_free_next != '1) begin
      for (int o = 0; o < NumOut; o++) begin
        if (!g_iter[0].out_free_next[o]) begin
          gptr_d[o*InIdxW +: InIdxW] =
              (out_match_idx_o[o*InIdxW +: InIdxW] == InIdxW'(NumIn - 1))
              ? '0 : out_match_idx_o[o*InIdxW +: InIdxW] + InIdxW'(1);
        end
      end
      for (int i = 0; i < NumIn; i++) begin
        if (!g_iter[0].in_free_next[i]) begin
          aptr_d[i*OutIdxW +: OutIdxW] =
              (in_match_idx_o[i*OutIdxW +: OutIdxW] == OutIdxW'(NumOut - 1))
              ? '0 : in_match_idx_o[i*OutIdxW +: OutIdxW] + OutIdxW'(1);
        end
      end
    end
  end

`endif

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      gptr_q <= '0;
      aptr_q <= '0;
    end else begin
      gptr_q <= gptr_d;
      aptr_q <= aptr_d;
    end
  end

  // ---- Checks ----
  `ASSERT(match_only_where_requested, (match_t & ~req_i) == '0)
  for (genvar i = 0; i < NumIn; i++) begin : g_chk_in
    `ASSERT(one_output_per_input, $onehot0(match_o[i*NumOut +: NumOut]))
    `ASSERT(in_valid_is_row_or, in_match_valid_o[i] == |match_o[i*NumOut +: NumOut])
    `ASSERT(in_idx_names_the_match, !in_match_valid_o[i] ||
            ((match_o[i*NumOut +: NumOut] >> in_match_idx_o[i*OutIdxW +: OutIdxW])
             & NumOut'(1)) != '0)
  end
  logic [NumReq-1:0] match_o_t; // match_o transposed, to check the column-major copy
  always_comb begin
    for (int i = 0; i < NumIn; i++) begin
      for (int o = 0; o < NumOut; o++) match_o_t[o*NumIn + i] = match_o[i*NumOut + o];
    end
  end
  `ASSERT(layouts_agree, match_t == match_o_t)
  for (genvar o = 0; o < NumOut; o++) begin : g_chk_out
    `ASSERT(one_input_per_output, $onehot0(match_t[o*NumIn +: NumIn]))
    `ASSERT(out_valid_is_column_or, out_match_valid_o[o] == |match_t[o*NumIn +: NumIn])
    `ASSERT(out_idx_names_the_match, !out_match_valid_o[o] ||
            ((match_t[o*NumIn +: NumIn] >> out_match_idx_o[o*InIdxW +: InIdxW]) & NumIn'(1)) != '0)
  end
  // Each iteration adds a match while an unmatched input requests an unmatched output, and no
  // matching has more than min(NumIn, NumOut) pairs: after that many iterations nothing is left.
  if (Iters >= NumIn || Iters >= NumOut) begin : g_chk_maximal
    logic [NumReq-1:0] left; // requests between ports both still unmatched
    always_comb begin
      for (int i = 0; i < NumIn; i++) begin
        for (int o = 0; o < NumOut; o++) begin
          left[i*NumOut + o] = req_i[o*NumIn + i] & ~in_match_valid_o[i] & ~out_match_valid_o[o];
        end
      end
    end
    `ASSERT(matching_is_maximal, left == '0)
  end

endmodule
`default_nettype wire
