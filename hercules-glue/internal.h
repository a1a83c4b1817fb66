/* hcpumf: what the glue's translation units share (instructions.c, arming.c, host.c, and
 * for SDL Hyperion hyperion.c and arming_hyperion.c).
 *
 * Each unit compiles itself once per architecture through the _GEN_ARCH self-include, like
 * Hercules' own modules (crypto/dyncrypt.c), so every per-architecture function exists as an
 * s370_, s390_ and z900_ variant. The first part of this header is read once; the second
 * part again in every architecture pass, after hercules.h has set that pass's ARCH_DEP. */

#include "glue.h"
#include "hcpumf.h"
/* After hcpumf.h: it renames the HDL section functions the Rust side exports. */
#include "compat.h"

#ifndef HCPUMF_INTERNAL_H
#define HCPUMF_INTERNAL_H

#include <pthread.h>
#include <time.h>

/* Call the s370_, s390_ or z900_ variant of a per-architecture function for a CPU. */
#define HCPUMF_PER_ARCH(_regs, _fn, ...)                       \
    do {                                                       \
        switch ((_regs)->arch_mode) {                          \
        case HCPUMF_ARCH_370: s370_##_fn(__VA_ARGS__); break;  \
        case HCPUMF_ARCH_390: s390_##_fn(__VA_ARGS__); break;  \
        case HCPUMF_ARCH_900: z900_##_fn(__VA_ARGS__); break;  \
        }                                                      \
    } while (0)

/* arming.c (arming_hyperion.c for Hyperion): getting a CPU to run the tick, reading a
 * running CPU, the per-CPU tables. */
int hcpumf_h_arm(uint16_t cpu, hcpumf_arm_mode mode);
void hcpumf_disarm(int cpu);
void hcpumf_h_kick_waiting(uint16_t cpu);
int hcpumf_h_peek(uint16_t cpu, int accounting, hcpumf_peek *out);
int hcpumf_h_peek_wait(uint16_t cpu, hcpumf_wait_peek *out);

/* host.c: fill in the host services and start the Rust core (registration section). */
void hcpumf_services_load(void);
/* Set by the final section before the plugin stops: a thread of the plugin waiting for a
 * lock the unloading thread holds (Hyperion's rmmod holds the interrupt lock) gives up. */
extern volatile int hcpumf_glue_stopping;

/* The instructions the plugin defines: the CPU-measurement instructions on every
 * architecture (the Rust core answers with an operation exception on S/370 and ESA/390
 * unless the operator allowed them), and the instructions it wraps: SIGP and SERVC for
 * resets, SVC/LPSW/LPSWE for problem-state accounting, CPACF for the crypto counters.
 * X(architectures, opcode, function, wrapped slot or -1). */
enum hcpumf_wrapped {
    HCPUMF_W_SIGP, HCPUMF_W_SVC, HCPUMF_W_LPSW, HCPUMF_W_LPSWE, HCPUMF_W_SERVC,
    HCPUMF_W_KIMD, HCPUMF_W_KLMD, HCPUMF_W_KM, HCPUMF_W_KMC, HCPUMF_W_KMAC, HCPUMF_W_COUNT
};
#define HCPUMF_INSTRUCTIONS(X)                                                      \
    X(HDL_INSTARCH_ALL, 0xB280, hcpumf_lpp, -1)                                     \
    X(HDL_INSTARCH_ALL, 0xB284, hcpumf_lcctl, -1)                                   \
    X(HDL_INSTARCH_ALL, 0xB285, hcpumf_lpctl, -1)                                   \
    X(HDL_INSTARCH_ALL, 0xB286, hcpumf_qsi, -1)                                     \
    X(HDL_INSTARCH_ALL, 0xB287, hcpumf_lsctl, -1)                                   \
    X(HDL_INSTARCH_ALL, 0xB28E, hcpumf_qctri, -1)                                   \
    X(HDL_INSTARCH_ALL, 0xB2E0, hcpumf_scctr, -1)                                   \
    X(HDL_INSTARCH_ALL, 0xB2E1, hcpumf_spctr, -1)                                   \
    X(HDL_INSTARCH_ALL, 0xB2E4, hcpumf_ecctr, -1)                                   \
    X(HDL_INSTARCH_ALL, 0xB2E5, hcpumf_epctr, -1)                                   \
    X(HDL_INSTARCH_ALL, 0xB2ED, hcpumf_ecpga, -1)                                   \
    X(HDL_INSTARCH_ALL, 0xEB17, hcpumf_stcctm, -1)                                  \
    X(HDL_INSTARCH_ALL, 0xAE, hcpumf_sigp, HCPUMF_W_SIGP)                           \
    X(HDL_INSTARCH_ALL, 0x0A, hcpumf_svc, HCPUMF_W_SVC)                             \
    X(HDL_INSTARCH_ALL, 0x82, hcpumf_lpsw, HCPUMF_W_LPSW)                           \
    X(HDL_INSTARCH_900, 0xB2B2, hcpumf_lpswe, HCPUMF_W_LPSWE)                       \
    X(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB220, hcpumf_servc, HCPUMF_W_SERVC)    \
    X(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB93E, hcpumf_kimd, HCPUMF_W_KIMD)      \
    X(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB93F, hcpumf_klmd, HCPUMF_W_KLMD)      \
    X(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB92E, hcpumf_km, HCPUMF_W_KM)          \
    X(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB92F, hcpumf_kmc, HCPUMF_W_KMC)        \
    X(HDL_INSTARCH_390 | HDL_INSTARCH_900, 0xB91E, hcpumf_kmac, HCPUMF_W_KMAC)

#if defined(HCPUMF_HYPERION)
/* hyperion.c: the function each wrapped instruction had in Hyperion's table (or another
 * module's, e.g. dyncrypt's CPACF) before the plugin's, per architecture index. */
extern hcpumf_func hcpumf_prev[NUM_GEN_ARCHS][HCPUMF_W_COUNT];
/* hyperion.c: the plugin's facility bits in Hyperion's z/Architecture list (on at load and
 * at every system reset, off at unload). */
void hcpumf_facilities(int on);
/* arming_hyperion.c: the per-CPU opcode tables. */
int hcpumf_tables_load(void);
void hcpumf_tables_unload(void);
void hcpumf_tables_resolve(void *next_replace_opcode);
void *hcpumf_replace_opcode(int arch, hcpumf_func inst, int opcode1, int opcode2);
hcpumf_func hcpumf_table_entry(int arch, int index);
#else
/* arming.c: the first-level instructions the plugin wraps, in every CPU's own table. */
void hcpumf_patch_all(int install);
#endif

/* A CPU's arming while it watches for the instruction that enables a pending measurement
 * alert (the `nfew` of its arming state; 0 and above are predicted or every entry). */
#define HCPUMF_WATCH (-1)
/* The first opcode bytes of the instructions that can enable a CPU for a pending
 * measurement alert: SSM, LPSW, STOSM and LCTL, and those sharing a first byte with
 * LPSWE/RP (B2), LCTLG/LPSWEY (EB) and PR (01); SVC loads a new PSW that may enable too. */
#define HCPUMF_ENABLING_OPS {0x01, 0x0A, 0x80, 0x82, 0xAD, 0xB2, 0xB7, 0xEB}
#define HCPUMF_N_ENABLING_OPS 8
/* Can the instruction `inst` (one whose first byte is in HCPUMF_ENABLING_OPS) turn on the
 * PSW external mask or CR0's measurement-alert subclass mask (SA23-2260, Measurement Alert:
 * the alert is presented once both are on)? */
static inline int hcpumf_may_enable(const BYTE inst[])
{
    switch (inst[0]) {
    case 0x01: return inst[1] == 0x01;                    /* PR */
    case 0xB2: return inst[1] == 0xB2 || inst[1] == 0x77; /* LPSWE, RP */
    case 0xEB: return inst[5] == 0x2F || inst[5] == 0x71; /* LCTLG, LPSWEY */
    default: return 1;
    }
}
/* Any instruction: may it enable a CPU for a pending measurement alert? */
static inline int hcpumf_enabling(const BYTE inst[])
{
    static const BYTE ops[HCPUMF_N_ENABLING_OPS] = HCPUMF_ENABLING_OPS;
    int k;
    for (k = 0; k < HCPUMF_N_ENABLING_OPS; k++)
        if (inst[0] == ops[k])
            return hcpumf_may_enable(inst);
    return 0;
}

#endif /* HCPUMF_INTERNAL_H */

/* ---------------------------------------------------- per architecture pass ---------- */

#undef HCPUMF_GR
#undef HCPUMF_SET_GR
#undef HCPUMF_CR
#undef HCPUMF_ARCH
#if defined(HCPUMF_ZARCH)
 #define HCPUMF_GR(_regs, _r) ((U64)(_regs)->GR_G(_r))
 #define HCPUMF_SET_GR(_regs, _r, _v) ((_regs)->GR_G(_r) = (_v))
 #define HCPUMF_CR(_regs, _r) ((U64)(_regs)->CR_G(_r))
 #define HCPUMF_ARCH 2
#else
 #define HCPUMF_GR(_regs, _r) ((U64)(_regs)->GR_L(_r))
 #define HCPUMF_SET_GR(_regs, _r, _v) ((_regs)->GR_L(_r) = (U32)(_v))
 #define HCPUMF_CR(_regs, _r) ((U64)(_regs)->CR_L(_r))
 #if defined(FEATURE_S370_CHANNEL)
  #define HCPUMF_ARCH 0
 #else
  #define HCPUMF_ARCH 1
 #endif
#endif

/* instructions.c */
void ARCH_DEP(hcpumf_view)(REGS *regs, BYTE inst[], hcpumf_view *v);
int ARCH_DEP(hcpumf_settle)(BYTE inst[], REGS *regs);
DEF_INST(hcpumf_lpp);
DEF_INST(hcpumf_lcctl);
DEF_INST(hcpumf_lpctl);
DEF_INST(hcpumf_qsi);
DEF_INST(hcpumf_lsctl);
DEF_INST(hcpumf_qctri);
DEF_INST(hcpumf_scctr);
DEF_INST(hcpumf_spctr);
DEF_INST(hcpumf_ecctr);
DEF_INST(hcpumf_epctr);
DEF_INST(hcpumf_ecpga);
DEF_INST(hcpumf_stcctm);
DEF_INST(hcpumf_stfle);
DEF_INST(hcpumf_sigp);
DEF_INST(hcpumf_servc);
DEF_INST(hcpumf_svc);
DEF_INST(hcpumf_lpsw);
DEF_INST(hcpumf_lpswe);
DEF_INST(hcpumf_kimd);
DEF_INST(hcpumf_klmd);
DEF_INST(hcpumf_km);
DEF_INST(hcpumf_kmc);
DEF_INST(hcpumf_kmac);

/* arming.c */
void ARCH_DEP(hcpumf_tick_common)(BYTE inst[], REGS *regs);
void ARCH_DEP(hcpumf_arm_watch)(REGS *regs, const BYTE inst[]);
#if !defined(HCPUMF_HYPERION)
void ARCH_DEP(hcpumf_patch)(REGS *regs, int install);
#endif

/* The function a wrapped instruction passes on to: Hercules 3.13's own (libherc), or the
 * one Hyperion's table held when the plugin was loaded. */
#undef HCPUMF_PREV
#if defined(HCPUMF_HYPERION)
 #define HCPUMF_PREV(_slot, _name) (hcpumf_prev[ARCH_IDX][_slot])
#else
 #define HCPUMF_PREV(_slot, _name) ARCH_DEP(_name)
#endif
