/* CSR word addresses and fields of the CXL switch (rtl/switch/cxl_switch.sv, sw_viral.sv,
 * sw_perf.sv; the map is documented there and in docs/architecture.md). Every register is 32 bits;
 * an access is one request and, the cycle after, one response (data or a refusal). */
#ifndef CXL_SWITCH_CSR_H
#define CXL_SWITCH_CSR_H

#define SW_CSR_ROUTE(node) (0x000u + (node)) /* RW: SW_ROUTE_VALID | output port */
#define SW_CSR_SHAPE 0x100u                   /* R: NumCn 7:0, NumMn 15:8, CrdPerCls 23:16 */
#define SW_CSR_SUNK 0x101u                    /* R: messages sunk for want of a route */
#define SW_CSR_ERRORS 0x102u                  /* R: refused CSR accesses */
#define SW_CSR_CTRL 0x103u                    /* RW: SW_CTRL_ENABLE, set once */
#define SW_CSR_VIRAL 0x104u                   /* R: Viral_Status per CN; W: 1 clears */
#define SW_CSR_FENCED 0x105u                  /* R: CNs failed and not re-admitted */
#define SW_CSR_READMIT 0x106u                 /* W: bit i re-admits CN i (fenced, VIRAL clear) */
#define SW_CSR_CM 0x107u                      /* W: SW_CM_NAMED | CN, or 0; R: see SW_CM_* */
#define SW_CSR_SILENCE_LIMIT 0x108u           /* RW: cycles, < 2^31, 0 = off */
#define SW_CSR_ACCEPT_LIMIT 0x109u            /* RW: cycles, < 2^31, 0 = off */
#define SW_CSR_MSI_SENT 0x10Au                /* R: MSIs sent */
#define SW_CSR_DROPPED 0x10Bu                 /* R: messages from fenced CNs dropped */
#define SW_CSR_SUNK_FENCED 0x10Cu             /* R: messages for fenced CNs sunk */
#define SW_CSR_DETECT_ACCEPT 0x10Du           /* R: bit i: CN i detected by the accept rule */
#define SW_CSR_CRD_ADV 0x10Eu                 /* RW: credits per class the inputs advertise, 1 .. CrdPerCls; before CTRL */
#define SW_CSR_DETECT_TIME(cn) (0x200u + (cn)) /* R: cycle CN cn was declared failed */
#define SW_CSR_PERF(port, cls, k) (0x1000u + (port) * 64u + (cls) * 4u + (k)) /* R */

#define SW_ROUTE_VALID (1u << 31)
#define SW_CTRL_ENABLE 1u
#define SW_CM_NAMED (1u << 31)          /* CM register: a CM is named (W and R) */
#define SW_CM_EXISTS (1u << 30)         /* CM register read: some CN is live */
#define SW_CM_NOW(r) (((r) >> 8) & 0xffu) /* CM register read: the CM now */

enum sw_perf_counter { SW_PERF_MSGS, SW_PERF_BYTES, SW_PERF_STARVE, SW_PERF_STALL };

#endif
