// Yosys techmap for wide $shiftx / $shift cells with a narrow result: a word picked from a wide
// vector by an index, e.g. `cnt_q[idx*32 +: 32]` over all of sw_perf's counters (11 264 bits at
// 4 + 4 ports). constraints/synth.ys.tmpl maps them with this file before `synth`'s generic
// techmap, which builds a full-width log shifter (15 stages of 11 264 bits) in an always block and
// runs `proc` and `opt_muxtree` on it: more than 10 CPU minutes for that one cell in Yosys 0.23.
// Here the shifter is built from the most significant shift bit down, and each stage is only as
// wide as the bits the result can still reach (Y_WIDTH + 2^k - 1 after stage k): the same
// multiplexers the generic mapping leaves once unused bits are removed, built directly as one
// $mux per stage. Cells that are narrow, signed, or whose result is not narrow keep the generic
// mapping (_TECHMAP_FAIL_), so small blocks map exactly as before.
//
// Semantics as Yosys' $shiftx / $shift: Y[i] = A[i + B], B unsigned or signed (a part-select
// index `v[i*32 +: 32]` gives a signed B); result bits from outside A are undefined (x) for $shiftx
// and 0 for $shift (A unsigned only; $shift with a signed B keeps the generic mapping).
// Checked against the generic mapping with a SAT miter (unsigned and signed B, $shift and $shiftx;
// see docs/architecture.md, section 12).

(* techmap_celltype = "$shiftx $shift" *)
module _diktamo_narrow_shift (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH  = 1;
  parameter B_WIDTH  = 1;
  parameter Y_WIDTH  = 1;
  parameter _TECHMAP_CELLTYPE_ = "";

  (* force_downto *)
  input  [A_WIDTH-1:0] A;
  (* force_downto *)
  input  [B_WIDTH-1:0] B;
  (* force_downto *)
  output [Y_WIDTH-1:0] Y;

  localparam SHIFTX = _TECHMAP_CELLTYPE_ == "$shiftx";
  // Wide (at least 1024 bits in) and narrow (at most a quarter of them out) only.
  wire _TECHMAP_FAIL_ = (!SHIFTX && (A_SIGNED || B_SIGNED)) || A_WIDTH < 1024 || Y_WIDTH * 4 > A_WIDTH ||
                        B_WIDTH < (B_SIGNED ? 2 : 1);

  localparam FILL = SHIFTX ? 1'bx : 1'b0;
  // Magnitude bits of B (the sign bit excluded when signed).
  localparam MW = B_SIGNED ? B_WIDTH - 1 : B_WIDTH;
  // Shift bits that can move a bit of A into the result; a higher magnitude bit set gives FILL.
  localparam BB = ($clog2(A_WIDTH) < MW) ? $clog2(A_WIDTH) : MW;
  // Stage k (after the shift bits BB-1 .. k) holds Y_WIDTH + 2^k - 1 bits at offset
  // k * (Y_WIDTH - 1) + 2^k - 1 of `stage`; stage BB is A padded with FILL.
  localparam TOP_W = Y_WIDTH + (1 << BB) - 1;
  localparam ALL_W = (BB + 1) * (Y_WIDTH - 1) + (1 << (BB + 1)) - 1;

  (* force_downto *)
  wire [ALL_W-1:0] stage;
  (* force_downto *)
  wire [Y_WIDTH-1:0] y_pos;
  wire over;

  generate
    if (TOP_W > A_WIDTH) begin : g_pad
      assign stage[BB * (Y_WIDTH - 1) + (1 << BB) - 1 +: TOP_W] = {{(TOP_W - A_WIDTH){FILL}}, A};
    end else begin : g_nopad
      assign stage[BB * (Y_WIDTH - 1) + (1 << BB) - 1 +: TOP_W] = A[TOP_W-1:0];
    end
    genvar k;
    for (k = 0; k < BB; k = k + 1) begin : g_stage
      localparam W    = Y_WIDTH + (1 << k) - 1;
      localparam OFF  = k * (Y_WIDTH - 1) + (1 << k) - 1;
      localparam UP   = (k + 1) * (Y_WIDTH - 1) + (1 << (k + 1)) - 1;
      assign stage[OFF +: W] = B[k] ? stage[UP + (1 << k) +: W] : stage[UP +: W];
    end
    assign y_pos = stage[Y_WIDTH-1:0];
    if (MW > BB) begin : g_over
      assign over = |B[MW-1:BB];
    end else begin : g_in_range
      assign over = 1'b0;
    end

    if (!B_SIGNED) begin : g_unsigned
      assign Y = over ? {Y_WIDTH{FILL}} : y_pos;
    end else begin : g_signed
      // Negative B: only B > -Y_WIDTH reaches A (Y[i] = A[i + B] for i >= -B). With L bits of
      // offset, B = -2^L + r when the sign bit and bits MW-1 .. L are all ones; then Y is the
      // vector {A[Y_WIDTH-2:0], 2^L x FILL} shifted right by r.
      localparam L  = (Y_WIDTH > 1) ? (($clog2(Y_WIDTH) < MW) ? $clog2(Y_WIDTH) : MW) : 0;
      localparam NV = Y_WIDTH + (1 << L) - 1;
      (* force_downto *)
      wire [NV-1:0] v;
      (* force_downto *)
      wire [NV-1:0] v_shifted;
      wire neg_in;
      if (Y_WIDTH > 1) begin : g_v
        assign v = {A[Y_WIDTH-2:0], {(1 << L){FILL}}};
      end else begin : g_v1
        assign v = {(1 << L){FILL}};
      end
      if (L > 0) begin : g_r
        assign v_shifted = v >> B[L-1:0];
      end else begin : g_r0
        assign v_shifted = v;
      end
      if (MW > L) begin : g_neg_in
        assign neg_in = &B[MW-1:L];
      end else begin : g_neg_all
        assign neg_in = 1'b1;
      end
      assign Y = B[B_WIDTH-1] ? (neg_in ? v_shifted[Y_WIDTH-1:0] : {Y_WIDTH{FILL}})
                              : (over ? {Y_WIDTH{FILL}} : y_pos);
    end
  endgenerate
endmodule
