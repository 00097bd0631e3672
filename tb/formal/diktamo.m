-- DIKTAMO's coherence, replication and recovery protocol, as a Murphi model checked exhaustively by
-- Rumur (make formal; scripts/formal.sh builds and runs it, docs/architecture.md section 11h says
-- what it covers and what it abstracts).
--
-- What is modelled, at the level of messages:
--   * NC compute nodes (CNs) of one core each; per line, a cache (gem5-style states, transients as
--     the CN's side of the contract in docs/architecture.md section 11c), and a TSO store buffer of
--     NS stores that commit in order from its head;
--   * NM memory nodes, each the home of the lines L with L mod NM = its index: the directory of
--     rtl/dir/dir_ctrl.sv (I / S / EM, sharer vector, stale-write vector, the line's version), one
--     transaction per line at a time, snoops (BISNP) and their answers (BIRSP), memory;
--   * DIKTAMO replication: REPL to the NR replica LUs of the line (a hash: the first NR CNs from
--     L mod NC on, the writer possibly among them), REPL_ACK, VAL with the 7-bit-style TS (the line's
--     version modulo TSMOD, compared serially), in the baseline, parallel or proactive order (ORDER);
--   * the Logging Unit of every CN (rtl/lu/lu_slots.sv's rule for when a validated word may drain:
--     no validated slot of the word that precedes it by TS, no unvalidated one not known to follow
--     it), its DRAM log (per word, the last drained record is the latest), and dumps to the MNs'
--     log stores;
--   * an unordered fabric: any message in flight may be delivered next;
--   * one CN failing at any step (fail-stop: its caches, store buffer and LU are lost; what it sent
--     is still delivered), then the recovery of DIKTAMO's Table I and Algorithm 1 as csim/sw/cm.c
--     and csim/sw/mn_recov.c run it: INTERRUPT to every live CN (pause, replica map without the
--     failed CN, the LU purges its unvalidated slots), INIT_RECOV to every MN (directory FAIL, WALK,
--     FETCH_LATEST_VERS from the LUs, then the MN log stores, RECOVER of every Owned line with the
--     words and the version found, RESUME), RECOV_END.
-- Rule names follow the directory's state x event table (rtl/dir/dir_ctrl.sv TR_*) and the
-- message names of rtl/include/messages.toml, so that a counterexample reads against the RTL.
--
-- Properties: the invariants at the end (single writer / multiple readers; every cached copy and,
-- at rest, memory hold the line's last committed store; a recovery leaves no failed holder; no TS
-- clash in an LU) and the liveness property "finished" (from every reachable state a state is
-- reachable where every live store has committed, every message is delivered, every LU has drained
-- and any recovery has ended: no deadlock, and recovery always ends).
--
-- The constants below are the configuration. scripts/formal.sh overrides them (sizes, ORDER, and
-- one MUT_* at a time for the mutations that must fail) by rewriting their lines; keep one constant
-- per line, in the form "  NAME: value;".

const
  NC: 3;        -- compute nodes
  NM: 1;        -- memory nodes
  NL: 1;        -- lines (one word each)
  NS: 2;        -- stores per core
  NR: 2;        -- replicas per line
  TSMOD: 16;    -- TS modulus (the RTL's is 128): serial order within TSMOD/2 - 1
  TS0: 13;      -- every line's version at the start (close to TSMOD, so that the TS wraps)
  NETMAX: 12;   -- messages in flight at most (more is an error, not a silent drop)
  ORDER: 2;     -- 0 DIKTAMO-baseline, 1 -parallel, 2 -proactive (without coalescing)
  FAILS: 1;     -- 1: one CN may fail at any step; 0: no failure
  OPS: 1;       -- loads and evictions each CN may do (besides the misses of its stores)
  EVICT: 1;     -- 1: those may be evictions (CLEAN_EVICT, DIRTY_EVICT, stale writes); 0: loads only
  DUMPS: 1;     -- dumps of the LUs' DRAM logs to the MN log stores (when not recovering)
  -- Mutations (each must make the check fail; scripts/formal.sh sets one at a time):
  MUT_VAL_BEFORE_ACKS: 0;        -- a store commits (sends its VALs) before all its REPL_ACKs
  MUT_LU_IGNORES_TS: 0;          -- the LU drains a validated word without looking at the TS
  MUT_DIR_ANSWERS_FOR_FAILED: 0; -- the directory takes a failed owner's missing answer as BIRSP_I
  MUT_RECOVERY_MN_FIRST: 0;      -- recovery takes the MN log stores' value before the LUs'
  -- An assumption on timing, which the protocol needs (0: dropped, and the check must fail): the
  -- MN handler searches the logs for a line only once no VAL of it is in flight. A live CN's VAL
  -- still in flight leaves its commit out of every log, and RECOVER would write an older value
  -- over the newer one memory got with the line (docs/architecture.md section 11h).
  FETCH_AFTER_VALS: 1;
  CHECK_LIVE: 1;  -- 1: check the liveness property (Rumur's check of it is slow: smaller sizes only)

type
  CN: 0..NC-1;
  MN: 0..NM-1;
  Line: 0..NL-1;
  SIdx: 0..NS-1;
  SCnt: 0..NS;
  Value: 0..NC*NS;    -- 0: the initial value; store k of CN c writes c*NS + k + 1
  TsT: 0..TSMOD-1;
  NetIdx: 0..NETMAX-1;
  NetCnt: 0..NETMAX;
  Code: 0..31;
  OpCnt: 0..OPS;
  DumpCnt: 0..DUMPS;

  MType: enum {
    RD_SHARED, RD_OWN, RD_UPGRADE, CLEAN_EVICT, DIRTY_EVICT,           -- CN -> MN (REQ, RWD)
    DATA_S, DATA_E, CMP_E, CMP,                                        -- MN -> CN (DRS, NDR)
    BISNP_INV, BISNP_DATA,                                             -- MN -> CN (BISnp)
    BIRSP_I, BIRSP_S, BIRSP_I_DATA, BIRSP_S_DATA,                      -- CN -> MN (BIRsp)
    REPL, REPL_ACK, VAL                                                -- CN <-> LU (DKREQ, DKRSP)
  };

  -- cn: the CN the message is from (REQ, RWD, BIRSP, REPL, VAL) or to (DRS, NDR, BISNP, REPL_ACK);
  -- lu: the LU (REPL, VAL: to; REPL_ACK: from); k: the store (the REPL's tag); wrif: WR_IN_FLIGHT;
  -- adm: a request taken into the directory's table before its FAIL (served during recovery).
  -- Unused fields are zero, so that equal messages are equal states.
  Msg: record
    mt: MType; cn: CN; lu: CN; line: Line; k: SIdx; v: Value; ts: TsT; wrif: boolean; adm: boolean;
  end;

  -- The CN's cache, per line. IS_D / IM_D: a read / a read for ownership awaits its answer;
  -- SM_D: an upgrade awaits CMP_E with the S copy still held; IM_U: the same after a BISNP_INV took
  -- the copy (a CMP_E is then void, a DATA_E valid); SI_A / EI_A / MI_A: an eviction awaits its CMP.
  CState: enum {C_I, C_S, C_E, C_M, C_IS_D, C_IM_D, C_SM_D, C_IM_U, C_SI_A, C_EI_A, C_MI_A};
  CLine: record st: CState; v: Value; ts: TsT; end;

  -- A store-buffer entry. sent / acked: per replica LU, REPL sent / REPL_ACK received.
  SbEnt: record line: Line; rsent: boolean; sent: array [CN] of boolean; acked: array [CN] of boolean; end;
  Core: record
    nxt: SCnt;   -- stores retired into the store buffer
    head: SCnt;  -- stores committed (the head entry is head, while head < nxt)
    sb: array [SIdx] of SbEnt;
  end;

  -- An LU slot, one per (requester CN, store): the RTL's slot (requester, tag, line, validated, TS)
  -- with its one word. fol[c][k]: the slot is known to follow slot (c, k) (it was allocated while
  -- (c, k) was validated).
  SlotSt: enum {SL_FREE, SL_REPL, SL_VAL};
  Slot: record st: SlotSt; line: Line; v: Value; ts: TsT; fol: array [CN] of array [SIdx] of boolean; end;
  Rec: record ok: boolean; v: Value; ts: TsT; end;
  Lu: record
    slot: array [CN] of array [SIdx] of Slot;
    dram: array [Line] of Rec;   -- the DRAM log: the last record of each word
  end;

  DState: enum {D_I, D_S, D_EM};
  -- The line's transaction while it waits for snoop answers (the memory steps are atomic here):
  -- T_S_RdOwn, T_S_Upg (SM_AM / SM_A), T_EM_RdS (MS_A), T_EM_RdOwn (MM_A).
  TKind: enum {T_NONE, T_S_RdOwn, T_S_Upg, T_EM_RdS, T_EM_RdOwn};
  DLine: record
    st: DState;
    vec: array [CN] of boolean;    -- sharers in S; the owner's bit alone in EM
    stale: array [CN] of boolean;  -- stale-write vector
    ver: TsT;                      -- the line's version
    mem: Value;                    -- memory
    tk: TKind; treq: CN; tawait: array [CN] of boolean; tkept: boolean;
  end;

  RecPhase: enum {RP_NONE, RP_INTR, RP_MN, RP_END, RP_DONE};
  MnPhase: enum {MP_IDLE, MP_FAILED, MP_WALKED, MP_DONE};

var
  net: array [NetIdx] of Msg;  -- the fabric: net[0 .. netn-1] in flight, kept sorted (any may go next)
  netn: NetCnt;
  cache: array [CN] of array [Line] of CLine;
  core: array [CN] of Core;
  lu: array [CN] of Lu;
  dir: array [Line] of DLine;
  mnstore: array [Line] of Rec;  -- the MN log stores: the latest dumped record of each word
  last: array [Line] of Value;   -- the oracle: the line's last committed store
  failed: boolean; fcn: CN;      -- a CN failed, and which
  rec: RecPhase;
  intr: array [CN] of boolean;   -- the CN has taken the INTERRUPT (and is paused until RECOV_END)
  mapdrop: array [CN] of boolean; -- the CN's replica map no longer has fcn
  mnph: array [MN] of MnPhase;
  owned: array [Line] of boolean; -- the walk's Owned list
  ops: array [CN] of OpCnt;      -- loads and evictions left
  dumps: DumpCnt;                -- dumps left

-- ---------------------------------------------------------------------------------------------
-- The fabric

function MtCode(t: MType): Code;
begin
  switch t
    case RD_SHARED: return 0;  case RD_OWN: return 1;  case RD_UPGRADE: return 2;
    case CLEAN_EVICT: return 3; case DIRTY_EVICT: return 4; case DATA_S: return 5;
    case DATA_E: return 6; case CMP_E: return 7; case CMP: return 8; case BISNP_INV: return 9;
    case BISNP_DATA: return 10; case BIRSP_I: return 11; case BIRSP_S: return 12;
    case BIRSP_I_DATA: return 13; case BIRSP_S_DATA: return 14; case REPL: return 15;
    case REPL_ACK: return 16; case VAL: return 17;
  endswitch;
end;

function B2i(b: boolean): Code; begin if b then return 1; else return 0; endif; end;

-- Lexicographic order of messages: the canonical order of net[].
function MsgLess(a: Msg; b: Msg): boolean;
begin
  if MtCode(a.mt) != MtCode(b.mt) then return MtCode(a.mt) < MtCode(b.mt); endif;
  if a.cn != b.cn then return a.cn < b.cn; endif;
  if a.lu != b.lu then return a.lu < b.lu; endif;
  if a.line != b.line then return a.line < b.line; endif;
  if a.k != b.k then return a.k < b.k; endif;
  if a.v != b.v then return a.v < b.v; endif;
  if a.ts != b.ts then return a.ts < b.ts; endif;
  if a.wrif != b.wrif then return B2i(a.wrif) < B2i(b.wrif); endif;
  return B2i(a.adm) < B2i(b.adm);
end;

procedure ClearMsg(var m: Msg);
begin
  m.mt := RD_SHARED; m.cn := 0; m.lu := 0; m.line := 0; m.k := 0; m.v := 0; m.ts := 0;
  m.wrif := false; m.adm := false;
end;

-- The CN a message goes to, if it goes to one.
function ToCn(m: Msg): boolean;
begin
  switch m.mt
    case DATA_S, DATA_E, CMP_E, CMP, BISNP_INV, BISNP_DATA, REPL, REPL_ACK, VAL: return true;
  else return false;
  endswitch;
end;
function DstCn(m: Msg): CN;
begin
  switch m.mt
    case REPL, VAL: return m.lu;
  else return m.cn;
  endswitch;
end;
-- The CN a message comes from, if it comes from one.
function FromCn(m: Msg): boolean;
begin
  switch m.mt
    case RD_SHARED, RD_OWN, RD_UPGRADE, CLEAN_EVICT, DIRTY_EVICT, BIRSP_I, BIRSP_S, BIRSP_I_DATA,
         BIRSP_S_DATA, REPL, VAL, REPL_ACK: return true;
  else return false;
  endswitch;
end;
function SrcCn(m: Msg): CN;
begin
  switch m.mt
    case REPL_ACK: return m.lu;
  else return m.cn;
  endswitch;
end;
function IsReq(t: MType): boolean;
begin
  switch t
    case RD_SHARED, RD_OWN, RD_UPGRADE, CLEAN_EVICT, DIRTY_EVICT: return true;
  else return false;
  endswitch;
end;

function Live(c: CN): boolean; begin return !(failed & fcn = c); end;

-- Into the fabric, in order. The switch drops what goes to a failed CN (it never answers for it).
procedure Send(m: Msg);
var i: NetCnt;
begin
  if ToCn(m) & !Live(DstCn(m)) then return; endif;
  assert netn < NETMAX "the fabric holds more than NETMAX messages: raise NETMAX";
  i := netn;
  while i > 0 & MsgLess(m, net[i-1]) do
    net[i] := net[i-1];
    i := i - 1;
  endwhile;
  net[i] := m;
  netn := netn + 1;
end;

procedure Remove(i: NetIdx);
var j: NetCnt;
begin
  j := i;
  while j + 1 < netn do
    net[j] := net[j+1];
    j := j + 1;
  endwhile;
  netn := netn - 1;
  ClearMsg(net[netn]);
end;

procedure SendMsg(t: MType; c: CN; l: Line; v: Value; ts: TsT; wrif: boolean);
var m: Msg;
begin
  ClearMsg(m);
  m.mt := t; m.cn := c; m.line := l; m.v := v; m.ts := ts; m.wrif := wrif;
  Send(m);
end;

procedure SendDk(t: MType; c: CN; r: CN; l: Line; k: SIdx; v: Value; ts: TsT);
var m: Msg;
begin
  ClearMsg(m);
  m.mt := t; m.cn := c; m.lu := r; m.line := l; m.k := k; m.v := v; m.ts := ts;
  Send(m);
end;

-- ---------------------------------------------------------------------------------------------
-- Timestamps, replica sets, the oracle's values

-- a follows b in serial-number order (docs/architecture.md section 11b).
function TsAfter(a: TsT; b: TsT): boolean;
var d: TsT;
begin
  d := (a + TSMOD - b) % TSMOD;
  return d >= 1 & d < TSMOD / 2;
end;
function TsNext(a: TsT): TsT; begin return (a + 1) % TSMOD; end;

function StoreVal(c: CN; k: SIdx): Value; begin return c * NS + k + 1; end;

function Home(l: Line): MN; begin return l % NM; end;

-- r is in line l's replica set, as CN c's map has it (csim/cn/lu_node.c lu_map_replicas: the line's
-- bucket owner and the next ones; a map that dropped the failed CN skips it).
function InSet(c: CN; r: CN; l: Line): boolean;
var n: 0..NC; cand: CN;
begin
  n := 0;
  for i: 0..NC-1 do
    cand := (l + i) % NC;
    if !(mapdrop[c] & failed & cand = fcn) & n < NR then
      if cand = r then return true; endif;
      n := n + 1;
    endif;
  endfor;
  return false;
end;

-- ---------------------------------------------------------------------------------------------
-- Compute nodes: replication engine

procedure SendRepl(c: CN; k: SIdx);
var l: Line;
begin
  l := core[c].sb[k].line;
  for r: CN do
    if InSet(c, r, l) & !core[c].sb[k].sent[r] then
      core[c].sb[k].sent[r] := true;
      SendDk(REPL, c, r, l, k, StoreVal(c, k), 0);
    endif;
  endfor;
  core[c].sb[k].rsent := true;
end;

function AllAcked(c: CN; k: SIdx): boolean;
begin
  for r: CN do
    if core[c].sb[k].sent[r] & !core[c].sb[k].acked[r] then return false; endif;
  endfor;
  return true;
end;

procedure ClearSb(var e: SbEnt);
begin
  e.line := 0; e.rsent := false;
  for r: CN do e.sent[r] := false; e.acked[r] := false; endfor;
end;

-- ---------------------------------------------------------------------------------------------
-- Logging Units

procedure FreeSlot(r: CN; c: CN; k: SIdx);
begin
  lu[r].slot[c][k].st := SL_FREE; lu[r].slot[c][k].line := 0; lu[r].slot[c][k].v := 0;
  lu[r].slot[c][k].ts := 0;
  for c2: CN do for k2: SIdx do
    lu[r].slot[c][k].fol[c2][k2] := false;
    lu[r].slot[c2][k2].fol[c][k] := false;
  endfor; endfor;
end;

-- lu_slots' drain rule: validated slot (c, k) may drain when no other slot of its word
--   is validated and precedes it (TS), or is not validated and is not known to follow it.
function Ready(r: CN; c: CN; k: SIdx): boolean;
var l: Line;
begin
  l := lu[r].slot[c][k].line;
  for c2: CN do for k2: SIdx do
    if !(c2 = c & k2 = k) & lu[r].slot[c2][k2].st != SL_FREE & lu[r].slot[c2][k2].line = l then
      if lu[r].slot[c2][k2].st = SL_VAL then
        if MUT_LU_IGNORES_TS = 0 & TsAfter(lu[r].slot[c][k].ts, lu[r].slot[c2][k2].ts) then
          return false;
        endif;
      elsif !lu[r].slot[c2][k2].fol[c][k] then
        return false;
      endif;
    endif;
  endfor; endfor;
  return true;
end;

-- FETCH_LATEST_VERS at LU r for line l: the newest validated slot of the word still buffered (BUF),
-- else its DRAM log's last record.
procedure LuSearch(r: CN; l: Line; var found: Rec; var buf: boolean);
begin
  found.ok := false; found.v := 0; found.ts := 0; buf := false;
  for c: CN do for k: SIdx do
    if lu[r].slot[c][k].st = SL_VAL & lu[r].slot[c][k].line = l then
      if !buf | TsAfter(lu[r].slot[c][k].ts, found.ts) then
        found.ok := true; found.v := lu[r].slot[c][k].v; found.ts := lu[r].slot[c][k].ts; buf := true;
      endif;
    endif;
  endfor; endfor;
  if !buf & lu[r].dram[l].ok then found := lu[r].dram[l]; endif;
end;

-- ---------------------------------------------------------------------------------------------
-- Directory

function DirFailed(c: CN; l: Line): boolean;
begin
  -- the directory of l's MN was given FAIL c (it stays failed until reset)
  return failed & fcn = c & mnph[Home(l)] != MP_IDLE;
end;

function Awaits(l: Line): boolean;
begin
  for c: CN do if dir[l].tawait[c] then return true; endif; endfor;
  return false;
end;

-- A transaction awaiting a failed owner's answer is held until the handler's RECOVER.
function Held(l: Line): boolean;
begin
  return dir[l].tk != T_NONE & (dir[l].tk = T_EM_RdS | dir[l].tk = T_EM_RdOwn)
         & failed & dir[l].tawait[fcn] & DirFailed(fcn, l);
end;

procedure SetOwner(l: Line; r: CN);
begin
  dir[l].st := D_EM;
  for c: CN do dir[l].vec[c] := (c = r); endfor;
end;

-- All snoop answers are in: the grant (EV_FINISH), the line's new entry, the transaction ends.
procedure Finish(l: Line);
var r: CN;
begin
  r := dir[l].treq;
  switch dir[l].tk
    case T_S_RdOwn, T_EM_RdOwn:
      SendMsg(DATA_E, r, l, dir[l].mem, dir[l].ver, false); SetOwner(l, r);
    case T_S_Upg:
      SendMsg(CMP_E, r, l, 0, dir[l].ver, false); SetOwner(l, r);
    case T_EM_RdS:
      if dir[l].tkept then
        SendMsg(DATA_S, r, l, dir[l].mem, dir[l].ver, false);
        dir[l].st := D_S; dir[l].vec[r] := true;
      else
        SendMsg(DATA_E, r, l, dir[l].mem, dir[l].ver, false); SetOwner(l, r);
      endif;
  endswitch;
  dir[l].tk := T_NONE; dir[l].treq := 0; dir[l].tkept := false;
  for c: CN do dir[l].tawait[c] := false; endfor;
end;

-- Snoop CN o for the transaction of line l. A CN the directory knows failed is never snooped: a
-- failed sharer counts as answered BIRSP_I (PURGED), a failed owner's transaction is held.
procedure Snoop(l: Line; o: CN; t: MType);
begin
  if DirFailed(o, l) & (dir[l].tk = T_S_RdOwn | dir[l].tk = T_S_Upg | MUT_DIR_ANSWERS_FOR_FAILED = 1) then
    return;
  endif;
  dir[l].tawait[o] := true;
  if !DirFailed(o, l) then SendMsg(t, o, l, 0, 0, false); endif;
end;

procedure StartTxn(l: Line; tk: TKind; r: CN);
begin
  dir[l].tk := tk; dir[l].treq := r; dir[l].tkept := false;
  for c: CN do dir[l].tawait[c] := false; endfor;
end;

-- ---------------------------------------------------------------------------------------------
-- Recovery: the MN handler's search (Algorithm 1) and RECOVER

-- The newest words of line l: the LUs' answers merged (serial max TS), else the MN log store's.
-- ver: the serial max of the TS of the answers found in an LU's buffer (BUF), the line's version.
procedure Fetch(l: Line; var w: Rec; var setv: boolean; var ver: TsT);
var f: Rec; b: boolean;
begin
  w.ok := false; w.v := 0; w.ts := 0; setv := false; ver := 0;
  if MUT_RECOVERY_MN_FIRST = 1 & mnstore[l].ok then
    w := mnstore[l];
  endif;
  for r: CN do
    if Live(r) then
      LuSearch(r, l, f, b);
      if f.ok & (!w.ok | TsAfter(f.ts, w.ts)) & !(MUT_RECOVERY_MN_FIRST = 1 & mnstore[l].ok) then
        w := f;
      endif;
      if f.ok & b & (!setv | TsAfter(f.ts, ver)) then setv := true; ver := f.ts; endif;
    endif;
  endfor;
  if !w.ok & mnstore[l].ok then w := mnstore[l]; endif;
end;

-- ---------------------------------------------------------------------------------------------
-- Rules: the cores

ruleset c: CN do

  -- A store retires into the store buffer (its line chosen here: every program is explored).
  -- Proactive sends its REPL set at once (proactive without coalescing: one word per line).
  ruleset l: Line do
    rule "Core_Retire"
      Live(c) & !intr[c] & core[c].nxt < NS
    ==>
    var k: SIdx;
    begin
      k := core[c].nxt;
      ClearSb(core[c].sb[k]);
      core[c].sb[k].line := l;
      core[c].nxt := core[c].nxt + 1;
      if ORDER = 2 then SendRepl(c, k); endif;
    end;
  end;

  -- The head store's coherence transaction: RD_OWN from I, RD_UPGRADE from S.
  rule "Core_ReqOwn"
    Live(c) & core[c].head < core[c].nxt
    & (cache[c][core[c].sb[core[c].head].line].st = C_I | cache[c][core[c].sb[core[c].head].line].st = C_S)
  ==>
  var l: Line;
  begin
    l := core[c].sb[core[c].head].line;
    if cache[c][l].st = C_I then
      SendMsg(RD_OWN, c, l, 0, 0, false); cache[c][l].st := C_IM_D; cache[c][l].v := 0; cache[c][l].ts := 0;
    else
      SendMsg(RD_UPGRADE, c, l, 0, 0, false); cache[c][l].st := C_SM_D;
    endif;
  end;

  -- The head store's REPL set: parallel at the head, baseline once its coherence transaction has
  -- ended (the line held with write permission).
  rule "Core_SendRepl"
    Live(c) & ORDER != 2 & core[c].head < core[c].nxt & !core[c].sb[core[c].head].rsent
    & (ORDER = 1 | cache[c][core[c].sb[core[c].head].line].st = C_E
                 | cache[c][core[c].sb[core[c].head].line].st = C_M)
  ==>
  begin
    SendRepl(c, core[c].head);
  end;

  -- Commit: the head store merges into the line it owns once every replica acknowledged; its VALs
  -- leave with the line's next version as TS. The oracle records the commit.
  rule "Core_Commit"
    Live(c) & core[c].head < core[c].nxt & core[c].sb[core[c].head].rsent
    & (MUT_VAL_BEFORE_ACKS = 1 | AllAcked(c, core[c].head))
    & (cache[c][core[c].sb[core[c].head].line].st = C_E | cache[c][core[c].sb[core[c].head].line].st = C_M)
  ==>
  var k: SIdx; l: Line;
  begin
    k := core[c].head; l := core[c].sb[k].line;
    cache[c][l].st := C_M;
    cache[c][l].v := StoreVal(c, k);
    cache[c][l].ts := TsNext(cache[c][l].ts);
    last[l] := StoreVal(c, k);
    for r: CN do
      if core[c].sb[k].sent[r] then SendDk(VAL, c, r, l, k, 0, cache[c][l].ts); endif;
    endfor;
    ClearSb(core[c].sb[k]);
    core[c].head := core[c].head + 1;
  end;

  -- Loads and evictions, at any time (a load only while the core runs).
  ruleset l: Line do
    rule "CN_Load"
      Live(c) & !intr[c] & ops[c] > 0 & cache[c][l].st = C_I
    ==>
    begin
      ops[c] := ops[c] - 1;
      SendMsg(RD_SHARED, c, l, 0, 0, false); cache[c][l].st := C_IS_D;
    end;

    rule "CN_Evict"
      Live(c) & EVICT = 1 & ops[c] > 0 & (cache[c][l].st = C_S | cache[c][l].st = C_E | cache[c][l].st = C_M)
    ==>
    begin
      ops[c] := ops[c] - 1;
      switch cache[c][l].st
        case C_S: SendMsg(CLEAN_EVICT, c, l, 0, 0, false); cache[c][l].st := C_SI_A;
        case C_E: SendMsg(CLEAN_EVICT, c, l, 0, 0, false); cache[c][l].st := C_EI_A;
        case C_M: SendMsg(DIRTY_EVICT, c, l, cache[c][l].v, cache[c][l].ts, false); cache[c][l].st := C_MI_A;
      endswitch;
      if cache[c][l].st != C_MI_A then cache[c][l].v := 0; cache[c][l].ts := 0; endif;
    end;
  end;

  -- A CN fails (fail-stop): caches, store buffer and LU lost; what it sent still arrives; the
  -- switch drops what goes to it.
  rule "CN_Fail"
    FAILS = 1 & !failed
  ==>
  var i: NetCnt;
  begin
    failed := true; fcn := c;
    i := netn;
    while i > 0 do
      i := i - 1;
      if ToCn(net[i]) & DstCn(net[i]) = c then Remove(i); endif;
    endwhile;
    for l: Line do cache[c][l].st := C_I; cache[c][l].v := 0; cache[c][l].ts := 0; endfor;
    core[c].nxt := 0; core[c].head := 0;
    for k: SIdx do ClearSb(core[c].sb[k]); endfor;
    for c2: CN do for k: SIdx do FreeSlot(c, c2, k); endfor; endfor;
    for l: Line do lu[c].dram[l].ok := false; lu[c].dram[l].v := 0; lu[c].dram[l].ts := 0; endfor;
  end;
end;

-- ---------------------------------------------------------------------------------------------
-- Rules: message delivery (any message in flight may be next)

ruleset i: NetIdx do

  -- The CN's side (docs/architecture.md section 11c): answers to its requests.
  rule "CN_Recv_DATA_S"
    i < netn & net[i].mt = DATA_S
  ==>
  var c: CN; l: Line;
  begin
    c := net[i].cn; l := net[i].line;
    assert cache[c][l].st = C_IS_D "DATA_S to a CN that did not ask for a shared copy";
    cache[c][l].st := C_S; cache[c][l].v := net[i].v; cache[c][l].ts := net[i].ts;
    Remove(i);
  end;

  rule "CN_Recv_DATA_E"
    i < netn & net[i].mt = DATA_E
  ==>
  var c: CN; l: Line;
  begin
    c := net[i].cn; l := net[i].line;
    assert cache[c][l].st = C_IS_D | cache[c][l].st = C_IM_D | cache[c][l].st = C_IM_U
      "DATA_E to a CN that did not ask for the line (or to one still holding its S copy)";
    cache[c][l].st := C_E; cache[c][l].v := net[i].v; cache[c][l].ts := net[i].ts;
    Remove(i);
  end;

  rule "CN_Recv_CMP_E"
    i < netn & net[i].mt = CMP_E
  ==>
  var c: CN; l: Line;
  begin
    c := net[i].cn; l := net[i].line;
    assert cache[c][l].st = C_SM_D | cache[c][l].st = C_IM_U "CMP_E to a CN without an upgrade";
    if cache[c][l].st = C_SM_D then
      cache[c][l].st := C_E; cache[c][l].ts := net[i].ts;
      Remove(i);
    else
      -- the copy was taken by a snoop after the grant: void, ask again with RD_OWN
      Remove(i);
      cache[c][l].st := C_IM_D;
      SendMsg(RD_OWN, c, l, 0, 0, false);
    endif;
  end;

  rule "CN_Recv_CMP"
    i < netn & net[i].mt = CMP
  ==>
  var c: CN; l: Line;
  begin
    c := net[i].cn; l := net[i].line;
    assert cache[c][l].st = C_SI_A | cache[c][l].st = C_EI_A | cache[c][l].st = C_MI_A "CMP without an eviction";
    cache[c][l].st := C_I; cache[c][l].v := 0; cache[c][l].ts := 0;
    Remove(i);
  end;

  -- Snoops. A CN waiting for the answer to its own read of the line holds the snoop until the
  -- answer is in (the contract's way (b)); an upgrade waiting with its S copy answers a BISNP_INV
  -- at once; an eviction in flight answers as if it still held the line, with WR_IN_FLIGHT.
  rule "CN_Recv_BISNP"
    i < netn & (net[i].mt = BISNP_INV | net[i].mt = BISNP_DATA)
    & cache[net[i].cn][net[i].line].st != C_IS_D & cache[net[i].cn][net[i].line].st != C_IM_D
    & cache[net[i].cn][net[i].line].st != C_IM_U
    & !(cache[net[i].cn][net[i].line].st = C_SM_D & net[i].mt = BISNP_DATA)
  ==>
  var c: CN; l: Line; inv: boolean; cl: CLine;
  begin
    c := net[i].cn; l := net[i].line; inv := (net[i].mt = BISNP_INV); cl := cache[c][l];
    Remove(i);
    switch cl.st
      case C_S:
        assert inv "BISNP_DATA to a sharer";
        SendMsg(BIRSP_I, c, l, 0, 0, false); cache[c][l].st := C_I; cache[c][l].v := 0; cache[c][l].ts := 0;
      case C_SM_D:
        SendMsg(BIRSP_I, c, l, 0, 0, false); cache[c][l].st := C_IM_U; cache[c][l].v := 0; cache[c][l].ts := 0;
      case C_E:
        SendMsg(BIRSP_I, c, l, 0, 0, false); cache[c][l].st := C_I; cache[c][l].v := 0; cache[c][l].ts := 0;
      case C_M:
        SendMsg(BIRSP_I_DATA, c, l, cl.v, cl.ts, false); cache[c][l].st := C_I; cache[c][l].v := 0; cache[c][l].ts := 0;
      case C_SI_A:
        assert inv "BISNP_DATA to a sharer";
        SendMsg(BIRSP_I, c, l, 0, 0, true);
      case C_EI_A:
        SendMsg(BIRSP_I, c, l, 0, 0, true);
      case C_MI_A:
        SendMsg(BIRSP_I_DATA, c, l, cl.v, cl.ts, true);
    else
      error "BISNP to a CN that holds nothing of the line";
    endswitch;
  end;

  -- An owner asked for data (BISNP_DATA) may keep a shared copy.
  rule "CN_Recv_BISNP_DATA_keepS"
    i < netn & net[i].mt = BISNP_DATA
    & (cache[net[i].cn][net[i].line].st = C_E | cache[net[i].cn][net[i].line].st = C_M)
  ==>
  var c: CN; l: Line;
  begin
    c := net[i].cn; l := net[i].line;
    Remove(i);
    if cache[c][l].st = C_M then
      SendMsg(BIRSP_S_DATA, c, l, cache[c][l].v, cache[c][l].ts, false);
    else
      SendMsg(BIRSP_S, c, l, 0, 0, false);
    endif;
    cache[c][l].st := C_S;
  end;

  -- The LU (lu_log): a REPL allocates its slot, known to follow every validated slot of its line,
  -- and is acknowledged.
  rule "LU_Recv_REPL"
    i < netn & net[i].mt = REPL
  ==>
  var r: CN; c: CN; k: SIdx; l: Line;
  begin
    r := net[i].lu; c := net[i].cn; k := net[i].k; l := net[i].line;
    assert lu[r].slot[c][k].st = SL_FREE "a second REPL of one store at one LU";
    lu[r].slot[c][k].st := SL_REPL; lu[r].slot[c][k].line := l; lu[r].slot[c][k].v := net[i].v;
    for c2: CN do for k2: SIdx do
      lu[r].slot[c][k].fol[c2][k2] := lu[r].slot[c2][k2].st = SL_VAL & lu[r].slot[c2][k2].line = l;
    endfor; endfor;
    Remove(i);
    -- The REPL_ACK: its flight is not modelled (delivered at once, unless to a failed CN): a core
    -- may wait any time before committing anyway, and what the LU sends is delivered after it
    -- fails too, so an ACK in flight adds states and no behaviour.
    if Live(c) & core[c].head <= k & k < core[c].nxt & core[c].sb[k].sent[r] then
      core[c].sb[k].acked[r] := true;
    endif;
  end;

  -- A VAL validates its REPL's slot with the TS; a VAL that finds no REPL is dropped (counted).
  rule "LU_Recv_VAL"
    i < netn & net[i].mt = VAL
  ==>
  var r: CN; c: CN; k: SIdx;
  begin
    r := net[i].lu; c := net[i].cn; k := net[i].k;
    if lu[r].slot[c][k].st = SL_REPL then
      -- Two validated updates of one word never carry the same TS (section 11b: TS_CLASH).
      for c2: CN do for k2: SIdx do
        assert !(lu[r].slot[c2][k2].st = SL_VAL & lu[r].slot[c2][k2].line = lu[r].slot[c][k].line
                 & lu[r].slot[c2][k2].ts = net[i].ts) "TS_CLASH: two validated updates of a word with one TS";
      endfor; endfor;
      lu[r].slot[c][k].st := SL_VAL; lu[r].slot[c][k].ts := net[i].ts;
    endif;
    Remove(i);
  end;

  -- The directory: a request's turn (one transaction per line; requests that arrived are served
  -- in arrival order, which an unordered fabric makes any order). During a recovery (FAIL to
  -- RESUME) only requests already in the table are served; a failed CN's request is dropped.
  rule "TR_Voided"
    i < netn & IsReq(net[i].mt) & dir[net[i].line].tk = T_NONE & DirFailed(net[i].cn, net[i].line)
  ==>
  begin
    Remove(i);
  end;
end;

-- The directory's state x event table (docs/architecture.md section 11c; rtl/dir/dir_ctrl.sv TR_*).
function Served(i: NetIdx): boolean;
begin
  return i < netn & IsReq(net[i].mt) & dir[net[i].line].tk = T_NONE & !DirFailed(net[i].cn, net[i].line)
         & (mnph[Home(net[i].line)] = MP_IDLE | mnph[Home(net[i].line)] = MP_DONE | net[i].adm);
end;

function IsRead(t: MType): boolean; begin return t = RD_SHARED | t = RD_OWN | t = RD_UPGRADE; end;
function IsWr(t: MType): boolean; begin return t = CLEAN_EVICT | t = DIRTY_EVICT; end;

ruleset i: NetIdx do
  rule "TR_I_RdS"
    Served(i) & dir[net[i].line].st = D_I & net[i].mt = RD_SHARED
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    dir[l].stale[r] := false;
    SendMsg(DATA_E, r, l, dir[l].mem, dir[l].ver, false); SetOwner(l, r);
  end;

  rule "TR_I_RdOwn"
    Served(i) & dir[net[i].line].st = D_I & (net[i].mt = RD_OWN | net[i].mt = RD_UPGRADE)
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    dir[l].stale[r] := false;
    SendMsg(DATA_E, r, l, dir[l].mem, dir[l].ver, false); SetOwner(l, r);
  end;

  rule "TR_I_Evict"
    Served(i) & dir[net[i].line].st = D_I & IsWr(net[i].mt)
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    assert dir[l].stale[r] "violation NOT_OWNER (I_Evict)";
    dir[l].stale[r] := false;
    SendMsg(CMP, r, l, 0, 0, false);
  end;

  rule "TR_S_RdS"
    Served(i) & dir[net[i].line].st = D_S & net[i].mt = RD_SHARED & !dir[net[i].line].vec[net[i].cn]
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    dir[l].stale[r] := false;
    SendMsg(DATA_S, r, l, dir[l].mem, dir[l].ver, false); dir[l].vec[r] := true;
  end;

  rule "TR_S_ReRead"
    Served(i) & dir[net[i].line].st = D_S & (net[i].mt = RD_SHARED | net[i].mt = RD_OWN)
    & dir[net[i].line].vec[net[i].cn]
  ==>
  begin
    error "violation DUP_REQ (S_ReRead)";
  end;

  rule "TR_S_RdOwn"
    Served(i) & dir[net[i].line].st = D_S & (net[i].mt = RD_OWN | net[i].mt = RD_UPGRADE)
    & !dir[net[i].line].vec[net[i].cn]
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    dir[l].stale[r] := false;
    StartTxn(l, T_S_RdOwn, r);
    for o: CN do if dir[l].vec[o] then Snoop(l, o, BISNP_INV); endif; endfor;
    if !Awaits(l) then Finish(l); endif;
  end;

  rule "TR_S_Upg"
    Served(i) & dir[net[i].line].st = D_S & net[i].mt = RD_UPGRADE & dir[net[i].line].vec[net[i].cn]
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    dir[l].stale[r] := false;
    StartTxn(l, T_S_Upg, r);
    for o: CN do if dir[l].vec[o] & o != r then Snoop(l, o, BISNP_INV); endif; endfor;
    if !Awaits(l) then Finish(l); endif;
  end;

  rule "TR_S_CleanEvict"
    Served(i) & dir[net[i].line].st = D_S & net[i].mt = CLEAN_EVICT & dir[net[i].line].vec[net[i].cn]
  ==>
  var r: CN; l: Line; any: boolean;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    dir[l].stale[r] := false;
    dir[l].vec[r] := false;
    any := false;
    for o: CN do if dir[l].vec[o] then any := true; endif; endfor;
    if !any then dir[l].st := D_I; endif;
    SendMsg(CMP, r, l, 0, 0, false);
  end;

  rule "TR_S_StaleWr"
    Served(i) & dir[net[i].line].st = D_S
    & ((net[i].mt = CLEAN_EVICT & !dir[net[i].line].vec[net[i].cn]) | net[i].mt = DIRTY_EVICT)
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    assert dir[l].stale[r] "violation NOT_OWNER (S_StaleWr)";
    dir[l].stale[r] := false;
    SendMsg(CMP, r, l, 0, 0, false);
  end;

  rule "TR_EM_RdS"
    Served(i) & dir[net[i].line].st = D_EM & net[i].mt = RD_SHARED & !dir[net[i].line].vec[net[i].cn]
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    dir[l].stale[r] := false;
    StartTxn(l, T_EM_RdS, r);
    for o: CN do if dir[l].vec[o] then Snoop(l, o, BISNP_DATA); endif; endfor;
    if !Awaits(l) then Finish(l); endif;
  end;

  rule "TR_EM_RdOwn"
    Served(i) & dir[net[i].line].st = D_EM & (net[i].mt = RD_OWN | net[i].mt = RD_UPGRADE)
    & !dir[net[i].line].vec[net[i].cn]
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    dir[l].stale[r] := false;
    StartTxn(l, T_EM_RdOwn, r);
    for o: CN do if dir[l].vec[o] then Snoop(l, o, BISNP_INV); endif; endfor;
    if !Awaits(l) then Finish(l); endif;
  end;

  rule "TR_EM_ReRead"
    Served(i) & dir[net[i].line].st = D_EM & IsRead(net[i].mt) & dir[net[i].line].vec[net[i].cn]
  ==>
  begin
    error "violation DUP_REQ (EM_ReRead)";
  end;

  rule "TR_EM_CleanEvict"
    Served(i) & dir[net[i].line].st = D_EM & net[i].mt = CLEAN_EVICT & dir[net[i].line].vec[net[i].cn]
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    dir[l].stale[r] := false;
    dir[l].st := D_I; dir[l].vec[r] := false;
    SendMsg(CMP, r, l, 0, 0, false);
  end;

  rule "TR_EM_DirtyEvict"
    Served(i) & dir[net[i].line].st = D_EM & net[i].mt = DIRTY_EVICT & dir[net[i].line].vec[net[i].cn]
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line;
    dir[l].mem := net[i].v; dir[l].ver := net[i].ts;
    Remove(i);
    dir[l].stale[r] := false;
    dir[l].st := D_I; dir[l].vec[r] := false;
    SendMsg(CMP, r, l, 0, 0, false);
  end;

  rule "TR_EM_StaleWr"
    Served(i) & dir[net[i].line].st = D_EM & IsWr(net[i].mt) & !dir[net[i].line].vec[net[i].cn]
  ==>
  var r: CN; l: Line;
  begin
    r := net[i].cn; l := net[i].line; Remove(i);
    assert dir[l].stale[r] "violation NOT_OWNER (EM_StaleWr)";
    dir[l].stale[r] := false;
    SendMsg(CMP, r, l, 0, 0, false);
  end;

  -- A snoop answer (EV_BIRSP): matched to the transaction awaiting its CN, else a violation.
  rule "DIR_Recv_BIRSP"
    i < netn & (net[i].mt = BIRSP_I | net[i].mt = BIRSP_S | net[i].mt = BIRSP_I_DATA | net[i].mt = BIRSP_S_DATA)
  ==>
  var c: CN; l: Line; m: Msg; data: boolean; kept: boolean;
  begin
    m := net[i]; c := m.cn; l := m.line; Remove(i);
    data := (m.mt = BIRSP_I_DATA | m.mt = BIRSP_S_DATA);
    kept := (m.mt = BIRSP_S | m.mt = BIRSP_S_DATA);
    assert dir[l].tk != T_NONE & dir[l].tawait[c] "violation BIRSP (nobody awaits it)";
    assert !(data & dir[l].tk != T_EM_RdS & dir[l].tk != T_EM_RdOwn) "violation BIRSP (data from a sharer)";
    assert !(kept & dir[l].tk != T_EM_RdS) "violation BIRSP (S kept after BISNP_INV)";
    dir[l].tawait[c] := false;
    if m.wrif then dir[l].stale[c] := true; endif;
    if kept then dir[l].tkept := true; endif;
    if data then dir[l].mem := m.v; dir[l].ver := m.ts; endif;
    if !Awaits(l) then Finish(l); endif;
  end;
end;

-- The LU's drain: a validated word that may leave goes to the DRAM log (lu_slots' pick).
ruleset r: CN do
  ruleset c: CN do
    ruleset k: SIdx do
      rule "LU_Drain"
        Live(r) & lu[r].slot[c][k].st = SL_VAL & Ready(r, c, k)
      ==>
      var l: Line;
      begin
        l := lu[r].slot[c][k].line;
        lu[r].dram[l].ok := true; lu[r].dram[l].v := lu[r].slot[c][k].v; lu[r].dram[l].ts := lu[r].slot[c][k].ts;
        FreeSlot(r, c, k);
      end;
    end;
  end;
end;

-- Dump (lu_dump, csim/mn/mn_log): every live LU's DRAM log to the MN log stores at once, then the logs
-- are cleared; the store keeps the latest epoch's record (the newest TS of this dump).
rule "LU_Dump"
  dumps > 0 & (rec = RP_NONE | rec = RP_DONE)
  & exists r: CN do exists l: Line do Live(r) & lu[r].dram[l].ok endexists endexists
==>
var w: Rec;
begin
  dumps := dumps - 1;
  for l: Line do
    w.ok := false; w.v := 0; w.ts := 0;
    for r: CN do
      if Live(r) & lu[r].dram[l].ok & (!w.ok | TsAfter(lu[r].dram[l].ts, w.ts)) then w := lu[r].dram[l]; endif;
    endfor;
    if w.ok then mnstore[l] := w; endif;
    for r: CN do lu[r].dram[l].ok := false; lu[r].dram[l].v := 0; lu[r].dram[l].ts := 0; endfor;
  endfor;
end;

-- ---------------------------------------------------------------------------------------------
-- Rules: recovery (Table I, Algorithm 1)

-- The CM, on the switch's MSI, once the failed CN's traffic has left the fabric (what it sent to
-- the CNs and LUs is delivered; its requests wait in the MNs' receive queues): INTERRUPT.
rule "CM_Interrupt"
  failed & rec = RP_NONE
  & !(exists i: NetIdx do i < netn & FromCn(net[i]) & SrcCn(net[i]) = fcn & !IsReq(net[i].mt) endexists)
==>
begin
  rec := RP_INTR;
end;

ruleset c: CN do
  -- INTERRUPT at CN c: its cores pause; its replica map drops the failed CN and its replication
  -- engine sends the REPL of every uncommitted entry that had the failed CN among its replicas to
  -- the member its set gained, and the entry waits for that REPL_ACK before it commits, also one
  -- that was acknowledged already (csim/cn/cn_repl.c takes the acknowledgement back; a store keeps
  -- NR copies); its LU purges the failed CN's unvalidated slots, answers and pauses (no dump).
  rule "CN_Interrupt"
    rec = RP_INTR & Live(c) & !intr[c]
  ==>
  begin
    intr[c] := true;
    mapdrop[c] := true;
    for k: SIdx do
      if core[c].head <= k & k < core[c].nxt & core[c].sb[k].rsent & core[c].sb[k].sent[fcn] then
        core[c].sb[k].sent[fcn] := false; core[c].sb[k].acked[fcn] := false;
        SendRepl(c, k);
      endif;
    endfor;
    for k: SIdx do
      if lu[c].slot[fcn][k].st = SL_REPL then FreeSlot(c, fcn, k); endif;
    endfor;
  end;
end;

rule "CM_InitRecov"
  rec = RP_INTR & forall c: CN do !Live(c) | intr[c] endforall
==>
begin
  rec := RP_MN;
end;

ruleset m: MN do
  -- INIT_RECOV at MN m: the handler gives the directory FAIL. A transaction awaiting the failed
  -- CN's answer as a sharer takes it as BIRSP_I; as the owner it is held until the RECOVER. The
  -- requests already in the table will be served; new ones wait until RESUME.
  rule "MN_Fail"
    rec = RP_MN & mnph[m] = MP_IDLE
  ==>
  begin
    mnph[m] := MP_FAILED;
    for i: NetIdx do
      if i < netn & IsReq(net[i].mt) & Home(net[i].line) = m then net[i].adm := true; endif;
    endfor;
    for l: Line do
      if Home(l) = m & dir[l].tk != T_NONE & dir[l].tawait[fcn] then
        if dir[l].tk = T_S_RdOwn | dir[l].tk = T_S_Upg | MUT_DIR_ANSWERS_FOR_FAILED = 1 then
          dir[l].tawait[fcn] := false;
          if !Awaits(l) then Finish(l); endif;
        endif;
      endif;
    endfor;
  end;

  -- WALK, once every transaction is held or waits: an EM line of the failed CN goes to Owned, S
  -- lines lose it, its stale-write bits go.
  rule "MN_Walk"
    mnph[m] = MP_FAILED & forall l: Line do Home(l) != m | dir[l].tk = T_NONE | Held(l) endforall
  ==>
  var any: boolean;
  begin
    mnph[m] := MP_WALKED;
    for l: Line do
      if Home(l) = m then
        dir[l].stale[fcn] := false;
        if dir[l].st = D_EM & dir[l].vec[fcn] then owned[l] := true; endif;
        if dir[l].st = D_S & dir[l].vec[fcn] then
          dir[l].vec[fcn] := false;
          any := false;
          for o: CN do if dir[l].vec[o] then any := true; endif; endfor;
          if !any then dir[l].st := D_I; endif;
        endif;
      endif;
    endfor;
  end;

  -- FETCH_LATEST_VERS and RECOVER of one Owned line: the words found to memory, the version found
  -- in the LUs' buffers to the entry; a held transaction goes on as if the owner had answered.
  ruleset l: Line do
    rule "MN_Recover"
      mnph[m] = MP_WALKED & Home(l) = m & owned[l]
      & (FETCH_AFTER_VALS = 0 | !(exists i: NetIdx do i < netn & net[i].mt = VAL & net[i].line = l endexists))
    ==>
    var w: Rec; setv: boolean; ver: TsT;
    begin
      owned[l] := false;
      Fetch(l, w, setv, ver);
      if Held(l) then
        if w.ok then dir[l].mem := w.v; endif;
        if setv then dir[l].ver := ver; endif;
        dir[l].tawait[fcn] := false;
        Finish(l);
      elsif dir[l].tk = T_NONE & dir[l].st = D_EM & dir[l].vec[fcn] then
        if w.ok then dir[l].mem := w.v; endif;
        if setv then dir[l].ver := ver; endif;
        dir[l].st := D_I; dir[l].vec[fcn] := false;
      endif;
    end;
  end;

  rule "MN_Resume"
    mnph[m] = MP_WALKED & forall l: Line do Home(l) != m | !owned[l] endforall
  ==>
  begin
    mnph[m] := MP_DONE;
  end;
end;

rule "CM_RecovEnd"
  rec = RP_MN & forall m: MN do mnph[m] = MP_DONE endforall
==>
begin
  rec := RP_END;
end;

ruleset c: CN do
  rule "CN_RecovEnd"
    rec = RP_END & Live(c) & intr[c]
  ==>
  begin
    intr[c] := false;
  end;
end;

rule "CM_Done"
  rec = RP_END & forall c: CN do !intr[c] endforall
==>
begin
  rec := RP_DONE;
end;

-- ---------------------------------------------------------------------------------------------

startstate
begin
  netn := 0;
  for i: NetIdx do ClearMsg(net[i]); endfor;
  for c: CN do
    for l: Line do cache[c][l].st := C_I; cache[c][l].v := 0; cache[c][l].ts := 0; endfor;
    core[c].nxt := 0; core[c].head := 0;
    for k: SIdx do ClearSb(core[c].sb[k]); endfor;
    for c2: CN do for k: SIdx do
      lu[c].slot[c2][k].st := SL_FREE; lu[c].slot[c2][k].line := 0; lu[c].slot[c2][k].v := 0;
      lu[c].slot[c2][k].ts := 0;
      for c3: CN do for k3: SIdx do lu[c].slot[c2][k].fol[c3][k3] := false; endfor; endfor;
    endfor; endfor;
    for l: Line do lu[c].dram[l].ok := false; lu[c].dram[l].v := 0; lu[c].dram[l].ts := 0; endfor;
    intr[c] := false; mapdrop[c] := false;
  endfor;
  for l: Line do
    dir[l].st := D_I; dir[l].ver := TS0; dir[l].mem := 0;
    dir[l].tk := T_NONE; dir[l].treq := 0; dir[l].tkept := false;
    for c: CN do dir[l].vec[c] := false; dir[l].stale[c] := false; dir[l].tawait[c] := false; endfor;
    mnstore[l].ok := false; mnstore[l].v := 0; mnstore[l].ts := 0;
    last[l] := 0;
    owned[l] := false;
  endfor;
  failed := false; fcn := 0;
  rec := RP_NONE;
  for m: MN do mnph[m] := MP_IDLE; endfor;
  for c: CN do ops[c] := OPS; endfor;
  dumps := DUMPS;
end;

-- ---------------------------------------------------------------------------------------------
-- Properties

-- The end of a run: every live store committed, the fabric empty, no transaction, every live LU
-- drained, any recovery ended.
function Finished(): boolean;
begin
  return (!failed | rec = RP_DONE) & netn = 0
  & (forall c: CN do
      !Live(c) | (core[c].head = NS
                  & forall c2: CN do forall k: SIdx do lu[c].slot[c2][k].st = SL_FREE endforall endforall)
    endforall)
  & (forall l: Line do dir[l].tk = T_NONE endforall);
end;

invariant "single_writer_multiple_readers"
  forall l: Line do
    forall c: CN do
      (Live(c) & (cache[c][l].st = C_E | cache[c][l].st = C_M)) ->
        forall o: CN do
          (o != c & Live(o)) -> (cache[o][l].st != C_E & cache[o][l].st != C_M
                                 & cache[o][l].st != C_S & cache[o][l].st != C_SM_D)
        endforall
    endforall
  endforall;

-- Every copy a live CN can read holds the line's last committed store.
invariant "cached_copy_is_last_committed"
  forall l: Line do forall c: CN do
    (Live(c) & (cache[c][l].st = C_S | cache[c][l].st = C_SM_D | cache[c][l].st = C_E | cache[c][l].st = C_M))
      -> cache[c][l].v = last[l]
  endforall endforall;

-- At rest (no dirty copy, no dirty data in flight, not owned by a failed CN still to recover),
-- memory holds the line's last committed store: in particular after a recovery.
invariant "memory_is_last_committed"
  forall l: Line do
    ((forall c: CN do !(Live(c) & (cache[c][l].st = C_M | cache[c][l].st = C_MI_A)) endforall)
     & !(exists i: NetIdx do i < netn & net[i].line = l
           & (net[i].mt = DIRTY_EVICT | net[i].mt = BIRSP_I_DATA | net[i].mt = BIRSP_S_DATA) endexists)
     & !(failed & dir[l].st = D_EM & dir[l].vec[fcn]))
    -> dir[l].mem = last[l]
  endforall;

invariant "recovery_leaves_no_failed_holder"
  rec = RP_DONE -> forall l: Line do !dir[l].vec[fcn] & !dir[l].tawait[fcn] endforall;

-- No deadlock, and recovery always ends: from every reachable state, the end of the run is
-- reachable (every live store committed, the fabric empty, no transaction, every live LU drained,
-- any recovery ended).
liveness "finished"
  CHECK_LIVE = 0 | Finished();

-- Rumur's deadlock check (stuck: a state with no rule enabled) sees the end of a run as one unless
-- this rule is enabled there.
rule "Finished"
  Finished()
==>
begin
end;
