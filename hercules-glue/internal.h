/* hcpumf: what the glue's translation units share (instructions.c, arming.c, host.c).
 *
 * Each unit compiles itself once per architecture through the _GEN_ARCH self-include, like
 * Hercules' own modules (crypto/dyncrypt.c), so every per-architecture function exists as an
 * s370_, s390_ and z900_ variant. The first part of this header is read once; the second
 * part again in every architecture pass, after hercules.h has set that pass's ARCH_DEP. */

#ifndef HCPUMF_INTERNAL_H
#define HCPUMF_INTERNAL_H

#include <pthread.h>
#include <time.h>

#include "glue.h"
#include "hcpumf.h"

/* Call the s370_, s390_ or z900_ variant of a per-architecture function for a CPU. */
#define HCPUMF_PER_ARCH(_regs, _fn, ...)                       \
    do {                                                       \
        switch ((_regs)->arch_mode) {                          \
        case ARCH_370: s370_##_fn(__VA_ARGS__); break;         \
        case ARCH_390: s390_##_fn(__VA_ARGS__); break;         \
        case ARCH_900: z900_##_fn(__VA_ARGS__); break;         \
        }                                                      \
    } while (0)

/* arming.c: getting a CPU to run the tick, reading a running CPU, the per-CPU tables. */
int hcpumf_h_arm(uint16_t cpu, hcpumf_arm_mode mode);
void hcpumf_disarm(int cpu);
void hcpumf_patch_all(int install);
void hcpumf_h_kick_waiting(uint16_t cpu);
int hcpumf_h_peek(uint16_t cpu, int accounting, hcpumf_peek *out);

#endif /* HCPUMF_INTERNAL_H */

/* ---------------------------------------------------- per architecture pass ---------- */

#undef HCPUMF_GR
#undef HCPUMF_SET_GR
#undef HCPUMF_CR
#undef HCPUMF_ARCH
#if defined(FEATURE_ESAME)
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
void ARCH_DEP(hcpumf_patch)(REGS *regs, int install);
